/**
 * `sort` and `argsort` on a real GPU: every dtype at sizes 0, 1, 1000 and 2^20 + 17 (many tiles), random data with
 * duplicates, NaN, ±0.0 and infinities, already sorted, reversed and constant inputs, argsort's stability, sorts
 * along both axes of a [37, 1000] array and over the flattened array, views as inputs, the methods, and the typed
 * errors. Sorted keys are compared with the host's sort of the same data; argsort results are checked to be a
 * permutation that orders the keys, equal keys in their original order. Skips without a GPU.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Device, DeviceArray, type Stream } from "../../../src/index.ts";
import { argsort, sort, unique } from "../../../src/array.ts";
import { AxisError } from "../../../src/core/array/errors.ts";
import { sortWithIndices } from "../../../src/core/array/ops/sort.ts";
import { ClosedError } from "../../../src/core/base/errors.ts";
import { decodeBFloat16, decodeHalf, dtypes, encodeBFloat16, encodeHalf, type DTypeName, type HostArray } from "../../../src/core/array/dtype.ts";
import { gpu, skipNote } from "../../support/gpu.ts";
import { seededUniform as rng } from "../../support/arrays.ts";

const ALL: DTypeName[] = ["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "float16", "bfloat16", "float32", "float64", "complex64", "complex128"];

/** The elements of an array, read to the host, as a plain list. */
function list(a: DeviceArray): (number | bigint)[] {
  return Array.from(a.toTypedArraySync() as ArrayLike<number | bigint>);
}

type Pattern = "random" | "duplicates" | "sorted" | "reversed" | "constant";

/** A float value for element i: specials now and then, else a number (few distinct ones for "duplicates"). */
function floatValue(r: () => number, i: number, pattern: Pattern, n: number): number {
  if (pattern === "constant") return 1.5;
  if (pattern === "sorted") return i - n / 2;
  if (pattern === "reversed") return n / 2 - i;
  const x = r();
  if (x < 0.01) return NaN;
  if (x < 0.02) return -0;
  if (x < 0.03) return 0;
  if (x < 0.035) return Infinity;
  if (x < 0.04) return -Infinity;
  return pattern === "duplicates" ? Math.floor(r() * 20) - 10 : Math.round((r() - 0.5) * 2000) / 8;
}

function intValue(r: () => number, i: number, pattern: Pattern, n: number, lo: number, hi: number): number {
  const span = hi - lo + 1;
  if (pattern === "constant") return lo + Math.floor(span / 3);
  if (pattern === "sorted") return lo + Math.floor((i / Math.max(1, n)) * span);
  if (pattern === "reversed") return hi - Math.floor((i / Math.max(1, n)) * span);
  if (pattern === "duplicates") return lo + Math.floor(r() * Math.min(span, 13));
  return lo + Math.floor(r() * span);
}

/** Host data of `dtype`, as DeviceArray.from takes it. */
function makeHost(name: DTypeName, n: number, pattern: Pattern, seed: number): HostArray {
  const r = rng(seed);
  const dt = dtypes[name];
  switch (name) {
    case "bool":
      return Uint8Array.from({ length: n }, (_, i) => intValue(r, i, pattern, n, 0, 1));
    case "int8":
    case "uint8":
    case "int16":
    case "uint16":
    case "int32":
    case "uint32": {
      const bits = dt.itemsize * 8;
      const [lo, hi] = dt.kind === "i" ? [-(2 ** (bits - 1)), 2 ** (bits - 1) - 1] : [0, 2 ** bits - 1];
      const out = new (dt.hostArray as unknown as new (n: number) => Int32Array)(n);
      for (let i = 0; i < n; i++) out[i] = intValue(r, i, pattern, n, lo, hi);
      return out;
    }
    case "int64":
    case "uint64": {
      const out = name === "int64" ? new BigInt64Array(n) : new BigUint64Array(n);
      for (let i = 0; i < n; i++) {
        const hi = intValue(r, i, pattern, n, name === "int64" ? -(2 ** 31) : 0, name === "int64" ? 2 ** 31 - 1 : 2 ** 32 - 1);
        const low = pattern === "random" ? Math.floor(r() * 2 ** 32) : 7;
        const v = BigInt(hi) * 2n ** 32n + BigInt(low);
        out[i] = (name === "int64" ? BigInt.asIntN(64, v) : BigInt.asUintN(64, v)) as never;
      }
      return out;
    }
    case "float16":
    case "bfloat16": {
      const enc = name === "float16" ? encodeHalf : encodeBFloat16;
      return Uint16Array.from({ length: n }, (_, i) => enc(floatValue(r, i, pattern, n)));
    }
    case "float32":
      return Float32Array.from({ length: n }, (_, i) => floatValue(r, i, pattern, n));
    case "float64":
      return Float64Array.from({ length: n }, (_, i) => floatValue(r, i, pattern, n));
    case "complex64":
    case "complex128": {
      const out = name === "complex64" ? new Float32Array(2 * n) : new Float64Array(2 * n);
      for (let i = 0; i < n; i++) {
        out[2 * i] = pattern === "random" || pattern === "duplicates" ? floatValue(r, i, "duplicates", n) : floatValue(r, i, pattern, n);
        out[2 * i + 1] = floatValue(r, i, "duplicates", n);
      }
      return out;
    }
  }
}

