/**
 * Start-up times of whole processes, without a GPU: each runtime's empty start, importing the package root, the
 * driver binding alone and every binding, interleaved over rounds so that load on the machine falls on all alike.
 *
 *     deno run -A bench/startup.ts [--runs N] [--runtimes bun,deno] [--modes empty,core,raw,bindings] [--cubin CUBIN]
 *                                  [--trees before=DIR,after=DIR]
 *     bun bench/startup.ts ...
 *
 * `--trees` compares checkouts in the same interleaved run (each DIR a checkout with node_modules; DIR's own
 * bench/ts/startup.ts is run, so copy this one there for an old commit): contenders get the label as a prefix. Make
 * the trees alike: Deno discovers the configuration around the script (deno.json, package.json, node_modules), which
 * made even the empty start 24-28 ms slower in a full checkout than in a folder holding only dist/ and bench/ts
 * (on the H200, 2026-12-01); the main thread's CPU time (`--cpu`) is the fairer column then.
 *
 * Every run of every case spawns `bench/ts/startup.ts MODE --layer L` (one warm-up round first, untimed) and times
 * it from spawn to exit; the child also reports the import's own time from inside (BENCH_INPROCESS=1). Prints JSON
 * lines on stdout, in bench/README.md's format (contender `bun` / `deno` for the empty start, `<runtime>-core`,
 * `<runtime>-raw`, `<runtime>-bindings` for the imports; measures `startup.empty`, `startup.import`,
 * `startup.importInProcess`, and with `--cubin` also `startup.setCurrent`, `startup.firstKernel`), and a table on
 * stderr with each case's median, minimum, and median minus the runtime's empty start. `--cpu` adds the main
 * thread's CPU time during the import (`startup.importCpu`, /proc/thread-self/schedstat), which load on the machine
 * does not inflate as it does wall time. `--dist` imports the package's compiled JavaScript (dist/, `npm run build`)
 * instead of the TypeScript sources.
 *
 * @module
 */
import { spawnSync } from "node:child_process";
import * as path from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

