/**
 * NumPy's `convolve` and `correlate` of two 1-d arrays, composed of this library's operations: the longer input is
 * copied once into a zero-padded array (in the result's dtype, conjugated where NumPy conjugates it), a strided view
 * of it reads one window per output as the rows of an `[outputs, m]` matrix (strides `[±1, 1]` in elements: no
 * copy), and each row is multiplied by the shorter input (`mul`, broadcast) and summed (`sum` along axis 1; `any` for
 * bool). That is the direct method, O(n·m) work, as CuPy's `convolve` computes it; FFT-based convolution of long
 * inputs is `cuda-ts/array/fft`'s to build (`rfft`, `mul`, `irfft`).
 *
 * The products are made for at most {@link CONVOLUTION_CHUNK_ELEMENTS} elements at a time (rows in chunks), so the
 * temporary stays bounded whatever the lengths. Windows that reach into the padding have the padded products
 * replaced by zeros (one `where` over those rows), so that, as in NumPy, a value of the shorter input meets only the
 * elements it overlaps: an infinity in it does not turn `0 * inf` into a NaN at the ends.
 *
 * ```ts
 * convolve(a, v);                          // [1, 2, 3] * [0, 1, 0.5] → [0, 1, 2.5, 4, 1.5]
 * correlate(a, v, { mode: "same" });       // [2, 3.5, 3]
 * ```
 *
 * @module
 */
import { DeviceArray, operationStream, type ArrayOperationOptions } from "../device-array.ts";
import { dtypes, type DType } from "../dtype.ts";
import { ShapeMismatchError } from "../errors.ts";
import { ArgumentError } from "../../../errors/base.ts";
import { describeValue } from "../../../errors/describe.ts";
import { operationType } from "../promotion.ts";
import { sum } from "../reductions.ts";
import { mul } from "./arithmetic.ts";
import { castInto } from "./cast.ts";
import { checkArrayArgument, checkOneDevice } from "./elementwise.ts";
import { conj } from "./math.ts";
import { where } from "./selection.ts";
import { any } from "./statistics.ts";
import { flip, viewWith } from "./shape.ts";

/** Which outputs `convolve` and `correlate` give: every overlap (`"full"`), `"same"` (as many as the longer input), or full overlaps only (`"valid"`). */
export type ConvolveMode = "full" | "same" | "valid";

/** Options of `convolve` and `correlate`. */
export interface ConvolveOptions extends ArrayOperationOptions {
  /** Which outputs (default `"full"` for `convolve`, `"valid"` for `correlate`, as NumPy). */
  readonly mode?: ConvolveMode;
}

/** The products of at most this many elements are made at once: longer inputs are reduced in chunks of rows. */
export const CONVOLUTION_CHUNK_ELEMENTS = 1 << 22;

/**
 * How a convolution or correlation is computed (exported for tests: no GPU needed). The input that is windowed
 * (`windowed`: "a" or "v", `n` long) is padded with `m - 1` zeros on each side (`m` the other input's length); output
 * `r` is the sum over `j` of `padded[start + step * r + j] * kernel[j]`, for `r` below `length`. `conjugate` names
 * the input NumPy conjugates (correlate's `v`), `flipKernel` whether the kernel is read reversed (convolve's).
 * `edges` are the ranges of outputs whose windows reach into the padding.
 */
export interface ConvolutionPlan {
  readonly windowed: "a" | "v";
  readonly n: number;
  readonly m: number;
  readonly start: number;
  readonly step: 1 | -1;
  readonly length: number;
  readonly flipKernel: boolean;
  readonly conjugate: "a" | "v" | undefined;
  readonly edges: readonly (readonly [number, number])[];
}

/**
 * The plan of `convolve` (`"convolve"`) or `correlate` (`"correlate"`) of inputs of lengths `na` and `nv` (both at
 * least 1) in `mode`, as NumPy computes them (see {@link ConvolutionPlan}):
 *
 * - convolve swaps the inputs when `v` is longer (the result is the same) and reads the shorter reversed: outputs
 *   `"full"` from 0 (`n + m - 1` of them), `"same"` from `(m - 1) // 2` (`n`), `"valid"` from `m - 1` (`n - m + 1`);
 * - correlate computes `c[k] = sum_i a[i + k - (nv - 1)] * conj(v[i])`; when `v` is longer it windows `conj(v)` with
 *   `a` as the kernel and reads the outputs backwards (NumPy's swapped, reversed and conjugated result, which is the
 *   same sequence); `"same"` starts at `(nv - 1) // 2`, or `na // 2` when `v` is longer, as NumPy's.
 */
