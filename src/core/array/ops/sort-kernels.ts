/**
 * The device code and the host-side plan of the radix sort behind `sort` and `argsort`: an LSD radix sort with 8-bit
 * digits in the onesweep design (one upfront kernel counts the digits of every pass at once, a small kernel scans
 * each pass's 256 counts, then one kernel per pass ranks a tile of keys by its digit within the block, publishes the
 * tile's digit counts, looks back over the earlier tiles' counts (decoupled look-back) and scatters the keys, and the
 * int64 indices when they travel with them, to their places).
 *
 * Keys are sorted as order-preserving unsigned words of their bits: floats flip every bit when negative and the sign
 * bit otherwise (every NaN becomes the greatest word, so NaN sorts last; `-0.0` may become `+0.0` where equal values
 * must keep their order), signed integers flip the sign bit, bool becomes 0 or 1, and complex numbers sort by
 * (real, imaginary) as two float words, the imaginary part's digits first. Sorting along an axis of several rows sorts
 * by the key's digits, then stably by the row index's digits (taken from the travelling index), so each row ends up
 * sorted in its own place.
 *
 * @module
 * @internal
 */
import type { DType, DTypeName } from "../dtype.ts";

/** Bits per digit; every pass sorts by one digit. */
export const RADIX_BITS = 8;
/** Bins per digit. */
export const RADIX = 1 << RADIX_BITS;
/** Threads per block of the onesweep kernels that sort keys alone (`sortTuning.keyBlock`'s default). */
export const SORT_BLOCK = 256;
/** Threads per block of the onesweep kernels whose keys carry indices (`sortTuning.pairBlock`'s default). */
export const SORT_PAIR_BLOCK = 384;
/** Threads per block of the histogram and scan kernels. */
export const HISTOGRAM_BLOCK = 256;
/** Keys each thread of the histogram kernel loads at once. */
export const HISTOGRAM_ITEMS = 8;
/** The most passes over the row index (rows up to 2^40). */
export const MAX_ROW_PASSES = 5;
/** The largest element count whose look-back entries fit 30 bits (above it the entries are 64-bit). */
export const NARROW_LOOKBACK_LIMIT = 2 ** 30 - 1;

/** Flags of a onesweep pass (the kernel's `flags` argument). */
export const PassFlag = Object.freeze({
  /** The first pass: keys are read as stored and transformed; indices are made from the positions. */
  FIRST: 1,
  /** The last pass: keys are transformed back; what is stored follows STORE_KEYS and STORE_VALUES. */
  LAST: 2,
  /** In the last pass: store the keys. */
  STORE_KEYS: 4,
  /** In the last pass: store the indices. */
  STORE_VALUES: 8,
  /** In the last pass: store each index modulo the row length (the index within its row). */
  LOCAL_INDEX: 16,
  /** Float keys: `-0.0` sorts as `+0.0` (equal keys keep their order, as argsort's stability needs). */
  CANONICAL_ZERO: 32,
});

/** How a dtype's elements become sortable words. */
export interface SortKeyType {
  /** The dtype. */
  readonly dtype: DTypeName;
  /** How the bits are ordered. */
  readonly kind: "bool" | "unsigned" | "signed" | "float" | "complex";
  /** The unsigned C type of one word (a complex key has two: real, imaginary). */
  readonly word: string;
  /** Bits of one word. */
  readonly wordBits: number;
  /** Bytes of one key (the element). */
  readonly keyBytes: number;
  /** Digit passes over the key. */
  readonly keyPasses: number;
  /** For floats: the bits of +infinity (a magnitude above it is NaN). */
  readonly infinityBits?: string;
}

const WORDS: Readonly<Record<number, string>> = { 8: "unsigned char", 16: "unsigned short", 32: "unsigned int", 64: "unsigned long long" };
const INFINITY_BITS: Readonly<Record<string, string>> = {
  float16: "0x7C00u",
  bfloat16: "0x7F80u",
  float32: "0x7F800000u",
  float64: "0x7FF0000000000000ull",
  complex64: "0x7F800000u",
  complex128: "0x7FF0000000000000ull",
};

/** The sort key type of `dtype`. */
export function sortKeyType(dtype: DType): SortKeyType {
  const name = dtype.name;
  const keyBytes = dtype.itemsize;
  const kind = name === "bool" ? "bool" : dtype.kind === "u" ? "unsigned" : dtype.kind === "i" ? "signed" : dtype.kind === "f" ? "float" : "complex";
  const wordBits = kind === "complex" ? keyBytes * 4 : keyBytes * 8;
  const base = { dtype: name, kind, word: WORDS[wordBits]!, wordBits, keyBytes, keyPasses: kind === "bool" ? 1 : (keyBytes * 8) / RADIX_BITS } as const;
  return INFINITY_BITS[name] !== undefined ? { ...base, infinityBits: INFINITY_BITS[name] } : base;
}

/** Threads per block of a onesweep kernel, without or with travelling indices (`pairs`). */
export function onesweepBlock(pairs: boolean): number {
  return pairs ? sortTuning.pairBlock : sortTuning.keyBlock;
}

/** Items per thread of a onesweep tile (more for narrow keys, fewer when int64 indices travel too). */
export function itemsPerThread(keyBytes: number, pairs: boolean): number {
  if (!pairs) return keyBytes <= 4 ? sortTuning.keyItems : keyBytes <= 8 ? sortTuning.wideKeyItems : 12;
  return keyBytes <= 4 ? sortTuning.pairItems : keyBytes <= 8 ? 10 : 8;
}

