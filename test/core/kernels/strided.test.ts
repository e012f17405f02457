/**
 * The builders' strided and axis kernels without a GPU: which calls keep the contiguous kernels, the plan of a
 * strided elementwise call (which operands walk strides, the merged layout passed by value) and its source, the
 * plan of an axis reduction (kept and reduced layouts, how threads spread) and its source, and the reductions'
 * result dtypes and typed errors that come before any launch.
 */
import { describe, expect, it } from "vitest";
import { AxisError, Buffer, DTypeError, DeviceArray, ShapeMismatchError, dtypes, max, mean, min, sum, type MemoryResource, type Stream } from "../../../src/index.ts";
import { ElementwiseKernel } from "../../../src/kernels.ts";
import { bindArguments, contiguousCall, parseParams } from "../../../src/core/kernels/params.ts";
import { elementwiseSource, elementwiseStridedSource, overlapsAnInput, stridedPlan } from "../../../src/core/kernels/elementwise.ts";
import { axisChunks, axisLaunchShape, axisPlan, reductionAxisSource, reductionSource, reductionTuning } from "../../../src/core/kernels/reduction.ts";
import { reductionDTypes, reductionResultName } from "../../../src/core/array/reductions.ts";

const hostResource: MemoryResource = {
  allocate: () => {
    throw new Error("not used");
  },
  deallocate: () => undefined,
  isDeviceAccessible: true,
  isHostAccessible: true,
  deviceId: -1,
};

function arr(dtype: "float32" | "int32" | "complex64" | "bool", shape: number[]): DeviceArray {
  return DeviceArray.fromBuffer(Buffer.fromHandle(0x7f00_0000_0000n, 1 << 16, { memoryResource: hostResource }), { dtype, shape });
}

const int64s = (bytes: Uint8Array): number[] => [...new BigInt64Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 8)].map(Number);

const add = parseParams("T x, T y", false, "in").concat(parseParams("T z", true, "out"));

describe("outputs that overlap an input", () => {
  const copy = parseParams("T x", false, "in").concat(parseParams("T y", true, "out"));
  it("are staged when the input is read in another layout, not when it is the same elements", () => {
    const a = arr("float32", [100]);
    expect(overlapsAnInput(a, copy, [a, a], 1, [100])).toBe(false); // in place
    expect(overlapsAnInput(a.slice([1, 100]), copy, [a.slice([0, 99]), undefined], 1, [99])).toBe(true); // a[1:] = a[:-1]
    expect(overlapsAnInput(a, copy, [a.slice([null, null, -1]), undefined], 1, [100])).toBe(true); // a = a[::-1]
    expect(overlapsAnInput(a.slice([50, 100]), copy, [a.slice([0, 50]), undefined], 1, [50])).toBe(false); // disjoint halves
    const m = arr("float32", [10, 10]);
    expect(overlapsAnInput(m, copy, [m.T, undefined], 1, [10, 10])).toBe(true); // m = m.T
    expect(overlapsAnInput(m, copy, [m.slice([0, 1]), undefined], 1, [10, 10])).toBe(true); // a row broadcast over its own matrix
    const elsewhere = DeviceArray.fromBuffer(Buffer.fromHandle(0x7f10_0000_0000n, 1 << 16, { memoryResource: hostResource }), { dtype: "float32", shape: [100] });
    expect(overlapsAnInput(a, copy, [elsewhere, undefined], 1, [100])).toBe(false); // another allocation
    const sameMemory = DeviceArray.fromBuffer(Buffer.fromHandle(0x7f00_0000_0000n + 200n, 1 << 10, { memoryResource: hostResource }), { dtype: "float32", shape: [100] });
    expect(overlapsAnInput(a, copy, [sameMemory, undefined], 1, [100])).toBe(true); // another Buffer over the same memory, shifted
  });
});

