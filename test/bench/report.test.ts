/**
 * bench/report.ts and bench/paired.ts on the made-up results in bench/fixtures: paired ratios to C with their
 * spread, the met / missed / within-noise verdicts, each run's commit and machine, and missing measures listed with
 * their reason.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { describePaired, pairedRatio, quantile, verdict } from "../../bench/paired.ts";
import { runtimeCommand } from "../support/runtime.ts";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const FIXTURES = path.join(ROOT, "bench", "fixtures");

function report(...files: string[]): { markdown: string; json: Record<string, unknown>; stderr: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cuda-ts-report-"));
  try {
    const jsonFile = path.join(dir, "report.json");
    const cmd = runtimeCommand(path.join(ROOT, "bench", "report.ts"), ["-A"], ["--json", jsonFile, ...files.map((f) => path.join(FIXTURES, f))]);
    const r = spawnSync(cmd[0]!, cmd.slice(1), { cwd: ROOT, encoding: "utf8", timeout: 60_000 });
    expect(r.status, r.stderr).toBe(0);
    return { markdown: r.stdout, json: JSON.parse(fs.readFileSync(jsonFile, "utf8")) as Record<string, unknown>, stderr: r.stderr };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const line = (markdown: string, ...parts: string[]): string | undefined => markdown.split("\n").find((l) => parts.every((p) => l.includes(p)));

describe("paired ratios", () => {
  it("divides round i by C's round i and gives the median, min–max and interquartile range over the pairs", () => {
    const c = new Map([[1, 10], [2, 20], [3, 10], [4, 10], [5, 10]]);
    const ts = new Map([[1, 11], [2, 22], [3, 12], [4, 10], [5, 13], [6, 99]]);
    const r = pairedRatio(c, ts)!;
    expect(r.pairs).toBe(5); // round 6 has no C partner
    expect(r.median).toBeCloseTo(1.1);
    expect(r.min).toBeCloseTo(1.0);
    expect(r.max).toBeCloseTo(1.3);
    expect([r.q1, r.q3].map((x) => Number(x.toFixed(6)))).toEqual([1.1, 1.2]);
    expect(describePaired(r)).toBe("1.10× (1.00–1.30, IQR 1.10–1.20, 5 pairs)");
    expect(pairedRatio(c, new Map([[9, 1]]))).toBeUndefined();
    expect(quantile([1, 2, 3, 4], 0.5)).toBe(2.5);
  });

  it("calls a target met or missed only when the spread is narrower than the tolerance", () => {
    const tight = { pairs: 5, median: 1.03, min: 1.02, max: 1.04, q1: 1.02, q3: 1.04 };
    const wide = { pairs: 5, median: 1.03, min: 0.9, max: 1.2, q1: 1.0, q3: 1.1 };
    expect(verdict(tight, 1.05, true)).toBe("met");
    expect(verdict(tight, 1.0, true, 0.05)).toBe("missed");
    expect(verdict(tight, 1.01, true)).toBe("within noise"); // default tolerance 0.01, spread 0.02
    expect(verdict(wide, 1.05, true)).toBe("within noise");
    expect(verdict(wide, 1.05, true, 0.5)).toBe("met");
    expect(verdict({ ...tight, median: 0.99, min: 0.985, max: 0.995 }, 0.98, false)).toBe("met");
    expect(verdict(undefined, 1.05, true)).toBe("not measured");
  });
});

describe("bench/report.ts on the fixtures", () => {
  it("reports an interleaved run with paired ratios, verdicts, its commit, machine and pinning, and a missing measure with its reason", () => {
    const { markdown, json } = report("results-interleaved-bun.jsonl");
    expect(markdown).toContain("- Commit: `0123456789abcdef0123456789abcdef01234567` (recorded by the run)");
    expect(line(markdown, "**bun**", "bun 1.4.5", "commit `0123456789abcdef0123456789abcdef01234567`", "NVIDIA H200, driver 580.159.04", "host gpu-fixture (16 CPUs)", "pinned to CPUs 2", "5 interleaved rounds")).toBeDefined();
    expect(line(markdown, "trivial call, raw", "bun-raw", "1.14× (1.14–1.15, IQR 1.14–1.15, 5 pairs)", "**met**")).toBeDefined();
    expect(line(markdown, "launch.4)", "bun-core", "0.78–1.10", "within noise")).toBeDefined();
    expect(line(markdown, "launch.256)", "bun-core", "1.30× (1.30–1.30", "**missed**")).toBeDefined();
    expect(line(markdown, "256 MiB copies", "bun-raw", "not measured")).toBeDefined();
    expect(markdown).toContain("## Missing measures");
    expect(line(markdown, "`bun-raw` `nvrtc.compile`", "NVRTC_ERROR_INVALID_OPTION")).toBeDefined();
    // The measure tables: the median over the rounds, and the paired ratio with its range.
    expect(line(markdown, "`call.cuCtxGetCurrent` | ns |", "12.8", "14.6", "1.14× (1.14–1.15)")).toBeDefined();
    const targets = json.targets as { contender: string; target: string; verdict: string; paired?: { pairs: number } }[];
    const launch4 = targets.find((t) => t.contender === "bun-core" && t.target.includes("launch.4"))!;
    expect(launch4.verdict).toBe("within noise");
    expect(launch4.paired?.pairs).toBe(5);
  });

  it("reports single-process runs as such, lists each run, and keeps the earlier fixtures' numbers", () => {
    const { markdown } = report("results-bun.jsonl", "results-deno.jsonl");
    expect(line(markdown, "trivial call, raw", "bun-raw", "1.14× (14.6 vs 12.8 ns; one process each, no spread)", "**met**")).toBeDefined();
    expect(line(markdown, "startup.import within 20 ms", "deno-core", "**missed**")).toBeDefined();
    expect(line(markdown, "**bun**", "results-bun.jsonl")).toBeDefined();
    expect(line(markdown, "**deno**", "results-deno.jsonl")).toBeDefined();
    expect(line(markdown, "full regeneration", "not measured")).toBeDefined();
  });

  it("lists a measure that one runtime's layer has and the other's lacks as missing", () => {
    const { markdown } = report("results-interleaved-bun.jsonl", "results-deno.jsonl");
    expect(line(markdown, "bun: `bun-raw` `launch.4`", "deno-raw` has one")).toBeDefined();
  });
});
