/**
 * The elementwise operations of cuda-ts/array on a real GPU: every case of fixtures/elementwise-numpy.json (NumPy's
 * outputs for small inputs: integer semantics, weak scalars, NaN rules, float16, complex, bool, astype between every
 * pair of NumPy's dtypes) and, computed here in TypeScript, bfloat16, the inverse functions, broadcasting ([3, 1] with
 * [4], a row over a matrix), strided views, `out` (another dtype, in place, aliasing in another layout), where, clip,
 * method chains and arrays large enough for the vectorised path. Skips without a GPU.
 *
 * Many kernels compile here (one per operation and dtype signature): the tests have long timeouts.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { DeviceArray, decodeBFloat16, decodeHalf, encodeBFloat16, encodeHalf, type DTypeName, type Stream } from "../../../src/index.ts";
import * as ca from "../../../src/array.ts";
import { gpu, skipNote } from "../../support/gpu.ts";
import { onGpuStream } from "../../support/gpu-arrays.ts";

interface ArrayDesc {
  dtype: DTypeName;
  shape: number[];
  data: Json[];
}
type Json = number | string | boolean | Json[];
interface Case {
  op: string;
  inputs: (ArrayDesc | { scalar: Json })[];
  options: Record<string, Json>;
  expected: ArrayDesc;
}
const fixture = JSON.parse(readFileSync(new URL("./fixtures/elementwise-numpy.json", import.meta.url), "utf8")) as { values: Case[] };

const LONG = 600_000;

/** A fixture number: NaN and infinities come as strings, big integers too. */
function num(v: Json): number {
  if (v === "nan") return NaN;
  if (v === "inf") return Infinity;
  if (v === "-inf") return -Infinity;
  if (typeof v === "boolean") return v ? 1 : 0;
  return Number(v);
}

/** A host typed array holding `data` as `dtype`. */
function hostOf(dtype: DTypeName, data: readonly Json[]): ca.DType["hostArray"]["prototype"] {
  switch (dtype) {
    case "bool":
      return Uint8Array.from(data, (v) => (v === true || num(v) !== 0 ? 1 : 0));
    case "int8":
      return Int8Array.from(data, num);
    case "uint8":
      return Uint8Array.from(data, num);
    case "int16":
      return Int16Array.from(data, num);
    case "uint16":
      return Uint16Array.from(data, num);
    case "int32":
      return Int32Array.from(data, num);
    case "uint32":
      return Uint32Array.from(data, num);
    case "int64":
      return BigInt64Array.from(data, (v) => BigInt(v as number | string));
    case "uint64":
      return BigUint64Array.from(data, (v) => BigInt(v as number | string));
    case "float16":
      return Uint16Array.from(data, (v) => encodeHalf(num(v)));
    case "bfloat16":
      return Uint16Array.from(data, (v) => encodeBFloat16(num(v)));
    case "float32":
      return Float32Array.from(data, num);
    case "float64":
      return Float64Array.from(data, num);
    case "complex64":
      return Float32Array.from(data.flatMap((v) => (Array.isArray(v) ? v.map(num) : [num(v), 0])));
    case "complex128":
      return Float64Array.from(data.flatMap((v) => (Array.isArray(v) ? v.map(num) : [num(v), 0])));
  }
}

/** The elements of an array as numbers (bigints for 64-bit integers; [re, im] for complex), row-major. */
function valuesOf(a: DeviceArray, stream: Stream): (number | bigint | [number, number])[] {
  const host = a.toTypedArraySync({ stream }) as ArrayLike<number | bigint>;
  const out: (number | bigint | [number, number])[] = [];
  const n = a.size;
  for (let i = 0; i < n; i++) {
    switch (a.dtype.name) {
      case "float16":
        out.push(decodeHalf(host[i] as number));
        break;
      case "bfloat16":
        out.push(decodeBFloat16(host[i] as number));
        break;
      case "complex64":
      case "complex128":
        out.push([host[2 * i] as number, host[2 * i + 1] as number]);
        break;
      default:
        out.push(host[i]!);
    }
  }
  return out;
}

