/**
 * The elementwise operations of cuda-ts/array without a GPU: result dtypes of every operation over every pair of
 * NumPy's dtypes (and with each kind of weak scalar) against what NumPy decided (fixtures/elementwise-numpy.json,
 * written by fixtures/elementwise-numpy.py), bfloat16's rows, "same_kind" casting, the tables of docs/arrays.md, the
 * errors every call raises before it needs a stream, and the generated C++ (plausible, vectorised, one kernel per
 * signature).
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { Buffer, DeviceArray, dtypes, type DTypeName } from "../../../src/index.ts";
import * as ca from "../../../src/array.ts";
import { BroadcastError, DTypeError } from "../../../src/array.ts";
import { ArgumentError } from "../../../src/errors/base.ts";
import { canCastSameKind, promoteTypes, resultType } from "../../../src/core/array/promotion.ts";
import { BINARY_OPS } from "../../../src/core/array/ops/arithmetic.ts";
import { UNARY_OPS } from "../../../src/core/array/ops/math.ts";
import { castExpression, castKernelSource } from "../../../src/core/array/ops/cast.ts";
import {
  DTYPE_CODES,
  binaryKernel,
  binaryResultName,
  computeDType,
  kernelCache,
  resultDType,
  unaryKernel,
  unaryResultName,
} from "../../../src/core/array/ops/elementwise.ts";
import type { Binding } from "../../../src/core/kernels/params.ts";
import type { ElementwiseKernel } from "../../../src/core/kernels/elementwise.ts";
import { nvrtc } from "../../../src/bindings/nvrtc.ts";
import { Program } from "../../../src/core/program/program.ts";
import { pathfinder } from "../../../src/pathfinder/on-demand.ts";
import { generatedSection, promotionTable, unaryTable } from "./elementwise-tables.ts";
import { bundleKernels as bundle, nvccPresent, nvccProblems } from "../../support/nvcc.ts";

interface Fixture {
  numpy: string;
  codes: string;
  binary: Record<string, string[]>;
  binaryScalar: Record<string, Record<string, string>>;
  unary: Record<string, string>;
  sameKind: string[];
  promote: string[];
}
const fixture = JSON.parse(readFileSync(new URL("./fixtures/elementwise-numpy.json", import.meta.url), "utf8")) as Fixture;
const CODES = [...fixture.codes];
const NAME_CODE = Object.fromEntries(Object.entries(DTYPE_CODES).map(([c, n]) => [n, c])) as Record<DTypeName, string>;
const code = (n: DTypeName | undefined): string => (n === undefined ? "!" : n === "bfloat16" ? "bf16" : NAME_CODE[n]);
const SCALARS: Record<string, ca.ArrayScalar> = { bool: true, int: 1, float: 1.5, complex: [1, 1] };

/** Where cuda-ts decides otherwise than NumPy, on purpose: complex numbers are not ordered here. */
function deviation(op: string, a: DTypeName, b?: DTypeName | "scalar-complex"): string | undefined {
  const complex = dtypes[a].kind === "c" || (b !== undefined && (b === "scalar-complex" || dtypes[b].kind === "c"));
  if (complex && ["maximum", "minimum", "fmax", "fmin", "lt", "le", "gt", "ge"].includes(op)) return "!";
  return undefined;
}

