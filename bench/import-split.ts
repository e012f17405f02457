/**
 * What importing a module graph is made of: for each module of the graph (leaf-first), the time to load it (fetch,
 * parse, compile, link) and the time to evaluate it, measured apart through `import defer` (bench/ts/import-split.ts,
 * one process per measure), on each runtime.
 *
 *     deno run -A bench/import-split.ts [--entry dist/src/index.js] [--runs N] [--runtimes bun,deno] [--min-ms 0.5]
 *     bun bench/import-split.ts ...
 *
 * The graph is the entry's static imports (`import ... from "./x.js"`, `export ... from "./x.js"`), followed in files
 * of the built package (`npm run build`); what a module loads at run time (a deferred library, Deno's top-level
 * imports of them) is not part of it, and counts in the module that waits for it. Each module is measured with its
 * dependencies already imported, so each row is that module's own cost. `plain`: the import's whole time; `load`
 * and `evaluate`: the same import deferred, then its first use. `plain` and `load` are net of `fixed`, what the same
 * import of an empty module costs in the same process (a dynamic import's own cost, which a static graph does not
 * pay per module). A module with a top-level await is evaluated at
 * import even when deferred (marked `tla`): its `load` is its whole cost.
 *
 * Prints JSON lines on stdout (`{"runtime","module","bytes","tla","plain","load","evaluate","fixed"}`, medians in ms) and a
 * table on stderr: modules whose plain import costs at least `--min-ms`, then the sums.
 *
 * @module
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import * as path from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { quantile } from "./paired.ts";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

function option(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

/** The median of `xs` (NaN when empty). */
function median(xs: readonly number[]): number {
  return xs.length === 0 ? Number.NaN : quantile([...xs].sort((a, b) => a - b), 0.5);
}

/** The relative specifiers a module's text imports or re-exports statically. */
export function staticImports(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/(?:^|[;}\s])(?:import|export)\s*(?:[\w$*{}\s,]*?\bfrom\s*)?["'](\.{1,2}\/[^"']+)["']/g)) out.push(m[1]!);
  return out;
}

/** Whether a module's text waits on a top-level await (an `await` outside every function). */
export function hasTopLevelAwait(text: string): boolean {
  // The package's modules are minified: a top-level await follows `=`, `;` or a line start at nesting depth 0.
  let depth = 0;
  let quote: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote !== null) {
      if (c === "\\") i++;
      else if (c === quote) quote = null;
      continue;
    }
    if (c === '"' || c === "'" || c === "`") quote = c;
    else if (c === "{" || c === "(" || c === "[") depth++;
    else if (c === "}" || c === ")" || c === "]") depth--;
    else if (depth === 0 && c === "a" && text.startsWith("await", i) && !/[\w$.]/.test(text[i - 1] ?? " ") && !/[\w$]/.test(text[i + 5] ?? " ")) return true;
  }
  return false;
}

/** The entry's static graph, leaf-first: each module after everything it imports. */
export function leafFirst(entry: string): string[] {
  const order: string[] = [];
  const seen = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const s of staticImports(readFileSync(file, "utf8"))) visit(path.resolve(path.dirname(file), s));
    order.push(file);
  };
  visit(path.resolve(entry));
  return order;
}

/** A module's static dependencies, leaf-first (not itself). */
function dependenciesOf(file: string): string[] {
  return leafFirst(file).slice(0, -1);
}

interface Row {
  runtime: string;
  module: string;
  bytes: number;
  tla: boolean;
  plain: number;
  load: number;
  evaluate: number;
  fixed: number;
}

if (import.meta.main ?? process.argv[1] === fileURLToPath(import.meta.url)) {
  const entry = path.resolve(option("--entry") ?? path.join(ROOT, "dist", "src", "index.js"));
  const runs = Number(option("--runs") ?? "5");
  const runtimes = (option("--runtimes") ?? "bun,deno").split(",");
  const minMs = Number(option("--min-ms") ?? "0.5");
  const child = path.join(ROOT, "bench", "ts", "import-split.ts");
  const modules = leafFirst(entry);
  const base = path.dirname(entry);
  const rows: Row[] = [];
  for (const runtime of runtimes) {
    for (const file of modules) {
      const text = readFileSync(file, "utf8");
      const deps = dependenciesOf(file);
      const samples: Record<string, number[]> = { plain: [], load: [], evaluate: [], fixed: [] };
      for (let r = 0; r < runs; r++) {
        for (const mode of ["plain", "defer"] as const) {
          const argv = [child, file, mode, ...deps];
          const cmd = runtime === "bun" ? ["bun", ...argv] : ["deno", "run", "-A", ...argv];
          const p = spawnSync(cmd[0]!, cmd.slice(1), { cwd: ROOT, encoding: "utf8" });
          const line = (p.stdout ?? "").split("\n").find((l) => l.startsWith("{"));
          if (p.status !== 0 || line === undefined) {
            console.error(`import-split.ts: ${cmd.join(" ")} exited with ${p.status}: ${(p.stderr ?? "").slice(-1500)}`);
            process.exit(1);
          }
          const got = JSON.parse(line) as { load: number; evaluate: number; fixed: number };
          samples.fixed!.push(got.fixed);
          if (mode === "plain") samples.plain!.push(got.load);
          else {
            samples.load!.push(got.load);
            samples.evaluate!.push(got.evaluate);
          }
        }
      }
      // Each measure less what the same import of an empty module cost in the same processes.
      const fixed = median(samples.fixed!);
      const row: Row = {
        runtime,
        module: path.relative(base, file),
        bytes: text.length,
        tla: hasTopLevelAwait(text),
        plain: Math.max(0, median(samples.plain!) - fixed),
        load: Math.max(0, median(samples.load!) - fixed),
        evaluate: median(samples.evaluate!),
        fixed,
      };
      rows.push(row);
      console.log(JSON.stringify(row));
    }
  }
  for (const runtime of runtimes) {
    const mine = rows.filter((r) => r.runtime === runtime);
    console.error(`\n${runtime}: ${path.relative(ROOT, entry)}, ${mine.length} modules, medians of ${runs} (ms)`);
    console.error("| module | KB | plain | deferred: load | evaluate |\n|---|---:|---:|---:|---:|");
    for (const r of mine.filter((x) => x.plain >= minMs)) {
      console.error(`| ${r.module}${r.tla ? " (tla)" : ""} | ${(r.bytes / 1024).toFixed(1)} | ${r.plain.toFixed(2)} | ${r.load.toFixed(2)} | ${r.tla ? "–" : r.evaluate.toFixed(2)} |`);
    }
    const sum = (f: (r: Row) => number, of = mine): number => of.reduce((a, r) => a + f(r), 0);
    const deferrable = mine.filter((r) => !r.tla);
    console.error(
      `| all ${mine.length} | ${(sum((r) => r.bytes) / 1024).toFixed(0)} | ${sum((r) => r.plain).toFixed(1)} | ${sum((r) => r.load).toFixed(1)} | ${sum((r) => r.evaluate, deferrable).toFixed(1)} (of the ${deferrable.length} without a top-level await, whose plain imports sum to ${sum((r) => r.plain, deferrable).toFixed(1)}) |`,
    );
  }
}