/**
 * @internal The onesweep kernels' tuning (kernels compile per value): `keyItems` and `pairItems`, the items per thread
 * of a tile of keys of up to 4 bytes without and with int64 indices; `wideKeyItems`, of 8-byte keys alone (18 keeps
 * the 4,608-key tile that 12 items gave at 384 threads; 16-byte keys alone take 12, 3,072 keys); `minBlocks`, the
 * blocks per multiprocessor the compiler keeps the keys-only kernels' registers for (`__launch_bounds__`' second
 * argument; 1 leaves it free); `keyBlock` and `pairBlock`, threads per onesweep block without and with indices
 * (multiples of 32, at least RADIX: a thread per digit).
 * Measured on an H100, sorts of 2^28 uint32 / float32 keys (median of 11, ms), 2 blocks unless said: at 384 threads,
 * 17 items 7.41 / 7.42, 18 items 7.43 / 7.22, 19 items 7.12 / 7.07 (7.20 / 7.15 in a later run, 7.13 / 7.17 at 1
 * block), 20 items 7.83 / 7.82, 23 items 7.54 / 7.59; at 256 threads (same later run), 21 items 7.15 / 7.12,
 * 22 items 6.95 / 6.88, 23 items 6.96 / 6.87 (7.00 / 6.95 at 3 blocks), 24 items 6.83 / 6.73, 25 items 6.85 / 6.70,
 * 27 items 6.96 / 7.02; at 512 threads, 14 and 15 items 7.9 to 8.1; cupy.sort in the same run 6.86 / 7.07.
 * Argsort of 2^28 float32 at 384 threads: 12 items 16.06 ms, 16 items 15.16, 20 items 22.65. Float64 keys alone,
 * 2^27: 256 × 18 8.85 and 8.77 ms, 384 × 12 9.20.
 */
export const sortTuning = { keyItems: 24, wideKeyItems: 18, pairItems: 16, minBlocks: 2, keyBlock: SORT_BLOCK, pairBlock: SORT_PAIR_BLOCK };

/** The onesweep kernels' compile-time tuning as a cache key. */
export function sortTuningKey(): string {
  return `${sortTuning.keyItems}|${sortTuning.wideKeyItems}|${sortTuning.pairItems}|${sortTuning.minBlocks}|${sortTuning.keyBlock}|${sortTuning.pairBlock}`;
}

/** Dynamic shared memory of a onesweep block (the kernel lays it out the same way; see the `onesweep` template in `sortSource`). */
export function onesweepSharedBytes(keyBytes: number, pairs: boolean): number {
  const block = onesweepBlock(pairs);
  const tile = block * itemsPerThread(keyBytes, pairs);
  const keys = Math.ceil((tile * keyBytes) / 16) * 16;
  const values = pairs ? tile * 8 : 0;
  return keys + values + RADIX * 8 + (block / 32) * RADIX * 4 + 32 * 4 + 16;
}

/** Bytes needed to tell `rows` rows apart, in digits. */
export function rowPassesFor(rows: number): number {
  let passes = 0;
  for (let r = rows - 1; r > 0; r = Math.floor(r / RADIX)) passes++;
  return passes;
}

/** Everything the host decides before a sort is queued. */
export interface SortPlan {
  /** Elements. */
  readonly n: number;
  /** Elements per row (the sorted axis's extent). */
  readonly rowLength: number;
  /** Rows. */
  readonly rows: number;
  readonly keyPasses: number;
  readonly rowPasses: number;
  /** keyPasses + rowPasses. */
  readonly passes: number;
  /** Whether int64 indices travel with the keys (argsort, or several rows). */
  readonly pairs: boolean;
  readonly block: number;
  readonly itemsPerThread: number;
  /** Keys per tile (block × itemsPerThread). */
  readonly tile: number;
  readonly tiles: number;
  /** Whether the look-back entries are 64-bit (more than 2^30 - 1 elements). */
  readonly wideLookback: boolean;
  /** Dynamic shared memory of a onesweep block. */
  readonly sharedBytes: number;
  /** Byte offsets in the scratch allocation: digit starts, histograms, tile counters, look-back (one region per pass). */
  readonly startsOffset: number;
  readonly histogramOffset: number;
  readonly countersOffset: number;
  readonly lookbackOffset: number;
  readonly lookbackPassBytes: number;
  /** Bytes of scratch; the part from `histogramOffset` on is zeroed before the sort. */
  readonly scratchBytes: number;
}

/** The plan of sorting `n` elements in rows of `rowLength` (n a multiple of it, both at least 1). */
export function sortPlan(key: SortKeyType, n: number, rowLength: number, argsort: boolean): SortPlan {
  const rows = n / rowLength;
  const rowPasses = rowPassesFor(rows);
  if (rowPasses > MAX_ROW_PASSES) throw new RangeError(`sort: ${rows} rows are more than the ${RADIX ** MAX_ROW_PASSES} a sort handles`);
  const pairs = argsort || rows > 1;
  const items = itemsPerThread(key.keyBytes, pairs);
  const tile = onesweepBlock(pairs) * items;
  const tiles = Math.ceil(n / tile);
  const passes = key.keyPasses + rowPasses;
  const wideLookback = n > NARROW_LOOKBACK_LIMIT;
  const startsOffset = 0;
  const histogramOffset = passes * RADIX * 8;
  const countersOffset = 2 * passes * RADIX * 8;
  const lookbackOffset = countersOffset + Math.ceil((passes * 4) / 16) * 16;
  const lookbackPassBytes = tiles * RADIX * (wideLookback ? 8 : 4);
  return {
    n,
    rowLength,
    rows,
    keyPasses: key.keyPasses,
    rowPasses,
    passes,
    pairs,
    block: onesweepBlock(pairs),
    itemsPerThread: items,
    tile,
    tiles,
    wideLookback,
    sharedBytes: onesweepSharedBytes(key.keyBytes, pairs),
    startsOffset,
    histogramOffset,
    countersOffset,
    lookbackOffset,
    lookbackPassBytes,
    scratchBytes: lookbackOffset + passes * lookbackPassBytes,
  };
}

