/**
 * DeviceArray on a real GPU: round trips of every kind of dtype, zeros/full/fill (memset and the fill kernel),
 * views read back element by element against the CPU, copies (contiguous, 2D memcpy, the strided-copy kernel),
 * arrays as kernel arguments and the dtype check, pinned `out`, interop round trips, getGlobal, kernel attributes
 * and the dynamic shared-memory raise, context limits, memory info, cluster occupancy. Skips without a GPU.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ArrayLayoutError,
  DTypeError,
  Device,
  DeviceArray,
  LaunchArgumentError,
  LaunchConfig,
  PinnedMemoryResource,
  Program,
  ShapeMismatchError,
  decodeHalf,
  encodeHalf,
  i32,
  launch,
  u64,
  type ObjectCode,
  type Stream,
} from "../../../src/index.ts";
import { fromCudaArrayInterface, fromDLPack, toDLPack } from "../../../src/interop.ts";
import { gpu, skipNote } from "../../support/gpu.ts";

const SOURCE = `
template <typename T> __global__ void scale(T* x, T a, unsigned long long n) {
  unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
  if (i < n) x[i] = x[i] * a;
}
__constant__ float coeffs[8];
__device__ int counter;
extern "C" __global__ void apply_coeffs(float* out) { out[threadIdx.x] = coeffs[threadIdx.x] * 2.0f; counter += 1; }
extern "C" __global__ void big_shared(int* out) {
  extern __shared__ int buf[];
  const int n = 64 * 1024 / 4;  // 64 KiB of dynamic shared memory
  for (int i = threadIdx.x; i < n; i += blockDim.x) buf[i] = i;
  __syncthreads();
  if (threadIdx.x == 0) { long long s = 0; for (int i = 0; i < n; i++) s += buf[i]; out[0] = (int)(s % 1000003); }
}
extern "C" __global__ void cluster_kernel(int* out) { out[blockIdx.x] = blockIdx.x; }
// Sums 0..n-1 through n ints of dynamic shared memory.
extern "C" __global__ void sized_shared(int* out, int n) {
  extern __shared__ int buf[];
  for (int i = threadIdx.x; i < n; i += blockDim.x) buf[i] = i;
  __syncthreads();
  if (threadIdx.x == 0) { long long s = 0; for (int i = 0; i < n; i++) s += buf[i]; out[0] = (int)(s % 1000003); }
}
`;

/** A row-major list of a 2D array's elements through a view's strides, computed on the CPU. */
function cpuView(data: ArrayLike<number>, shape: number[], strides: number[], offset: number): number[] {
  const out: number[] = [];
  const walk = (axis: number, at: number): void => {
    if (axis === shape.length) out.push(data[at]!);
    else for (let i = 0; i < shape[axis]!; i++) walk(axis + 1, at + i * strides[axis]!);
  };
  walk(0, offset);
  return out;
}

