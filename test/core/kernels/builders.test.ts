/**
 * The kernel builders without a GPU: parameter lists in CuPy's notation, binding placeholders to the arrays of a
 * call (with the typed errors for mismatched dtypes, shapes, layouts and devices), and the source each
 * instantiation compiles.
 */
import { describe, expect, it } from "vitest";
import {
  ArrayLayoutError,
  BroadcastError,
  Buffer,
  DTypeError,
  DeviceArray,
  ShapeMismatchError,
  dtypes,
  type MemoryResource,
} from "../../../src/index.ts";
import { ElementwiseKernel, ReductionKernel } from "../../../src/kernels.ts";
import { bindArguments, parseParams } from "../../../src/core/kernels/params.ts";
import { ELEMENTWISE_UNROLL, ELEMENTWISE_VECTOR_UNROLL, elementwiseSource, vectorWidth } from "../../../src/core/kernels/elementwise.ts";
import { reductionSource } from "../../../src/core/kernels/reduction.ts";
import { arrayKernelSource, layoutBytes, LAYOUT_BYTES, MAX_DIMS } from "../../../src/core/array/device-code.ts";

const hostResource: MemoryResource = {
  allocate: () => {
    throw new Error("not used");
  },
  deallocate: () => undefined,
  isDeviceAccessible: true,
  isHostAccessible: true,
  deviceId: -1,
};

function arr(dtype: "float32" | "float64" | "int32" | "float16" | "complex128", shape: number[]): DeviceArray {
  return DeviceArray.fromBuffer(Buffer.fromHandle(0x7f00_0000_0000n, 1 << 16, { memoryResource: hostResource }), { dtype, shape });
}

describe("parameter lists", () => {
  it("parse types, placeholders, raw and outputs", () => {
    expect(parseParams("T x, raw T w, float32 a", false, "in")).toEqual([
      { name: "x", type: "T", placeholder: true, raw: false, output: false },
      { name: "w", type: "T", placeholder: true, raw: true, output: false },
      { name: "a", type: "float32", placeholder: false, raw: false, output: false },
    ]);
    expect(parseParams("", true, "out")).toEqual([]);
    expect(() => parseParams("T", false, "in")).toThrow(/"T" is not "\[raw\] TYPE NAME"/);
    expect(() => parseParams("T i", false, "in")).toThrow(/"i" cannot name a parameter/);
    expect(() => parseParams("T _x", false, "in")).toThrow(SyntaxError);
    expect(() => parseParams("T x-y", false, "in")).toThrow(SyntaxError);
  });

  it("builders refuse bad declarations when made", () => {
    expect(() => new ElementwiseKernel("T x", "T x", "x = x", "k")).toThrow(/parameter x is declared twice/);
    expect(() => new ElementwiseKernel("T x", "", "x", "k")).toThrow(/at least one output/);
    expect(() => new ElementwiseKernel("T x", "T y", "", "k")).toThrow(/the operation \(the body\) is empty/);
    expect(() => new ElementwiseKernel("T x", "T y", "y = x", "2k")).toThrow(/the name must be an identifier/);
    expect(() => new ReductionKernel("T x", "T y", "x", "a + b", "y = a", "", "s")).toThrow(/identity is empty/);
    expect(() => new ReductionKernel("T x", "raw T y", "x", "a + b", "y = a", "0", "s")).toThrow(/output y cannot be raw/);
  });
});

