/**
 * The elementwise kernels of the array math entry points, as data: a name, parameter lists and a body per kernel
 * (ElementwiseKernel's arguments), so that tests can generate and check every source without a GPU. math-shared.ts's
 * `kernelOf` builds and caches the ElementwiseKernel of a spec.
 *
 * Conventions of the bodies: `i` is the element's index (unsigned 64-bit), `T` the array's element type, `R` its real
 * type; batches of matrices are contiguous, `n` (or `m`, `n`) their extents.
 *
 * @module
 */
import type { DType, DTypeName } from "./dtype.ts";

/** One kernel: ElementwiseKernel's arguments. */
export interface KernelSpec {
  readonly name: string;
  readonly inParams: string;
  readonly outParams: string;
  readonly body: string;
}

/** The C++ expression converting `x` (of `from`) to `to`'s type (through float for the 16-bit floats). */
export function castExpression(from: DType, to: DType, x: string): string {
  if (from === to) return x;
  const through16 = from.name === "float16" || from.name === "bfloat16";
  const into16 = to.name === "float16" || to.name === "bfloat16";
  const v = through16 ? `(float)(${x})` : x;
  if (to.kind === "c") return from.kind === "c" ? `${to.ctype}(${v})` : `${to.ctype}((${to.name === "complex64" ? "float" : "double"})(${v}))`;
  if (into16) return `${to.ctype}((float)(${v}))`;
  return `(${to.ctype})(${v})`;
}

/** A cast from one dtype to another (complex to real is refused by the callers). */
export function castSpec(from: DType, to: DType): KernelSpec {
  return { name: `cuda_ts_cast_${from.name}_${to.name}`, inParams: `${from.name} x`, outParams: `${to.name} y`, body: `y = ${castExpression(from, to, "x")}` };
}

/** y *= s in place, for a float32 or float64 array (complex arrays are scaled through their real view). */
export function scaleSpec(real: "float32" | "float64"): KernelSpec {
  return { name: `cuda_ts_scale_${real}`, inParams: `${real} s`, outParams: `${real} y`, body: "y = y * s" };
}

/** Negates every odd element in place: the imaginary parts of a complex array's real view. */
export function conjugateSpec(real: "float32" | "float64"): KernelSpec {
  return { name: `cuda_ts_conj_${real}`, inParams: "", outParams: `${real} y`, body: "y = (i & 1) ? -y : y" };
}

/** Identity matrices: a contiguous batch of n×n matrices. */
export const EYE: KernelSpec = { name: "cuda_ts_linalg_eye", inParams: "int64 n", outParams: "T y", body: "y = ((i / n) % n == i % n) ? T(1) : T(0)" };

/** Zeroes the strict upper (`upper` false: above the diagonal) or lower triangle of a batch of n×n matrices in place. */
export function triangleZeroSpec(keepUpper: boolean): KernelSpec {
  return keepUpper
    ? { name: "cuda_ts_linalg_tril0", inParams: "int64 n", outParams: "T y", body: "if ((i % n) < ((i / n) % n)) y = T(0)" }
    : { name: "cuda_ts_linalg_triu0", inParams: "int64 n", outParams: "T y", body: "if ((i % n) > ((i / n) % n)) y = T(0)" };
}

/**
 * One determinant per thread from LU factors (contiguous n×n each) and LAPACK's 1-based int64 pivots: the diagonal's
 * product, negated once per row interchange.
 */
export const DET: KernelSpec = {
  name: "cuda_ts_linalg_det",
  inParams: "raw T lu, raw int64 piv, int64 n",
  outParams: "T d",
  body: "T p = T(1); bool neg = false; for (long long j = 0; j < n; ++j) { p = p * lu[(long long)i * n * n + j * n + j]; if (piv[(long long)i * n + j] != j + 1) neg = !neg; } d = neg ? T(-p) : p",
};

/**
 * One (sign, log |det|) per thread from LU factors and pivots as {@link DET}'s: the sign is the product of the diagonal's
 * signs (complex: of u / |u|), negated once per row interchange; the logarithm is the sum of log |u|. A zero on the
 * diagonal gives sign 0 and -infinity.
 */