/** Element i as a comparable value: a number, a bigint, or [re, im]. */
type Key = number | bigint | readonly [number, number];

function keyAt(name: DTypeName, h: HostArray, i: number): Key {
  if (name === "float16") return decodeHalf(h[i] as number);
  if (name === "bfloat16") return decodeBFloat16(h[i] as number);
  if (name === "complex64" || name === "complex128") return [h[2 * i] as number, h[2 * i + 1] as number];
  return h[i] as number | bigint;
}

/**
 * NumPy's order: NaN last (NaNs equal), -0.0 equal to +0.0; complex numbers in the classes R + Rj, R + nanj, nan + Rj,
 * nan + nanj, each by its parts without NaN (real, then imaginary).
 */
function cmpNumber(a: number, b: number): number {
  const an = Number.isNaN(a);
  const bn = Number.isNaN(b);
  if (an || bn) return an === bn ? 0 : an ? 1 : -1;
  return a < b ? -1 : a > b ? 1 : 0;
}

function cmp(a: Key, b: Key): number {
  if (Array.isArray(a)) {
    const [ar, ai] = a as readonly [number, number];
    const [br, bi] = b as readonly [number, number];
    const ca = nanClass(ar, ai);
    const cb = nanClass(br, bi);
    if (ca !== cb) return ca - cb;
    return ca === 0 ? cmpNumber(ar, br) || cmpNumber(ai, bi) : ca === 1 ? cmpNumber(ar, br) : ca === 2 ? cmpNumber(ai, bi) : 0;
  }
  if (typeof a === "bigint") return a < (b as bigint) ? -1 : a > (b as bigint) ? 1 : 0;
  return cmpNumber(a as number, b as number);
}

/** A complex number's NumPy class: 0 no NaN part, 1 the imaginary part NaN, 2 the real part, 3 both. */
function nanClass(re: number, im: number): number {
  return (Number.isNaN(re) ? 2 : 0) + (Number.isNaN(im) ? 1 : 0);
}

function same(a: Key, b: Key): boolean {
  return cmp(a, b) === 0;
}

/** The same value for `unique`: equal, or (NumPy's) both complex numbers with a NaN part. */
function sameUnique(a: Key, b: Key): boolean {
  if (Array.isArray(a) && Array.isArray(b)) return same(a, b) || (nanClass(a[0]!, a[1]!) > 0 && nanClass(b[0]!, b[1]!) > 0);
  return same(a, b);
}

function keys(name: DTypeName, h: HostArray, n: number): Key[] {
  return Array.from({ length: n }, (_, i) => keyAt(name, h, i));
}

/** The host's sort (typed-array sorts where they order as NumPy does, else a comparator sort). */
function hostSorted(name: DTypeName, h: HostArray, n: number): Key[] {
  if (name === "float16" || name === "bfloat16") return Array.from(Float64Array.from(keys(name, h, n) as number[]).sort());
  if (name === "complex64" || name === "complex128") return keys(name, h, n).sort(cmp);
  if (name === "bool") return Array.from(Uint8Array.from(h as Uint8Array).sort());
  return Array.from((h as Float64Array).slice().sort() as ArrayLike<number>);
}

function expectSorted(name: DTypeName, got: HostArray, input: HostArray, n: number, what: string): void {
  const want = hostSorted(name, input, n);
  const have = keys(name, got, n);
  for (let i = 0; i < n; i++) {
    if (!same(have[i]!, want[i]!)) {
      throw new Error(`${what}: element ${i} is ${String(have[i])}, the host's sort has ${String(want[i])}`);
    }
  }
}