describe("binding a call", () => {
  const params = parseParams("T a, T x, T y", false, "in").concat(parseParams("T z", true, "out"));

  it("binds placeholders to the arrays' dtype, with scalars broadcast", () => {
    const x = arr("float32", [8]);
    const b = bindArguments("saxpy", params, [2.5, x, x, undefined], -1);
    expect(b.dtypes.map((d) => d.name)).toEqual(["float32", "float32", "float32", "float32"]);
    expect(b.scalar).toEqual([true, false, false, false]);
    expect(b.shape).toEqual([8]);
    expect(b.key).toBe("float32s,float32a,float32a,float32a");
    expect(bindArguments("saxpy", params, [x, x, x, undefined], -1).key).not.toBe(b.key);
  });

  it("names the parameters in dtype, shape, layout and binding errors", () => {
    const x = arr("float32", [8]);
    expect(() => bindArguments("saxpy", params, [1, x, arr("float64", [8]), undefined], -1)).toThrow(DTypeError);
    expect(() => bindArguments("saxpy", params, [1, x, arr("float64", [8]), undefined], -1)).toThrow(/saxpy: T is float32 \(from x\) but y is a float64 array/);
    expect(() => bindArguments("saxpy", params, [1, x, arr("float32", [4, 2]), undefined], -1)).toThrow(ShapeMismatchError);
    expect(() => bindArguments("saxpy", params, [1, x, arr("float32", [4, 2]), undefined], -1)).toThrow(/saxpy: y has shape \[4, 2\] but x has shape \[8\]/);
    expect(() => bindArguments("saxpy", params, [1, x, arr("float32", [4, 2]), undefined], -1)).toThrow(BroadcastError);
    expect(() => bindArguments("saxpy", params, [1, x, arr("float32", [4, 2]), undefined], -1)).toThrow(/axis 1 of y has extent 2, axis 0 of x has 8/);
    // Views bind (the strided kernel reads them); raw arrays must still be contiguous.
    expect(bindArguments("saxpy", params, [1, x, arr("float32", [16]).slice([0, null, 2]), undefined], -1).shape).toEqual([8]);
    const rawParams = parseParams("T x, raw T w", false, "in").concat(parseParams("T z", true, "out"));
    expect(() => bindArguments("k", rawParams, [x, arr("float32", [2, 4]).T, undefined], -1)).toThrow(ArrayLayoutError);
    expect(() => bindArguments("k", rawParams, [x, arr("float32", [2, 4]).T, undefined], -1)).toThrow(/raw w must be contiguous/);
    // Outputs are never broadcast.
    expect(() => bindArguments("saxpy", params, [1, x, x, arr("float32", [1])], -1)).toThrow(/output z has shape \[1\] but the operands broadcast to \[8\]/);
    expect(() => bindArguments("saxpy", params, [1, 2, 3, undefined], -1)).toThrow(/the type T of a is bound by no array/);
    expect(() => bindArguments("saxpy", params, [1, x, x, 4 as never], -1)).toThrow(/output z must be a DeviceArray/);
    expect(() => bindArguments("saxpy", params, ["1" as never, x, x, undefined], -1)).toThrow(/a takes a DeviceArray or a scalar/);
    expect(() => bindArguments("k", parseParams("int32 n", false, "in"), [arr("float32", [1])], -1)).toThrow(/n is declared int32 but a float32 array was passed/);
    expect(() => bindArguments("k", parseParams("T x, int32 n", false, "in"), [x, 2 ** 40], -1)).toThrow(/a int32 element is an integer/);
    const closed = arr("float32", [8]);
    closed.close();
    expect(() => bindArguments("saxpy", params, [1, closed, x, undefined], -1)).toThrow(/the array passed for x was closed/);
  });
});

