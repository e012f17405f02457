/**
 * Builds the package's dist/ (run by `npm run build`, and by `npm pack`/`npm publish` through `prepack`):
 *
 * - src/ and generated/ → ESM JavaScript (without comments or source maps, then bundled into the package's entry
 *   points and the chunks they share, not minified, every name and line kept: scripts/bundle-dist.ts) and `.d.ts` declarations
 *   (with their TSDoc) (tsc, tsconfig.build.json, two passes), the relative `.ts` imports rewritten to `.js`, so that
 *   Deno runs the package from node_modules (it strips no types there) and Node-style resolvers find the declarations;
 * - the generator (Deno, libclang through Deno.dlopen) → one ESM file, dist/generator/cli.js, with its one
 *   dependency (zod) inside, so that `cuda-ts generate` works from the installed package with no dependency;
 * - for each entry point, the module Node.js gets (the `node` export condition, dist/node/): it exports the same
 *   names (so that a named import links) and throws cuda-ts's one-line refusal (src/node.ts) before anything else;
 * - then checks that no declaration names Deno's or Bun's globals or Node's modules: a consumer's default tsconfig
 *   has none of them.
 *
 * Runs on Bun or Deno (`bun scripts/build.ts`); the tools (tsc, bun) come from node_modules/.bin. Exits 1 with the
 * failing step's output on any error.
 *
 * @module
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { filesUnder } from "./bundle-dist.ts";

const root = resolve(import.meta.dirname ?? new URL(".", import.meta.url).pathname, "..");
const bin = (name: string): string => join(root, "node_modules", ".bin", name);
const dist = join(root, "dist");

function step(what: string, command: string, args: string[]): void {
  const t0 = performance.now();
  const r = spawnSync(command, args, { cwd: root, encoding: "utf8" });
  if (r.error !== undefined || r.status !== 0) {
    process.stderr.write(`${r.stdout ?? ""}${r.stderr ?? ""}`);
    const why = r.error !== undefined ? r.error.message : `exit ${r.status}`;
    console.error(`build: ${what} failed (${why}): ${command} ${args.join(" ")}. Run \`npm ci\` first if the tool is missing.`);
    process.exit(1);
  }
  console.log(`build: ${what} (${((performance.now() - t0) / 1000).toFixed(1)} s)`);
}

/** Lines of the emitted declarations that would need a runtime's globals or Node's types in a consumer's project. */
function leaks(files: string[]): string[] {
  const patterns = [
    /\bDeno\.[A-Za-z]/, // the Deno namespace (types/deno-ffi.d.ts is for this repository's own tsc only)
    /\bBun\.[A-Za-z]/,
    /from "bun(:[a-z]+)?"/,
    /from "node:/,
    /\/\/\/ <reference /,
    /\bNodeJS\./,
  ];
  const found: string[] = [];
  for (const file of files) {
    const lines = readFileSync(file, "utf8").split("\n");
    lines.forEach((line, i) => {
      const code = line.replace(/^\s*(\*|\/\/|\/\*\*).*$/, "");
      if (patterns.some((p) => p.test(code))) found.push(`${relative(root, file)}:${i + 1}: ${line.trim()}`);
    });
  }
  return found;
}

rmSync(dist, { recursive: true, force: true });
// Two passes: the declarations keep every comment (the TSDoc users read in their editors), the JavaScript none:
// 1.5 MB less for the runtime to read and parse (on the CPU machine, Deno imports the package root in 165 ms
// instead of 177, medians of 5 x 3, both builds in one folder; Bun unchanged).
step("tsc: declarations of src/ and generated/ to dist/ (with their TSDoc)", bin("tsc"), ["-p", "tsconfig.build.json", "--emitDeclarationOnly"]);
// No source maps for the JavaScript (tsconfig.build.json): Deno reads a module's map when its `sourceMappingURL` names one, which made
// importing the package root 18 ms slower (145 ms instead of 127 on the CPU machine, medians of 7). A stack frame in
// the package names its function (the bundle keeps every name) and a column of the file's one line.
step("tsc: src/ and generated/ to dist/ (JavaScript without comments or source maps)", bin("tsc"), [
  "-p",
  "tsconfig.build.json",
  "--declaration",
  "false",
  "--removeComments",
  "--noCheck", // the first pass has type-checked the same files
]);
// Bundled into the entry points and shared chunks, not minified (scripts/bundle-dist.ts says why).
step("bun: bundle the JavaScript of dist/src and dist/generated", bin("bun"), ["scripts/bundle-dist.ts", "dist"]);
step("bun build: the generator to dist/generator/cli.js", bin("bun"), [
  "build",
  "generator/cli.ts",
  "--target=node",
  "--format=esm",
  "--sourcemap=linked",
  "--outdir=dist/generator",
]);

// The modules Node.js gets: the same export names as each entry point, and the refusal.
interface ConditionalExport {
  readonly types: string;
  readonly node: string;
  readonly default: string;
}
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { exports: Record<string, ConditionalExport | string> };
mkdirSync(join(dist, "node"), { recursive: true });
for (const [subpath, target] of Object.entries(pkg.exports)) {
  if (typeof target === "string") continue;
  const names = Object.keys((await import(pathToFileURL(join(root, target.default)).href)) as object).sort();
  const expected = `./dist/node/${subpath === "." ? "index" : subpath.slice(2).replaceAll("/", "-")}.js`;
  if (target.node !== expected) {
    console.error(`build: package.json exports["${subpath}"].node is ${target.node}; it must be ${expected}.`);
    process.exit(1);
  }
  const named = names.filter((n) => n !== "default");
  const lines = [
    `// cuda-ts on Node.js: ${subpath === "." ? "cuda-ts" : `cuda-ts/${subpath.slice(2)}`} exports these names; importing it throws first.`,
    'import "../src/node.js";',
  ];
  if (named.length > 0) lines.push(`let ${named.join(", ")};`, `export { ${named.join(", ")} };`);
  if (names.includes("default")) lines.push("export default undefined;");
  writeFileSync(join(root, expected), `${lines.join("\n")}\n`);
}
console.log(`build: the Node.js refusal for ${Object.keys(pkg.exports).length - 1} entry points (dist/node/)`);

const files = filesUnder(dist);
const problems = leaks(files.filter((f) => f.endsWith(".d.ts")));
if (problems.length > 0) {
  console.error(
    `build: ${problems.length} declaration line(s) name a runtime's globals or Node's modules, which a consumer's ` +
      "default tsconfig lacks. Keep such types out of exported signatures (declare the shape locally):",
  );
  for (const p of problems.slice(0, 20)) console.error(`  ${p}`);
  process.exit(1);
}
for (const required of ["dist/src/index.js", "dist/src/index.d.ts", "dist/src/node.js", "dist/generator/cli.js"]) {
  if (!existsSync(join(root, required))) {
    console.error(`build: ${required} was not produced; check tsconfig.build.json and the entry points in package.json.`);
    process.exit(1);
  }
}
const bytes = files.reduce((n, f) => n + statSync(f).size, 0);
console.log(`build: dist/ holds ${files.length} files, ${(bytes / 2 ** 20).toFixed(1)} MiB`);
