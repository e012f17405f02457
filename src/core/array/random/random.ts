/**
 * NumPy's `numpy.random.Generator` over DeviceArrays, through cuRAND: `defaultRng(seed, { stream })` makes a
 * `Generator` whose methods (`random`, `uniform`, `normal`, `standardNormal`, `logNormal`, `exponential`,
 * `integers`, `poisson`, `permutation`, `choice`) return new arrays and `shuffle` shuffles one in place, and the
 * module-level functions of the same names draw from a default generator per device (`seed(value)` reseeds them).
 *
 * How values are made: cuRAND's pseudo-random generator (Philox4x32-10 by default) fills 32-bit words, which small
 * kernels turn into NumPy's values the way NumPy does: `random` is [0, 1) exactly (24 random bits for float32, 53 for
 * float64: cuRAND's own uniform is (0, 1]), `integers` maps 64 random bits onto [low, high) by a multiply-shift (the
 * bias is below (high − low)/2⁶⁴), `exponential` is −scale·log(1 − u). `normal`, `logNormal` and `poisson` are
 * cuRAND's. A permutation is the order that sorts 64 random bits per entry (`argsort`); `choice` with probabilities
 * searches their running sum (`cumsum`, `searchsorted`) for uniform draws scaled by its total. The streams of values
 * are not NumPy's (another bit generator): the same seed gives the same values on every run and device, not the ones
 * NumPy gives.
 *
 * Nothing here waits for the stream.
 *
 * @module
 */
import { curand, type curandGenerator_t } from "../../../bindings/curand.ts";
import { DeviceArray, checkWritable } from "../device-array.ts";
import { dtypeOf, dtypes, type DType, type DTypeName } from "../dtype.ts";
import { DTypeError } from "../errors.ts";
import { elementCount } from "../layout.ts";
import type { Device } from "../../device.ts";
import type { Stream } from "../../stream.ts";
import { withCurrentContext } from "../../base/driver-state.ts";
import { contextScope } from "../../base/context-scope.ts";
import { track, untrack } from "../../base/lifetime.ts";
import { ClosedError } from "../../base/errors.ts";
import { STREAM_OPTION, takeStream } from "../../base/stream-arg.ts";
import { RNG_GENERATORS } from "../../math/rng/rng.ts";
import { pointerOf } from "../../math/rng/shared.ts";
import { describeValue } from "../../../errors/describe.ts";
import { kernelOf, shapeArgument } from "../math-shared.ts";
import { fromUniformSpec, integersSpec, POISSON_INT64, type FROM_UNIFORM } from "../math-kernels.ts";
import { argsort } from "../ops/sort.ts";
import { take } from "../ops/indexing.ts";
import { cumsum } from "../ops/scan.ts";
import { mul, sub } from "../ops/arithmetic.ts";
import { searchsorted } from "../ops/search.ts";
import { checkOneDevice } from "../ops/elementwise.ts";
import { choicePlan, countArgument, integerBounds, populationAxis, randomDtype, seedArgument } from "./plan.ts";

/** The bit generators a Generator may use (cuRAND's pseudo-random ones that take any count). */
export type BitGenerator = "philox" | "xorwow" | "mrg32k3a";
const BIT_GENERATORS: readonly BitGenerator[] = ["philox", "xorwow", "mrg32k3a"];

/** Options of {@link defaultRng}. */
export interface DefaultRngOptions {
  /** The stream draws run on when a call names none. */
  readonly stream: Stream;
  /** cuRAND's bit generator (default "philox", Philox4x32-10). */
  readonly generator?: BitGenerator;
}

/** Options of a draw: the stream (default: the generator's) and the dtype. */
export interface RandomOptions {
  /** The stream the draw runs on (default: the generator's; a stream of its device). */
  readonly stream?: Stream;
  /** float32 or float64 (default float64, as NumPy's). */
  readonly dtype?: "float32" | "float64" | DType<"float32"> | DType<"float64">;
}

