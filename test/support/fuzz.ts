/**
 * A small seeded fuzzer for the decoders of outside bytes (test/fuzz/*.test.ts): a deterministic generator seeded at random per run (the seed printed), the
 * usual mutations (random bytes, truncation, bit flips, boundary values in length fields, insertions, splices),
 * and a loop bounded by a number of runs and a time budget, so CI time stays bounded. A failure names the seed
 * and the run, and `CUDA_TS_FUZZ_SEED=<seed>` replays it; `CUDA_TS_FUZZ_RUNS=<factor>` runs more (or fewer).
 *
 * Written here rather than taken from fast-check: the properties are "typed error or a valid result, never a
 * crash, a hang or an out-of-bounds read" over byte strings, which needs a byte generator and mutations, not
 * shrinking of structured values; and it keeps package.json and the lockfile unchanged.
 */

/** mulberry32: a fast 32-bit generator, good enough for test inputs. */
export class Rng {
  #s: number;
  constructor(seed: number) {
    this.#s = seed >>> 0;
  }
  /** A uint32. */
  u32(): number {
    let t = (this.#s = (this.#s + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }
  /** An integer in [0, n). */
  int(n: number): number {
    return n <= 0 ? 0 : this.u32() % n;
  }
  /** One of `items`. */
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }
  /** `n` random bytes (in a fresh ArrayBuffer). */
  bytes(n: number): Uint8Array {
    const out = new Uint8Array(new ArrayBuffer(n));
    for (let i = 0; i < n; i++) out[i] = this.u32() & 0xff;
    return out;
  }
  /** A random string of up to `max` UTF-16 code units, biased to ASCII and path characters. */
  string(max: number): string {
    const n = this.int(max + 1);
    let s = "";
    for (let i = 0; i < n; i++) {
      const r = this.int(10);
      s += r < 6 ? this.pick(["/", ".", "..", ":", "a", "lib", "\0", " ", "\n", "~", "$", "*", "=", "\\"]) : String.fromCharCode(r < 9 ? 32 + this.int(95) : this.int(0x10000));
    }
    return s;
  }
}

const BOUNDARY = [0x00, 0x01, 0x7f, 0x80, 0xfe, 0xff];

/** A mutation of `valid`: truncated, flipped, boundary-patched, extended, spliced with noise, or pure noise. */
export function mutate(rng: Rng, valid: Uint8Array): Uint8Array {
  const copy = (): Uint8Array => {
    const b = new Uint8Array(new ArrayBuffer(valid.length));
    b.set(valid);
    return b;
  };
  switch (rng.int(7)) {
    case 0:
      return valid.slice(0, rng.int(valid.length + 1));
    case 1: {
      const b = copy();
      for (let k = 1 + rng.int(4); k > 0 && b.length > 0; k--) b[rng.int(b.length)]! ^= 1 << rng.int(8);
      return b;
    }
    case 2: {
      // Boundary values over a 1-, 4- or 8-byte field: length and count fields are where decoders go wrong.
      const b = copy();
      const w = rng.pick([1, 4, 8]);
      const at = rng.int(Math.max(1, b.length - w + 1));
      const v = rng.pick(BOUNDARY);
      for (let i = 0; i < w && at + i < b.length; i++) b[at + i] = v;
      return b;
    }
    case 3: {
      const extra = rng.bytes(1 + rng.int(64));
      const out = new Uint8Array(new ArrayBuffer(valid.length + extra.length));
      out.set(valid);
      out.set(extra, valid.length);
      return out;
    }
    case 4: {
      const at = rng.int(valid.length + 1);
      const noise = rng.bytes(rng.int(32));
      const out = new Uint8Array(new ArrayBuffer(valid.length + noise.length));
      out.set(valid.subarray(0, at));
      out.set(noise, at);
      out.set(valid.subarray(at), at + noise.length);
      return out;
    }
    case 5:
      return rng.bytes(rng.int(2 * valid.length + 8));
    default:
      return copy();
  }
}

/** What a fuzz loop did. */
export interface FuzzStats {
  readonly name: string;
  readonly runs: number;
  readonly ms: number;
  readonly seed: number;
}

/** Every loop's stats in this file (printed by the tests, for the record of iteration counts and times). */
export const fuzzStats: FuzzStats[] = [];

const factor = Number(process.env.CUDA_TS_FUZZ_RUNS ?? "1") || 1;
const fixedSeed = process.env.CUDA_TS_FUZZ_SEED === undefined ? undefined : Number(process.env.CUDA_TS_FUZZ_SEED);

/** A fresh seed per loop and run (a fixed one would explore the same inputs on every run). */
function randomSeed(): number {
  return crypto.getRandomValues(new Uint32Array(1))[0]!;
}

/**
 * Runs `body` `runs` times (times CUDA_TS_FUZZ_RUNS), or until `budgetMs` passes, with a generator seeded at random
 * for each run of the tests (or with CUDA_TS_FUZZ_SEED), and prints the seed. A throw is rethrown naming the seed
 * and the run, so that CUDA_TS_FUZZ_SEED replays it.
 */
export async function fuzz(name: string, runs: number, body: (rng: Rng, run: number) => void | Promise<void>, budgetMs = 8000): Promise<FuzzStats> {
  const seed = fixedSeed ?? randomSeed();
  const rng = new Rng(seed);
  const t0 = performance.now();
  let i = 0;
  const total = Math.max(1, Math.round(runs * factor));
  for (; i < total && performance.now() - t0 < budgetMs; i++) {
    try {
      await body(rng, i);
    } catch (e) {
      const err = new Error(`fuzz "${name}" failed at run ${i} (seed ${seed}; replay with CUDA_TS_FUZZ_SEED=${seed}): ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`);
      err.cause = e;
      throw err;
    }
  }
  const stats = { name, runs: i, ms: Math.round(performance.now() - t0), seed };
  fuzzStats.push(stats);
  console.log(`fuzz ${name}: ${stats.runs} runs in ${stats.ms} ms (seed ${seed})`);
  return stats;
}

/** Runs `f`; passes when it returns or throws one of `allowed`, fails (rethrows) for any other error. */
export function typedOrOk<T>(f: () => T, ...allowed: (abstract new (...a: never[]) => Error)[]): T | Error {
  try {
    return f();
  } catch (e) {
    if (allowed.some((c) => e instanceof c)) return e as Error;
    throw e;
  }
}