export function slogdetSpec(complex: boolean): KernelSpec {
  const unit = complex ? "u / m" : "u < T(0) ? T(-1) : T(1)";
  const abs = complex ? "cuda::std::abs(u)" : "(u < T(0) ? -u : u)";
  const log = complex ? "cuda::std::log(m)" : "log(m)";
  return {
    name: `cuda_ts_linalg_slogdet_${complex ? "c" : "f"}`,
    inParams: "raw T lu, raw int64 piv, int64 n",
    outParams: "T s, R l",
    body:
      "T sg = T(1); R acc = R(0); " +
      "for (long long j = 0; j < n; ++j) { " +
      `const T u = lu[(long long)i * n * n + j * n + j]; const R m = ${abs}; ` +
      "if (m == R(0)) { sg = T(0); acc = sizeof(R) == 8 ? (R)__longlong_as_double((long long)0xfff0000000000000ull) : (R)__int_as_float((int)0xff800000u); break; } " +
      `sg = sg * (${unit}); acc += ${log}; ` +
      "if (piv[(long long)i * n + j] != j + 1) sg = -sg; } " +
      "s = sg; l = acc",
  };
}

/**
 * R of a QR factorization: from a batch of column-major m×n factors `f` (geqrf's output, m·n apart), the row-major
 * `rows`×n upper triangles (zero below the diagonal).
 */
export const QR_R: KernelSpec = {
  name: "cuda_ts_linalg_qr_r",
  inParams: "raw T f, int64 m, int64 n, int64 rows",
  outParams: "T r",
  body: "const long long per = rows * n; const long long b = (long long)i / per, rem = (long long)i % per, row = rem / n, col = rem % n; r = row <= col ? f[b * m * n + col * m + row] : T(0)",
};

/** Multiplies row i / K of a row-major [k, K] matrix by `sinv[i / K]` in place. */
export const ROW_SCALE: KernelSpec = { name: "cuda_ts_linalg_row_scale", inParams: "raw R sinv, int64 K", outParams: "T y", body: "y = y * sinv[(long long)i / K]" };

/** Squared 2-norms of the columns of b − ax (row-major [M, K] each), one thread per column. */
export function residualsSpec(complex: boolean): KernelSpec {
  return {
    name: `cuda_ts_linalg_residuals_${complex ? "c" : "f"}`,
    inParams: "raw T b, raw T ax, int64 M, int64 K",
    outParams: "R res",
    body: complex
      ? "R acc = R(0); for (long long r = 0; r < M; ++r) acc += cuda::std::norm(b[r * K + (long long)i] - ax[r * K + (long long)i]); res = acc"
      : "R acc = R(0); for (long long r = 0; r < M; ++r) { const R d = b[r * K + (long long)i] - ax[r * K + (long long)i]; acc += d * d; } res = acc",
  };
}

/** outer(a, b): a [M, 1] and b [1, N] broadcast (bool: logical and, as NumPy's multiply of booleans). */
export function outerSpec(dtype: DType): KernelSpec {
  return { name: `cuda_ts_outer_${dtype.name}`, inParams: `${dtype.name} x, ${dtype.name} y`, outParams: `${dtype.name} z`, body: dtype.name === "bool" ? "z = x && y" : "z = x * y" };
}

/** The uniform u on [0, 1) of element i from 32-bit words: 24 bits (float32) or 53 bits of two words (float64), NumPy's. */
export function uniformExpression(dtype: "float32" | "float64"): string {
  return dtype === "float64"
    ? "const double u = ((double)(bits[2 * i] >> 5) * 67108864.0 + (double)(bits[2 * i + 1] >> 6)) * (1.0 / 9007199254740992.0);"
    : "const float u = (float)(bits[i] >> 8) * (1.0f / 16777216.0f);";
}

/** The distributions made from a uniform u: their parameters (float64 scalars p0, p1) and bodies per dtype. */
export const FROM_UNIFORM = Object.freeze({
  unit: { params: 0, f64: "y = u;", f32: "y = u;" },
  uniform: { params: 2, f64: "y = p0 + p1 * u;", f32: "y = (float)(p0 + p1 * (double)u);" },
  exponential: { params: 1, f64: "y = -p0 * log1p(-u);", f32: "y = -(float)p0 * log1pf(-u);" },
} as const);

