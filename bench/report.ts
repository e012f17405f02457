/**
 * Turns benchmark results (bench/README.md) into a Markdown report on stdout, on the CPU machine:
 *
 *     deno run -A bench/report.ts [--commit SHA] [--json FILE] [--generate FILE|SECONDS] results-*.jsonl > report.md
 *     bun bench/report.ts ...
 *
 * Each .jsonl file is one run of bench/run.sh (one runtime): its `{"meta": ...}` line describes the machine, every
 * other line is a result. Ratios are to C from the SAME file. `--generate` takes the output of
 * `npm run bench:generate` (its "median of N: X s" line, or JSON lines with measure generate.full) or a number of
 * seconds; a generate.full line inside a results file counts too. `--json FILE` also writes the merged table and
 * the target checks as JSON. The commit is `--commit`, else the runs' meta, else `git rev-parse HEAD` here; each
 * run's own commit is listed with it.
 *
 * Interleaved runs (bench/run.sh with BENCH_ROUNDS, every result line with its `round`): a measure's value is the
 * median over the rounds, and its ratio to C the median of the paired ratios (round i over C's round i), with their
 * spread; a target is met or missed only where the spread is smaller than its tolerance, else "within noise"
 * (bench/paired.ts). A line `{"contender", "measure", "missing": "reason"}` lists a measure that could not be
 * taken, and a measure one run's contender has and another run's same layer lacks is listed as missing too.
 *
 * @module
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import process from "node:process";
import { describePaired, pairedRatio, verdict, type PairedRatio, type Verdict } from "./paired.ts";

interface Result {
  readonly contender: string;
  readonly measure: string;
  readonly value: number;
  readonly unit: string;
  readonly min?: number;
  readonly max?: number;
  readonly reps?: number;
  readonly iters?: number;
  readonly note?: string;
  /** The interleaved round (bench/run.sh, BENCH_ROUNDS) this result comes from. */
  readonly round?: number;
  /** How many rounds the value is the median of. */
  readonly rounds?: number;
}

type Meta = Record<string, unknown>;

interface Run {
  readonly label: string;
  readonly file: string;
  readonly meta: Meta | undefined;
  /** measure → contender → result */
  readonly results: Map<string, Map<string, Result>>;
  readonly contenders: string[];
  /** The cuda-ts runtime of the run (bun, deno), when it has cuda-ts results or says so in its meta. */
  readonly runtime: string | undefined;
  /** measure → contender → round → value, for interleaved runs. */
  readonly rounds: Map<string, Map<string, Map<number, number>>>;
  /** measure → contender → why it is missing (explicit `missing` lines). */
  readonly missing: Map<string, Map<string, string>>;
}

/** The README's measures, in its order. */
const MEASURE_ORDER = [
  "call.cuCtxGetCurrent",
  "call.cuDeviceGetAttribute",
  "call.cuEventCreateDestroy",
  "call.cuStreamQuery",
  "launch.0",
  "launch.1",
  "launch.4",
  "launch.16",
  "launch.256",
  "launch.4.fresh",
  "graph.launch100",
  "alloc.1KiB.sync",
  "alloc.1KiB.pool",
  "copy.h2d.8B",
  "copy.d2h.8B",
  "copy.h2d.256MiB.pinned",
  "copy.d2h.256MiB.pinned",
  "copy.h2d.256MiB.pageable",
  "copy.d2h.256MiB.pageable",
  "nvrtc.compile",
  "nvrtc.cacheHit",
  "startup.empty",
  "startup.import",
  "startup.importInProcess",
  "startup.setCurrent",
  "startup.firstKernel",
  "generate.full",
];

