/**
 * The CUDA C++ of the scans (`cumsum`, `cumprod`), generated per operation and dtypes, and the plain numbers their
 * launches need (tile sizes, the layout struct's bytes). No GPU here: the CPU tests read the generated source.
 *
 * Three kernels per signature:
 * - `<name>_tiles`: a single-pass scan of one contiguous run (decoupled look-back, Merrill & Garland): each block takes
 *   the next tile from an atomic counter (so every tile it waits for belongs to a block already running), loads it
 *   with 16-byte loads, scans it (per thread a run of `vec` elements, warp shuffles, the warps' totals through shared
 *   memory), publishes its aggregate, looks back over its predecessors a warp at a time (32 tiles per step, stopping
 *   at the nearest tile that published its inclusive prefix), publishes its own inclusive prefix, and writes. With
 *   a 4-byte accumulation a tile's status is one 64-bit word (flag and value), read in one load. While warp 0 looks
 *   back, the scanned tile waits in shared memory rather than registers, so that more blocks (`scanTuning.minBlocks`)
 *   fit a multiprocessor and keep loading.
 * - `<name>_rows`: a warp per line for lines contiguous along the scanned axis (128 elements a step, a carry).
 * - `<name>_lines`: a thread per line, for short or strided scanned axes (consecutive threads take neighbouring lines:
 *   coalesced when the other axes are the contiguous ones); when the lines are too few to fill the device, each line
 *   is cut into chunks: one launch sums the chunks, a second scans each chunk from the totals of the ones before it.
 *
 * @module
 */
import type { DType } from "../dtype.ts";
import { includeLines } from "../../kernels/compile.ts";
import { headersFor } from "../../kernels/params.ts";

/** The scans: a running sum and a running product. */
export type ScanOp = "sum" | "prod";

/** Threads per block of the line kernels (`_rows`, `_lines`); the tile kernel's are `scanTuning.tileBlock`. */
export const SCAN_BLOCK = 256;

/** The most axes besides the scanned one that a line scan walks (after merging). */
export const SCAN_MAX_DIMS = 8;

/** Bytes of the line layout struct: extents, input and output strides of the other axes, then ndim, length, the scanned axis's two strides. */
export const SCAN_LINES_BYTES = 3 * SCAN_MAX_DIMS * 8 + 4 * 8;

/**
 * Elements per thread of the tile kernel, and per load (`vec`, 16 bytes where the stash allows), its threads per
 * block and the bytes of its shared-memory stash (the tile's accumulators while warp 0 looks back): a tile is
 * `block` × `items` elements (32 KiB of 4-byte input). Large tiles keep the look-back cheap: a tile's look-back
 * walks back 32 tiles per round trip to L2, so the tiles a second must stay well below 32 per L2 latency at full
 * memory bandwidth. The tile's accumulators must fit `scanTuning.stashBytes`, which caps the items of narrow inputs
 * scanned in wide accumulators (int8 into int64: 16 items; into complex128: 8, loaded 8 bytes at a time).
 */
export function scanTileShape(input: DType, accumulate: DType): { items: number; vec: number; tile: number; block: number; stashBytes: number } {
  const size = input.itemsize;
  const block = scanTuning.tileBlock;
  const fit = Math.max(1, Math.floor(scanTuning.stashBytes / (block * accumulate.itemsize)));
  const vec = Math.max(1, Math.min(16 / size, fit));
  const items = Math.max(vec, Math.min(scanTuning.maxItems, scanTuning.threadBytes / size, fit));
  return { items, vec, tile: block * items, block, stashBytes: block * items * accumulate.itemsize };
}

