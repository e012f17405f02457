/**
 * The regression guard: compares a new benchmark results file with the last committed one of the same runtime and
 * flags every ratio to C that got more than 10% worse. Run it after every benchmark run (bench/README.md) and put
 * its summary in the closing notes.
 *
 *     deno run -A bench/compare.ts NEW.jsonl [--baseline OLD.jsonl] [--threshold 0.10] [--json FILE]
 *     npm run bench:compare -- NEW.jsonl
 *
 * Without `--baseline`, the baseline is the results file of the same runtime (the `{"meta"}` line's `runtime`, else
 * the contenders' prefix) in bench/results that git committed last (NEW itself excepted) among those with ratios to C
 * in common with NEW (the math libraries' and arrays' files of a runtime have none: their C is another contender). A ratio is a contender's
 * value over C's from the same file: for interleaved runs the median of the paired ratios (bench/paired.ts), else
 * the ratio of the values. "Worse" follows the unit: a larger ratio for times, a smaller one for bandwidth (GB/s).
 * Measures C lacks, and pairs in only one of the files, are listed, not judged.
 *
 * Prints a Markdown table and a summary line (`compare: N ratios, K more than 10% worse`) on stdout; exits 1 when
 * any ratio is flagged, 2 on bad input or when the two files have no ratio to C in common (nothing compared).
 *
 * @module
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { pairedRatio } from "./paired.ts";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

interface Line {
  readonly contender: string;
  readonly measure: string;
  readonly value: number;
  readonly unit: string;
  readonly round?: number;
}

/** One results file: its runtime, and contender → measure → the values (by round; round 0 when untagged). */
export interface ResultsFile {
  readonly file: string;
  readonly runtime: string | undefined;
  readonly commit: string | undefined;
  readonly values: Map<string, Map<string, { unit: string; rounds: Map<number, number> }>>;
}

/** Reads a bench/run.sh results file (JSON lines; `missing` lines and non-JSON lines are skipped). */
export function readResults(file: string): ResultsFile {
  const values: ResultsFile["values"] = new Map();
  let runtime: string | undefined;
  let commit: string | undefined;
  for (const text of fs.readFileSync(file, "utf8").split("\n")) {
    const t = text.trim();
    if (!t.startsWith("{")) continue;
    let o: Record<string, unknown>;
    try {
      o = JSON.parse(t) as Record<string, unknown>;
    } catch {
      continue;
    }
    if (o.meta === true) {
      if (typeof o.runtime === "string") runtime = o.runtime;
      if (typeof o.commit === "string") commit = o.commit;
      continue;
    }
    const l = o as unknown as Line;
    if (typeof l.contender !== "string" || typeof l.measure !== "string" || typeof l.value !== "number") continue;
    let byMeasure = values.get(l.contender);
    if (byMeasure === undefined) values.set(l.contender, (byMeasure = new Map()));
    let m = byMeasure.get(l.measure);
    if (m === undefined) byMeasure.set(l.measure, (m = { unit: l.unit, rounds: new Map() }));
    m.rounds.set(typeof l.round === "number" ? l.round : 0, l.value);
  }
  runtime ??= [...values.keys()].map((c) => /^(bun|deno)-/.exec(c)?.[1]).find((r) => r !== undefined);
  return { file, runtime, commit, values };
}

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  return n % 2 === 1 ? s[(n - 1) / 2]! : (s[n / 2 - 1]! + s[n / 2]!) / 2;
};

/** A contender's ratio to C on one measure, or undefined when C (or the contender) lacks it. */
export function ratioToC(r: ResultsFile, contender: string, measure: string): number | undefined {
  const c = r.values.get("c")?.get(measure);
  const x = r.values.get(contender)?.get(measure);
  if (c === undefined || x === undefined) return undefined;
  const paired = c.rounds.has(0) || x.rounds.has(0) ? undefined : pairedRatio(c.rounds, x.rounds);
  if (paired !== undefined) return paired.median;
  const cv = median([...c.rounds.values()]);
  return cv === 0 ? undefined : median([...x.rounds.values()]) / cv;
}

/** One compared ratio. */
export interface Comparison {
  readonly contender: string;
  readonly measure: string;
  readonly unit: string;
  readonly before: number;
  readonly after: number;
  /** How much worse (positive) or better (negative) the ratio got, as a fraction (0.12: 12% worse). */
  readonly worse: number;
  readonly flagged: boolean;
}

/** Every ratio to C both files have, judged against `threshold`; and the pairs only one file has. */
export function compare(before: ResultsFile, after: ResultsFile, threshold = 0.1): { compared: Comparison[]; unpaired: string[] } {
  const compared: Comparison[] = [];
  const unpaired: string[] = [];
  const keys = new Set<string>();
  for (const r of [before, after]) for (const [c, ms] of r.values) if (c !== "c") for (const m of ms.keys()) keys.add(`${c}\u0000${m}`);
  for (const key of [...keys].sort()) {
    const [contender, measure] = key.split("\u0000") as [string, string];
    const b = ratioToC(before, contender, measure);
    const a = ratioToC(after, contender, measure);
    if (a === undefined || b === undefined) {
      const where = a === undefined && b === undefined ? "no C value" : a === undefined ? "only in the baseline" : "only in the new run";
      unpaired.push(`${contender} ${measure} (${where})`);
      continue;
    }
    const unit = after.values.get(contender)!.get(measure)!.unit;
    // Bandwidth: a smaller ratio is worse; times: a larger one.
    const worse = unit === "GB/s" ? b / a - 1 : a / b - 1;
    compared.push({ contender, measure, unit, before: b, after: a, worse, flagged: worse > threshold + 1e-12 });
  }
  return { compared, unpaired };
}

