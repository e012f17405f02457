/**
 * Where the start to `setCurrent()` goes, on the GPU machine: whole processes interleaved over rounds, each timed
 * from spawn to exit here while it reports its own phases (ms): C (`bench-c --startup-phases`: cuInit, primary
 * context), each runtime's empty start, the same start through the runtime's raw FFI, and cuda-ts's package.
 *
 *     deno run -A bench/start-phases.ts --bench-c BENCH_C [--runs N] [--runtimes bun,deno] [--trees before=DIR,after=.] [--src]
 *     bun bench/start-phases.ts ...
 *
 * Cases: `c`; `<runtime>`, `<runtime>-raw` and `<runtime>-pkg` (bench/ts/start-phases.ts `--empty`, `--raw`,
 * `--dist DIR`: the package's dist/ of each tree, `npm run build`, labelled `<label>:<runtime>-pkg`). A
 * first round warms the caches and is not counted. `--src`: cuda-ts from each tree's TypeScript sources instead
 * (`<runtime>-src`; each tree's own bench/ts/start-phases.ts), as the tests run it without a build. Prints JSON lines on stdout in bench/README.md's format
 * (`startup.phases.<phase>` and `startup.phases.wall`, the whole process) and a table on stderr: each phase's median
 * (min–max), and `outside`, the process's time around the phases it reports (its start before the script runs,
 * its exit), which is where a runtime's and the driver's teardown show.
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

const runs = Number(option("--runs") ?? "15");
const runtimes = (option("--runtimes") ?? "bun,deno").split(",");
const benchC = option("--bench-c");
const fromSources = process.argv.includes("--src");
const trees = (option("--trees") ?? `=${ROOT}`).split(",").map((t) => {
  const at = t.indexOf("=");
  return { label: at > 0 ? `${t.slice(0, at)}:` : "", root: path.resolve(t.slice(at + 1)) };
});

interface Case {
  readonly contender: string;
  readonly command: readonly string[];
}

const script = (name: string): string => path.join(ROOT, "bench", "ts", name);
const run = (runtime: string, file: string, args: readonly string[]): string[] => (runtime === "bun" ? ["bun", file, ...args] : ["deno", "run", "-A", file, ...args]);
const cases: Case[] = [];
if (benchC !== undefined) cases.push({ contender: "c", command: [path.resolve(benchC), "--startup-phases"] });
for (const rt of runtimes) {
  cases.push({ contender: rt, command: run(rt, script("start-phases.ts"), ["--empty"]) });
  cases.push({ contender: `${rt}-raw`, command: run(rt, script("start-phases.ts"), ["--raw"]) });
  for (const { label, root } of trees) {
    const layer = fromSources ? [] : ["--dist", root];
    cases.push({ contender: `${label}${rt}-${fromSources ? "src" : "pkg"}`, command: run(rt, fromSources ? path.join(root, "bench", "ts", "start-phases.ts") : script("start-phases.ts"), layer) });
  }
}

const phases = new Map<Case, Map<string, number[]>>(cases.map((c) => [c, new Map()]));
const add = (c: Case, name: string, value: number): void => {
  const m = phases.get(c)!;
  if (!m.has(name)) m.set(name, []);
  m.get(name)!.push(value);
};

for (let round = 0; round <= runs; round++) {
  for (const c of cases) {
    const t0 = performance.now();
    const r = spawnSync(c.command[0]!, c.command.slice(1), { cwd: ROOT, encoding: "utf8" });
    const wall = performance.now() - t0;
    if (r.status !== 0) {
      console.error(`start-phases.ts: ${c.command.join(" ")} exited with ${r.status}: ${(r.stderr ?? "").slice(-2000)}`);
      process.exit(1);
    }
    if (round === 0) continue;
    const line = (r.stdout ?? "").split("\n").find((l) => l.startsWith("{"));
    const reported = line === undefined ? {} : (JSON.parse(line) as Record<string, unknown>);
    let inside = 0;
    for (const [k, v] of Object.entries(reported)) {
      if (typeof v !== "number" || k === "driver") continue;
      add(c, k, v);
      inside += v;
    }
    add(c, "wall", wall);
    add(c, "outside", wall - inside);
  }
}

const sorted = (a: readonly number[]): number[] => [...a].sort((x, y) => x - y);
const median = (a: readonly number[]): number => {
  const s = sorted(a);
  const n = s.length;
  return n % 2 === 1 ? s[(n - 1) / 2]! : (s[n / 2 - 1]! + s[n / 2]!) / 2;
};
const r2 = (x: number): number => Math.round(x * 100) / 100;
const rows: string[] = [];
for (const c of cases) {
  const cells: string[] = [];
  for (const [name, values] of phases.get(c)!) {
    if (name !== "outside") {
      console.log(JSON.stringify({ contender: c.contender, measure: `startup.phases.${name}`, unit: "ms", value: r2(median(values)), min: r2(Math.min(...values)), max: r2(Math.max(...values)), reps: values.length, iters: 1 }));
    }
    cells.push(`${name} ${median(values).toFixed(1)} (${Math.min(...values).toFixed(1)}–${Math.max(...values).toFixed(1)})`);
  }
  rows.push(`| ${c.contender} | ${cells.join(" · ")} |`);
}
console.error(`\n${runs} runs each, interleaved; ms, median (min–max)\n`);
console.error("| contender | phases |");
console.error("|---|---|");
for (const row of rows) console.error(row);