describe("generated source", () => {
  it("an elementwise kernel: typedefs, elements by value, outputs by reference, scalars by value, loads issued first", () => {
    const params = parseParams("T a, T x, raw T w", false, "in").concat(parseParams("T z", true, "out"));
    const x = arr("float16", [4]);
    const b = bindArguments("axpy", params, [2, x, x, undefined], -1);
    const src = elementwiseSource("axpy", params, b, "z = a * x + w[i]", "// preamble");
    expect(src).toContain("#include <cuda_fp16.h>");
    expect(src).toContain("typedef __half T;");
    expect(src).toContain("// preamble");
    expect(src).toContain('extern "C" __global__ void axpy(const __half a, const __half* __restrict__ _p_x, const __half* __restrict__ w, __half* __restrict__ _p_z, const unsigned long long _n) {');
    expect(src).toContain(`for (; _i + ${ELEMENTWISE_UNROLL - 1} * _stride < _n; _i += ${ELEMENTWISE_UNROLL} * _stride) {`);
    // Every element's input is loaded before the first body runs.
    const lastLoad = src.lastIndexOf(`const __half _v${ELEMENTWISE_UNROLL - 1}_x = _p_x[_i + ${ELEMENTWISE_UNROLL - 1} * _stride];`);
    const firstBody = src.indexOf("z = a * x + w[i];");
    expect(lastLoad).toBeGreaterThan(0);
    expect(firstBody).toBeGreaterThan(lastLoad);
    expect(src).toContain("      const __half x = _v0_x;");
    expect(src).toContain("      __half& z = _p_z[i];");
    const scalarKernel = src.slice(0, src.indexOf("struct __align__"));
    expect(scalarKernel.split("z = a * x + w[i];").length - 1).toBe(ELEMENTWISE_UNROLL + 1);
    // The tail: one element at a time.
    expect(src).toContain("  for (; _i < _n; _i += _stride)");
    expect(src).toContain("      const __half x = _p_x[i];");
  });

  it("a vectorised variant: 16-byte packs of every per-element array, loads first, outputs loaded only when read", () => {
    const params = parseParams("T a, T x, raw T w", false, "in").concat(parseParams("T z", true, "out"));
    const x = arr("float16", [4]);
    const b = bindArguments("axpy", params, [2, x, x, undefined], -1);
    expect(vectorWidth(params, b)).toBe(8); // 16 bytes of 2-byte halves
    const src = elementwiseSource("axpy", params, b, "z = a * x + w[i]");
    expect(src).toContain("struct __align__(sizeof(__half) * 8) _pk_x { __half v[8]; };");
    expect(src).toContain('extern "C" __global__ void axpy_vec(const __half a, const __half* __restrict__ _p_x, const __half* __restrict__ w, __half* __restrict__ _p_z, const unsigned long long _n) {');
    const vec = src.slice(src.indexOf("axpy_vec("));
    // z is only assigned: its pack is not loaded; every load of the unrolled step comes before the first body.
    expect(vec).toContain("    _pk_z _o0_z;");
    const lastLoad = vec.indexOf(`_a${ELEMENTWISE_VECTOR_UNROLL - 1}_x = reinterpret_cast<const _pk_x*>(_p_x)[_j + ${ELEMENTWISE_VECTOR_UNROLL - 1} * _stride];`);
    expect(lastLoad).toBeGreaterThan(0);
    expect(vec.indexOf("z = a * x + w[i];")).toBeGreaterThan(lastLoad);
    expect(vec).toContain("reinterpret_cast<_pk_z*>(_p_z)[_j] = _o0_z;");
    // A body that may leave an element alone, or reads its output, loads the output's old values first.
    for (const body of ["if (x > a) z = x", "z += x", "z = z * a", "y = x; z = y"]) {
      const p2 = parseParams("T a, T x", false, "in").concat(parseParams(body === "y = x; z = y" ? "T y, T z" : "T z", true, "out"));
      const b2 = bindArguments("k", p2, p2.map((_, k) => (k === 0 ? 2 : x)), -1);
      const v2 = elementwiseSource("k", p2, b2, body).slice(0);
      const loadsZ = v2.includes("_pk_z _o0_z = reinterpret_cast<const _pk_z*>(_p_z)[_j];");
      expect([body, loadsZ]).toEqual([body, body !== "y = x; z = y"]);
    }
    // No per-element array wider than 8 bytes: no variant.
    const c = arr("complex128", [4]);
    const p3 = parseParams("T x", false, "in").concat(parseParams("T z", true, "out"));
    expect(vectorWidth(p3, bindArguments("c", p3, [c, undefined], -1))).toBe(1);
    expect(elementwiseSource("c", p3, bindArguments("c", p3, [c, undefined], -1), "z = x")).not.toContain("c_vec");
  });

  it("a reduction: map, reduce, identity, a partial and a final kernel", () => {
    const params = parseParams("T x", false, "in").concat(parseParams("T y", true, "out"));
    const b = bindArguments("sum", params, [arr("float32", [4]), undefined], -1);
    const src = reductionSource("sum", params, b, { map: "x * x", reduce: "a + b", post: "y = sqrt(a)", identity: "0" }, dtypes.float64);
    expect(src).not.toContain("#include");
    expect(src).toContain("typedef float T;");
    expect(src).toContain("typedef double _type_reduce;");
    expect(src).toContain("__device__ __forceinline__ _type_reduce _map(const float x, const unsigned long long i) { return _type_reduce(x * x); }");
    expect(src).toContain("_type_reduce _reduce(const _type_reduce a, const _type_reduce b) { return _type_reduce(a + b); }");
    expect(src).toContain('extern "C" __global__ void sum_partial(const float* __restrict__ _p_x, _type_reduce* __restrict__ _partial, const unsigned long long _n) {');
    expect(src).toContain("const _type_reduce _m3 = _map(_p_x[_i + 3 * _stride], _i + 3 * _stride);");
    expect(src).toContain('extern "C" __global__ void sum_final(const _type_reduce* __restrict__ _partial, const unsigned long long _count, float* __restrict__ _p_y) {');
    expect(src).toContain("    float& y = _p_y[0];");
    expect(src).toContain("    y = sqrt(a);");
  });

  it("the arrays' own copy and fill kernels, and their layout struct", () => {
    const src = arrayKernelSource();
    for (const w of [1, 2, 4, 8, 16]) {
      expect(src).toContain(`cuda_ts_strided_copy_${w}(`);
      expect(src).toContain(`cuda_ts_strided_fill_${w}(`);
    }
    const bytes = layoutBytes([3, 4], [1, 3], [4, 1]);
    expect(bytes.byteLength).toBe(LAYOUT_BYTES);
    const v = new BigInt64Array(bytes.buffer);
    expect([v[0], v[1], v[MAX_DIMS], v[MAX_DIMS + 1], v[2 * MAX_DIMS], v[2 * MAX_DIMS + 1], v[3 * MAX_DIMS]]).toEqual([3n, 4n, 1n, 3n, 4n, 1n, 2n]);
    expect(() => layoutBytes(new Array(MAX_DIMS + 1).fill(2), [], [])).toThrow(ArrayLayoutError);
  });
});
