/**
 * The radix sort's host side, on the CPU: the key types of every dtype, the order-preserving transforms (modelled
 * here word for word as the kernels write them, and checked to order numbers as NumPy does, NaN last), the plan
 * (passes, tiles, look-back width, scratch layout, where each pass writes), the generated source, the axis checks,
 * and a simulation of the onesweep kernels (the same tile partition, warp ranking, look-back and scatter formulas,
 * the tiles' look-backs run in a shuffled order) against a stable sort on the host.
 */
import { describe, expect, it } from "vitest";
import { dtypes, encodeBFloat16, encodeHalf, type DTypeName } from "../../../src/core/array/dtype.ts";
import { AxisError } from "../../../src/core/array/errors.ts";
import {
  NARROW_LOOKBACK_LIMIT,
  ONESWEEP_VARIANTS,
  RADIX,
  SORT_BLOCK,
  UNIQUE_BLOCK,
  UNIQUE_ITEMS,
  UNIQUE_SCAN_BLOCK,
  SORT_KERNELS,
  SORT_PAIR_BLOCK,
  itemsPerThread,
  onesweepSharedBytes,
  onesweepVariant,
  passTarget,
  rowPassesFor,
  sortKeyType,
  sortPlan,
  sortSource,
  type SortKeyType,
} from "../../../src/core/array/ops/sort-kernels.ts";
import { sortAxis } from "../../../src/core/array/ops/sort.ts";
import { seededUniform as rng } from "../../support/arrays.ts";
import { nvccPresent, nvccProblems } from "../../support/nvcc.ts";
import { fakeArray } from "../../support/fake-arrays.ts";
import * as ca from "../../../src/array.ts";