/** How many (contender, measure) ratios to C both files have: what a comparison of the two would judge. */
export function comparableRatios(a: ResultsFile, b: ResultsFile): number {
  return compare(a, b).compared.length;
}

/**
 * The bench/results file of `runtime` that git committed last, `exclude` aside. With `like`, only a file that has
 * ratios to C in common with it counts (a suite run, not the math libraries' or the arrays' files of the same
 * runtime, whose contenders have no `c` to divide by); of files committed together, the one with the most in common.
 */
export function lastCommitted(runtime: string, exclude: string, root = ROOT, like?: ResultsFile): string | undefined {
  let files: string[];
  try {
    files = execFileSync("git", ["ls-files", "bench/results"], { cwd: root, encoding: "utf8" }).split("\n").filter((f) => f.endsWith(".jsonl"));
  } catch {
    return undefined;
  }
  let best: { file: string; time: number; common: number } | undefined;
  for (const f of files.sort()) {
    const abs = path.join(root, f);
    if (path.resolve(exclude) === abs) continue;
    const r = readResults(abs);
    if (r.runtime !== runtime) continue;
    const common = like === undefined ? 0 : comparableRatios(r, like);
    if (like !== undefined && common === 0) continue;
    const time = Number(execFileSync("git", ["log", "-1", "--format=%ct", "--", f], { cwd: root, encoding: "utf8" }).trim());
    if (best === undefined || time > best.time || (time === best.time && common >= best.common)) best = { file: abs, time, common };
  }
  return best?.file;
}

function main(argv: readonly string[]): number {
  const opt = (name: string): string | undefined => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const valued = new Set(["--baseline", "--threshold", "--json"]);
  const positional = argv.filter((a, i) => !a.startsWith("--") && !valued.has(argv[i - 1] ?? ""));
  const newFile = positional[0];
  if (newFile === undefined || argv.includes("--help")) {
    console.error("usage: bench/compare.ts NEW.jsonl [--baseline OLD.jsonl] [--threshold 0.10] [--json FILE]");
    return 2;
  }
  const threshold = Number(opt("--threshold") ?? "0.10");
  if (!(threshold >= 0)) {
    console.error(`compare: --threshold takes a non-negative fraction (0.10 for 10%), not ${opt("--threshold")}`);
    return 2;
  }
  const after = readResults(newFile);
  if (after.runtime === undefined) {
    console.error(`compare: ${newFile} names no runtime (no meta line with "runtime", no bun-/deno- contender); pass --baseline`);
  }
  const baseFile = opt("--baseline") ?? (after.runtime === undefined ? undefined : lastCommitted(after.runtime, newFile, ROOT, after));
  if (baseFile === undefined) {
    console.error(`compare: no committed results of runtime ${after.runtime ?? "?"} in bench/results with ratios to C in common with ${newFile}; pass --baseline FILE`);
    return 2;
  }
  const before = readResults(baseFile);
  const { compared, unpaired } = compare(before, after, threshold);
  if (compared.length === 0) {
    console.error(`compare: ${newFile} and ${baseFile} have no ratio to C in common (a contender "c" and the same measures in both): nothing was compared`);
    return 2;
  }
  const pct = (x: number): string => `${x >= 0 ? "+" : "−"}${Math.abs(x * 100).toFixed(1)}%`;
  const rel = (f: string): string => path.relative(process.cwd(), f) || f;
  console.log(`# Ratios to C: ${rel(newFile)} against ${rel(baseFile)}${before.commit ? ` (commit ${before.commit})` : ""}\n`);
  console.log(`Flagged: a ratio more than ${(threshold * 100).toFixed(0)}% worse (times: larger; GB/s: smaller).\n`);
  console.log("| measure | contender | unit | baseline ratio | new ratio | change (+: worse) | |");
  console.log("|---|---|---|---:|---:|---:|---|");
  for (const c of compared) {
    console.log(`| \`${c.measure}\` | ${c.contender} | ${c.unit} | ${c.before.toFixed(2)}× | ${c.after.toFixed(2)}× | ${pct(c.worse)} | ${c.flagged ? "**worse**" : ""} |`);
  }
  if (unpaired.length > 0) console.log(`\nNot compared: ${unpaired.join("; ")}.`);
  const flagged = compared.filter((c) => c.flagged);
  console.log(
    `\ncompare: ${compared.length} ratios, ${flagged.length} more than ${(threshold * 100).toFixed(0)}% worse` +
      (flagged.length ? `: ${flagged.map((c) => `${c.contender} ${c.measure} ${c.before.toFixed(2)}× → ${c.after.toFixed(2)}×`).join(", ")}` : ""),
  );
  const json = opt("--json");
  if (json !== undefined) fs.writeFileSync(json, JSON.stringify({ baseline: baseFile, results: newFile, threshold, compared, unpaired }, null, 2) + "\n");
  return flagged.length > 0 ? 1 : 0;
}

if (import.meta.main) process.exit(main(process.argv.slice(2)));
