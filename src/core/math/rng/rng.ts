/**
 * `Rng`: cuRAND's host API over DeviceArrays. A generator (XORWOW, Philox, MRG32k3a, MT19937, MTGP32 or a Sobol
 * sequence) bound to a stream, with a seed, an offset and an ordering; `uniform`, `normal`, `logNormal`, `poisson`
 * and raw `bits` fill a DeviceArray of the right dtype (or allocate one). The same generator type, seed, offset and
 * ordering give the same numbers on every run (cuRAND's results depend on the library version, not the GPU model).
 *
 * ```ts
 * using rng = await Rng.create({ stream, generator: "philox", seed: 42 });
 * using x = rng.normal([1000, 3], "float32", { mean: 0, stddev: 1 });   // allocated
 * rng.uniform(existingFloat64Array);                                   // filled in place
 * ```
 *
 * cuRAND makes normals in pairs with the pseudo-random generators (Box-Muller), so it refuses an odd count; `normal`
 * and `logNormal` handle it for the user: the first n-1 values come from one call, the last from a pair made into a
 * small array of the generator's own (one more value is drawn than kept).
 *
 * The library is loaded on `Rng.create`, never by importing cuda-ts.
 *
 * @module
 */
import { describeValue } from "../../../errors/describe.ts";
import type { Stream } from "../../stream.ts";
import { listOf } from "./shared.ts";
import { mathClasses, mathFacade, type MathFace } from "../facade.ts";
import type { Rng as RngClass } from "./rng-impl.ts";
import { curandOrdering_t, curandRngType_t } from "../../../../generated/cuda-13.0/curand/enums.ts";

/** The generators, by cuRAND's names (`CURAND_RNG_PSEUDO_*`, `CURAND_RNG_QUASI_*`). */
export const RNG_GENERATORS = Object.freeze({
  xorwow: curandRngType_t.CURAND_RNG_PSEUDO_XORWOW,
  mrg32k3a: curandRngType_t.CURAND_RNG_PSEUDO_MRG32K3A,
  mtgp32: curandRngType_t.CURAND_RNG_PSEUDO_MTGP32,
  mt19937: curandRngType_t.CURAND_RNG_PSEUDO_MT19937,
  philox: curandRngType_t.CURAND_RNG_PSEUDO_PHILOX4_32_10,
  sobol32: curandRngType_t.CURAND_RNG_QUASI_SOBOL32,
  "scrambled-sobol32": curandRngType_t.CURAND_RNG_QUASI_SCRAMBLED_SOBOL32,
  sobol64: curandRngType_t.CURAND_RNG_QUASI_SOBOL64,
  "scrambled-sobol64": curandRngType_t.CURAND_RNG_QUASI_SCRAMBLED_SOBOL64,
} as const);

/** A generator's name: pseudo-random (`xorwow`, `philox`, `mrg32k3a`, `mt19937`, `mtgp32`) or quasi-random (Sobol). */
export type RngGenerator = keyof typeof RNG_GENERATORS;

/** The orderings (`CURAND_ORDERING_*`): how results are laid out in memory; the default is cuRAND's default. */
export const RNG_ORDERINGS = Object.freeze({
  best: curandOrdering_t.CURAND_ORDERING_PSEUDO_BEST,
  default: curandOrdering_t.CURAND_ORDERING_PSEUDO_DEFAULT,
  seeded: curandOrdering_t.CURAND_ORDERING_PSEUDO_SEEDED,
  legacy: curandOrdering_t.CURAND_ORDERING_PSEUDO_LEGACY,
  dynamic: curandOrdering_t.CURAND_ORDERING_PSEUDO_DYNAMIC,
  "quasi-default": curandOrdering_t.CURAND_ORDERING_QUASI_DEFAULT,
} as const);

/** An ordering's name. */
export type RngOrdering = keyof typeof RNG_ORDERINGS;

/** Options of {@link Rng.create}. */
export interface RngOptions {
  /** The stream the generator's kernels run on (changed later with `rng.stream = other`). */
  readonly stream: Stream;
  /** The generator (default `"xorwow"`, cuRAND's default). */
  readonly generator?: RngGenerator;
  /** The seed of a pseudo-random generator (default 0, cuRAND's); quasi-random generators take none. */
  readonly seed?: bigint | number;
  /** How many values of the sequence to skip (default 0; not for mtgp32 and mt19937, which cannot skip ahead). */
  readonly offset?: bigint | number;
  /** The ordering (default cuRAND's default for the generator's kind). */
  readonly ordering?: RngOrdering;
  /** The dimensions of a quasi-random generator (default 1, 1 to 20000). Counts must then be multiples of it. */
  readonly dimensions?: number;
}

/** Mean and standard deviation of `normal` (of the underlying normal for `logNormal`). */
export interface NormalOptions {
  /** Default 0. */
  readonly mean?: number;
  /** Default 1. */
  readonly stddev?: number;
}

