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
import type { curandGenerator_t } from "../../../bindings/curand.ts";
import { DeviceArray } from "../../array/device-array.ts";
import type { DTypeName } from "../../array/dtype.ts";
import { describeValue } from "../../base/checks.ts";
import { enterContext, leaveContext, withCurrentContext } from "../../base/driver-state.ts";
import { track, untrack } from "../../base/lifetime.ts";
import { ClosedError, DTypeError } from "../../errors.ts";
import type { Stream } from "../../stream.ts";
import { checkArray, checkStream, checkStreamDevice, listOf, pointerOf } from "./shared.ts";
import { importLater } from "../../../deferred.ts";
import { ownModuleUrl } from "../../../module-url.ts";

type CurandModule = typeof import("../../../bindings/curand.ts");
let loading: Promise<CurandModule> | undefined;
/** Loads cuRAND's binding module (its tables) once; the library itself opens on the first call. */
function loadCurand(): Promise<CurandModule> {
  return (loading ??= importLater<CurandModule>(ownModuleUrl("src/bindings/curand"), "curand"));
}

/** The generators, by cuRAND's names (`CURAND_RNG_PSEUDO_*`, `CURAND_RNG_QUASI_*`). */
export const RNG_GENERATORS = Object.freeze({
  xorwow: 101,
  mrg32k3a: 121,
  mtgp32: 141,
  mt19937: 142,
  philox: 161,
  sobol32: 201,
  "scrambled-sobol32": 202,
  sobol64: 203,
  "scrambled-sobol64": 204,
} as const);

/** A generator's name: pseudo-random (`xorwow`, `philox`, `mrg32k3a`, `mt19937`, `mtgp32`) or quasi-random (Sobol). */
export type RngGenerator = keyof typeof RNG_GENERATORS;

