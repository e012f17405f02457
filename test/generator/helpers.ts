/**
 * Shared pieces of the generator tests: running the generator (a Deno program) as a subprocess from either
 * runtime, the fixture toolkits, temporary folders, file trees, and the real headers of this machine.
 *
 * The generator only runs on Deno; under Bun and Deno alike the tests start `node_modules/.bin/deno` with the
 * permissions the generator needs, always into temporary folders (never into the repository's generated/).
 *
 * @module
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root. */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
/** The Deno binary installed from npm. */
export const DENO = path.join(ROOT, "node_modules/.bin/deno");
/** test/fixtures/generator. */
export const FIXTURES = path.join(ROOT, "test/fixtures/generator");
/** The fixtures' manifest (libraries "fixture" and "fixture_ext", CTK versions 1.0 and 2.0). */
export const FIXTURE_MANIFEST = path.join(FIXTURES, "manifest.json");
/** The include directory of a fixture toolkit. */
export const fixtureInclude = (version: "1.0" | "2.0"): string => path.join(FIXTURES, `toolkit-${version}/include`);
/** The checked-in expected output of toolkit 1.0 (file names carry `.golden` so that no type checker reads them). */
export const GOLDEN_DIR = path.join(FIXTURES, "expected-1.0");
/** Where the real CUDA headers are on the test machines (CI has part of them). */
export const CUDA_INCLUDE = "/usr/local/cuda/include";
/** The repository's manifest and generated tree. */
export const REPO_MANIFEST = path.join(ROOT, "headers-manifest.json");
export const REPO_GENERATED = path.join(ROOT, "generated");

/** The outcome of one generator run. */
export interface GeneratorRun {
  status: number | null;
  stdout: string;
  stderr: string;
  /** stdout and stderr together, for messages. */
  output: string;
}

/** Runs generator/main.ts under Deno with the permissions it needs. */
export function runGenerator(args: string[], env: Record<string, string | undefined> = {}): GeneratorRun {
  const r = spawnSync(
    DENO,
    ["run", "--allow-read", "--allow-write", "--allow-env", "--allow-ffi", "--allow-run", path.join(ROOT, "generator/main.ts"), ...args],
    {
      cwd: ROOT,
      encoding: "utf8",
      env: { ...process.env, NO_COLOR: "1", ...env },
      timeout: 120_000,
      maxBuffer: 64 * 1024 * 1024,
    },
  );
  if (r.error) throw r.error;
  const stdout = r.stdout ?? "";
  const stderr = r.stderr ?? "";
  return { status: r.status, stdout, stderr, output: `${stdout}\n${stderr}` };
}

/** Like {@link runGenerator}, but fails (with the generator's output) unless it exits 0. */
export function runGeneratorOk(args: string[], env: Record<string, string | undefined> = {}): GeneratorRun {
  const r = runGenerator(args, env);
  if (r.status !== 0) throw new Error(`generator ${args.join(" ")} exited ${r.status}:\n${r.output}`);
  return r;
}

/**
 * The arguments that point the generator at a fixture toolkit: the fixtures' manifest, the toolkit's include
 * directory, an explicit CTK version, and a --cuda-home that does not exist (so that /usr/local/cuda stays out).
 */
export function fixtureArgs(version: "1.0" | "2.0", opts: { include?: string; manifest?: string } = {}): string[] {
  return [
    "--manifest",
    opts.manifest ?? FIXTURE_MANIFEST,
    "--include",
    opts.include ?? fixtureInclude(version),
    "--cuda-home",
    path.join(os.tmpdir(), "cuda-ts-no-such-toolkit"),
    "--ctk-version",
    version,
  ];
}

/** A fresh temporary folder (resolved through symlinks). */
export function makeTempDir(prefix = "cuda-ts-generator-"): string {
  return fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
}

/** Removes a folder tree. */
export function removeDir(dir: string | undefined): void {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
}

/**
 * A temporary folder laid out so that generated modules can be imported: `gen/` is the output root (so that
 * `gen/cuda-X.Y/<library>/records.ts` finds `../../../src/...`) and `src` links to the repository's src/.
 */
export function makeImportableOut(prefix = "cuda-ts-generator-"): { dir: string; out: string } {
  const dir = makeTempDir(prefix);
  fs.symlinkSync(path.join(ROOT, "src"), path.join(dir, "src"), "dir");
  return { dir, out: path.join(dir, "gen") };
}

/** Every file under `dir`, as sorted paths relative to it. */
export function listTree(dir: string): string[] {
  const out: string[] = [];
  const walk = (rel: string): void => {
    for (const e of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(r);
      else out.push(r);
    }
  };
  if (fs.existsSync(dir)) walk("");
  return out.sort();
}

