/**
 * `cuda-ts/array/random`: NumPy's `numpy.random` Generator API over DeviceArrays, through cuRAND, as CuPy's
 * `cupy.random`: `defaultRng(seed, { stream })` and its `random`, `uniform`, `normal`, `standardNormal`,
 * `logNormal`, `exponential`, `integers`, `poisson`, `permutation`, `shuffle`, `choice`; module-level `random`,
 * `uniform`, `normal`, `standardNormal`, `integers`, `permutation`, `shuffle`, `choice` drawing from a default
 * generator per device, reseeded by `seed(value)`. Synchronous calls (no `await`).
 *
 * ```ts
 * import { defaultRng } from "cuda-ts/array/random";
 * using rng = defaultRng(42, { stream });
 * const x = rng.random([1024], { dtype: "float32" });     // [0, 1)
 * const k = rng.integers(0, 10, [3, 3]);                  // int64 in [0, 10)
 * const order = rng.permutation(100);                     // int64 0..99 in random order
 * const pick = rng.choice(10, [4], { replace: false });   // 4 distinct of 0..9
 * ```
 *
 * Its own entry point, not part of `cuda-ts/array`: importing it loads cuRAND's binding tables (the library itself
 * loads with the first generator).
 *
 * @module
 */
// The object layer this subject builds on (the root registers Device and DeviceArray with the layers below it).
import "./index.ts";
export {
  Generator,
  defaultRng,
  seed,
  random,
  uniform,
  normal,
  standardNormal,
  integers,
  permutation,
  shuffle,
  choice,
  type BitGenerator,
  type ChoiceOptions,
  type DefaultRngOptions,
  type RandomOptions,
  type IntegersOptions,
  type ModuleRandomOptions,
  type PermutationOptions,
  type ShapeArgument,
} from "./core/array/random/random.ts";