export function convolutionPlan(kind: "convolve" | "correlate", na: number, nv: number, mode: ConvolveMode): ConvolutionPlan {
  const n = Math.max(na, nv);
  const m = Math.min(na, nv);
  const length = mode === "full" ? n + m - 1 : mode === "same" ? n : n - m + 1;
  // The first output's position in the full sequence of n + m - 1.
  const first = mode === "full" ? 0 : mode === "valid" ? m - 1 : kind === "correlate" && nv > na ? Math.floor(na / 2) : Math.floor((m - 1) / 2);
  const reversed = kind === "correlate" && nv > na;
  const start = reversed ? n + m - 2 - first : first;
  const step = reversed ? -1 : 1;
  // Windows start at padded position start + step * r; they reach the padding below m - 1 and above n - 1.
  const rows = (lo: number, hi: number): readonly [number, number] => {
    // The outputs r whose window starts in [lo, hi).
    const [a, b] = step === 1 ? [lo - start, hi - start] : [start - hi + 1, start - lo + 1];
    return [Math.max(0, Math.min(length, a)), Math.max(0, Math.min(length, b))];
  };
  const edges = [rows(0, m - 1), rows(n, n + m - 1)].filter(([a, b]) => b > a);
  const windowed = kind === "convolve" ? (nv > na ? "v" : "a") : reversed ? "v" : "a";
  return { windowed, n, m, start, step, length, flipKernel: kind === "convolve", conjugate: kind === "correlate" ? "v" : undefined, edges };
}

/** The checks and the computation shared by `convolve` and `correlate`. */
function slide(kind: "convolve" | "correlate", a: DeviceArray, v: DeviceArray, options: ConvolveOptions | undefined): DeviceArray {
  const what = kind;
  if (!(a instanceof DeviceArray)) throw new TypeError(`${what}: a is a DeviceArray, not ${describeValue(a)}`);
  if (!(v instanceof DeviceArray)) throw new TypeError(`${what}: v is a DeviceArray, not ${describeValue(v)}`);
  if (options !== undefined && (options === null || typeof options !== "object")) throw new TypeError(`${what} takes options { mode?, stream? }, got ${describeValue(options)}`);
  checkArrayArgument(a, what, "a");
  checkArrayArgument(v, what, "v");
  const mode = options?.mode ?? (kind === "convolve" ? "full" : "valid");
  if (mode !== "full" && mode !== "same" && mode !== "valid") throw new ArgumentError(`${what}: mode is "full", "same" or "valid", got ${describeValue(mode)}`);
  // NumPy's convolve reads a 0-d input as one element; its correlate refuses it.
  for (const [name, x] of [["a", a], ["v", v]] as const) {
    if (x.ndim > 1 || (x.ndim === 0 && kind === "correlate")) {
      throw new ShapeMismatchError(`${what}: ${name} is a 1-d array, got shape [${x.shape.join(", ")}]${x.ndim > 1 ? "; ravel it, or convolve each row" : ""}`);
    }
    if (x.size === 0) throw new ShapeMismatchError(`${what}: ${name} is empty; give at least one element (NumPy's "${name} cannot be empty")`);
  }
  const r = operationType([a, v], what);
  checkOneDevice(what, [["a", a], ["v", v]]);
  const stream = operationStream(what, options, [a, v]);
  const plan = convolutionPlan(kind, a.size, v.size, mode);
  // float16 and bfloat16 multiply and add in float32 and round once, as NumPy's half-precision dot.
  const work: DType = r.name === "float16" || r.name === "bfloat16" ? dtypes.float32 : r;
  const flat = (x: DeviceArray): DeviceArray => (x.ndim === 1 ? x : viewWith(x, [1], [1]));
  const [long, short] = plan.windowed === "a" ? [flat(a), flat(v)] : [flat(v), flat(a)];
  const conjugateLong = plan.conjugate === plan.windowed && long.dtype.kind === "c";
  const conjugateShort = plan.conjugate !== undefined && plan.conjugate !== plan.windowed && short.dtype.kind === "c";
  const { n, m } = plan;
  const out = DeviceArray.empty([plan.length], r, { stream });
  const temps: DeviceArray[] = [];
  try {
    // The windowed input in the working dtype, m - 1 zeros on each side.
    const padded = DeviceArray.zeros([n + 2 * (m - 1)], work, { stream });
    temps.push(padded);
    const middle = padded.slice([m - 1, m - 1 + n]);
    if (conjugateLong) conj(long, { stream, out: middle });
    else castInto(stream, long, middle);
    let kernel = plan.flipKernel ? flip(short) : short;
    if (conjugateShort) {
      kernel = conj(kernel, { stream });
      temps.push(kernel);
    }
    // Where the windows reach the padding, which elements are real (NaN and infinities there meet only zeros).
    let real: DeviceArray | undefined;
    if (plan.edges.length > 0 && (work.kind === "f" || work.kind === "c")) {
      real = DeviceArray.zeros([n + 2 * (m - 1)], dtypes.bool, { stream });
      temps.push(real);
      real.slice([m - 1, m - 1 + n]).fill(true, { stream });
    }
    const windows = (x: DeviceArray, r0: number, rows: number): DeviceArray => viewWith(x, [rows, m], [plan.step, 1], x.byteOffset + (plan.start + plan.step * r0) * x.itemsize);
    const chunk = Math.max(1, Math.floor(CONVOLUTION_CHUNK_ELEMENTS / m));
    for (let r0 = 0; r0 < plan.length; r0 += chunk) {
      const r1 = Math.min(plan.length, r0 + chunk);
      const products = mul(windows(padded, r0, r1 - r0), kernel, { stream });
      try {
        if (real !== undefined) {
          for (const [e0, e1] of plan.edges) {
            const lo = Math.max(e0, r0);
            const hi = Math.min(e1, r1);
            if (hi <= lo) continue;
            const rows = products.slice([lo - r0, hi - r0]);
            where(windows(real, lo, hi - lo), rows, 0, { stream, out: rows });
          }
        }
        const into = out.slice([r0, r1]);
        if (r.kind === "b") any(products, { axis: 1, stream, out: into });
        else if (r.kind === "i" || r.kind === "u") sum(products, { axis: 1, dtype: r, stream, out: into });
        else sum(products, { axis: 1, stream, out: into });
      } finally {
        products.close(stream);
      }
    }
    return out;
  } catch (e) {
    out.close(stream);
    throw e;
  } finally {
    for (const t of temps) t.close(stream);
  }
}

