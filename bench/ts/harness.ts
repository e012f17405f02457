/**
 * The benchmarks' method (bench/README.md), the same as bench/c/bench.c and bench/python/bench.py: a warm-up that
 * calibrates M, then R = 21 repetitions of M iterations, the median per-iteration time reported with min and max
 * as one JSON line on stdout. Imports nothing from the library.
 *
 * @module
 */

export const R = 21;
/** One repetition of a calibrated measure takes about this long. */
export const TARGET_MS = 20;
/** At least this many iterations for sub-microsecond calls (timer resolution then does not matter). */
export const MIN_M_FAST = 100_000;
/** Launches timed together; the stream is synchronised between bursts, untimed. */
export const BURST = 256;
export const BURSTS = 10;
export const GRAPH_BURST = 16;
export const GRAPH_BURSTS = 8;
export const BIG = 256 * 1024 * 1024;
/**
 * The pageable 256 MiB buffer of every contender (C, cuda-python, cuda-ts) starts on a 2 MiB boundary, so that the
 * pageable copies compare the same memory and not the allocators (Bun's large buffers are 2 MiB-aligned, malloc's
 * start 16 bytes into a page).
 */
export const PAGEABLE_ALIGN = 2 * 1024 * 1024;
/** The note the pageable copies carry (the same words in bench.c and bench.py). */
export const PAGEABLE_NOTE = "pageable host buffer starting on a 2 MiB boundary";

/**
 * `BIG` bytes of pageable memory starting on a `PAGEABLE_ALIGN` boundary: a view into a larger ArrayBuffer, every
 * page touched (as C's memset).
 */
export function alignedPageable(addressOf: (bytes: Uint8Array) => bigint): Uint8Array {
  const whole = new Uint8Array(new ArrayBuffer(BIG + PAGEABLE_ALIGN));
  const base = addressOf(whole);
  const offset = Number((BigInt(PAGEABLE_ALIGN) - (base % BigInt(PAGEABLE_ALIGN))) % BigInt(PAGEABLE_ALIGN));
  const bytes = whole.subarray(offset, offset + BIG);
  bytes.fill(1);
  return bytes;
}

/** The same text as k4 in bench/kernels.cu (every contender compiles this string). */
export const K4_SOURCE =
  'extern "C" __global__ void k4(float a, const float* x, float* y, int n) {\n' +
  "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n" +
  "  if (i < n) y[i] = a * x[i] + y[i];\n" +
  "}\n";

export type Unit = "ns" | "ms" | "s" | "GB/s";

/** A repetition: runs `m` iterations and returns the timed milliseconds. */
export type Rep = (m: number) => number;

export interface MeasureOptions {
  /** A fixed M (one warm-up repetition) instead of a calibrated one. */
  readonly fixedM?: number;
  /** Bytes per iteration, for GB/s. */
  readonly bytes?: number;
  /** A remark carried in the JSON line. */
  readonly note?: string;
}

export const now: () => number = () => performance.now();

function sig(x: number): number {
  return Number(x.toPrecision(6));
}

/** Notes go to stderr. */
export function note(msg: string): void {
  console.error(`bench.ts: ${msg}`);
}

/** M for a per-iteration time in ms: a repetition of about TARGET_MS, at least MIN_M_FAST for sub-microsecond calls. */
function chooseM(perMs: number): number {
  let m = Math.ceil(TARGET_MS / (perMs > 0 ? perMs : 1e-6));
  if (perMs < 1e-3) m = Math.max(m, MIN_M_FAST);
  return Math.min(Math.max(1, m), 1_000_000_000);
}

/**
 * The warm-up: grows m tenfold until a repetition takes 2 ms, then runs twice more at the M that time suggests
 * (the first repetitions pay for lazy symbol resolution and JIT compilation), and returns the M of the last.
 */
function calibrate(rep: Rep): number {
  let m = 1;
  let t = rep(m);
  while (t < 2 && m < 100_000_000) {
    m *= 10;
    t = rep(m);
  }
  for (let pass = 0; pass < 2; pass++) {
    m = chooseM(t / m);
    t = rep(m);
  }
  return chooseM(t / m);
}

/** Runs one measure and prints its JSON line; a failure is reported on stderr and skipped. */
export function measure(contender: string, name: string, unit: Unit, rep: Rep, options: MeasureOptions = {}): void {
  try {
    let m = options.fixedM ?? 0;
    if (m > 0) {
      rep(m);
    } else {
      m = calibrate(rep);
    }
    const perIter: number[] = [];
    for (let i = 0; i < R; i++) perIter.push(rep(m) / 1000 / m); // seconds
    perIter.sort((a, b) => a - b);
    const med = perIter[R >> 1]!;
    const lo = perIter[0]!;
    const hi = perIter[R - 1]!;
    let v: number, vmin: number, vmax: number;
    if (unit === "GB/s") {
      const bytes = options.bytes ?? 0;
      [v, vmin, vmax] = [bytes / med / 1e9, bytes / hi / 1e9, bytes / lo / 1e9];
    } else {
      const k = unit === "ns" ? 1e9 : unit === "ms" ? 1e3 : 1;
      [v, vmin, vmax] = [med * k, lo * k, hi * k];
    }
    const line: Record<string, unknown> = { contender, measure: name, value: sig(v), unit, min: sig(vmin), max: sig(vmax), reps: R, iters: m };
    if (options.note !== undefined) line.note = options.note;
    console.log(JSON.stringify(line));
  } catch (e) {
    note(`${contender} ${name} failed: ${describeError(e)}; skipped`);
    missing(contender, name, `failed: ${describeError(e)}`);
  }
}

/** A `missing` line on stdout: bench/report.ts lists the measure as missing, with the reason. */
function missing(contender: string, name: string, why: string): void {
  console.log(JSON.stringify({ contender, measure: name, missing: why }));
}

/** Says on stderr that a measure is not taken, and why (and lists it as missing in the report). */
export function skip(contender: string, name: string, why: string): void {
  note(`${contender} ${name} not measured: ${why}`);
  missing(contender, name, `not measured: ${why}`);
}

/** A repetition of `m` calls of `one` in bursts of `burst`, timed together, with `sync()` between bursts, untimed. */
export function burstRep(one: () => void, burst: number, sync: () => void): Rep {
  return (m: number): number => {
    let t = 0;
    while (m > 0) {
      const n = Math.min(burst, m);
      const t0 = now();
      for (let i = 0; i < n; i++) one();
      t += now() - t0;
      m -= n;
      sync();
    }
    return t;
  };
}

export function describeError(e: unknown): string {
  if (e instanceof Error) return `${e.name}: ${e.message}`;
  return String(e);
}