/**
 * Where pass `p` of `passes` writes: the final destination when an even number of passes remain after it, the
 * temporary buffer otherwise, so that the last pass lands in the destination and one temporary buffer suffices.
 */
export function passTarget(p: number, passes: number): "final" | "temp" {
  return (passes - 1 - p) % 2 === 0 ? "final" : "temp";
}

/** Threads per block of the unique kernels. */
export const UNIQUE_BLOCK = 256;
/** Items per thread of the unique kernels. */
export const UNIQUE_ITEMS = 16;
/** Sorted keys per block of the unique kernels. */
export const UNIQUE_CHUNK = UNIQUE_BLOCK * UNIQUE_ITEMS;
/** Threads of the unique kernels' scan of the blocks' counts (one block). */
export const UNIQUE_SCAN_BLOCK = 1024;

/** The names of the kernels in a sort module. */
export const SORT_KERNELS = Object.freeze({
  histogram: "cuda_ts_sort_histogram",
  scan: "cuda_ts_sort_scan",
  uniqueCount: "cuda_ts_unique_count",
  uniqueScan: "cuda_ts_unique_scan",
  uniqueWrite: "cuda_ts_unique_write",
  uniqueRuns: "cuda_ts_unique_runs",
  /** By whether indices travel, whether the look-back is wide, and whether rows sort too (only with indices). */
  onesweep: (pairs: boolean, wide: boolean, rows = false): string => `cuda_ts_sort_onesweep_${pairs ? (rows ? "rows" : "pairs") : "keys"}_${wide ? "64" : "32"}`,
});

function keyCode(k: SortKeyType): string[] {
  const U = "U";
  const lines = [`typedef ${k.word} U;`, `#define WORD_BITS ${k.wordBits}`];
  if (k.kind === "float" || k.kind === "complex") {
    lines.push(
      `#define INF_BITS ((U)${k.infinityBits})`,
      "__device__ __forceinline__ U ord_word(U x, bool canonZero) {",
      "  const U SIGN = (U)((U)1 << (WORD_BITS - 1));",
      "  const U mag = (U)(x & (U)~SIGN);",
      "  if (mag > INF_BITS) return (U)~(U)0;  // every NaN: the greatest word, so NaN sorts last",
      "  if (canonZero && mag == (U)0) x = (U)0;  // -0.0 as +0.0",
      "  return (x & SIGN) ? (U)~x : (U)(x ^ SIGN);",
      "}",
      "__device__ __forceinline__ U unord_word(U u) {",
      "  const U SIGN = (U)((U)1 << (WORD_BITS - 1));",
      "  return (u & SIGN) ? (U)(u ^ SIGN) : (U)~u;",
      "}",
    );
  }
  if (k.kind === "complex") {
    lines.push(
      "struct K { U re; U im; };",
      "__device__ __forceinline__ bool nan_word(U x) { return (U)(x & (U)~(U)((U)1 << (WORD_BITS - 1))) > INF_BITS; }",
      "// NumPy's order: R + Rj, then R + nanj, then nan + Rj, then nan + nanj, each class by its parts without NaN. A class",
      "// with a NaN part takes an ordered real word just above +infinity's (ORD_INF + 1 to + 3) and puts its other part's",
      "// ordered word in the imaginary word; its NaN parts come back as the canonical NaN that a float sort gives.",
      "// The real parts always compare -0.0 equal to +0.0 (else (-0, -10) would sort before (+0, -8)); a real -0.0 comes back as +0.0",
      "#define ORD_INF ((U)(INF_BITS | (U)((U)1 << (WORD_BITS - 1))))",
      "__device__ __forceinline__ K to_ordered(K x, bool canonZero) {",
      "  const bool nr = nan_word(x.re), ni = nan_word(x.im);",
      "  K r;",
      "  if (!nr && !ni) { r.re = ord_word(x.re, true); r.im = ord_word(x.im, canonZero); }",
      "  else if (!nr) { r.re = (U)(ORD_INF + (U)1); r.im = ord_word(x.re, true); }",
      "  else if (!ni) { r.re = (U)(ORD_INF + (U)2); r.im = ord_word(x.im, canonZero); }",
      "  else { r.re = (U)(ORD_INF + (U)3); r.im = (U)0; }",
      "  return r;",
      "}",
      "__device__ __forceinline__ K from_ordered(K u) {",
      "  const U NAN_BITS = unord_word((U)~(U)0);",
      "  K r;",
      "  if (u.re <= ORD_INF) { r.re = unord_word(u.re); r.im = unord_word(u.im); }",
      "  else if (u.re == (U)(ORD_INF + (U)1)) { r.re = unord_word(u.im); r.im = NAN_BITS; }",
      "  else if (u.re == (U)(ORD_INF + (U)2)) { r.re = NAN_BITS; r.im = unord_word(u.im); }",
      "  else { r.re = NAN_BITS; r.im = NAN_BITS; }",
      "  return r;",
      "}",
      "// (real, imaginary) order: the imaginary word's digits are the less significant ones",
      "__device__ __forceinline__ unsigned int key_digit(const K& k, int pass) {",
      "  return pass < (int)sizeof(U) ? (unsigned int)((k.im >> (8 * pass)) & (U)255) : (unsigned int)((k.re >> (8 * (pass - (int)sizeof(U)))) & (U)255);",
      "}",
    );
    lines.push(
      "// unique, as NumPy's: every number with a NaN part is one value (sorted last, the first of them kept).",
      "__device__ __forceinline__ bool same_key(const K& a, const K& b) {",
      "  return (a.re == b.re && a.im == b.im) || ((nan_word(a.re) || nan_word(a.im)) && (nan_word(b.re) || nan_word(b.im)));",
      "}",
    );
    return lines;
  }
  lines.push("typedef U K;", "__device__ __forceinline__ bool same_key(const K& a, const K& b) { return a == b; }");
  switch (k.kind) {
    case "float":
      lines.push("__device__ __forceinline__ K to_ordered(K x, bool canonZero) { return ord_word(x, canonZero); }", "__device__ __forceinline__ K from_ordered(K u) { return unord_word(u); }");
      break;
    case "signed":
      lines.push(
        "__device__ __forceinline__ K to_ordered(K x, bool) { return (K)(x ^ (K)((K)1 << (WORD_BITS - 1))); }",
        "__device__ __forceinline__ K from_ordered(K u) { return (K)(u ^ (K)((K)1 << (WORD_BITS - 1))); }",
      );
      break;
    case "bool":
      lines.push("__device__ __forceinline__ K to_ordered(K x, bool) { return (K)(x != 0 ? 1 : 0); }", "__device__ __forceinline__ K from_ordered(K u) { return u; }");
      break;
    default:
      lines.push("__device__ __forceinline__ K to_ordered(K x, bool) { return x; }", "__device__ __forceinline__ K from_ordered(K u) { return u; }");
  }
  lines.push(`__device__ __forceinline__ unsigned int key_digit(const K& k, int pass) { return (unsigned int)((k >> (8 * pass)) & (${U})255); }`);
  return lines;
}

