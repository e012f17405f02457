/**
 * The CUDA C++ of the counting operations (`bincount`, `histogram`), generated per dtype signature. No GPU here: the
 * CPU tests read the generated source.
 *
 * One program per signature holds:
 * - `<name>_range`: the smallest and largest value of a strided run, as order-preserving 64-bit keys combined with
 *   `atomicMax` into a zeroed four-word record (word 0: the largest complement of a key, that is the smallest key;
 *   word 1: the largest key; word 2: set when a NaN was seen; word 3: set by `_order`). Every thread keeps its two
 *   keys in registers, a warp combines them with shuffles, and lane 0 makes two atomics: a few thousand in all.
 * - `<name>_count` (bincount) or `<name>_hist` (histogram): one count (or weight) per element into its bin, with
 *   `atomicAdd`. With `local` set, each block counts into a histogram of its own in shared memory (32-bit counters, or
 *   doubles for weights) and adds it to the global one at the end: few bins then cost shared-memory atomics instead
 *   of contended global ones.
 * - histograms also `<name>_order` (sets word 3 where an edge is greater than the next one: edges that do not
 *   increase) and `<name>_density` (one block: the total of the counts, then each count divided by its bin's width
 *   and by the total, as NumPy's `n / db / n.sum()`).
 *
 * A histogram's bin of a value `v` (converted to the dtype data and edges compare in): none unless
 * `e[0] <= v <= e[bins]` (NaN never); with uniform bins a guess from `(v - lo) / (hi - lo) * bins`, moved down while
 * `v < e[i]` and up while `v >= e[i + 1]`, so it is always the bin the edges give (NumPy's fast path corrects its guess
 * by one bin the same way); with explicit edges a binary search for the first edge greater than `v`. The last bin
 * includes its right edge.
 *
 * @module
 */
import { dtypes, type DType } from "../dtype.ts";
import { includeLines } from "../../kernels/compile.ts";
import { headersFor } from "../../kernels/params.ts";
import { castExpression, fromWorking, ROUNDING_PREAMBLE, toWorking, workingType } from "./cast.ts";

/** Threads per block of every counting kernel. */
export const COUNT_BLOCK = 256;

/**
 * The most bins a block counts in shared memory (16 KiB of 32-bit counters, 32 KiB of doubles for weights); more bins
 * are counted straight into the global histogram.
 */
export const COUNT_SHARED_BINS = 4096;

/** Words of the record `_range` and `_order` write: ~min key, max key, NaN seen, edges out of order. */
export const COUNT_RECORD_WORDS = 4;

/** How a signature's values become order-preserving keys in `_range`. */
export type RangeDomain = "signed" | "unsigned" | "float";

/** What one counting program is for. */
export interface CountingSpec {
  /** The dtype of the values counted (bool data of a histogram is read as uint8, as NumPy converts it). */
  readonly input: DType;
  /** The weights' dtype, when there are weights. */
  readonly weights?: DType;
  /** A histogram's edges' dtype. Absent: bincount. */
  readonly edges?: DType;
  /** A histogram's dtype that values and edges are compared in (default: the edges'). */
  readonly compare?: DType;
}

/**
 * The domain `_range` keys a dtype in: bincount reads every input as int64 (NumPy casts it to intp, wrapping uint64).
 */
export function rangeDomain(spec: CountingSpec): RangeDomain {
  if (spec.edges === undefined) return "signed";
  if (spec.input.kind === "f") return "float";
  return spec.input.name === "uint64" ? "unsigned" : "signed";
}

/** The name prefix of a program's kernels. */
export function countingName(spec: CountingSpec): string {
  const w = spec.weights?.name ?? "counts";
  if (spec.edges === undefined) return `cuda_ts_bincount_${spec.input.name}_${w}`;
  return `cuda_ts_histogram_${spec.input.name}_${spec.edges.name}_${spec.compare?.name ?? spec.edges.name}_${w}`;
}

