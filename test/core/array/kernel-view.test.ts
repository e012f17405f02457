/**
 * Arrays as `cuda_ts::Array<T, N>` kernel arguments without a GPU: the record's bytes for ranks 0 to 4 and every
 * dtype, views (transposed, stepped, reversed, broadcast), launch's checks (size, element type and rank from mangled
 * names, pointer parameters), the mangled names a host C++ compiler gives kernels taking the record, the header
 * handed to NVRTC and the compile cache's key. Where g++ is installed, the header itself is compiled for the host
 * and indexes records laid out by arrayView, against the same indexing done here.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  ARRAY_HEADER_NAME,
  ARRAY_HEADER_SOURCE,
  ArrayView,
  BroadcastError,
  Buffer,
  ClosedError,
  DeviceArray,
  DTYPE_NAMES,
  LaunchArgumentError,
  arrayView,
  arrayViewSize,
  dtypes,
  type Kernel,
  type ParamType,
} from "../../../src/index.ts";
import { packArguments } from "../../../src/core/launch/launch.ts";
import { kArgumentPlan, type ArgumentPlan } from "../../../src/core/launch/kernel.ts";
import { parameterTypesFromMangledName } from "../../../src/core/launch/mangling.ts";
import { packageHeaderDigest, packageHeadersFor, PACKAGE_HEADERS } from "../../../src/core/program/package-headers.ts";
import { makeProgramCacheKey } from "../../../src/core/program/cache.ts";
import { ffi } from "../../../src/ffi/index.ts";

const BASE = 0x7f00_0000_0000n;

function array(dtype: (typeof DTYPE_NAMES)[number], shape: number[], bytes = 1 << 16): DeviceArray {
  return DeviceArray.fromBuffer(Buffer.fromHandle(BASE, bytes, { owner: {} }), { dtype, shape });
}

/** The record read back: pointer, size, shape, strides (bytes). */
function record(bytes: Uint8Array): { data: bigint; size: bigint; shape: bigint[]; strides: bigint[] } {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const n = (bytes.byteLength - 16) / 16;
  const at = (k: number): bigint => dv.getBigInt64(k, true);
  return {
    data: dv.getBigUint64(0, true),
    size: at(8),
    shape: Array.from({ length: n }, (_, d) => at(16 + 8 * d)),
    strides: Array.from({ length: n }, (_, d) => at(16 + 8 * (n + d))),
  };
}

