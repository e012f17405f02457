/**
 * The CUDA C++ of matmul for bool and integer dtypes (cuBLAS multiplies only floats and complex), generated per
 * dtype signature, and the bytes its launch passes. No GPU here: the CPU tests read the generated source.
 *
 * One kernel per signature (the operands' dtypes and the result's), `cuda_ts_integer_gemm_<a>_<b>_<c>`:
 * C[z, i, j] = Σ_k A[z, i, k] · B[z, k, j] over a batch of `batch` products, every operand addressed through its own
 * three strides in elements (batch, row, column: any sign, 0 for a matrix that serves every batch entry), so that
 * transposed views, steps and broadcast operands are read as they lie. A block of 256 threads computes a 32×32
 * output tile (each thread one column, 4 rows 8 apart), walking k in steps of 32 with both operands' tiles staged in
 * shared memory (zeros past the matrices' edges); the blocks loop over the tiles of every batch entry (a 1-d grid,
 * 64-bit indices throughout).
 *
 * NumPy's semantics: the operands are cast to the result's dtype first (bool to 0 or 1), the products summed modulo
 * 2^bits in an unsigned type (no signed overflow, which C++ leaves undefined; `unsigned int` for 8 to 32 bits,
 * as narrower unsigned types would be promoted to int and could overflow there), and the sum cast back through the
 * result's unsigned type of its width: int8's 100·100 + 100·100 is 20000 mod 256 = 32. A bool result is the OR over
 * k of (a AND b).
 *
 * @module
 */
import type { DType } from "../dtype.ts";

/** The output tile's side (rows and columns), and the k step staged in shared memory. */
export const INTEGER_GEMM_TILE = 32;

/** Threads per block: a column of the tile each, CT_TILE / CT_ROWS rows per thread. */
export const INTEGER_GEMM_BLOCK = 256;

/** The most blocks one launch starts; more tiles are looped over by the blocks. */
export const INTEGER_GEMM_MAX_GRID = 1 << 20;

/** Bytes of the kernel's `ct_gemm` argument: batch, m, n, k and three strides of each of A, B and C (64-bit each). */
export const INTEGER_GEMM_LAYOUT_BYTES = 13 * 8;

/** Whether a (result) dtype is multiplied by this kernel: bool and the integers. */
export function isIntegerGemmDtype(d: DType): boolean {
  return d.kind === "b" || d.kind === "i" || d.kind === "u";
}

const UNSIGNED: Readonly<Record<number, string>> = { 1: "unsigned char", 2: "unsigned short", 4: "unsigned int", 8: "unsigned long long" };

/**
 * The C types the kernel sums a result of `c` in: `wrap`, the unsigned type of `c`'s width (the sum is cast through
 * it), and `accumulate`, the unsigned type it is summed in (at least `unsigned int`: narrower ones are promoted to
 * `int` in arithmetic, where 65535·65535 overflows).
 */
export function integerGemmTypes(c: DType): { wrap: string; accumulate: string } {
  const wrap = UNSIGNED[c.itemsize];
  if (wrap === undefined || !isIntegerGemmDtype(c)) throw new TypeError(`integerGemmTypes: ${c.name} is not a bool or integer dtype`);
  return { wrap, accumulate: c.itemsize === 8 ? "unsigned long long" : "unsigned int" };
}

/** The kernel's name for operands of `a` and `b` and a result of `c`. */
export function integerGemmKernelName(a: DType, b: DType, c: DType): string {
  return `cuda_ts_integer_gemm_${a.name}_${b.name}_${c.name}`;
}

/**
 * The source of one signature (see the module's description): A of `a`, B of `b`, C of `c`, where `c` is the
 * promoted dtype of `a` and `b` (bool or an integer; the operands convert to it without loss).
 */