/** Which onesweep kernel a sort runs: whether indices travel, whether the look-back is wide, whether rows sort too. */
export interface OnesweepVariant {
  readonly pairs: boolean;
  readonly wide: boolean;
  readonly rows: boolean;
}

/** Every onesweep kernel a sort may run (rows only with indices). */
export const ONESWEEP_VARIANTS: readonly OnesweepVariant[] = Object.freeze(
  ([[false, false], [true, false], [true, true]] as const).flatMap(([pairs, rows]) => [false, true].map((wide) => Object.freeze({ pairs, wide, rows }))),
);

/** The onesweep kernel of a plan. */
export function onesweepVariant(plan: SortPlan): OnesweepVariant {
  return { pairs: plan.pairs, wide: plan.wideLookback, rows: plan.rows > 1 };
}

/**
 * A kernel over unique's blocks of sorted keys (`signature`: its name and parameters, with `keys`, `n` and `offsets`,
 * the heads before each block): `setup` once per thread, then for each key `i` of the block, in order, `body` with
 * `h` (whether `i` heads a run of equal keys) and `run` (the index of its run among the unique keys).
 */
function uniqueBlockKernel(signature: string, setup: readonly string[], body: readonly string[]): string[] {
  return [
    `extern "C" __global__ void __launch_bounds__(UNIQUE_BLOCK) ${signature} {`,
    "  __shared__ unsigned int warpTot[UNIQUE_BLOCK / 32];",
    "  __shared__ unsigned int carry;",
    "  const u64 base = (u64)blockIdx.x * UNIQUE_CHUNK;",
    "  const u64 start = offsets[blockIdx.x];",
    "  const unsigned int lane = threadIdx.x & 31u, w = threadIdx.x >> 5;",
    "  if (threadIdx.x == 0u) carry = 0u;",
    ...setup.map((l) => `  ${l}`),
    "  __syncthreads();",
    "  for (int j = 0; j < UNIQUE_ITEMS; j++) {",
    "    const u64 i = base + (u64)j * UNIQUE_BLOCK + threadIdx.x;",
    "    const unsigned int h = i < n ? is_head(keys, i) : 0u;",
    "    const unsigned int ballot = __ballot_sync(0xffffffffu, h != 0u);",
    "    if (lane == 0u) warpTot[w] = (unsigned int)__popc(ballot);",
    "    __syncthreads();",
    "    unsigned int before = carry;",
    "    for (unsigned int ww = 0u; ww < w; ww++) before += warpTot[ww];",
    "    if (i < n) {",
    "      // the heads before i in the block, and i's own: a key that heads no run belongs to the run before",
    "      const u64 run = start + (u64)before + (u64)__popc(ballot & ((1u << lane) - 1u)) + (u64)h - 1ull;",
    ...body.map((l) => `      ${l}`),
    "    }",
    "    __syncthreads();",
    "    if (threadIdx.x == 0u) {",
    "      unsigned int total = 0u;",
    "      for (int ww = 0; ww < UNIQUE_BLOCK / 32; ww++) total += warpTot[ww];",
    "      carry += total;",
    "    }",
    "    __syncthreads();",
    "  }",
    "}",
  ];
}

