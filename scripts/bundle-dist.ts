/**
 * Bundles the package's compiled JavaScript in place (run by scripts/build.ts on Bun, after tsc's JavaScript pass):
 * dist/src and dist/generated become the package's entry points, at their own paths, and chunks of the code they share
 * (dist/src/chunks/), not minified: the code keeps its names, statements and lines.
 *
 * Readable code, because a runtime shows it: Bun prints the source lines around the place an uncaught error was
 * thrown, and with whitespace minified that was a line of a thousand characters of one chunk before the message;
 * with syntax minified, lines of a few hundred (declarations merged). Unminified costs no import time measurable on
 * the CPU machine (importing the package root, 15 interleaved runs each: Bun median 63 -> 69 ms, fastest 53 -> 50;
 * Deno 73 -> 69, fastest 56 -> 55; against whitespace and syntax minified: Bun fastest 46 -> 47, Deno 52 -> 53) and
 * 5.5 MB unpacked (28.5 MB). The `// @bun` pragma Bun's bundler writes on the first line is removed: with it, Bun
 * adds to every error's report a note that the file's source maps are missing (the package ships none: Deno reads
 * them at import, see scripts/build.ts).
 *
 *     bun scripts/bundle-dist.ts DIST
 *
 * Why: a runtime pays for every module it loads, not only for its bytes. On the CPU machine, 146 one-line modules
 * cost Bun and Deno 15 ms to import, and importing the package root (146 modules) took 60 ms of CPU on Bun and 114
 * on Deno unbundled against 52 and 91 bundled (medians of 11, interleaved).
 *
 * The entry points: every `exports` target of package.json, the modules cuda-ts loads by a specifier made at run time
 * (src/module-url.ts's RUN_TIME_MODULES: they are loaded by their path), the Node.js refusal (src/node.js) and the
 * command line (src/cli/cuda-ts.js). Every module any two of them share is in one chunk only, so a class is one class
 * whichever entry point a script imports it through. Those loaded by a specifier made at run time are named through
 * src/module-url.ts from the layout's root, whose path from the file that holds that module's code this script writes
 * in (the string `"../#cuda-ts-layout-root"`); it fails the build when that string is not in exactly one output.
 *
 * Bun's bundler renames a declaration whose name another module of the bundle also declares (`Foo` to `Foo2`: the
 * tables of two CUDA versions declare the same records), which would change a class's or function's `name`; this
 * script gives each its name back (restoreNames) and fails the build if it cannot.
 * The `.d.ts` declarations are left as tsc wrote them.
 *
 * @module
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { ts } from "ts-morph";
import { RUN_TIME_MODULES } from "../src/module-url.ts";

/** The part of Bun's bundler API used here (declared locally: the repository's Deno type check has no Bun types). */
interface BunBuilder {
  build(options: {
    entrypoints: string[];
    root: string;
    outdir: string;
    splitting: boolean;
    target: "bun";
    format: "esm";
    minify: { whitespace: boolean; syntax: boolean; identifiers: boolean };
    naming: { entry: string; chunk: string };
  }): Promise<{ success: boolean; logs: unknown[]; outputs: { path: string; kind: string }[] }>;
}

/** Every file below `dir` (also scripts/build.ts's walk over dist/). */
export function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) out.push(...filesUnder(path));
    else out.push(path);
  }
  return out;
}

/** The first line Bun's bundler writes (see the module's comment on why it is removed). */
const BUN_PRAGMA = "// @bun\n";

/** The mark of src/module-url.ts's path to the layout's root. */
export const LAYOUT_MARK = "#cuda-ts-layout-root";

/** The names a module declares as classes or functions. */
export function declaredNames(source: string): Set<string> {
  const names = new Set<string>();
  for (const m of source.matchAll(/\b(?:class|function\*?)\s+([A-Za-z_$][\w$]*)/g)) names.add(m[1]!);
  return names;
}

/**
 * The names a bundle declares that no input declares but an input declares without a trailing number (a bundler's
 * renaming: `Foo2` for a second `Foo`), each with the name it had.
 */