const GROUPS: readonly { readonly key: string; readonly title: string; readonly about: string }[] = [
  { key: "call", title: "Driver calls", about: "time per call" },
  { key: "launch", title: "Kernel launches", about: "CPU time per launch, 1 block of 32 threads, bursts of 256" },
  { key: "graph", title: "Graph launches", about: "CPU time per launch of a captured graph of 100 k0 kernels" },
  { key: "alloc", title: "Allocation", about: "allocate + free of 1 KiB" },
  { key: "copy", title: "Copies", about: "8-byte copies: time per copy; 256 MiB copies: bandwidth" },
  { key: "nvrtc", title: "NVRTC", about: "compiling k4 to a cubin for the device" },
  { key: "startup", title: "Startup", about: "whole processes, spawn to exit, median of 5 after one warm-up" },
];

const CONTENDER_RANK = ["c", "python-bindings", "python-core"];
const LAYER_RANK = ["raw", "checked", "core"];

function contenderRank(c: string): number {
  const i = CONTENDER_RANK.indexOf(c);
  if (i >= 0) return i;
  const layer = c.split("-").pop() ?? "";
  const j = LAYER_RANK.indexOf(layer);
  return j >= 0 ? 10 + j : 100;
}

function measureRank(m: string): number {
  const i = MEASURE_ORDER.indexOf(m);
  return i >= 0 ? i : 1000;
}

const higherIsBetter = (unit: string): boolean => unit === "GB/s";

// ------------------------------------------------------------------------------------------------- reading

function warn(msg: string): void {
  console.error(`report.ts: ${msg}`);
}

function readRun(file: string): Run {
  const text = fs.readFileSync(file, "utf8");
  let meta: Meta | undefined;
  const results = new Map<string, Map<string, Result>>();
  const contenders = new Set<string>();
  const rounds = new Map<string, Map<string, Map<number, number>>>();
  const missing = new Map<string, Map<string, string>>();
  const units = new Map<string, string>();
  const roundNotes = new Map<string, string>();
  text.split("\n").forEach((line, i) => {
    const trimmed = line.trim();
    if (trimmed === "" || !trimmed.startsWith("{")) return;
    let obj: unknown;
    try {
      obj = JSON.parse(trimmed);
    } catch {
      warn(`${file}:${i + 1}: not JSON, skipped`);
      return;
    }
    if (typeof obj !== "object" || obj === null) return;
    const o = obj as Record<string, unknown>;
    if (o.meta !== undefined) {
      meta = { ...(meta ?? {}), ...o };
      return;
    }
    if (typeof o.contender === "string" && typeof o.measure === "string" && typeof o.missing === "string") {
      let byContender = missing.get(o.measure);
      if (byContender === undefined) missing.set(o.measure, (byContender = new Map()));
      byContender.set(o.contender, o.missing);
      return;
    }
    if (typeof o.contender !== "string" || typeof o.measure !== "string" || typeof o.value !== "number" || typeof o.unit !== "string") {
      warn(`${file}:${i + 1}: not a result line (contender, measure, value, unit), skipped`);
      return;
    }
    const r = o as unknown as Result;
    contenders.add(r.contender);
    if (typeof r.round === "number") {
      let byContender = rounds.get(r.measure);
      if (byContender === undefined) rounds.set(r.measure, (byContender = new Map()));
      let byRound = byContender.get(r.contender);
      if (byRound === undefined) byContender.set(r.contender, (byRound = new Map()));
      if (byRound.has(r.round)) warn(`${file}:${i + 1}: a second ${r.contender} ${r.measure} in round ${r.round}; the last one counts`);
      byRound.set(r.round, r.value);
      units.set(r.measure, r.unit);
      if (r.note !== undefined) roundNotes.set(`${r.contender}\u0000${r.measure}`, r.note);
      return;
    }
    let byContender = results.get(r.measure);
    if (byContender === undefined) results.set(r.measure, (byContender = new Map()));
    if (byContender.has(r.contender)) warn(`${file}:${i + 1}: a second ${r.contender} ${r.measure}; the last one counts`);
    byContender.set(r.contender, r);
  });
  // An interleaved measure's value: the median over its rounds, min–max over them.
  for (const [measure, byContender] of rounds) {
    let out = results.get(measure);
    if (out === undefined) results.set(measure, (out = new Map()));
    for (const [contender, byRound] of byContender) {
      const values = [...byRound.values()].sort((a, b) => a - b);
      const unit = units.get(measure) ?? "";
      const mid = values.length % 2 === 1 ? values[(values.length - 1) / 2]! : (values[values.length / 2 - 1]! + values[values.length / 2]!) / 2;
      const note = roundNotes.get(`${contender}\u0000${measure}`);
      out.set(contender, { contender, measure, value: mid, unit, min: values[0]!, max: values[values.length - 1]!, rounds: values.length, ...(note !== undefined ? { note } : {}) });
    }
  }
  const base = path.basename(file).replace(/\.jsonl$/, "").replace(/^results-/, "");
  const tsRuntime = [...contenders].map((c) => /^(bun|deno)-/.exec(c)?.[1]).find((x) => x !== undefined);
  const runtime = typeof meta?.runtime === "string" && meta.runtime !== "?" ? meta.runtime : tsRuntime;
  return {
    label: runtime ?? base,
    file,
    meta,
    results,
    contenders: [...contenders].sort((a, b) => contenderRank(a) - contenderRank(b) || a.localeCompare(b)),
    runtime,
    rounds,
    missing,
  };
}