/** @internal The generators cuRAND gives no offsets (curandSetGeneratorOffset refuses them). */
export const NO_OFFSET: ReadonlySet<RngGenerator> = new Set<RngGenerator>(["mtgp32", "mt19937"]);

/** Whether the generator is a quasi-random (Sobol) one. */
export function isQuasi(generator: RngGenerator): boolean {
  return RNG_GENERATORS[generator] >= 200;
}

/**
 * How `normal`/`logNormal` split `n` values for cuRAND: `main` values in one call (even for pseudo-random
 * generators), plus one value taken from a pair when `n` is odd. A quasi-random generator needs `n` to be a multiple
 * of its dimensions (a RangeError otherwise). Exported for tests.
 */
export function normalSplit(n: number, quasi: boolean, dimensions: number): { readonly main: number; readonly tail: boolean } {
  if (quasi) {
    if (n % dimensions !== 0) throw new RangeError(`a quasi-random generator of ${dimensions} dimensions makes counts that are multiples of ${dimensions}, not ${n}; allocate a multiple of ${dimensions} elements`);
    return { main: n, tail: false };
  }
  return n % 2 === 0 ? { main: n, tail: false } : { main: n - 1, tail: true };
}

/** Checks the options of {@link Rng.create} (exported for tests: no GPU needed). */
export function checkRngOptions(options: RngOptions): { generator: RngGenerator; dimensions: number } {
  if (typeof options !== "object" || options === null) throw new TypeError(`Rng.create takes { stream, generator?, seed?, offset?, ordering?, dimensions? }, not ${describeValue(options)}`);
  const generator = options.generator ?? "xorwow";
  if (!Object.hasOwn(RNG_GENERATORS, generator)) {
    throw new RangeError(`Rng.create: generator ${describeValue(generator)} is not one of ${listOf(Object.keys(RNG_GENERATORS))}`);
  }
  const quasi = isQuasi(generator);
  for (const key of ["seed", "offset"] as const) {
    const v = options[key];
    if (v === undefined) continue;
    const ok = typeof v === "bigint" ? v >= 0n && v < 1n << 64n : typeof v === "number" && Number.isSafeInteger(v) && v >= 0;
    if (!ok) throw new RangeError(`Rng.create: ${key} must be a non-negative integer below 2^64 (a number or a bigint), not ${describeValue(v)}`);
  }
  if (NO_OFFSET.has(generator) && options.offset !== undefined && options.offset !== 0 && options.offset !== 0n) {
    throw new RangeError(`Rng.create: the ${generator} generator takes no offset (cuRAND's Mersenne Twisters cannot skip ahead); use another seed, or philox, xorwow or mrg32k3a`);
  }
  if (quasi && options.seed !== undefined) {
    throw new RangeError(`Rng.create: the ${generator} generator is quasi-random and takes no seed; use offset to start elsewhere in the sequence`);
  }
  if (options.ordering !== undefined) {
    if (!Object.hasOwn(RNG_ORDERINGS, options.ordering)) {
      throw new RangeError(`Rng.create: ordering ${describeValue(options.ordering)} is not one of ${listOf(Object.keys(RNG_ORDERINGS))}`);
    }
    if ((options.ordering === "quasi-default") !== quasi) {
      throw new RangeError(`Rng.create: ordering "${options.ordering}" is for ${quasi ? "pseudo" : "quasi"}-random generators, and ${generator} is ${quasi ? "quasi" : "pseudo"}-random`);
    }
  }
  const dimensions = options.dimensions ?? 1;
  if (!Number.isSafeInteger(dimensions) || dimensions < 1 || dimensions > 20000) {
    throw new RangeError(`Rng.create: dimensions must be an integer from 1 to 20000, not ${describeValue(options.dimensions)}`);
  }
  if (!quasi && dimensions !== 1) throw new RangeError(`Rng.create: dimensions are for quasi-random (Sobol) generators; ${generator} is pseudo-random`);
  return { generator, dimensions };
}

/** A cuRAND generator bound to a stream, made by {@link Rng.create} (see rng-impl.ts for its members). */
export type Rng = RngClass;

/** `Rng` the value: the factory, and `instanceof`. */
export interface RngConstructor extends MathFace {
  /**
   * Makes a generator on the stream's device, bound to the stream, with the seed, offset, ordering and dimensions
   * given. Loads the class and cuRAND's binding on first use.
   */
  create(options: RngOptions): Promise<Rng>;
  /** Whether `value` is a generator made by {@link RngConstructor.create}. */
  [Symbol.hasInstance](value: unknown): value is Rng;
}

/** Makes cuRAND generators: `await Rng.create({ stream, generator, seed })`. */
export const Rng: RngConstructor = mathFacade<RngConstructor>("Rng", "make one with await Rng.create({ stream, generator?, seed? })", (c) => c.Rng, {
  async create(options: RngOptions): Promise<Rng> {
    return (await mathClasses("Rng")).Rng.create(options);
  },
});