/** A folder tree's files and their bytes (for "nothing changed" checks). */
export function snapshotTree(dir: string): Map<string, string> {
  return new Map(listTree(dir).map((f) => [f, sha256(fs.readFileSync(path.join(dir, f)))]));
}

/** sha256 hex of bytes or text. */
export function sha256(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

/** Copies a folder tree (files only), leaving out the file names in `except`. */
export function copyTree(from: string, to: string, except: string[] = []): void {
  for (const f of listTree(from)) {
    if (except.includes(f)) continue;
    const dst = path.join(to, f);
    fs.mkdirSync(path.dirname(dst), { recursive: true });
    fs.copyFileSync(path.join(from, f), dst);
  }
}

/** Reads a JSON file. */
export function readJson<T = unknown>(file: string): T {
  return JSON.parse(fs.readFileSync(file, "utf8")) as T;
}

/** The manifest's shape, as far as the tests read it. */
export interface ManifestLike {
  libraries: Record<
    string,
    { headers: string[]; owns?: string[]; auxiliary?: string[]; defines?: Record<string, string>; functionPrefixes: string[] }
  >;
  ctk: Record<string, { headers: Record<string, string> }>;
}

/** Every header file a library of a manifest lists. */
export function libraryHeaders(m: ManifestLike, lib: string): string[] {
  const l = m.libraries[lib]!;
  return [...l.headers, ...(l.owns ?? []), ...(l.auxiliary ?? [])];
}

/**
 * Whether a library's headers are all in `includeDir` with the manifest's sha256 for `version`: undefined when
 * they are, else why not (for a skip message).
 */
export function headersUnavailable(m: ManifestLike, lib: string, version: string, includeDir: string): string | undefined {
  const entry = m.ctk[version];
  if (!entry) return `the manifest has no CTK ${version}`;
  for (const h of libraryHeaders(m, lib)) {
    const p = path.join(includeDir, h);
    if (!fs.existsSync(p)) return `${h} is not in ${includeDir}`;
    const sum = sha256(fs.readFileSync(p));
    if (entry.headers[h] !== sum) return `${p} is not the CTK ${version} header the manifest hashes (sha256 ${sum.slice(0, 12)}…)`;
  }
  return undefined;
}

/** The C compiler the layout oracle uses, or undefined when there is none. */
export function findCc(): string | undefined {
  for (const cc of [process.env.CC, "cc", "gcc", "clang"]) {
    if (!cc) continue;
    const r = spawnSync(cc, ["--version"], { encoding: "utf8" });
    if (!r.error && r.status === 0) return cc;
  }
  return undefined;
}

/** Compiles a C program and runs it; returns its stdout (throws with the compiler's messages on failure). */
export function compileAndRun(cc: string, source: string, includeDirs: string[], defines: Record<string, string>, workDir: string, name: string): string {
  const src = path.join(workDir, `${name}.c`);
  const exe = path.join(workDir, name);
  fs.writeFileSync(src, source);
  const args = ["-std=gnu11", "-w", "-O0", ...includeDirs.flatMap((d) => ["-I", d]), ...Object.entries(defines).map(([k, v]) => `-D${k}=${v}`), src, "-o", exe];
  const c = spawnSync(cc, args, { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  if (c.status !== 0) throw new Error(`${cc} ${args.join(" ")} failed:\n${c.stderr}`);
  const r = spawnSync(exe, [], { encoding: "utf8", maxBuffer: 256 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`${exe} exited ${r.status}:\n${r.stderr}`);
  return r.stdout;
}

/** One generation of a fixture toolkit into a temporary folder, with its IR. */
export interface FixtureGeneration {
  /** The temporary folder (remove it with {@link removeDir}). */
  dir: string;
  /** The output root (`--out`); the files are in `out/cuda-<version>/`. */
  out: string;
  /** `out/cuda-<version>`. */
  ctkDir: string;
  /** The `--emit-ir` folder. */
  irDir: string;
  /** The generator's console output. */
  run: GeneratorRun;
}

/** Generates a fixture toolkit with --emit-ir into a fresh temporary folder laid out for importing. */
export function generateFixture(version: "1.0" | "2.0", extra: string[] = []): FixtureGeneration {
  const { dir, out } = makeImportableOut();
  const irDir = path.join(dir, "ir");
  const run = runGeneratorOk([...fixtureArgs(version), "--out", out, "--emit-ir", irDir, ...extra]);
  return { dir, out, ctkDir: path.join(out, `cuda-${version}`), irDir, run };
}