const ALL: DTypeName[] = ["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "float16", "bfloat16", "float32", "float64", "complex64", "complex128"];

// ---- the kernels' word transforms, modelled on bigints ----

function mask(bits: number): bigint {
  return (1n << BigInt(bits)) - 1n;
}

/** ord_word (float words) as the kernel writes it. */
function ordWord(x: bigint, bits: number, inf: bigint, canonZero: boolean): bigint {
  const SIGN = 1n << BigInt(bits - 1);
  const M = mask(bits);
  const mag = x & ~SIGN & M;
  if (mag > inf) return M;
  if (canonZero && mag === 0n) x = 0n;
  return (x & SIGN) !== 0n ? ~x & M : x ^ SIGN;
}

function unordWord(u: bigint, bits: number): bigint {
  const SIGN = 1n << BigInt(bits - 1);
  return (u & SIGN) !== 0n ? u ^ SIGN : ~u & mask(bits);
}

function infOf(k: SortKeyType): bigint {
  return BigInt(k.infinityBits!.replace(/u+l*$/i, "").replace(/ull$/i, ""));
}

/** to_ordered of a key's bits (complex: re in the high word, im in the low word, as the digit order has it). */
function toOrdered(k: SortKeyType, x: bigint, canonZero: boolean): bigint {
  const W = k.wordBits;
  switch (k.kind) {
    case "bool":
      return x !== 0n ? 1n : 0n;
    case "unsigned":
      return x;
    case "signed":
      return x ^ (1n << BigInt(W - 1));
    case "float":
      return ordWord(x, W, infOf(k), canonZero);
    case "complex": {
      const re = x >> BigInt(W);
      const im = x & mask(W);
      const inf = infOf(k);
      const ordInf = inf | (1n << BigInt(W - 1));
      const nan = (w: bigint): boolean => (w & ~(1n << BigInt(W - 1)) & mask(W)) > inf;
      // NumPy's classes: R + Rj, R + nanj, nan + Rj, nan + nanj (the real part's -0.0 always as +0.0).
      const [hi, lo] = !nan(re) && !nan(im)
        ? [ordWord(re, W, inf, true), ordWord(im, W, inf, canonZero)]
        : !nan(re)
          ? [ordInf + 1n, ordWord(re, W, inf, true)]
          : !nan(im)
            ? [ordInf + 2n, ordWord(im, W, inf, canonZero)]
            : [ordInf + 3n, 0n];
      return (hi << BigInt(W)) | lo;
    }
  }
}

function fromOrdered(k: SortKeyType, u: bigint): bigint {
  const W = k.wordBits;
  switch (k.kind) {
    case "signed":
      return u ^ (1n << BigInt(W - 1));
    case "float":
      return unordWord(u, W);
    case "complex": {
      const hi = u >> BigInt(W);
      const lo = u & mask(W);
      const ordInf = infOf(k) | (1n << BigInt(W - 1));
      const nanBits = unordWord(mask(W), W);
      const [re, im] = hi <= ordInf ? [unordWord(hi, W), unordWord(lo, W)] : hi === ordInf + 1n ? [unordWord(lo, W), nanBits] : hi === ordInf + 2n ? [nanBits, unordWord(lo, W)] : [nanBits, nanBits];
      return (re << BigInt(W)) | im;
    }
    default:
      return u;
  }
}

function floatBits(name: DTypeName, v: number): bigint {
  const dv = new DataView(new ArrayBuffer(8));
  switch (name) {
    case "float16":
      return BigInt(encodeHalf(v));
    case "bfloat16":
      return BigInt(encodeBFloat16(v));
    case "float32":
      dv.setFloat32(0, v);
      return BigInt(dv.getUint32(0));
    default:
      dv.setFloat64(0, v);
      return dv.getBigUint64(0);
  }
}

/** NumPy's order of floats: numbers ascending, NaN last. */
function numpyOrder(a: number, b: number): number {
  if (Number.isNaN(a)) return Number.isNaN(b) ? 0 : 1;
  if (Number.isNaN(b)) return -1;
  return a < b ? -1 : a > b ? 1 : 0;
}

// ---- a simulation of the kernels ----

interface SimOptions {
  readonly block: number;
  readonly items: number;
  readonly keyPasses: number;
  readonly rowLength: number;
  readonly pairs: boolean;
  readonly seed: number;
}

const popc = (x: number): number => {
  let c = 0;
  for (let v = x >>> 0; v !== 0; v &= v - 1) c++;
  return c;
};

/**
 * The histogram, scan and onesweep kernels on ordered keys, block by block: returns the keys and the travelling
 * values after the last pass (values: the indices, as the last pass stores them, within their rows when rows > 1).
 */
function simulate(ordered: readonly bigint[], o: SimOptions): { keys: bigint[]; values: number[] } {
  const n = ordered.length;
  const rows = n / o.rowLength;
  const rowPasses = rowPassesFor(rows);
  const passes = o.keyPasses + rowPasses;
  const warps = o.block / 32;
  const tileSize = o.block * o.items;
  const warpItems = 32 * o.items;
  const tiles = Math.ceil(n / tileSize);
  const random = rng(o.seed);
  const digitOf = (k: bigint, v: number, pass: number): number =>
    pass < o.keyPasses ? Number((k >> BigInt(8 * pass)) & 255n) : Math.floor(Math.floor(v / o.rowLength) / 2 ** (8 * (pass - o.keyPasses))) % 256;
  // histogram kernel
  const hist = Array.from({ length: passes }, () => new Array<number>(RADIX).fill(0));
  for (let i = 0; i < n; i++) {
    for (let p = 0; p < o.keyPasses; p++) hist[p]![digitOf(ordered[i]!, 0, p)]!++;
    const row = Math.floor(i / o.rowLength);
    for (let p = 0; p < rowPasses; p++) hist[o.keyPasses + p]![Math.floor(row / 2 ** (8 * p)) % 256]!++;
  }
  // scan kernel
  const starts = hist.map((h) => {
    const s: number[] = [];
    let run = 0;
    for (const c of h) {
      s.push(run);
      run += c;
    }
    return s;
  });
  let keysIn = [...ordered];
  let valsIn: number[] = [];
  for (let pass = 0; pass < passes; pass++) {
    const first = pass === 0;
    const keysOut = new Array<bigint>(n);
    const valsOut = new Array<number>(n);
    const written = new Uint8Array(n);
    const lookback: { flag: 0 | 1 | 2; value: number }[] = Array.from({ length: tiles * RADIX }, () => ({ flag: 0, value: 0 }));
    interface TileState {
      tileCount: number;
      sKeys: bigint[];
      sVals: number[];
      sCount: number[];
      sStart: number[];
    }
    const states: TileState[] = [];
    // Phase 1, in tile order (the order blocks take tile ids): load, rank, publish counts, scan, place in shared memory.
    for (let tile = 0; tile < tiles; tile++) {
      const tileBase = tile * tileSize;
      const tileCount = Math.min(tileSize, n - tileBase);
      const warpHist = Array.from({ length: warps }, () => new Array<number>(RADIX).fill(0));
      const keys: bigint[][] = [];
      const vals: number[][] = [];
      const digits: number[][] = [];
      const ranks: number[][] = [];
      for (let w = 0; w < warps; w++) {
        for (let lane = 0; lane < 32; lane++) {
          const t = w * 32 + lane;
          keys[t] = [];
          vals[t] = [];
          digits[t] = [];
          ranks[t] = [];
          for (let j = 0; j < o.items; j++) {
            const local = w * warpItems + j * 32 + lane;
            digits[t]![j] = RADIX;
            vals[t]![j] = 0;
            if (local < tileCount) {
              const g = tileBase + local;
              const k = keysIn[g]!;
              keys[t]![j] = k;
              if (o.pairs) vals[t]![j] = first ? g : valsIn[g]!;
              digits[t]![j] = digitOf(k, vals[t]![j]!, pass);
            }
          }
        }
        // warp ranking, item by item
        for (let j = 0; j < o.items; j++) {
          const ds = Array.from({ length: 32 }, (_, lane) => digits[w * 32 + lane]![j]!);
          const bases = new Array<number>(32).fill(0);
          const peersOf = ds.map((d) => ds.reduce((m, e, l) => (e === d ? m | (1 << l) : m), 0) >>> 0);
          for (let lane = 0; lane < 32; lane++) {
            const peers = peersOf[lane]!;
            const leader = Math.clz32(peers & -peers) ^ 31;
            if (ds[lane]! < RADIX && lane === leader) {
              bases[lane] = warpHist[w]![ds[lane]!]!;
              warpHist[w]![ds[lane]!] = bases[lane]! + popc(peers);
            }
          }
          for (let lane = 0; lane < 32; lane++) {
            const peers = peersOf[lane]!;
            const leader = Math.clz32(peers & -peers) ^ 31;
            const below = popc(peers & ((lane === 31 ? 0x80000000 : 1 << lane) - 1));
            ranks[w * 32 + lane]![j] = bases[leader]! + below;
          }
        }
      }
      const sCount = new Array<number>(RADIX).fill(0);
      for (let d = 0; d < RADIX; d++) {
        let sum = 0;
        for (let w = 0; w < warps; w++) {
          const c = warpHist[w]![d]!;
          warpHist[w]![d] = sum;
          sum += c;
        }
        lookback[tile * RADIX + d] = { flag: tile === 0 ? 2 : 1, value: sum };
        sCount[d] = sum;
      }
      // the block scan: 32-digit warp scans, then the warps' totals before
      const sIncl = new Array<number>(RADIX).fill(0);
      const warpTot: number[] = [];
      for (let w = 0; w < RADIX / 32; w++) {
        let x = 0;
        for (let lane = 0; lane < 32; lane++) {
          x += sCount[w * 32 + lane]!;
          sIncl[w * 32 + lane] = x;
        }
        warpTot[w] = x;
      }
      const sStart = sCount.map((c, d) => {
        let before = 0;
        for (let w = 0; w < d >> 5; w++) before += warpTot[w]!;
        return before + sIncl[d]! - c;
      });
      const sKeys = new Array<bigint>(tileCount);
      const sVals = new Array<number>(tileCount);
      const taken = new Uint8Array(tileCount);
      for (let t = 0; t < o.block; t++) {
        const w = t >> 5;
        for (let j = 0; j < o.items; j++) {
          const d = digits[t]![j]!;
          if (d < RADIX) {
            const pos = sStart[d]! + warpHist[w]![d]! + ranks[t]![j]!;
            if (pos < 0 || pos >= tileCount || taken[pos]) throw new Error(`tile ${tile}: shared position ${pos} taken twice or outside`);
            taken[pos] = 1;
            sKeys[pos] = keys[t]![j]!;
            sVals[pos] = vals[t]![j]!;
          }
        }
      }
      states.push({ tileCount, sKeys, sVals, sCount, sStart });
    }
    // Phase 2, tiles in a shuffled order: look back, then scatter.
    const order = [...Array(tiles).keys()];
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [order[i], order[j]] = [order[j]!, order[i]!];
    }
    for (const tile of order) {
      const st = states[tile]!;
      const sBase = new Array<number>(RADIX);
      for (let d = 0; d < RADIX; d++) {
        let before = 0;
        if (tile > 0) {
          let k = tile - 1;
          for (;;) {
            const e = lookback[k * RADIX + d]!;
            if (e.flag === 0) throw new Error("spinning on an unpublished tile");
            before += e.value;
            if (e.flag === 2) break;
            k--;
          }
          lookback[tile * RADIX + d] = { flag: 2, value: before + st.sCount[d]! };
        }
        sBase[d] = starts[pass]![d]! + before - st.sStart[d]!;
      }
      for (let i = 0; i < st.tileCount; i++) {
        const k = st.sKeys[i]!;
        const v = st.sVals[i]!;
        const g = sBase[digitOf(k, v, pass)]! + i;
        if (g < 0 || g >= n || written[g]) throw new Error(`pass ${pass}: global position ${g} written twice or outside`);
        written[g] = 1;
        keysOut[g] = k;
        valsOut[g] = v;
      }
    }
    keysIn = keysOut;
    valsIn = valsOut;
  }
  const local = rows > 1;
  return { keys: keysIn, values: o.pairs ? valsIn.map((v) => (local ? v % o.rowLength : v)) : [] };
}