/**
 * @internal The tile kernel's shape: `tileBlock` threads per block, each `threadBytes` of input, at most `maxItems`
 * elements (a multiple of the 16-byte load, at least one load), the accumulators at most `stashBytes` of shared memory
 * per block; `minBlocks`, the blocks per multiprocessor its registers are kept for (`__launch_bounds__`' second
 * argument); `streaming`, loads and stores that stream past L1 and L2 (`.cs`) where they are 16 bytes. Kernels are
 * compiled per shape, so a change takes effect on the next scan.
 * Measured on an H100 (bench/results/2026-12-06-h100-array-ops.md, run 6), cumsum of 2^28 float32 in GB/s, three
 * rounds: tiles in registers (63 registers, 4 blocks) 2,106 / 2,166 / 2,203; in shared memory at 5 blocks 2,195 /
 * 2,324 / 2,353, at 4 blocks 2,344; at 6 blocks 1,943; 16 items at 8 blocks 2,244 / 2,264. A later run (copy 3,053),
 * threads × items at blocks per multiprocessor, without / with streaming: 256 × 32 at 5: 2,415 / 2,538 (2,536 again),
 * at 4: 2,405 / 2,473, at 6: 2,005; 512 × 32 at 2: 2,486 / 2,511, at 3: 2,008 / 2,291; 512 × 16 at 4: 2,400 / 2,463;
 * 1024 × 16 at 2: 2,468 / 2,509; 1024 × 32 at 1 (128 KiB stash): 2,554 with streaming; 128 × 32 at 10: 2,383 / 2,498;
 * 256 × 64 at 3: 2,163. Every shape lands within 4% of the others once streaming: the tile's shape is not what
 * holds the scan below the copy. A persistent grid (each block taking its next tile and loading it during the
 * current one's look-back) ran at 1,373 to 1,478 against 2,501 in the same call. A ninth warp looking back from the
 * block's start (2,415 at 4 blocks against 2,551), and wider look-back rounds (2 to 8 tiles per lane: 2,452 to
 * 2,302 against 2,532) were slower too (run 13).
 */
export const scanTuning = { tileBlock: 256, threadBytes: 128, maxItems: 32, minBlocks: 5, stashBytes: 32 * 1024, streaming: true };

/** The tile kernel's compile-time shape as a cache key: what scanSource reads from {@link scanTuning}. */
export function scanTuningKey(input: DType, accumulate: DType): string {
  const { items, block } = scanTileShape(input, accumulate);
  return `${block}|${items}|${scanTuning.minBlocks}|${scanTuning.streaming ? 1 : 0}`;
}

/** The alignment (bytes) of the output's packs in the tile kernel: a pack is `vec` output elements, at most 16 bytes. */
export function scanOutputAlign(input: DType, accumulate: DType, output: DType): number {
  const { vec } = scanTileShape(input, accumulate);
  return Math.min(16, vec * output.itemsize);
}

const HALF = new Set(["float16", "bfloat16"]);

/**
 * The dtype a scan accumulates in for a result of `out`: float32 for float16/bfloat16, a 32-bit integer for narrower
 * integers and bool (the result is the accumulation cast back: the same bits for sums and products), else `out`.
 */
export function scanAccumulateName(out: DType): string {
  if (HALF.has(out.name)) return "float32";
  if (out.kind === "b") return "int32";
  if ((out.kind === "i" || out.kind === "u") && out.itemsize < 4) return out.kind === "i" ? "int32" : "uint32";
  return out.name;
}

/** The C++ of an input element `x` converted to the accumulate type `TA`. */
function convertIn(input: DType): string {
  return HALF.has(input.name) ? "(TA)((float)(x))" : "(TA)(x)";
}

/** The C++ of the accumulation `a` converted to the output type `TO`. */
function convertOut(out: DType): string {
  if (out.kind === "b") return "(a != (TA)0)";
  return "(TO)(a)";
}

/** The name of a scan signature's kernels (their common prefix). */
export function scanKernelName(op: ScanOp, input: DType, accumulate: DType, out: DType, exclusive: boolean): string {
  return `cuda_ts_scan_${op}_${input.name}_${accumulate.name}_${out.name}${exclusive ? "_excl" : ""}`;
}

/**
 * The source of one scan signature (see the module's description): input `input`, accumulation `accumulate` (at
 * least 4 bytes), result `out`; `exclusive` writes each element's prefix before it (the identity first).
 */