function option(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

interface Case {
  readonly runtime: string;
  readonly root: string;
  readonly contender: string;
  readonly measure: string;
  readonly args: readonly string[];
}

const runs = Number(option("--runs") ?? "10");
const runtimes = (option("--runtimes") ?? "bun,deno").split(",");
const modes = (option("--modes") ?? "empty,core,raw,bindings").split(",");
const cubin = option("--cubin");
const cpu = process.argv.includes("--cpu");
const dist = process.argv.includes("--dist");
const trees = (option("--trees") ?? `=${ROOT}`).split(",").map((t) => {
  const at = t.indexOf("=");
  return { label: at > 0 ? `${t.slice(0, at)}:` : "", root: path.resolve(t.slice(at + 1)) };
});

function command(runtime: string, root: string): string[] {
  const child = path.join(root, "bench", "ts", "startup.ts");
  return runtime === "bun" ? ["bun", child] : ["deno", "run", "-A", child];
}

const cases: Case[] = [];
for (const { label, root } of trees) {
  for (const rt of runtimes) {
    for (const m of modes) {
      const c = { runtime: rt, root };
      if (m === "empty") cases.push({ ...c, contender: `${label}${rt}`, measure: "startup.empty", args: ["empty"] });
      else {
        cases.push({ ...c, contender: `${label}${rt}-${m}`, measure: "startup.import", args: ["import", "--layer", m] });
        if (cubin !== undefined && m !== "bindings") {
          cases.push({ ...c, contender: `${label}${rt}-${m}`, measure: "startup.setCurrent", args: ["setCurrent", "--layer", m] });
          cases.push({ ...c, contender: `${label}${rt}-${m}`, measure: "startup.firstKernel", args: ["firstKernel", "--layer", m, "--cubin", cubin] });
        }
      }
    }
  }
}

const wall = new Map<Case, number[]>(cases.map((c) => [c, []]));
const inside = new Map<Case, number[]>(cases.map((c) => [c, []]));
const onCpu = new Map<Case, number[]>(cases.map((c) => [c, []]));

for (let round = 0; round <= runs; round++) {
  for (const c of cases) {
    const [exe, ...pre] = command(c.runtime, c.root);
    const t0 = performance.now();
    const r = spawnSync(exe!, [...pre, ...c.args], { cwd: c.root, encoding: "utf8", env: { ...process.env, BENCH_INPROCESS: "1", ...(cpu ? { BENCH_CPU: "1" } : {}), ...(dist ? { BENCH_DIST: "1" } : {}) } });
    const dt = performance.now() - t0;
    if (r.status !== 0) {
      console.error(`startup.ts: ${exe} ${c.args.join(" ")} exited with ${r.status}: ${(r.stderr ?? "").slice(-2000)}`);
      process.exit(1);
    }
    if (round === 0) continue; // warms the runtimes' caches (Deno's emit and code caches, Bun's transpiler cache)
    wall.get(c)!.push(dt);
    const m = /inprocess import=([\d.]+)/.exec(r.stdout ?? "");
    if (m) inside.get(c)!.push(Number(m[1]));
    const k = / cpu=([\d.]+)/.exec(r.stdout ?? "");
    if (k) onCpu.get(c)!.push(Number(k[1]));
  }
}

const median = (a: readonly number[]): number => {
  const s = [...a].sort((x, y) => x - y);
  const n = s.length;
  return n % 2 === 1 ? s[(n - 1) / 2]! : (s[n / 2 - 1]! + s[n / 2]!) / 2;
};
const r2 = (x: number): number => Math.round(x * 100) / 100;

const rows: string[] = [];
const emptyOf = new Map<string, number>();
for (const c of cases) if (c.measure === "startup.empty") emptyOf.set(`${c.root} ${c.runtime}`, median(wall.get(c)!));
for (const c of cases) {
  const w = wall.get(c)!;
  const base = { contender: c.contender, unit: "ms", reps: w.length, iters: 1 };
  console.log(JSON.stringify({ ...base, measure: c.measure, value: r2(median(w)), min: r2(Math.min(...w)), max: r2(Math.max(...w)) }));
  const inn = inside.get(c)!;
  if (c.measure === "startup.import" && inn.length > 0) {
    console.log(JSON.stringify({ ...base, measure: "startup.importInProcess", value: r2(median(inn)), min: r2(Math.min(...inn)), max: r2(Math.max(...inn)) }));
  }
  const k = onCpu.get(c)!;
  if (c.measure === "startup.import" && k.length > 0) {
    console.log(JSON.stringify({ ...base, measure: "startup.importCpu", value: r2(median(k)), min: r2(Math.min(...k)), max: r2(Math.max(...k)) }));
  }
  const empty = emptyOf.get(`${c.root} ${c.runtime}`);
  const delta = empty !== undefined && c.measure !== "startup.empty" ? `${(median(w) - empty).toFixed(1)}` : "";
  const inImport = c.measure === "startup.import" && inn.length > 0 ? `${median(inn).toFixed(1)} (${Math.min(...inn).toFixed(1)})` : "";
  const cpuText = c.measure === "startup.import" && k.length > 0 ? `${median(k).toFixed(1)} (${Math.min(...k).toFixed(1)})` : "";
  rows.push(`| ${c.contender} | ${c.measure} | ${median(w).toFixed(1)} | ${Math.min(...w).toFixed(1)} | ${delta} | ${inImport} | ${cpuText} |`);
}
console.error(`\n${runs} runs each, interleaved; ms\n`);
console.error("| contender | measure | median | min | median − empty start | import in-process: median (min) | import, main thread's CPU time: median (min) |");
console.error("|---|---|---:|---:|---:|---:|---:|");
for (const row of rows) console.error(row);