export function integerGemmSource(a: DType, b: DType, c: DType): string {
  for (const d of [a, b, c]) if (!isIntegerGemmDtype(d)) throw new TypeError(`integerGemmSource: ${d.name} is not a bool or integer dtype`);
  const name = integerGemmKernelName(a, b, c);
  const { wrap, accumulate } = integerGemmTypes(c);
  const bool = c.kind === "b";
  const lines: string[] = [
    `typedef ${a.ctype} TA;`,
    `typedef ${b.ctype} TB;`,
    `typedef ${c.ctype} TC;`,
    "// The sum's type (unsigned: it wraps modulo 2^bits), and the result's unsigned type of its own width.",
    `typedef ${accumulate} TU;`,
    `typedef ${wrap} TW;`,
    `#define CT_TILE ${INTEGER_GEMM_TILE}`,
    `#define CT_ROWS ${INTEGER_GEMM_BLOCK / INTEGER_GEMM_TILE}`,
    "#define CT_PER (CT_TILE / CT_ROWS)",
    "// Extents, then the strides (elements) of A, B and C: [batch, row, column].",
    "struct ct_gemm { long long batch; long long m; long long n; long long k; long long sa[3]; long long sb[3]; long long sc[3]; };",
    "// An operand element cast to the result's dtype (as NumPy casts the operands), then to the unsigned sum type.",
    "__device__ __forceinline__ TU ct_in_a(const TA x) { return (TU)(TC)(x); }",
    "__device__ __forceinline__ TU ct_in_b(const TB x) { return (TU)(TC)(x); }",
    bool ? "// bool: OR over k of (a AND b)." : "// Integers: the unsigned sum of products, modulo 2^bits.",
    `__device__ __forceinline__ TU ct_madd(const TU acc, const TU x, const TU y) { return ${bool ? "acc | (x & y)" : "acc + x * y"}; }`,
    bool
      ? "__device__ __forceinline__ TC ct_out(const TU acc) { return (TC)(acc != (TU)0); }"
      : "__device__ __forceinline__ TC ct_out(const TU acc) { return (TC)(TW)(acc); }",
    "",
    "// A block per 32×32 tile of C (looping over the tiles of every batch entry): thread (tx, ty) computes column tx,",
    "// rows ty, ty + 8, ty + 16, ty + 24; A's and B's 32×32 tiles along k are staged in shared memory.",
    `extern "C" __global__ void __launch_bounds__(CT_TILE * CT_ROWS) ${name}(const TA* __restrict__ a, const TB* __restrict__ b, TC* __restrict__ c, const ct_gemm g) {`,
    "  __shared__ TU s_a[CT_TILE][CT_TILE + 1];",
    "  __shared__ TU s_b[CT_TILE][CT_TILE + 1];",
    "  const int tx = (int)(threadIdx.x % CT_TILE);",
    "  const int ty = (int)(threadIdx.x / CT_TILE);",
    "  const unsigned long long tilesM = ((unsigned long long)g.m + CT_TILE - 1) / CT_TILE;",
    "  const unsigned long long tilesN = ((unsigned long long)g.n + CT_TILE - 1) / CT_TILE;",
    "  const unsigned long long perBatch = tilesM * tilesN;",
    "  const unsigned long long tiles = perBatch * (unsigned long long)g.batch;",
    "  for (unsigned long long t = blockIdx.x; t < tiles; t += gridDim.x) {",
    "    const unsigned long long z = t / perBatch;",
    "    const unsigned long long r = t - z * perBatch;",
    "    const long long i0 = (long long)(r / tilesN) * CT_TILE;",
    "    const long long j0 = (long long)(r % tilesN) * CT_TILE;",
    "    const TA* pa = a + (long long)z * g.sa[0];",
    "    const TB* pb = b + (long long)z * g.sb[0];",
    "    TU acc[CT_PER];",
    "#pragma unroll",
    "    for (int p = 0; p < CT_PER; ++p) acc[p] = (TU)0;",
    "    for (long long k0 = 0; k0 < g.k; k0 += CT_TILE) {",
    "      // A's tile: rows i0.., columns k0..; B's: rows k0.., columns j0..; zeros past the edges.",
    "#pragma unroll",
    "      for (int p = 0; p < CT_PER; ++p) {",
    "        const int row = ty + p * CT_ROWS;",
    "        const long long ia = i0 + row;",
    "        const long long ka = k0 + tx;",
    "        s_a[row][tx] = ia < g.m && ka < g.k ? ct_in_a(pa[ia * g.sa[1] + ka * g.sa[2]]) : (TU)0;",
    "        const long long kb = k0 + row;",
    "        const long long jb = j0 + tx;",
    "        s_b[row][tx] = kb < g.k && jb < g.n ? ct_in_b(pb[kb * g.sb[1] + jb * g.sb[2]]) : (TU)0;",
    "      }",
    "      __syncthreads();",
    "#pragma unroll 8",
    "      for (int kk = 0; kk < CT_TILE; ++kk) {",
    "        const TU y = s_b[kk][tx];",
    "#pragma unroll",
    "        for (int p = 0; p < CT_PER; ++p) acc[p] = ct_madd(acc[p], s_a[ty + p * CT_ROWS][kk], y);",
    "      }",
    "      __syncthreads();",
    "    }",
    "    const long long j = j0 + tx;",
    "#pragma unroll",
    "    for (int p = 0; p < CT_PER; ++p) {",
    "      const long long i = i0 + ty + p * CT_ROWS;",
    "      if (i < g.m && j < g.n) c[(long long)z * g.sc[0] + i * g.sc[1] + j * g.sc[2]] = ct_out(acc[p]);",
    "    }",
    "  }",
    "}",
  ];
  return lines.join("\n") + "\n";
}

/** The extents and strides (elements) of one integer gemm: C [batch, m, n] = A [batch, m, k] · B [batch, k, n]. */
export interface IntegerGemmShape {
  readonly batch: number;
  readonly m: number;
  readonly n: number;
  readonly k: number;
  /** [batch, row, column] strides of A, B and C (a batch stride of 0: one matrix for every entry). */
  readonly a: readonly [number, number, number];
  readonly b: readonly [number, number, number];
  readonly c: readonly [number, number, number];
}

/** The kernel's `ct_gemm` argument (passed by value). */
export function integerGemmLayout(s: IntegerGemmShape): Uint8Array {
  const bytes = new Uint8Array(INTEGER_GEMM_LAYOUT_BYTES);
  const dv = new DataView(bytes.buffer);
  [s.batch, s.m, s.n, s.k, ...s.a, ...s.b, ...s.c].forEach((v, q) => dv.setBigInt64(8 * q, BigInt(v), true));
  return bytes;
}

/** The blocks of one launch: one per output tile of the whole batch, at most {@link INTEGER_GEMM_MAX_GRID}. */
export function integerGemmGrid(s: Pick<IntegerGemmShape, "batch" | "m" | "n">): number {
  const tiles = s.batch * Math.ceil(s.m / INTEGER_GEMM_TILE) * Math.ceil(s.n / INTEGER_GEMM_TILE);
  return Math.max(1, Math.min(tiles, INTEGER_GEMM_MAX_GRID));
}