describe("strided elementwise calls", () => {
  it("keep the contiguous kernels when every array is contiguous and of the full shape", () => {
    const x = arr("float32", [3, 4]);
    expect(contiguousCall(add, [x, x, undefined], [3, 4])).toBe(true);
    expect(contiguousCall(add, [x, 2, undefined], [3, 4])).toBe(true);
    expect(contiguousCall(add, [x, arr("float32", [4]), undefined], [3, 4])).toBe(false);
    expect(contiguousCall(add, [x, arr("float32", [4, 3]).T, undefined], [3, 4])).toBe(false);
    expect(contiguousCall(add, [x, x, arr("float32", [3, 8]).slice(null, [0, null, 2])], [3, 4])).toBe(false);
    // The contiguous source is what it was: no strided layout in it.
    const b = bindArguments("add", add, [x, x, undefined], -1);
    const src = elementwiseSource("add", add, b, "z = x + y");
    expect(src).not.toContain("_nd");
    expect(src).toContain('extern "C" __global__ void add(const float* __restrict__ _p_x, const float* __restrict__ _p_y, float* __restrict__ _p_z, const unsigned long long _n) {');
  });

  it("[3, 1] + [1, 5]: both operands walk strides 0 on their broadcast axes, the output is indexed by i", () => {
    const x = arr("float32", [3, 1]);
    const y = arr("float32", [1, 5]);
    const b = bindArguments("add", add, [x, y, undefined], -1);
    expect(b.shape).toEqual([3, 5]);
    const plan = stridedPlan("add", add, [x, y, undefined], b, [3, 5]);
    expect(plan.strided).toEqual([true, true, false]);
    expect(plan.rank).toBe(2);
    expect(plan.index32).toBe(true);
    // extents, then x's strides, then y's.
    expect(int64s(plan.layout)).toEqual([3, 5, 1, 0, 0, 1]);
    expect(plan.key).toBe("nd2:ssc:u32");
    expect(plan.vec).toBeUndefined(); // 5 elements a row: no packs of 4
    const src = elementwiseStridedSource("add", add, b, "z = x + y", plan);
    expect(src).toContain("struct _nd_layout { long long shape[2]; long long st_x[2]; long long st_y[2]; };");
    expect(src).toContain(
      'extern "C" __global__ void add_nd(const float* __restrict__ _p_x, const float* __restrict__ _p_y, float* __restrict__ _p_z, const unsigned long long _n, const _nd_layout _l) {',
    );
    expect(src).toContain("    unsigned int _r = (unsigned int)_i;");
    expect(src).toContain("      _o_x += _d * _l.st_x[_k];");
    expect(src).toContain("    _o_y += (long long)_r * _l.st_y[0];");
    expect(src).toContain("    const float x = _p_x[_o_x];");
    expect(src).toContain("    float& z = _p_z[i];");
    expect(src).toContain("    z = x + y;");
  });

  it("a transposed view, a row broadcast over a matrix, a stepped slice, a scalar, a strided output", () => {
    const m = arr("float32", [3, 4]);
    const t = arr("float32", [4, 3]).T;
    const bt = bindArguments("add", add, [m, t, undefined], -1);
    const pt = stridedPlan("add", add, [m, t, undefined], bt, [3, 4]);
    expect(pt.strided).toEqual([false, true, false]);
    expect(int64s(pt.layout)).toEqual([3, 4, 1, 3]);
    const src = elementwiseStridedSource("add", add, bt, "z = x + y", pt);
    expect(src).toContain("    const float x = _p_x[i];");
    expect(src).toContain("    const float y = _p_y[_o_y];");
    // A bias row: [3, 4] + [4] does not merge (stride 0 then 1).
    const row = arr("float32", [4]);
    const pr = stridedPlan("add", add, [m, row, undefined], bindArguments("add", add, [m, row, undefined], -1), [3, 4]);
    expect(int64s(pr.layout)).toEqual([3, 4, 0, 1]);
    // A slice with a step against a scalar: one axis of stride 2.
    const s = arr("float32", [16]).slice([0, null, 2]);
    const ps = stridedPlan("add", add, [s, 1.5, undefined], bindArguments("add", add, [s, 1.5, undefined], -1), [8]);
    expect(ps.strided).toEqual([true, false, false]);
    expect(int64s(ps.layout)).toEqual([8, 2]);
    const ss = elementwiseStridedSource("add", add, bindArguments("add", add, [s, 1.5, undefined], -1), "z = x + y", ps);
    expect(ss).toContain("add_nd(const float* __restrict__ _p_x, const float y, float* __restrict__ _p_z,");
    // A given strided output walks its strides too.
    const out = arr("float32", [4, 3]).T;
    const po = stridedPlan("add", add, [m, m, out], bindArguments("add", add, [m, m, out], -1), [3, 4]);
    expect(po.strided).toEqual([false, false, true]);
    expect(elementwiseStridedSource("add", add, bindArguments("add", add, [m, m, out], -1), "z = x + y", po)).toContain("    float& z = _p_z[_o_z];");
    // All extents 1: one axis of extent 1.
    const one = arr("float32", [1, 1]).T;
    const p1 = stridedPlan("add", add, [one, arr("float32", [1]), undefined], bindArguments("add", add, [one, arr("float32", [1]), undefined], -1), [1, 1]);
    expect(p1.rank).toBe(1);
  });

  it("walks packs of 4 float32 where the innermost axis allows: a bias row, a column, a view with aligned rows", () => {
    const m = arr("float32", [3, 8]);
    const row = arr("float32", [8]);
    const br = bindArguments("add", add, [m, row, undefined], -1);
    const pr = stridedPlan("add", add, [m, row, undefined], br, [3, 8]);
    expect(pr.vec).toBe(4);
    expect(pr.innerBroadcast).toEqual([false, false, false]);
    expect(pr.key).toBe("nd2:csc:u32:v4");
    const src = elementwiseStridedSource("add", add, br, "z = x + y", pr);
    expect(src).toContain("struct __align__(sizeof(float) * 4) _pk_y { float v[4]; };");
    expect(src).toContain("  const unsigned long long _nv = _n / 4;");
    expect(src).toContain("    unsigned int _r = (unsigned int)(_j * 4);");
    expect(src).toContain("    const _pk_x _a_x = reinterpret_cast<const _pk_x*>(_p_x)[_j];");
    expect(src).toContain("    const _pk_y _a_y = reinterpret_cast<const _pk_y*>(_p_y + _o_y)[0];");
    // z is only assigned: its pack is not read first.
    expect(src).toContain("    _pk_z _a_z;");
    expect(src).toContain("    reinterpret_cast<_pk_z*>(_p_z)[_j] = _a_z;");
    // A column [3, 1]: one element per pack (stride 0 along the innermost axis).
    const col = arr("float32", [3, 1]);
    const pc = stridedPlan("add", add, [m, col, undefined], bindArguments("add", add, [m, col, undefined], -1), [3, 8]);
    expect(pc.innerBroadcast).toEqual([false, true, false]);
    expect(pc.key).toBe("nd2:cbc:u32:v4");
    const cs = elementwiseStridedSource("add", add, bindArguments("add", add, [m, col, undefined], -1), "z = x + y", pc);
    expect(cs).toContain("    const float _b_y = _p_y[_o_y];");
    expect(cs).toContain("      const float y = _b_y;");
    // Every other column of a [3, 16] matrix's first 8: rows of 16 elements, aligned.
    const wide = arr("float32", [3, 16]).slice(null, [0, 8]);
    expect(stridedPlan("add", add, [wide, m, undefined], bindArguments("add", add, [wide, m, undefined], -1), [3, 8]).vec).toBe(4);
    // An output read by the body is loaded first.
    const inc = parseParams("T x", false, "in").concat(parseParams("T z", true, "out"));
    const bi = bindArguments("acc", inc, [row, m], -1);
    const pi = stridedPlan("acc", inc, [row, m], bi, [3, 8]);
    expect(elementwiseStridedSource("acc", inc, bi, "z += x", pi)).toContain("    _pk_z _a_z = reinterpret_cast<_pk_z*>(_p_z)[_j];");
  });

  it("walks one element at a time where packs would not be aligned or contiguous", () => {
    const m = arr("float32", [3, 8]);
    const plan = (x: DeviceArray, y: DeviceArray, shape: number[]) => stridedPlan("add", add, [x, y, undefined], bindArguments("add", add, [x, y, undefined], -1), shape);
    // A row starting one element in: its address is not 16-byte aligned.
    expect(plan(m, arr("float32", [9]).slice([1, 9]), [3, 8]).vec).toBeUndefined();
    // Rows of 6 elements (24 bytes apart): the second row's packs would not be aligned.
    expect(plan(arr("float32", [3, 6]).slice(null, [0, 4]), arr("float32", [3, 4]), [3, 4]).vec).toBeUndefined();
    // A stepped innermost axis.
    expect(plan(arr("float32", [3, 16]).slice(null, [0, null, 2]), m, [3, 8]).vec).toBeUndefined();
    // A transposed view.
    expect(plan(arr("float32", [8, 3]).T, m, [3, 8]).vec).toBeUndefined();
  });

  it("refuses shapes that do not broadcast with BroadcastError naming both parameters (before any GPU work)", () => {
    const k = new ElementwiseKernel("T x, T y", "T z", "z = x + y", "add");
    const b = () => bindArguments(k.name, k.params, [arr("float32", [3, 4]), arr("float32", [3]), undefined], -1);
    expect(b).toThrow(ShapeMismatchError);
    expect(b).toThrow("add: y has shape [3] but x has shape [3, 4]: they do not broadcast (axis 0 of y has extent 3, axis 1 of x has 4");
  });
});