function readGenerate(arg: string): number | undefined {
  if (/^\d+(\.\d+)?$/.test(arg)) return Number(arg);
  let text: string;
  try {
    text = fs.readFileSync(arg, "utf8");
  } catch (e) {
    warn(`--generate ${arg}: ${(e as Error).message}`);
    return undefined;
  }
  for (const line of text.split("\n")) {
    const t = line.trim();
    if (t.startsWith("{")) {
      try {
        const o = JSON.parse(t) as Partial<Result>;
        if (o.measure === "generate.full" && typeof o.value === "number") return o.value;
      } catch {
        // not JSON
      }
    }
    const m = /median of \d+:\s*([\d.]+)\s*s/.exec(t);
    if (m) return Number(m[1]);
  }
  warn(`--generate ${arg}: no "median of N: X s" line and no generate.full JSON line`);
  return undefined;
}

// ------------------------------------------------------------------------------------------------- formatting

function fmt(v: number | undefined): string {
  if (v === undefined || !Number.isFinite(v)) return "–";
  const a = Math.abs(v);
  if (a >= 100) return v.toFixed(0);
  if (a >= 10) return v.toFixed(1);
  if (a >= 1) return v.toFixed(2);
  return v.toPrecision(3);
}

function fmtRatio(r: number | undefined): string {
  return r === undefined || !Number.isFinite(r) ? "–" : `${r.toFixed(2)}×`;
}

/** A Markdown table: the first `left` columns left-aligned, the others (numbers) right-aligned. */
function table(header: string[], rows: string[][], left = 2): string {
  const line = (cells: string[]): string => `| ${cells.join(" | ")} |`;
  return [line(header), line(header.map((_, i) => (i < left ? "---" : "---:"))), ...rows.map(line)].join("\n");
}

// ------------------------------------------------------------------------------------------------- the report

interface Cell {
  readonly run: string;
  readonly contender: string;
  readonly value: number;
  readonly min?: number;
  readonly max?: number;
  readonly ratio?: number;
  readonly paired?: PairedRatio;
  readonly rounds?: number;
  readonly note?: string;
}

interface Target {
  readonly target: string;
  readonly run: string;
  readonly contender: string;
  readonly measured: string;
  readonly limit: string;
  readonly pass: boolean | undefined;
  /** Met / missed / within noise over the paired rounds; for a run without rounds, from its single values. */
  readonly verdict: Verdict;
  /** The paired ratios, where the run is interleaved. */
  readonly paired?: PairedRatio;
}

/** The paired ratios of `contender` to C over an interleaved run's rounds. */
function pairedToC(run: Run, measure: string, contender: string): PairedRatio | undefined {
  const byContender = run.rounds.get(measure);
  const c = byContender?.get("c");
  const v = byContender?.get(contender);
  if (c === undefined || v === undefined || contender === "c") return undefined;
  return pairedRatio(c, v);
}