/** A stable sort of (row, ordered key) on the host: the expected keys and indices within rows. */
function reference(ordered: readonly bigint[], rowLength: number): { keys: bigint[]; values: number[] } {
  const idx = [...ordered.keys()];
  idx.sort((a, b) => {
    const ra = Math.floor(a / rowLength);
    const rb = Math.floor(b / rowLength);
    if (ra !== rb) return ra - rb;
    const ka = ordered[a]!;
    const kb = ordered[b]!;
    return ka < kb ? -1 : ka > kb ? 1 : a - b;
  });
  return { keys: idx.map((i) => ordered[i]!), values: idx.map((i) => i % rowLength) };
}

function randomKeys(n: number, bits: number, seed: number, distinct: number | undefined = undefined): bigint[] {
  const r = rng(seed);
  const words = Math.ceil(bits / 32);
  return Array.from({ length: n }, () => {
    if (distinct !== undefined) return BigInt(Math.floor(r() * distinct));
    let v = 0n;
    for (let w = 0; w < words; w++) v = (v << 32n) | BigInt(Math.floor(r() * 2 ** 32));
    return v & mask(bits);
  });
}

describe("sort key types", () => {
  it("gives every dtype its word, passes and kind", () => {
    const got = Object.fromEntries(ALL.map((n) => [n, ((k) => `${k.kind}/${k.word}/${k.keyPasses}`)(sortKeyType(dtypes[n]))]));
    expect(got).toEqual({
      bool: "bool/unsigned char/1",
      int8: "signed/unsigned char/1",
      uint8: "unsigned/unsigned char/1",
      int16: "signed/unsigned short/2",
      uint16: "unsigned/unsigned short/2",
      int32: "signed/unsigned int/4",
      uint32: "unsigned/unsigned int/4",
      int64: "signed/unsigned long long/8",
      uint64: "unsigned/unsigned long long/8",
      float16: "float/unsigned short/2",
      bfloat16: "float/unsigned short/2",
      float32: "float/unsigned int/4",
      float64: "float/unsigned long long/8",
      complex64: "complex/unsigned int/8",
      complex128: "complex/unsigned long long/16",
    });
  });

  const specials = [NaN, -Infinity, -1e30, -3.5, -1, -1e-40, -0, 0, 1e-40, 1, 2.5, 65504, 1e30, Infinity, -NaN];
  for (const name of ["float16", "bfloat16", "float32", "float64"] as const) {
    it(`orders ${name} words as NumPy orders the numbers (NaN last) and transforms back`, () => {
      const k = sortKeyType(dtypes[name]);
      const bits = specials.map((v) => floatBits(name, v));
      // a NaN with the sign bit set, and one with a payload
      const W = k.wordBits;
      bits.push((1n << BigInt(W - 1)) | infOf(k) | 1n, infOf(k) | 3n);
      const decode = (b: bigint): number => {
        const dv = new DataView(new ArrayBuffer(8));
        if (name === "float32") {
          dv.setUint32(0, Number(b));
          return dv.getFloat32(0);
        }
        if (name === "float64") {
          dv.setBigUint64(0, b);
          return dv.getFloat64(0);
        }
        // half and bfloat16: widen to float32 bits
        const f = name === "bfloat16" ? Number(b) << 16 : halfToFloat32Bits(Number(b));
        dv.setUint32(0, f >>> 0);
        return dv.getFloat32(0);
      };
      for (const canon of [false, true]) {
        const ords = bits.map((b) => toOrdered(k, b, canon));
        const sorted = bits.map((b, i) => ({ v: decode(b), o: ords[i]! })).sort((a, b) => (a.o < b.o ? -1 : a.o > b.o ? 1 : 0));
        const values = sorted.map((e) => e.v);
        const expected = [...values].sort(numpyOrder);
        expect(values.map(String)).toEqual(expected.map(String));
        // -0 and +0: one word when canonical, -0 first otherwise
        const zeros = [floatBits(name, -0), floatBits(name, 0)].map((b) => toOrdered(k, b, canon));
        if (canon) expect(zeros[0]).toBe(zeros[1]);
        else expect(zeros[0]! < zeros[1]!).toBe(true);
        // non-NaN words come back as they were; NaN comes back as a NaN
        for (let i = 0; i < bits.length; i++) {
          const back = fromOrdered(k, ords[i]!);
          const v = decode(bits[i]!);
          if (Number.isNaN(v)) expect(Number.isNaN(decode(back))).toBe(true);
          else if (!(canon && v === 0)) expect(back).toBe(bits[i]);
        }
      }
    });
  }

  it("orders signed integers by flipping the sign bit, and complex numbers by (real, imaginary) with NaN last", () => {
    for (const [name, bits] of [["int8", 8], ["int16", 16], ["int32", 32], ["int64", 64]] as const) {
      const k = sortKeyType(dtypes[name]);
      const vals = [-(2n ** BigInt(bits - 1)), -5n, -1n, 0n, 1n, 7n, 2n ** BigInt(bits - 1) - 1n];
      const ords = vals.map((v) => toOrdered(k, BigInt.asUintN(bits, v), false));
      for (let i = 1; i < ords.length; i++) expect(ords[i - 1]! < ords[i]!).toBe(true);
      vals.forEach((v, i) => expect(BigInt.asIntN(bits, fromOrdered(k, ords[i]!))).toBe(v));
    }
    const k = sortKeyType(dtypes.complex64);
    const c = (re: number, im: number): bigint => (floatBits("float32", re) << 32n) | floatBits("float32", im);
    // NumPy: [R + Rj, R + nanj, nan + Rj, nan + nanj], each group by value:
    // np.sort(np.array([nan+nanj, complex(nan, 1), complex(1, nan), 1+2j, 1-2j, -3+5j, complex(nan, -4), 2+0j,
    //                   complex(-1, nan)], np.complex64))
    // → [-3+5j, 1-2j, 1+2j, 2+0j, -1+nanj, 1+nanj, nan-4j, nan+1j, nan+nanj]
    const list = [c(NaN, NaN), c(NaN, 1), c(1, NaN), c(1, 2), c(1, -2), c(-3, 5), c(NaN, -4), c(2, 0), c(-1, NaN)];
    const sorted = [...list].sort((a, b) => {
      const x = toOrdered(k, a, false);
      const y = toOrdered(k, b, false);
      return x < y ? -1 : x > y ? 1 : 0;
    });
    expect(sorted.map((v) => list.indexOf(v))).toEqual([5, 4, 3, 7, 8, 2, 6, 1, 0]);
    // Back from the ordered words: the parts without NaN as they were, NaN parts as the canonical NaN.
    const parts = (x: bigint): [number, number] => {
      const dv = new DataView(new ArrayBuffer(8));
      dv.setBigUint64(0, x);
      return [dv.getFloat32(0), dv.getFloat32(4)];
    };
    for (const v of list) expect(parts(fromOrdered(k, toOrdered(k, v, false)))).toEqual(parts(v));
    expect(fromOrdered(k, toOrdered(k, c(1, NaN), false)) & 0xffffffffn).toBe(0x7fffffffn);
  });
});

