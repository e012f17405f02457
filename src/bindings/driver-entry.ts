/**
 * `cuda-ts/bindings/driver`: the CUDA driver API (libcuda), bound the way cuda-python binds it: the pathfinder finds libcuda.so.1 through the
 * system loader, `cuGetProcAddress_v2` is taken by name, and every other function is resolved on its first call
 * by base name and the CUDA version of the ABI its table records (cudaTypedefs.h's PFN typedefs).
 *
 * The table: of the generated tables this package carries (CUDA 13.0, 12.4, ...), the newest not newer than the
 * driver (`cuDriverGetVersion`), so that a CUDA 12.4 driver gets every function at its 12.4 ABI. A function only
 * a newer table has fails on its first call with a `FunctionVersionError` naming both versions; a function the
 * driver lacks although its table has it fails with `FunctionNotFoundError`.
 *
 * Per-thread default stream: set `CUDA_TS_PER_THREAD_DEFAULT_STREAM=1` (any non-zero integer) or call
 * {@link configureDriver} before the first driver call. Stream-ordered functions are then resolved to their
 * `_ptsz`/`_ptds` variants, and the NULL stream means the calling thread's default stream.
 *
 * Its enums, constants and records are `cuda-ts/bindings/driver/types` (./driver-types.ts); this entry point exports
 * their types only, so that importing it evaluates what a call needs and no more.
 *
 * @module
 */
import "./driver-all-makers.ts";

export * from "./driver-binding.ts";
export type * from "./driver-types.ts";
