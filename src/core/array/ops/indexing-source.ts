/**
 * The CUDA C++ of the indexing operations (gathers, scatters, masked writes, mask compaction) and the layout struct
 * they take. Elements are moved as raw words of their width (1, 2, 4, 8 or 16 bytes), so one program serves every
 * dtype of a width; indices are read in their own integer type. No GPU here: the CPU tests read the source.
 *
 * Every index is checked before it is used: mode 0 ("raise") skips an index outside [-extent, extent) and records
 * the first one in a small host-mapped flag record (the host reads it after the stream's next synchronised read),
 * mode 1 ("wrap") takes it modulo the extent, mode 2 ("clip") clamps it to [0, extent - 1], and mode 3 is mode 0
 * without negative indices (outside [0, extent) is recorded). Nothing outside an array is read or written.
 *
 * @module
 */
import type { DType } from "../dtype.ts";

/** The most axes the indexing kernels walk (after merging). */
export const INDEX_MAX_DIMS = 8;

/** Bytes of the layout struct: extents, index strides, array strides (int64 each), then ndim. */
export const INDEX_LAYOUT_BYTES = 3 * INDEX_MAX_DIMS * 8 + 8;

/** Bytes of one flag record: int set, int operation, int64 index, int64 extent (padded to 32). */
export const INDEX_FLAG_BYTES = 32;

/** The word types elements are moved as, by width. */
const WORDS: Readonly<Record<number, string>> = { 1: "unsigned char", 2: "unsigned short", 4: "unsigned int", 8: "unsigned long long", 16: "ix_w16" };

/** The index modes' codes in the kernels. */
export const INDEX_MODES = { raise: 0, wrap: 1, clip: 2, raiseNonNegative: 3 } as const;

/** The name suffix of a program: element width and index dtype. */
export function indexingName(width: number, index: DType): string {
  return `cuda_ts_index_w${width}_${index.name}`;
}