describe("result dtypes against NumPy", () => {
  it(`the fixture comes from NumPy 2 (${fixture.numpy}) and covers every operation`, () => {
    expect(fixture.numpy.startsWith("2.")).toBe(true);
    expect(Object.keys(fixture.binary).sort()).toEqual(Object.keys(BINARY_OPS).sort());
    const unary = new Set([...Object.keys(UNARY_OPS), "round", "real", "imag"]);
    expect(Object.keys(fixture.unary).sort()).toEqual([...unary].sort());
  });

  it("binary operations, every pair of arrays", () => {
    const wrong: string[] = [];
    for (const [op, rows] of Object.entries(fixture.binary)) {
      const spec = BINARY_OPS[op as keyof typeof BINARY_OPS];
      CODES.forEach((ca_, i) => {
        CODES.forEach((cb, j) => {
          const a = DTYPE_CODES[ca_]!;
          const b = DTYPE_CODES[cb]!;
          const expected = deviation(op, a, b) ?? rows[i]![j]!;
          const got = code(binaryResultName(spec, a, b));
          if (got !== expected) wrong.push(`${op}(${a}, ${b}): ${got}, NumPy ${expected}`);
        });
      });
    }
    expect(wrong).toEqual([]);
  });

  it("binary operations with a weak scalar of each kind", () => {
    const wrong: string[] = [];
    for (const [op, kinds] of Object.entries(fixture.binaryScalar)) {
      const spec = BINARY_OPS[op as keyof typeof BINARY_OPS];
      for (const [kind, row] of Object.entries(kinds)) {
        CODES.forEach((c, i) => {
          const a = DTYPE_CODES[c]!;
          const expected = deviation(op, a, kind === "complex" ? "scalar-complex" : undefined) ?? row[i]!;
          const got = code(binaryResultName(spec, a, SCALARS[kind]!));
          if (got !== expected) wrong.push(`${op}(${a}, ${kind} scalar): ${got}, NumPy ${expected}`);
        });
      }
    }
    expect(wrong).toEqual([]);
  });

  it("unary operations, every dtype", () => {
    const wrong: string[] = [];
    for (const [op, row] of Object.entries(fixture.unary)) {
      CODES.forEach((c, i) => {
        const a = DTYPE_CODES[c]!;
        let got: DTypeName | undefined;
        if (op === "round") got = a === "bool" ? "float16" : a;
        else if (op === "real" || op === "imag") got = dtypes[a].kind === "c" ? (a === "complex64" ? "float32" : "float64") : a;
        else got = unaryResultName(UNARY_OPS[op as keyof typeof UNARY_OPS], a);
        if (code(got) !== row[i]) wrong.push(`${op}(${a}): ${code(got)}, NumPy ${row[i]}`);
      });
    }
    expect(wrong).toEqual([]);
  });

  it("bfloat16 follows float16's loops, promoted as ml_dtypes promotes it", () => {
    for (const [op, spec] of Object.entries(UNARY_OPS)) {
      const f16 = unaryResultName(spec, "float16");
      const bf16 = unaryResultName(spec, "bfloat16");
      expect(bf16, op).toBe(f16 === "float16" ? "bfloat16" : f16);
    }
    for (const [op, spec] of Object.entries(BINARY_OPS)) {
      expect(binaryResultName(spec, "bfloat16", "bfloat16"), op).toBe(binaryResultName(spec, "float16", "float16") === "float16" ? "bfloat16" : binaryResultName(spec, "float16", "float16"));
      // bfloat16 with anything else computes in what they promote to.
      for (const other of ["int8", "float16", "float32", "complex64"] as const) {
        const p = promoteTypes(dtypes.bfloat16, dtypes[other]).name;
        expect(binaryResultName(spec, "bfloat16", other), `${op}(bfloat16, ${other})`).toBe(binaryResultName(spec, p, p));
      }
      expect(binaryResultName(spec, "bfloat16", 2), `${op}(bfloat16, 2)`).toBe(binaryResultName(spec, "bfloat16", "bfloat16"));
    }
    expect(binaryResultName(BINARY_OPS.mul, "bfloat16", 0.5)).toBe("bfloat16");
    expect(binaryResultName(BINARY_OPS.div, "int8", "int8")).toBe("float64");
  });

  it('"same_kind" casting and promotion match NumPy', () => {
    CODES.forEach((a, i) =>
      CODES.forEach((b, j) => {
        const [da, db] = [dtypes[DTYPE_CODES[a]!], dtypes[DTYPE_CODES[b]!]];
        expect(canCastSameKind(da, db) ? "1" : "0", `${da.name} → ${db.name}`).toBe(fixture.sameKind[i]![j]);
        expect(code(promoteTypes(da, db).name), `${da.name} + ${db.name}`).toBe(fixture.promote[i]![j]);
      }),
    );
    expect(canCastSameKind(dtypes.bfloat16, dtypes.float16)).toBe(true);
    expect(canCastSameKind(dtypes.bfloat16, dtypes.int64)).toBe(false);
  });

  it("resultType of several dtypes is NumPy's, whatever their order", () => {
    // np.result_type: promotion is not associative, so the floats come first (int8, uint8, float16: float16).
    const cases: [DTypeName[], DTypeName][] = [
      [["int8", "uint8", "float16"], "float16"],
      [["float16", "int8", "int32"], "float64"],
      [["int16", "uint8", "float16"], "float32"],
      [["int8", "uint8", "int16"], "int16"],
      [["uint64", "int8", "float16"], "float64"],
      [["int8", "uint8", "bfloat16"], "bfloat16"],
    ];
    for (const [names, want] of cases) expect(resultType(names.map((n) => dtypes[n])).name, names.join(", ")).toBe(want);
    const all = Object.values(dtypes);
    for (const a of all) for (const b of all) for (const c of all) {
      const r = resultType([a, b, c]);
      expect([resultType([b, c, a]), resultType([c, a, b]), resultType([c, b, a])].every((x) => x === r), `${a.name}, ${b.name}, ${c.name}`).toBe(true);
    }
  });
});