/** Options of `integers`. */
export interface IntegersOptions {
  /** The stream the draw runs on (default: the generator's). */
  readonly stream?: Stream;
  /** An integer dtype or bool (default int64, as NumPy's). */
  readonly dtype?: DTypeName | DType;
  /** Whether `high` is included (default false: [low, high)). */
  readonly endpoint?: boolean;
}

/** Options of `permutation` and `shuffle`. */
export interface PermutationOptions {
  /** The stream the draw runs on (default: the generator's). */
  readonly stream?: Stream;
  /** The axis of an array shuffled (default 0: its rows are reordered, each kept whole). */
  readonly axis?: number;
}

/** Options of `choice`. */
export interface ChoiceOptions {
  /** The stream the draw runs on (default: the generator's). */
  readonly stream?: Stream;
  /** Whether an entry may be drawn more than once (default true). */
  readonly replace?: boolean;
  /**
   * The weight of each entry: a 1-d float array, one per entry of the population, non-negative. Normalised by its sum
   * on the device (so it need not sum to 1; NumPy's check that it does would read it back to the host). Only with
   * replacement. Weights that are negative or NaN, or that sum to 0, are not checked and give undefined draws.
   */
  readonly p?: DeviceArray;
  /** The axis of an array drawn along (default 0: whole rows are drawn). */
  readonly axis?: number;
  /** NumPy's option to leave a sample without replacement unshuffled; here every sample is in random order either way. */
  readonly shuffle?: boolean;
}

/** A shape: an extent or a list of them (default [], a 0-d array). */
export type ShapeArgument = number | readonly number[];

/** A source of random arrays on one device: NumPy's `Generator` over cuRAND. Close it (or `using`) to free it. */
export class Generator {
  /** The seed it was made with. */
  readonly seed: bigint;
  /** cuRAND's bit generator. */
  readonly bitGenerator: BitGenerator;
  /** The device its arrays are made on. */
  readonly deviceId: number;
  #handle: curandGenerator_t | null;
  /** The stream draws run on by default. */
  readonly stream: Stream;
  /** The stream cuRAND's handle is set to now. */
  #current: Stream;

  /** @internal Made by {@link defaultRng}. */
  constructor(seed: bigint, stream: Stream, bitGenerator: BitGenerator) {
    this.seed = seed;
    this.bitGenerator = bitGenerator;
    this.stream = stream;
    this.#current = stream;
    this.deviceId = stream.device.id;
    const ctx = stream.context.handle;
    const handle = withCurrentContext(ctx, () => {
      const h = curand.curandCreateGenerator(RNG_GENERATORS[bitGenerator]);
      try {
        curand.curandSetStream(h, stream.handle);
        curand.curandSetPseudoRandomGeneratorSeed(h, seed);
      } catch (e) {
        curand.curandDestroyGenerator(h);
        throw e;
      }
      return h;
    });
    this.#handle = handle;
    track(this, "Generator", () => withCurrentContext(ctx, () => curand.curandDestroyGenerator(handle)));
  }

  /** Whether `close()` was called. */
  get isClosed(): boolean {
    return this.#handle === null;
  }

