/**
 * cuRAND, random number generation on the GPU (libcurand, the host API). A failed checked call throws a {@link CURANDError}
 * naming the status. Its own entry point (`cuda-ts/bindings/curand`), not part of `cuda-ts/bindings`: its tables
 * are large, and importing them costs start-up time only where they are used.
 *
 * @module
 */
import { type Checked, createChecked, generatedTables, functions, library as info, type Raw, curandStatus_t } from "./tables/curand.ts";
import { type BindingExtras, createBinding } from "./binding.ts";
import { chooseByLibraryProperty, headerVersionFromConstants } from "./library-version.ts";
import { statusName } from "./describe.ts";
import { CURANDError } from "./errors.ts";

export * from "./tables/curand.ts";

/** cuRAND: checked functions, `.raw`, and the binding's facts. */
export type CurandBinding = Checked & BindingExtras<Raw>;

/** What each status means (the library has no function that says). */
const STATUS_TEXT: Readonly<Record<string, string>> = {
  CURAND_STATUS_VERSION_MISMATCH: "the header and the linked library versions do not match",
  CURAND_STATUS_NOT_INITIALIZED: "the generator was not initialized",
  CURAND_STATUS_ALLOCATION_FAILED: "memory allocation failed",
  CURAND_STATUS_TYPE_ERROR: "the generator is of the wrong type for this call",
  CURAND_STATUS_OUT_OF_RANGE: "an argument is out of range",
  CURAND_STATUS_LENGTH_NOT_MULTIPLE: "the length requested is not a multiple of the dimension (or, for normals, of 2)",
  CURAND_STATUS_DOUBLE_PRECISION_REQUIRED: "the GPU lacks the double precision this generator needs",
  CURAND_STATUS_LAUNCH_FAILURE: "a kernel launch failed",
  CURAND_STATUS_PREEXISTING_FAILURE: "a failure from an earlier call was pending on entry",
  CURAND_STATUS_INITIALIZATION_FAILED: "initializing CUDA failed",
  CURAND_STATUS_ARCH_MISMATCH: "the GPU does not support the requested feature",
  CURAND_STATUS_INTERNAL_ERROR: "an internal library error",
};

/** cuRAND. */
export const curand: CurandBinding = createBinding<Raw, Checked>({
  library: "curand",
  info,
  functions,
  createChecked,
  tables: () => generatedTables,
  chooseTable: chooseByLibraryProperty("curandGetProperty", headerVersionFromConstants("CURAND")),
  makeError: (code, fn) => {
    const c = Number(code);
    const name = statusName(curandStatus_t, "curandStatus_t", c);
    return new CURANDError("curand", c, name, STATUS_TEXT[name] ?? "no description", fn);
  },
});