export function renamedDeclarations(inputs: ReadonlySet<string>, output: string): Map<string, string> {
  const renamed = new Map<string, string>();
  for (const n of [...declaredNames(output)].sort()) {
    if (inputs.has(n)) continue;
    const was = originalName(inputs, n);
    if (was !== undefined) renamed.set(n, was);
  }
  return renamed;
}

/** The name `n` had before the bundler added a number to it: the longest such prefix an input declares. */
function originalName(inputs: ReadonlySet<string>, n: string): string | undefined {
  const digits = /\d+$/.exec(n)?.[0].length ?? 0;
  for (let k = 1; k <= digits; k++) {
    const p = n.slice(0, -k);
    if (inputs.has(p)) return p;
  }
  return undefined;
}

/**
 * Gives renamed declarations their own names back (`name` of a class or function is what a stack frame, `console.log`
 * and `constructor.name` show). `renamed` maps the bundle's name to the original. Where the original name is free in
 * the file (no identifier of the file has it: the bundler renamed for another file's sake), every identifier of the
 * declaration is renamed back, the file's export names kept (`export{Foo as Foo2}`); that costs nothing at run time.
 * Otherwise a class gets a static block that sets its `name`, a function (hoisted) a `name` set before the module's
 * first statement.
 */
export function restoreNames(source: string, renamed: ReadonlyMap<string, string>): { text: string; inPlace: number; set: number } {
  const file = ts.createSourceFile("chunk.js", source, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
  const identifiers = new Map<string, ts.Identifier[]>();
  const visit = (node: ts.Node): void => {
    if (ts.isIdentifier(node) && !isNameOnly(node)) {
      const list = identifiers.get(node.text);
      if (list === undefined) identifiers.set(node.text, [node]);
      else list.push(node);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  const edits: { start: number; end: number; text: string }[] = [];
  const classes: { now: string; was: string }[] = [];
  const functions: string[] = [];
  let inPlace = 0;
  const claimed = new Set<string>(); // names given back in place in this file: a second declaration of one keeps its new name
  for (const [now, was] of renamed) {
    if (!identifiers.has(was) && !claimed.has(was)) {
      claimed.add(was);
      inPlace++;
      for (const id of identifiers.get(now) ?? []) {
        const parent = id.parent;
        let text = was;
        if (ts.isExportSpecifier(parent) && parent.propertyName === undefined) text = `${was} as ${now}`;
        else if (ts.isExportSpecifier(parent) && parent.name === id) text = now; // `export{x as Foo2}`: the exported name stays
        else if (ts.isShorthandPropertyAssignment(parent)) text = `${now}:${was}`;
        edits.push({ start: id.getStart(file), end: id.getEnd(), text });
      }
    } else if (new RegExp(`\\bclass ${now.replace(/\$/g, "\\$")}\\b`).test(source)) classes.push({ now, was });
    else functions.push(`Object.defineProperty(${now},"name",{value:${JSON.stringify(was)}});`);
  }
  let text = source;
  for (const e of edits.sort((a, b) => b.start - a.start)) text = text.slice(0, e.start) + e.text + text.slice(e.end);
  for (const { now, was } of classes) {
    const cls = new RegExp(`\\bclass ${now.replace(/\$/g, "\\$")}((?:\\s+extends\\s+[\\w$.]+)?\\s*)\\{`, "g");
    if ((text.match(cls)?.length ?? 0) !== 1) throw new Error(`cannot restore the name of class ${now} (${was}): not one plain declaration`);
    text = text.replace(cls, (_m, ext: string) => `class ${now}${ext}{static{Object.defineProperty(this,"name",{value:${JSON.stringify(was)}})}`);
  }
  if (functions.length > 0) {
    const head = /^(\/\/ @bun[^\n]*\n)?((?:import\s*(?:[^;"']*from\s*)?"[^"]*";)*)/.exec(text)!;
    text = text.slice(0, head[0].length) + functions.join("") + text.slice(head[0].length);
  }
  return { text, inPlace, set: classes.length + functions.length };
}

/** Whether an identifier only names a property or an export/import name, not a binding of the file. */
function isNameOnly(id: ts.Identifier): boolean {
  const p = id.parent;
  if (ts.isPropertyAccessExpression(p)) return p.name === id;
  if (ts.isPropertyAssignment(p) || ts.isMethodDeclaration(p) || ts.isPropertyDeclaration(p) || ts.isGetAccessorDeclaration(p) || ts.isSetAccessorDeclaration(p)) return p.name === id;
  if (ts.isExportSpecifier(p)) return p.propertyName !== undefined && p.name === id;
  if (ts.isImportSpecifier(p)) return p.propertyName !== undefined && p.propertyName === id;
  return false;
}

/**
 * Rewrites an output that only imports names and exports them again (an entry point whose code is all in chunks,
 * such as `cuda-ts/bindings/driver`) as `export{...}from"..."` statements, in the imports' order: the runtime then
 * makes no binding of its own for each name (on the CPU machine, Bun imports the driver binding's entry of 500 names
 * 1 ms faster). Returns the source unchanged when it holds anything else.
 */
export function directReexports(source: string): string {
  const file = ts.createSourceFile("entry.js", source, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
  const imported = new Map<string, string>(); // local name -> imported name
  const imports: { spec: string; locals: string[] }[] = [];
  let exported: { local: string; name: string }[] | undefined;
  for (const st of file.statements) {
    if (ts.isImportDeclaration(st) && ts.isStringLiteral(st.moduleSpecifier) && st.importClause?.name === undefined) {
      const bindings = st.importClause?.namedBindings;
      if (bindings !== undefined && !ts.isNamedImports(bindings)) return source;
      const locals = bindings === undefined ? [] : bindings.elements.map((e) => e.name.text);
      for (const e of bindings?.elements ?? []) imported.set(e.name.text, (e.propertyName ?? e.name).text);
      imports.push({ spec: st.moduleSpecifier.text, locals });
    } else if (ts.isExportDeclaration(st) && st.moduleSpecifier === undefined && exported === undefined && st.exportClause !== undefined && ts.isNamedExports(st.exportClause) && !st.isTypeOnly) {
      exported = st.exportClause.elements.map((e) => ({ local: (e.propertyName ?? e.name).text, name: e.name.text }));
    } else return source;
  }
  if (exported === undefined || exported.some((e) => !imported.has(e.local))) return source;
  const byLocal = new Map<string, string[]>();
  for (const e of exported) byLocal.set(e.local, [...(byLocal.get(e.local) ?? []), e.name]);
  const head = /^\/\/ @bun[^\n]*\n/.exec(source)?.[0] ?? "";
  let out = head;
  for (const { spec, locals } of imports) {
    const names = locals.flatMap((l) => (byLocal.get(l) ?? []).map((n) => (imported.get(l) === n ? n : `${imported.get(l)!} as ${n}`)));
    out += names.length === 0 ? `import${JSON.stringify(spec)};` : `export{${names.join(",")}}from${JSON.stringify(spec)};`;
  }
  return out;
}

/** Rewrites the layout mark's path (`"../#cuda-ts-layout-root"`) to `toRoot`; throws unless there is exactly one. */
export function placeLayoutRoot(source: string, toRoot: string): string {
  const pattern = /(["'])((?:\.\.\/)+|\.\/)#cuda-ts-layout-root\1/g;
  const found = source.match(pattern) ?? [];
  if (found.length !== 1) throw new Error(`expected one ${LAYOUT_MARK} mark, found ${found.length}`);
  return source.replace(pattern, (_m, q: string) => `${q}${toRoot}${LAYOUT_MARK}${q}`);
}

/** The package's entry points under `dist`: package.json's exports, the modules loaded at run time, node.js, the CLI. */
export function entryPoints(root: string, dist: string): string[] {
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { exports: Record<string, { default?: string } | string> };
  const entries = new Set<string>();
  for (const target of Object.values(pkg.exports)) {
    const file = typeof target === "string" ? target : target.default;
    if (file !== undefined && file.endsWith(".js")) entries.add(resolve(root, file));
  }
  for (const path of RUN_TIME_MODULES) entries.add(join(dist, `${path}.js`));
  entries.add(join(dist, "src", "node.js"));
  entries.add(join(dist, "src", "cli", "cuda-ts.js"));
  return [...entries].sort();
}

async function bundle(dist: string): Promise<void> {
  const bun = (globalThis as { Bun?: BunBuilder }).Bun;
  if (bun === undefined) throw new Error("scripts/bundle-dist.ts runs on Bun (bun scripts/bundle-dist.ts DIST)");
  const root = resolve(dist, "..");
  const inputs = [...filesUnder(join(dist, "src")), ...filesUnder(join(dist, "generated"))].filter((f) => f.endsWith(".js"));
  const inputNames = new Set<string>();
  let before = 0;
  for (const f of inputs) {
    const text = readFileSync(f, "utf8");
    before += text.length;
    for (const n of declaredNames(text)) inputNames.add(n);
  }
  const out = join(root, ".cache", "bundle-dist");
  rmSync(out, { recursive: true, force: true });
  const built = await bun.build({
    entrypoints: entryPoints(root, dist),
    root: dist,
    outdir: out,
    splitting: true,
    target: "bun",
    format: "esm",
    minify: { whitespace: false, syntax: false, identifiers: false },
    naming: { entry: "[dir]/[name].[ext]", chunk: "src/chunks/chunk-[hash].[ext]" },
  });
  if (!built.success) throw new Error(`Bun could not bundle dist/: ${built.logs.map(String).join("; ")}`);
  const outputs = built.outputs.map((o) => o.path);
  const texts = new Map(outputs.map((p) => [p, readFileSync(p, "utf8")]));
  const marked = outputs.filter((p) => texts.get(p)!.includes(LAYOUT_MARK));
  if (marked.length !== 1) throw new Error(`the layout root's mark (${LAYOUT_MARK}, src/module-url.ts) is in ${marked.length} outputs; expected 1`);
  const toRoot = `${relative(dirname(marked[0]!), out) || "."}/`;
  texts.set(marked[0]!, placeLayoutRoot(texts.get(marked[0]!)!, toRoot));
  let inPlace = 0;
  let set = 0;
  for (const p of outputs) {
    const names = renamedDeclarations(inputNames, texts.get(p)!);
    if (names.size === 0) continue;
    const r = restoreNames(texts.get(p)!, names);
    const left = [...renamedDeclarations(inputNames, r.text).keys()].filter((n) => !r.text.includes(`{value:${JSON.stringify(names.get(n))}}`));
    if (left.length > 0) throw new Error(`${relative(out, p)}: could not give ${left.join(", ")} their names back`);
    texts.set(p, r.text);
    inPlace += r.inPlace;
    set += r.set;
  }
  let direct = 0;
  for (const p of outputs) {
    const text = directReexports(texts.get(p)!);
    if (text !== texts.get(p)) direct++;
    texts.set(p, text);
  }
  for (const f of inputs) rmSync(f);
  let after = 0;
  for (const [p, text] of texts) {
    const target = join(dist, relative(out, p));
    mkdirSync(dirname(target), { recursive: true });
    const plain = text.startsWith(BUN_PRAGMA) ? text.slice(BUN_PRAGMA.length) : text;
    writeFileSync(target, plain);
    after += plain.length;
  }
  rmSync(out, { recursive: true, force: true });
  const mb = (n: number): string => (n / 2 ** 20).toFixed(1);
  console.log(`bundle-dist: ${inputs.length} modules -> ${outputs.length} entry points and chunks, ${mb(before)} -> ${mb(after)} MiB; renamed declarations given their names back: ${inPlace} in place, ${set} by setting name; ${direct} entry points re-export directly; layout root ${toRoot} from ${relative(out, marked[0]!)}`);
}

if (import.meta.main) {
  const dist = process.argv[2];
  if (dist === undefined) {
    console.error("usage: bun scripts/bundle-dist.ts DIST");
    process.exit(2);
  }
  try {
    await bundle(resolve(dist));
  } catch (e) {
    console.error(`bundle-dist: ${(e as Error).message}`);
    process.exit(1);
  }
}