function halfToFloat32Bits(h: number): number {
  const s = (h >> 15) & 1;
  const e = (h >> 10) & 0x1f;
  const m = h & 0x3ff;
  const dv = new DataView(new ArrayBuffer(4));
  let v: number;
  if (e === 0) v = m * 2 ** -24;
  else if (e === 31) v = m === 0 ? Infinity : NaN;
  else v = (1 + m / 1024) * 2 ** (e - 15);
  dv.setFloat32(0, s ? -v : v);
  if (e === 31 && m !== 0) return (s << 31) | 0x7fc00000;
  return dv.getUint32(0);
}

describe("sort plan", () => {
  it("counts passes, tiles and rows", () => {
    const f32 = sortKeyType(dtypes.float32);
    const p = sortPlan(f32, 2 ** 28, 2 ** 28, false);
    expect([p.keyPasses, p.rowPasses, p.passes, p.pairs, p.itemsPerThread, p.tile, p.tiles, p.wideLookback]).toEqual([4, 0, 4, false, 24, 6144, Math.ceil(2 ** 28 / 6144), false]);
    const q = sortPlan(f32, 37_000, 37, false);
    expect([q.rows, q.rowPasses, q.passes, q.pairs, q.itemsPerThread]).toEqual([1000, 2, 6, true, 16]);
    const r = sortPlan(sortKeyType(dtypes.complex128), 1000, 1000, true);
    expect([r.passes, r.pairs, r.itemsPerThread, r.tiles]).toEqual([16, true, 8, 1]);
    expect(sortPlan(sortKeyType(dtypes.bool), 5, 5, false).passes).toBe(1);
    expect(sortPlan(f32, NARROW_LOOKBACK_LIMIT + 1, NARROW_LOOKBACK_LIMIT + 1, false).wideLookback).toBe(true);
    expect(sortPlan(f32, NARROW_LOOKBACK_LIMIT, NARROW_LOOKBACK_LIMIT, false).wideLookback).toBe(false);
    expect([1, 2, 256, 257, 65536, 65537].map(rowPassesFor)).toEqual([0, 1, 1, 2, 2, 3]);
  });

  it("lays out the scratch memory without overlaps, aligned", () => {
    for (const [name, n, row, arg] of [["float32", 1_000_003, 1_000_003, false], ["int64", 37_000, 1000, true], ["uint8", 1, 1, true]] as const) {
      const p = sortPlan(sortKeyType(dtypes[name]), n, row, arg);
      expect(p.startsOffset).toBe(0);
      expect(p.histogramOffset).toBe(p.passes * RADIX * 8);
      expect(p.countersOffset).toBe(p.histogramOffset + p.passes * RADIX * 8);
      expect(p.lookbackOffset).toBeGreaterThanOrEqual(p.countersOffset + p.passes * 4);
      expect(p.lookbackOffset % 16).toBe(0);
      expect(p.lookbackPassBytes).toBe(p.tiles * RADIX * (p.wideLookback ? 8 : 4));
      expect(p.scratchBytes).toBe(p.lookbackOffset + p.passes * p.lookbackPassBytes);
      expect(p.scratchBytes % 4).toBe(0);
    }
  });

  it("ends every pass sequence in the destination and alternates with one temporary", () => {
    for (let passes = 1; passes <= 24; passes++) {
      const targets = Array.from({ length: passes }, (_, p) => passTarget(p, passes));
      expect(targets[passes - 1]).toBe("final");
      for (let p = 1; p < passes; p++) expect(targets[p]).not.toBe(targets[p - 1]);
    }
  });

  it("gives each onesweep block the shared memory the kernel lays out, within an H100's 227 KiB", () => {
    // Keys alone: 256 threads × 24 keys, 8 warp histograms; with indices: 384 × 16 keys and indices, 12 histograms.
    expect(onesweepSharedBytes(4, false)).toBe(6144 * 4 + 2048 + 8 * 1024 + 128 + 16);
    expect(onesweepSharedBytes(4, true)).toBe(6144 * 4 + 6144 * 8 + 2048 + 12 * 1024 + 128 + 16);
    for (const b of [1, 2, 4, 8, 16]) for (const pairs of [false, true]) expect(onesweepSharedBytes(b, pairs)).toBeLessThanOrEqual(227 * 1024);
    // One thread per digit.
    expect(SORT_BLOCK).toBeGreaterThanOrEqual(RADIX);
    expect(SORT_PAIR_BLOCK).toBeGreaterThanOrEqual(RADIX);
  });
});