describe("resultType with scalars (NumPy 2's weak scalars)", () => {
  it("lets the highest-kind scalar decide, whatever the order, before checking integer ranges", () => {
    expect(resultType([dtypes.int8, 1000, 1.5]).name).toBe("float64");
    expect(resultType([dtypes.int8, 1.5, 1000]).name).toBe("float64");
    expect(resultType([dtypes.uint8, -1, [0, 1]]).name).toBe("complex128");
    expect(resultType([dtypes.float16, 3, true]).name).toBe("float16");
    expect(() => resultType([dtypes.int8, 300, 2])).toThrow(/300 is outside the int8 range/);
    expect(() => resultType([dtypes.bool, 2n ** 70n])).toThrow(/outside the int64 range/);
  });

  it("reads integral numbers past any integer dtype as floats", () => {
    expect(resultType([dtypes.int8, 1e20]).name).toBe("float64");
    expect(resultType([dtypes.bool, 1e20]).name).toBe("float64");
    expect(resultType([dtypes.uint64, 2 ** 63]).name).toBe("uint64");
    expect(resultType([dtypes.int64, 2 ** 60]).name).toBe("int64");
  });

  it("gives NumPy's defaults for scalars alone, and takes dtype names", () => {
    expect(resultType([1]).name).toBe("int64");
    expect(resultType([1.5]).name).toBe("float64");
    expect(resultType([true]).name).toBe("bool");
    expect(resultType([[1, 0]]).name).toBe("complex128");
    expect(resultType([true, 1]).name).toBe("int64");
    expect(resultType([2n ** 63n]).name).toBe("uint64");
    expect(resultType(["float32", 1]).name).toBe("float32");
    expect(resultType([dtypes.int8, "float32"]).name).toBe("float32");
    expect(() => resultType([])).toThrow(DTypeError);
  });

  it("refuses what is no dtype, array or scalar", () => {
    expect(() => resultType([{ kind: "f", itemsize: 4 } as never, dtypes.int8])).toThrow(DTypeError);
    expect(() => resultType(["float8" as never])).toThrow(/expected a dtype/);
    expect(() => resultType([dtypes.int8, "1" as never])).toThrow(DTypeError);
    expect(promoteTypes("int8", "float32").name).toBe("float32");
    expect(() => promoteTypes(undefined as never, dtypes.int8)).toThrow(/expected a dtype/);
  });
});

describe("docs/arrays.md", () => {
  const doc = readFileSync(new URL("../../../docs/arrays.md", import.meta.url), "utf8");

  it("has the promotion table promoteTypes gives (regenerate: bun test/core/array/elementwise-tables.ts)", () => {
    expect(generatedSection(doc, "promotion-table")).toBe(promotionTable());
  });

  it("has the unary result dtypes the operations give", () => {
    expect(generatedSection(doc, "unary-table")).toBe(unaryTable());
  });

  it("names every elementwise function it documents, and every exported one", () => {
    for (const name of [...Object.keys(BINARY_OPS), ...Object.keys(UNARY_OPS), "isclose", "where", "clip", "astype", "round", "real", "imag"]) {
      expect(typeof (ca as Record<string, unknown>)[name], name).toBe("function");
      expect(new RegExp(`\`${name}[\`(]`).test(doc), name).toBe(true);
    }
  });
});

// ---- calls without a GPU: arrays over a stand-in buffer, made without a stream ----

const BASE = 0x7f00_0000_0000n;
function arr<N extends DTypeName>(dtype: N, shape: number[]): DeviceArray<N> {
  const buffer = Buffer.fromHandle(BASE, 1 << 16, { owner: {} });
  return DeviceArray.fromBuffer(buffer, { dtype, shape });
}

