/**
 * The kernel builders on a real GPU: elementwise kernels (saxpy in two dtypes, a fused expression, scalars
 * broadcast, given and allocated outputs, two outputs, float16, raw parameters), reductions (sum exact in int32 and
 * float64, max, a custom norm with a wider reduce type, an empty input, a large input), the builder's own cache, and
 * the typed errors that come before any launch. Skips without a GPU.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ArrayLayoutError,
  DTypeError,
  Device,
  DeviceArray,
  ShapeMismatchError,
  decodeHalf,
  encodeHalf,
  type Stream,
} from "../../../src/index.ts";
import { ElementwiseKernel, ReductionKernel, builderStats } from "../../../src/kernels.ts";
import { gpu, skipNote } from "../../support/gpu.ts";

describe.skipIf(!gpu.available)(`kernel builders on a GPU${skipNote}`, () => {
  let dev: Device;
  let stream: Stream;

  beforeAll(() => {
    if (!gpu.available) return;
    dev = new Device(0);
    dev.setCurrent();
    stream = dev.createStream();
  });

  afterAll(() => {
    stream?.close();
  });

  it("saxpy in float32 and float64 with a broadcast scalar, allocated or given output", () => {
    const saxpy = new ElementwiseKernel("T a, T x, T y", "T z", "z = a * x + y", "saxpy");
    const n = 100_003;
    const xs = Float32Array.from({ length: n }, (_, i) => i % 97);
    using x = DeviceArray.from(xs, { stream });
    using y = DeviceArray.full([n], 1, "float32", { stream });
    using z = saxpy.launch(stream, 2, x, y) as DeviceArray;
    expect(z.dtype.name).toBe("float32");
    expect(z.shape).toEqual([n]);
    const host = z.toTypedArraySync({ stream });
    for (let i = 0; i < n; i++) if (host[i] !== 2 * (i % 97) + 1) throw new Error(`z[${i}] = ${host[i]}`);
    using xd = DeviceArray.from(Float64Array.from({ length: 1000 }, (_, i) => i / 3), { stream });
    using out = DeviceArray.empty([1000], "float64", { stream });
    expect(saxpy.launch(stream, 0.5, xd, xd, out)).toBe(out);
    const d = out.toTypedArraySync({ stream });
    for (let i = 0; i < 1000; i++) expect(d[i]).toBe(0.5 * (i / 3) + i / 3);
  });

  it("the vectorised variant for aligned arrays, the one-at-a-time kernel for misaligned views, and outputs left alone keep their values", () => {
    const n = 4099; // packs, then a tail
    const xs = Float32Array.from({ length: n + 1 }, (_, i) => (i % 7) - 3);
    using x = DeviceArray.from(xs, { stream });
    const add = new ElementwiseKernel("T x, T y", "T z", "z = x + y", "add_vec");
    // Aligned: whole arrays.
    using whole = x.subarray(0, n);
    using z1 = add.launch(stream, whole, whole) as DeviceArray;
    const h1 = z1.toTypedArraySync({ stream });
    for (let i = 0; i < n; i++) if (h1[i] !== 2 * xs[i]!) throw new Error(`aligned z[${i}] = ${h1[i]}`);
    // Misaligned by one element (4 bytes): the same result through the scalar kernel.
    using shifted = x.subarray(1, n + 1);
    using z2 = add.launch(stream, shifted, shifted) as DeviceArray;
    const h2 = z2.toTypedArraySync({ stream });
    for (let i = 0; i < n; i++) if (h2[i] !== 2 * xs[i + 1]!) throw new Error(`misaligned z[${i}] = ${h2[i]}`);
    // A conditional write: elements the body skips keep the output's old values.
    const relu = new ElementwiseKernel("T x", "T z", "if (x > 0) z = x", "keep_positive");
    using out = DeviceArray.full([n], -100, "float32", { stream });
    relu.launch(stream, whole, out);
    const h3 = out.toTypedArraySync({ stream });
    for (let i = 0; i < n; i++) if (h3[i] !== (xs[i]! > 0 ? xs[i]! : -100)) throw new Error(`relu z[${i}] = ${h3[i]}`);
    // int8 (16 per pack) and float64 (2 per pack), with an in-place output.
    const i8 = new ElementwiseKernel("T x", "T z", "z = x * 2", "twice_i8");
    using b = DeviceArray.from(Int8Array.from({ length: 1000 }, (_, i) => (i % 50) - 25), { stream });
    i8.launch(stream, b, b);
    const hb = b.toTypedArraySync({ stream });
    for (let i = 0; i < 1000; i++) if (hb[i] !== 2 * ((i % 50) - 25)) throw new Error(`int8 z[${i}] = ${hb[i]}`);
  });

  it("a fused expression with two outputs, a fixed-type parameter and a raw array", () => {
    const k = new ElementwiseKernel("T x, raw T table, int32 shift", "T y, int32 idx", "idx = (int)i + shift; y = x * x + table[i % 4]", "fused");
    using x = DeviceArray.from(new Float32Array([1, 2, 3, 4, 5, 6]), { stream, shape: [2, 3] });
    using table = DeviceArray.from(new Float32Array([10, 20, 30, 40]), { stream });
    const [y, idx] = k.launch(stream, x, table, 100) as DeviceArray[];
    expect(y!.shape).toEqual([2, 3]);
    expect([...y!.toTypedArraySync({ stream })]).toEqual([11, 24, 39, 56, 35, 56]);
    expect([...idx!.toTypedArraySync({ stream })]).toEqual([100, 101, 102, 103, 104, 105]);
    y!.close();
    idx!.close();
  });

  it("float16 arithmetic through cuda_fp16.h", () => {
    const add = new ElementwiseKernel("T x, T y", "T z", "z = x + y", "add_half");
    using x = DeviceArray.from(Uint16Array.from([1, 2.5, -4], encodeHalf), { stream, dtype: "float16" });
    using z = add.launch(stream, x, x) as DeviceArray;
    expect(z.dtype.name).toBe("float16");
    expect([...(z.toTypedArraySync({ stream }) as Uint16Array)].map(decodeHalf)).toEqual([2, 5, -8]);
  });

  it("compiles each signature once: a second call adds no instantiation", () => {
    const k = new ElementwiseKernel("T x", "T y", "y = x + 1", "plus_one");
    using x = DeviceArray.from(new Int32Array([1, 2, 3]), { stream });
    const before = builderStats.instantiations;
    using a = k.launch(stream, x) as DeviceArray;
    expect(builderStats.instantiations).toBe(before + 1);
    using b = k.launch(stream, x) as DeviceArray;
    expect(builderStats.instantiations).toBe(before + 1);
    using xf = DeviceArray.from(new Float32Array([1]), { stream });
    using c = k.launch(stream, xf) as DeviceArray;
    expect(builderStats.instantiations).toBe(before + 2);
    expect([...b.toTypedArraySync({ stream })]).toEqual([2, 3, 4]);
    expect([...a.toTypedArraySync({ stream })]).toEqual([2, 3, 4]);
    expect([...c.toTypedArraySync({ stream })]).toEqual([2]);
  });

  it("refuses shapes that do not broadcast, mismatched dtypes and non-contiguous raw arrays before launching", () => {
    const k = new ElementwiseKernel("T x, T y", "T z", "z = x + y", "add2");
    using x = DeviceArray.zeros([4, 4], "float32", { stream });
    using y = DeviceArray.zeros([3], "float32", { stream });
    using yd = DeviceArray.zeros([4, 4], "float64", { stream });
    expect(() => k.launch(stream, x, y)).toThrow(ShapeMismatchError);
    expect(() => k.launch(stream, x, y)).toThrow(/add2: y has shape \[3\] but x has shape \[4, 4\]/);
    expect(() => k.launch(stream, x, yd)).toThrow(DTypeError);
    const raw = new ElementwiseKernel("T x, raw T w", "T z", "z = x + w[i]", "add_raw");
    expect(() => raw.launch(stream, x, x.T)).toThrow(ArrayLayoutError);
    expect(() => k.launch(stream, x)).toThrow(/takes 2 inputs/);
  });

  it("sums exactly in int32 and float64, over sizes around the block and grid boundaries", async () => {
    const sum = new ReductionKernel("T x", "T y", "x", "a + b", "y = a", "0", "sum");
    for (const n of [0, 1, 255, 256, 257, 100_000, 3_000_001]) {
      const data = Int32Array.from({ length: n }, (_, i) => (i % 1000) - 500);
      let expected = 0;
      for (const v of data) expected += v;
      using x = DeviceArray.from(data, { stream });
      using s = sum.launch(stream, x) as DeviceArray;
      expect(s.shape).toEqual([]);
      expect((await s.toTypedArray({ stream }))[0], `n = ${n}`).toBe(expected);
    }
    using xd = DeviceArray.from(Float64Array.from({ length: 4096 }, (_, i) => i * 0.25), { stream });
    using sd = sum.launch(stream, xd) as DeviceArray;
    expect(sd.toTypedArraySync({ stream })[0]).toBe((0.25 * 4095 * 4096) / 2);
  });

  it("max, and a custom norm that reduces float32 in float64", () => {
    const max = new ReductionKernel("T x", "T y", "x", "fmaxf(a, b)", "y = a", "-3.402823466e38f", "max_f32");
    const data = Float32Array.from({ length: 50_000 }, (_, i) => Math.sin(i) * 1000);
    using x = DeviceArray.from(data, { stream });
    using m = max.launch(stream, x) as DeviceArray;
    expect(m.toTypedArraySync({ stream })[0]).toBe(data.reduce((a, b) => Math.max(a, b), -Infinity));
    const norm = new ReductionKernel("T x", "float64 y", "(double)x * (double)x", "a + b", "y = sqrt(a)", "0", "l2norm", { reduceType: "float64" });
    using small = DeviceArray.from(Float32Array.from({ length: 1000 }, (_, i) => i % 10), { stream });
    using r = norm.launch(stream, small) as DeviceArray;
    let ss = 0;
    for (let i = 0; i < 1000; i++) ss += (i % 10) ** 2;
    expect(r.dtype.name).toBe("float64");
    expect(r.toTypedArraySync({ stream })[0]).toBeCloseTo(Math.sqrt(ss), 12);
    using given = DeviceArray.zeros([], "float64", { stream });
    expect(norm.launch(stream, small, given)).toBe(given);
    using wrong = DeviceArray.zeros([2], "float64", { stream });
    expect(() => norm.launch(stream, small, wrong)).toThrow(/output y must hold one element/);
  });
});