  /** Destroys cuRAND's generator (after the work queued on its stream). Closing twice is harmless. */
  close(): void {
    const h = this.#handle;
    if (h === null) return;
    this.#handle = null;
    untrack(this);
    withCurrentContext(this.#current.context.handle, () => curand.curandDestroyGenerator(h));
  }

  [Symbol.dispose](): void {
    this.close();
  }

  /** The handle set to the call's stream (which first waits for the previous one: the sequence stays in order). */
  #prepare(action: string, stream: Stream | undefined): { h: curandGenerator_t; stream: Stream } {
    const h = this.#handle;
    if (h === null) throw new ClosedError("this Generator", action);
    const s = stream === undefined ? this.stream : takeStream(stream, action, { ...STREAM_OPTION, device: this.deviceId, deviceAdvice: "make a Generator on that device (defaultRng with a stream of it)" });
    if (s !== this.#current && !s.equals(this.#current)) {
      if (this.#current.isClosed) s.device.sync();
      else s.wait(this.#current);
      withCurrentContext(s.context.handle, () => curand.curandSetStream(h, s.handle));
      this.#current = s;
    }
    return { h, stream: s };
  }

  /** `count` random 32-bit words, a new uint32 array. */
  #bits(h: curandGenerator_t, stream: Stream, count: number): DeviceArray {
    const bits = DeviceArray.empty([Math.max(1, count)], "uint32", { stream });
    if (count > 0) {
      using _ = contextScope(stream.context.handle);
      curand.curandGenerate(h, pointerOf(bits), count);
    }
    return bits;
  }

  /** A float array of `shape` from `body` (which reads the uniform u of its element); the words freed after. */
  #fromUniform(action: string, shape: ShapeArgument | undefined, options: RandomOptions | undefined, kind: keyof typeof FROM_UNIFORM, args: readonly number[]): DeviceArray {
    const dims = shapeArgument(shape, action);
    const dtype = randomDtype(options?.dtype, action);
    const { h, stream } = this.#prepare(action, options?.stream);
    const n = elementCount(dims);
    const f64 = dtype.name === "float64";
    const bits = this.#bits(h, stream, f64 ? 2 * n : n);
    try {
      const out = DeviceArray.empty(dims, dtype, { stream });
      if (n > 0) {
        kernelOf(fromUniformSpec(kind, f64 ? "float64" : "float32")).launch(stream, bits, ...args, out);
      }
      return out;
    } finally {
      bits.close(stream);
    }
  }

  /**
   * Floats uniform on [0, 1): float64 (default, 53 random bits) or float32 (24 bits).
   *
   * ```ts
   * const rng = defaultRng(42, { stream });
   * const x = rng.random([1024, 1024], { dtype: "float32" });
   * ```
   */
  random(shape?: ShapeArgument, options?: RandomOptions): DeviceArray {
    return this.#fromUniform("Generator.random", shape, options, "unit", []);
  }

  /** Floats uniform on [low, high) (low + (high − low)·u). */
  uniform(low = 0, high = 1, shape?: ShapeArgument, options?: RandomOptions): DeviceArray {
    checkFinite("Generator.uniform", { low, high });
    return this.#fromUniform("Generator.uniform", shape, options, "uniform", [low, high - low]);
  }

  /** Exponentially distributed floats of mean `scale` (−scale·log(1 − u)). */
  exponential(scale = 1, shape?: ShapeArgument, options?: RandomOptions): DeviceArray {
    checkFinite("Generator.exponential", { scale });
    if (scale < 0) throw new RangeError(`Generator.exponential: scale must be non-negative, not ${scale}`);
    return this.#fromUniform("Generator.exponential", shape, options, "exponential", [scale]);
  }

  /** Normally distributed floats of mean `loc` and standard deviation `scale` (cuRAND's normal generator). */
  normal(loc = 0, scale = 1, shape?: ShapeArgument, options?: RandomOptions): DeviceArray {
    checkFinite("Generator.normal", { loc, scale });
    if (scale < 0) throw new RangeError(`Generator.normal: scale must be non-negative, not ${scale}`);
    return this.#normal("Generator.normal", loc, scale, shape, options, false);
  }

  /** Standard normal floats (mean 0, standard deviation 1). */
  standardNormal(shape?: ShapeArgument, options?: RandomOptions): DeviceArray {
    return this.#normal("Generator.standardNormal", 0, 1, shape, options, false);
  }

  /** Log-normal floats: exp of a normal of mean `mean` and standard deviation `sigma`. */
  logNormal(mean = 0, sigma = 1, shape?: ShapeArgument, options?: RandomOptions): DeviceArray {
    checkFinite("Generator.logNormal", { mean, sigma });
    if (sigma < 0) throw new RangeError(`Generator.logNormal: sigma must be non-negative, not ${sigma}`);
    return this.#normal("Generator.logNormal", mean, sigma, shape, options, true);
  }