/** Relative tolerances by dtype (transcendental functions differ by an ulp or two between libraries). */
const TOL: Partial<Record<DTypeName, number>> = { float16: 2e-3, bfloat16: 1.6e-2, float32: 5e-6, complex64: 5e-6, float64: 1e-12, complex128: 1e-12 };

function closeTo(got: number, want: number, tol: number, scale: number): boolean {
  if (Number.isNaN(want)) return Number.isNaN(got);
  if (!Number.isFinite(want)) return got === want;
  return Math.abs(got - want) <= tol * Math.max(Math.abs(want), scale);
}

/** Operations whose results are exact in every dtype, zeros' signs included (a step of one unit in the last place is the whole answer). */
const EXACT_OPS = new Set(["nextafter", "spacing"]);

/** Mismatches between an array and expected values (exact for integers, bool and {@link EXACT_OPS}). */
function mismatches(label: string, a: DeviceArray, expected: ArrayDesc, stream: Stream, exact = false): string[] {
  const bad: string[] = [];
  if (a.dtype.name !== expected.dtype) return [`${label}: dtype ${a.dtype.name}, NumPy ${expected.dtype}`];
  if (a.shape.join() !== expected.shape.join()) return [`${label}: shape [${a.shape.join(", ")}], NumPy [${expected.shape.join(", ")}]`];
  const got = valuesOf(a, stream);
  const tol = exact ? 0 : (TOL[a.dtype.name] ?? 0);
  expected.data.forEach((w, i) => {
    const g = got[i]!;
    let ok: boolean;
    if (Array.isArray(w)) {
      const [gr, gi] = g as [number, number];
      const scale = Math.max(Math.abs(num(w[0]!)), Math.abs(num(w[1]!)), 1);
      ok = closeTo(gr, num(w[0]!), tol, scale) && closeTo(gi, num(w[1]!), tol, scale);
    } else if (typeof g === "bigint") ok = g === BigInt(typeof w === "boolean" ? (w ? 1 : 0) : (w as number | string));
    else if (exact) ok = Object.is(g, num(w)); // zeros' signs count
    else if (tol === 0) ok = g === num(w) || (Number.isNaN(g) && Number.isNaN(num(w)));
    else ok = closeTo(g as number, num(w), tol, 1);
    if (!ok) bad.push(`${label}[${i}]: ${JSON.stringify(typeof g === "bigint" ? String(g) : g)}, NumPy ${JSON.stringify(w)}`);
  });
  return bad;
}

type AnyOp = (...args: unknown[]) => DeviceArray;