/** A call whose checks all pass reaches the stream: with none to be had, an ArgumentError saying so. */
const NEEDS_STREAM = /needs a stream/;

describe("checks before anything reaches a stream", () => {
  it("shapes that do not broadcast: BroadcastError naming both shapes", () => {
    const a = arr("float32", [3, 4]);
    const b = arr("float32", [5]);
    expect(() => ca.add(a, b)).toThrow(BroadcastError);
    expect(() => ca.add(a, b)).toThrow(/\[3, 4\][\s\S]*\[5\]|\[5\][\s\S]*\[3, 4\]/);
    expect(() => a.mul(b)).toThrow(BroadcastError);
    expect(() => ca.where(arr("bool", [2]), a, 0)).toThrow(BroadcastError);
    expect(() => ca.add(arr("float32", [3, 1]), arr("float32", [4]))).toThrow(NEEDS_STREAM);
  });

  it("out: the broadcast shape exactly, a dtype the result casts to (same_kind)", () => {
    const a = arr("float32", [3, 1]);
    const b = arr("float32", [4]);
    expect(() => ca.add(a, b, { out: arr("float32", [4]) })).toThrow(BroadcastError);
    expect(() => ca.add(a, b, { out: arr("float32", [1, 3, 4]) })).toThrow(BroadcastError);
    expect(() => ca.add(a, b, { out: arr("int32", [3, 4]) })).toThrow(DTypeError);
    expect(() => ca.add(a, b, { out: arr("float16", [3, 4]) })).toThrow(NEEDS_STREAM); // same kind, narrower: allowed
    expect(() => ca.add(a, b, { out: arr("complex64", [3, 4]) })).toThrow(NEEDS_STREAM);
    const i8 = arr("int8", [4]);
    expect(() => ca.add(i8, 1, { out: arr("uint8", [4]) })).toThrow(DTypeError);
    expect(() => ca.add(i8, 1, { out: i8 })).toThrow(NEEDS_STREAM);
    expect(() => ca.lt(i8, 1, { out: arr("float32", [4]) })).toThrow(NEEDS_STREAM); // bool goes anywhere
    expect(() => ca.sqrt(i8, { out: arr("int8", [4]) })).toThrow(DTypeError);
    expect(() => ca.add(a, b, { out: new Float32Array(12) as unknown as DeviceArray })).toThrow(TypeError);
    // A broadcast view repeats its elements: as an out, each would be written from several threads.
    expect(() => ca.add(a, b, { out: ca.broadcastTo(arr("float32", [4]), [3, 4]) })).toThrow(/add: out: the float32 array of shape \[3, 4\] repeats its elements/);
  });

  it("dtypes without a loop: DTypeError", () => {
    const f = arr("float32", [4]);
    const c = arr("complex64", [4]);
    const b = arr("bool", [4]);
    expect(() => ca.bitwiseAnd(f, f)).toThrow(DTypeError);
    expect(() => ca.invert(f)).toThrow(DTypeError);
    expect(() => ca.leftShift(arr("int64", [4]), arr("uint64", [4]))).toThrow(DTypeError);
    expect(() => ca.lt(c, c)).toThrow(/not ordered/);
    expect(() => ca.maximum(c, 1)).toThrow(DTypeError);
    expect(() => ca.floorDiv(c, 2)).toThrow(DTypeError);
    expect(() => ca.sub(b, b)).toThrow(DTypeError);
    expect(() => ca.neg(b)).toThrow(DTypeError);
    expect(() => ca.floor(c)).toThrow(DTypeError);
    expect(() => ca.clip(c, 0, 1)).toThrow(DTypeError);
    expect(() => ca.eq(c, c)).toThrow(NEEDS_STREAM);
    expect(() => ca.pow(arr("int32", [4]), -1)).toThrow(DTypeError);
  });

  it("weak scalars: out of an integer array's range is a DTypeError; comparisons take it exactly", () => {
    const i8 = arr("int8", [4]);
    expect(() => ca.add(i8, 1000)).toThrow(DTypeError);
    expect(() => ca.add(arr("uint8", [4]), -1)).toThrow(DTypeError);
    expect(() => ca.lt(i8, 1000)).toThrow(NEEDS_STREAM);
    expect(() => ca.gt(arr("uint64", [4]), -1)).toThrow(NEEDS_STREAM);
    expect(() => ca.add(1, 2 as unknown as DeviceArray)).toThrow(DTypeError);
    expect(() => ca.add(i8, "1" as unknown as number)).toThrow(TypeError);
    expect(() => ca.add(i8, [1, 2, 3] as unknown as number)).toThrow(TypeError);
  });

  it("a closed array, wrong arguments", () => {
    const a = arr("float32", [4]);
    a.close();
    expect(() => ca.exp(a, { stream: undefined })).toThrow();
    expect(() => ca.exp(new Float32Array(4) as unknown as DeviceArray)).toThrow(TypeError);
    expect(() => ca.astype(arr("float32", [4]), "float17" as DTypeName)).toThrow(DTypeError);
    expect(() => ca.round(arr("float32", [4]), { decimals: 1.5 })).toThrow(TypeError);
    expect(() => ca.isclose(arr("float32", [4]), 1, { rtol: "1" as unknown as number })).toThrow(TypeError);
  });

  it("astype with copy: false returns the array itself; real of a complex array is a strided view", () => {
    const a = arr("float32", [4]);
    expect(ca.astype(a, "float32", { copy: false })).toBe(a);
    expect(a.astype("float32", { copy: false })).toBe(a);
    expect(() => ca.astype(a, "float16")).toThrow(NEEDS_STREAM);
    const z = arr("complex64", [3, 4]);
    const re = ca.real(z);
    const im = ca.imag(z);
    expect([re.dtype.name, re.shape, re.strides, re.address]).toEqual(["float32", [3, 4], [8, 2], z.address]);
    expect([im.dtype.name, im.strides, im.address]).toEqual(["float32", [8, 2], z.address + 4n]);
    expect(ca.real(a).address).toBe(a.address);
    const t = ca.real(z.T);
    expect([t.shape, t.strides]).toEqual([[4, 3], [2, 8]]);
  });

  it("nanToNum: integer arrays as they are with copy: false, options and out checked before the stream", () => {
    const i = arr("int32", [4]);
    expect(ca.nanToNum(i, { copy: false })).toBe(i);
    expect(() => ca.nanToNum(i)).toThrow(NEEDS_STREAM); // a copy
    const f = arr("float32", [2, 3]);
    expect(() => ca.nanToNum(f)).toThrow(NEEDS_STREAM);
    expect(() => ca.nanToNum(f, { copy: false, nan: -1, posinf: 9, neginf: -9 })).toThrow(NEEDS_STREAM);
    expect(() => ca.nanToNum(f, { out: arr("float64", [2, 3]) })).toThrow(NEEDS_STREAM);
    expect(() => ca.nanToNum(f, { copy: false, out: f })).toThrow(NEEDS_STREAM); // out is a itself: in place
    expect(() => ca.nanToNum(arr("complex64", [3]), { out: arr("complex128", [3]) })).toThrow(NEEDS_STREAM);
    expect(() => ca.nanToNum(f, { out: arr("float32", [3, 2]) })).toThrow(BroadcastError);
    expect(() => ca.nanToNum(f, { out: arr("int32", [2, 3]) })).toThrow(DTypeError);
    expect(() => ca.nanToNum(arr("complex64", [3]), { out: arr("float32", [3]) })).toThrow(/the result is complex64/);
    expect(() => ca.nanToNum(f, { copy: false, out: arr("float32", [2, 3]) })).toThrow(ArgumentError);
    expect(() => ca.nanToNum(f, { copy: false, out: arr("float32", [2, 3]) })).toThrow(/pass out, or copy: false, not both/);
    expect(() => ca.nanToNum(f, { nan: "0" as unknown as number })).toThrow(TypeError);
    expect(() => ca.nanToNum(f, { posinf: 1n as unknown as number })).toThrow(/posinf is a number/);
    expect(() => ca.nanToNum(f, { copy: 0 as unknown as boolean })).toThrow(/copy is a boolean/);
    expect(() => ca.nanToNum(f, 3 as unknown as ca.NanToNumOptions)).toThrow(TypeError);
    expect(() => ca.nanToNum([1, 2] as unknown as DeviceArray)).toThrow(/nanToNum takes a DeviceArray/);
    const r = DeviceArray.fromBuffer(Buffer.fromHandle(BASE, 1 << 16, { owner: {} }), { dtype: "float32", shape: [4], readOnly: true });
    expect(() => ca.nanToNum(r, { copy: false })).toThrow(/read-only|readOnly/i);
  });

  it("methods are registered and reach the same checks", () => {
    const a = arr("int8", [2, 3]);
    for (const m of ["add", "sub", "mul", "div", "floorDiv", "mod", "pow", "maximum", "minimum", "eq", "ne", "lt", "le", "gt", "ge"] as const) {
      expect(() => a[m](1), m).toThrow(NEEDS_STREAM);
      expect(() => a[m](arr("int8", [4])), m).toThrow(BroadcastError);
    }
    expect(() => a.neg()).toThrow(NEEDS_STREAM);
    expect(() => a.abs()).toThrow(NEEDS_STREAM);
    expect(() => a.clip(0, null)).toThrow(NEEDS_STREAM);
    expect(() => a.clip(null, arr("int8", [4]))).toThrow(BroadcastError);
    expect(() => a.astype("float32")).toThrow(NEEDS_STREAM);
    expect(() => a.add(1, { stream: undefined })).toThrow(ArgumentError);
  });
});