/** The source of the indexing kernels for elements of `width` bytes and indices of `index`'s type. */
export function indexingSource(width: number, index: DType): string {
  const W = WORDS[width];
  if (W === undefined) throw new RangeError(`no indexing kernels for ${width}-byte elements`);
  const name = indexingName(width, index);
  const D = INDEX_MAX_DIMS;
  return [
    "struct __align__(16) ix_w16 { unsigned long long lo, hi; };",
    `typedef ${W} W;`,
    `typedef ${index.ctype} I;`,
    `struct ix_layout { long long shape[${D}]; long long st_idx[${D}]; long long st_a[${D}]; long long ndim; };`,
    "struct ix_flag { int set; int op; long long index; long long extent; };",
    "// The offsets (in elements) of the index and the array element for row-major position i of the layout.",
    "__device__ __forceinline__ void ix_offsets(unsigned long long i, const ix_layout& l, long long& oi, long long& oa) {",
    "  oi = 0; oa = 0;",
    "  for (int d = (int)l.ndim - 1; d >= 0; --d) {",
    "    const unsigned long long e = (unsigned long long)l.shape[d];",
    "    const long long c = (long long)(i % e);",
    "    i /= e;",
    "    oi += c * l.st_idx[d];",
    "    oa += c * l.st_a[d];",
    "  }",
    "}",
    "// Brings index k into [0, n) by the mode; false (and the first such index recorded) when mode 0 or 3 finds it outside.",
    "__device__ __forceinline__ bool ix_fix(long long& k, long long n, int mode, ix_flag* flag, int op) {",
    "  if (mode == 1) { k %= n; if (k < 0) k += n; return true; }",
    "  if (mode == 2) { k = k < 0 ? 0 : (k >= n ? n - 1 : k); return true; }",
    "  const long long given = k;",
    "  if (k < 0 && mode == 0) k += n;",
    "  if (k >= 0 && k < n) return true;",
    "  volatile ix_flag* f = flag;",
    "  if (f->set == 0) {",
    "    f->index = given;",
    "    f->extent = n;",
    "    f->op = op;",
    "    __threadfence_system();",
    "    f->set = 1;",
    "  }",
    "  return false;",
    "}",
    "__device__ __forceinline__ long long ix_index(I v) { return (long long)v; }",
    "// Only the check: every index of the layout against the extent by the mode (0 or 3), the first outside recorded.",
    `extern "C" __global__ void ${name}_check(const I* __restrict__ idx, unsigned long long n, ix_layout l, long long extent, int mode, ix_flag* flag, int op) {`,
    "  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n; i += (unsigned long long)gridDim.x * blockDim.x) {",
    "    long long oi, oa;",
    "    ix_offsets(i, l, oi, oa);",
    "    long long k = ix_index(idx[oi]);",
    "    ix_fix(k, extent, mode, flag, op);",
    "  }",
    "}",
    "// out[i] = a[offset of i's other coordinates + index * axisStride], the index read at its offset in the layout.",
    `extern "C" __global__ void ${name}_gather(const W* __restrict__ a, const I* __restrict__ idx, W* __restrict__ out, unsigned long long n, ix_layout l, long long extent, long long axisStride, int mode, ix_flag* flag, int op) {`,
    "  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n; i += (unsigned long long)gridDim.x * blockDim.x) {",
    "    long long oi, oa;",
    "    ix_offsets(i, l, oi, oa);",
    "    long long k = ix_index(idx[oi]);",
    "    if (!ix_fix(k, extent, mode, flag, op)) { out[i] = W(); continue; }",
    "    out[i] = a[oa + k * axisStride];",
    "  }",
    "}",
    "// a.flat[idx[j]] = values[j % nValues] (the flat position's offset from the array's layout).",
    `extern "C" __global__ void ${name}_scatter(W* a, const I* __restrict__ idx, const W* __restrict__ values, unsigned long long nIdx, unsigned long long nValues, ix_layout l, long long extent, int mode, ix_flag* flag, int op) {`,
    "  for (unsigned long long j = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; j < nIdx; j += (unsigned long long)gridDim.x * blockDim.x) {",
    "    long long k = ix_index(idx[j]);",
    "    if (!ix_fix(k, extent, mode, flag, op)) continue;",
    "    long long oi, oa;",
    "    ix_offsets((unsigned long long)k, l, oi, oa);",
    "    a[oa] = values[j % nValues];",
    "  }",
    "}",
    "// a.flat[i] = values[i % nValues] where mask[i] (mask: contiguous bytes, a's element count).",
    `extern "C" __global__ void ${name}_putmask(W* a, const unsigned char* __restrict__ mask, const W* __restrict__ values, unsigned long long n, unsigned long long nValues, ix_layout l) {`,
    "  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n; i += (unsigned long long)gridDim.x * blockDim.x) {",
    "    if (mask[i] == 0) continue;",
    "    long long oi, oa;",
    "    ix_offsets(i, l, oi, oa);",
    "    a[oa] = values[i % nValues];",
    "  }",
    "}",
    "// out[pos[i] - 1] = a.flat[i] where mask[i] (pos: the mask's inclusive running count).",
    `extern "C" __global__ void ${name}_compact(const W* __restrict__ a, const unsigned char* __restrict__ mask, const long long* __restrict__ pos, W* __restrict__ out, unsigned long long n, ix_layout l) {`,
    "  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n; i += (unsigned long long)gridDim.x * blockDim.x) {",
    "    if (mask[i] == 0) continue;",
    "    long long oi, oa;",
    "    ix_offsets(i, l, oi, oa);",
    "    out[pos[i] - 1] = a[oa];",
    "  }",
    "}",
    "// out[(pos[i] - 1) * rowStride] = coordinate `axis` of position i in the layout's shape, where mask[i].",
    `extern "C" __global__ void ${name}_coords(const unsigned char* __restrict__ mask, const long long* __restrict__ pos, long long* __restrict__ out, unsigned long long n, ix_layout l, long long axis, long long rowStride) {`,
    "  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n; i += (unsigned long long)gridDim.x * blockDim.x) {",
    "    if (mask[i] == 0) continue;",
    "    unsigned long long r = i;",
    "    long long c = 0;",
    "    for (int d = (int)l.ndim - 1; d >= (int)axis; --d) {",
    "      const unsigned long long e = (unsigned long long)l.shape[d];",
    "      c = (long long)(r % e);",
    "      r /= e;",
    "    }",
    "    out[(pos[i] - 1) * rowStride] = c;",
    "  }",
    "}",
  ].join("\n") + "\n";
}

/** The bytes of the layout struct (`ix_layout`) for merged `shape` with index and array strides (elements). */
export function indexLayout(shape: readonly number[], stridesIndex: readonly number[], stridesArray: readonly number[]): Uint8Array {
  const D = INDEX_MAX_DIMS;
  const bytes = new Uint8Array(INDEX_LAYOUT_BYTES);
  const dv = new DataView(bytes.buffer);
  shape.forEach((n, d) => {
    dv.setBigInt64(8 * d, BigInt(n), true);
    dv.setBigInt64(8 * (D + d), BigInt(stridesIndex[d] ?? 0), true);
    dv.setBigInt64(8 * (2 * D + d), BigInt(stridesArray[d] ?? 0), true);
  });
  dv.setBigInt64(8 * 3 * D, BigInt(shape.length), true);
  return bytes;
}