describe.skipIf(!gpu.available)(`DeviceArray on a GPU${skipNote}`, () => {
  let dev: Device;
  let stream: Stream;
  let code: ObjectCode;

  beforeAll(() => {
    if (!gpu.available) return;
    dev = new Device(0);
    dev.setCurrent();
    stream = dev.createStream();
    const program = new Program(SOURCE, "c++", { arch: `sm_${dev.arch}` });
    code = program.compile("cubin", { nameExpressions: ["scale<float>", "scale<int>"] });
  });

  afterAll(() => {
    stream?.close();
  });

  it("round-trips float32, float64, int64, uint8, bool, float16 bits and complex64 pairs", async () => {
    const cases = [
      new Float32Array([1.5, -2, 3.25, 1e-7]),
      new Float64Array([Math.PI, -0, 1e300]),
      new BigInt64Array([-(2n ** 63n), 0n, 2n ** 62n]),
      new Uint8Array([0, 255, 7]),
    ];
    for (const data of cases) {
      using a = DeviceArray.from(data, { stream });
      const back = await a.toTypedArray({ stream });
      expect(back.constructor).toBe(data.constructor);
      expect([...back]).toEqual([...data]);
    }
    using b = DeviceArray.from(new Uint8Array([1, 0, 1]), { stream, dtype: "bool" });
    expect(b.dtype.name).toBe("bool");
    expect([...b.toTypedArraySync({ stream })]).toEqual([1, 0, 1]);
    const halves = Uint16Array.from([0.5, -1, 65504], encodeHalf);
    using h = DeviceArray.from(halves, { stream, dtype: "float16", shape: [3] });
    expect([...h.toTypedArraySync({ stream })].map(decodeHalf)).toEqual([0.5, -1, 65504]);
    using c = DeviceArray.from(new Float32Array([1, 2, 3, 4]), { stream, dtype: "complex64" });
    expect(c.shape).toEqual([2]);
    expect([...(await c.toTypedArray({ stream }))]).toEqual([1, 2, 3, 4]);
  });

  it("makes zeros and full arrays of every width, and fills strided views", () => {
    using z = DeviceArray.zeros([3, 5], "float64", { stream });
    expect([...z.toTypedArraySync({ stream })]).toEqual(new Array(15).fill(0));
    using f8 = DeviceArray.full([7], -3, "int8", { stream });
    expect([...f8.toTypedArraySync({ stream })]).toEqual(new Array(7).fill(-3));
    using f64 = DeviceArray.full([5], 2.5, "float64", { stream }); // 8 bytes: the fill kernel
    expect([...f64.toTypedArraySync({ stream })]).toEqual(new Array(5).fill(2.5));
    using c128 = DeviceArray.full([3], [1, -1], "complex128", { stream }); // 16 bytes
    expect([...c128.toTypedArraySync({ stream })]).toEqual([1, -1, 1, -1, 1, -1]);
    using i64 = DeviceArray.full([4], 2n ** 40n + 1n, "int64", { stream });
    expect([...i64.toTypedArraySync({ stream })]).toEqual(new Array(4).fill(2n ** 40n + 1n));
    using g = DeviceArray.zeros([4, 6], "int32", { stream });
    g.slice([null, null, 2], [1, null, 2]).fill(9, { stream });
    const host = g.toTypedArraySync({ stream });
    for (let r = 0; r < 4; r++) for (let c = 0; c < 6; c++) expect(host[r * 6 + c], `[${r}, ${c}]`).toBe(r % 2 === 0 && c % 2 === 1 ? 9 : 0);
  });

  it("reads views (steps, negative steps, transposes, reshapes, dtype views) element by element", () => {
    const data = Float32Array.from({ length: 6 * 8 }, (_, i) => i);
    using a = DeviceArray.from(data, { stream, shape: [6, 8] });
    const views = [
      a.slice([1, 5], [null, null, 3]),
      a.slice([null, null, -2], [7, 0, -2]),
      a.T,
      a.slice(2),
      a.slice(null, 3),
      a.T.slice([2, 6]),
      a.reshape(4, 12).slice([1, 3]),
    ];
    for (const v of views) {
      const expected = cpuView(data, [...v.shape], [...v.strides], (v.byteOffset - a.byteOffset) / 4);
      expect([...v.toTypedArraySync({ stream })], String(v)).toEqual(expected);
    }
    const bits = a.slice(0, [0, 2]).view("uint32").toTypedArraySync({ stream });
    expect([...bits]).toEqual([0, 0x3f800000]);
  });

  it("copies between arrays: contiguous, 2D blocks (memcpy 2D), strided (kernel), from the host", () => {
    const data = Int32Array.from({ length: 8 * 10 }, (_, i) => i * 3 - 7);
    using a = DeviceArray.from(data, { stream, shape: [8, 10] });
    using whole = DeviceArray.empty([8, 10], "int32", { stream });
    whole.copyFrom(a, { stream });
    expect([...whole.toTypedArraySync({ stream })]).toEqual([...data]);
    // A 2D block: rows contiguous, pitches differ.
    const block = a.slice([2, 6], [3, 9]);
    using packed = block.copy({ stream });
    expect(packed.isContiguous).toBe(true);
    expect([...packed.toTypedArraySync({ stream })]).toEqual(cpuView(data, [4, 6], [10, 1], 23));
    // Into a block of another array.
    using target = DeviceArray.zeros([8, 10], "int32", { stream });
    target.slice([0, 4], [0, 6]).copyFrom(packed, { stream });
    const t = target.toTypedArraySync({ stream });
    expect(t[0]).toBe(data[23]);
    expect(t[5]).toBe(data[28]);
    expect(t[6]).toBe(0);
    expect(t[10]).toBe(data[33]);
    // A transpose: the strided-copy kernel.
    using tr = a.T.copy({ stream });
    expect(tr.shape).toEqual([10, 8]);
    expect([...tr.toTypedArraySync({ stream })]).toEqual(cpuView(data, [10, 8], [1, 10], 0));
    // Three non-mergeable axes with a negative step.
    using cube = DeviceArray.from(Int32Array.from({ length: 4 * 5 * 6 }, (_, i) => i), { stream, shape: [4, 5, 6] });
    const odd = cube.slice([null, null, -1], [null, null, 2], [1, null, 2]);
    using oddCopy = DeviceArray.empty(odd.shape, "int32", { stream });
    oddCopy.copyFrom(odd, { stream });
    expect([...oddCopy.toTypedArraySync({ stream })]).toEqual(cpuView(Int32Array.from({ length: 120 }, (_, i) => i), [4, 3, 3], [-30, 12, 2], 91));
    // From the host into a contiguous view.
    a.subarray(1, 2).copyFrom(new Int32Array(10).fill(5), { stream });
    expect([...a.subarray(1, 2).toTypedArraySync({ stream })]).toEqual(new Array(10).fill(5));
  });

  it("refuses mismatched copies and host data for strided views before touching the GPU", () => {
    using a = DeviceArray.zeros([4, 4], "float32", { stream });
    using b = DeviceArray.zeros([4, 4], "float64", { stream });
    expect(() => a.copyFrom(b, { stream })).toThrow(DTypeError);
    expect(() => a.copyFrom(a.slice([0, 2]), { stream })).toThrow(ShapeMismatchError);
    expect(() => a.T.copyFrom(new Float32Array(16), { stream })).toThrow(ArrayLayoutError);
    expect(() => a.copyFrom(new Float32Array(15), { stream })).toThrow(ShapeMismatchError);
    expect(() => a.toTypedArraySync({ stream, out: new Float32Array(3) })).toThrow(ShapeMismatchError);
  });

  it("passes arrays to kernels, checked against the mangled pointee type", () => {
    using x = DeviceArray.from(new Float32Array([1, 2, 3, 4]), { stream });
    const k = code.getKernel("scale<float>");
    launch(stream, new LaunchConfig({ grid: 1, block: 32 }), k, x, 3, u64(x.size));
    expect([...x.toTypedArraySync({ stream })]).toEqual([3, 6, 9, 12]);
    // A view: its first element's address.
    launch(stream, new LaunchConfig({ grid: 1, block: 32 }), k, x.subarray(2), 0.5, u64(2));
    expect([...x.toTypedArraySync({ stream })]).toEqual([3, 6, 4.5, 6]);
    using ints = DeviceArray.from(new Int32Array([1, 2]), { stream });
    expect(() => launch(stream, new LaunchConfig({ grid: 1, block: 32 }), k, ints, 3, u64(2))).toThrow(LaunchArgumentError);
    expect(() => launch(stream, new LaunchConfig({ grid: 1, block: 32 }), k, ints, 3, u64(2))).toThrow(/points to f32 but a int32 DeviceArray/);
  });

  it("copies to and from pinned memory at full speed with `out`", async () => {
    const pinned = new PinnedMemoryResource();
    using host = pinned.allocate(4 * 1024, { stream });
    await stream.done();
    const view = host.asTypedArray(Float32Array);
    view.forEach((_, i) => (view[i] = i));
    using a = DeviceArray.from(view, { stream });
    using back = pinned.allocate(4 * 1024, { stream });
    await stream.done();
    const out = back.asTypedArray(Float32Array);
    const r = await a.toTypedArray({ stream, out });
    expect(r).toBe(out);
    expect(out[1023]).toBe(1023);
    // An array living in pinned memory.
    using p = DeviceArray.from(new Float32Array([4, 5]), { stream, memoryResource: pinned });
    expect([...(await p.toTypedArray({ stream }))]).toEqual([4, 5]);
  });

  it("hands arrays through DLPack and the CUDA Array Interface without copying", () => {
    using a = DeviceArray.from(Float64Array.from({ length: 12 }, (_, i) => i), { stream, shape: [3, 4] });
    const t = toDLPack(a.T);
    const back = fromDLPack(t.pointer, { owner: t });
    expect(back.address).toBe(a.address);
    expect([...back.toTypedArraySync({ stream })]).toEqual(cpuView(Float64Array.from({ length: 12 }, (_, i) => i), [4, 3], [1, 4], 0));
    const cai = a.slice(1).cudaArrayInterface(stream);
    expect(typeof cai.stream).toBe("number");
    const wrapped = fromCudaArrayInterface(cai, { owner: a, stream });
    expect([...wrapped.toTypedArraySync({ stream })]).toEqual([4, 5, 6, 7]);
  });

  it("reads and writes __constant__ and __device__ variables with getGlobal", () => {
    const coeffs = code.getGlobal("coeffs", { dtype: "float32" });
    expect(coeffs.shape).toEqual([8]);
    coeffs.copyFrom(Float32Array.from({ length: 8 }, (_, i) => i + 0.5), { stream });
    const counter = code.getGlobal("counter", { dtype: "int32", shape: [] });
    counter.fill(40, { stream });
    using out = DeviceArray.zeros([8], "float32", { stream });
    launch(stream, new LaunchConfig({ grid: 1, block: 8 }), code.getKernel("apply_coeffs"), out);
    expect([...out.toTypedArraySync({ stream })]).toEqual(Array.from({ length: 8 }, (_, i) => (i + 0.5) * 2));
    const c = counter.toTypedArraySync({ stream })[0]!;
    expect(c).toBeGreaterThan(40); // racy increments: at least one landed
    expect(() => code.getGlobal("no_such_variable", { dtype: "int32" })).toThrow(/no global variable "no_such_variable"/);
  });

  it("raises the dynamic shared-memory limit above 48 KiB when a launch asks, and sets attributes", () => {
    const k = code.getKernel("big_shared");
    using out = DeviceArray.zeros([1], "int32", { stream });
    launch(stream, new LaunchConfig({ grid: 1, block: 256, sharedMemory: 64 * 1024 }), k, out);
    const n = 16384;
    expect(out.toTypedArraySync({ stream })[0]).toBe(((n * (n - 1)) / 2) % 1000003);
    expect(k.attributes(dev).maxDynamicSharedSizeBytes).toBeGreaterThanOrEqual(64 * 1024);
    k.setAttribute("preferredSharedMemoryCarveout", 50, dev);
    expect(k.attributes(dev).preferredSharedMemoryCarveout).toBe(50);
    expect(() => k.setAttribute("preferredSharedMemoryCarveout", 101, dev)).toThrow(LaunchArgumentError);
  });

  it("launches a kernel with more than 48 KiB of dynamic shared memory after launches with less (the limit raised on a kernel already launched)", () => {
    const k = code.getKernel("sized_shared");
    using out = DeviceArray.zeros([1], "int32", { stream });
    const sum = (n: number): number => ((n * (n - 1)) / 2) % 1000003;
    launch(stream, new LaunchConfig({ grid: 1, block: 256, sharedMemory: 4096 }), k, out, i32(1024));
    expect(out.toTypedArraySync({ stream })[0]).toBe(sum(1024));
    launch(stream, new LaunchConfig({ grid: 1, block: 256, sharedMemory: 80 * 1024 }), k, out, i32(20480));
    expect(out.toTypedArraySync({ stream })[0]).toBe(sum(20480));
    launch(stream, new LaunchConfig({ grid: 1, block: 256, sharedMemory: 4096 }), k, out, i32(1000));
    expect(out.toTypedArraySync({ stream })[0]).toBe(sum(1000));
  });

  it("reads and sets context limits, and reads free and total memory", () => {
    expect(dev.getLimit("printfFifoSize")).toBeGreaterThan(0);
    expect(dev.getLimit("mallocHeapSize")).toBeGreaterThan(0);
    // The stack size can be changed at any time (the printf FIFO and malloc heap only before kernels use them).
    const before = dev.getLimit("stackSize");
    expect(before).toBeGreaterThan(0);
    dev.setLimit("stackSize", before + 1024);
    expect(dev.getLimit("stackSize")).toBeGreaterThanOrEqual(before + 1024);
    dev.setLimit("stackSize", before);
    const m = dev.memoryInfo();
    expect(m.total).toBe(Number(dev.totalMemory));
    expect(m.free).toBeGreaterThan(0);
    expect(m.free).toBeLessThanOrEqual(m.total);
    expect(() => dev.getLimit("nope" as never)).toThrow(/expected a context limit/);
  });

  it("answers cluster occupancy queries on compute capability 9.0+", () => {
    if (dev.computeCapability.major < 9) return;
    const k = code.getKernel("cluster_kernel");
    const config = new LaunchConfig({ grid: 4, block: 128, cluster: 2 });
    const occ = k.occupancy(dev);
    expect(occ.maxPotentialClusterSize(config)).toBeGreaterThanOrEqual(2);
    expect(occ.maxActiveClusters(config)).toBeGreaterThan(0);
    using out = DeviceArray.zeros([8], "int32", { stream });
    launch(stream, config, k, out);
    expect([...out.toTypedArraySync({ stream })]).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });
});
