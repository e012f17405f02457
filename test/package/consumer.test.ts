/**
 * cuda-ts as a dependency, the way users get it: `npm pack` (which builds dist/ through `prepack`), the tarball
 * installed into a scratch project in a temporary folder, and then, from that project:
 *
 * - a script importing `cuda-ts`, `cuda-ts/bindings` and `cuda-ts/pathfinder` that asks libcudart for its version
 *   and compiles NVVM IR to PTX, under Bun and under Deno (`--allow-ffi` and the permissions README.md and docs/permissions.md name), also
 *   through the `npm:cuda-ts` specifier;
 * - `tsc --noEmit` with the tsconfig.json that `tsc --init` writes (and with skipLibCheck off): no error;
 * - Node.js: cuda-ts's one-line refusal, also for a named import;
 * - `npx cuda-ts doctor` with Bun only, with Deno only and with neither on PATH, and `npx cuda-ts generate` with
 *   Bun only (it says to install Deno) and with Deno (a real generation into a fresh --out).
 *
 * The test drives every runtime itself, so it runs once: under Bun's vitest (under Deno's it is skipped, saying so).
 */
import { spawnSync, type SpawnSyncReturns } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tryFindNvidiaLibrary } from "../../src/pathfinder/index.ts";
import { isBun } from "../support/runtime.ts";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/**
 * An executable on PATH, or undefined. `bun --bun` puts a `node` that is Bun itself on PATH: a `node` (or `npm`)
 * that resolves to Bun does not count.
 */
