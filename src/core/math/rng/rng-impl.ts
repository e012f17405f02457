/**
 * The implementation of {@link Rng} (rng.ts), loaded by the first `Rng.create`: the class's code is not evaluated
 * when cuda-ts is imported.
 *
 * @module
 */
import type { curandGenerator_t } from "../../../bindings/curand.ts";
import { DeviceArray } from "../../array/device-array.ts";
import type { DTypeName } from "../../array/dtype.ts";
import { describeValue } from "../../../errors/describe.ts";
import { withCurrentContext } from "../../base/driver-state.ts";
import { contextScope } from "../../base/context-scope.ts";
import { track, untrack } from "../../base/lifetime.ts";
import { ClosedError } from "../../base/errors.ts";
import { DTypeError } from "../../array/errors.ts";
import type { Stream } from "../../stream.ts";
import { checkArray, replacementStream, listOf, pointerOf } from "./shared.ts";
import { importLater } from "../../../deferred.ts";
import { ownModuleUrl } from "../../../module-url.ts";
import { checkRngOptions, isQuasi, normalSplit, NO_OFFSET, RNG_GENERATORS, RNG_ORDERINGS, type NormalOptions, type RngGenerator, type RngOptions, type RngOrdering } from "./rng.ts";
import { STREAM_OPTION, takeStream } from "../../base/stream-arg.ts";

type CurandModule = typeof import("../../../bindings/curand.ts");
let loading: Promise<CurandModule> | undefined;
/** Loads cuRAND's binding module (its tables) once; the library itself opens on the first call. */
function loadCurand(): Promise<CurandModule> {
  return (loading ??= importLater<CurandModule>(ownModuleUrl("src/bindings/curand"), "curand"));
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
    track(this, "Rng", release(lib.curand, stream.context.handle, handle));
  }

  /**
   * Makes a generator on the stream's device, bound to the stream, with the seed, offset, ordering and dimensions
   * given. Loads cuRAND's binding on first use.
   */
  static async create(options: RngOptions): Promise<Rng> {
    const { generator, dimensions } = checkRngOptions(options);
    const stream = takeStream(options.stream, "Rng.create", STREAM_OPTION);
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

  /** Binds the generator to another stream of its device (DeviceMismatchError for another device's stream). */
  set stream(stream: Stream) {
    const h = this.#open("change its stream");
    const s = replacementStream(stream, this.deviceId, "Rng");
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
      track(this, "Rng", release(curand, ctx, fresh));
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
    {
      using _ = contextScope(this.#stream.context.handle);
      if (what === UNIFORM) curand.curandGenerateUniform(h, p, n);
      else if (what === UNIFORM_DOUBLE) curand.curandGenerateUniformDouble(h, p, n);
      else if (what === POISSON) curand.curandGeneratePoisson(h, p, n, lambda);
      else if (what === BITS32) curand.curandGenerate(h, p, n);
      else curand.curandGenerateLongLong(h, p, n);
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
