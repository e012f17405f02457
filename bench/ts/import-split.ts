/**
 * One module's import, split into loading and evaluating (the child of bench/import-split.ts; runs on Bun or Deno):
 *
 *     bun bench/ts/import-split.ts MODULE plain|defer DEP...
 *     deno run -A bench/ts/import-split.ts MODULE plain|defer DEP...
 *
 * It imports DEP... first (MODULE's static dependencies, leaf-first, so that their cost is not counted), then MODULE
 * through a one-line module written for the purpose: `plain` imports it (`load` is the import's whole time: fetching,
 * parsing, linking and evaluating), `defer` through `import defer` (TC39's deferred module evaluation: `load` is the
 * same import without evaluating; `evaluate` is the first touch of the namespace, which evaluates it). A module that
 * waits on a top-level await is evaluated at import even when deferred (the proposal's rule), so `evaluate` is then 0.
 * Prints one JSON line: `{"mode","load","evaluate","fixed"}` (ms; `fixed`: the same import of an empty module, just before).
 *
 * Nothing here is imported statically, so that the child's own start is the runtime's.
 *
 * @module
 */
type Host = { Deno?: { args: string[]; writeTextFileSync(p: string, s: string): void; removeSync(p: string, o?: { recursive?: boolean }): void; makeTempDirSync(): string }; process?: { argv: string[]; getBuiltinModule(id: string): unknown } };
const g = globalThis as unknown as Host;
const args = g.Deno !== undefined ? g.Deno.args : g.process!.argv.slice(2);
const [target, mode, ...deps] = args;
if (target === undefined || (mode !== "plain" && mode !== "defer")) throw new Error("usage: import-split.ts MODULE plain|defer DEP...");

const url = (p: string): string => (p.startsWith("file:") ? p : `file://${p}`);
for (const d of deps) await import(url(d));

// The one-line module: written next to nothing of the package's, named after this process.
let dir: string;
let write: (p: string, s: string) => void;
let remove: (p: string) => void;
if (g.Deno !== undefined) {
  const deno = g.Deno;
  dir = deno.makeTempDirSync();
  write = (p, s) => deno.writeTextFileSync(p, s);
  remove = (p) => deno.removeSync(p, { recursive: true });
} else {
  const fs = g.process!.getBuiltinModule("node:fs") as { mkdtempSync(p: string): string; writeFileSync(p: string, s: string): void; rmSync(p: string, o: object): void };
  const os = g.process!.getBuiltinModule("node:os") as { tmpdir(): string };
  dir = fs.mkdtempSync(`${os.tmpdir()}/cuda-ts-import-split-`);
  write = (p, s) => fs.writeFileSync(p, s);
  remove = (p) => fs.rmSync(p, { recursive: true, force: true });
}
// A first import of a module of the same directory, through a wrapper of the same shape, takes the costs of a
// first import from there (several milliseconds on Bun) out of the measure.
write(`${dir}/empty.mjs`, "export const empty = 0;\n");
write(`${dir}/warm.mjs`, `import ${mode === "defer" ? "defer " : ""}* as ns from "./empty.mjs";\nexport { ns };\n`);
void ((await import(url(`${dir}/warm.mjs`))) as { ns: { empty: number } }).ns.empty;
// What the same import of an empty module costs now (`fixed`): the part of every measure that is not the module's.
write(`${dir}/empty2.mjs`, "export const empty = 0;\n");
write(`${dir}/fixed.mjs`, `import ${mode === "defer" ? "defer " : ""}* as ns from "./empty2.mjs";\nexport { ns };\n`);
const f0 = performance.now();
void ((await import(url(`${dir}/fixed.mjs`))) as { ns: { empty: number } }).ns.empty;
const fixed = performance.now() - f0;
const wrapper = `${dir}/wrapper.mjs`;
write(wrapper, `import ${mode === "defer" ? "defer " : ""}* as ns from ${JSON.stringify(url(target))};\nexport { ns };\n`);
try {
  const t0 = performance.now();
  const m = (await import(url(wrapper))) as { ns: Record<string, unknown> };
  const t1 = performance.now();
  // Reading a property evaluates a deferred namespace (Object.keys alone need not).
  void m.ns[Object.keys(m.ns)[0] ?? "x"];
  const t2 = performance.now();
  console.log(JSON.stringify({ mode, load: t1 - t0, evaluate: mode === "defer" ? t2 - t1 : 0, fixed }));
} finally {
  remove(dir);
}

export {};