describe.skipIf(!gpu.available)(`elementwise operations on a GPU${skipNote}`, () => {
  let stream: Stream;
  onGpuStream((s) => (stream = s));

  const upload = (d: ArrayDesc): DeviceArray => DeviceArray.from(hostOf(d.dtype, d.data), { stream, dtype: d.dtype, shape: d.shape });

  /** Runs one fixture case; its mismatches. */
  function runCase(c: Case, k: number): string[] {
    const inputs = c.inputs.map((x) => ("scalar" in x ? (Array.isArray(x.scalar) ? (x.scalar.map(num) as [number, number]) : typeof x.scalar === "boolean" ? x.scalar : num(x.scalar)) : upload(x)));
    const label = `#${k} ${c.op}(${c.inputs.map((x) => ("scalar" in x ? JSON.stringify(x.scalar) : x.dtype)).join(", ")}${Object.keys(c.options).length ? `, ${JSON.stringify(c.options)}` : ""})`;
    let result: DeviceArray;
    if (c.op === "astype") result = ca.astype(inputs[0] as DeviceArray, c.options.dtype as DTypeName);
    else if (c.op === "round") result = ca.round(inputs[0] as DeviceArray, c.options as { decimals?: number });
    else if (c.op === "isclose") result = ca.isclose(inputs[0]!, inputs[1]!, c.options as ca.IsCloseOptions);
    else if (c.op === "real" || c.op === "imag") result = ca[c.op](inputs[0] as DeviceArray);
    else {
      const f = (ca as unknown as Record<string, AnyOp>)[c.op];
      if (f === undefined) return [`${label}: no such function`];
      result = f(...inputs);
    }
    try {
      return mismatches(label, result, c.expected, stream, EXACT_OPS.has(c.op));
    } finally {
      for (const x of inputs) if (x instanceof DeviceArray) x.close();
      if (!inputs.includes(result)) result.close();
    }
  }

  it(
    "NumPy's values: arithmetic, comparisons, math, rounding, complex, bool",
    () => {
      const bad: string[] = [];
      fixture.values.forEach((c, k) => {
        if (c.op !== "astype") bad.push(...runCase(c, k));
      });
      expect(bad).toEqual([]);
    },
    LONG,
  );

  it(
    "NumPy's values: astype between every pair of NumPy's dtypes",
    () => {
      const bad: string[] = [];
      fixture.values.forEach((c, k) => {
        if (c.op === "astype") bad.push(...runCase(c, k));
      });
      expect(bad).toEqual([]);
    },
    LONG,
  );

  it("nextafter and spacing of bfloat16 step by a bfloat16's unit in the last place", () => {
    const bits = Uint16Array.from([1, -1, 0, 2, 100], encodeBFloat16);
    using a = DeviceArray.from(bits, { stream, dtype: "bfloat16" });
    using up = ca.nextafter(a, 1000);
    expect(up.dtype.name).toBe("bfloat16");
    expect(valuesOf(up, stream)).toEqual([1 + 2 ** -7, -1 + 2 ** -8, 2 ** -133, 2 + 2 ** -6, 100.5]);
    using down = ca.nextafter(a, -1000);
    expect(valuesOf(down, stream)).toEqual([1 - 2 ** -8, -1 - 2 ** -7, -(2 ** -133), 2 - 2 ** -7, 99.5]);
    using sp = ca.spacing(a);
    expect(valuesOf(sp, stream)).toEqual([2 ** -7, -(2 ** -7), 2 ** -133, 2 ** -6, 0.5]);
  });

  it(
    "bfloat16: computed in float32, rounded once; with weak scalars; astype both ways",
    () => {
      const xs = [0.5, 1.5, -2.25, 3, 100, 0.1];
      const bits = Uint16Array.from(xs, encodeBFloat16);
      const vals = Array.from(bits, decodeBFloat16);
      const bf = (v: number): number => decodeBFloat16(encodeBFloat16(v));
      using a = DeviceArray.from(bits, { stream, dtype: "bfloat16" });
      using s = ca.add(a, a);
      expect(s.dtype.name).toBe("bfloat16");
      expect(valuesOf(s, stream)).toEqual(vals.map((v) => bf(Math.fround(v + v))));
      using m = a.mul(0.5);
      expect(m.dtype.name).toBe("bfloat16");
      expect(valuesOf(m, stream)).toEqual(vals.map((v) => bf(Math.fround(v * 0.5))));
      using q = ca.sqrt(ca.abs(a));
      expect(q.dtype.name).toBe("bfloat16");
      expect(valuesOf(q, stream)).toEqual(vals.map((v) => bf(Math.fround(Math.sqrt(Math.abs(v))))));
      using f = a.astype("float32");
      expect(valuesOf(f, stream)).toEqual(vals);
      using h = a.astype("float16");
      expect(valuesOf(h, stream)).toEqual(vals.map((v) => decodeHalf(encodeHalf(v))));
      using back = ca.astype(DeviceArray.from(Float64Array.from(xs), { stream }), "bfloat16");
      expect(valuesOf(back, stream)).toEqual(xs.map(bf));
      using mixed = ca.add(a, DeviceArray.from(Uint16Array.from(xs, encodeHalf), { stream, dtype: "float16" }));
      expect(mixed.dtype.name).toBe("float32");
    },
    LONG,
  );

  it(
    "inverse trigonometric and hyperbolic functions, float64 and float32",
    () => {
      const xs = [-0.75, -0.5, 0, 0.25, 0.5, 0.9];
      const cases: [string, (v: number) => number, (v: number) => number][] = [
        ["asin", Math.asin, (v) => v],
        ["acos", Math.acos, (v) => v],
        ["atanh", Math.atanh, (v) => v],
        ["acosh", Math.acosh, (v) => v + 2],
        ["asinh", Math.asinh, (v) => v * 3],
        ["atan", Math.atan, (v) => v * 3],
      ];
      for (const dtype of ["float64", "float32"] as const) {
        for (const [op, f, arg] of cases) {
          const input = xs.map(arg);
          using x = DeviceArray.from(dtype === "float64" ? Float64Array.from(input) : Float32Array.from(input), { stream });
          using y = (ca as unknown as Record<string, AnyOp>)[op]!(x);
          expect(y.dtype.name).toBe(dtype);
          const got = valuesOf(y, stream) as number[];
          const want = input.map((v) => f(dtype === "float32" ? Math.fround(v) : v));
          got.forEach((g, i) => expect(closeTo(g, want[i]!, TOL[dtype]!, 1), `${op}(${dtype} ${input[i]}): ${g} vs ${want[i]}`).toBe(true));
        }
      }
    },
    LONG,
  );

  it(
    "broadcasting: [3, 1] with [4], a row over a matrix, a scalar, 0-d arrays",
    () => {
      using col = DeviceArray.from(Float32Array.from([1, 2, 3]), { stream, shape: [3, 1] });
      using row = DeviceArray.from(Float32Array.from([10, 20, 30, 40]), { stream });
      using s = ca.add(col, row);
      expect(s.shape).toEqual([3, 4]);
      expect(valuesOf(s, stream)).toEqual([11, 21, 31, 41, 12, 22, 32, 42, 13, 23, 33, 43]);
      using d = row.sub(col);
      expect(valuesOf(d, stream)).toEqual([9, 19, 29, 39, 8, 18, 28, 38, 7, 17, 27, 37]);
      using mat = DeviceArray.from(Float32Array.from({ length: 12 }, (_, i) => i), { stream, shape: [3, 4] });
      using scaled = mat.mul(row);
      expect(valuesOf(scaled, stream)).toEqual(Array.from({ length: 12 }, (_, i) => i * (10 * ((i % 4) + 1))));
      using cmp = ca.gt(mat, col);
      expect(cmp.dtype.name).toBe("bool");
      expect(valuesOf(cmp, stream)).toEqual(Array.from({ length: 12 }, (_, i) => (i > Math.floor(i / 4) + 1 ? 1 : 0)));
      using i8 = DeviceArray.from(Int8Array.from([120, -120, 5]), { stream, shape: [3, 1] });
      using wrapped = ca.add(i8, DeviceArray.from(Int8Array.from([10, 0]), { stream }));
      expect(wrapped.dtype.name).toBe("int8");
      expect(valuesOf(wrapped, stream)).toEqual([-126, 120, -110, -120, 15, 5]);
      using zeroD = DeviceArray.from(Float64Array.from([2]), { stream, shape: [] });
      using p = ca.pow(zeroD, DeviceArray.from(Float64Array.from([1, 2, 3]), { stream }));
      expect([p.shape, valuesOf(p, stream)]).toEqual([[3], [2, 4, 8]]);
      using e = ca.exp(zeroD);
      expect(e.shape).toEqual([]);
    },
    LONG,
  );

  it(
    "strided views: a transpose, stepped and reversed slices, an offset (unaligned) view",
    () => {
      const base = Float32Array.from({ length: 24 }, (_, i) => i - 7);
      using x = DeviceArray.from(base, { stream, shape: [4, 6] });
      using t = ca.add(x.T, 1);
      expect(t.shape).toEqual([6, 4]);
      expect(valuesOf(t, stream)).toEqual(Array.from({ length: 24 }, (_, k) => base[(k % 4) * 6 + Math.floor(k / 4)]! + 1));
      const stepped = x.slice(null, [0, null, 2]); // [4, 3]
      using sq = ca.square(stepped);
      expect(valuesOf(sq, stream)).toEqual(Array.from({ length: 12 }, (_, k) => base[Math.floor(k / 3) * 6 + (k % 3) * 2]! ** 2));
      const reversed = x.slice([null, null, -1]); // rows reversed
      using diff = ca.sub(reversed, x);
      expect(valuesOf(diff, stream)).toEqual(Array.from({ length: 24 }, (_, k) => base[(3 - Math.floor(k / 6)) * 6 + (k % 6)]! - base[k]!));
      const flat = x.reshape(24);
      const off = flat.subarray(1, 23); // contiguous, not aligned to 16 bytes: the scalar path
      using n = ca.neg(off);
      expect(valuesOf(n, stream)).toEqual(Array.from(base.subarray(1, 23), (v) => -v));
      using h = ca.astype(x.T, "float16");
      expect(valuesOf(h, stream)).toEqual(Array.from({ length: 24 }, (_, k) => base[(k % 4) * 6 + Math.floor(k / 4)]!));
      using w = ca.where(stepped.gt(0), stepped, x.slice(null, [1, null, 2]));
      expect(valuesOf(w, stream)).toEqual(Array.from({ length: 12 }, (_, k) => {
        const r = Math.floor(k / 3);
        const c = (k % 3) * 2;
        const v = base[r * 6 + c]!;
        return v > 0 ? v : base[r * 6 + c + 1]!;
      }));
    },
    LONG,
  );

  it(
    "out: another dtype, in place, an operand in another layout, a broadcast operand",
    () => {
      using a = DeviceArray.from(Float32Array.from([1.5, 2.5, -3, 4]), { stream });
      using o64 = DeviceArray.zeros([4], "float64", { stream });
      expect(ca.mul(a, 2, { out: o64 })).toBe(o64);
      expect(valuesOf(o64, stream)).toEqual([3, 5, -6, 8]);
      using o16 = DeviceArray.zeros([4], "float16", { stream });
      ca.add(a, 0.1, { out: o16 });
      expect(valuesOf(o16, stream)).toEqual([1.5, 2.5, -3, 4].map((v) => decodeHalf(encodeHalf(Math.fround(Math.fround(v) + Math.fround(0.1))))));
      using ob = DeviceArray.zeros([4], "uint8", { stream });
      ca.lt(a, 2, { out: ob });
      expect(valuesOf(ob, stream)).toEqual([1, 0, 1, 0]);
      // In place.
      expect(ca.add(a, 1, { out: a })).toBe(a);
      expect(valuesOf(a, stream)).toEqual([2.5, 3.5, -2, 5]);
      a.mul(a, { out: a });
      expect(valuesOf(a, stream)).toEqual([6.25, 12.25, 4, 25]);
      // An operand in another layout of the same memory: through a temporary.
      const m0 = Float64Array.from({ length: 16 }, (_, i) => i * i);
      using m = DeviceArray.from(m0, { stream, shape: [4, 4] });
      ca.add(m, m.T, { out: m });
      expect(valuesOf(m, stream)).toEqual(Array.from({ length: 16 }, (_, k) => m0[k]! + m0[(k % 4) * 4 + Math.floor(k / 4)]!));
      // A broadcast row of the same memory as out.
      const r0 = Float64Array.from({ length: 8 }, (_, i) => i + 1);
      using r = DeviceArray.from(r0, { stream, shape: [2, 4] });
      ca.mul(r, r.slice([0, 1]), { out: r });
      expect(valuesOf(r, stream)).toEqual(Array.from({ length: 8 }, (_, k) => r0[k]! * r0[k % 4]!));
      // A strided out.
      using big = DeviceArray.zeros([4, 4], "int32", { stream });
      ca.add(DeviceArray.from(Int32Array.from([1, 2, 3, 4]), { stream }), 10, { out: big.slice(null, 2) });
      expect(valuesOf(big, stream)).toEqual([0, 0, 11, 0, 0, 0, 12, 0, 0, 0, 13, 0, 0, 0, 14, 0]);
    },
    LONG,
  );

  it(
    "int8 with weak scalars, float16 with weak scalars, complex64 with real operands",
    () => {
      using i8 = DeviceArray.from(Int8Array.from([-128, -1, 0, 1, 127]), { stream });
      const r = (x: DeviceArray): unknown[] => valuesOf(x, stream);
      using p = i8.add(1);
      expect([p.dtype.name, r(p)]).toEqual(["int8", [-127, 0, 1, 2, -128]]);
      using m = i8.mul(-1);
      expect(r(m)).toEqual([-128, 1, 0, -1, -127]);
      using f = i8.div(2);
      expect([f.dtype.name, r(f)]).toEqual(["float64", [-64, -0.5, 0, 0.5, 63.5]]);
      using b = i8.add(true);
      expect(b.dtype.name).toBe("int8");
      using cmp = i8.ge(-200);
      expect(r(cmp)).toEqual([1, 1, 1, 1, 1]);
      using h = DeviceArray.from(Uint16Array.from([1, 2, 65504, -3].map(encodeHalf)), { stream, dtype: "float16" });
      using h2 = h.mul(2);
      expect([h2.dtype.name, r(h2)]).toEqual(["float16", [2, 4, Infinity, -6]]);
      using hs = ca.sqrt(ca.abs(h));
      expect(r(hs)).toEqual([1, 2, 65504, 3].map((v) => decodeHalf(encodeHalf(Math.fround(Math.sqrt(v))))));
      using z = DeviceArray.from(Float32Array.from([1, 2, -3, 0.5]), { stream, dtype: "complex64" }); // 1+2j, -3+0.5j
      using zr = ca.mul(z, DeviceArray.from(Float32Array.from([2, -1]), { stream }));
      expect([zr.dtype.name, r(zr)]).toEqual(["complex64", [[2, 4], [3, -0.5]]]);
      using za = z.abs();
      expect(za.dtype.name).toBe("float32");
      (r(za) as number[]).forEach((g, i) => expect(closeTo(g, [Math.sqrt(5), Math.hypot(3, 0.5)][i]!, 5e-7, 1)).toBe(true));
      using zeq = ca.eq(z, [1, 2]);
      expect(r(zeq)).toEqual([1, 0]);
      // Writing through the real view writes the complex array.
      const re = ca.real(z);
      re.fill(0);
      expect(r(z)).toEqual([[0, 2], [0, 0.5]]);
    },
    LONG,
  );

  it(
    "where, clip, isclose, logical operations, a method chain",
    () => {
      using x = DeviceArray.from(Float32Array.from([-2, -0.5, NaN, 0.5, 3]), { stream });
      const r = (a: DeviceArray): unknown[] => valuesOf(a, stream);
      using c = x.clip(-1, 1);
      expect(r(c)).toEqual([-1, -0.5, NaN, 0.5, 1]);
      using lo = ca.clip(x, 0, null);
      expect(r(lo)).toEqual([0, 0, NaN, 0.5, 3]);
      using hiArr = ca.clip(x, null, DeviceArray.from(Float32Array.from([0, 0, 0, 0, 2]), { stream }));
      expect(r(hiArr)).toEqual([-2, -0.5, NaN, 0, 2]);
      using relu = ca.where(x.gt(0), x, 0);
      expect([relu.dtype.name, r(relu)]).toEqual(["float32", [0, 0, 0, 0.5, 3]]);
      using two = ca.where(DeviceArray.from(Uint8Array.from([1, 0]), { stream, dtype: "bool" }), 1, 2.5);
      expect([two.dtype.name, r(two)]).toEqual(["float64", [1, 2.5]]);
      using cond = ca.where(DeviceArray.from(Int32Array.from([0, 7, -1]), { stream }), DeviceArray.from(Int8Array.from([1, 2, 3]), { stream }), DeviceArray.from(Uint8Array.from([200, 201, 202]), { stream }));
      expect([cond.dtype.name, r(cond)]).toEqual(["int16", [200, 2, 3]]);
      using nan = ca.isnan(x);
      using fin = ca.logicalNot(ca.isfinite(x));
      expect(r(ca.logicalXor(nan, fin))).toEqual([0, 0, 0, 0, 0]);
      using close = ca.isclose(x, DeviceArray.from(Float32Array.from([-2.00001, -0.6, NaN, 0.5, 3]), { stream }), { equalNan: true });
      expect(r(close)).toEqual([1, 0, 1, 1, 1]);
      using a = DeviceArray.from(Float32Array.from([1, 2, 3, 4, 5, 6]), { stream, shape: [2, 3] });
      using chain = a.mul(a).add(1).sub(a.neg()).div(2);
      expect(r(chain)).toEqual([1, 2, 3, 4, 5, 6].map((v) => (v * v + 1 + v) / 2));
      using ints = DeviceArray.from(Int32Array.from([7, -7, 7, -7]), { stream });
      expect(r(ints.floorDiv(DeviceArray.from(Int32Array.from([2, 2, -2, -2]), { stream })))).toEqual([3, -4, -4, 3]);
      expect(r(ints.mod(DeviceArray.from(Int32Array.from([2, 2, -2, 0]), { stream })))).toEqual([1, 1, -1, 0]);
    },
    LONG,
  );

  it(
    "large arrays: the vectorised contiguous path, a broadcast row over a matrix, astype",
    () => {
      const rows = 257;
      const cols = 4099; // odd: vector tails
      const n = rows * cols;
      const host = Float32Array.from({ length: n }, (_, i) => (i % 1000) - 500);
      using m = DeviceArray.from(host, { stream, shape: [rows, cols] });
      using rowv = DeviceArray.from(Float32Array.from({ length: cols }, (_, j) => j), { stream });
      using s = ca.add(m, rowv);
      using d = ca.sub(s, m);
      const got = d.toTypedArraySync({ stream });
      let bad = 0;
      for (let i = 0; i < n; i++) if (got[i] !== Math.fround(Math.fround(host[i]! + (i % cols)) - host[i]!)) bad++;
      expect(bad).toBe(0);
      using h = ca.astype(m, "float16");
      using back = h.astype("float32");
      const hb = back.toTypedArraySync({ stream });
      let badH = 0;
      for (let i = 0; i < n; i++) if (hb[i] !== decodeHalf(encodeHalf(host[i]!))) badH++;
      expect(badH).toBe(0);
      using e = ca.exp(ca.mul(m, 0.001));
      const eh = e.toTypedArraySync({ stream });
      let badE = 0;
      for (let i = 0; i < n; i += 97) if (!closeTo(eh[i] as number, Math.exp(Math.fround(host[i]! * Math.fround(0.001))), 5e-6, 1)) badE++;
      expect(badE).toBe(0);
    },
    LONG,
  );
  it("nanToNum replaces NaN and the infinities as NumPy's nan_to_num (values from NumPy)", () => {
    const x = [NaN, Infinity, -Infinity, 1.5];
    const values = (a: DeviceArray): number[] => Array.from(a.toTypedArraySync({ stream }) as ArrayLike<number>);
    using d = DeviceArray.from(Float64Array.from(x), { stream });
    using d0 = ca.nanToNum(d);
    expect(values(d0)).toEqual([0, 1.7976931348623157e308, -1.7976931348623157e308, 1.5]);
    using d1 = ca.nanToNum(d, { nan: -1, posinf: 9, neginf: -9 });
    expect(values(d1)).toEqual([-1, 9, -9, 1.5]);
    expect(Number.isNaN(values(d)[0])).toBe(true); // a copy: d unchanged
    using f = DeviceArray.from(Float32Array.from(x), { stream });
    using f0 = ca.nanToNum(f);
    expect([f0.dtype.name, values(f0)]).toEqual(["float32", [0, 3.4028234663852886e38, -3.4028234663852886e38, 1.5]]);
    // An out of a wider dtype: the float32 limits, stored as float64.
    using o = DeviceArray.zeros([4], "float64", { stream });
    expect(ca.nanToNum(f, { out: o })).toBe(o);
    expect(values(o)).toEqual([0, 3.4028234663852886e38, -3.4028234663852886e38, 1.5]);
    // The replacements are float32 values there too: 1e300 overflows to infinity before the cast (NumPy's result, cast).
    ca.nanToNum(f, { posinf: 1e300, neginf: -2.5, out: o });
    expect(values(o)).toEqual([0, Infinity, -2.5, 1.5]);
    // copy: false replaces in place and returns the array itself.
    expect(ca.nanToNum(f, { copy: false, nan: 7 })).toBe(f);
    expect(values(f)).toEqual([7, 3.4028234663852886e38, -3.4028234663852886e38, 1.5]);
    using h = DeviceArray.from(Uint16Array.from(x.map(encodeHalf)), { stream, dtype: "float16" });
    using h0 = ca.nanToNum(h);
    expect([h0.dtype.name, Array.from(h0.toTypedArraySync({ stream }) as Uint16Array, decodeHalf)]).toEqual(["float16", [0, 65504, -65504, 1.5]]);
    using h1 = ca.nanToNum(h, { nan: 7, posinf: 1e6 });
    expect(Array.from(h1.toTypedArraySync({ stream }) as Uint16Array, decodeHalf)).toEqual([7, Infinity, -65504, 1.5]);
    // Complex: each part on its own. [NaN+inf j, 1-inf j, inf+NaN j]
    using z = DeviceArray.from(Float64Array.from([NaN, Infinity, 1, -Infinity, Infinity, NaN]), { stream, dtype: "complex128" });
    using z0 = ca.nanToNum(z);
    expect([z0.dtype.name, values(z0)]).toEqual(["complex128", [0, 1.7976931348623157e308, 1, -1.7976931348623157e308, 1.7976931348623157e308, 0]]);
    using c = DeviceArray.from(Float32Array.from([NaN, Infinity, 1, -Infinity, Infinity, NaN]), { stream, dtype: "complex64" });
    using c0 = ca.nanToNum(c, { nan: 7 });
    expect(values(c0)).toEqual([7, 3.4028234663852886e38, 1, -3.4028234663852886e38, 3.4028234663852886e38, 7]);
    // Integers: a copy (or the array itself with copy: false); a strided view reads as it is.
    using i = DeviceArray.from(Int32Array.from([1, 2, 3]), { stream });
    using i0 = ca.nanToNum(i);
    expect([i0 !== i, i0.dtype.name, values(i0)]).toEqual([true, "int32", [1, 2, 3]]);
    expect(ca.nanToNum(i, { copy: false })).toBe(i);
    using m = DeviceArray.from(Float64Array.from([NaN, 1, Infinity, 2, -Infinity, 3]), { stream, shape: [3, 2] });
    using t = ca.nanToNum(m.T);
    expect([t.shape, values(t)]).toEqual([[2, 3], [0, 1.7976931348623157e308, -1.7976931348623157e308, 1, 2, 3]]);
  });
});