  #normal(action: string, mean: number, std: number, shape: ShapeArgument | undefined, options: RandomOptions | undefined, log: boolean): DeviceArray {
    const dims = shapeArgument(shape, action);
    const dtype = randomDtype(options?.dtype, action);
    const { h, stream } = this.#prepare(action, options?.stream);
    const n = elementCount(dims);
    const out = DeviceArray.empty(dims, dtype, { stream });
    if (n === 0) return out;
    const f32 = dtype.name === "float32";
    const gen = (p: ReturnType<typeof pointerOf>, count: number): void => {
      if (log && f32) curand.curandGenerateLogNormal(h, p, count, mean, std);
      else if (log) curand.curandGenerateLogNormalDouble(h, p, count, mean, std);
      else if (f32) curand.curandGenerateNormal(h, p, count, mean, std);
      else curand.curandGenerateNormalDouble(h, p, count, mean, std);
    };
    // cuRAND makes normals in pairs: an odd count's last one comes from a pair of its own.
    const main = n - (n % 2);
    {
      using _ = contextScope(stream.context.handle);
      if (main > 0) gen(pointerOf(out), main);
    }
    if (main < n) {
      const tail = DeviceArray.empty([2], dtype, { stream });
      try {
        {
          using _ = contextScope(stream.context.handle);
          gen(pointerOf(tail), 2);
        }
        tail.subarray(0, 1).copyTo(DeviceArray.fromBuffer(out.buffer, { dtype, shape: [1], byteOffset: out.byteOffset + (n - 1) * dtype.itemsize }), { stream });
      } finally {
        tail.close(stream);
      }
    }
    return out;
  }

  /**
   * Integers uniform on [low, high) (or [low, high] with `endpoint`), int64 by default (any integer dtype or bool).
   * With one bound, `integers(high)` draws from [0, high), as NumPy's.
   */
  integers(low: number | bigint, high?: number | bigint, shape?: ShapeArgument, options?: IntegersOptions): DeviceArray {
    const action = "Generator.integers";
    const dtype = dtypeOf(options?.dtype ?? "int64");
    const { lo, span } = integerBounds(low, high, options?.endpoint ?? false, dtype, action);
    const dims = shapeArgument(shape, action);
    const { h, stream } = this.#prepare(action, options?.stream);
    const n = elementCount(dims);
    const bits = this.#bits(h, stream, 2 * n);
    try {
      const out = DeviceArray.empty(dims, dtype, { stream });
      if (n > 0) {
        kernelOf(integersSpec(dtype)).launch(stream, bits, lo, span, out);
      }
      return out;
    } finally {
      bits.close(stream);
    }
  }

  /** Poisson-distributed counts of mean `lam` (cuRAND's Poisson generator), int64. */
  poisson(lam = 1, shape?: ShapeArgument, options?: { readonly stream?: Stream }): DeviceArray {
    const action = "Generator.poisson";
    checkFinite(action, { lam });
    if (!(lam > 0)) throw new RangeError(`${action}: lam must be positive (cuRAND's Poisson generator), not ${lam}`);
    const dims = shapeArgument(shape, action);
    const { h, stream } = this.#prepare(action, options?.stream);
    const n = elementCount(dims);
    const counts = DeviceArray.empty([Math.max(1, n)], "uint32", { stream });
    try {
      if (n > 0) {
        using _ = contextScope(stream.context.handle);
        curand.curandGeneratePoisson(h, pointerOf(counts), n, lam);
      }
      const out = DeviceArray.empty(dims, dtypes.int64, { stream });
      if (n > 0) kernelOf(POISSON_INT64).launch(stream, counts, out);
      return out;
    } finally {
      counts.close(stream);
    }
  }

  /** `n` int64 indices 0..n-1 in random order: the order that sorts `n` random 64-bit keys (stable: ties, 2⁻⁶⁴ likely per pair, keep index order). */
  #order(h: curandGenerator_t, stream: Stream, n: number): DeviceArray<"int64"> {
    if (n === 0) return DeviceArray.empty([0], dtypes.int64, { stream });
    const bits = this.#bits(h, stream, 2 * n);
    try {
      return argsort(bits.view("uint64"), { stream });
    } finally {
      bits.close(stream);
    }
  }

  /** A copy of `x` with its slices along `axis` in random order, and the stream it was made on. */
  #permuted(action: string, x: DeviceArray, options: PermutationOptions | undefined): { out: DeviceArray; stream: Stream } {
    checkOptions(options, action);
    const axis = populationAxis(x, options?.axis, "x", action);
    const { h, stream } = this.#prepare(action, options?.stream);
    checkOneDevice(action, [["x", x]], stream);
    const order = this.#order(h, stream, x.shape[axis]!);
    try {
      return { out: take(x, order, { axis, stream }), stream };
    } finally {
      order.close(stream);
    }
  }

  /**
   * A random permutation (NumPy's `permutation`): of an integer `n`, the int64 array 0..n-1 in random order; of an
   * array, a copy with its slices along `axis` (default 0) in random order (each slice kept whole: a 2-d array's rows
   * reordered).
   *
   * ```ts
   * const order = rng.permutation(1000);      // int64 [1000]
   * const rows = rng.permutation(x);          // x's rows in random order
   * ```
   */
  permutation(x: number | bigint | DeviceArray, options?: PermutationOptions): DeviceArray {
    const action = "Generator.permutation";
    if (x instanceof DeviceArray) return this.#permuted(action, x, options).out;
    checkOptions(options, action);
    const n = countArgument(x, "x", action);
    const { h, stream } = this.#prepare(action, options?.stream);
    return this.#order(h, stream, n);
  }

  /**
   * Shuffles `x` in place along `axis` (default 0: a 2-d array's rows reordered, each kept whole), as NumPy's
   * `shuffle`. The shuffled copy is made first, then copied back, on the draw's stream; the stream `x` was made on
   * then waits for it, so that operations on `x` that run there see the shuffled elements.
   */
  shuffle(x: DeviceArray, options?: PermutationOptions): void {
    const action = "Generator.shuffle";
    if (!(x instanceof DeviceArray)) throw new TypeError(`${action}: x is a DeviceArray (shuffled in place), not ${describeValue(x)}`);
    checkWritable(x, `${action}: x`);
    const { out, stream } = this.#permuted(action, x, options);
    try {
      x.copyFrom(out, { stream });
    } finally {
      out.close(stream);
    }
    const own = x.stream;
    if (own !== undefined && own !== stream && !own.isClosed && !own.equals(stream)) own.wait(stream);
  }

  /**
   * A random sample from `a` (NumPy's `choice`): from the integers 0..a-1 when `a` is an integer, from the entries of
   * an array along `axis` (default 0) otherwise, `size` of them (default: one, a 0-d result; the result's shape is
   * `size` for an integer, `a.shape` with `axis` replaced by `size` for an array). With replacement (the default)
   * each draw is uniform (`integers(0, n)`), or weighted by `p` (normalised by its sum); without, the sample is the
   * first entries of a random permutation of all `n` (distinct, in random order).
   *
   * ```ts
   * const k = rng.choice(10, [5]);                                  // int64, with replacement
   * const hand = rng.choice(52, [5], { replace: false });          // distinct
   * const w = rng.choice(4, [1000], { p: weights });                // weights: float [4]
   * const rows = rng.choice(x, [8], { replace: false });            // 8 distinct rows of x
   * ```
   *
   * @throws RangeError for a sample larger than the population without replacement, or any sample of none.
   * @throws UnsupportedError for `p` without replacement.
   */
  choice(a: number | bigint | DeviceArray, size?: ShapeArgument, options?: ChoiceOptions): DeviceArray {
    const action = "Generator.choice";
    const plan = choicePlan(a, size, options, action);
    const array = a instanceof DeviceArray ? a : undefined;
    const { h, stream } = this.#prepare(action, options?.stream);
    checkOneDevice(action, [["a", array], ["p", plan.p]], stream);
    let idx: DeviceArray;
    if (plan.count === 0) idx = DeviceArray.empty(plan.shape, dtypes.int64, { stream });
    else if (plan.p !== undefined) idx = this.#weighted(plan.p, plan.n, plan.shape, stream);
    else if (plan.replace) idx = this.integers(0, plan.n, plan.shape, { stream });
    else {
      const order = this.#order(h, stream, plan.n);
      try {
        idx = DeviceArray.empty(plan.shape, dtypes.int64, { stream });
        idx.copyFrom(order.subarray(0, plan.count).reshape(plan.shape), { stream });
      } finally {
        order.close(stream);
      }
    }
    if (array === undefined) return idx;
    try {
      return take(array, idx, { axis: plan.axis, stream });
    } finally {
      idx.close(stream);
    }
  }

  /**
   * Indices drawn with probabilities `p` (of `n` entries), int64 of `shape`: the first i whose running sum of `p`
   * reaches t = (1 − u)·total, u uniform on [0, 1). t lies in (0, total], so the index is below n, and an entry of
   * weight 0 is never drawn (its running sum equals the one before it, which t would have reached first).
   */
  #weighted(p: DeviceArray, n: number, shape: readonly number[], stream: Stream): DeviceArray {
    const cdf = cumsum(p, { dtype: dtypes.float64, stream });
    try {
      const total = cdf.subarray(n - 1, n).reshape([]);
      const t = this.random(shape, { stream });
      try {
        sub(1, t, { out: t, stream });
        mul(t, total, { out: t, stream });
        return searchsorted(cdf, t, { side: "left", stream });
      } finally {
        t.close(stream);
      }
    } finally {
      cdf.close(stream);
    }
  }

  toString(): string {
    return `Generator(${this.bitGenerator}, seed ${this.seed}, device ${this.deviceId}${this.isClosed ? ", closed" : ""})`;
  }
}