describe("axis reductions", () => {
  const sumParams = parseParams("T x", false, "in").concat(parseParams("T y", true, "out"));
  const exprs = { map: "x", reduce: "a + b", post: "y = a", identity: "0" };

  it("spread threads along memory: a group of consecutive threads per output for the last axes, across outputs otherwise", () => {
    expect(axisLaunchShape(3, 4, true)).toEqual({ group: 4, outputsPerBlock: 4, laneStride: 1 });
    expect(axisLaunchShape(16384, 16384, true)).toEqual({ group: 256, outputsPerBlock: 1, laneStride: 1 });
    expect(axisLaunchShape(16384, 16384, false)).toEqual({ group: 8, outputsPerBlock: 32, laneStride: 32 });
    expect(axisLaunchShape(4, 3, false)).toEqual({ group: 4, outputsPerBlock: 4, laneStride: 4 });
    expect(axisLaunchShape(2, 100_000, false)).toEqual({ group: 128, outputsPerBlock: 2, laneStride: 2 });
    expect(axisLaunchShape(100_000, 1, false)).toEqual({ group: 1, outputsPerBlock: 256, laneStride: 256 });
  });

  it("split few outputs of long ranges into chunks, enough for 32 blocks per multiprocessor (at most 4096)", () => {
    expect(reductionTuning.blocksPerMultiprocessor).toBe(32);
    expect(axisChunks(16384, 16384, 256, 1, 132)).toBe(1);
    expect(axisChunks(3, 4, 4, 4, 132)).toBe(1); // too short to split
    expect(axisChunks(2, 100_000, 256, 1, 132)).toBe(48); // 8 steps of 256 threads per chunk at least
    expect(axisChunks(1, 300_000, 256, 1, 132)).toBe(146);
    expect(axisChunks(1, 1e9, 256, 1, 132)).toBe(4096);
    expect(axisChunks(4, 1e6, 64, 4, 132)).toBe(1953); // 8 steps of 64 threads per chunk at least
    expect(axisChunks(100, 1e6, 256, 1, 132)).toBe(43); // 32 x 132 blocks over 100 outputs
  });

  it("plan [3, 4] over axis 1 (along memory) and axis 0 (across), contiguous and transposed", () => {
    const x = arr("float32", [3, 4]);
    const b = bindArguments("sum", sumParams.slice(0, 1), [x], -1);
    const y3 = arr("float32", [3]);
    const p1 = axisPlan(sumParams, [x, undefined], b, [3, 4], [1], false, [y3]);
    expect([p1.nOut, p1.nReduced, p1.keptRank, p1.reducedRank]).toEqual([3, 4, 1, 1]);
    expect(p1.laneStride).toBe(1);
    // kept extents, reduced extents, kept strides (x, the index, y), reduced strides (x, the index).
    expect(int64s(p1.layout)).toEqual([3, 4, 4, 4, 1, 1, 1]);
    const y4 = arr("float32", [4]);
    const p0 = axisPlan(sumParams, [x, undefined], b, [3, 4], [0], false, [y4]);
    // The 4 outputs are one pack of 4 neighbours: one group of 4 threads (3 rows) takes them.
    expect([p0.nOut, p0.nReduced, p0.group, p0.outputsPerBlock, p0.laneStride, p0.packed, p0.vec]).toEqual([4, 3, 4, 1, 1, "kept", 4]);
    expect(int64s(p0.layout)).toEqual([4, 3, 1, 1, 1, 4, 4]);
    // The transpose of a contiguous [4, 3]: reducing its axis 1 walks memory with stride 3, outputs with stride 1.
    const t = arr("float32", [4, 3]).T;
    const pt = axisPlan(sumParams, [t, undefined], bindArguments("sum", sumParams.slice(0, 1), [t], -1), [3, 4], [1], true, [arr("float32", [3, 1])]);
    expect(pt.laneStride).toBe(pt.outputsPerBlock);
    expect(int64s(pt.layout)).toEqual([3, 4, 1, 4, 1, 3, 1]);
    // Every axis: the kept layout is one axis of extent 1, the reduced one merged.
    const pa = axisPlan(sumParams, [x, undefined], b, [3, 4], [0, 1], false, [arr("float32", [])]);
    expect([pa.nOut, pa.nReduced, pa.keptRank, pa.reducedRank, pa.laneStride]).toEqual([1, 12, 1, 1, 1]);
    expect(pa.key).toBe("axis1x1:u32:reduced4");
    // [2, 3, 4] over [0, 2]: two reduced axes that do not merge.
    const x3 = arr("float32", [2, 3, 4]);
    const p02 = axisPlan(sumParams, [x3, undefined], bindArguments("sum", sumParams.slice(0, 1), [x3], -1), [2, 3, 4], [0, 2], false, [arr("float32", [3])]);
    expect([p02.nOut, p02.nReduced, p02.keptRank, p02.reducedRank]).toEqual([3, 8, 1, 2]);
  });

  it("packs: outputs that are neighbours in memory (axis 0), reduced elements that are (axis 1), and where neither packs", () => {
    const x = arr("float32", [64, 128]);
    const b = bindArguments("sum", sumParams.slice(0, 1), [x], -1);
    const full = { ...b, dtypes: [dtypes.float32, dtypes.float32], scalar: [false, false] };
    const p0 = axisPlan(sumParams, [x, undefined], b, [64, 128], [0], false, [arr("float32", [128])]);
    expect([p0.packed, p0.vec, p0.key]).toEqual(["kept", 4, "axis1x1:u32:kept4"]);
    // 128 outputs in 32 packs: 32 groups of 8 threads.
    expect([p0.group, p0.outputsPerBlock, p0.laneStride]).toEqual([8, 32, 32]);
    const s0 = reductionAxisSource("sum", sumParams, full, exprs, dtypes.float32, p0);
    expect(s0).toContain("struct __align__(sizeof(float) * 4) _pk_x { float v[4]; };");
    expect(s0).toContain("  const unsigned long long _items = _nout / 4;");
    expect(s0).toContain("    const unsigned long long _o = (_v % _items) * 4;");
    expect(s0).toContain("          _px0_x = _rd_load(reinterpret_cast<const _pk_x*>(_p_x + _ko0 + _ro0));");
    // Whole 16-byte packs stream (each byte is read once); others load plainly.
    expect(s0).toContain("  if (sizeof(P) == 16 && alignof(P) == 16) { P r; *reinterpret_cast<uint4*>(&r) = __ldcs(reinterpret_cast<const uint4*>(p)); return r; }");
    expect(s0).toContain("for (int _e = 0; _e < 4; ++_e) _acc[_e] = _reduce(_acc[_e], _map(_px3_x.v[_e], _ib3 + _e));");
    expect(s0).toContain("    for (int _e = 0; _e < 4; ++_e) _smem[_e * blockDim.x + _t] = _acc[_e];");
    expect(s0).toContain("          _partial[_chunk * _nout + _o + _e] = a;");
    expect(s0).toContain("          float& y = _p_y[_ko2 + (long long)_e * _l.ks[2][0]];");
    const p1 = axisPlan(sumParams, [x, undefined], b, [64, 128], [1], false, [arr("float32", [64])]);
    expect([p1.packed, p1.vec, p1.key]).toEqual(["reduced", 4, "axis1x1:u32:reduced4"]);
    expect([p1.group, p1.outputsPerBlock, p1.laneStride]).toEqual([32, 8, 1]); // 32 packs of 4 per row
    const s1 = reductionAxisSource("sum", sumParams, full, exprs, dtypes.float32, p1);
    expect(s1).toContain("  const unsigned long long _len = ((_nred + _chunks - 1) / _chunks + 3) / 4 * 4;");
    expect(s1).toContain("      unsigned long long _rr = _lo / 4 + _lane;");
    expect(s1).toContain("          unsigned int _q = (unsigned int)((_rr + 3ull * _g) * 4ull);");
    expect(s1).toContain("for (int _e = 0; _e < 4; ++_e) _acc = _reduce(_acc, _map(_px0_x.v[_e], _ib0 + _e));");
    // Not packed: a row of 6 (not a multiple of 4), a transposed input, a misaligned start, axis 0 of a column view.
    const odd = arr("float32", [64, 6]);
    expect(axisPlan(sumParams, [odd, undefined], bindArguments("sum", sumParams.slice(0, 1), [odd], -1), [64, 6], [1], false, [arr("float32", [64])]).packed).toBeUndefined();
    const t = arr("float32", [128, 64]).T;
    expect(axisPlan(sumParams, [t, undefined], bindArguments("sum", sumParams.slice(0, 1), [t], -1), [64, 128], [1], false, [arr("float32", [64])]).packed).toBeUndefined();
    const shifted = arr("float32", [64 * 128 + 1]).slice([1, null]).reshape([64, 128]);
    expect(axisPlan(sumParams, [shifted, undefined], bindArguments("sum", sumParams.slice(0, 1), [shifted], -1), [64, 128], [0], false, [arr("float32", [128])]).packed).toBeUndefined();
    const stepped = arr("float32", [64, 256]).slice(null, [0, null, 2]);
    expect(axisPlan(sumParams, [stepped, undefined], bindArguments("sum", sumParams.slice(0, 1), [stepped], -1), [64, 128], [0], false, [arr("float32", [128])]).packed).toBeUndefined();
  });

  it("the axis kernel's source: layout struct, group loop, tree, post through the output's strides; the whole-array source unchanged", () => {
    const x = arr("float32", [3, 4]);
    const b = bindArguments("sum", sumParams.slice(0, 1), [x], -1);
    const full = { ...b, dtypes: [dtypes.float32, dtypes.float32], scalar: [false, false] };
    const src = reductionAxisSource("sum", sumParams, full, exprs, dtypes.float32, { keptRank: 1, reducedRank: 2, index32: true });
    expect(src).toContain("__device__ __forceinline__ _type_reduce _map(const float x, const unsigned long long i) { return _type_reduce(x); }");
    expect(src).toContain("struct _rd_layout { long long kshape[1]; long long rshape[2]; long long ks[3][1]; long long rs[2][2]; };");
    expect(src).toContain(
      'extern "C" __global__ void sum_axis(const float* __restrict__ _p_x, float* __restrict__ _p_y, const unsigned long long _nout, const unsigned long long _nred, const unsigned int _g, const unsigned int _ls, const unsigned long long _chunks, _type_reduce* __restrict__ _partial, const _rd_layout _l) {',
    );
    // Four reduced elements per thread per step, then one at a time.
    expect(src).toContain("      for (; _rr + 3ull * _g < _hi; _rr += 4ull * _g) {");
    expect(src).toContain("          const unsigned long long i = (unsigned long long)(_ko1 + _ro1);");
    expect(src).toContain("          _m3 = _map(_p_x[_ko0 + _ro0], i);");
    expect(src).toContain("        _acc = _reduce(_acc, _reduce(_reduce(_m0, _m1), _reduce(_m2, _m3)));");
    expect(src).toContain("          _m = _map(_p_x[_ko0 + _ro0], i);");
    expect(src).toContain("      if (_lane < _off) _smem[_t] = _reduce(_smem[_t], _smem[_t + _off * _ls]);");
    expect(src).toContain("        float& y = _p_y[_ko2];");
    expect(src).not.toContain("sum_partial(");
    // Split ranges: partial results per chunk, and a second kernel that combines them and runs post.
    expect(src).toContain("        _partial[_v] = a;");
    expect(src).toContain(
      'extern "C" __global__ void sum_axis_final(const _type_reduce* __restrict__ _partial, float* __restrict__ _p_y, const unsigned long long _nout, const unsigned long long _chunks, const _rd_layout _l) {',
    );
    expect(src).toContain("    for (unsigned long long _c = 0; _c < _chunks; _c++) _acc = _reduce(_acc, _partial[_c * _nout + _o]);");
    // The whole-array kernels are generated as before.
    const whole = reductionSource("sum", sumParams, full, exprs, dtypes.float32);
    expect(whole).toContain('extern "C" __global__ void sum_partial(const float* __restrict__ _p_x, _type_reduce* __restrict__ _partial, const unsigned long long _n) {');
    expect(whole).not.toContain("_axis");
  });

  it("result dtypes follow NumPy", () => {
    expect(reductionResultName("sum", "int32")).toBe("int64");
    expect(reductionResultName("sum", "bool")).toBe("int64");
    expect(reductionResultName("prod", "uint8")).toBe("uint64");
    expect(reductionResultName("sum", "float32")).toBe("float32");
    expect(reductionDTypes("sum", dtypes.float16)).toEqual({ out: dtypes.float16, accumulate: dtypes.float32 });
    expect(reductionResultName("max", "int32")).toBe("int32");
    expect(reductionResultName("min", "bool")).toBe("bool");
    expect(reductionResultName("mean", "int32")).toBe("float64");
    expect(reductionResultName("mean", "float32")).toBe("float32");
    expect(reductionResultName("mean", "complex64")).toBe("complex64");
    expect(() => reductionDTypes("max", dtypes.complex64)).toThrow(DTypeError);
  });

  it("refuse axes out of range, empty min/max and complex order before using the stream", () => {
    const stream = {} as Stream; // never reached: every check comes first
    const x = arr("float32", [3, 4]);
    expect(() => sum(x, { stream, axis: 2 })).toThrow(AxisError);
    expect(() => sum(x, { stream, axis: 2 })).toThrow("sum: axis 2 is out of range for an array of 2 axes (from -2 to 1)");
    expect(() => x.mean({ stream, axis: [0, -2] })).toThrow(/axis 0 is named twice/);
    expect(() => max(arr("float32", [0, 3]), { stream, axis: 0 })).toThrow(/reduces zero elements, and max has no identity/);
    expect(() => min(arr("complex64", [3]), { stream })).toThrow(DTypeError);
    expect(() => mean(x, { stream, keepdims: 1 as never })).toThrow(/keepdims is a boolean/);
    expect(() => sum(3 as never, { stream })).toThrow(/sum takes a DeviceArray/);
  });
});