/** A float draw made from random words. */
export function fromUniformSpec(kind: keyof typeof FROM_UNIFORM, dtype: "float32" | "float64"): KernelSpec {
  const d = FROM_UNIFORM[kind];
  const params = ["raw uint32 bits", ...[...Array(d.params).keys()].map((k) => `float64 p${k}`)].join(", ");
  return { name: `cuda_ts_random_${kind}_${dtype}`, inParams: params, outParams: `${dtype} y`, body: `${uniformExpression(dtype)} ${dtype === "float64" ? d.f64 : d.f32}` };
}

/** Integers lo + ⌊x·span / 2⁶⁴⌋ from 64 random bits x (two words) per element, in `dtype` (two's complement wrap). */
export function integersSpec(dtype: DType): KernelSpec {
  return {
    name: `cuda_ts_random_integers_${dtype.name}`,
    inParams: "raw uint32 bits, uint64 lo, uint64 span",
    outParams: `${dtype.name} y`,
    body: `const unsigned long long x = ((unsigned long long)bits[2 * i] << 32) | (unsigned long long)bits[2 * i + 1]; y = (${dtype.ctype})(lo + __umul64hi(x, span))`,
  };
}

/** cuRAND's uint32 Poisson counts as int64. */
export const POISSON_INT64: KernelSpec = { name: "cuda_ts_random_poisson_int64", inParams: "raw uint32 c", outParams: "int64 y", body: "y = (long long)c[i]" };

/** For tests: every kernel with the dtypes each is launched with (placeholder bindings, and which inputs are scalars). */
export function kernelSpecsForTests(all: Readonly<Record<DTypeName, DType>>): { spec: KernelSpec; types: Record<string, DTypeName>; scalars: string[] }[] {
  const out: { spec: KernelSpec; types: Record<string, DTypeName>; scalars: string[] }[] = [];
  const solverTypes: DTypeName[] = ["float32", "float64", "complex64", "complex128"];
  const names = Object.keys(all) as DTypeName[];
  for (const from of names) {
    for (const to of names) {
      if (from === to || (all[from].kind === "c" && all[to].kind !== "c")) continue;
      out.push({ spec: castSpec(all[from], all[to]), types: {}, scalars: [] });
    }
  }
  for (const r of ["float32", "float64"] as const) {
    out.push({ spec: scaleSpec(r), types: {}, scalars: ["s"] }, { spec: conjugateSpec(r), types: {}, scalars: [] });
    for (const kind of Object.keys(FROM_UNIFORM) as (keyof typeof FROM_UNIFORM)[]) {
      out.push({ spec: fromUniformSpec(kind, r), types: {}, scalars: ["p0", "p1"] });
    }
  }
  for (const t of solverTypes) {
    const real: DTypeName = t === "complex64" ? "float32" : t === "complex128" ? "float64" : t;
    out.push({ spec: EYE, types: { T: t }, scalars: ["n"] });
    out.push({ spec: triangleZeroSpec(true), types: { T: t }, scalars: ["n"] }, { spec: triangleZeroSpec(false), types: { T: t }, scalars: ["n"] });
    out.push({ spec: DET, types: { T: t }, scalars: ["n"] });
    out.push({ spec: slogdetSpec(all[t].kind === "c"), types: { T: t, R: real }, scalars: ["n"] });
    out.push({ spec: QR_R, types: { T: t }, scalars: ["m", "n", "rows"] });
    out.push({ spec: ROW_SCALE, types: { T: t, R: real }, scalars: ["K"] });
    out.push({ spec: residualsSpec(all[t].kind === "c"), types: { T: t, R: real }, scalars: ["M", "K"] });
  }
  for (const t of names) {
    out.push({ spec: outerSpec(all[t]), types: {}, scalars: [] });
    if (all[t].kind === "i" || all[t].kind === "u" || all[t].kind === "b") out.push({ spec: integersSpec(all[t]), types: {}, scalars: ["lo", "span"] });
  }
  out.push({ spec: POISSON_INT64, types: {}, scalars: [] });
  return out;
}