describe("arrayView: the cuda_ts::Array<T, N> record", () => {
  it("is 16 + 16·N bytes: pointer, size, shape, byte strides, for ranks 0 to 4 and every dtype", () => {
    const shapes = [[], [5], [3, 4], [2, 3, 4], [2, 1, 3, 2]];
    for (const name of DTYPE_NAMES) {
      const item = dtypes[name].itemsize;
      for (const shape of shapes) {
        const a = array(name, shape);
        const v = arrayView(a);
        expect(v).toBeInstanceOf(ArrayView);
        expect(v.byteLength).toBe(arrayViewSize(shape.length));
        expect(v.byteLength).toBe(16 + 16 * shape.length);
        expect(v.ndim).toBe(shape.length);
        expect(v.parameterType).toBe(`cuda_ts::Array<${dtypes[name].ctype}, ${shape.length}>`);
        const r = record(v.toBytes());
        expect(r.data).toBe(BASE);
        expect(r.size).toBe(BigInt(shape.reduce((x, y) => x * y, 1)));
        expect(r.shape).toEqual(shape.map(BigInt));
        expect(r.strides).toEqual(a.strides.map((s) => BigInt(s * item)));
      }
    }
  });

  it("writes exactly the bytes of a rank-2 float32 record (little-endian)", () => {
    const v = arrayView(array("float32", [3, 4]));
    const expected = new Uint8Array(48);
    const dv = new DataView(expected.buffer);
    dv.setBigUint64(0, BASE, true);
    dv.setBigInt64(8, 12n, true);
    dv.setBigInt64(16, 3n, true);
    dv.setBigInt64(24, 4n, true);
    dv.setBigInt64(32, 16n, true);
    dv.setBigInt64(40, 4n, true);
    expect([...v.toBytes()]).toEqual([...expected]);
  });

  it("describes views as they are: transposed, stepped, reversed, broadcast", () => {
    const a = array("float64", [4, 6]);
    const t = record(arrayView(a.T).toBytes());
    expect([t.shape, t.strides]).toEqual([[6n, 4n], [8n, 48n]]);
    const s = a.slice([1, 4, 2], [null, null, -1]);
    const rs = record(arrayView(s).toBytes());
    expect(rs.data).toBe(s.address);
    expect(rs.data).toBe(BASE + BigInt((6 + 5) * 8));
    expect([rs.shape, rs.strides, rs.size]).toEqual([[2n, 6n], [96n, -8n], 12n]);
    const row = array("int32", [6]);
    const b = arrayView(row, { broadcastTo: [4, 6] });
    expect(b.shape).toEqual([4, 6]);
    expect(b.byteStrides).toEqual([0, 4]);
    expect(record(b.toBytes()).size).toBe(24n);
    const col = array("int32", [4, 1]);
    expect(arrayView(col, { broadcastTo: [2, 4, 3] }).byteStrides).toEqual([0, 4, 0]);
    expect(() => arrayView(row, { broadcastTo: [4, 5] })).toThrow(BroadcastError);
    expect(() => arrayView(row, { broadcastTo: [-1] as number[] })).toThrow(/broadcastTo must be a shape/);
  });

  it("refuses what is not an open DeviceArray", () => {
    expect(() => arrayView({} as DeviceArray)).toThrow(TypeError);
    const a = array("float32", [4]);
    const v = arrayView(a);
    a.close();
    expect(() => v.toBytes()).toThrow(ClosedError);
    expect(() => arrayView(a)).toThrow(ClosedError);
  });
});

/** A stand-in Kernel with the argument memory a real one has (no driver needed). */
function fakeKernel(params: readonly { size: number; type?: ParamType }[], name = "k"): Kernel {
  let offset = 0;
  const info = params.map((p) => {
    const align = Math.min(8, p.size);
    offset = Math.ceil(offset / align) * align;
    const r = { offset, size: p.size };
    offset += p.size;
    return r;
  });
  const values = new ArrayBuffer(Math.max(8, Math.ceil(offset / 8) * 8));
  const table = new ArrayBuffer(Math.max(8, info.length * 8));
  const base = ffi.pointerOf(values);
  info.forEach((p, i) => ffi.writePointer(new DataView(table), i * 8, p.offset === 0 ? base : ffi.offsetPointer(base, p.offset)));
  const plan: ArgumentPlan = {
    params: info,
    types: params.map((p) => p.type),
    values: new DataView(values),
    pointers: ffi.pointerOf(table),
    offsets: Int32Array.from(info, (p) => p.offset),
    sizes: Int32Array.from(info, (p) => p.size),
    keep: [values, table],
    packed: undefined,
    packedEpoch: -1,
    spread: new Array<unknown>(info.length).fill(undefined),
  };
  return { name, [kArgumentPlan]: () => plan } as unknown as Kernel;
}