/** The C++ key of integer value `v` (an element expression of `input`'s dtype) in `domain`: its order as unsigned. */
function integerKey(v: string, input: DType, domain: "signed" | "unsigned"): string {
  if (domain === "unsigned") return `(unsigned long long)(${v})`;
  return `((unsigned long long)${castExpression(v, input, dtypes.int64)} ^ 0x8000000000000000ull)`;
}

/** The grid-stride loop header over `n` elements, `i` the element. */
const LOOP = "for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n; i += (unsigned long long)gridDim.x * blockDim.x) {";

/**
 * The counting kernel `<name>_count` (bincount: `bin` from the value) or `<name>_hist` (histogram): the loop computes
 * `const long long b` with `binStatements`, skips negative bins, and adds one (or the weight) at `b`.
 */
function countKernel(kernelName: string, spec: CountingSpec, extraParams: string, binStatements: readonly string[]): string[] {
  const weighted = spec.weights !== undefined;
  const acc = weighted ? "double" : "unsigned long long";
  const local = weighted ? "double" : "unsigned int";
  const add = weighted ? `${castExpression("w[(long long)i * sw]", spec.weights!, dtypes.float64)}` : "1";
  return [
    `extern "C" __global__ void ${kernelName}(const ct_x* __restrict__ x, const long long sx, ${weighted ? "const ct_w* __restrict__ w, const long long sw, " : ""}const unsigned long long n, ${extraParams}${acc}* __restrict__ out, const long long bins, const int local) {`,
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
  const domain = rangeDomain(spec);
  const { input, weights, edges } = spec;
  const used = [input, ...(weights !== undefined ? [weights] : []), ...(edges !== undefined ? [edges] : [])];
  const lines: string[] = [
    ...includeLines(headersFor(used)),
    `typedef ${input.ctype} ct_x;`,
    ...(weights !== undefined ? [`typedef ${weights.ctype} ct_w;`] : []),
    ...(domain === "float"
      ? [
          "// Order-preserving keys of doubles: negative numbers flipped whole, others with the sign bit set.",
          "__device__ __forceinline__ unsigned long long ct_float_key(const double d) {",
          "  const unsigned long long b = (unsigned long long)__double_as_longlong(d);",
          "  return (b >> 63) ? ~b : (b | 0x8000000000000000ull);",
          "}",
        ]
      : []),
    "__device__ __forceinline__ unsigned long long ct_max(const unsigned long long a, const unsigned long long b) { return a > b ? a : b; }",
    "// out[0] = max of ~key (the smallest key), out[1] = max of key, out[2] = 1 where a NaN was seen (out zeroed first).",
    `extern "C" __global__ void ${name}_range(const ct_x* __restrict__ x, const long long sx, const unsigned long long n, unsigned long long* out) {`,
    "  unsigned long long lo = 0, hi = 0;",
    ...(domain === "float" ? ["  bool nan = false;"] : []),
    `  ${LOOP}`,
    ...(domain === "float"
      ? [`    const double d = ${castExpression("x[(long long)i * sx]", input, dtypes.float64)};`, "    if (d != d) { nan = true; continue; }", "    const unsigned long long k = ct_float_key(d);"]
      : [`    const unsigned long long k = ${integerKey("x[(long long)i * sx]", input, domain)};`]),
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
    ...(domain === "float" ? ["  if (nan) out[2] = 1ull;"] : []),
    "}",
  ];
  if (edges === undefined) {
    lines.push(
      "// out[b] += 1 (or the weight) for each value b of x (checked non-negative on the host; bins past the end skipped).",
      ...countKernel(`${name}_count`, spec, "", [`const long long b0 = ${castExpression("x[(long long)i * sx]", input, dtypes.int64)};`, "const long long b = b0 < bins ? b0 : -1;"]),
    );
    return lines.join("\n") + "\n";
  }
  const compare = spec.compare ?? edges;
  const c = workingType(compare);
  const edge = (j: string): string => toWorking(`e[${j}]`, edges, compare);
  // NumPy's np.diff(bin_edges) is in the edges' dtype (a half result rounded to half, an integer one wrapping).
  const a = toWorking("e[j + 1]", edges, edges);
  const b = toWorking("e[j]", edges, edges);
  const width = edges.name === "float16" || edges.name === "bfloat16" ? fromWorking(`(${a} - ${b})`, edges, dtypes.float64) : `(double)(${edges.ctype})(${a} - ${b})`;
  const weighted = weights !== undefined;
  const total = weighted ? "double" : "long long";
  lines.push(
    ROUNDING_PREAMBLE,
    `typedef ${edges.ctype} ct_e;`,
    `typedef ${c} ct_c;`,
    "// The bin of v (in the compare type): -1 outside [e[0], e[bins]]; the last bin includes its right edge.",
    "__device__ __forceinline__ long long ct_bin(const ct_c v, const ct_e* __restrict__ e, const long long bins, const int uniform, const ct_c lo, const ct_c denom) {",
    `  if (!(v >= ${edge("0")} && v <= ${edge("bins")})) return -1;`,
    "  long long i = 0;",
    "  if (uniform) {",
    "    const ct_c f = ((v - lo) / denom) * (ct_c)bins;",
    "    if (f >= (ct_c)bins) i = bins - 1;",
    "    else if (f > (ct_c)0) i = (long long)f;",
    `    while (i > 0 && v < ${edge("i")}) --i;`,
    `    while (i < bins - 1 && v >= ${edge("i + 1")}) ++i;`,
    "    return i;",
    "  }",
    "  long long l = 1, r = bins + 1;  // the first edge greater than v (e[0] is not)",
    "  while (l < r) {",
    "    const long long m = l + ((r - l) >> 1);",
    `    if (v < ${edge("m")}) r = m;`,
    "    else l = m + 1;",
    "  }",
    "  return l - 1 < bins ? l - 1 : bins - 1;",
    "}",
    "// out[3] = 1 where an edge is greater than the next one (NaN compares false, as in NumPy's check).",
    `extern "C" __global__ void ${name}_order(const ct_e* __restrict__ e, const unsigned long long n, unsigned long long* out) {`,
    `  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i + 1 < n; i += (unsigned long long)gridDim.x * blockDim.x) {`,
    `    if (${toWorking("e[i]", edges, edges)} > ${toWorking("e[i + 1]", edges, edges)}) out[3] = 1ull;`,
    "  }",
    "}",
    "// Each value's bin by the edges e (bins + 1 of them); uniform bins start from an arithmetic guess.",
    ...countKernel(`${name}_hist`, spec, "const ct_e* __restrict__ e, const int uniform, const double lo_, const double denom_, ", [
      `const long long b = ct_bin(${toWorking("x[(long long)i * sx]", input, compare)}, e, bins, uniform, (ct_c)lo_, (ct_c)denom_);`,
    ]),
    `// out[j] = h[j] / width[j] / sum(h), one block of ${COUNT_BLOCK} threads (out may be h).`,
    `extern "C" __global__ void ${name}_density(const ${weighted ? "double" : "long long"}* h, const ct_e* __restrict__ e, const long long bins, double* out) {`,
    `  __shared__ ${total} part[${COUNT_BLOCK}];`,
    `  ${total} t = 0;`,
    "  for (long long j = threadIdx.x; j < bins; j += blockDim.x) t += h[j];",
    "  part[threadIdx.x] = t;",
    "  __syncthreads();",
    `  for (int s = ${COUNT_BLOCK / 2}; s > 0; s >>= 1) {`,
    "    if (threadIdx.x < s) part[threadIdx.x] += part[threadIdx.x + s];",
    "    __syncthreads();",
    "  }",
    "  const double total = (double)part[0];",
    "  for (long long j = threadIdx.x; j < bins; j += blockDim.x) {",
    `    const double width = ${width};`,
    "    out[j] = ((double)h[j] / width) / total;",
    "  }",
    "}",
  );
  return lines.join("\n") + "\n";
}

/** The kernel names of a program: `_range` and `_count` (bincount) or `_range`, `_order`, `_hist`, `_density`. */
export function countingKernelNames(spec: CountingSpec): string[] {
  const name = countingName(spec);
  return spec.edges === undefined ? [`${name}_range`, `${name}_count`] : [`${name}_range`, `${name}_order`, `${name}_hist`, `${name}_density`];
}