/** Checks that `idx` (within rows of `rowLength`, rows contiguous in `k`) sorts every row stably. */
function expectArgsorted(k: readonly Key[], idx: BigInt64Array, rowLength: number, what: string): void {
  const n = k.length;
  expect(idx.length, what).toBe(n);
  const seen = new Uint8Array(n);
  for (let r = 0; r < n / rowLength; r++) {
    const base = r * rowLength;
    for (let i = 0; i < rowLength; i++) {
      const j = Number(idx[base + i]!);
      if (!(j >= 0 && j < rowLength) || seen[base + j]) throw new Error(`${what}: row ${r} index ${i} is ${j}: not a permutation`);
      seen[base + j] = 1;
      if (i > 0) {
        const p = Number(idx[base + i - 1]!);
        const c = cmp(k[base + p]!, k[base + j]!);
        if (c > 0 || (c === 0 && p > j)) throw new Error(`${what}: row ${r} positions ${i - 1}, ${i}: indices ${p}, ${j} (keys ${String(k[base + p])}, ${String(k[base + j])}) out of order or unstable`);
      }
    }
  }
}

describe.skipIf(!gpu.available)(`sort and argsort on a GPU${skipNote}`, () => {
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

  for (const name of ALL) {
    it(`${name}: sizes 0, 1, 1000, 2^20 + 17, random and with duplicates`, { timeout: 180_000 }, () => {
      for (const n of [0, 1, 1000, 2 ** 20 + 17]) {
        for (const pattern of n > 1 ? (["random", "duplicates"] as const) : (["random"] as const)) {
          const what = `${name} n=${n} ${pattern}`;
          const h = makeHost(name, n, pattern, n * 31 + name.length);
          using x = DeviceArray.from(h, { stream, dtype: name });
          using s = sort(x);
          expect(s.dtype.name, what).toBe(name);
          expect(s.shape, what).toEqual([n]);
          expectSorted(name, s.toTypedArraySync(), h, n, `sort ${what}`);
          using a = argsort(x);
          expect(a.dtype.name, what).toBe("int64");
          expect(a.shape, what).toEqual([n]);
          expectArgsorted(keys(name, h, n), a.toTypedArraySync(), Math.max(n, 1), `argsort ${what}`);
        }
      }
    });
  }

  for (const name of ["int32", "float32", "uint64", "float16", "complex64", "bool"] as const) {
    it(`${name}: already sorted, reversed and constant inputs over many tiles`, () => {
      const n = 100_003;
      for (const pattern of ["sorted", "reversed", "constant"] as const) {
        const what = `${name} ${pattern}`;
        const h = makeHost(name, n, pattern, 5);
        using x = DeviceArray.from(h, { stream, dtype: name });
        using s = x.sort();
        expectSorted(name, s.toTypedArraySync(), h, n, `sort ${what}`);
        using a = x.argsort();
        expectArgsorted(keys(name, h, n), a.toTypedArraySync(), n, `argsort ${what}`);
      }
    });
  }

  it("complex numbers with a NaN part sort last in NumPy's classes, and unique keeps the first of them", () => {
    // np.array([nan+nanj, complex(nan, 1), complex(1, nan), 1+2j, 1-2j, -3+5j, complex(nan, -4), 2+0j, complex(-1, nan)], np.complex64)
    const parts = [NaN, NaN, NaN, 1, 1, NaN, 1, 2, 1, -2, -3, 5, NaN, -4, 2, 0, -1, NaN];
    using z = DeviceArray.from(Float32Array.from(parts), { stream, dtype: "complex64" });
    // np.sort(a) → [-3+5j, 1-2j, 1+2j, 2+0j, -1+nanj, 1+nanj, nan-4j, nan+1j, nan+nanj]
    using s = sort(z);
    expect(Array.from(s.toTypedArraySync() as Float32Array)).toEqual([-3, 5, 1, -2, 1, 2, 2, 0, -1, NaN, 1, NaN, NaN, -4, NaN, 1, NaN, NaN]);
    // np.argsort(a, kind="stable") → [5, 4, 3, 7, 8, 2, 6, 1, 0]
    using o = argsort(z);
    expect(Array.from(o.toTypedArraySync() as BigInt64Array)).toEqual([5n, 4n, 3n, 7n, 8n, 2n, 6n, 1n, 0n]);
    // np.unique(a, return_index=True, return_counts=True) → [-3+5j, 1-2j, 1+2j, 2+0j, -1+nanj], [5, 4, 3, 7, 8], [1, 1, 1, 1, 5]
    using u = unique(z);
    expect(Array.from(u.toTypedArraySync() as Float32Array)).toEqual([-3, 5, 1, -2, 1, 2, 2, 0, -1, NaN]);
    const r = unique(z, { returnIndex: true, returnCounts: true });
    using values = r.values;
    using indices = r.indices;
    using counts = r.counts;
    expect(Array.from(values.toTypedArraySync() as Float32Array)).toEqual([-3, 5, 1, -2, 1, 2, 2, 0, -1, NaN]);
    expect(Array.from(indices.toTypedArraySync() as BigInt64Array)).toEqual([5n, 4n, 3n, 7n, 8n]);
    expect(Array.from(counts.toTypedArraySync() as BigInt64Array)).toEqual([1n, 1n, 1n, 1n, 5n]);
  });

  it("float32: NaN last, -0.0 and +0.0 equal and kept in order by argsort", () => {
    const h = new Float32Array([3, NaN, -0, 0, -1, NaN, 0, -0, -Infinity, Infinity, 2]);
    using x = DeviceArray.from(h, { stream });
    const s = list(x.sort()) as number[];
    expect(s.slice(0, 2)).toEqual([-Infinity, -1]);
    expect(s.slice(2, 6).every((v) => v === 0)).toBe(true);
    expect(s.slice(6, 9)).toEqual([2, 3, Infinity]);
    expect(s.slice(9).every((v) => Number.isNaN(v))).toBe(true);
    expect(Array.from(x.argsort().toTypedArraySync(), Number)).toEqual([8, 4, 2, 3, 6, 7, 10, 0, 9, 1, 5]);
  });

  for (const name of ["float32", "int16", "int64", "complex128", "uint8"] as const) {
    it(`${name}: a [37, 1000] array along axis 1, -1, 0 and the flattened array`, () => {
      const [R, C] = [37, 1000];
      const h = makeHost(name, R * C, "duplicates", 99);
      const k = keys(name, h, R * C);
      using x = DeviceArray.from(h, { stream, dtype: name, shape: [R, C] });
      for (const axis of [1, -1] as const) {
        using s = sort(x, { axis });
        expect(s.shape).toEqual([R, C]);
        const got = keys(name, s.toTypedArraySync(), R * C);
        for (let r = 0; r < R; r++) {
          const want = k.slice(r * C, (r + 1) * C).sort(cmp);
          for (let c = 0; c < C; c++) if (!same(got[r * C + c]!, want[c]!)) throw new Error(`axis ${axis} row ${r} col ${c}: ${String(got[r * C + c])} != ${String(want[c])}`);
        }
        using a = argsort(x, { axis });
        expectArgsorted(k, a.toTypedArraySync(), C, `argsort axis ${axis}`);
      }
      // axis 0: the columns
      const cols: Key[] = [];
      for (let c = 0; c < C; c++) for (let r = 0; r < R; r++) cols.push(k[r * C + c]!);
      using s0 = sort(x, { axis: 0 });
      expect(s0.shape).toEqual([R, C]);
      const g0 = keys(name, s0.toTypedArraySync(), R * C);
      for (let c = 0; c < C; c++) {
        const want = cols.slice(c * R, (c + 1) * R).sort(cmp);
        for (let r = 0; r < R; r++) if (!same(g0[r * C + c]!, want[r]!)) throw new Error(`axis 0 col ${c} row ${r}: ${String(g0[r * C + c])} != ${String(want[r])}`);
      }
      using a0 = argsort(x, { axis: 0 });
      expect(a0.shape).toEqual([R, C]);
      const i0 = a0.toTypedArraySync();
      const i0T = new BigInt64Array(R * C);
      for (let c = 0; c < C; c++) for (let r = 0; r < R; r++) i0T[c * R + r] = i0[r * C + c]!;
      expectArgsorted(cols, i0T, R, "argsort axis 0");
      // flattened
      using f = x.sort({ axis: null });
      expect(f.shape).toEqual([R * C]);
      expectSorted(name, f.toTypedArraySync(), h, R * C, "sort axis null");
      using af = x.argsort({ axis: null });
      expectArgsorted(k, af.toTypedArraySync(), R * C, "argsort axis null");
    });
  }

  it("views: a stepped slice and a transpose sort like their copies", () => {
    const [R, C] = [64, 300];
    const h = makeHost("float64", R * C, "duplicates", 3);
    using x = DeviceArray.from(h, { stream, shape: [R, C] });
    const stepped = x.slice([1, null, 3], [null, null, 2]); // [21, 150]
    using sc = stepped.copy();
    const want = list(sc.sort());
    expect(list(stepped.sort()).map(String)).toEqual(want.map(String));
    expect(list(stepped.argsort())).toEqual(list(sc.argsort()));
    const t = x.T; // [300, 64]
    using tc = t.copy();
    expect(list(t.sort({ axis: 1 })).map(String)).toEqual(list(tc.sort({ axis: 1 })).map(String));
    expect(list(t.argsort({ axis: 0 }))).toEqual(list(tc.argsort({ axis: 0 })));
    expect(list(t.sort({ axis: null })).map(String)).toEqual(list(tc.sort({ axis: null })).map(String));
  });

  it("a 0-d array, rows of one element, a closed array, a bad axis", () => {
    using z = DeviceArray.from(new Int32Array([5]), { stream, shape: [] });
    expect(() => sort(z)).toThrow(AxisError);
    expect(list(sort(z, { axis: null }))).toEqual([5]);
    expect(list(argsort(z, { axis: null }))).toEqual([0n]);
    // np.argsort(np.array(5)) → [0] (a 1-d result), with axis -1 or 0 too
    expect(list(argsort(z))).toEqual([0n]);
    using along0 = argsort(z, { axis: 0 });
    expect(along0.shape).toEqual([1]);
    using col = DeviceArray.from(new Float32Array([3, 1, 2]), { stream, shape: [3, 1] });
    expect(list(col.sort())).toEqual([3, 1, 2]);
    expect(list(col.argsort())).toEqual([0n, 0n, 0n]);
    expect(list(col.sort({ axis: 0 }))).toEqual([1, 2, 3]);
    expect(() => col.sort({ axis: 2 })).toThrow(AxisError);
    const closed = DeviceArray.from(new Float32Array([1, 2]), { stream });
    closed.close();
    expect(() => sort(closed)).toThrow(ClosedError);
  });

  for (const [name, n] of [["int32", 100_000], ["float32", 50_000], ["float64", 2 ** 20 + 17], ["complex64", 20_000], ["bool", 1000], ["uint8", 70_000], ["float16", 5000], ["int64", 1]] as const) {
    it(`unique of ${n} ${name} elements (NaNs as one, -0.0 as +0.0)`, () => {
      const h = makeHost(name, n, "duplicates", 17);
      using x = DeviceArray.from(h, { stream, dtype: name });
      using u = unique(x);
      expect(u.dtype.name).toBe(name);
      const want: Key[] = [];
      for (const k of hostSorted(name, h, n)) if (want.length === 0 || !sameUnique(want[want.length - 1]!, k)) want.push(k);
      expect(u.shape).toEqual([want.length]);
      const got = keys(name, u.toTypedArraySync(), want.length);
      for (let i = 0; i < want.length; i++) if (!same(got[i]!, want[i]!)) throw new Error(`unique ${name}: element ${i} is ${String(got[i])}, want ${String(want[i])}`);
    });
  }

  it("sortWithIndices: sorted keys and the stable permutation from one sort", () => {
    const h = makeHost("int32", 30_000, "duplicates", 23);
    using x = DeviceArray.from(h, { stream, shape: [100, 300] });
    const r = sortWithIndices(x.T);
    using k = r.keys;
    using idx = r.indices;
    const flat = Array.from({ length: 30_000 }, (_, i) => h[(i % 100) * 300 + Math.floor(i / 100)]!); // x.T flattened
    const ii = idx.toTypedArraySync();
    expectArgsorted(flat, ii, 30_000, "sortWithIndices");
    const kk = k.toTypedArraySync() as Int32Array;
    for (let i = 0; i < 30_000; i++) if (kk[i] !== flat[Number(ii[i]!)]) throw new Error(`sortWithIndices: keys[${i}] = ${kk[i]} but the key at indices[${i}] is ${flat[Number(ii[i]!)]}`);
  });

  it("unique of a 2-d view and of an empty array", () => {
    using x = DeviceArray.from(Int16Array.from({ length: 600 }, (_, i) => (i * 37) % 23), { stream, shape: [20, 30] });
    const want = [...new Set(Array.from({ length: 600 }, (_, i) => (i * 37) % 23))].sort((a, b) => a - b);
    expect(list(unique(x.T))).toEqual(want);
    using e = DeviceArray.empty([0, 3], "float32", { stream });
    expect(unique(e).shape).toEqual([0]);
  });

  it("unique along an axis: the distinct rows or columns, with their first index, inverse and counts, as NumPy's", () => {
    const int64s = (x: DeviceArray): number[] => list(x).map(Number);
    using a = DeviceArray.from(Int8Array.from([1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 0, 0, 9]), { stream, shape: [5, 3] });
    // np.unique(a, axis=0, return_index=True, return_inverse=True, return_counts=True)
    // → [[0, 0, 9], [0, 1, 0], [1, 0, 1]], [4, 1, 0], [2, 1, 2, 1, 0], [1, 2, 2]
    const r = unique(a, { axis: 0, returnIndex: true, returnInverse: true, returnCounts: true });
    expect([r.values.dtype.name, r.values.shape, list(r.values)]).toEqual(["int8", [3, 3], [0, 0, 9, 0, 1, 0, 1, 0, 1]]);
    expect(int64s(r.indices)).toEqual([4, 1, 0]);
    expect(int64s(r.inverse)).toEqual([2, 1, 2, 1, 0]);
    expect(int64s(r.counts)).toEqual([1, 2, 2]);
    for (const x of [r.values, r.indices, r.inverse, r.counts]) x.close();
    // np.unique(a, axis=1, return_index=True, return_inverse=True, return_counts=True): columns [0, 1, 1, ...] first
    const c = unique(a, { axis: 1, returnIndex: true, returnInverse: true, returnCounts: true });
    expect([c.values.shape, list(c.values)]).toEqual([[5, 3], [0, 1, 1, 1, 0, 0, 0, 1, 1, 1, 0, 0, 0, 0, 9]]);
    expect([int64s(c.indices), int64s(c.inverse), int64s(c.counts)]).toEqual([[1, 0, 2], [1, 0, 2], [1, 1, 1]]);
    for (const x of [c.values, c.indices, c.inverse, c.counts]) x.close();
    // Rows with NaN stay apart; -0.0 and 0.0 are one: np.unique([[nan, 1], [0., 2], [nan, 1], [-0., 2]], axis=0, ...)
    // → [[0, 2], [nan, 1], [nan, 1]], [1, 0, 2], [1, 0, 2, 0], [2, 1, 1]
    using f = DeviceArray.from(Float64Array.from([NaN, 1, 0, 2, NaN, 1, -0, 2]), { stream, shape: [4, 2] });
    const u = unique(f, { axis: 0, returnIndex: true, returnInverse: true, returnCounts: true });
    expect(list(u.values)).toEqual([0, 2, NaN, 1, NaN, 1]);
    expect(Object.is(list(u.values)[0], 0)).toBe(true);
    expect([int64s(u.indices), int64s(u.inverse), int64s(u.counts)]).toEqual([[1, 0, 2], [1, 0, 2, 0], [2, 1, 1]]);
    for (const x of [u.values, u.indices, u.inverse, u.counts]) x.close();
    // A 3-d array along its last axis: np.unique(np.arange(24).reshape(2, 3, 4) % 3, axis=2)
    using b = DeviceArray.from(Int32Array.from({ length: 24 }, (_, i) => i % 3), { stream, shape: [2, 3, 4] });
    using v = unique(b, { axis: 2 });
    expect([v.shape, list(v)]).toEqual([[2, 3, 3], [0, 1, 2, 1, 2, 0, 2, 0, 1, 0, 1, 2, 1, 2, 0, 2, 0, 1]]);
    // Empty: np.unique(np.zeros((3, 0)), axis=0) has shape (1, 0) and counts [3]; of np.zeros((0, 3)) shape (0, 3).
    using e = DeviceArray.zeros([3, 0], "float32", { stream });
    const ee = unique(e, { axis: 0, returnCounts: true, returnInverse: true });
    expect([ee.values.shape, int64s(ee.counts), int64s(ee.inverse)]).toEqual([[1, 0], [3], [0, 0, 0]]);
    using z = DeviceArray.zeros([0, 3], "float32", { stream });
    using zu = unique(z, { axis: 0 });
    expect(zu.shape).toEqual([0, 3]);
  });

  it("sorts on the stream it is given, and the array's stream by default", () => {
    using other = dev.createStream();
    const h = Float32Array.from({ length: 5000 }, (_, i) => (i * 7919) % 5000);
    using x = DeviceArray.from(h, { stream });
    using s = sort(x, { stream: other });
    expect(s.stream).toBe(other);
    const got = s.toTypedArraySync({ stream: other });
    expect(Array.from(got)).toEqual(Array.from(h).sort((a, b) => a - b));
  });
});