describe("launch with array views", () => {
  it("packs the record by value at the parameter's offset", () => {
    const a = array("float32", [3, 4]);
    const k2 = fakeKernel([{ size: 48 }, { size: 8 }]);
    const p2 = packArguments(k2, [arrayView(a.T), a]);
    const bytes = new Uint8Array(p2.values.buffer, p2.values.byteOffset, 48);
    expect([...bytes]).toEqual([...arrayView(a.T).toBytes()]);
    expect(p2.values.getBigUint64(48, true)).toBe(BASE);
  });

  it("refuses a parameter of another size with a message that says what to declare", () => {
    const a = array("float32", [3, 4]);
    const msg = (size: number): string => {
      try {
        packArguments(fakeKernel([{ size }]), [arrayView(a)]);
      } catch (e) {
        expect(e).toBeInstanceOf(LaunchArgumentError);
        return (e as Error).message;
      }
      throw new Error("no error");
    };
    expect(msg(8)).toMatch(/is 48 bytes but the parameter is 8 bytes; an 8-byte parameter is a pointer: pass the DeviceArray itself, or declare the parameter cuda_ts::Array<float, 2>/);
    expect(msg(32)).toMatch(/is 48 bytes but the parameter is 32 bytes, the size of a cuda_ts::Array of rank 1: pass an array with 1 axes/);
    expect(msg(128)).toMatch(/argument 0 of k: arrayView of a float32 array of shape \[3, 4\] \(a cuda_ts::Array<float, 2>, 48 bytes\) is 48 bytes but the parameter is 128 bytes/);
    expect(msg(12)).toMatch(/declare the parameter cuda_ts::Array<float, 2> \(#include <cuda_ts\/array.h>\)/);
  });

  it("checks element type and rank against a C++ kernel's mangled name", () => {
    const types = parameterTypesFromMangledName("_Z1aN7cuda_ts5ArrayIKfLi2EEEPf")!;
    expect(types).toEqual([{ kind: "array", element: "f32", ndim: 2 }, { kind: "pointer", pointee: "f32" }]);
    const k = fakeKernel([
      { size: 48, type: types[0] },
      { size: 8, type: types[1] },
    ]);
    const f = array("float32", [3, 4]);
    expect(() => packArguments(k, [arrayView(f), f])).not.toThrow();
    expect(() => packArguments(k, [arrayView(array("int32", [3, 4])), f])).toThrow(
      /the parameter is a cuda_ts::Array of f32 elements but arrayView of a int32 array of shape \[3, 4\] .* holds i32/,
    );
    expect(() => packArguments(k, [arrayView(array("float32", [12])), f])).toThrow(/the parameter is a cuda_ts::Array of rank 2 but .* has 1 axes/);
    // A pointer parameter given a view, and a view's parameter given the bare array.
    expect(() => packArguments(k, [arrayView(f), arrayView(f)])).toThrow(/the parameter is a pointer, not a cuda_ts::Array/);
    expect(() => packArguments(k, [f, f])).toThrow(LaunchArgumentError);
  });

  it("reads the mangled names a C++ compiler gives kernels taking the record", () => {
    // As g++ (the Itanium ABI NVRTC follows) mangles them.
    expect(parameterTypesFromMangledName("_Z1bN7cuda_ts5ArrayIfLi0EEE")).toEqual([{ kind: "array", element: "f32", ndim: 0 }]);
    // A template kernel: T_ stays the function's template argument after a class-typed parameter.
    expect(parameterTypesFromMangledName("_Z1cIdEvN7cuda_ts5ArrayIT_Li3EEEPS2_S2_")).toEqual([
      { kind: "array", element: "f64", ndim: 3 },
      { kind: "pointer", pointee: "f64" },
      { kind: "scalar", scalar: "f64" },
    ]);
    expect(parameterTypesFromMangledName("_Z1dN7cuda_ts5ArrayI6__halfLi1EEES2_")).toEqual([
      { kind: "array", element: "f16", ndim: 1 },
      { kind: "array", element: "f16", ndim: 1 },
    ]);
    expect(parameterTypesFromMangledName("_Z1eN7cuda_ts5ArrayIN4cuda3std3__47complexIfEELi2EEENS0_IxLi4EEE")).toEqual([
      { kind: "array", element: "complex64", ndim: 2 },
      { kind: "array", element: "i64", ndim: 4 },
    ]);
    expect(parameterTypesFromMangledName("_Z1fN7cuda_ts5ArrayIbLi1EEENS0_IiLi1EEEi")).toEqual([
      { kind: "array", element: "bool", ndim: 1 },
      { kind: "array", element: "i32", ndim: 1 },
      { kind: "scalar", scalar: "i32" },
    ]);
    // Names decoded before keep their meaning.
    expect(parameterTypesFromMangledName("_Z4axpyIfEvT_PKS0_PS0_j")).toEqual([
      { kind: "scalar", scalar: "f32" },
      { kind: "pointer", pointee: "f32" },
      { kind: "pointer", pointee: "f32" },
      { kind: "scalar", scalar: "u32" },
    ]);
  });
});

describe("cuda_ts/array.h", () => {
  it("is handed to NVRTC by name, and keys the compile cache where a source includes it", () => {
    expect(ARRAY_HEADER_NAME).toBe("cuda_ts/array.h");
    expect(PACKAGE_HEADERS[ARRAY_HEADER_NAME]).toBe(ARRAY_HEADER_SOURCE);
    const src = '#include <cuda_ts/array.h>\nextern "C" __global__ void k(cuda_ts::Array<float, 1> a) { a[0] = 1; }';
    expect(packageHeadersFor(src).names).toEqual(["cuda_ts/array.h"]);
    expect(packageHeadersFor('extern "C" __global__ void k() {}').names).toEqual([]);
    expect(packageHeaderDigest('extern "C" __global__ void k() {}')).toBeUndefined();
    expect(packageHeaderDigest(src)).toMatch(/^[0-9a-f]{64}$/);
    const key = (code: string): string => makeProgramCacheKey({ code, codeType: "c++", options: { arch: "sm_90" }, target: "cubin", compilerVersion: "nvrtc 13.0" });
    // The key covers the header: the same source text with a package header gets another key than a plain one would.
    expect(key(src)).not.toBe(key(src.replace("cuda_ts/array.h", "cuda_ts/other.h")));
    expect(key(src)).toBe(key(src));
  });

  it("declares the layout arrayView writes, and indexes views as the kernel would (g++ on the host)", () => {
    const gpp = ["/usr/bin/g++", "/usr/local/bin/g++"].find((p) => existsSync(p));
    if (gpp === undefined) return; // no host compiler: the GPU test compiles the header with NVRTC
    const dir = mkdtempSync(join(tmpdir(), "cuda-ts-array-h-"));
    mkdirSync(join(dir, "cuda_ts"));
    writeFileSync(join(dir, "cuda_ts/array.h"), ARRAY_HEADER_SOURCE);
    // A 3×4×5 float32 array of values 0..59 in host memory; the program reads records (the view's bytes with the
    // data pointer replaced by a byte offset into that memory) and prints every element three ways.
    writeFileSync(
      join(dir, "main.cpp"),
      `#include <cuda_ts/array.h>
#include <cstdio>
#include <cstring>
static_assert(sizeof(cuda_ts::Array<float, 0>) == 16, "rank 0");
static_assert(sizeof(cuda_ts::Array<float, 1>) == 32, "rank 1");
static_assert(sizeof(cuda_ts::Array<double, 2>) == 48, "rank 2");
static_assert(sizeof(cuda_ts::Array<char, 3>) == 64, "rank 3");
static_assert(sizeof(cuda_ts::Array<short, 4>) == 80, "rank 4");
static_assert(sizeof(cuda_ts::CArray<float, 2, true>) == 48, "CArray");
float mem[60];
template <int N> void show(FILE* f) {
  unsigned char bytes[16 + 16 * N];
  if (fread(bytes, 1, sizeof bytes, f) != sizeof bytes) return;
  cuda_ts::Array<const float, N> a;
  memcpy(&a, bytes, sizeof a);
  a.data_ = mem + reinterpret_cast<unsigned long long>(a.data_) / sizeof(float);
  for (long long i = 0; i < a.size(); i++) {
    long long idx[N > 0 ? N : 1];
    long long r = i;
    if constexpr (N > 0) for (int d = N - 1; d >= 0; d--) { idx[d] = r % a.shape(d); r /= a.shape(d); }
    float x = a[i], y;
    if constexpr (N == 0) y = a(); else if constexpr (N == 1) y = a(idx[0]); else if constexpr (N == 2) y = a(idx[0], idx[1]);
    else y = a(idx[0], idx[1], idx[2]);
    float z = x;
    if constexpr (N > 0) z = a[idx];
    printf("%g %g %g\\n", x, y, z);
  }
}
int main(int argc, char** argv) {
  for (int i = 0; i < 60; i++) mem[i] = (float)i;
  FILE* f = fopen(argv[1], "rb");
  int n;
  while (fread(&n, sizeof n, 1, f) == 1) {
    if (n == 0) show<0>(f); else if (n == 1) show<1>(f); else if (n == 2) show<2>(f); else show<3>(f);
    printf("--\\n");
  }
}
`,
    );
    const c = spawnSync(gpp, ["-std=c++17", "-Wall", "-Werror", "-Wno-unknown-pragmas", "-D__host__=", "-D__device__=", `-I${dir}`, "-o", join(dir, "main"), join(dir, "main.cpp")], { encoding: "utf8" });
    expect(c.stderr).toBe("");
    expect(c.status).toBe(0);
    // Views over an array at "address" 0 (the program adds its own memory), each with the values expected here.
    const base = DeviceArray.fromBuffer(Buffer.fromHandle(0n, 240, { owner: {} }), { dtype: "float32", shape: [3, 4, 5] });
    const views: { v: ArrayView; shape: number[]; at: (idx: number[]) => number }[] = [];
    const add = (v: ArrayView, at: (idx: number[]) => number): void => void views.push({ v, shape: [...v.shape], at });
    add(arrayView(base), ([i, j, k]) => i! * 20 + j! * 5 + k!);
    add(arrayView(base.transpose(2, 0, 1)), ([k, i, j]) => i! * 20 + j! * 5 + k!);
    add(arrayView(base.slice([null, null, -1], [1, 4, 2], [0, 5, 3])), ([i, j, k]) => (2 - i!) * 20 + (1 + 2 * j!) * 5 + 3 * k!);
    add(arrayView(base.slice(1, 2)), ([k]) => 20 + 10 + k!);
    add(arrayView(base.slice(2, 3, 4)), () => 59);
    add(arrayView(base.slice(0, 0), { broadcastTo: [3, 5] }), ([, k]) => k!);
    add(arrayView(base.slice(null, 1, [0, 1]), { broadcastTo: [3, 2] }), ([i]) => i! * 20 + 5);
    const chunks: Uint8Array[] = [];
    for (const { v } of views) {
      chunks.push(new Uint8Array(Int32Array.of(v.ndim).buffer), v.toBytes());
    }
    const input = join(dir, "views.bin");
    writeFileSync(input, concat(chunks));
    const r = spawnSync(join(dir, "main"), [input], { encoding: "utf8" });
    expect(r.status).toBe(0);
    const blocks = r.stdout.split("--\n").slice(0, -1);
    expect(blocks.length).toBe(views.length);
    views.forEach(({ shape, at }, n) => {
      const size = shape.reduce((a, b) => a * b, 1);
      const expected: string[] = [];
      for (let i = 0; i < size; i++) {
        const idx: number[] = [];
        let rest = i;
        for (let d = shape.length - 1; d >= 0; d--) {
          idx[d] = rest % shape[d]!;
          rest = Math.floor(rest / shape[d]!);
        }
        const x = at(idx);
        expected.push(`${x} ${x} ${x}\n`);
      }
      expect(blocks[n]).toBe(expected.join(""));
    });
  });
});

function concat(chunks: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.byteLength, 0));
  let o = 0;
  for (const c of chunks) {
    out.set(c, o);
    o += c.byteLength;
  }
  return out;
}
