/**
 * `cuda-ts/array/fft`: NumPy's `numpy.fft` over DeviceArrays, through cuFFT, as CuPy's `cupy.fft`: `fft`, `ifft`,
 * `rfft`, `irfft`, `fft2`, `ifft2`, `rfft2`, `irfft2`, `fftn`, `ifftn`, `rfftn`, `irfftn` (`n`/`s`, `axis`/`axes`,
 * `norm`), `fftfreq`, `rfftfreq`, `fftshift`, `ifftshift`. Synchronous calls (no `await`); plans are cached per
 * device.
 *
 * ```ts
 * import { rfft, irfft, fftfreq } from "cuda-ts/array/fft";
 * const spectrum = rfft(signal);                  // float32 [..., n] → complex64 [..., n/2 + 1]
 * const back = irfft(spectrum, { n: signal.shape.at(-1) });
 * ```
 *
 * Its own entry point, not part of `cuda-ts/array`: importing it loads cuFFT's binding tables (the library itself
 * loads with the first plan).
 *
 * @module
 */
// The object layer this subject builds on (the root registers Device and DeviceArray with the layers below it).
import "./index.ts";
export {
  fft,
  ifft,
  rfft,
  irfft,
  fft2,
  ifft2,
  rfft2,
  irfft2,
  fftn,
  ifftn,
  rfftn,
  irfftn,
  fftfreq,
  rfftfreq,
  fftshift,
  ifftshift,
  FFT_PLAN_CACHE_SIZE,
  type FftOptions,
  type FftnOptions,
  type FftNorm,
  type FftFreqOptions,
  type FftShiftOptions,
} from "./core/array/fft/fft.ts";
