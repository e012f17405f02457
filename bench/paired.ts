/**
 * Paired ratios to C for interleaved benchmark runs (bench/run.sh runs C and cuda-ts alternately, BENCH_ROUNDS
 * processes each; every result line carries its `round`). Round i of a contender is divided by round i of C, and a
 * measure is reported as the median of those ratios with their spread (min–max and the interquartile range). A
 * target counts as met or missed only where the spread is smaller than its tolerance; otherwise it is "within
 * noise", with the numbers.
 *
 * @module
 */

/** The ratios of one contender to C over the rounds both have. */
export interface PairedRatio {
  /** How many rounds both C and the contender measured. */
  readonly pairs: number;
  readonly median: number;
  readonly min: number;
  readonly max: number;
  /** The 25th and 75th percentiles (linear interpolation). */
  readonly q1: number;
  readonly q3: number;
}

/** The `p`-quantile (0..1) of sorted values, linearly interpolated. */
export function quantile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) throw new RangeError("quantile of no values");
  const at = (sorted.length - 1) * p;
  const lo = Math.floor(at);
  const hi = Math.ceil(at);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (at - lo);
}

/**
 * Pairs `contender`'s rounds with C's (round number → value) and summarises `contender / c` over the pairs.
 * Undefined when no round has both or C's value is 0.
 */
export function pairedRatio(c: ReadonlyMap<number, number>, contender: ReadonlyMap<number, number>): PairedRatio | undefined {
  const ratios: number[] = [];
  for (const [round, v] of contender) {
    const base = c.get(round);
    if (base === undefined || base === 0) continue;
    ratios.push(v / base);
  }
  if (ratios.length === 0) return undefined;
  ratios.sort((a, b) => a - b);
  return { pairs: ratios.length, median: quantile(ratios, 0.5), min: ratios[0]!, max: ratios[ratios.length - 1]!, q1: quantile(ratios, 0.25), q3: quantile(ratios, 0.75) };
}

/** A target's verdict. */
export type Verdict = "met" | "missed" | "within noise" | "not measured";

/**
 * The verdict on a ratio target: `limit` is the bound on the ratio (`atMost`: ratio ≤ limit, else ratio ≥ limit),
 * `tolerance` the width of spread (max − min of the paired ratios) below which the median decides; with a wider
 * spread the run cannot tell, and the verdict is "within noise". Default tolerance: |limit − 1| (a 1.05× target
 * tolerates 0.05 of spread), at least 0.01.
 */
export function verdict(r: PairedRatio | undefined, limit: number, atMost: boolean, tolerance = Math.max(Math.abs(limit - 1), 0.01)): Verdict {
  if (r === undefined) return "not measured";
  if (r.max - r.min >= tolerance) return "within noise";
  const ok = atMost ? r.median <= limit : r.median >= limit;
  return ok ? "met" : "missed";
}

/** `1.03× (0.98–1.09, IQR 1.01–1.05, 5 pairs)`. */
export function describePaired(r: PairedRatio | undefined): string {
  if (r === undefined) return "–";
  const f = (x: number): string => x.toFixed(2);
  return `${f(r.median)}× (${f(r.min)}–${f(r.max)}, IQR ${f(r.q1)}–${f(r.q3)}, ${r.pairs} pair${r.pairs === 1 ? "" : "s"})`;
}
