/**
 * `Fft`: cuFFT over DeviceArrays. An `Fft` holds a stream, a memory resource for the plans' work areas, and a cache
 * of plans keyed by kind, precision, sizes and batch; `forward` and `inverse` pick (or make) the plan for an array
 * and run it, and `plan(spec)` gives the plan itself.
 *
 * ```ts
 * using fft = await Fft.create({ stream });
 * using spectrum = fft.forward(signal);                     // float32 [n] → complex64 [n/2+1] (r2c)
 * using back = fft.inverse(spectrum, { real: true, lastSize: n, normalize: true });
 * using images = fft.forward(batch, { dims: 2 });          // complex [b, h, w]: b 2D transforms (c2c)
 * ```
 *
 * - The last `dims` axes of an array are transformed (default all of them; at most 3), the leading axes are a batch.
 * - Arrays are row-major and contiguous, as cuFFT's layout (the last axis varies fastest): no copies are made.
 * - The inverse is unnormalised, as cuFFT's (and FFTW's): `inverse(forward(x))` is `x` times the number of points,
 *   unless `normalize: true` scales it (one more kernel over the output).
 * - c2c may run in place (`out` the input itself); r2c and c2r may not (cuFFT's in-place real layouts are padded).
 * - c2r, like cuFFT's, may overwrite its input.
 * - Plans are made with cuFFT's auto-allocation off: their work areas come from the `Fft`'s memory resource (the
 *   device's by default), allocated on its stream, freed when the plan closes.
 *
 * The library is loaded on `Fft.create`, never by importing cuda-ts.
 *
 * @module
 */
import type { DeviceArray } from "../../array/device-array.ts";
import type { MemoryResource } from "../../memory/resource.ts";
import type { Stream } from "../../stream.ts";
import { mathClasses, mathFacade, type MathFace } from "../facade.ts";
import type { Fft as FftClass, FftPlan as FftPlanClass } from "./fft-impl.ts";

/** Options of {@link Fft.create}. */
export interface FftOptions {
  /** The stream the transforms run on (changed later with `fft.stream = other`). */
  readonly stream: Stream;
  /** Where the plans' work areas and the results allocated for the user come from (default: the stream's device's). */
  readonly memoryResource?: MemoryResource;
}

/** Options of {@link Fft.forward}. */
export interface FftForwardOptions {
  /** Where the result goes (allocated when absent); for c2c, the input itself runs in place. */
  readonly out?: DeviceArray;
  /** How many trailing axes are transformed (1-3, default all). */
  readonly dims?: number;
}

/** Options of {@link Fft.inverse}. */
export interface FftInverseOptions extends FftForwardOptions {
  /** A complex-to-real transform (c2r) instead of complex to complex (implied by `lastSize` or a real `out`). */
  readonly real?: boolean;
  /** c2r: the real output's last size (n, for an input's last size of n/2+1; default 2 × (last size - 1)). */
  readonly lastSize?: number;
  /** Divide by the number of points of one transform (default false: unnormalised, as cuFFT). */
  readonly normalize?: boolean;
}

/** The dtypes the transforms read and write. */
export type FftDType = "float32" | "float64" | "complex64" | "complex128";

/** cuFFT on one stream, with a plan cache; made by {@link Fft.create} (see fft-impl.ts for its members). */
export type Fft = FftClass;

/** One cuFFT plan with its work area, made by `fft.plan(spec)` (see fft-impl.ts for its members). */
export type FftPlan = FftPlanClass;

/** `Fft` the value: the factory, and `instanceof`. */
export interface FftConstructor extends MathFace {
  /** Makes an `Fft` on the stream's device. Loads the class and cuFFT's binding on first use. */
  create(options: FftOptions): Promise<Fft>;
  /** Whether `value` is an `Fft` made by {@link FftConstructor.create}. */
  [Symbol.hasInstance](value: unknown): value is Fft;
}

/** `FftPlan` the value: `instanceof` (plans are made by `fft.plan(spec)`). */
export interface FftPlanConstructor extends MathFace {
  /** Whether `value` is a plan made by an `Fft`. */
  [Symbol.hasInstance](value: unknown): value is FftPlan;
}

/** Makes cuFFT's transform objects: `await Fft.create({ stream })`. */
export const Fft: FftConstructor = mathFacade<FftConstructor>("Fft", "make one with await Fft.create({ stream, memoryResource? })", (c) => c.Fft, {
  async create(options: FftOptions): Promise<Fft> {
    return (await mathClasses("Fft")).Fft.create(options);
  },
});

/** cuFFT plans, made by `fft.plan(spec)`; the value is for `instanceof`. */
export const FftPlan: FftPlanConstructor = mathFacade<FftPlanConstructor>("FftPlan", "plans are made by fft.plan(spec) of an Fft (await Fft.create({ stream }))", (c) => c.FftPlan);
