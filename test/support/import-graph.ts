/**
 * The import graph of src/: which files import which by value. A type-only import (`import type`, or an import
 * whose every name is marked `type`) does not load the module at run time, so it is not an edge; a dynamic
 * `import()` is not one either (it runs later, not while modules load).
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize } from "node:path";

/** Every .ts file under `dir`, as paths relative to `root`. */
export function sourceFiles(root: string, dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const e of readdirSync(join(root, d), { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith(".ts")) out.push(p);
    }
  };
  walk(dir);
  return out.sort();
}

const STATEMENT = /^\s*(import|export)\s+(type\s+)?([\w\s{},*$]*?)\s*from\s*["']([^"']+)["']|^\s*import\s*["']([^"']+)["']/gm;

/** The relative modules `text` (the file at `file`) imports by value, as paths relative to the same root. */
export function valueImports(file: string, text: string): string[] {
  const out = new Set<string>();
  for (const m of text.matchAll(STATEMENT)) {
    const spec = m[4] ?? m[5];
    if (spec === undefined || !spec.startsWith(".")) continue;
    if (m[2] !== undefined) continue; // import type / export type
    const clause = m[3] ?? "";
    const braces = /^\{([\s\S]*)\}$/.exec(clause.trim());
    if (braces !== undefined && braces !== null) {
      const names = braces[1]!.split(",").map((s) => s.trim()).filter((s) => s.length > 0);
      if (names.length > 0 && names.every((n) => n.startsWith("type "))) continue;
    }
    out.add(normalize(join(dirname(file), spec)));
  }
  return [...out];
}

/** Every file under `dir` (relative to `root`) and the files it imports by value. */
export function valueImportGraph(root: string, dir: string): Map<string, string[]> {
  return new Map(sourceFiles(root, dir).map((f) => [f, valueImports(f, readFileSync(join(root, f), "utf8"))]));
}

/** The groups of files that import each other by value, directly or through others (Tarjan's algorithm). */
export function valueImportCycles(edges: ReadonlyMap<string, readonly string[]>): string[][] {
  const files = [...edges.keys()];
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const cycles: string[][] = [];
  const visit = (v: string): void => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!edges.has(w)) continue;
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const group: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        group.push(w);
      } while (w !== v);
      if (group.length > 1 || (edges.get(v) ?? []).includes(v)) cycles.push(group.sort());
    }
  };
  for (const f of files) if (!idx.has(f)) visit(f);
  return cycles;
}