/** The orderings (`CURAND_ORDERING_*`): how results are laid out in memory; the default is cuRAND's default. */
export const RNG_ORDERINGS = Object.freeze({
  best: 100,
  default: 101,
  seeded: 102,
  legacy: 103,
  dynamic: 104,
  "quasi-default": 201,
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

/** The generators cuRAND gives no offsets (curandSetGeneratorOffset refuses them). */
const NO_OFFSET: ReadonlySet<RngGenerator> = new Set<RngGenerator>(["mtgp32", "mt19937"]);

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

const FLOATS = ["float32", "float64"] as const;
// What #fill generates.
const UNIFORM = 0;
const UNIFORM_DOUBLE = 1;
const POISSON = 2;
const BITS32 = 3;
const BITS64 = 4;
type FloatName = (typeof FLOATS)[number];


/**
 * A generator of `generator` on `stream`'s device, bound to the stream, with the seed, offset (not for the Mersenne
 * Twisters), ordering and dimensions (quasi-random only) given; destroyed again when a setting is refused.
 */
function makeGenerator(
  curand: CurandModule["curand"],
  stream: Stream,
  generator: RngGenerator,
  dimensions: number,
  options: { readonly seed?: bigint | number | undefined; readonly offset?: bigint | number | undefined; readonly ordering?: RngOrdering | undefined },
): curandGenerator_t {
  return withCurrentContext(stream.context.handle, () => {
    const h = curand.curandCreateGenerator(RNG_GENERATORS[generator]);
    try {
      curand.curandSetStream(h, stream.handle);
      if (options.seed !== undefined) curand.curandSetPseudoRandomGeneratorSeed(h, options.seed);
      if (options.offset !== undefined && !NO_OFFSET.has(generator)) curand.curandSetGeneratorOffset(h, options.offset);
      if (options.ordering !== undefined) curand.curandSetGeneratorOrdering(h, RNG_ORDERINGS[options.ordering]);
      if (isQuasi(generator)) curand.curandSetQuasiRandomGeneratorDimensions(h, dimensions);
    } catch (e) {
      curand.curandDestroyGenerator(h);
      throw e;
    }
    return h;
  });
}

/** The safety net's release of a generator: destroyed in its context. */
function release(curand: CurandModule["curand"], ctx: Stream["context"]["handle"], handle: curandGenerator_t): () => void {
  return () => withCurrentContext(ctx, () => curand.curandDestroyGenerator(handle));
}

/** A cuRAND generator bound to a stream; close it (or `using`) to destroy it. */
export class Rng {
  /** The generator type. */
  readonly generator: RngGenerator;
  /** The quasi-random generator's dimensions (1 for pseudo-random ones). */
  readonly dimensions: number;
  /** The device the generator was made on (its stream's). */
  readonly deviceId: number;
  readonly #lib: CurandModule;
  #handle: curandGenerator_t | null;
  #stream: Stream;
  #tail: Partial<Record<FloatName, DeviceArray>> = {};
  readonly #ordering: RngOrdering | undefined;

  private constructor(lib: CurandModule, handle: curandGenerator_t, stream: Stream, generator: RngGenerator, dimensions: number, ordering?: RngOrdering) {
    this.#lib = lib;
    this.#ordering = ordering;
    this.#handle = handle;
    this.#stream = stream;
    this.generator = generator;
    this.dimensions = dimensions;
    this.deviceId = stream.device.id;
    track(this, release(lib.curand, stream.context.handle, handle));
  }

  /**
   * Makes a generator on the stream's device, bound to the stream, with the seed, offset, ordering and dimensions
   * given. Loads cuRAND's binding on first use.
   */
  static async create(options: RngOptions): Promise<Rng> {
    const { generator, dimensions } = checkRngOptions(options);
    const stream = checkStream(options.stream, "Rng.create");
    const lib = await loadCurand();
    const { curand } = lib;
    const handle = makeGenerator(curand, stream, generator, dimensions, options);
    return new Rng(lib, handle, stream, generator, dimensions, options.ordering);
  }

  /** Whether close() was called. */
  get isClosed(): boolean {
    return this.#handle === null;
  }

  /** The generator's handle (`curandGenerator_t`), for calls of the binding itself. */
  get handle(): curandGenerator_t {
    return this.#open("use its handle");
  }

  /** The stream the generator's kernels run on. */
  get stream(): Stream {
    return this.#stream;
  }

  /** Binds the generator to another stream of its device (WrongDeviceError for another device's stream). */
  set stream(stream: Stream) {
    const h = this.#open("change its stream");
    const s = checkStreamDevice(stream, this.deviceId, "Rng: the new stream");
    withCurrentContext(s.context.handle, () => this.#lib.curand.curandSetStream(h, s.handle));
    this.#stream = s;
  }

  /**
   * Starts the sequence again: sets the seed (pseudo-random generators only) and the offset (default 0; the Mersenne
   * Twisters take none). The next numbers are those a new generator with these options would make.
   */
  reseed(seed: bigint | number | undefined, offset: bigint | number = 0): void {
    const h = this.#open("reseed");
    checkRngOptions({ stream: this.#stream, generator: this.generator, seed, offset, dimensions: this.dimensions });
    const { curand } = this.#lib;
    if (NO_OFFSET.has(this.generator)) {
      // A Mersenne Twister keeps its state across a new seed (on the H200, MT19937 went on one number later than a
      // fresh generator): make a fresh generator with the same settings, after the work queued with the old one.
      const ctx = this.#stream.context.handle;
      const fresh = makeGenerator(curand, this.#stream, this.generator, this.dimensions, { seed, ordering: this.#ordering });
      this.#stream.sync();
      untrack(this);
      withCurrentContext(ctx, () => curand.curandDestroyGenerator(h));
      this.#handle = fresh;
      track(this, release(curand, ctx, fresh));
      return;
    }
    withCurrentContext(this.#stream.context.handle, () => {
      if (seed !== undefined) curand.curandSetPseudoRandomGeneratorSeed(h, seed);
      curand.curandSetGeneratorOffset(h, offset);
    });
  }

  /** Uniform floats in (0, 1] into `out` (float32 or float64), or into a new array of `shape` and `dtype`. */
  uniform<N extends FloatName>(out: DeviceArray<N>): DeviceArray<N>;
  uniform<N extends FloatName = "float32">(shape: number | readonly number[], dtype?: N): DeviceArray<N>;
  uniform(target: DeviceArray | number | readonly number[], dtype: FloatName = "float32"): DeviceArray {
    const out = this.#target(target, dtype, FLOATS, "Rng.uniform");
    return this.#fill(out, "Rng.uniform", out.dtype.name === "float32" ? UNIFORM : UNIFORM_DOUBLE, 0);
  }

  /** Normal floats (`mean`, `stddev`) into `out` (float32 or float64) or a new array. Any count (see the module). */
  normal<N extends FloatName>(out: DeviceArray<N>, options?: NormalOptions): DeviceArray<N>;
  normal<N extends FloatName = "float32">(shape: number | readonly number[], dtype?: N, options?: NormalOptions): DeviceArray<N>;
  normal(target: DeviceArray | number | readonly number[], a?: FloatName | NormalOptions, b?: NormalOptions): DeviceArray {
    return this.#normal(target, a, b, false);
  }

  /** Log-normal floats: exp of normals of `mean` and `stddev`, into `out` or a new array. Any count. */
  logNormal<N extends FloatName>(out: DeviceArray<N>, options?: NormalOptions): DeviceArray<N>;
  logNormal<N extends FloatName = "float32">(shape: number | readonly number[], dtype?: N, options?: NormalOptions): DeviceArray<N>;
  logNormal(target: DeviceArray | number | readonly number[], a?: FloatName | NormalOptions, b?: NormalOptions): DeviceArray {
    return this.#normal(target, a, b, true);
  }

  /** Poisson counts of mean `lambda` (> 0) into a uint32 `out`, or a new uint32 array of `shape`. */
  poisson(target: DeviceArray<"uint32"> | number | readonly number[], lambda: number): DeviceArray<"uint32"> {
    if (typeof lambda !== "number" || !(lambda > 0) || !Number.isFinite(lambda)) {
      throw new RangeError(`Rng.poisson: lambda must be a finite number above 0, not ${describeValue(lambda)}`);
    }
    const out = this.#target(target, "uint32", ["uint32"] as const, "Rng.poisson");
    return this.#fill(out, "Rng.poisson", POISSON, lambda);
  }

  /**
   * Raw bits: 32-bit words into a uint32 array (every generator but the 64-bit Sobol ones), 64-bit words into a
   * uint64 array (the 64-bit Sobol generators only).
   */
  bits(target: DeviceArray<"uint32" | "uint64"> | number | readonly number[]): DeviceArray<"uint32" | "uint64"> {
    const wide = this.generator === "sobol64" || this.generator === "scrambled-sobol64";
    const want = wide ? "uint64" : "uint32";
    if (target instanceof DeviceArray && target.dtype.name !== want) {
      throw new DTypeError(`Rng.bits: the ${this.generator} generator makes ${want} words, and the array is ${target.dtype.name}; pass a ${want} array`);
    }
    const out = this.#target(target, want, [want], "Rng.bits");
    return this.#fill(out, "Rng.bits", wide ? BITS64 : BITS32, 0);
  }

  /** Destroys the generator (after the work queued on its stream) and frees its small arrays. Closing twice is harmless. */
  close(): void {
    const h = this.#handle;
    if (h === null) return;
    this.#handle = null;
    untrack(this);
    for (const t of Object.values(this.#tail)) t?.close();
    this.#tail = {};
    withCurrentContext(this.#stream.context.handle, () => this.#lib.curand.curandDestroyGenerator(h));
  }

  [Symbol.dispose](): void {
    this.close();
  }

  #open(action: string): curandGenerator_t {
    const h = this.#handle;
    if (h === null) throw new ClosedError(`this Rng (${this.generator})`, action);
    return h;
  }

  #target<N extends DTypeName>(target: unknown, dtype: unknown, allowed: readonly N[], action: string): DeviceArray<N> {
    this.#open("generate numbers");
    if (target instanceof DeviceArray) return checkArray(target, "out", action, allowed, this.deviceId);
    if (!(allowed as readonly unknown[]).includes(dtype)) throw new DTypeError(`${action} makes ${listOf(allowed)}, not ${describeValue(dtype)}`);
    return DeviceArray.empty(target as number | readonly number[], dtype as N, { stream: this.#stream });
  }

  /** One generating call (no closure: this is the hot path), in the stream's context. */
  #fill<A extends DeviceArray>(out: A, action: string, what: number, lambda: number): A {
    const h = this.#open(action);
    const n = out.size;
    if (n === 0) return out;
    if (this.dimensions > 1 && n % this.dimensions !== 0) {
      throw new RangeError(`${action}: a quasi-random generator of ${this.dimensions} dimensions makes counts that are multiples of ${this.dimensions}, not ${n}`);
    }
    const { curand } = this.#lib;
    const p = pointerOf(out);
    const previous = enterContext(this.#stream.context.handle);
    try {
      if (what === UNIFORM) curand.curandGenerateUniform(h, p, n);
      else if (what === UNIFORM_DOUBLE) curand.curandGenerateUniformDouble(h, p, n);
      else if (what === POISSON) curand.curandGeneratePoisson(h, p, n, lambda);
      else if (what === BITS32) curand.curandGenerate(h, p, n);
      else curand.curandGenerateLongLong(h, p, n);
    } finally {
      leaveContext(previous);
    }
    return out;
  }

  #normal(target: DeviceArray | number | readonly number[], a: FloatName | NormalOptions | undefined, b: NormalOptions | undefined, log: boolean): DeviceArray {
    const action = log ? "Rng.logNormal" : "Rng.normal";
    const dtype = typeof a === "string" ? a : "float32";
    const options = (typeof a === "object" ? a : b) ?? {};
    const mean = options.mean ?? 0;
    const stddev = options.stddev ?? 1;
    if (typeof mean !== "number" || !Number.isFinite(mean)) throw new RangeError(`${action}: mean must be a finite number, not ${describeValue(mean)}`);
    if (typeof stddev !== "number" || !(stddev > 0) || !Number.isFinite(stddev)) throw new RangeError(`${action}: stddev must be a finite number above 0, not ${describeValue(stddev)}`);
    const out = this.#target(target, dtype, FLOATS, action);
    const h = this.#open(action);
    const n = out.size;
    if (n === 0) return out;
    const { main, tail } = normalSplit(n, isQuasi(this.generator), this.dimensions);
    const { curand } = this.#lib;
    const f32 = out.dtype.name === "float32";
    const gen = (p: ReturnType<typeof pointerOf>, count: number): void => {
      if (log) {
        if (f32) curand.curandGenerateLogNormal(h, p, count, mean, stddev);
        else curand.curandGenerateLogNormalDouble(h, p, count, mean, stddev);
      } else if (f32) curand.curandGenerateNormal(h, p, count, mean, stddev);
      else curand.curandGenerateNormalDouble(h, p, count, mean, stddev);
    };
    withCurrentContext(this.#stream.context.handle, () => {
      if (main > 0) gen(pointerOf(out), main);
      if (tail) {
        const name = out.dtype.name as FloatName;
        const pair = (this.#tail[name] ??= DeviceArray.empty([2], name, { stream: this.#stream }));
        gen(pointerOf(pair), 2);
        const flat = out.reshape(n);
        pair.subarray(0, 1).copyTo(flat.subarray(n - 1, n), { stream: this.#stream });
      }
    });
    return out;
  }

  toString(): string {
    return `Rng(${this.generator}${this.isClosed ? ", closed" : ""})`;
  }
}