// ---- generated source ----

function balanced(src: string): boolean {
  const pairs: Record<string, string> = { ")": "(", "]": "[", "}": "{" };
  const stack: string[] = [];
  for (const ch of src.replace(/"[^"\n]*"/g, "")) {
    if ("([{".includes(ch)) stack.push(ch);
    else if (ch in pairs) {
      if (stack.pop() !== pairs[ch]) return false;
    }
  }
  return stack.length === 0;
}

function binding(list: DTypeName[], scalar: boolean[]): Binding {
  return { types: new Map(), dtypes: list.map((n) => dtypes[n]), scalar, shape: [1], key: "" };
}

describe("generated kernels", () => {
  it("every conversion between the 15 dtypes: plausible C++ with the right intrinsics", () => {
    const names = Object.keys(dtypes) as DTypeName[];
    for (const from of names) {
      for (const to of names) {
        if (from === to) continue;
        const src = castKernelSource(from, to);
        expect(balanced(src), `${from} → ${to}`).toBe(true);
        if (dtypes[from].itemsize <= 8 && dtypes[to].itemsize <= 8) expect(src).toContain(`cuda_ts_astype_${from}_${to}_vec`);
        if (from === "float16" || to === "float16") expect(src).toContain("#include <cuda_fp16.h>");
        if (from === "bfloat16" || to === "bfloat16") expect(src).toContain("#include <cuda_bf16.h>");
        if (dtypes[from].kind === "c" || dtypes[to].kind === "c") expect(src).toContain("#include <cuda/std/complex>");
        // Written without reading the old output: a copy's bandwidth.
        expect(src, `${from} → ${to}`).not.toMatch(/_pk_z _o0_z = /);
      }
    }
    expect(castExpression("x", dtypes.float64, dtypes.float16)).toBe("__double2half(x)");
    expect(castExpression("x", dtypes.int64, dtypes.bfloat16)).toBe("__ll2bfloat16_rn(x)");
    expect(castExpression("x", dtypes.float32, dtypes.uint8)).toBe("(unsigned char)(long long)(x)");
    expect(castExpression("x", dtypes.complex64, dtypes.int32)).toBe("(int)(long long)((x).real())");
    expect(castExpression("x", dtypes.complex128, dtypes.bool)).toBe("((x).real() != 0 || (x).imag() != 0)");
    expect(castExpression("x", dtypes.float16, dtypes.bfloat16)).toBe("__float2bfloat16_rn(__half2float(x))");
    expect(castExpression("x", dtypes.int8, dtypes.complex128)).toBe("cuda::std::complex<double>((double)(x))");
  });

  it("every binary operation and unary operation over several dtypes: plausible, vectorised, write-only", () => {
    const samples: DTypeName[] = ["bool", "int8", "uint16", "int32", "uint64", "float16", "bfloat16", "float32", "float64", "complex64", "complex128"];
    let count = 0;
    for (const spec of Object.values(BINARY_OPS)) {
      for (const d of samples) {
        let c;
        try {
          c = computeDType(spec, dtypes[d]);
        } catch {
          continue;
        }
        const r = resultDType(spec, c);
        for (const scalar of [false, true]) {
          const k = binaryKernel(spec, dtypes[d], scalar ? c : dtypes[d], c, r, r);
          const src = k.source(binding([d, scalar ? c.name : d, r.name], [false, scalar, false]));
          expect(balanced(src), `${spec.name}(${d})`).toBe(true);
          expect(src).toContain(`extern "C" __global__ void ${k.name}(`);
          if (dtypes[d].itemsize <= 8 && r.itemsize <= 8) {
            expect(src, `${spec.name}(${d}) vectorised`).toContain(`${k.name}_vec`);
            expect(src, `${spec.name}(${d}) writes without reading`).not.toMatch(/_pk_z _o0_z = /);
          }
          count++;
        }
      }
    }
    for (const spec of Object.values(UNARY_OPS)) {
      for (const d of samples) {
        let c;
        try {
          c = computeDType(spec, dtypes[d]);
        } catch {
          continue;
        }
        const r = resultDType(spec, c);
        const k = unaryKernel(spec, dtypes[d], c, r, r);
        const src = k.source(binding([d, r.name], [false, false]));
        expect(balanced(src), `${spec.name}(${d})`).toBe(true);
        if (dtypes[d].itemsize <= 8 && r.itemsize <= 8) expect(src, `${spec.name}(${d})`).not.toMatch(/_pk_z _o0_z = /);
        count++;
      }
    }
    expect(count).toBeGreaterThan(500);
  });

  it("float16 computes in float32 and rounds once; integers wrap through unsigned arithmetic", () => {
    const add16 = binaryKernel(BINARY_OPS.add, dtypes.float16, dtypes.float16, dtypes.float16, dtypes.float16, dtypes.float16);
    expect(add16.operation).toBe("const float _ca = __half2float(x); const float _cb = __half2float(y); z = __float2half_rn((_ca + _cb))");
    const add8 = binaryKernel(BINARY_OPS.add, dtypes.int8, dtypes.int8, dtypes.int8, dtypes.int8, dtypes.int8);
    expect(add8.operation).toBe("const signed char _ca = x; const signed char _cb = y; z = (signed char)((unsigned int)_ca + (unsigned int)_cb)");
    const exp8 = unaryKernel(UNARY_OPS.exp, dtypes.int8, dtypes.float16, dtypes.float16, dtypes.float32);
    expect(exp8.operation).toBe("const float _ca = (float)(x); z = _ct_round_f16(expf(_ca))");
    const absc = unaryKernel(UNARY_OPS.abs, dtypes.complex64, dtypes.complex64, dtypes.float32, dtypes.float32);
    expect(absc.operation).toBe("const cuda::std::complex<float> _ca = x; z = cuda::std::abs(_ca)");
  });

  it("one kernel object per operation and signature, found again by a short key", () => {
    const before = kernelCache().size;
    const a = binaryKernel(BINARY_OPS.mul, dtypes.float32, dtypes.float32, dtypes.float32, dtypes.float32, dtypes.float32);
    const b = binaryKernel(BINARY_OPS.mul, dtypes.float32, dtypes.float32, dtypes.float32, dtypes.float32, dtypes.float32);
    expect(a).toBe(b);
    expect(kernelCache().size).toBeLessThanOrEqual(before + 1);
    expect([...kernelCache().keys()].every((k) => k.length < 80)).toBe(true);
  });
});

