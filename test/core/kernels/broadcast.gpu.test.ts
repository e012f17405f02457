/**
 * The elementwise builder on a real GPU with broadcasting and views: [3, 1] + [1, 4], a scalar with a transposed
 * view, a slice with a step, a negative step, a 0-d array, int32 over three axes, a strided output, a larger grid,
 * the packed walk (a bias row, a column, float16 rows, a misaligned row that falls back, an in-place accumulation),
 * each checked against the same computation on the CPU; the typed error for shapes that do not broadcast; an output
 * overlapping its input (a[1:] = a[:-1], a = a[::-1], m.T = m).
 * Skips without a GPU.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BroadcastError, Device, DeviceArray, type Stream } from "../../../src/index.ts";
import { ElementwiseKernel, builderStats } from "../../../src/kernels.ts";
import { gpu, skipNote } from "../../support/gpu.ts";

/** NumPy's broadcast of row-major host data: the output shape and `f` of each element's operands. */
function hostBroadcast(operands: readonly { shape: readonly number[]; data: ArrayLike<number> }[], f: (...v: number[]) => number): { shape: number[]; data: number[] } {
  const nd = Math.max(...operands.map((o) => o.shape.length));
  const shape = new Array<number>(nd).fill(1);
  for (const o of operands) o.shape.forEach((n, k) => (shape[nd - o.shape.length + k] = n === 1 ? shape[nd - o.shape.length + k]! : n));
  const total = shape.reduce((a, b) => a * b, 1);
  const data: number[] = [];
  for (let i = 0; i < total; i++) {
    const idx: number[] = [];
    let r = i;
    for (let k = nd - 1; k >= 0; k--) {
      idx[k] = r % shape[k]!;
      r = Math.floor(r / shape[k]!);
    }
    const values = operands.map((o) => {
      let flat = 0;
      o.shape.forEach((n, k) => (flat = flat * n + (n === 1 ? 0 : idx[nd - o.shape.length + k]!)));
      return o.data[flat]!;
    });
    data.push(f(...values));
  }
  return { shape, data };
}