/**
 * The discrete linear convolution of two 1-d arrays, as NumPy's `convolve`: `c[k] = sum_i a[i] * v[k - i]` over the
 * overlaps. `mode` `"full"` (default: every overlap, `len(a) + len(v) - 1` values), `"same"` (`max(len(a), len(v))`
 * values, centred as NumPy's) or `"valid"` (full overlaps only, `max - min + 1` values). The inputs may come in
 * either order (NumPy swaps them when `v` is longer; the values are the same); a 0-d input counts as one element.
 * The result's dtype is the inputs' promoted (`resultType`): integers wrap in it as NumPy's (int8 `100 * 2` is
 * `-56`), bool gives bool (or of ands), float16 and bfloat16 are multiplied and summed in float32 and rounded once
 * (NumPy's half-precision dot). Not conjugated for complex inputs. Direct O(len(a)·len(v)) work (see the module's
 * description); sums are added in an order of the GPU's, so the last bits of float results may differ from NumPy's.
 * Does not wait for the stream.
 *
 * ```ts
 * convolve(a, v);                          // [1, 2, 3] * [0, 1, 0.5] → [0, 1, 2.5, 4, 1.5]
 * convolve(a, v, { mode: "same" });        // [1, 2.5, 4]
 * convolve(a, v, { mode: "valid" });       // [2.5]
 * ```
 *
 * @throws ShapeMismatchError for an empty input or one of more than one axis (NumPy's ValueErrors).
 * @throws ArgumentError for a mode other than "full", "same" and "valid".
 * @throws DeviceMismatchError when the inputs are on different devices.
 */
export function convolve(a: DeviceArray, v: DeviceArray, options?: ConvolveOptions): DeviceArray {
  return slide("convolve", a, v, options);
}

/**
 * The cross-correlation of two 1-d arrays, as NumPy's `correlate`: `c[k] = sum_n a[n + k] * conj(v[n])`, `v`
 * conjugated when complex. `mode` `"valid"` (default: full overlaps only, `max - min + 1` values), `"same"`
 * (`max(len(a), len(v))` values, centred as NumPy's) or `"full"` (every overlap, from `k = -(len(v) - 1)`). When `v`
 * is longer than `a` the values are NumPy's for that case too (its swapped inputs, result reversed and conjugated:
 * the same definition). Dtypes and precision as {@link convolve}. Direct O(len(a)·len(v)) work. Does not wait for
 * the stream.
 *
 * ```ts
 * correlate(a, v);                         // [1, 2, 3] ⋆ [0, 1, 0.5] → [3.5]
 * correlate(a, v, { mode: "full" });       // [0.5, 2, 3.5, 3, 0]
 * ```
 *
 * @throws ShapeMismatchError for an empty input, or one that is not 1-d (0-d too, as NumPy's "object of too small
 * depth").
 * @throws ArgumentError for a mode other than "full", "same" and "valid".
 * @throws DeviceMismatchError when the inputs are on different devices.
 */
export function correlate(a: DeviceArray, v: DeviceArray, options?: ConvolveOptions): DeviceArray {
  return slide("correlate", a, v, options);
}
