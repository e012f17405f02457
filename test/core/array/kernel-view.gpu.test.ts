/**
 * Arrays into hand-written kernels on a real GPU: NVRTC compiles kernels that `#include <cuda_ts/array.h>` with no
 * include path, and they read transposed, broadcast, stepped, reversed and 0-d views through `arrayView` records
 * and write results through them; launch refuses a record of the wrong rank (parameter size from the driver) and,
 * for a template kernel, of the wrong element type (its mangled name). Each result is checked against the same
 * computation on the CPU. Skips without a GPU.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Device, DeviceArray, LaunchArgumentError, LaunchConfig, Program, arrayView, launch, type ObjectCode, type Stream } from "../../../src/index.ts";
import { gpu, skipNote } from "../../support/gpu.ts";

const SOURCE = `
#include <cuda_ts/array.h>

// out(r, c) = a(r, c) * 10 + b[i] (b by its row-major position i), for views of any strides.
extern "C" __global__ void combine(cuda_ts::Array<const float, 2> a, cuda_ts::Array<const float, 2> b, cuda_ts::Array<float, 2> out) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i >= out.size()) return;
  long long r = i / out.shape(1), c = i % out.shape(1);
  out(r, c) = a(r, c) * 10.0f + b[i];
}

// One thread: the sum of every element read three ways (indices, index array, row-major position), and the shape
// and byte strides the kernel sees.
template <typename T>
__global__ void inspect3(cuda_ts::Array<const T, 3> a, cuda_ts::Array<T, 1> out) {
  T s1 = 0, s2 = 0, s3 = 0;
  for (long long i = 0; i < a.shape(0); i++)
    for (long long j = 0; j < a.shape(1); j++)
      for (long long k = 0; k < a.shape(2); k++) {
        long long idx[3] = {i, j, k};
        s1 += a(i, j, k) * (T)(1 + i + 2 * j + 3 * k);
        s2 += a[idx] * (T)(1 + i + 2 * j + 3 * k);
      }
  for (long long n = 0; n < a.size(); n++) s3 += a[n] * (T)(n + 1);
  out(0) = s1; out(1) = s2; out(2) = s3;
  for (int d = 0; d < 3; d++) { out(3 + d) = (T)a.shape(d); out(6 + d) = (T)a.stride(d); }
  out(9) = (T)a.size();
}

// A 0-d array and CuPy's name for the record.
extern "C" __global__ void scalar_plus(cuda_ts::Array<double, 0> s, cuda_ts::CArray<double, 1> out) {
  if (threadIdx.x < out.size()) out[threadIdx.x] = s() + threadIdx.x;
}
`;

describe.skipIf(!gpu.available)(`arrays as cuda_ts::Array records on a GPU${skipNote}`, () => {
  let dev: Device;
  let stream: Stream;
  let code: ObjectCode;

  beforeAll(() => {
    if (!gpu.available) return;
    dev = new Device(0);
    dev.setCurrent();
    stream = dev.createStream();
    // No include path: the header comes with every program.
    const program = new Program(SOURCE, "c++", { arch: `sm_${dev.arch}`, std: "c++17" });
    code = program.compile("cubin", { nameExpressions: ["inspect3<float>", "inspect3<double>"] });
    program.close();
  });

  afterAll(() => {
    stream?.close();
  });

  it("reads a transposed view and a broadcast view and writes through a record", () => {
    using m = DeviceArray.from(Float32Array.from({ length: 12 }, (_, i) => i), { stream, shape: [3, 4] });
    using row = DeviceArray.from(new Float32Array([100, 200, 300]), { stream });
    using out = DeviceArray.zeros([4, 3], "float32", { stream });
    const k = code.getKernel("combine");
    const config = new LaunchConfig({ grid: 1, block: 64 });
    const expected = Array.from({ length: 12 }, (_, i) => {
      const r = Math.floor(i / 3);
      const c = i % 3;
      return (c * 4 + r) * 10 + (c + 1) * 100;
    });
    // Broadcast by the view's options...
    launch(stream, config, k, arrayView(m.T), arrayView(row, { broadcastTo: [4, 3] }), arrayView(out));
    expect([...out.toTypedArraySync({ stream })]).toEqual(expected);
    // ... and by an array whose first axis has stride 0.
    out.fill(0, { stream });
    const broadcast = DeviceArray.fromBuffer(row.buffer, { dtype: "float32", shape: [4, 3], strides: [0, 1] });
    launch(stream, config, k, arrayView(m.T), arrayView(broadcast), arrayView(out));
    expect([...out.toTypedArraySync({ stream })]).toEqual(expected);
    // Writing through a transposed record: out.T(r, c) is out[c][r].
    using outT = DeviceArray.zeros([3, 4], "float32", { stream });
    launch(stream, config, k, arrayView(m.T), arrayView(broadcast), arrayView(outT.T));
    const t = [...outT.toTypedArraySync({ stream })];
    expect(Array.from({ length: 12 }, (_, i) => t[(i % 3) * 4 + Math.floor(i / 3)])).toEqual(expected);
  });

  it("reads stepped and reversed 3-D views in a template kernel, by indices, index arrays and positions", () => {
    const shape = [4, 5, 6];
    const n = 120;
    using base = DeviceArray.from(Float64Array.from({ length: n }, (_, i) => i), { stream, shape });
    const view = base.slice([null, null, -1], [1, 5, 2], [null, null, -2]); // [::-1, 1::2, ::-2]: shape [4, 2, 3]
    expect(view.shape).toEqual([4, 2, 3]);
    using out = DeviceArray.zeros([10], "float64", { stream });
    launch(stream, new LaunchConfig({ grid: 1, block: 1 }), code.getKernel("inspect3<double>"), arrayView(view), arrayView(out));
    const got = [...out.toTypedArraySync({ stream })];
    // The same on the CPU: element (i, j, k) of the view is base[3 - i, 1 + 2j, 5 - 2k].
    let s1 = 0;
    let s3 = 0;
    let pos = 0;
    for (let i = 0; i < 4; i++)
      for (let j = 0; j < 2; j++)
        for (let k = 0; k < 3; k++) {
          const x = (3 - i) * 30 + (1 + 2 * j) * 6 + (5 - 2 * k);
          s1 += x * (1 + i + 2 * j + 3 * k);
          s3 += x * ++pos;
        }
    expect(got.slice(0, 3)).toEqual([s1, s1, s3]);
    expect(got.slice(3, 6)).toEqual([4, 2, 3]);
    expect(got.slice(6, 9)).toEqual([-240, 96, -16]);
    expect(got[9]).toBe(24);
  });

  it("passes 0-d arrays, and CuPy's CArray name takes the same record", () => {
    using s = DeviceArray.from(new Float64Array([2.5]), { stream, shape: [] });
    using out = DeviceArray.zeros([4], "float64", { stream });
    launch(stream, new LaunchConfig({ grid: 1, block: 4 }), code.getKernel("scalar_plus"), arrayView(s), arrayView(out));
    expect([...out.toTypedArraySync({ stream })]).toEqual([2.5, 3.5, 4.5, 5.5]);
  });

  it("refuses records of the wrong rank or element type before launching", () => {
    using v = DeviceArray.zeros([12], "float32", { stream });
    using m = DeviceArray.zeros([3, 4], "float32", { stream });
    const config = new LaunchConfig({ grid: 1, block: 1 });
    // extern "C": the parameter sizes the driver reports (48 bytes for rank 2, a rank-1 record is 32).
    expect(() => launch(stream, config, code.getKernel("combine"), arrayView(v), arrayView(m), arrayView(m))).toThrow(LaunchArgumentError);
    expect(() => launch(stream, config, code.getKernel("combine"), arrayView(v), arrayView(m), arrayView(m))).toThrow(/32 bytes but the parameter is 48 bytes, the size of a cuda_ts::Array of rank 2/);
    // A pointer where a record is expected.
    expect(() => launch(stream, config, code.getKernel("combine"), m, arrayView(m), arrayView(m))).toThrow(LaunchArgumentError);
    // A template kernel: element type and rank from its mangled name.
    using i3 = DeviceArray.zeros([2, 2, 2], "int32", { stream });
    using o = DeviceArray.zeros([10], "float32", { stream });
    expect(() => launch(stream, config, code.getKernel("inspect3<float>"), arrayView(i3), arrayView(o))).toThrow(/cuda_ts::Array of f32 elements but .* holds i32/);
    using f2 = DeviceArray.zeros([2, 4], "float32", { stream });
    expect(() => launch(stream, config, code.getKernel("inspect3<float>"), arrayView(f2), arrayView(o))).toThrow(LaunchArgumentError);
    stream.sync();
  });
});