describe("the onesweep kernel a sort compiles", () => {
  it("is the plan's variant alone: keys, pairs (argsort) or rows, narrow or wide look-back", () => {
    const f32 = sortKeyType(dtypes.float32);
    const names = ONESWEEP_VARIANTS.map((v) => SORT_KERNELS.onesweep(v.pairs, v.wide, v.rows));
    expect(new Set(names).size).toBe(6);
    expect(onesweepVariant(sortPlan(f32, 1000, 1000, false))).toEqual({ pairs: false, wide: false, rows: false });
    expect(onesweepVariant(sortPlan(f32, 1000, 1000, true))).toEqual({ pairs: true, wide: false, rows: false });
    expect(onesweepVariant(sortPlan(f32, 1000, 10, false))).toEqual({ pairs: true, wide: false, rows: true });
    expect(onesweepVariant(sortPlan(f32, NARROW_LOOKBACK_LIMIT + 1, NARROW_LOOKBACK_LIMIT + 1, false))).toEqual({ pairs: false, wide: true, rows: false });
    for (const v of ONESWEEP_VARIANTS) {
      const src = sortSource(f32, [v]);
      const name = SORT_KERNELS.onesweep(v.pairs, v.wide, v.rows);
      for (const other of names) expect(src.includes(` ${other}(`), `${name} source, kernel ${other}`).toBe(other === name);
      for (const kernel of [SORT_KERNELS.histogram, SORT_KERNELS.scan, SORT_KERNELS.uniqueCount, SORT_KERNELS.uniqueScan, SORT_KERNELS.uniqueWrite, SORT_KERNELS.uniqueRuns]) expect(src).toContain(` ${kernel}(`);
    }
    const base = sortSource(f32, []);
    for (const other of names) expect(base).not.toContain(` ${other}(`);
  });
});

