/**
 * bench/compare.ts on the made-up results in bench/fixtures: a later run (results-bun-later.jsonl: results-bun.jsonl
 * with a few ratios moved) against its baseline flags exactly the ratios to C more than 10% worse, by unit (times
 * larger, bandwidth smaller), lists what it could not compare, and exits 1; identical runs pass. And the same on
 * interleaved runs (paired ratios), and the default baseline: the last committed results file of the runtime.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { compare, comparableRatios, lastCommitted, ratioToC, readResults } from "../../bench/compare.ts";
import { runtimeCommand } from "../support/runtime.ts";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const FIXTURES = path.join(ROOT, "bench", "fixtures");
const fixture = (f: string): string => path.join(FIXTURES, f);

function run(...args: string[]): { status: number | null; stdout: string; stderr: string; json: Record<string, unknown> } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cuda-ts-compare-"));
  try {
    const jsonFile = path.join(dir, "compare.json");
    const cmd = runtimeCommand(path.join(ROOT, "bench", "compare.ts"), ["-A"], [...args, "--json", jsonFile]);
    const r = spawnSync(cmd[0]!, cmd.slice(1), { cwd: ROOT, encoding: "utf8", timeout: 60_000 });
    const json = fs.existsSync(jsonFile) ? (JSON.parse(fs.readFileSync(jsonFile, "utf8")) as Record<string, unknown>) : {};
    return { status: r.status, stdout: r.stdout ?? "", stderr: r.stderr ?? "", json };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe("bench/compare.ts", () => {
  it("flags the ratios to C more than 10% worse (times larger, bandwidth smaller) and exits 1", () => {
    const r = run(fixture("results-bun-later.jsonl"), "--baseline", fixture("results-bun.jsonl"));
    expect(r.status, r.stderr).toBe(1);
    const summary = r.stdout.split("\n").find((l) => l.startsWith("compare: "));
    expect(summary).toBe(
      "compare: 103 ratios, 2 more than 10% worse: bun-raw call.cuCtxGetCurrent 1.14× → 1.29×, bun-raw copy.d2h.256MiB.pageable 0.99× → 0.84×",
    );
    const row = (contender: string, measure: string): string | undefined => r.stdout.split("\n").find((l) => l.includes(`\`${measure}\` | ${contender} |`));
    expect(row("bun-raw", "call.cuCtxGetCurrent")).toContain("**worse**");
    expect(row("bun-checked", "call.cuCtxGetCurrent")).toMatch(/\+4\.8% \| +\|$/); // 4.8% worse: within the threshold
    expect(row("bun-core", "startup.import")).toMatch(/−4\.0% \| +\|$/); // better
    expect(row("bun-raw", "copy.d2h.256MiB.pageable")).toContain("**worse**");
    expect(r.stdout).toContain("bun-core launch.256 (only in the baseline)");
    const compared = r.json.compared as { contender: string; measure: string; flagged: boolean }[];
    expect(compared.filter((c) => c.flagged).map((c) => `${c.contender} ${c.measure}`)).toEqual(["bun-raw call.cuCtxGetCurrent", "bun-raw copy.d2h.256MiB.pageable"]);
  });

  it("passes identical runs, and takes a different threshold", () => {
    const same = run(fixture("results-bun.jsonl"), "--baseline", fixture("results-bun.jsonl"));
    expect(same.status, same.stderr).toBe(0);
    expect(same.stdout).toContain("compare: 104 ratios, 0 more than 10% worse");
    const loose = run(fixture("results-bun-later.jsonl"), "--baseline", fixture("results-bun.jsonl"), "--threshold", "0.2");
    expect(loose.status, loose.stderr).toBe(0);
    const strict = run(fixture("results-bun-later.jsonl"), "--baseline", fixture("results-bun.jsonl"), "--threshold", "0.04");
    expect(strict.stdout).toContain("compare: 103 ratios, 3 more than 4% worse");
  });

  it("refuses a bad threshold", () => {
    const r = run(fixture("results-bun.jsonl"), "--baseline", fixture("results-bun.jsonl"), "--threshold", "-1");
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("--threshold takes a non-negative fraction");
  });

  it("uses paired ratios for interleaved runs", () => {
    const run1 = readResults(fixture("results-interleaved-bun.jsonl"));
    expect(run1.runtime).toBe("bun");
    // Round i over C's round i, the median of the five pairs (4358/4190, 4400/4900, 4500/4100, 4700/6000, 4400/4300).
    expect(ratioToC(run1, "bun-core", "launch.4")).toBeCloseTo(4400 / 4300, 6);
    expect(ratioToC(run1, "bun-raw", "nvrtc.compile")).toBeUndefined(); // a missing line
    const { compared, unpaired } = compare(run1, run1);
    expect(compared.every((c) => c.worse === 0 && !c.flagged)).toBe(true);
    expect(unpaired).toEqual([]);
  });

  it("finds the last committed results file of the runtime as the default baseline", () => {
    const file = lastCommitted("bun", fixture("results-bun-later.jsonl"));
    if (file === undefined) return; // not a git checkout (a packed tree): nothing to find
    expect(path.dirname(file)).toBe(path.join(ROOT, "bench", "results"));
    expect(readResults(file).runtime).toBe("bun");
    expect(lastCommitted("no-such-runtime", "")).toBeUndefined();
  });

  it("takes as the default baseline only a file with ratios to C in common (not the math libraries' files of the runtime)", () => {
    const later = readResults(fixture("results-bun-later.jsonl"));
    const file = lastCommitted("bun", fixture("results-bun-later.jsonl"), ROOT, later);
    if (file === undefined) return; // not a git checkout (a packed tree): nothing to find
    expect(comparableRatios(readResults(file), later)).toBeGreaterThan(0);
    // The gemm and FFT/RNG files of Bun have no contender "c": nothing to divide by, so never a baseline.
    const mathFiles = fs.readdirSync(path.join(ROOT, "bench", "results")).filter((f) => /blas|fft-rng/.test(f) && f.endsWith("-bun.jsonl"));
    for (const f of mathFiles) expect(comparableRatios(readResults(path.join(ROOT, "bench", "results", f)), later)).toBe(0);
    expect(mathFiles.map((f) => path.join(ROOT, "bench", "results", f))).not.toContain(file);
  });

  it("refuses a comparison with nothing in common, instead of passing it", () => {
    const r = run(fixture("results-bun-later.jsonl"), "--baseline", path.join(ROOT, "bench", "results", "2026-12-01-h200-fft-rng-bun.jsonl"));
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/no ratio to C in common/);
  });
});