function checkOptions(options: unknown, action: string): void {
  if (options !== undefined && (options === null || typeof options !== "object")) throw new TypeError(`${action} takes its options as an object, not ${describeValue(options)}`);
}

function checkFinite(action: string, values: Readonly<Record<string, number>>): void {
  for (const [k, v] of Object.entries(values)) if (typeof v !== "number" || !Number.isFinite(v)) throw new TypeError(`${action}: ${k} must be a finite number, not ${describeValue(v)}`);
}

/**
 * A new {@link Generator} (NumPy's `default_rng`): seeded with `seed` (a non-negative integer below 2⁶⁴; default: a
 * random seed from the platform's crypto source), drawing on `options.stream` unless a call names another stream.
 *
 * ```ts
 * using rng = defaultRng(1234, { stream });
 * const x = rng.normal(0, 1, [3, 4]);
 * const i = rng.integers(0, 10, 100, { dtype: "int32" });
 * ```
 */
export function defaultRng(seed: number | bigint | undefined, options: DefaultRngOptions): Generator {
  const action = "defaultRng";
  if (options === null || typeof options !== "object") throw new TypeError(`${action} takes (seed, { stream, generator? }), not options ${describeValue(options)}`);
  const stream = takeStream(options.stream, action, STREAM_OPTION);
  const generator = options.generator ?? "philox";
  if (!BIT_GENERATORS.includes(generator)) throw new RangeError(`${action}: generator is one of ${BIT_GENERATORS.join(", ")}, not ${describeValue(generator)}`);
  return new Generator(seedArgument(seed, action), stream, generator);
}