describe("sort source", () => {
  for (const name of ALL) {
    it(`generates balanced source with every kernel for ${name}`, () => {
      const k = sortKeyType(dtypes[name]);
      const src = sortSource(k);
      for (const kernel of [SORT_KERNELS.uniqueCount, SORT_KERNELS.uniqueScan, SORT_KERNELS.uniqueWrite, SORT_KERNELS.uniqueRuns, SORT_KERNELS.histogram, SORT_KERNELS.scan, SORT_KERNELS.onesweep(false, false), SORT_KERNELS.onesweep(false, true), SORT_KERNELS.onesweep(true, false), SORT_KERNELS.onesweep(true, true), SORT_KERNELS.onesweep(true, false, true), SORT_KERNELS.onesweep(true, true, true)]) {
        expect(src).toContain(`extern "C" __global__ void __launch_bounds__(`);
        expect(src).toContain(` ${kernel}(`);
      }
      expect(src).toContain(`#define KEY_PASSES ${k.keyPasses}\n`);
      expect(src).toContain(`onesweep<${SORT_BLOCK}, ${itemsPerThread(k.keyBytes, false)}, false, false, unsigned int>`);
      expect(src).toContain(`onesweep<${SORT_PAIR_BLOCK}, ${itemsPerThread(k.keyBytes, true)}, true, false, u64>`);
      expect(src).toContain(`onesweep<${SORT_PAIR_BLOCK}, ${itemsPerThread(k.keyBytes, true)}, true, true, u64>`);
      expect(src).not.toMatch(/undefined|[(, ]NaN[),;]|\[object/);
      let depth = 0;
      for (const ch of src) {
        if (ch === "{" || ch === "(") depth++;
        if (ch === "}" || ch === ")") depth--;
        expect(depth).toBeGreaterThanOrEqual(0);
      }
      expect(depth).toBe(0);
      expect(src).not.toContain("#include");
    });
  }

  it.skipIf(!nvccPresent)("compiles with nvcc for sm_90 where nvcc is installed (float32, complex128, bool, int16)", () => {
    const sources = Object.fromEntries((["float32", "complex128", "bool", "int16"] as const).map((name) => [name, sortSource(sortKeyType(dtypes[name]))]));
    expect(nvccProblems(sources)).toEqual([]);
  }, 300_000);
});

describe("sort axis", () => {
  it("takes -1 by default, null for the flattened array, and refuses what is out of range", () => {
    expect(sortAxis(undefined, 2, "sort")).toBe(1);
    expect(sortAxis(-2, 2, "sort")).toBe(0);
    expect(sortAxis(null, 0, "sort")).toBeNull();
    expect(() => sortAxis(2, 2, "sort")).toThrow(AxisError);
    expect(() => sortAxis(-1, 0, "sort")).toThrow(/0-d array/);
    expect(() => sortAxis(0.5, 1, "argsort")).toThrow(AxisError);
  });

  it("argsort of a 0-d array sorts it as a 1-d one (NumPy's [0]); sort of one needs axis null", () => {
    const z = fakeArray([], "float32");
    // np.argsort(np.array(5.)) → [0], with axis -1, 0 or None too; np.sort(np.array(5.)) → AxisError
    for (const axis of [undefined, -1, 0, null]) expect(() => ca.argsort(z, axis === undefined ? undefined : { axis }), String(axis)).toThrow("needs a stream");
    expect(() => ca.argsort(z, { axis: 1 })).toThrow(AxisError);
    expect(() => ca.sort(z)).toThrow(AxisError);
    expect(() => ca.sort(z, { axis: null })).toThrow("needs a stream");
  });
});

describe("onesweep simulation", () => {
  const cases: { what: string; n: number; bits: number; row: number; pairs: boolean; block: number; items: number; distinct?: number }[] = [
    { what: "32-bit keys over many small tiles", n: 3000, bits: 32, row: 3000, pairs: false, block: 64, items: 3 },
    { what: "argsort of many duplicates (stability)", n: 2500, bits: 16, row: 2500, pairs: true, block: 64, items: 5, distinct: 7 },
    { what: "rows of 37 (key passes, then row passes)", n: 37 * 60, bits: 16, row: 37, pairs: true, block: 32, items: 4, distinct: 50 },
    { what: "rows of 300 over 300 rows (two row digits)", n: 300 * 300, bits: 8, row: 300, pairs: true, block: 128, items: 7 },
    { what: "the real tile (256 × 24) with a partial last tile", n: 6144 * 2 + 17, bits: 32, row: 6144 * 2 + 17, pairs: false, block: SORT_BLOCK, items: 24 },
    { what: "the real pairs tile (384 × 10), 64-bit keys", n: 3840 + 1, bits: 64, row: 3840 + 1, pairs: true, block: SORT_PAIR_BLOCK, items: 10, distinct: 1000 },
    { what: "one element", n: 1, bits: 32, row: 1, pairs: true, block: 64, items: 2 },
  ];
  for (const c of cases) {
    it(c.what, () => {
      const ordered = randomKeys(c.n, c.bits, c.n + c.bits, c.distinct);
      const got = simulate(ordered, { block: c.block, items: c.items, keyPasses: c.bits / 8, rowLength: c.row, pairs: c.pairs, seed: 7 });
      const want = reference(ordered, c.row);
      expect(got.keys).toEqual(want.keys);
      if (c.pairs) expect(got.values).toEqual(want.values);
    });
  }

  it("sorts float32 words with NaN, -0.0 and duplicates end to end (transform, passes, transform back)", () => {
    const k = sortKeyType(dtypes.float32);
    const r = rng(3);
    const values = Array.from({ length: 2000 }, (_, i) => (i % 97 === 0 ? NaN : i % 89 === 0 ? -0 : i % 83 === 0 ? 0 : Math.round((r() - 0.5) * 200) / 4));
    const bits = values.map((v) => floatBits("float32", v));
    const ordered = bits.map((b) => toOrdered(k, b, true));
    const got = simulate(ordered, { block: 64, items: 4, keyPasses: 4, rowLength: values.length, pairs: true, seed: 11 });
    const dv = new DataView(new ArrayBuffer(4));
    const decoded = got.keys.map((u) => {
      dv.setUint32(0, Number(fromOrdered(k, u)));
      return dv.getFloat32(0);
    });
    const expectedIdx = [...values.keys()].sort((a, b) => numpyOrder(values[a]!, values[b]!) || a - b);
    expect(got.values).toEqual(expectedIdx);
    expect(decoded.map(String)).toEqual(expectedIdx.map((i) => String(values[i] === 0 ? 0 : values[i])));
  });
});

describe("unique simulation", () => {
  /** The count, scan and write kernels of unique, block by block, on sorted words. */
  function simulateUnique(sorted: readonly bigint[], block: number, items: number, scanThreads: number): bigint[] {
    const n = sorted.length;
    const chunk = block * items;
    const blocks = Math.ceil(n / chunk);
    const head = (i: number): number => (i === 0 || sorted[i] !== sorted[i - 1] ? 1 : 0);
    const counts = Array.from({ length: blocks }, (_, b) => {
      let c = 0;
      for (let t = 0; t < block; t++) for (let j = 0; j < items; j++) {
        const i = b * chunk + j * block + t;
        if (i < n) c += head(i);
      }
      return c;
    });
    // the scan: each thread a contiguous range of `per` counts
    const per = Math.ceil(blocks / scanThreads);
    const sums = Array.from({ length: scanThreads }, (_, t) => {
      const lo = Math.min(blocks, t * per);
      const hi = Math.min(lo + per, blocks);
      let s = 0;
      for (let i = lo; i < hi; i++) s += counts[i]!;
      return s;
    });
    const offsets = new Array<number>(blocks + 1);
    let incl = 0;
    for (let t = 0; t < scanThreads; t++) {
      incl += sums[t]!;
      let run = incl - sums[t]!;
      const lo = Math.min(blocks, t * per);
      const hi = Math.min(lo + per, blocks);
      for (let i = lo; i < hi; i++) {
        offsets[i] = run;
        run += counts[i]!;
      }
    }
    offsets[blocks] = incl;
    const out = new Array<bigint>(offsets[blocks]!);
    for (let b = 0; b < blocks; b++) {
      let carry = 0;
      for (let j = 0; j < items; j++) {
        const hs = Array.from({ length: block }, (_, t) => {
          const i = b * chunk + j * block + t;
          return i < n ? head(i) : 0;
        });
        const warpTot = Array.from({ length: block / 32 }, (_, w) => hs.slice(w * 32, w * 32 + 32).reduce((x, y) => x + y, 0));
        for (let t = 0; t < block; t++) {
          if (!hs[t]) continue;
          const w = t >> 5;
          let before = carry;
          for (let ww = 0; ww < w; ww++) before += warpTot[ww]!;
          const inWarp = hs.slice(w * 32, t).reduce((x, y) => x + y, 0);
          const pos = offsets[b]! + before + inWarp;
          if (out[pos] !== undefined) throw new Error(`unique: position ${pos} written twice`);
          out[pos] = sorted[b * chunk + j * block + t]!;
        }
        carry += warpTot.reduce((x, y) => x + y, 0);
      }
    }
    return out;
  }

  it("keeps the first of each run, in order, across blocks (small and real block shapes)", () => {
    for (const [n, distinct, block, items, scan] of [
      [5000, 40, 64, 3, 8],
      [20_000, 19_000, 64, 5, 4],
      [1, 1, 64, 2, 8],
      [UNIQUE_BLOCK * UNIQUE_ITEMS * 3 + 5, 500, UNIQUE_BLOCK, UNIQUE_ITEMS, UNIQUE_SCAN_BLOCK],
    ] as const) {
      const sorted = randomKeys(n, 32, n, distinct).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      expect(simulateUnique(sorted, block, items, scan)).toEqual([...new Set(sorted)]);
    }
  });

  /**
   * The runs kernel (unique's indices, inverse and counts), block by block as it runs: each key's run from the heads
   * before it in its block (the block's offset, the warps before, the lanes up to it in its warp), the heads' writes
   * and the inverse's scatter through the permutation.
   */
  function simulateRuns(sorted: readonly bigint[], perm: readonly number[], block: number, items: number): { out: bigint[]; first: number[]; starts: number[]; inverse: number[] } {
    const n = sorted.length;
    const chunk = block * items;
    const blocks = Math.ceil(n / chunk);
    const head = (i: number): number => (i === 0 || sorted[i] !== sorted[i - 1] ? 1 : 0);
    const offsets = [0];
    for (let b = 0; b < blocks; b++) {
      let c = 0;
      for (let i = b * chunk; i < Math.min(n, (b + 1) * chunk); i++) c += head(i);
      offsets.push(offsets[b]! + c);
    }
    const total = offsets[blocks]!;
    const out = new Array<bigint>(total);
    const first = new Array<number>(total);
    const starts = new Array<number>(total + 1);
    const inverse = new Array<number>(n);
    const once = <T,>(a: T[], at: number, v: T, what: string): void => {
      if (a[at] !== undefined) throw new Error(`${what}[${at}] written twice`);
      a[at] = v;
    };
    for (let b = 0; b < blocks; b++) {
      if (b === 0) once(starts, offsets[blocks]!, n, "starts");
      let carry = 0;
      for (let j = 0; j < items; j++) {
        const hs = Array.from({ length: block }, (_, t) => {
          const i = b * chunk + j * block + t;
          return i < n ? head(i) : 0;
        });
        const ballots = Array.from({ length: block / 32 }, (_, w) => hs.slice(w * 32, w * 32 + 32).reduce((x, h, lane) => (x | (h << lane)) >>> 0, 0));
        const warpTot = ballots.map(popc);
        for (let t = 0; t < block; t++) {
          const i = b * chunk + j * block + t;
          if (i >= n) continue;
          const lane = t & 31;
          const w = t >> 5;
          let before = carry;
          for (let ww = 0; ww < w; ww++) before += warpTot[ww]!;
          // (1u << lane) - 1u in 32-bit unsigned arithmetic: the lanes below; a key that heads no run is in the one before.
          const below = (((1 << lane) >>> 0) - 1) >>> 0;
          const run = offsets[b]! + before + popc(ballots[w]! & below) + hs[t]! - 1;
          if (hs[t]) {
            once(out, run, sorted[i]!, "out");
            once(first, run, perm[i]!, "first");
            once(starts, run, i, "starts");
          }
          once(inverse, perm[i]!, run, "inverse");
        }
        carry += warpTot.reduce((x, y) => x + y, 0);
      }
    }
    return { out, first, starts, inverse };
  }

  it("gives each key its run: the values, first occurrences, run starts and the inverse (small and real block shapes)", () => {
    for (const [n, distinct, block, items] of [
      [5000, 40, 64, 3],
      [20_000, 19_000, 64, 5],
      [1, 1, 64, 2],
      [33, 2, 32, 1],
      [UNIQUE_BLOCK * UNIQUE_ITEMS * 3 + 5, 500, UNIQUE_BLOCK, UNIQUE_ITEMS],
    ] as const) {
      const data = randomKeys(n, 32, n + 1, distinct);
      // The stable argsort the sort gives with indices, and the keys in its order.
      const perm = [...data.keys()].sort((a, b) => (data[a]! < data[b]! ? -1 : data[a]! > data[b]! ? 1 : a - b));
      const sorted = perm.map((i) => data[i]!);
      const got = simulateRuns(sorted, perm, block, items);
      // NumPy's unique on the data: sorted values, the first index of each, the index of each element's value, counts.
      const firstAt = new Map<bigint, number>();
      const count = new Map<bigint, number>();
      data.forEach((v, i) => {
        if (!firstAt.has(v)) firstAt.set(v, i);
        count.set(v, (count.get(v) ?? 0) + 1);
      });
      const values = [...firstAt.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      const rank = new Map(values.map((v, k) => [v, k]));
      expect(got.out, `n=${n}`).toEqual(values);
      expect(got.first).toEqual(values.map((v) => firstAt.get(v)!));
      expect(got.inverse).toEqual(data.map((v) => rank.get(v)!));
      const counts = got.starts.slice(1).map((e, k) => e - got.starts[k]!);
      expect(counts).toEqual(values.map((v) => count.get(v)!));
    }
  });
});