/**
 * The CUDA C++ source of the sort kernels for one key type (exported for tests): the histogram, scan and unique
 * kernels, and the onesweep kernels of `variants` (by default every one). Each onesweep kernel is a large unrolled
 * instantiation, so a sort compiles only the one it runs.
 */
export function sortSource(k: SortKeyType, variants: readonly OnesweepVariant[] = ONESWEEP_VARIANTS): string {
  const lines: string[] = [
    `// cuda-ts radix sort: ${k.dtype} keys (${k.kind}, ${k.keyPasses} digit passes)`,
    "typedef unsigned long long u64;",
    `#define RADIX ${RADIX}`,
    `#define KEY_PASSES ${k.keyPasses}`,
    `#define MAX_ROW_PASSES ${MAX_ROW_PASSES}`,
    `#define HIST_BLOCK ${HISTOGRAM_BLOCK}`,
    `#define HIST_ITEMS ${HISTOGRAM_ITEMS}`,
    `#define F_FIRST ${PassFlag.FIRST}`,
    `#define F_LAST ${PassFlag.LAST}`,
    `#define F_STORE_KEYS ${PassFlag.STORE_KEYS}`,
    `#define F_STORE_VALUES ${PassFlag.STORE_VALUES}`,
    `#define F_LOCAL_INDEX ${PassFlag.LOCAL_INDEX}`,
    `#define F_CANONICAL_ZERO ${PassFlag.CANONICAL_ZERO}`,
    ...keyCode(k),
    "",
    "// The digit of pass `pass`: the key's digits first, then the row index's (the index travels as the value).",
    "__device__ __forceinline__ unsigned int digit_of(const K& k, u64 v, int pass, u64 rowLen) {",
    "  if (pass < KEY_PASSES) return key_digit(k, pass);",
    "  return (unsigned int)(((v / rowLen) >> (8 * (pass - KEY_PASSES))) & 255ull);",
    "}",
    "",
    "// Every pass's digit counts at once: hist[pass][digit] (zeroed by the host).",
    `extern "C" __global__ void __launch_bounds__(HIST_BLOCK) ${SORT_KERNELS.histogram}(const K* __restrict__ keys, u64 n, u64 rowLen, int rowPasses, int flags, u64* __restrict__ hist) {`,
    "  __shared__ unsigned int sh[(KEY_PASSES + MAX_ROW_PASSES) * RADIX];",
    "  const int passes = KEY_PASSES + rowPasses;",
    "  const bool canonZero = (flags & F_CANONICAL_ZERO) != 0;",
    "  for (int i = threadIdx.x; i < passes * RADIX; i += blockDim.x) sh[i] = 0u;",
    "  __syncthreads();",
    "  // Chunks of HIST_ITEMS keys per thread, loaded before they are counted (several loads in flight per thread).",
    "  const u64 chunk = (u64)HIST_BLOCK * HIST_ITEMS;",
    "  for (u64 base = (u64)blockIdx.x * chunk; base < n; base += (u64)gridDim.x * chunk) {",
    "    K ks[HIST_ITEMS];",
    "#pragma unroll",
    "    for (int j = 0; j < HIST_ITEMS; j++) {",
    "      const u64 i = base + (u64)j * HIST_BLOCK + threadIdx.x;",
    "      if (i < n) ks[j] = keys[i];",
    "    }",
    "#pragma unroll",
    "    for (int j = 0; j < HIST_ITEMS; j++) {",
    "      const u64 i = base + (u64)j * HIST_BLOCK + threadIdx.x;",
    "      if (i < n) {",
    "        const K k = to_ordered(ks[j], canonZero);",
    "#pragma unroll",
    "        for (int p = 0; p < KEY_PASSES; p++) atomicAdd(&sh[p * RADIX + key_digit(k, p)], 1u);",
    "        if (rowPasses > 0) {",
    "          const u64 row = i / rowLen;",
    "          for (int p = 0; p < rowPasses; p++) atomicAdd(&sh[(KEY_PASSES + p) * RADIX + (unsigned int)((row >> (8 * p)) & 255ull)], 1u);",
    "        }",
    "      }",
    "    }",
    "  }",
    "  __syncthreads();",
    "  for (int i = threadIdx.x; i < passes * RADIX; i += blockDim.x) {",
    "    const unsigned int c = sh[i];",
    "    if (c != 0u) atomicAdd(&hist[i], (u64)c);",
    "  }",
    "}",
    "",
    "// starts[pass][digit]: the exclusive scan of hist[pass] (one block of RADIX threads per pass).",
    `extern "C" __global__ void __launch_bounds__(RADIX) ${SORT_KERNELS.scan}(const u64* __restrict__ hist, u64* __restrict__ starts) {`,
    "  __shared__ u64 s[RADIX];",
    "  const int t = threadIdx.x;",
    "  const u64 own = hist[(u64)blockIdx.x * RADIX + t];",
    "  s[t] = own;",
    "  __syncthreads();",
    "  for (int off = 1; off < RADIX; off <<= 1) {",
    "    const u64 add = t >= off ? s[t - off] : 0ull;",
    "    __syncthreads();",
    "    s[t] += add;",
    "    __syncthreads();",
    "  }",
    "  starts[(u64)blockIdx.x * RADIX + t] = s[t] - own;",
    "}",
    "",
    "extern __shared__ __align__(16) unsigned char cuda_ts_sort_smem[];",
    "",
    "template <typename LB> __device__ __forceinline__ void store_flag(LB* p, LB v) { *(volatile LB*)p = v; }",
    "template <typename LB> __device__ __forceinline__ LB load_flag(const LB* p) { return *(const volatile LB*)p; }",
    "",
    "// One pass: a tile per block, in the order the blocks start. The tile's digit counts come first (each warp counts its",
    "// items into a histogram of its own) and are published at once, so that later tiles looking back find them early.",
    "// Then each key is ranked within its warp (the lanes holding one digit find each other by ballots) and placed in",
    "// shared memory in the tile's sorted order (digit, then warp, then position in the warp); the counts of the earlier",
    "// tiles are looked back over (decoupled look-back); and the keys go out to their places. OFF, the type of a",
    "// position, is 32-bit where the look-back entries are (fewer than 2^30 elements). ROWS: several rows, whose index",
    "// digits (from the travelling index, a division) are sorted after the key's.",
    "template <int BLOCK, int IPT, bool VALS, bool ROWS, typename LB>",
    "__device__ __forceinline__ void onesweep(const K* __restrict__ keysIn, K* __restrict__ keysOut, const u64* __restrict__ valsIn, u64* __restrict__ valsOut,",
    "                                         u64 n, u64 rowLen, int pass, int flags, const u64* __restrict__ digitStart, LB* lookback, unsigned int* tileCounter) {",
    "  typedef LB OFF;",
    "  constexpr int WARPS = BLOCK / 32;",
    "  constexpr unsigned int TILE = BLOCK * IPT;",
    "  constexpr unsigned int WARP_ITEMS = 32 * IPT;",
    "  constexpr unsigned int KEYS_BYTES = (TILE * (unsigned int)sizeof(K) + 15u) & ~15u;",
    "  constexpr unsigned int VALS_BYTES = VALS ? TILE * 8u : 0u;",
    "  constexpr int LB_SHIFT = (int)sizeof(LB) * 8 - 2;",
    "  const LB LB_AGGREGATE = (LB)1 << LB_SHIFT;",
    "  const LB LB_INCLUSIVE = (LB)2 << LB_SHIFT;",
    "  const LB LB_VALUE = LB_AGGREGATE - (LB)1;",
    "  unsigned char* p = cuda_ts_sort_smem;",
    "  K* sKeys = (K*)p; p += KEYS_BYTES;",
    "  u64* sVals = (u64*)p; p += VALS_BYTES;",
    "  OFF* sBase = (OFF*)p; p += RADIX * 8;",
    "  unsigned int* sWarpHist = (unsigned int*)p; p += WARPS * RADIX * 4;",
    "  unsigned int* sWarpTot = (unsigned int*)p; p += 32 * 4;",
    "  unsigned int* sTile = (unsigned int*)p;",
    "  const unsigned int t = threadIdx.x, lane = t & 31u, w = t >> 5;",
    "  const bool first = (flags & F_FIRST) != 0, last = (flags & F_LAST) != 0;",
    "  const bool canonZero = (flags & F_CANONICAL_ZERO) != 0;",
    "",
    "  for (unsigned int i = t; i < WARPS * RADIX; i += BLOCK) sWarpHist[i] = 0u;",
    "  if (t == 0) sTile[0] = atomicAdd(tileCounter, 1u);",
    "  __syncthreads();",
    "  const unsigned int tile = sTile[0];",
    "  const u64 tileBase = (u64)tile * TILE;",
    "  const unsigned int tileCount = n - tileBase < (u64)TILE ? (unsigned int)(n - tileBase) : TILE;",
    "  const bool full = tileCount == TILE;",
    "",
    "  // Load: warp w holds the tile items w * WARP_ITEMS to (w + 1) * WARP_ITEMS - 1, item j of a lane at j * 32 + lane.",
    "  // A key's digit is recomputed where needed (a shift and a mask); a row index's digit (a division) is computed once",
    "  // and kept.",
    "  K keys[IPT];",
    "  u64 vals[IPT];",
    "  unsigned int digits[IPT];",
    "#pragma unroll",
    "  for (int j = 0; j < IPT; j++) {",
    "    const unsigned int local = w * WARP_ITEMS + (unsigned int)j * 32u + lane;",
    "    if (full || local < tileCount) {",
    "      const u64 g = tileBase + local;",
    "      K k = keysIn[g];",
    "      if (first) k = to_ordered(k, canonZero);",
    "      keys[j] = k;",
    "      if (VALS) vals[j] = first ? g : valsIn[g];",
    "      if (ROWS) digits[j] = digit_of(k, vals[j], pass, rowLen);",
    "    } else {",
    "      if (VALS) vals[j] = 0ull;",
    "      if (ROWS) digits[j] = RADIX;",
    "    }",
    "  }",
    "  // The digit of item j; RADIX for no item (past the end of the last tile).",
    "  auto digitAt = [&](int j) -> unsigned int {",
    "    if (ROWS) return digits[j];",
    "    return full || w * WARP_ITEMS + (unsigned int)j * 32u + lane < tileCount ? key_digit(keys[j], pass) : (unsigned int)RADIX;",
    "  };",
    "",
    "  // The tile's counts, a histogram per warp.",
    "  unsigned int* wh = sWarpHist + w * RADIX;",
    "#pragma unroll",
    "  for (int j = 0; j < IPT; j++) {",
    "    const unsigned int d = digitAt(j);",
    "    if (d < RADIX) atomicAdd(&wh[d], 1u);",
    "  }",
    "  __syncthreads();",
    "",
    "  // Per digit (thread t): the warps' exclusive offsets, the tile's count (published at once), the block's scan; then",
    "  // each warp's histogram holds where its first key of each digit goes in the tile's sorted order.",
    "  unsigned int count = 0u, start = 0u;",
    "  if (t < RADIX) {",
    "    for (int ww = 0; ww < WARPS; ww++) {",
    "      const unsigned int c = sWarpHist[ww * RADIX + t];",
    "      sWarpHist[ww * RADIX + t] = count;",
    "      count += c;",
    "    }",
    "    store_flag(&lookback[(u64)tile * RADIX + t], (tile == 0 ? LB_INCLUSIVE : LB_AGGREGATE) | (LB)count);",
    "    unsigned int x = count;",
    "#pragma unroll",
    "    for (int off = 1; off < 32; off <<= 1) {",
    "      const unsigned int y = __shfl_up_sync(0xffffffffu, x, off);",
    "      if ((int)lane >= off) x += y;",
    "    }",
    "    start = x - count;",
    "    if (lane == 31u) sWarpTot[w] = x;",
    "  }",
    "  __syncthreads();",
    "  if (t < RADIX) {",
    "    for (unsigned int ww = 0; ww < w; ww++) start += sWarpTot[ww];",
    "    for (int ww = 0; ww < WARPS; ww++) sWarpHist[ww * RADIX + t] += start;",
    "  }",
    "  __syncthreads();",
    "",
    "  // Rank and place: the lanes holding one digit find each other (a ballot per bit; bit 8 tells items from none in",
    "  // the last tile); the lowest of them takes their places from the warp's running position for the digit.",
    "#pragma unroll",
    "  for (int j = 0; j < IPT; j++) {",
    "    const unsigned int d = digitAt(j);",
    "    unsigned int peers = 0xffffffffu;",
    "#pragma unroll",
    "    for (int b = 0; b < 8; b++) {",
    "      const bool bit = ((d >> b) & 1u) != 0u;",
    "      const unsigned int vote = __ballot_sync(0xffffffffu, bit);",
    "      peers &= bit ? vote : ~vote;",
    "    }",
    "    if (!full) {",
    "      const bool none = d >= RADIX;",
    "      const unsigned int vote = __ballot_sync(0xffffffffu, none);",
    "      peers &= none ? vote : ~vote;",
    "    }",
    "    const unsigned int leader = (unsigned int)__ffs(peers) - 1u;",
    "    const unsigned int below = (unsigned int)__popc(peers & ((1u << lane) - 1u));",
    "    unsigned int base = 0u;",
    "    if (d < RADIX && lane == leader) {",
    "      base = wh[d];",
    "      wh[d] = base + (unsigned int)__popc(peers);",
    "    }",
    "    base = __shfl_sync(0xffffffffu, base, leader);",
    "    if (d < RADIX) {",
    "      sKeys[base + below] = keys[j];",
    "      if (VALS) sVals[base + below] = vals[j];",
    "    }",
    "    __syncwarp();",
    "  }",
    "",
    "  // Decoupled look-back: the keys of digit t in the earlier tiles.",
    "  if (t < RADIX) {",
    "    OFF before = 0;",
    "    if (tile > 0u) {",
    "      unsigned int k = tile - 1u;",
    "      for (;;) {",
    "        const LB e = load_flag(&lookback[(u64)k * RADIX + t]);",
    "        const LB flag = e & ~LB_VALUE;",
    "        if (flag == (LB)0) continue;  // not published yet",
    "        before += (OFF)(e & LB_VALUE);",
    "        if (flag == LB_INCLUSIVE) break;",
    "        k--;",
    "      }",
    "      store_flag(&lookback[(u64)tile * RADIX + t], LB_INCLUSIVE | (LB)(before + count));",
    "    }",
    "    // Item i of the tile's sorted order, of digit d, goes to sBase[d] + i (unsigned wrap-around intended).",
    "    sBase[t] = (OFF)digitStart[t] + before - (OFF)start;",
    "  }",
    "  __syncthreads();",
    "",
    "  const bool storeKeys = !last || (flags & F_STORE_KEYS) != 0;",
    "  const bool storeVals = VALS && (!last || (flags & F_STORE_VALUES) != 0);",
    "  const bool localIndex = last && (flags & F_LOCAL_INDEX) != 0;",
    "  auto store = [&](unsigned int i) {",
    "    const K k = sKeys[i];",
    "    const u64 v = VALS ? sVals[i] : 0ull;",
    "    const OFF g = sBase[ROWS ? digit_of(k, v, pass, rowLen) : key_digit(k, pass)] + (OFF)i;",
    "    if (storeKeys) keysOut[g] = last ? from_ordered(k) : k;",
    "    if (storeVals) valsOut[g] = localIndex ? v % rowLen : v;",
    "  };",
    "  if (full) {",
    "#pragma unroll",
    "    for (int j = 0; j < IPT; j++) store((unsigned int)j * BLOCK + t);",
    "  } else {",
    "    for (unsigned int i = t; i < tileCount; i += BLOCK) store(i);",
    "  }",
    "}",
    "",
  ];
  lines.push(
    "// unique: the first key of each run of equal words in sorted keys, compacted in order.",
    `#define UNIQUE_BLOCK ${UNIQUE_BLOCK}`,
    `#define UNIQUE_ITEMS ${UNIQUE_ITEMS}`,
    `#define UNIQUE_CHUNK ${UNIQUE_CHUNK}`,
    `#define UNIQUE_SCAN_BLOCK ${UNIQUE_SCAN_BLOCK}`,
    "__device__ __forceinline__ unsigned int is_head(const K* keys, u64 i) { return (i == 0ull || !same_key(keys[i], keys[i - 1])) ? 1u : 0u; }",
    `extern "C" __global__ void __launch_bounds__(UNIQUE_BLOCK) ${SORT_KERNELS.uniqueCount}(const K* __restrict__ keys, u64 n, unsigned int* __restrict__ counts) {`,
    "  __shared__ unsigned int s[UNIQUE_BLOCK / 32];",
    "  const u64 base = (u64)blockIdx.x * UNIQUE_CHUNK;",
    "  unsigned int c = 0u;",
    "  for (int j = 0; j < UNIQUE_ITEMS; j++) {",
    "    const u64 i = base + (u64)j * UNIQUE_BLOCK + threadIdx.x;",
    "    if (i < n) c += is_head(keys, i);",
    "  }",
    "  for (int off = 16; off > 0; off >>= 1) c += __shfl_down_sync(0xffffffffu, c, off);",
    "  if ((threadIdx.x & 31u) == 0u) s[threadIdx.x >> 5] = c;",
    "  __syncthreads();",
    "  if (threadIdx.x == 0u) {",
    "    unsigned int total = 0u;",
    "    for (int w = 0; w < UNIQUE_BLOCK / 32; w++) total += s[w];",
    "    counts[blockIdx.x] = total;",
    "  }",
    "}",
    "// offsets[b]: the exclusive scan of counts; offsets[blocks]: the total (one block).",
    `extern "C" __global__ void __launch_bounds__(UNIQUE_SCAN_BLOCK) ${SORT_KERNELS.uniqueScan}(const unsigned int* __restrict__ counts, u64* __restrict__ offsets, unsigned int blocks) {`,
    "  __shared__ u64 s[UNIQUE_SCAN_BLOCK];",
    "  const unsigned int t = threadIdx.x;",
    "  const unsigned int per = (blocks + UNIQUE_SCAN_BLOCK - 1u) / UNIQUE_SCAN_BLOCK;",
    "  const u64 lo64 = (u64)t * per;",
    "  const unsigned int lo = lo64 < (u64)blocks ? (unsigned int)lo64 : blocks;",
    "  const unsigned int hi = lo + per < blocks ? lo + per : blocks;",
    "  u64 sum = 0ull;",
    "  for (unsigned int i = lo; i < hi; i++) sum += counts[i];",
    "  s[t] = sum;",
    "  __syncthreads();",
    "  for (unsigned int off = 1u; off < UNIQUE_SCAN_BLOCK; off <<= 1) {",
    "    const u64 add = t >= off ? s[t - off] : 0ull;",
    "    __syncthreads();",
    "    s[t] += add;",
    "    __syncthreads();",
    "  }",
    "  u64 run = s[t] - sum;",
    "  for (unsigned int i = lo; i < hi; i++) {",
    "    offsets[i] = run;",
    "    run += counts[i];",
    "  }",
    "  if (t == UNIQUE_SCAN_BLOCK - 1u) offsets[blocks] = s[t];",
    "}",
    ...uniqueBlockKernel(
      `${SORT_KERNELS.uniqueWrite}(const K* __restrict__ keys, u64 n, const u64* __restrict__ offsets, K* __restrict__ out)`,
      [],
      ["if (h != 0u) out[run] = keys[i];"],
    ),
    "// unique's other results, over the same blocks as the write: the run of sorted key i is the count of heads up to",
    "// it, less one. A head writes its key (out), the index it came from (first: perm[i], the first occurrence, as the",
    "// sort is stable) and its position (starts; starts[total] = n, so a run's count is starts[r + 1] - starts[r]);",
    "// every key writes its run where it came from (inverse[perm[i]]). A null output is skipped; perm is read only for",
    "// first and inverse.",
    ...uniqueBlockKernel(
      `${SORT_KERNELS.uniqueRuns}(const K* __restrict__ keys, const u64* __restrict__ perm, u64 n, const u64* __restrict__ offsets, K* __restrict__ out, u64* __restrict__ first, u64* __restrict__ starts, u64* __restrict__ inverse)`,
      ["if (starts != nullptr && blockIdx.x == 0u && threadIdx.x == 0u) starts[offsets[gridDim.x]] = n;"],
      [
        "if (h != 0u) {",
        "  if (out != nullptr) out[run] = keys[i];",
        "  if (first != nullptr) first[run] = perm[i];",
        "  if (starts != nullptr) starts[run] = i;",
        "}",
        "if (inverse != nullptr) inverse[perm[i]] = run;",
      ],
    ),
    "",
  );
  for (const { pairs, wide, rows } of variants) {
    const items = itemsPerThread(k.keyBytes, pairs);
    const block = onesweepBlock(pairs);
    lines.push(
      `extern "C" __global__ void __launch_bounds__(${block}, ${pairs ? 1 : sortTuning.minBlocks}) ${SORT_KERNELS.onesweep(pairs, wide, rows)}(const K* keysIn, K* keysOut, const u64* valsIn, u64* valsOut, u64 n, u64 rowLen, int pass, int flags, const u64* digitStart, ${wide ? "u64" : "unsigned int"}* lookback, unsigned int* tileCounter) {`,
      `  onesweep<${block}, ${items}, ${pairs}, ${rows}, ${wide ? "u64" : "unsigned int"}>(keysIn, keysOut, valsIn, valsOut, n, rowLen, pass, flags, digitStart, lookback, tileCounter);`,
      "}",
    );
  }
  return lines.join("\n") + "\n";
}