// ---- the module-level functions: a default generator per device ----

const defaults = new Map<number, Generator>();
let globalSeed: bigint | undefined;

/** The default generator of `stream`'s device (made on first use, seeded by `seed()` or at random). */
function defaultGenerator(stream: unknown, action: string): { g: Generator; stream: Stream } {
  const s = takeStream(stream, action, { ...STREAM_OPTION });
  let g = defaults.get(s.device.id);
  if (g === undefined || g.isClosed) {
    g = new Generator(globalSeed ?? seedArgument(undefined, action), s, "philox");
    defaults.set(s.device.id, g);
  }
  return { g, stream: s };
}

/**
 * Reseeds the default generators of the module-level functions (every device's): the next draw on a device starts
 * its sequence again from `value` (default: a random seed).
 */
export function seed(value?: number | bigint): void {
  const v = seedArgument(value, "seed");
  globalSeed = value === undefined ? undefined : v;
  for (const g of defaults.values()) g.close();
  defaults.clear();
}

/** Options of the module-level draws: the stream is required (no array gives one). */
export interface ModuleRandomOptions extends RandomOptions {
  readonly stream: Stream;
}

/** Floats uniform on [0, 1) from the device's default generator (see {@link Generator.random}). */
export function random(shape: ShapeArgument | undefined, options: ModuleRandomOptions): DeviceArray {
  const { g, stream } = defaultGenerator(options?.stream, "random");
  return g.random(shape, { ...options, stream });
}