function onPath(name: string, pathVariable = process.env.PATH ?? ""): string | undefined {
  for (const dir of pathVariable.split(path.delimiter)) {
    const p = path.join(dir, name);
    try {
      fs.accessSync(p, fs.constants.X_OK);
      if (!fs.statSync(p).isFile()) continue;
      if (name !== "bun" && /^bun(\.exe)?$/.test(path.basename(fs.realpathSync(p)))) continue;
      return p;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** A runtime's executable: the repository's node_modules/.bin first (npm ci installs both), then PATH. */
function tool(name: string): string | undefined {
  const local = path.join(ROOT, "node_modules/.bin", name);
  return fs.existsSync(local) ? fs.realpathSync(local) : onPath(name);
}

const BUN = tool("bun");
const DENO = tool("deno");
const TSC = path.join(ROOT, "node_modules/.bin/tsc");
const NPM = onPath("npm");
const NODE = onPath("node");

const missing = [
  ...(isBun ? [] : ["it drives Bun, Deno, Node and tsc itself, so it runs once, under Bun's vitest"]),
  ...(BUN === undefined ? ["no bun executable"] : []),
  ...(DENO === undefined ? ["no deno executable"] : []),
  ...(NPM === undefined || NODE === undefined ? ["no npm/node on PATH (npm packs the package)"] : []),
  ...(fs.existsSync(TSC) ? [] : ["no node_modules/.bin/tsc (run npm ci)"]),
];
const skipReason = missing.join("; ");
const cudart = tryFindNvidiaLibrary("cudart");
const libnvvm = tryFindNvidiaLibrary("nvvm");

/** The consumer's script: what works without a GPU. */
const APP = `import { LibraryError, Program, LibraryNotFoundError } from "cuda-ts";
import { Meeting } from "cuda-ts/distributed";
import { gdsStatus } from "cuda-ts/gds";
import { profile } from "cuda-ts/profiling";
import * as system from "cuda-ts/system";
import { driver, nvvm, runtime } from "cuda-ts/bindings";
import { driver as driverBinding } from "cuda-ts/bindings/driver";
import { CUuuid_st } from "cuda-ts/bindings/driver/types";
import { tryFindNvidiaLibrary } from "cuda-ts/pathfinder";

const runtimeName = "Bun" in globalThis ? "Bun" : "Deno";
let v = 0;
try {
  v = runtime.cudaRuntimeGetVersion();
  // Loaded: the pathfinder now knows where from (with --allow-ffi alone, through the system loader).
  console.log(\`\${runtimeName}: CUDA runtime \${Math.floor(v / 1000)}.\${(v % 1000) / 10} from \${tryFindNvidiaLibrary("cudart")?.path}\`);
} catch (e) {
  if (!(e instanceof LibraryNotFoundError)) throw e;
  console.log(\`\${runtimeName}: libcudart not found\`);
}
let irVersion: number[] = [];
try {
  irVersion = nvvm.nvvmIRVersion();
} catch (e) {
  if (!(e instanceof LibraryNotFoundError)) throw e;
  console.log(\`\${runtimeName}: libNVVM not found\`);
}
if (irVersion.length > 0) {
  const [major, minor, debugMajor, debugMinor] = irVersion;
  const ir = \`target triple = "nvptx64-unknown-cuda"
target datalayout = "e-p:64:64:64-i1:8:8-i8:8:8-i16:16:16-i32:32:32-i64:64:64-i128:128:128-f32:32:32-f64:64:64-v16:16:16-v32:32:32-v64:64:64-v128:128:128-n16:32:64"

define void @scale(float* %data) {
entry:
  %x = load float, float* %data, align 4
  %y = fmul float %x, 2.0
  store float %y, float* %data, align 4
  ret void
}

!nvvm.annotations = !{!0}
!0 = !{void (float*)* @scale, !"kernel", i32 1}

!nvvmir.version = !{!1}
!1 = !{i32 \${major}, i32 \${minor}, i32 \${debugMajor}, i32 \${debugMinor}}
\`;
  using program = new Program(ir, "nvvm", { arch: "sm_90" });
  const ptx = new TextDecoder().decode(program.compile("ptx").code);
  const entry = /\\.visible \\.entry (\\w+)/.exec(ptx)?.[1];
  console.log(\`\${runtimeName}: NVVM compiled \${ptx.length} bytes of PTX, entry \${entry}, \${/\\.target (\\w+)/.exec(ptx)?.[1]}\`);
  // The compile worker ships beside its module in dist/ (Program.compileAsync): the same PTX from a Worker.
  const inWorker = new TextDecoder().decode((await program.compileAsync("ptx")).code);
  console.log(\`\${runtimeName}: compileAsync \${inWorker === ptx ? "gave the same PTX" : "gave other PTX"} in a worker\`);
}
// NVML and cuFile load on first use on Bun (the package's own .js files, required), at their entry points' import on Deno.
for (const [what, use] of [["NVML", () => system.driverVersion()], ["cuFile", () => gdsStatus()]] as const) {
  try {
    use();
    console.log(\`\${runtimeName}: \${what} answered\`);
  } catch (e) {
    if (!(e instanceof LibraryNotFoundError) && !(e instanceof LibraryError)) throw e;
    console.log(\`\${runtimeName}: \${what} refused with \${e.name}\`);
  }
}
console.log(\`\${runtimeName}: LibraryNotFoundError is \${typeof LibraryNotFoundError}\`);
// The package's JavaScript is bundled with every name kept (Meeting and CUuuid_st are declared twice in the
// bundle's inputs: the bundler renames one, the build gives the name back), and an object shared by two entry
// points is one object.
console.log(\`\${runtimeName}: names \${Program.name}, \${LibraryNotFoundError.name}, \${Meeting.name}, \${CUuuid_st.name}\`);
console.log(\`\${runtimeName}: driver is \${driver === driverBinding ? "one object" : "two objects"}\`);
// profile() imports CUPTI's tables when called (a module named at run time): from the installed package, Deno asks
// no permission for it; what refuses then is CUPTI or the missing GPU, not the import.
try {
  await profile(() => 0);
  console.log(\`\${runtimeName}: profile ran\`);
} catch (e) {
  console.log(\`\${runtimeName}: profile refused with \${(e as Error).name}\`);
}
`;

/**
 * The consumer's script over its own generated tables (`cuda-ts generate --out cuda-tables`): they are added to the
 * bindings, share the package's classes, and the bindings choose them for the libraries of their version.
 */
const TABLES_APP = `import { LibraryNotFoundError, nvvm, runtime, useGeneratedTables } from "cuda-ts/bindings";
import { RecordBase } from "cuda-ts/tables-runtime";

const runtimeName = "Bun" in globalThis ? "Bun" : "Deno";
const added = await useGeneratedTables(new URL("./cuda-tables", import.meta.url).pathname);
console.log(\`\${runtimeName}: added \${added.map((t) => \`\${t.library} \${t.ctkVersion}\`).sort().join(", ")}\`);
const path = (lib: string) => added.find((t) => t.library === lib)!.path;
const userRuntime = await import(path("runtime"));
if (userRuntime.cudaDeviceProp.prototype instanceof RecordBase) console.log(\`\${runtimeName}: cudaDeviceProp extends the package's RecordBase\`);
try {
  const v = runtime.cudaRuntimeGetVersion();
  const own = runtime.table().table.functions === userRuntime.functions;
  console.log(\`\${runtimeName}: cudaRuntimeGetVersion \${v} through \${own ? "the user's" : "the package's"} runtime table\`);
} catch (e) {
  if (!(e instanceof LibraryNotFoundError)) throw e;
}
try {
  const [major, minor] = nvvm.nvvmVersion();
  const userNvvm = await import(path("nvvm"));
  const own = nvvm.table().table.functions === userNvvm.functions;
  console.log(\`\${runtimeName}: nvvmVersion \${major}.\${minor} through \${own ? "the user's" : "the package's"} nvvm table\`);
} catch (e) {
  if (!(e instanceof LibraryNotFoundError)) throw e;
}
`;

let dir = "";
let project = "";
let tarball = "";
let packOutput = "";
/** The project's `cuda-ts generate --out` folder, once the generation test made it. */
let generatedTables = "";

function run(cmd: string, args: string[], opts: { cwd?: string; env?: Record<string, string> } = {}): SpawnSyncReturns<string> & { output: string } {
  const r = spawnSync(cmd, args, {
    cwd: opts.cwd ?? project,
    encoding: "utf8",
    // npm_config_loglevel: `npm run -s` (the test scripts) hands "silent" down to the npm commands run here.
    env: { ...process.env, NO_COLOR: "1", npm_config_loglevel: "notice", ...opts.env },
    timeout: 240_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  if (r.error) throw r.error;
  return Object.assign(r, { output: `${r.stdout}${r.stderr}` });
}

/** A folder holding only links to the given executables, for a PATH that offers exactly those runtimes. */
function binFolder(name: string, executables: Record<string, string | undefined>): string {
  const bin = path.join(dir, name);
  fs.mkdirSync(bin, { recursive: true });
  for (const [n, target] of Object.entries(executables)) if (target !== undefined) fs.symlinkSync(target, path.join(bin, n));
  return bin;
}

/** PATH with node and npm (and the system's tools), plus `extra`; never the repository's node_modules/.bin. */
function pathWith(...extra: string[]): string {
  return [...extra, path.dirname(NODE!), path.dirname(NPM!), "/usr/bin", "/bin"].join(path.delimiter);
}

describe.skipIf(skipReason !== "")(`the packed package in a fresh project${skipReason ? ` (skipped: ${skipReason})` : ""}`, () => {
  beforeAll(() => {
    dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "cuda-ts-consumer-")));
    const pack = run(NPM!, ["pack", "--pack-destination", dir], {
      cwd: ROOT,
      env: { PATH: [path.join(ROOT, "node_modules/.bin"), process.env.PATH ?? ""].join(path.delimiter) },
    });
    packOutput = pack.output;
    expect(pack.status, pack.output).toBe(0);
    tarball = path.join(dir, pack.stdout.trim().split("\n").at(-1)!);
    project = path.join(dir, "app");
    fs.mkdirSync(project);
    fs.writeFileSync(path.join(project, "package.json"), JSON.stringify({ name: "consumer", version: "1.0.0", private: true, type: "module" }, null, 2));
    const install = run(NPM!, ["install", "--offline", "--no-audit", "--no-fund", tarball]);
    expect(install.status, install.output).toBe(0);
    fs.writeFileSync(path.join(project, "app.ts"), APP);
  }, 300_000);
  afterAll(() => {
    if (dir !== "") fs.rmSync(dir, { recursive: true, force: true });
  });

  it("ships dist/ (JavaScript without source maps, which Deno would read at import, and declarations), the generator's bundle and the manifest; no tests, bench, CI or fixtures", () => {
    const files = run("tar", ["-tzf", tarball], { cwd: dir }).stdout.trim().split("\n").map((f) => f.replace(/^package\//, ""));
    const top = [...new Set(files.map((f) => (f.startsWith("dist/") ? f.split("/").slice(0, 2).join("/") : f.split("/")[0])))].sort();
    expect(top).toEqual(["LICENSE", "NOTICE", "README.md", "bin", "dist/generated", "dist/generator", "dist/node", "dist/src", "docs", "headers-manifest.json", "package.json"]);
    expect(files).toEqual(expect.arrayContaining(["dist/src/index.js", "dist/src/index.d.ts", "dist/generator/cli.js"]));
    expect(files.filter((f) => (f.startsWith("dist/src/") || f.startsWith("dist/generated/")) && f.endsWith(".js.map"))).toEqual([]);
    expect(files.filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts"))).toEqual([]);
    const size = /unpacked size: ([\d.]+ [kMG]?B)/.exec(packOutput)?.[1];
    console.log(`consumer: packed ${files.length} files (${size} unpacked) into ${path.basename(tarball)}`);
  });

  it("npm publish --dry-run of the built package is clean: nothing npm would correct, nothing missing", () => {
    // prepack has built dist/ for `npm pack` above: publish it as it is.
    const r = run(NPM!, ["publish", "--dry-run", "--ignore-scripts"], { cwd: ROOT });
    expect(r.status, r.output).toBe(0);
    expect(r.output).toMatch(/^\+ cuda-ts@\d+\.\d+\.\d+/m);
    // The one warning is the login a real publish needs.
    const warnings = r.output.split("\n").filter((l) => /^npm warn/.test(l) && !/requires you to be logged in/.test(l));
    expect(warnings, r.output).toEqual([]);
    expect(r.output).toMatch(/npm notice total files: \d+/);
  });

  it.each([
    ["Bun", () => [BUN!, "app.ts"]],
    ["Deno (--allow-ffi)", () => [DENO!, "run", "--allow-ffi", "app.ts"]],
    ["Deno (--allow-ffi --allow-env --allow-read, npm:cuda-ts)", () => [DENO!, "run", "--allow-ffi", "--allow-env", "--allow-read", "app-npm-specifier.ts"]],
  ])("a script importing cuda-ts, cuda-ts/bindings and cuda-ts/pathfinder runs under %s", (name, command) => {
    const [cmd, ...args] = command();
    // The npm: specifier is Deno's own: the file exists only while Deno runs it (tsc would not resolve it).
    const npmSpecifier = path.join(project, "app-npm-specifier.ts");
    if (args.includes("app-npm-specifier.ts")) fs.writeFileSync(npmSpecifier, APP.replaceAll('from "cuda-ts', 'from "npm:cuda-ts'));
    const r = run(cmd!, args);
    fs.rmSync(npmSpecifier, { force: true });
    expect(r.status, r.output).toBe(0);
    const runtimeName = name.split(" ")[0]!;
    if (cudart !== undefined) expect(r.stdout).toMatch(new RegExp(`^${runtimeName}: CUDA runtime \\d+\\.\\d+ from /`, "m"));
    if (libnvvm !== undefined) expect(r.stdout).toMatch(new RegExp(`^${runtimeName}: NVVM compiled \\d+ bytes of PTX, entry scale, sm_90$`, "m"));
    if (libnvvm !== undefined) expect(r.stdout).toContain(`${runtimeName}: compileAsync gave the same PTX in a worker`);
    expect(r.stdout).toContain(`${runtimeName}: LibraryNotFoundError is function`);
    expect(r.stdout).toContain(`${runtimeName}: names Program, LibraryNotFoundError, Meeting, CUuuid_st`);
    expect(r.stdout).toContain(`${runtimeName}: driver is one object`);
    expect(r.stdout).toMatch(new RegExp(`${runtimeName}: profile (ran|refused with \\w+)`));
    expect(r.stdout).not.toContain("profile refused with DeferredLoadError");
    for (const what of ["NVML", "cuFile"]) expect(r.stdout).toMatch(new RegExp(`^${runtimeName}: ${what} (answered|refused with \\w+Error)$`, "m"));
    for (const line of r.stdout.trim().split("\n")) console.log(`consumer ${name}: ${line}`);
  });

  it.each([
    ["Bun", () => [BUN!, "fail.ts"]],
    ["Deno", () => [DENO!, "run", "--allow-ffi", "--allow-env", "--allow-read", "fail.ts"]],
  ])("an uncaught error from the package reads as its message and a stack under %s: no minified code, no fields, no notes", (name, command) => {
    // nvJPEG: a library the pathfinder knows, needs nothing else, and no machine here has.
    fs.writeFileSync(path.join(project, "fail.ts"), 'import { loadNvidiaLibrary } from "cuda-ts/pathfinder";\nloadNvidiaLibrary("nvjpeg");\n');
    const [cmd, ...args] = command();
    const r = run(cmd!, args);
    expect(r.status).toBe(1);
    const lines = r.stderr.split("\n");
    const at = lines.findIndex((l) => /LibraryNotFoundError: could not find library "nvjpeg"/.test(l));
    expect(at, r.stderr).toBeGreaterThanOrEqual(0);
    // Bun shows the source lines around the throw: readable ones.
    for (const l of lines.slice(0, at)) expect(l.length, l).toBeLessThan(200);
    expect(lines.slice(0, at).length).toBeLessThan(10);
    expect(r.stderr).not.toMatch(/^\s*(hint|attempts|requested|sonames|missingPermissions): /m);
    expect(r.stderr.split("set CUDA_TS_NVJPEG_PATH").length).toBeLessThanOrEqual(2);
    expect(r.stderr).not.toContain("missing sourcemaps");
    console.log(`consumer ${name}: an uncaught LibraryNotFoundError printed ${lines.length} lines, the message at line ${at + 1}`);
  });

  it("tsc --noEmit with the tsconfig.json of `tsc --init` reports no error (also with skipLibCheck off)", () => {
    const init = run(TSC, ["--init"]);
    expect(init.status, init.output).toBe(0);
    const check = run(TSC, ["--noEmit", "-p", "."]);
    expect(check.output).toBe("");
    expect(check.status).toBe(0);
    const strict = run(TSC, ["--noEmit", "-p", ".", "--skipLibCheck", "false"]);
    expect(strict.output).toBe("");
    expect(strict.status).toBe(0);
  });

  it("tsc --noEmit with the tsconfig.json of `bun init` (lib ESNext only, no DOM) reports no error from inside the package", () => {
    const bunInit = path.join(project, "bun-init");
    fs.mkdirSync(bunInit);
    fs.copyFileSync(path.join(project, "app.ts"), path.join(bunInit, "app.ts"));
    const compilerOptions = {
      lib: ["ESNext"], target: "ESNext", module: "Preserve", moduleDetection: "force", jsx: "react-jsx", allowJs: true,
      moduleResolution: "bundler", allowImportingTsExtensions: true, verbatimModuleSyntax: true, noEmit: true, strict: true,
      skipLibCheck: false, noFallthroughCasesInSwitch: true, noUncheckedIndexedAccess: true, noImplicitOverride: true,
    };
    fs.writeFileSync(path.join(bunInit, "tsconfig.json"), JSON.stringify({ compilerOptions }, null, 2));
    const r = run(TSC, ["--noEmit", "-p", "."], { cwd: bunInit });
    // app.ts itself lacks `console` and `TextDecoder` without @types/bun (bun init adds it); the package adds nothing.
    expect(r.output.split("\n").filter((l) => l.includes("cuda-ts/"))).toEqual([]);
    expect(r.output.split("\n").filter((l) => l !== "" && !/^app\.ts\(\d+,\d+\): error TS2584: Cannot find name 'console'/.test(l) && !/TextDecoder/.test(l))).toEqual([]);
  });

  it("Node.js prints cuda-ts's one-line refusal and exits 1, for a named import too", () => {
    fs.writeFileSync(path.join(project, "node-app.mjs"), 'import { runtime } from "cuda-ts/bindings";\nconsole.log(typeof runtime);\n');
    const r = run(NODE!, ["node-app.mjs"]);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe("cuda-ts needs Bun or Deno: Node.js has no FFI in the versions users run. Run with `bun` or `deno run --allow-ffi`.\n");
    expect(r.status).toBe(1);
  });

  it("npx cuda-ts doctor runs on Bun alone, on Deno alone, and says what to install with neither", () => {
    const bunOnly = run(NPM!, ["exec", "--offline", "--", "cuda-ts", "doctor"], { env: { PATH: pathWith(binFolder("bun-only", { bun: BUN })) } });
    expect(bunOnly.status, bunOnly.output).toBe(0);
    expect(bunOnly.stdout).toMatch(/^cuda-ts doctor — Bun \d/);
    expect(bunOnly.stdout).toMatch(/^ {2}cudart\s+(found|-)/m);
    const denoOnly = run(NPM!, ["exec", "--offline", "--", "cuda-ts", "doctor", "--json"], { env: { PATH: pathWith(binFolder("deno-only", { deno: DENO })) } });
    expect(denoOnly.status, denoOnly.output).toBe(0);
    expect((JSON.parse(denoOnly.stdout) as { runtime: { name: string } }).runtime.name).toBe("Deno");
    const bare = pathWith();
    if (onPath("bun", bare) === undefined && onPath("deno", bare) === undefined) {
      const neither = run(NPM!, ["exec", "--offline", "--", "cuda-ts", "doctor"], { env: { PATH: bare } });
      expect(neither.status).toBe(2);
      expect(neither.stderr).toMatch(/^cuda-ts needs Bun or Deno, and neither was found on PATH\. Install one .*npm install --save-dev bun/);
    }
    console.log(`consumer: npx cuda-ts doctor: ${bunOnly.stdout.split("\n")[0]} / ${(JSON.parse(denoOnly.stdout) as { runtime: { name: string; version: string } }).runtime.name} (--json)`);
  });

  it("npx cuda-ts generate: on Bun alone it says to install Deno; with Deno it generates into a fresh --out", () => {
    const bunOnly = run(NPM!, ["exec", "--offline", "--", "cuda-ts", "generate", "--out", path.join(dir, "gen-bun")], { env: { PATH: pathWith(binFolder("bun-only-generate", { bun: BUN })) } });
    expect(bunOnly.status).toBe(2);
    expect(bunOnly.stderr).toMatch(/^cuda-ts generate runs on Deno .*npm install --save-dev deno/);
    expect(fs.existsSync(path.join(dir, "gen-bun"))).toBe(false);

    const bad = run(NPM!, ["exec", "--offline", "--", "cuda-ts", "generate", "--out", tarball], { env: { PATH: pathWith(binFolder("deno-generate", { deno: DENO })) } });
    expect(bad.status, bad.output).toBe(2);
    expect(bad.stderr.trim()).toBe(`generator: --out ${tarball}: ${tarball} is a file, not a folder. Pass a folder (it is created when missing).`);

    // A generation needs libclang and CUDA headers; the CI machine has both (part of CUDA 13.0's headers). The output
    // goes into the project, as a user keeps it, so that its imports of `cuda-ts/tables-runtime` resolve.
    const headers = "/usr/local/cuda/include/cuda_runtime_api.h";
    if (!fs.existsSync(headers)) return;
    const out = path.join(project, "cuda-tables");
    const r = run(NPM!, ["exec", "--offline", "--", "cuda-ts", "generate", "--cuda-home", "/usr/local/cuda", "--out", out], {
      env: { PATH: pathWith(path.join(dir, "deno-generate")) },
    });
    if (r.status === 2 && /libclang was not found/.test(r.stderr)) return;
    expect(r.status, r.output).toBe(0);
    generatedTables = out;
    const version = fs.readdirSync(out).find((d) => /^cuda-\d+\.\d+$/.test(d))!;
    const folders = fs.readdirSync(path.join(out, version));
    expect(folders.length).toBeGreaterThan(1);
    for (const f of folders) if (f !== "report.json") expect(fs.readdirSync(path.join(out, version, f)).length, `${f} is empty`).toBeGreaterThan(0);
    // Every package module the output imports is the package's tables-runtime entry, by name.
    const specifiers = new Set<string>();
    for (const f of folders.filter((f) => f !== "report.json")) {
      for (const file of fs.readdirSync(path.join(out, version, f))) {
        for (const m of fs.readFileSync(path.join(out, version, f, file), "utf8").matchAll(/from "([^".][^"]*)"/g)) specifiers.add(m[1]!);
      }
    }
    expect([...specifiers]).toEqual(["cuda-ts/tables-runtime"]);
    console.log(`consumer: npx cuda-ts generate --cuda-home /usr/local/cuda --out DIR: ${r.stdout.trim().split("\n").at(-2)}`);
  });
  it.each([
    ["Bun", () => [BUN!, "tables.ts"]],
    ["Deno (--allow-ffi --allow-read --allow-env)", () => [DENO!, "run", "--allow-ffi", "--allow-read", "--allow-env", "tables.ts"]],
  ])("tables generated from the installed package load into its bindings and answer calls under %s", (name, command) => {
    if (generatedTables === "") return; // no libclang or headers here: the generation above said so
    fs.writeFileSync(path.join(project, "tables.ts"), TABLES_APP);
    const [cmd, ...args] = command();
    const r = run(cmd!, args);
    expect(r.status, r.output).toBe(0);
    const runtimeName = name.split(" ")[0]!;
    expect(r.stdout).toMatch(new RegExp(`^${runtimeName}: added (\\w+ 13\\.0, )*runtime 13\\.0`, "m"));
    expect(r.stdout).toContain(`${runtimeName}: cudaDeviceProp extends the package's RecordBase`);
    if (cudart !== undefined) expect(r.stdout).toMatch(new RegExp(`^${runtimeName}: cudaRuntimeGetVersion \\d+ through the user's runtime table$`, "m"));
    if (libnvvm !== undefined) expect(r.stdout).toMatch(new RegExp(`^${runtimeName}: nvvmVersion \\d+\\.\\d+ through the user's nvvm table$`, "m"));
    for (const line of r.stdout.trim().split("\n")) console.log(`consumer tables ${name}: ${line}`);
  });
});