function ratioToC(run: Run, measure: string, contender: string): number | undefined {
  const paired = pairedToC(run, measure, contender);
  if (paired !== undefined) return paired.median;
  const c = run.results.get(measure)?.get("c");
  const v = run.results.get(measure)?.get(contender);
  if (c === undefined || v === undefined || contender === "c" || c.value === 0) return undefined;
  return v.value / c.value;
}

function checkTargets(runs: Run[], generateSeconds: number | undefined): Target[] {
  const out: Target[] = [];
  for (const run of runs) {
    const rt = run.runtime;
    if (rt !== "bun" && rt !== "deno") continue;
    const bun = rt === "bun";
    const ratioTarget = (target: string, measure: string, layer: string, limit: number): void => {
      const contender = `${rt}-${layer}`;
      const r = ratioToC(run, measure, contender);
      const paired = pairedToC(run, measure, contender);
      const values = `${fmt(run.results.get(measure)?.get(contender)?.value)} vs ${fmt(run.results.get(measure)?.get("c")?.value)} ns`;
      out.push({
        target,
        run: run.label,
        contender,
        measured: r === undefined ? "–" : paired !== undefined ? `${describePaired(paired)}; medians ${values}` : `${fmtRatio(r)} (${values}; one process each, no spread)`,
        limit: `≤ ${limit}×`,
        pass: r === undefined ? undefined : r <= limit,
        verdict: paired !== undefined ? verdict(paired, limit, true) : r === undefined ? "not measured" : r <= limit ? "met" : "missed",
        ...(paired !== undefined ? { paired } : {}),
      });
    };
    ratioTarget("trivial call, raw (call.cuCtxGetCurrent)", "call.cuCtxGetCurrent", "raw", bun ? 1.3 : 4);
    ratioTarget("trivial call, checked (call.cuCtxGetCurrent)", "call.cuCtxGetCurrent", "checked", bun ? 2 : 5);
    ratioTarget("core launch(), 4 args, vs C cuLaunchKernel (launch.4)", "launch.4", "core", bun ? 1.05 : 1.15);
    ratioTarget("core launch(), 256 args, vs C cuLaunchKernel (launch.256)", "launch.256", "core", bun ? 1.2 : 1.4);
    // The object layer's own overheads, each against C making the same driver calls.
    ratioTarget("core launch(), 256 args, against the object layer's target (launch.256)", "launch.256", "core", bun ? 1.1 : 1.15);
    ratioTarget("core Device.allocate + close from the pool (alloc.1KiB.pool)", "alloc.1KiB.pool", "core", bun ? 1.2 : 1.4);
    ratioTarget("core createEvent + close (call.cuEventCreateDestroy)", "call.cuEventCreateDestroy", "core", bun ? 1.3 : 1.5);
    if (!bun) ratioTarget("core Stream.query (call.cuStreamQuery)", "call.cuStreamQuery", "core", 1.2);
    const copies = MEASURE_ORDER.filter((m) => m.includes("256MiB"));
    for (const layer of LAYER_RANK) {
      const contender = `${rt}-${layer}`;
      const ratios = copies
        .map((m) => ({ m, r: ratioToC(run, m, contender), paired: pairedToC(run, m, contender) }))
        .filter((x): x is { m: string; r: number; paired: PairedRatio | undefined } => x.r !== undefined);
      const worst = ratios.sort((a, b) => a.r - b.r)[0];
      const how = worst?.paired !== undefined ? describePaired(worst.paired) : worst !== undefined ? `${fmtRatio(worst.r)} (one process each, no spread)` : "";
      out.push({
        target: "256 MiB copies, bandwidth vs C (worst of the four)",
        run: run.label,
        contender,
        measured: worst === undefined ? "–" : `${how}; ${worst.m.replace("copy.", "")}; ${ratios.length} of 4 measured`,
        limit: "≥ 0.98×",
        pass: worst === undefined ? undefined : worst.r >= 0.98,
        verdict: worst === undefined ? "not measured" : worst.paired !== undefined ? verdict(worst.paired, 0.98, false) : worst.r >= 0.98 ? "met" : "missed",
        ...(worst?.paired !== undefined ? { paired: worst.paired } : {}),
      });
    }
    for (const measure of ["startup.import", "startup.setCurrent"]) {
      const c = run.results.get(measure)?.get("c");
      for (const layer of ["core", "raw", "core-pkg", "raw-pkg"]) {
        if (layer.endsWith("-pkg") && run.results.get(measure)?.get(`${rt}-${layer}`) === undefined) continue;
        const contender = `${rt}-${layer}`;
        const v = run.results.get(measure)?.get(contender);
        const d = c !== undefined && v !== undefined ? v.value - c.value : undefined;
        out.push({
          target: `${measure} within 20 ms of C's`,
          run: run.label,
          contender,
          measured: d === undefined ? "–" : `${d >= 0 ? "+" : ""}${fmt(d)} ms (${fmt(v?.value)} vs ${fmt(c?.value)} ms)`,
          limit: "≤ +20 ms",
          pass: d === undefined ? undefined : d <= 20,
          verdict: d === undefined ? "not measured" : d <= 20 ? "met" : "missed",
        });
      }
    }
    // Issue 15's start-up targets, against the runtime's own empty start (startup.empty, contender `bun`/`deno`):
    // importing the package root ≤ 15 ms above it and the raw driver binding ≤ 5 ms; setCurrent and the first
    // kernel within 20 ms of C's plus the empty start.
    const empty = run.results.get("startup.empty")?.get(rt);
    // The package's compiled JavaScript (contenders RUNTIME-core-pkg, RUNTIME-raw-pkg) against the same limits, where measured.
    for (const [measure, layer, limit, withC] of [
      ["startup.import", "core", 15, false],
      ["startup.import", "raw", 5, false],
      ["startup.setCurrent", "core", 20, true],
      ["startup.firstKernel", "core", 20, true],
      ["startup.import", "core-pkg", 15, false],
      ["startup.import", "raw-pkg", 5, false],
      ["startup.setCurrent", "core-pkg", 20, true],
      ["startup.firstKernel", "core-pkg", 20, true],
    ] as const) {
      const contender = `${rt}-${layer}`;
      const v = run.results.get(measure)?.get(contender);
      if (layer.endsWith("-pkg") && v === undefined) continue;
      const c = withC ? run.results.get(measure)?.get("c") : undefined;
      const base = empty === undefined || (withC && c === undefined) ? undefined : empty.value + (c?.value ?? 0);
      const d = v !== undefined && base !== undefined ? v.value - base : undefined;
      out.push({
        target: `${measure} above the runtime's empty start${withC ? " plus C's" : ""}`,
        run: run.label,
        contender,
        measured: d === undefined ? "–" : `${d >= 0 ? "+" : ""}${fmt(d)} ms (${fmt(v?.value)} vs ${fmt(empty?.value)}${withC ? ` + ${fmt(c?.value)}` : ""} ms)`,
        limit: `≤ +${limit} ms`,
        pass: d === undefined ? undefined : d <= limit,
        verdict: d === undefined ? "not measured" : d <= limit ? "met" : "missed",
      });
    }
  }
  out.push({
    target: "full regeneration (generate.full)",
    run: "CPU machine",
    contender: "deno",
    measured: generateSeconds === undefined ? "–" : `${fmt(generateSeconds)} s`,
    limit: "< 3 s",
    pass: generateSeconds === undefined ? undefined : generateSeconds < 3,
    verdict: generateSeconds === undefined ? "not measured" : generateSeconds < 3 ? "met" : "missed",
  });
  return out;
}

