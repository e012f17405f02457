/**
 * Window functions for signal processing, as NumPy's (and CuPy's) of the same names: `bartlett` (triangular),
 * `blackman`, `hamming`, `hanning` (Hann) and `kaiser`. Each makes a float64 array of `m` points, symmetric, on a
 * stream, computed on the device with NumPy's formulas over `n = 1 - m, 3 - m, ..., m - 1` (`kaiser`: `n = 0 .. m-1`).
 *
 * ```ts
 * const w = hanning(256, { stream });               // [0, ..., 1, ..., 0]
 * const spectrum = fft.rfft(signal.mul(w));          // a windowed transform
 * const k = kaiser(64, 8.6, { stream });             // beta 8.6: side lobes near -90 dB
 * ```
 *
 * `m` below 1 gives an empty array, `m` of 1 gives `[1]`, as NumPy.
 *
 * @module
 */
import { DeviceArray, operationStream } from "../device-array.ts";
import type { CreationOptions } from "../options.ts";
import { describeValue } from "../../../errors/describe.ts";
import { ArgumentError } from "../../../errors/base.ts";
import { ElementwiseKernel } from "../../kernels/elementwise.ts";
import { cachedKernel } from "./elementwise.ts";

/** Options of the window functions: the stream, and the memory resource to allocate from. */
export type WindowOptions = Omit<CreationOptions, "dtype">;

type WindowName = "bartlett" | "blackman" | "hamming" | "hanning" | "kaiser";

/** Each window's value at `n` (a double, `1 - m + 2i`; kaiser's from `r`, see below), for `m` points (at least 2), NumPy's formula. */
const FORMULA: Record<WindowName, string> = {
  bartlett: "(n <= 0.0 ? 1.0 + n / (m - 1.0) : 1.0 - n / (m - 1.0))",
  blackman: "(0.42 + 0.5 * cos(PI * n / (m - 1.0)) + 0.08 * cos(2.0 * PI * n / (m - 1.0)))",
  hamming: "(0.54 + 0.46 * cos(PI * n / (m - 1.0)))",
  hanning: "(0.5 + 0.5 * cos(PI * n / (m - 1.0)))",
  // r = (i - alpha) / alpha, alpha = (m - 1) / 2: i0(beta * sqrt(1 - r^2)) / i0(beta)
  kaiser: "(cyl_bessel_i0(beta * sqrt(1.0 - r * r)) / cyl_bessel_i0(beta))",
};

function windowKernel(name: WindowName): ElementwiseKernel {
  return cachedKernel(`window|${name}`, () => {
    const lead = name === "kaiser" ? "const double alpha = (m - 1.0) / 2.0; const double r = ((double)i - alpha) / alpha;" : "const double PI = 3.141592653589793; const double n = 1.0 - m + 2.0 * (double)i;";
    const body = `${lead} w = m == 1.0 ? 1.0 : ${FORMULA[name]};`;
    return new ElementwiseKernel("float64 m, float64 beta", "float64 w", body, `cuda_ts_window_${name}`);
  });
}

function makeWindow(name: WindowName, m: number, beta: number, options: WindowOptions | undefined): DeviceArray<"float64"> {
  if (typeof m !== "number" || !Number.isSafeInteger(m)) throw new ArgumentError(`${name}: the number of points is an integer, got ${describeValue(m)}`);
  if (options === null || typeof options !== "object" || Array.isArray(options)) {
    throw new TypeError(`${name} takes options { stream, memoryResource? }, got ${describeValue(options)}`);
  }
  const kernel = windowKernel(name);
  const stream = operationStream(name, options, []);
  const points = Math.max(0, m);
  const out = DeviceArray.empty([points], "float64", { stream, ...(options.memoryResource !== undefined ? { memoryResource: options.memoryResource } : {}) });
  if (points === 0) return out;
  try {
    kernel.launch(stream, points, beta, out);
  } catch (e) {
    out.close(stream);
    throw e;
  }
  return out;
}

/** The Bartlett (triangular) window of `m` points, as NumPy's `bartlett`: 0 at both ends, 1 in the middle (odd `m`). float64. */
export function bartlett(m: number, options: WindowOptions): DeviceArray<"float64"> {
  return makeWindow("bartlett", m, 0, options);
}

/** The Blackman window of `m` points, as NumPy's `blackman`: `0.42 + 0.5 cos(pi n / (m-1)) + 0.08 cos(2 pi n / (m-1))`. float64. */
export function blackman(m: number, options: WindowOptions): DeviceArray<"float64"> {
  return makeWindow("blackman", m, 0, options);
}

/** The Hamming window of `m` points, as NumPy's `hamming`: `0.54 + 0.46 cos(pi n / (m-1))` (0.08 at the ends). float64. */
export function hamming(m: number, options: WindowOptions): DeviceArray<"float64"> {
  return makeWindow("hamming", m, 0, options);
}

/** The Hann window of `m` points, as NumPy's `hanning`: `0.5 + 0.5 cos(pi n / (m-1))` (0 at the ends). float64. */
export function hanning(m: number, options: WindowOptions): DeviceArray<"float64"> {
  return makeWindow("hanning", m, 0, options);
}

/**
 * The Kaiser window of `m` points and shape `beta`, as NumPy's `kaiser`: `i0(beta sqrt(1 - (2n/(m-1) - 1)^2)) /
 * i0(beta)` for `n = 0 .. m-1` (`beta` 0 is rectangular; 5 is near a Hamming window, 8.6 a Blackman; NaN or an
 * infinity gives NaN, as NumPy's). float64.
 */
export function kaiser(m: number, beta: number, options: WindowOptions): DeviceArray<"float64"> {
  if (typeof beta !== "number") throw new ArgumentError(`kaiser: beta is a number, got ${describeValue(beta)}`);
  return makeWindow("kaiser", m, beta, options);
}
