/**
 * The CUDA runtime API (libcudart), bound through the pathfinder and dlsym, each function on its first call.
 *
 * @module
 */
import { cudaError_t, type Checked, createChecked, functions, generatedTables, library as info, type Raw } from "./tables/runtime.ts";
import { type BindingExtras, chooseByVersion, queryInts, createBinding } from "./binding.ts";
import { libraryDescription, statusName } from "./describe.ts";
import { CudaRuntimeError } from "./errors.ts";

export * from "./tables/runtime.ts";

/** The CUDA runtime API: checked functions, `.raw`, and the binding's facts. */
export type RuntimeBinding = Checked & BindingExtras<Raw>;

/** The CUDA runtime API. */
export const runtime: RuntimeBinding = createBinding<Raw, Checked>({
  library: "cudart",
  info,
  functions,
  createChecked,
  tables: () => generatedTables,
  chooseTable: chooseByVersion("cudaRuntimeGetVersion", (lib) => queryInts(lib, "cudaRuntimeGetVersion", 1)?.[0]),
  makeError: (code, fn) => {
    const c = Number(code);
    return new CudaRuntimeError(c, statusName(cudaError_t, "cudaError_t", c), libraryDescription(runtime, "cudaGetErrorString", c) ?? "no description", fn);
  },
});