/**
 * The measures a run lacks, with the reason: explicit `missing` lines, and a measure that the same layer (raw,
 * checked, core) has in another run and this run's contender lacks while C has it.
 */
function missingMeasures(runs: readonly Run[]): string[] {
  const out: string[] = [];
  for (const run of runs) {
    for (const [measure, byContender] of run.missing) {
      for (const [contender, reason] of byContender) out.push(`${run.label}: \`${contender}\` \`${measure}\`: ${reason}`);
    }
    const rt = run.runtime;
    if (rt === undefined) continue;
    for (const layer of LAYER_RANK) {
      const contender = `${rt}-${layer}`;
      if (!run.contenders.includes(contender)) continue;
      for (const [measure, byContender] of run.results) {
        if (!byContender.has("c") || byContender.has(contender) || run.missing.get(measure)?.has(contender)) continue;
        const elsewhere = runs.find((o) => o !== run && o.runtime !== undefined && o.results.get(measure)?.has(`${o.runtime}-${layer}`));
        if (elsewhere === undefined) continue;
        out.push(`${run.label}: \`${contender}\` \`${measure}\`: no result in \`${path.basename(run.file)}\` (\`${elsewhere.runtime}-${layer}\` has one; see the run's bench log for the failure)`);
      }
    }
  }
  return out;
}