/** Floats uniform on [low, high) from the device's default generator. */
export function uniform(low: number, high: number, shape: ShapeArgument | undefined, options: ModuleRandomOptions): DeviceArray {
  const { g, stream } = defaultGenerator(options?.stream, "uniform");
  return g.uniform(low, high, shape, { ...options, stream });
}

/** Normal floats from the device's default generator. */
export function normal(loc: number, scale: number, shape: ShapeArgument | undefined, options: ModuleRandomOptions): DeviceArray {
  const { g, stream } = defaultGenerator(options?.stream, "normal");
  return g.normal(loc, scale, shape, { ...options, stream });
}

/** Standard normal floats from the device's default generator. */
export function standardNormal(shape: ShapeArgument | undefined, options: ModuleRandomOptions): DeviceArray {
  const { g, stream } = defaultGenerator(options?.stream, "standardNormal");
  return g.standardNormal(shape, { ...options, stream });
}

/** Integers on [low, high) from the device's default generator (int64 by default). */
export function integers(low: number | bigint, high: number | bigint | undefined, shape: ShapeArgument | undefined, options: IntegersOptions & { readonly stream: Stream }): DeviceArray {
  const { g, stream } = defaultGenerator(options?.stream, "integers");
  return g.integers(low, high, shape, { ...options, stream });
}

/** A random permutation of 0..n-1, or an array's slices in random order, from the device's default generator (see {@link Generator.permutation}). */
export function permutation(x: number | bigint | DeviceArray, options: PermutationOptions & { readonly stream: Stream }): DeviceArray {
  const { g, stream } = defaultGenerator(options?.stream, "permutation");
  return g.permutation(x, { ...options, stream });
}

/** Shuffles `x` in place along `axis` (default 0) with the device's default generator (see {@link Generator.shuffle}). */
export function shuffle(x: DeviceArray, options: PermutationOptions & { readonly stream: Stream }): void {
  const { g, stream } = defaultGenerator(options?.stream, "shuffle");
  g.shuffle(x, { ...options, stream });
}

/** A random sample from `a` with the device's default generator (see {@link Generator.choice}). */
export function choice(a: number | bigint | DeviceArray, size: ShapeArgument | undefined, options: ChoiceOptions & { readonly stream: Stream }): DeviceArray {
  const { g, stream } = defaultGenerator(options?.stream, "choice");
  return g.choice(a, size, { ...options, stream });
}

/** @internal For tests: the default generator of a device, if one was made. */
export function defaultGeneratorOf(device: Device | number): Generator | undefined {
  return defaults.get(typeof device === "number" ? device : device.id);
}
