#!/usr/bin/env node
// @ts-check
/**
 * The package's `cuda-ts` command (`npx cuda-ts doctor`, `bunx cuda-ts doctor`, `deno run -A npm:cuda-ts doctor`).
 * Plain JavaScript, so that whichever runtime starts it (Node through npx, Bun, Deno) can run it; it only picks the
 * runtime and starts src/cli/cuda-ts.ts (from the repository) or dist/src/cli/cuda-ts.js (from the package):
 *
 * - under Bun or Deno: runs the command in this process, except `generate` under Bun, which needs Deno (the
 *   generator drives libclang through Deno's FFI) and is started on Deno when one is on PATH;
 * - under Node.js (which has no FFI): starts Bun, else Deno, found on PATH (npx puts the project's
 *   node_modules/.bin there, so `npm install --save-dev bun` or `deno` is enough), with the Deno permissions each
 *   command needs;
 * - when no runtime can do the job: one line saying what to install, exit status 2.
 */
import { spawnSync } from "node:child_process";
import { accessSync, constants, existsSync, statSync } from "node:fs";
import { delimiter, dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const fromSource = join(here, "..", "src", "cli", "cuda-ts.ts");
const fromPackage = join(here, "..", "dist", "src", "cli", "cuda-ts.js");
/** The repository runs its sources (always current); the installed package, which has no src/, its dist/. */
function cliPath() {
  return existsSync(fromSource) ? fromSource : fromPackage;
}

/**
 * The Deno permissions of each command (docs/permissions.md): what this launcher passes when it starts Deno,
 * and what it checks for when Deno started it. A command not listed (help, or an unknown one) only reads the package.
 * @type {Readonly<Record<string, readonly string[]>>}
 */
const DENO_PERMISSIONS = {
  doctor: ["--allow-ffi", "--allow-env", "--allow-read", "--allow-sys"],
  generate: ["--allow-read", "--allow-write", "--allow-env", "--allow-ffi", "--allow-run"],
  // The launcher's own needs (the store listens, ranks are started) and what its ranks inherit (FFI for CUDA).
  run: ["--allow-read", "--allow-env", "--allow-run", "--allow-net", "--allow-ffi", "--allow-sys"],
};

const NEEDS_A_RUNTIME =
  "cuda-ts needs Bun or Deno, and neither was found on PATH. Install one in your project " +
  "(`npm install --save-dev bun`, or `npm install --save-dev deno`; or see https://bun.sh, https://deno.com) and run again.";
const GENERATE_NEEDS_DENO =
  "cuda-ts generate runs on Deno (it drives libclang through Deno's FFI), and no Deno was found on PATH. Install it " +
  "(`npm install --save-dev deno`, or see https://deno.com) and run again.";

/**
 * @typedef {{ args: string[], exit(code: number): never,
 *   permissions: { querySync(descriptor: { name: string }): { state: string } } }} DenoLike
 */
/** @type {{ Bun?: unknown, Deno?: DenoLike }} */
const host = /** @type {never} */ (globalThis);
const runtime = host.Bun !== undefined ? "bun" : host.Deno !== undefined ? "deno" : "node";
const args = host.Deno !== undefined ? host.Deno.args : process.argv.slice(2);
const command = args[0];

/**
 * The Deno flags this command needs, from {@link DENO_PERMISSIONS}; only reading the package for the others.
 * @returns {readonly string[]}
 */
function denoPermissionsOf() {
  const listed = command !== undefined && Object.prototype.hasOwnProperty.call(DENO_PERMISSIONS, command) ? DENO_PERMISSIONS[command] : undefined;
  return listed ?? ["--allow-read"];
}

/**
 * Under Deno: the flags this command needs that were not granted (queried, never prompted for).
 * @param {DenoLike} deno
 * @returns {string[]}
 */
function missingDenoPermissions(deno) {
  return denoPermissionsOf().filter((flag) => deno.permissions.querySync({ name: flag.slice("--allow-".length) }).state !== "granted");
}

/**
 * An executable named `name` on PATH, or undefined.
 * @param {string} name
 * @returns {string | undefined}
 */
function onPath(name) {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (dir === "") continue;
    const path = join(dir, name);
    try {
      if (!statSync(path).isFile()) continue;
      accessSync(path, constants.X_OK);
      return path;
    } catch {
      // not there, or not executable
    }
  }
  return undefined;
}

/**
 * Runs the CLI under another runtime, passing the terminal through; returns its exit status.
 * @param {"bun" | "deno"} which
 * @param {string} executable
 * @returns {number}
 */
function spawnOn(which, executable) {
  const permissions = denoPermissionsOf();
  const runtimeArgs = which === "bun" ? [cliPath(), ...args] : ["run", "--quiet", ...permissions, cliPath(), ...args];
  const r = spawnSync(executable, runtimeArgs, { stdio: "inherit" });
  if (r.error !== undefined) {
    console.error(`cuda-ts: could not start ${executable}: ${r.error.message}`);
    return 2;
  }
  return r.status ?? 1;
}

/** @returns {Promise<number>} */
async function start() {
  if (host.Deno !== undefined) {
    const missing = missingDenoPermissions(host.Deno);
    if (missing.length > 0) {
      console.error(
        `cuda-ts${command === undefined ? "" : ` ${command}`} on Deno needs ${denoPermissionsOf().join(" ")} ` +
          `(not granted here: ${missing.join(" ")}). Run it again with them, or with -A: deno run -A npm:cuda-ts ${command ?? ""}`.trimEnd() + ".",
      );
      return 2;
    }
  }
  if (runtime === "deno" || (runtime === "bun" && command !== "generate")) {
    /** @type {{ main(args: readonly string[]): Promise<number> }} */
    const module = await import(pathToFileURL(cliPath()).href);
    return await module.main(args);
  }
  if (runtime === "bun") {
    // generate: only Deno can run the generator.
    const denoPath = onPath("deno");
    if (denoPath !== undefined) return spawnOn("deno", denoPath);
    console.error(GENERATE_NEEDS_DENO);
    return 2;
  }
  // Node.js: no FFI here; start Bun or Deno.
  const denoPath = onPath("deno");
  if (command === "generate") {
    if (denoPath !== undefined) return spawnOn("deno", denoPath);
    console.error(GENERATE_NEEDS_DENO);
    return 2;
  }
  const bunPath = onPath("bun");
  if (bunPath !== undefined) return spawnOn("bun", bunPath);
  if (denoPath !== undefined) return spawnOn("deno", denoPath);
  console.error(NEEDS_A_RUNTIME);
  return 2;
}

const code = await start();
if (host.Deno !== undefined) host.Deno.exit(code);
process.exit(code);
