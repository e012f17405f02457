/**
 * cuFFT, fast Fourier transforms (libcufft, with the cufftXt functions). A failed checked call throws a {@link CUFFTError}
 * naming the status. Its own entry point (`cuda-ts/bindings/cufft`), not part of `cuda-ts/bindings`: its tables
 * are large, and importing them costs start-up time only where they are used.
 *
 * @module
 */
import { type Checked, createChecked, generatedTables, functions, library as info, type Raw, cufftResult } from "./tables/cufft.ts";
import { type BindingExtras, createBinding } from "./binding.ts";
import { chooseByLibraryProperty, headerVersionFromConstants } from "./library-version.ts";
import { statusName } from "./describe.ts";
import { CUFFTError } from "./errors.ts";

export * from "./tables/cufft.ts";

/** cuFFT: checked functions, `.raw`, and the binding's facts. */
export type CufftBinding = Checked & BindingExtras<Raw>;

/** What each status means (the library has no function that says). */
const STATUS_TEXT: Readonly<Record<string, string>> = {
  CUFFT_INVALID_PLAN: "the plan handle is invalid",
  CUFFT_ALLOC_FAILED: "cuFFT could not allocate GPU or host memory",
  CUFFT_INVALID_TYPE: "the transform type is invalid",
  CUFFT_INVALID_VALUE: "a bad value was passed (a null pointer, a size, a stride)",
  CUFFT_INTERNAL_ERROR: "a driver or internal cuFFT error",
  CUFFT_EXEC_FAILED: "cuFFT failed to execute the transform on the GPU",
  CUFFT_SETUP_FAILED: "the cuFFT library failed to initialize",
  CUFFT_INVALID_SIZE: "the transform size is not supported",
  CUFFT_UNALIGNED_DATA: "the data is not aligned as the transform needs",
  CUFFT_INVALID_DEVICE: "the plan runs on another GPU than the one it was made on",
  CUFFT_NO_WORKSPACE: "no work area was set before the plan ran",
  CUFFT_NOT_IMPLEMENTED: "the functionality is not implemented",
  CUFFT_NOT_SUPPORTED: "the operation is not supported for these parameters",
  CUFFT_MISSING_DEPENDENCY: "a library cuFFT needs is missing",
  CUFFT_NVRTC_FAILURE: "NVRTC failed inside cuFFT",
  CUFFT_NVJITLINK_FAILURE: "nvJitLink failed inside cuFFT",
  CUFFT_NVSHMEM_FAILURE: "NVSHMEM failed inside cuFFT",
};

/** cuFFT. */
export const cufft: CufftBinding = createBinding<Raw, Checked>({
  library: "cufft",
  info,
  functions,
  createChecked,
  tables: () => generatedTables,
  chooseTable: chooseByLibraryProperty("cufftGetProperty", headerVersionFromConstants("CUFFT")),
  makeError: (code, fn) => {
    const c = Number(code);
    const name = statusName(cufftResult, "cufftResult", c);
    return new CUFFTError("cufft", c, name, STATUS_TEXT[name] ?? "no description", fn);
  },
});