// ---- the generated C++ through NVRTC, where this machine has it (no GPU needed) ----

const nvrtcPresent = ((): boolean => {
  try {
    nvrtc.load();
    return true;
  } catch {
    return false;
  }
})();

/** The toolkit's header directories (cuda_fp16.h; CCCL's cuda/std/complex), or undefined where they are not found. */
function headerDirs(): string[] | undefined {
  try {
    return [pathfinder().findNvidiaHeaderDirectory("cudart").path, pathfinder().findNvidiaHeaderDirectory("cccl").path];
  } catch {
    return undefined;
  }
}

/** The source of a kernel of the cache with every input an array, or with its second input a scalar. */
function sourceOf(k: ElementwiseKernel, scalarSecond: boolean): string {
  const list = k.params.map((p) => dtypes[p.type as DTypeName]);
  const fixedScalars = new Set(["rtol", "atol", "f", "m"]);
  return k.source(binding(list.map((d) => d.name), k.params.map((p, i) => fixedScalars.has(p.name) || (scalarSecond && i === 1 && !p.output))));
}

/** NVRTC with the toolkit's headers where this machine has them, else nvcc (which finds its own), else neither. */
const compiler = nvrtcPresent && headerDirs() !== undefined ? "NVRTC" : nvccPresent ? "nvcc" : undefined;