export function scanSource(op: ScanOp, input: DType, accumulate: DType, out: DType, exclusive: boolean): string {
  const name = scanKernelName(op, input, accumulate, out, exclusive);
  const { items, vec, block } = scanTileShape(input, accumulate);
  const outAlign = scanOutputAlign(input, accumulate, out);
  const k = items / vec;
  const D = SCAN_MAX_DIMS;
  const packedStatus = accumulate.itemsize === 4;
  const lines: string[] = [
    ...includeLines(headersFor([input, accumulate, out])),
    `typedef ${input.ctype} TI;`,
    `typedef ${accumulate.ctype} TA;`,
    `typedef ${out.ctype} TO;`,
    `#define CT_BLOCK ${SCAN_BLOCK}`,
    `#define CT_ITEMS ${items}`,
    `#define CT_VEC ${vec}`,
    `#define CT_K ${k}`,
    `#define CT_TBLOCK ${block}`,
    "#define CT_WARPS (CT_TBLOCK / 32)",
    "#define CT_TILE (CT_TBLOCK * CT_ITEMS)",
    `#define CT_STREAMING ${scanTuning.streaming ? 1 : 0}`,
    `#define CT_EXCLUSIVE ${exclusive ? 1 : 0}`,
    `#define CT_MIN_BLOCKS ${scanTuning.minBlocks}`,
    "#define CT_FULL 0xffffffffu",
    `__device__ __forceinline__ TA ct_op(const TA& a, const TA& b) { return ${op === "sum" ? "a + b" : "a * b"}; }`,
    `__device__ __forceinline__ TA ct_identity() { return (TA)(${op === "sum" ? 0 : 1}); }`,
    `__device__ __forceinline__ TA ct_in(const TI& x) { return ${convertIn(input)}; }`,
    `__device__ __forceinline__ TO ct_out(const TA& a) { return ${convertOut(out)}; }`,
    "// A value as 32-bit words, for shuffles and for loads through L2 of values other blocks published.",
    "union ct_words { TA v; unsigned int w[sizeof(TA) / 4]; __device__ ct_words() {} };",
    "__device__ __forceinline__ TA ct_shfl_up(const TA& v, int d) {",
    "  ct_words a, b; a.v = v;",
    "#pragma unroll",
    "  for (int q = 0; q < (int)(sizeof(TA) / 4); ++q) b.w[q] = __shfl_up_sync(CT_FULL, a.w[q], d);",
    "  return b.v;",
    "}",
    "__device__ __forceinline__ TA ct_shfl_idx(const TA& v, int src) {",
    "  ct_words a, b; a.v = v;",
    "#pragma unroll",
    "  for (int q = 0; q < (int)(sizeof(TA) / 4); ++q) b.w[q] = __shfl_sync(CT_FULL, a.w[q], src);",
    "  return b.v;",
    "}",
    "// Inclusive scan across the warp (lane order).",
    "__device__ __forceinline__ TA ct_warp_scan(TA v, int lane) {",
    "#pragma unroll",
    "  for (int d = 1; d < 32; d <<= 1) {",
    "    const TA u = ct_shfl_up(v, d);",
    "    if (lane >= d) v = ct_op(u, v);",
    "  }",
    "  return v;",
    "}",
    "// Tile status: flags (0 nothing yet, 1 aggregate, 2 inclusive prefix) written with release, read with acquire.",
    "__device__ __forceinline__ int ct_load_flag(const int* p) {",
    "  int v;",
    '  asm volatile("ld.acquire.gpu.global.b32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");',
    "  return v;",
    "}",
    "__device__ __forceinline__ void ct_store_flag(int* p, int v) {",
    '  asm volatile("st.release.gpu.global.b32 [%0], %1;" :: "l"(p), "r"(v) : "memory");',
    "}",
    "__device__ __forceinline__ TA ct_load_value(const TA* p) {",
    "  ct_words r;",
    "  const unsigned int* s = reinterpret_cast<const unsigned int*>(p);",
    "#pragma unroll",
    "  for (int q = 0; q < (int)(sizeof(TA) / 4); ++q) r.w[q] = __ldcg(s + q);",
    "  return r.v;",
    "}",
    ...(packedStatus
      ? [
          "// 4-byte values: a tile's status is one 64-bit word, its flag above its value's bits, so that one load reads both.",
          "__device__ __forceinline__ void ct_publish(int* flags, unsigned long long t, int f, const TA& v) {",
          "  ct_words w; w.v = v;",
          "  const unsigned long long s = ((unsigned long long)(unsigned int)f << 32) | w.w[0];",
          '  asm volatile("st.relaxed.gpu.global.b64 [%0], %1;" :: "l"(reinterpret_cast<unsigned long long*>(flags) + t), "l"(s) : "memory");',
          "}",
          "__device__ __forceinline__ unsigned long long ct_status(const int* flags, long long p) {",
          "  unsigned long long s;",
          '  asm volatile("ld.relaxed.gpu.global.b64 %0, [%1];" : "=l"(s) : "l"(reinterpret_cast<const unsigned long long*>(flags) + p) : "memory");',
          "  return s;",
          "}",
        ]
      : []),
    `struct __align__(${vec * input.itemsize}) ct_in_pack { TI e[CT_VEC]; };`,
    "struct __align__(16) ct_acc_pack { TA e[CT_VEC]; };",
    `struct __align__(${outAlign}) ct_out_pack { TO e[CT_VEC]; };`,
    "// Packs of exactly 16 bytes may stream past the caches (CT_STREAMING): the data is touched once.",
    "template <typename P> __device__ __forceinline__ P ct_load_pack(const P* p) {",
    "  if (CT_STREAMING && sizeof(P) == 16 && alignof(P) == 16) { P r; *reinterpret_cast<uint4*>(&r) = __ldcs(reinterpret_cast<const uint4*>(p)); return r; }",
    "  return *p;",
    "}",
    "template <typename P> __device__ __forceinline__ void ct_store_pack(P* p, const P& v) {",
    "  if (CT_STREAMING && sizeof(P) == 16 && alignof(P) == 16) __stcs(reinterpret_cast<uint4*>(p), *reinterpret_cast<const uint4*>(&v));",
    "  else *p = v;",
    "}",
    "",
    "// One tile per block, tiles in the order blocks start (an atomic counter): every predecessor is running or done.",
    `extern "C" __global__ void __launch_bounds__(CT_TBLOCK, CT_MIN_BLOCKS) ${name}_tiles(const TI* __restrict__ in, TO* __restrict__ out, unsigned long long n, unsigned int* counter, int* flags, TA* aggregates, TA* inclusives, int aligned) {`,
    "  __shared__ unsigned int s_tile;",
    "  // Raw shared storage: TA may have a constructor (complex), which __shared__ variables may not.",
    "  __shared__ __align__(16) unsigned char s_raw[(CT_WARPS + 1) * sizeof(TA)];",
    "  TA* s_warp = reinterpret_cast<TA*>(s_raw);",
    "  // The tile's scanned runs wait here (dynamic shared memory, CT_TILE accumulators), not in registers, while warp 0",
    "  // looks back: more blocks fit a multiprocessor.",
    "  extern __shared__ __align__(16) unsigned char s_stash_raw[];",
    "  ct_acc_pack* s_stash = reinterpret_cast<ct_acc_pack*>(s_stash_raw) + (threadIdx.x >> 5) * (32 * CT_K);",
    "  TA& s_prefix = s_warp[CT_WARPS];",
    "  const int lane = threadIdx.x & 31;",
    "  const int warp = threadIdx.x >> 5;",
    "  if (threadIdx.x == 0) s_tile = atomicAdd(counter, 1u);",
    "  __syncthreads();",
    "  const unsigned long long tile = s_tile;",
    "  const unsigned long long warpBase = tile * CT_TILE + (unsigned long long)warp * (32 * CT_ITEMS);",
    "  const bool fast = aligned != 0 && tile * CT_TILE + CT_TILE <= n;",
    "  // Lane `lane` holds, for each k, the run of CT_VEC elements at warpBase + (k * 32 + lane) * CT_VEC.",
    "  TA v[CT_K][CT_VEC];",
    "  if (fast) {",
    "    const ct_in_pack* p = reinterpret_cast<const ct_in_pack*>(in + warpBase);",
    "    ct_in_pack raw[CT_K];",
    "#pragma unroll",
    "    for (int k = 0; k < CT_K; ++k) raw[k] = ct_load_pack(p + k * 32 + lane);",
    "#pragma unroll",
    "    for (int k = 0; k < CT_K; ++k)",
    "#pragma unroll",
    "      for (int j = 0; j < CT_VEC; ++j) v[k][j] = ct_in(raw[k].e[j]);",
    "  } else {",
    "#pragma unroll",
    "    for (int k = 0; k < CT_K; ++k)",
    "#pragma unroll",
    "      for (int j = 0; j < CT_VEC; ++j) {",
    "        const unsigned long long idx = warpBase + (unsigned long long)(k * 32 + lane) * CT_VEC + j;",
    "        v[k][j] = idx < n ? ct_in(in[idx]) : ct_identity();",
    "      }",
    "  }",
    "  // Each run's inclusive scan, in place; the runs' totals scanned across the warp, one scan per k.",
    "  TA scanned[CT_K];",
    "#pragma unroll",
    "  for (int k = 0; k < CT_K; ++k) {",
    "#pragma unroll",
    "    for (int j = 1; j < CT_VEC; ++j) v[k][j] = ct_op(v[k][j - 1], v[k][j]);",
    "    scanned[k] = ct_warp_scan(v[k][CT_VEC - 1], lane);",
    "  }",
    "  // The prefix of each of this lane's runs within the warp's part of the tile.",
    "  TA runPrefix[CT_K];",
    "  TA carry = ct_identity();",
    "#pragma unroll",
    "  for (int k = 0; k < CT_K; ++k) {",
    "    const TA before = ct_shfl_up(scanned[k], 1);",
    "    runPrefix[k] = lane == 0 ? carry : ct_op(carry, before);",
    "    carry = ct_op(carry, ct_shfl_idx(scanned[k], 31));",
    "  }",
    "  if (lane == 0) s_warp[warp] = carry;",
    "#pragma unroll",
    "  for (int k = 0; k < CT_K; ++k) {",
    "    ct_acc_pack pk;",
    "#pragma unroll",
    "    for (int j = 0; j < CT_VEC; ++j) pk.e[j] = v[k][j];",
    "    s_stash[k * 32 + lane] = pk;",
    "  }",
    "  __syncthreads();",
    "  TA warpPrefix = ct_identity();",
    "  TA tileTotal = ct_identity();",
    "#pragma unroll",
    "  for (int w = 0; w < CT_WARPS; ++w) {",
    "    if (w < warp) warpPrefix = ct_op(warpPrefix, s_warp[w]);",
    "    tileTotal = ct_op(tileTotal, s_warp[w]);",
    "  }",
    "  // Decoupled look-back, by warp 0.",
    "  if (warp == 0) {",
    "    TA exclusive = ct_identity();",
    "    if (tile == 0) {",
    "      if (lane == 0) {",
    ...(packedStatus ? ["        ct_publish(flags, 0, 2, tileTotal);"] : ["        inclusives[0] = tileTotal;", "        ct_store_flag(flags, 2);"]),
    "      }",
    "    } else {",
    "      if (lane == 0) {",
    ...(packedStatus ? ["        ct_publish(flags, tile, 1, tileTotal);"] : ["        aggregates[tile] = tileTotal;", "        ct_store_flag(flags + tile, 1);"]),
    "      }",
    "      long long base = (long long)tile - 1;",
    "      while (true) {",
    "        // Lane l looks at tile base - l (the nearest predecessor first); tiles before 0 count as done.",
    "        const long long p = base - lane;",
    ...(packedStatus
      ? [
          "        unsigned long long st = p >= 0 ? ct_status(flags, p) : (2ull << 32);",
          "        int f = (int)(st >> 32);",
          "        while (__any_sync(CT_FULL, f == 0)) {",
          "          __nanosleep(32);  // a predecessor has not published yet: back off a little from L2",
          "          if (f == 0) {",
          "            st = ct_status(flags, p);",
          "            f = (int)(st >> 32);",
          "          }",
          "        }",
          "        TA value = ct_identity();",
          "        if (p >= 0) {",
          "          ct_words w;",
          "          w.w[0] = (unsigned int)st;",
          "          value = w.v;",
          "        }",
        ]
      : [
          "        int f = p >= 0 ? ct_load_flag(flags + p) : 2;",
          "        while (__any_sync(CT_FULL, f == 0)) {",
          "          __nanosleep(32);  // a predecessor has not published yet: back off a little from L2",
          "          if (f == 0) f = ct_load_flag(flags + p);",
          "        }",
          "        TA value = ct_identity();",
          "        if (p >= 0) value = f == 2 ? ct_load_value(inclusives + p) : ct_load_value(aggregates + p);",
        ]),
    "        const unsigned int done = __ballot_sync(CT_FULL, f == 2);",
    "        // Only the tiles up to the nearest inclusive prefix count.",
    "        const int limit = done != 0u ? __ffs(done) - 1 : 31;",
    "        if (lane > limit) value = ct_identity();",
    "        value = ct_warp_scan(value, lane);",
    "        exclusive = ct_op(ct_shfl_idx(value, 31), exclusive);",
    "        if (done != 0u) break;",
    "        base -= 32;",
    "      }",
    "      if (lane == 0) {",
    ...(packedStatus
      ? ["        ct_publish(flags, tile, 2, ct_op(exclusive, tileTotal));"]
      : ["        inclusives[tile] = ct_op(exclusive, tileTotal);", "        ct_store_flag(flags + tile, 2);"]),
    "      }",
    "    }",
    "    if (lane == 0) s_prefix = exclusive;",
    "  }",
    "  __syncthreads();",
    "  const TA threadPrefix = ct_op(s_prefix, warpPrefix);",
    "#pragma unroll",
    "  for (int k = 0; k < CT_K; ++k) {",
    "    const ct_acc_pack pk = s_stash[k * 32 + lane];",
    "#pragma unroll",
    "    for (int j = 0; j < CT_VEC; ++j) v[k][j] = pk.e[j];",
    "  }",
    "  if (fast) {",
    "    ct_out_pack* q = reinterpret_cast<ct_out_pack*>(out + warpBase);",
    "#pragma unroll",
    "    for (int k = 0; k < CT_K; ++k) {",
    "      const TA pre = ct_op(threadPrefix, runPrefix[k]);",
    "      ct_out_pack o;",
    "#pragma unroll",
    "      for (int j = 0; j < CT_VEC; ++j) o.e[j] = ct_out(CT_EXCLUSIVE ? (j == 0 ? pre : ct_op(pre, v[k][j - 1])) : ct_op(pre, v[k][j]));",
    "      ct_store_pack(q + k * 32 + lane, o);",
    "    }",
    "  } else {",
    "#pragma unroll",
    "    for (int k = 0; k < CT_K; ++k) {",
    "      const TA pre = ct_op(threadPrefix, runPrefix[k]);",
    "#pragma unroll",
    "      for (int j = 0; j < CT_VEC; ++j) {",
    "        const unsigned long long idx = warpBase + (unsigned long long)(k * 32 + lane) * CT_VEC + j;",
    "        if (idx < n) out[idx] = ct_out(CT_EXCLUSIVE ? (j == 0 ? pre : ct_op(pre, v[k][j - 1])) : ct_op(pre, v[k][j]));",
    "      }",
    "    }",
    "  }",
    "}",
    "",
    `struct ct_lines { long long shape[${D}]; long long si[${D}]; long long so[${D}]; long long ndim; long long len; long long sa_in; long long sa_out; };`,
    "__device__ __forceinline__ void ct_line_offsets(unsigned long long t, const ct_lines& l, long long& oi, long long& oo) {",
    "  oi = 0; oo = 0;",
    "  for (int d = (int)l.ndim - 1; d >= 0; --d) {",
    "    const unsigned long long e = (unsigned long long)l.shape[d];",
    "    const long long c = (long long)(t % e);",
    "    t /= e;",
    "    oi += c * l.si[d];",
    "    oo += c * l.so[d];",
    "  }",
    "}",
    "// A warp per line: 128 elements a step, coalesced when the line is contiguous.",
    `extern "C" __global__ void __launch_bounds__(CT_BLOCK) ${name}_rows(const TI* __restrict__ in, TO* __restrict__ out, unsigned long long lines, ct_lines l) {`,
    "  const int lane = threadIdx.x & 31;",
    "  const unsigned long long warps = ((unsigned long long)gridDim.x * blockDim.x) >> 5;",
    "  for (unsigned long long t = (blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x) >> 5; t < lines; t += warps) {",
    "    long long oi, oo;",
    "    ct_line_offsets(t, l, oi, oo);",
    "    TA carry = ct_identity();",
    "    for (long long j0 = 0; j0 < l.len; j0 += 128) {",
    "      TA x[4];",
    "#pragma unroll",
    "      for (int u = 0; u < 4; ++u) {",
    "        const long long j = j0 + u * 32 + lane;",
    "        x[u] = j < l.len ? ct_in(in[oi + j * l.sa_in]) : ct_identity();",
    "      }",
    "#pragma unroll",
    "      for (int u = 0; u < 4; ++u) {",
    "        const TA s = ct_warp_scan(x[u], lane);",
    "        const TA before = ct_shfl_up(s, 1);",
    "        const long long j = j0 + u * 32 + lane;",
    "        const TA r = CT_EXCLUSIVE ? (lane == 0 ? carry : ct_op(carry, before)) : ct_op(carry, s);",
    "        if (j < l.len) out[oo + j * l.sa_out] = ct_out(r);",
    "        carry = ct_op(carry, ct_shfl_idx(s, 31));",
    "      }",
    "    }",
    "  }",
    "}",
    "// A thread per (chunk, line), lines the fastest (neighbouring threads take neighbouring lines), 8 loads in flight.",
    "// Phase 0 writes each chunk's total; phase 1 starts from the totals of the line's earlier chunks and writes the",
    "// results. One chunk per line (phase 1 alone, no totals): a thread per line.",
    `extern "C" __global__ void __launch_bounds__(CT_BLOCK) ${name}_lines(const TI* __restrict__ in, TO* __restrict__ out, unsigned long long lines, ct_lines l, long long chunkLen, long long chunks, TA* totals, int phase) {`,
    "  const unsigned long long count = lines * (unsigned long long)chunks;",
    "  for (unsigned long long t = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; t < count; t += (unsigned long long)gridDim.x * blockDim.x) {",
    "    const unsigned long long c = t / lines;",
    "    const unsigned long long line = t - c * lines;",
    "    long long oi, oo;",
    "    ct_line_offsets(line, l, oi, oo);",
    "    const long long j0 = (long long)c * chunkLen;",
    "    const long long j1 = j0 + chunkLen < l.len ? j0 + chunkLen : l.len;",
    "    TA a = ct_identity();",
    "    if (phase == 1)",
    "      for (unsigned long long q = 0; q < c; ++q) a = ct_op(a, totals[q * lines + line]);",
    "    for (long long j = j0; j < j1; j += 8) {",
    "      TA x[8];",
    "#pragma unroll",
    "      for (int u = 0; u < 8; ++u) x[u] = j + u < j1 ? ct_in(in[oi + (j + u) * l.sa_in]) : ct_identity();",
    "#pragma unroll",
    "      for (int u = 0; u < 8; ++u) {",
    "        if (j + u < j1) {",
    "          if (phase == 1 && CT_EXCLUSIVE) out[oo + (j + u) * l.sa_out] = ct_out(a);",
    "          a = ct_op(a, x[u]);",
    "          if (phase == 1 && !CT_EXCLUSIVE) out[oo + (j + u) * l.sa_out] = ct_out(a);",
    "        }",
    "      }",
    "    }",
    "    if (phase == 0) totals[t] = a;",
    "  }",
    "}",
  ];
  return lines.join("\n") + "\n";
}

/** The bytes of the line layout struct (`ct_lines`): the other axes (merged), the scanned axis's length and strides. */
export function scanLinesLayout(shape: readonly number[], stridesIn: readonly number[], stridesOut: readonly number[], len: number, axisIn: number, axisOut: number): Uint8Array {
  const D = SCAN_MAX_DIMS;
  const bytes = new Uint8Array(SCAN_LINES_BYTES);
  const dv = new DataView(bytes.buffer);
  shape.forEach((n, d) => {
    dv.setBigInt64(8 * d, BigInt(n), true);
    dv.setBigInt64(8 * (D + d), BigInt(stridesIn[d]!), true);
    dv.setBigInt64(8 * (2 * D + d), BigInt(stridesOut[d]!), true);
  });
  dv.setBigInt64(8 * 3 * D, BigInt(shape.length), true);
  dv.setBigInt64(8 * 3 * D + 8, BigInt(len), true);
  dv.setBigInt64(8 * 3 * D + 16, BigInt(axisIn), true);
  dv.setBigInt64(8 * 3 * D + 24, BigInt(axisOut), true);
  return bytes;
}
