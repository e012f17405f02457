/**
 * The CUDA C++ of the counting operations (`bincount`), generated per dtype signature. No GPU here: the CPU tests read
 * the generated source.
 *
 * One program per signature holds:
 * - `<name>_range`: the smallest and largest value of a strided run, as order-preserving 64-bit keys combined with
 *   `atomicMax` into a zeroed two-word record (word 0: the largest complement of a key, that is the smallest key;
 *   word 1: the largest key). Every thread keeps its two keys in registers, a warp combines them with shuffles, and
 *   lane 0 makes two atomics: a few thousand in all.
 * - `<name>_count`: one count (or weight) per element into its bin, with `atomicAdd`. With `local` set, each block
 *   counts into a histogram of its own in shared memory (32-bit counters, or doubles for weights) and adds it to the
 *   global one at the end: few bins then cost shared-memory atomics instead of contended global ones.
 *
 * @module
 */
import { dtypes, type DType } from "../dtype.ts";
import { includeLines } from "../../kernels/compile.ts";
import { headersFor } from "../../kernels/params.ts";
import { castExpression } from "./cast.ts";

/** Threads per block of every counting kernel. */
export const COUNT_BLOCK = 256;

/**
 * The most bins a block counts in shared memory (16 KiB of 32-bit counters, 32 KiB of doubles for weights); more bins
 * are counted straight into the global histogram.
 */
export const COUNT_SHARED_BINS = 4096;

/** Words of the record `_range` writes: ~min key, max key. */
export const COUNT_RECORD_WORDS = 2;

/** What one counting program is for. */
export interface CountingSpec {
  /** The dtype of the values counted. */
  readonly input: DType;
  /** The weights' dtype, when there are weights. */
  readonly weights?: DType;
}

/** The name prefix of a program's kernels. */
export function countingName(spec: CountingSpec): string {
  return `cuda_ts_bincount_${spec.input.name}_${spec.weights?.name ?? "counts"}`;
}

/** The grid-stride loop header over `n` elements, `i` the element. */
const LOOP = "for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n; i += (unsigned long long)gridDim.x * blockDim.x) {";

/**
 * The counting kernel `<name>_count`: the loop computes `const long long b` with `binStatements`, skips negative
 * bins, and adds one (or the weight) at `b`.
 */
function countKernel(kernelName: string, spec: CountingSpec, binStatements: readonly string[]): string[] {
  const weighted = spec.weights !== undefined;
  const acc = weighted ? "double" : "unsigned long long";
  const local = weighted ? "double" : "unsigned int";
  const add = weighted ? `${castExpression("w[(long long)i * sw]", spec.weights!, dtypes.float64)}` : "1";
  return [
    `extern "C" __global__ void ${kernelName}(const ct_x* __restrict__ x, const long long sx, ${weighted ? "const ct_w* __restrict__ w, const long long sw, " : ""}const unsigned long long n, ${acc}* __restrict__ out, const long long bins, const int local) {`,
    "  extern __shared__ __align__(8) unsigned char ct_smem[];",
    `  ${local}* const h = reinterpret_cast<${local}*>(ct_smem);`,
    "  if (local) {",
    "    for (long long j = threadIdx.x; j < bins; j += blockDim.x) h[j] = 0;",
    "    __syncthreads();",
    "  }",
    `  ${LOOP}`,
    ...binStatements.map((s) => `    ${s}`),
    "    if (b < 0) continue;",
    `    if (local) atomicAdd(&h[b], (${local})(${add}));`,
    `    else atomicAdd(&out[b], (${acc})(${add}));`,
    "  }",
    "  if (local) {",
    "    __syncthreads();",
    "    for (long long j = threadIdx.x; j < bins; j += blockDim.x) {",
    `      const ${local} c = h[j];`,
    `      if (c != 0) atomicAdd(&out[j], (${acc})c);`,
    "    }",
    "  }",
    "}",
  ];
}

/** The source of the counting kernels of `spec` (see the module's description). */
export function countingSource(spec: CountingSpec): string {
  const name = countingName(spec);
  const { input, weights } = spec;
  const used = [input, ...(weights !== undefined ? [weights] : [])];
  const lines: string[] = [
    ...includeLines(headersFor(used)),
    `typedef ${input.ctype} ct_x;`,
    ...(weights !== undefined ? [`typedef ${weights.ctype} ct_w;`] : []),
    "__device__ __forceinline__ unsigned long long ct_max(const unsigned long long a, const unsigned long long b) { return a > b ? a : b; }",
    "// out[0] = max of ~key (the smallest key), out[1] = max of key (out zeroed first); keys are int64 with the sign bit flipped.",
    `extern "C" __global__ void ${name}_range(const ct_x* __restrict__ x, const long long sx, const unsigned long long n, unsigned long long* out) {`,
    "  unsigned long long lo = 0, hi = 0;",
    `  ${LOOP}`,
    `    const unsigned long long k = ((unsigned long long)${castExpression("x[(long long)i * sx]", input, dtypes.int64)} ^ 0x8000000000000000ull);`,
    "    lo = ct_max(lo, ~k);",
    "    hi = ct_max(hi, k);",
    "  }",
    "  for (int o = 16; o > 0; o >>= 1) {",
    "    lo = ct_max(lo, __shfl_xor_sync(0xffffffffu, lo, o));",
    "    hi = ct_max(hi, __shfl_xor_sync(0xffffffffu, hi, o));",
    "  }",
    "  if ((threadIdx.x & 31) == 0) {",
    "    atomicMax(&out[0], lo);",
    "    atomicMax(&out[1], hi);",
    "  }",
    "}",
    "// out[b] += 1 (or the weight) for each value b of x (checked non-negative on the host; bins past the end skipped).",
    ...countKernel(`${name}_count`, spec, [`const long long b0 = ${castExpression("x[(long long)i * sx]", input, dtypes.int64)};`, "const long long b = b0 < bins ? b0 : -1;"]),
  ];
  return lines.join("\n") + "\n";
}

/** The kernel names of a program: `_range` and `_count`. */
export function countingKernelNames(spec: CountingSpec): string[] {
  const name = countingName(spec);
  return [`${name}_range`, `${name}_count`];
}