describe.skipIf(compiler === undefined)(`generated kernels compile with ${compiler ?? "NVRTC or nvcc"}${compiler === undefined ? " [skipped: no NVRTC with toolkit headers, no nvcc here]" : ""}`, () => {
  it("every operation over six dtypes, casts from seven dtypes to every other", () => {
    const names = Object.keys(dtypes) as DTypeName[];
    const sample: DTypeName[] = ["int8", "uint64", "float16", "bfloat16", "float64", "complex64"];
    const sources: string[] = [];
    for (const d of sample) {
      for (const spec of Object.values(BINARY_OPS)) {
        try {
          const c = computeDType(spec, dtypes[d]);
          const k = binaryKernel(spec, dtypes[d], dtypes[d], c, resultDType(spec, c), resultDType(spec, c));
          sources.push(sourceOf(k, false));
          if (d === "float16") sources.push(sourceOf(k, true));
        } catch {
          // no loop for d
        }
      }
      for (const spec of Object.values(UNARY_OPS)) {
        try {
          const c = computeDType(spec, dtypes[d]);
          sources.push(sourceOf(unaryKernel(spec, dtypes[d], c, resultDType(spec, c), d === "int8" ? dtypes.float32 : resultDType(spec, c)), false));
        } catch {
          // no loop for d
        }
      }
    }
    for (const from of ["bool", "int8", "uint64", "float16", "bfloat16", "float32", "complex64"] as const) for (const to of names) if (from !== to) sources.push(castKernelSource(from, to));
    const groups = new Map<string, string[]>();
    for (const src of sources) {
      const key = src.includes("cuda/std/complex") ? "complex" : "real";
      groups.set(key, [...(groups.get(key) ?? []), src]);
    }
    if (compiler === "nvcc") {
      // nvcc warns of variables a generated kernel does not read (a constant result): only errors count here.
      expect(nvccProblems(Object.fromEntries([...groups].map(([key, list]) => [`elementwise-${key}`, bundle(list)])), { ptx: true, warnings: false })).toEqual([]);
      expect(sources.length).toBeGreaterThan(400);
      return;
    }
    const includePath = headerDirs()!;
    for (const [key, list] of groups) {
      const program = new Program(bundle(list), "c++", { arch: "compute_90", std: "c++17", includePath, name: `elementwise-${key}.cu` });
      try {
        const ptx = program.compile("ptx");
        expect(ptx.code.byteLength, key).toBeGreaterThan(0);
      } catch (e) {
        throw new Error(`${key} kernels: ${String(e).slice(0, 4000)}`);
      } finally {
        program.close();
      }
    }
    expect(sources.length).toBeGreaterThan(400);
  }, 600_000);

  it("kernels computing in float16 without a float16 argument compile without the fp16 header", () => {
    // int8 operands compute in float16 (NumPy's loop); written into float32, no argument is half, so no kernel
    // includes cuda_fp16.h: their device helpers must do without it.
    const sources: string[] = [];
    const int8 = dtypes.int8;
    for (const spec of Object.values(BINARY_OPS)) {
      const c = computeDType(spec, int8);
      if (c.name !== "float16") continue;
      const r = resultDType(spec, c);
      sources.push(sourceOf(binaryKernel(spec, int8, int8, c, r, r.kind === "b" ? r : dtypes.float32), false));
    }
    for (const spec of Object.values(UNARY_OPS)) {
      try {
        const c = computeDType(spec, int8);
        const r = resultDType(spec, c);
        if (c.name === "float16") sources.push(sourceOf(unaryKernel(spec, int8, c, r, r.kind === "b" ? r : dtypes.float32), false));
      } catch {
        // no loop for int8
      }
    }
    expect(sources.length).toBeGreaterThan(20);
    const unit = bundle(sources);
    expect(unit).not.toContain("cuda_fp16");
    if (compiler === "nvcc") {
      expect(nvccProblems({ "elementwise-half-no-header": unit }, { ptx: true, warnings: false })).toEqual([]);
      return;
    }
    const program = new Program(unit, "c++", { arch: "compute_90", std: "c++17", includePath: headerDirs()!, name: "elementwise-half-no-header.cu" });
    try {
      expect(program.compile("ptx").code.byteLength).toBeGreaterThan(0);
    } finally {
      program.close();
    }
  }, 600_000);
});