function gitCommit(): string | undefined {
  try {
    return execFileSync("git", ["rev-parse", "HEAD"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim() || undefined;
  } catch {
    return undefined;
  }
}

function describeRun(run: Run): string {
  const m = run.meta ?? {};
  const s = (k: string): string | undefined => (typeof m[k] === "string" || typeof m[k] === "number" ? String(m[k]) : undefined);
  const rt = s("runtime");
  const version = s("runtime_version") ?? "";
  const parts = [
    rt !== undefined ? (version.toLowerCase().startsWith(rt.toLowerCase()) ? version : `${rt} ${version}`.trim()) : undefined,
    s("python") && `Python ${s("python")}`,
    s("cuda_bindings") && `cuda.bindings ${s("cuda_bindings")}`,
    s("cuda_core") && `cuda.core ${s("cuda_core")}`,
    s("nvcc") && `nvcc: ${s("nvcc")}`,
    s("commit") && `commit \`${s("commit")}\``,
    s("gpu") && `${s("gpu")}${s("driver") ? `, driver ${s("driver")}` : ""}`,
    s("host") && `host ${s("host")}${s("cpus") ? ` (${s("cpus")} CPUs)` : ""}`,
    s("pinned") && `pinned to CPUs ${s("pinned")}`,
    s("rounds") && `${s("rounds")} interleaved rounds`,
    s("date"),
  ].filter((x): x is string => typeof x === "string" && x !== "");
  const note = s("note") !== undefined ? ` **${s("note")}**` : "";
  return `- **${run.label}** (\`${path.basename(run.file)}\`): ${parts.length ? parts.join(" · ") : "no meta line"}${note}`;
}

function main(argv: string[]): number {
  const files: string[] = [];
  let commit: string | undefined;
  let jsonOut: string | undefined;
  let generateArg: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--commit") commit = argv[++i];
    else if (a === "--json") jsonOut = argv[++i];
    else if (a === "--generate") generateArg = argv[++i];
    else if (a === "--help" || a === "-h") files.length = 0;
    else files.push(a);
  }
  if (files.length === 0) {
    console.error("usage: report.ts [--commit SHA] [--json FILE] [--generate FILE|SECONDS] results-*.jsonl ...");
    return 2;
  }
  const runs = files.map(readRun);
  const labels = new Map<string, number>();
  for (const r of runs) labels.set(r.label, (labels.get(r.label) ?? 0) + 1);
  const runLabel = (run: Run, i: number): string => ((labels.get(run.label) ?? 0) > 1 ? `${run.label}#${i + 1}` : run.label);
  const named = runs.map((r, i) => ({ ...r, label: runLabel(r, i) }));

  let generateSeconds = generateArg !== undefined ? readGenerate(generateArg) : undefined;
  if (generateSeconds === undefined) {
    for (const run of named) {
      const g = [...(run.results.get("generate.full")?.values() ?? [])][0];
      if (g !== undefined) generateSeconds = g.unit === "ms" ? g.value / 1000 : g.value;
    }
  }
  const runCommits = [...new Set(named.map((r) => r.meta?.commit).filter((c): c is string => typeof c === "string"))];
  const metaCommit = runCommits[0];
  const commitSource = commit !== undefined ? "given" : metaCommit !== undefined ? "recorded by the run" : "of the checkout this report was made in";
  commit ??= metaCommit ?? gitCommit();

  const firstMeta = named.find((r) => r.meta !== undefined)?.meta ?? {};
  const ms = (k: string): string | undefined => (typeof firstMeta[k] === "string" || typeof firstMeta[k] === "number" ? String(firstMeta[k]) : undefined);
  const date = (ms("date") ?? new Date().toISOString()).slice(0, 10);
  const out: string[] = [];
  out.push(`# cuda-ts benchmarks: ${ms("gpu") ?? "unknown GPU"}, ${date}`);
  out.push("");
  out.push(`- Commit: ${commit !== undefined ? `\`${commit}\` (${commitSource})` : "unknown (pass --commit)"}`);
  if (runCommits.length > 1) out.push(`- **The runs were taken at different commits** (${runCommits.map((c) => `\`${c}\``).join(", ")}): each run's is in its line below.`);
  out.push(
    `- Machine: ${ms("gpu") ?? "?"}, driver ${ms("driver") ?? "?"}, compute capability ${ms("compute_capability") ?? "?"}; host ${ms("host") ?? "?"}, ${ms("cpus") ?? "?"} CPUs`,
  );
  out.push("- Runs (one file each; every ratio is to C from the same run):");
  for (const run of named) out.push(`  ${describeRun(run)}`);
  out.push(
    "- Method (bench/README.md): a warm-up, then 21 repetitions of M iterations; the median per-iteration value, " +
      "min–max in the JSON. Times: lower is better; GB/s: higher is better. ×C = contender / C of the same run; in an " +
      "interleaved run (rounds), the median of the paired ratios (round i over C's round i) with their min–max, and a " +
      "target is met or missed only where that spread is narrower than its tolerance (|limit − 1|), else within noise.",
  );
  out.push("");

  const jsonMeasures: { group: string; measure: string; unit: string; cells: Cell[] }[] = [];
  const notes = new Map<string, Map<string, Set<string>>>();
  const allMeasures = new Set<string>();
  for (const run of named) for (const m of run.results.keys()) allMeasures.add(m);
  const groupKeys = [...GROUPS.map((g) => g.key)];
  for (const m of allMeasures) {
    const g = m.split(".")[0]!;
    if (!groupKeys.includes(g) && g !== "generate") groupKeys.push(g);
  }
  for (const key of groupKeys) {
    const measures = [...allMeasures].filter((m) => m.split(".")[0] === key).sort((a, b) => measureRank(a) - measureRank(b) || a.localeCompare(b));
    if (measures.length === 0) continue;
    const group = GROUPS.find((g) => g.key === key);
    // Columns: every (run, contender) with a result in this group.
    const columns: { run: (typeof named)[number]; contender: string }[] = [];
    for (const run of named) {
      for (const contender of run.contenders) {
        if (measures.some((m) => run.results.get(m)?.has(contender))) columns.push({ run, contender });
      }
    }
    const seen = new Map<string, number>();
    for (const c of columns) seen.set(c.contender, (seen.get(c.contender) ?? 0) + 1);
    const colName = (c: (typeof columns)[number]): string => (seen.get(c.contender)! > 1 ? `${c.contender} (${c.run.label} run)` : c.contender);
    const header = ["measure", "unit"];
    for (const c of columns) {
      header.push(colName(c));
      if (c.contender !== "c") header.push("×C");
    }
    const rows: string[][] = [];
    for (const m of measures) {
      let unit = "";
      const cells: Cell[] = [];
      const row: string[] = [`\`${m}\``, ""];
      for (const c of columns) {
        const r = c.run.results.get(m)?.get(c.contender);
        if (r !== undefined) unit = r.unit;
        const ratio = ratioToC(c.run, m, c.contender);
        const paired = pairedToC(c.run, m, c.contender);
        row.push(fmt(r?.value));
        if (c.contender !== "c") row.push(paired !== undefined ? `${fmtRatio(ratio)} (${paired.min.toFixed(2)}–${paired.max.toFixed(2)})` : fmtRatio(ratio));
        if (r !== undefined) {
          cells.push({
            run: c.run.label,
            contender: c.contender,
            value: r.value,
            ...(r.min !== undefined ? { min: r.min } : {}),
            ...(r.max !== undefined ? { max: r.max } : {}),
            ...(ratio !== undefined ? { ratio } : {}),
            ...(paired !== undefined ? { paired } : {}),
            ...(r.rounds !== undefined ? { rounds: r.rounds } : {}),
            ...(r.note !== undefined ? { note: r.note } : {}),
          });
          if (r.note !== undefined) {
            let byContender = notes.get(r.note);
            if (byContender === undefined) notes.set(r.note, (byContender = new Map()));
            let set = byContender.get(c.contender);
            if (set === undefined) byContender.set(c.contender, (set = new Set()));
            set.add(m);
          }
        }
      }
      row[1] = unit + (higherIsBetter(unit) ? " ↑" : "");
      rows.push(row);
      jsonMeasures.push({ group: key, measure: m, unit, cells });
    }
    out.push(`## ${group?.title ?? key}`);
    out.push("");
    if (group) out.push(`${group.about}.`, "");
    out.push(table(header, rows));
    out.push("");
  }

  if (generateSeconds !== undefined) {
    out.push("## Generator", "", `A full regeneration of every library for CUDA 13.0 (\`npm run bench:generate\`, CPU machine): ${fmt(generateSeconds)} s.`, "");
  }

  const targets = checkTargets(named, generateSeconds);
  out.push("## Targets", "");
  out.push(
    "Bun's limit first, then Deno's: trivial call raw ≤1.3×/≤4× of C, checked ≤2×/≤5×; core `launch()` ≤1.05×/≤1.15× of C's " +
      "`cuLaunchKernel` with 4 arguments and ≤1.2×/≤1.4× with 256; 256 MiB copies ≥0.98× of C's bandwidth; " +
      "`startup.import` and `startup.setCurrent` within 20 ms of C's (C's import: a process with libcuda mapped; " +
      "C's setCurrent: cuInit + primary context current); over the runtime's empty start (`startup.empty`), importing " +
      "the package root ≤15 ms, the raw driver binding ≤5 ms, and setCurrent and the first kernel ≤20 ms above C's; " +
      "a full regeneration under 3 s.",
    "",
  );
  out.push(
    table(
      ["target", "run", "contender", "measured", "limit", "result"],
      targets.map((t) => [t.target, t.run, t.contender, t.measured, t.limit, t.verdict === "met" || t.verdict === "missed" ? `**${t.verdict}**` : t.verdict]),
      6,
    ),
  );
  out.push("");
  const missingLines = missingMeasures(named);
  if (missingLines.length > 0) {
    out.push("## Missing measures", "", ...missingLines.map((l) => `- ${l}`), "");
  }
  if (notes.size > 0) {
    out.push("## Notes", "");
    for (const [note, byContender] of notes) {
      const where = [...byContender].map(([contender, measures]) => `${contender} (${[...measures].map((m) => `\`${m}\``).join(", ")})`);
      out.push(`- ${where.join("; ")}: ${note}`);
    }
    out.push("");
  }

  process.stdout.write(out.join("\n"));
  if (jsonOut !== undefined) {
    const json = {
      commit: commit ?? null,
      runs: named.map((r) => ({ label: r.label, file: r.file, runtime: r.runtime ?? null, meta: r.meta ?? null })),
      measures: jsonMeasures,
      generateSeconds: generateSeconds ?? null,
      targets,
    };
    fs.writeFileSync(jsonOut, `${JSON.stringify(json, null, 2)}\n`);
  }
  return 0;
}

process.exit(main(process.argv.slice(2)));