describe.skipIf(!gpu.available)(`elementwise kernels over broadcast operands and views${skipNote}`, () => {
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

  it("[3, 1] + [1, 4] gives [3, 4]; a contiguous call afterwards still takes the contiguous kernel", () => {
    const add = new ElementwiseKernel("T x, T y", "T z", "z = x + y", "bc_add");
    const ad = new Float32Array([1, 2, 3]);
    const bd = new Float32Array([10, 20, 30, 40]);
    using a = DeviceArray.from(ad, { stream, shape: [3, 1] });
    using b = DeviceArray.from(bd, { stream, shape: [1, 4] });
    using c = add.launch(stream, a, b) as DeviceArray;
    expect(c.shape).toEqual([3, 4]);
    expect(c.dtype.name).toBe("float32");
    const ref = hostBroadcast([{ shape: [3, 1], data: ad }, { shape: [1, 4], data: bd }], (x, y) => x + y);
    expect([...c.toTypedArraySync({ stream })]).toEqual(ref.data);
    // Broadcasting the other way round gives the transposed sums.
    using d = add.launch(stream, b.reshape(4, 1), a.reshape(1, 3)) as DeviceArray;
    expect(d.shape).toEqual([4, 3]);
    expect([...d.toTypedArraySync({ stream })]).toEqual(hostBroadcast([{ shape: [4, 1], data: bd }, { shape: [1, 3], data: ad }], (x, y) => x + y).data);
    // Contiguous operands of one shape: the contiguous instantiation (a new signature, compiled once), same results.
    const before = builderStats.instantiations;
    using e = add.launch(stream, c, c) as DeviceArray;
    using e2 = add.launch(stream, c, c) as DeviceArray;
    expect(builderStats.instantiations).toBe(before + 1);
    expect([...e2.toTypedArraySync({ stream })]).toEqual(ref.data.map((v) => 2 * v));
    expect([...e.toTypedArraySync({ stream })]).toEqual(ref.data.map((v) => 2 * v));
  });

  it("a scalar with a transposed view, a matrix with a transposed view, a bias row", () => {
    const axpy = new ElementwiseKernel("T a, T x, T y", "T z", "z = a * x + y", "bc_axpy");
    const md = Float32Array.from({ length: 12 }, (_, i) => i - 4); // [4, 3]
    using m = DeviceArray.from(md, { stream, shape: [4, 3] });
    const t = m.T; // [3, 4], strides [1, 3]
    const tHost = [...t.toTypedArraySync({ stream })];
    using z1 = axpy.launch(stream, 0.5, t, 1) as DeviceArray;
    expect(z1.shape).toEqual([3, 4]);
    expect([...z1.toTypedArraySync({ stream })]).toEqual(tHost.map((v) => 0.5 * v + 1));
    const sd = Float32Array.from({ length: 12 }, (_, i) => 100 * i);
    using s = DeviceArray.from(sd, { stream, shape: [3, 4] });
    using z2 = axpy.launch(stream, 2, t, s) as DeviceArray;
    expect([...z2.toTypedArraySync({ stream })]).toEqual(tHost.map((v, i) => 2 * v + sd[i]!));
    const row = new Float32Array([1, -1, 2, -2]);
    using r = DeviceArray.from(row, { stream });
    using z3 = axpy.launch(stream, 3, s, r) as DeviceArray;
    expect([...z3.toTypedArraySync({ stream })]).toEqual([...sd].map((v, i) => 3 * v + row[i % 4]!));
  });

  it("a slice with a step against a column, a negative step, and a 0-d array", () => {
    const mul = new ElementwiseKernel("T x, T y", "T z", "z = x * y", "bc_mul");
    const xd = Float32Array.from({ length: 10 }, (_, i) => i + 1);
    using x = DeviceArray.from(xd, { stream });
    const stepped = x.slice([1, null, 3]); // [2, 5, 8]
    using col = DeviceArray.from(new Float32Array([1, -2]), { stream, shape: [2, 1] });
    using z = mul.launch(stream, stepped, col) as DeviceArray;
    expect(z.shape).toEqual([2, 3]);
    expect([...z.toTypedArraySync({ stream })]).toEqual([2, 5, 8, -4, -10, -16]);
    const reversed = x.slice([null, null, -2]); // [10, 8, 6, 4, 2]
    using zr = mul.launch(stream, reversed, reversed) as DeviceArray;
    expect([...zr.toTypedArraySync({ stream })]).toEqual([100, 64, 36, 16, 4]);
    using scalar0d = DeviceArray.from(new Float32Array([3]), { stream, shape: [] });
    using z0 = mul.launch(stream, scalar0d, x) as DeviceArray;
    expect(z0.shape).toEqual([10]);
    expect([...z0.toTypedArraySync({ stream })]).toEqual([...xd].map((v) => 3 * v));
  });

  it("int32 over three axes, and a strided output written in place", () => {
    const sub = new ElementwiseKernel("T x, T y", "T z", "z = x - y", "bc_sub");
    const xd = Int32Array.from({ length: 24 }, (_, i) => i * 7 - 50);
    const yd = Int32Array.from([1000, 2000, 3000]);
    using x = DeviceArray.from(xd, { stream, shape: [2, 3, 4] });
    using y = DeviceArray.from(yd, { stream, shape: [3, 1] });
    using z = sub.launch(stream, x, y) as DeviceArray;
    expect(z.dtype.name).toBe("int32");
    expect(z.shape).toEqual([2, 3, 4]);
    expect([...z.toTypedArraySync({ stream })]).toEqual(hostBroadcast([{ shape: [2, 3, 4], data: xd }, { shape: [3, 1], data: yd }], (a, b) => a - b).data);
    // The output a transposed view: out[i, j] lands at base[j, i].
    using base = DeviceArray.zeros([4, 3], "int32", { stream });
    const out = base.T; // [3, 4]
    using a = DeviceArray.from(Int32Array.from({ length: 12 }, (_, i) => i), { stream, shape: [3, 4] });
    expect(sub.launch(stream, a, 1, out)).toBe(out);
    const b = [...base.toTypedArraySync({ stream })];
    for (let i = 0; i < 3; i++) for (let j = 0; j < 4; j++) expect(b[j * 3 + i]).toBe(i * 4 + j - 1);
  });

  it("an outer sum of 1000 × 1000 (a grid-stride loop over a million elements)", () => {
    const add = new ElementwiseKernel("T x, T y", "T z", "z = x + y", "bc_outer");
    const n = 1000;
    const v = Float32Array.from({ length: n }, (_, i) => i);
    using col = DeviceArray.from(v, { stream, shape: [n, 1] });
    using row = DeviceArray.from(v, { stream, shape: [1, n] });
    using z = add.launch(stream, col, row) as DeviceArray;
    const h = z.toTypedArraySync({ stream });
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) if (h[i * n + j] !== i + j) throw new Error(`z[${i}, ${j}] = ${h[i * n + j]}`);
  });

  it("refuses shapes that do not broadcast, naming both and the axis", () => {
    const add = new ElementwiseKernel("T x, T y", "T z", "z = x + y", "bc_bad");
    using x = DeviceArray.zeros([3, 4], "float32", { stream });
    using y = DeviceArray.zeros([3], "float32", { stream });
    expect(() => add.launch(stream, x, y)).toThrow(BroadcastError);
    expect(() => add.launch(stream, x, y)).toThrow(/bc_bad: y has shape \[3\] but x has shape \[3, 4\]: they do not broadcast \(axis 0 of y has extent 3, axis 1 of x has 4/);
    using wrongOut = DeviceArray.zeros([4], "float32", { stream });
    expect(() => add.launch(stream, x, x, wrongOut)).toThrow(BroadcastError);
  });
  it("packs of the innermost axis: a bias row, a column, float16 rows, a misaligned row, an accumulation", () => {
    const add = new ElementwiseKernel("T x, T y", "T z", "z = x + y", "bc_pack_add");
    const rows = 300;
    const cols = 1000; // a multiple of 8 and of 4: float16 and float32 packs
    const md = Float32Array.from({ length: rows * cols }, (_, i) => (i % 977) - 400);
    const rd = Float32Array.from({ length: cols + 1 }, (_, i) => (i % 100) * 0.5); // sums below 1024: exact in float16
    const cd = Float32Array.from({ length: rows }, (_, i) => i * 3);
    using m = DeviceArray.from(md, { stream, shape: [rows, cols] });
    using rowAll = DeviceArray.from(rd, { stream });
    const row = rowAll.slice([0, cols]);
    using col = DeviceArray.from(cd, { stream, shape: [rows, 1] });
    const check = (got: DeviceArray, operands: { shape: number[]; data: ArrayLike<number> }[]): void => {
      const ref = hostBroadcast(operands, (x, y) => x + y);
      const g = got.toTypedArraySync({ stream }) as Float32Array;
      let wrong = 0;
      ref.data.forEach((v, i) => {
        if (g[i] !== v) wrong++;
      });
      expect(wrong).toBe(0);
    };
    using byRow = add.launch(stream, m, row) as DeviceArray;
    check(byRow, [{ shape: [rows, cols], data: md }, { shape: [cols], data: rd.subarray(0, cols) }]);
    using byCol = add.launch(stream, col, m) as DeviceArray;
    check(byCol, [{ shape: [rows, 1], data: cd }, { shape: [rows, cols], data: md }]);
    // A row one element into its buffer: not aligned to 16 bytes, walked one element at a time.
    const shifted = rowAll.slice([1, cols + 1]);
    using byShifted = add.launch(stream, m, shifted) as DeviceArray;
    check(byShifted, [{ shape: [rows, cols], data: md }, { shape: [cols], data: rd.subarray(1, cols + 1) }]);
    // float16: packs of 8 (small integers: exact in float16).
    using mh = m.astype("float16");
    using rh = row.astype("float16");
    using sumH = add.launch(stream, mh, rh) as DeviceArray;
    using sumF = sumH.astype("float32");
    check(sumF, [{ shape: [rows, cols], data: md }, { shape: [cols], data: rd.subarray(0, cols) }]);
    // An output the body reads: every element keeps its own value plus the row.
    const acc = new ElementwiseKernel("T x", "T z", "z += x", "bc_pack_acc");
    using target = DeviceArray.from(md, { stream, shape: [rows, cols] });
    acc.launch(stream, row, target);
    check(target, [{ shape: [rows, cols], data: md }, { shape: [cols], data: rd.subarray(0, cols) }]);
  });

  it("an output overlapping its input in another layout is written through a temporary", () => {
    const n = 1 << 20;
    const host = Float32Array.from({ length: n }, (_, i) => i);
    using a = DeviceArray.from(host, { stream });
    const copy = new ElementwiseKernel("T x", "T y", "y = x", "bc_shift");
    // a[1:] = a[:-1]: every element moves one place up, as NumPy's a[1:] = a[:-1] does.
    copy.launch(stream, a.slice([0, n - 1]), a.slice([1, n]));
    const got = a.toTypedArraySync({ stream }) as Float32Array;
    expect(got[0]).toBe(0);
    let wrong = 0;
    for (let i = 1; i < n; i++) if (got[i] !== i - 1) wrong++;
    expect(wrong).toBe(0);
    // The reversed view of itself: a = a[::-1].
    using b = DeviceArray.from(Float32Array.from({ length: 1000 }, (_, i) => i), { stream });
    copy.launch(stream, b.slice([null, null, -1]), b);
    expect(Array.from(b.toTypedArraySync({ stream }) as Float32Array)).toEqual(Array.from({ length: 1000 }, (_, i) => 999 - i));
    // Its own transpose: m.T = m (as NumPy's np.copyto(m.T, m)) leaves m transposed.
    const side = 37;
    const md = Float32Array.from({ length: side * side }, (_, i) => i);
    using m = DeviceArray.from(md, { stream, shape: [side, side] });
    copy.launch(stream, m, m.T);
    const moved = m.toTypedArraySync({ stream }) as Float32Array;
    let misplaced = 0;
    for (let r = 0; r < side; r++) for (let c = 0; c < side; c++) if (moved[r * side + c] !== md[c * side + r]) misplaced++;
    expect(misplaced).toBe(0);
  });
});
