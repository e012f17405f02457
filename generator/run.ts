/**
 * The generator's work, as a function: find the headers, check them against the manifest, parse, emit, and either
 * write generated/cuda-X.Y atomically or compare with what is there (--check).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import process from "node:process";
import { Clang } from "./libclang/api.ts";
import { findLibclang } from "./libclang/find.ts";
import { applyTwinOverrides, collectLibrary } from "./parse/collect.ts";
import { UNDECIDED_POINTER } from "./parse/roles.ts";
import { librariesFor, libraryFiles, loadManifest, type Manifest, releaseFolder, versionEntry } from "./manifest.ts";
import { checkSeal, emitLibrary, recordedHeaders } from "./emit/library.ts";
import { setSourceRoot } from "./emit/common.ts";
import { formatReport, type LibraryReport, reportFor } from "./report.ts";
import { sha256Hex } from "./hash.ts";
import type { IrLibrary } from "./ir.ts";

/** Options of one run (the CLI's flags). */
export interface RunOptions {
  manifest: string;
  /** Explicit include directories, searched first, in order. */
  includes: string[];
  /** A toolkit root; its include/ and nvvm/include are searched after `includes`. */
  cudaHome: string | undefined;
  /** The output root (generated/); the CTK's folder cuda-X.Y goes inside. */
  out: string;
  ctkVersion: string | undefined;
  libraries: string[];
  check: boolean;
  emitIr: string | undefined;
  recordHashes: boolean;
  /**
   * A folder of toolkits, one per CTK version: DIR/X.Y/include (and DIR/X.Y/nvvm/include), as
   * scripts/fetch-cuda12.sh and docs/contributing.md's set-up leave them in .cache/ctk. With it, the run covers every CTK
   * version of the manifest (or the one --ctk-version names): each version generated from its folder's headers,
   * or, where they are absent, its committed output checked against the manifest's sha256 and the seals.
   */
  toolkits?: string | undefined;
  /** Leave out the table of each version's libraries (what `--check` in `npm test` prints when all is well). */
  quiet?: boolean;
  log: (line: string) => void;
}

/** A problem the user must fix; the CLI prints the message and exits non-zero. */
export class GeneratorError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "GeneratorError";
  }
}

function findHeader(dirs: string[], rel: string): string | undefined {
  for (const d of dirs) {
    const p = join(d, rel);
    if (existsSync(p) && statSync(p).isFile()) return p;
  }
  return undefined;
}

/** The include directories of a run. */
export function includeDirectories(opts: Pick<RunOptions, "includes" | "cudaHome">): string[] {
  const dirs: string[] = [];
  for (const d of opts.includes) {
    if (!existsSync(d) || !statSync(d).isDirectory()) {
      throw new GeneratorError(`--include ${d}: no such directory. Pass a directory that holds the CUDA headers.`);
    }
    dirs.push(resolve(d));
  }
  if (opts.cudaHome !== undefined) {
    for (const sub of ["include", "nvvm/include"]) {
      const p = join(opts.cudaHome, sub);
      if (existsSync(p)) dirs.push(resolve(p));
    }
  }
  return [...new Set(dirs)];
}

/**
 * The version of an axis (NCCL) the headers declare: its version header's major and minor macros
 * (NCCL_MAJOR 2, NCCL_MINOR 28 → "2.28"), or undefined when the header is not there.
 */
export function detectAxisVersion(dirs: string[], manifest: Manifest, axis: string): string | undefined {
  const spec = manifest.axes[axis];
  if (spec === undefined) return undefined;
  const file = findHeader(dirs, spec.versionHeader);
  if (!file) return undefined;
  const text = readFileSync(file, "utf8");
  const [major, minor] = spec.versionMacros.map((m) => new RegExp(`#define\\s+${m}\\s+(\\d+)`).exec(text)?.[1]);
  return major === undefined || minor === undefined ? undefined : `${Number(major)}.${Number(minor)}`;
}

/** The CTK version the headers declare (CUDA_VERSION in cuda.h: 13000 → "13.0"). */
export function detectCtkVersion(dirs: string[]): string | undefined {
  const cuda = findHeader(dirs, "cuda.h");
  if (!cuda) return undefined;
  const m = /#define\s+CUDA_VERSION\s+(\d+)/.exec(readFileSync(cuda, "utf8"));
  if (!m) return undefined;
  const v = Number(m[1]);
  return `${Math.floor(v / 1000)}.${Math.floor((v % 1000) / 10)}`;
}

interface LibraryPlan {
  name: string;
  status: "generate" | "absent";
  headers: { path: string; sha256: string }[];
  files: Map<string, string>;
}

/** The first existing path among `path` and its ancestors. */
function nearestExisting(path: string): string {
  let p = resolve(path);
  while (!existsSync(p) && dirname(p) !== p) p = dirname(p);
  return p;
}

/** Throws unless `path` is a folder or can be created as one (no file in the way). */
function checkFolderOption(flag: string, path: string): void {
  const existing = nearestExisting(path);
  if (statSync(existing).isDirectory()) return;
  const what = existing === resolve(path) ? `${path} is a file` : `${existing} (on the way to ${path}) is a file`;
  throw new GeneratorError(`${flag} ${path}: ${what}, not a folder. Pass a folder (it is created when missing).`);
}

/** A temporary or backup folder a generation left behind when it was killed: `cuda-X.Y.tmp-<pid>`, `.old-<pid>` (or nccl-X.Y...). */
const LEFTOVER = /^[a-z]+-\d+\.\d+\.(tmp|old)-(\d+)$/;

/** Whether process `pid` runs (signal 0 probes without sending; EPERM: it runs as another user). */
function running(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as { code?: unknown }).code === "EPERM";
  }
}

/** Leftover folders in the output root whose process is gone (a running generation's folders are left alone). */
export function leftoverFolders(out: string): string[] {
  if (!existsSync(out) || !statSync(out).isDirectory()) return [];
  return readdirSync(out)
    .filter((name) => {
      const m = LEFTOVER.exec(name);
      return m !== null && !running(Number(m[2]));
    })
    .sort()
    .map((name) => join(out, name));
}

/**
 * This package's src/ folder (the repository's, or dist/src in the installed package: the generator's bundle is
 * dist/generator/cli.js) and the extension of its modules.
 */
function packageSource(): { dir: string; ext: ".ts" | ".js" } | undefined {
  const path = fileURLToPath(new URL("../src/", import.meta.url));
  if (!existsSync(path)) return undefined;
  const dir = realpathSync(path);
  return { dir, ext: existsSync(join(dir, "tables-runtime", "record.ts")) ? ".ts" : ".js" };
}

/**
 * How the emitted files import the package's modules (src/tables-runtime, src/ffi/types). When OUT/../src is this
 * package's src/ (the repository's generated/, or a test's output root with a link to it), through it:
 * `../../../src/...`, what generated/ commits. From the installed package (whose dist/src is bundled: its modules are
 * not files of their own), by the package's name: every emitted file imports `cuda-ts/tables-runtime`, which the
 * project that installed cuda-ts resolves. Otherwise (a clone's generator writing elsewhere) by the relative path from
 * OUT/cuda-X.Y/<lib>/ to the clone's src/ folder. Either way the output imports the very modules the bindings use
 * (one runtime, one set of classes).
 */
export function sourceRootFor(out: string): { prefix: string; ext: ".ts" | ".js"; specifier?: string } {
  const pkg = packageSource();
  if (pkg === undefined) return { prefix: "../../../src", ext: ".ts" };
  const beside = join(resolve(out), "..", "src");
  if (existsSync(beside) && realpathSync(beside) === pkg.dir) return { prefix: "../../../src", ext: pkg.ext };
  if (pkg.ext === ".js") return { prefix: "", ext: ".js", specifier: TABLES_RUNTIME_SPECIFIER };
  const from = join(resolve(out), "cuda-X.Y", "lib");
  return { prefix: relative(from, pkg.dir).split(sep).join("/"), ext: pkg.ext };
}

/** The entry point of the installed package that generated tables import (package.json's `./tables-runtime`). */
export const TABLES_RUNTIME_SPECIFIER = "cuda-ts/tables-runtime";

/**
 * Runs the generator. Returns the process exit code (the worst of the versions' with --toolkits).
 */
export function run(opts: RunOptions): number {
  if (opts.toolkits === undefined) {
    const dirs = includeDirectories(opts);
    const axis = axisOfRun(opts, dirs);
    return runVersion(opts, dirs, undefined, axis);
  }
  checkFolderOption("--out", opts.out);
  const manifest = loadManifest(opts.manifest);
  const fallback = includeDirectories(opts);
  const fallbackVersion = opts.ctkVersion === undefined ? detectCtkVersion(fallback) : undefined;
  const versions = opts.ctkVersion !== undefined ? [opts.ctkVersion] : Object.keys(manifest.ctk);
  let code = 0;
  for (const version of versions) {
    const own = includeDirectories({ includes: [], cudaHome: join(opts.toolkits, version) });
    // The version's own folder; else the --include/--cuda-home headers when they are this version's; else none.
    const dirs = [...new Set([...(own.length > 0 ? [...opts.includes.map((d) => resolve(d)), ...own] : []), ...(fallbackVersion === version ? fallback : [])])];
    if (dirs.length === 0 && !opts.check) {
      opts.log(`CTK ${version}: no headers in ${join(opts.toolkits, version)}; left as it is.`);
      continue;
    }
    code = Math.max(code, runVersion({ ...opts, ctkVersion: version }, dirs, manifest));
  }
  // The other axes (NCCL): a version is generated from the --include/--cuda-home headers when they are its
  // version (with the toolkit's headers they include), else its committed output is checked by the hashes.
  if (opts.ctkVersion !== undefined) return code;
  const newestCtk = Object.keys(manifest.ctk).sort(byVersion).at(-1);
  for (const [axis, spec] of Object.entries(manifest.axes)) {
    const here = detectAxisVersion(fallback, manifest, axis);
    for (const version of Object.keys(spec.versions)) {
      const toolkit = newestCtk === undefined ? [] : includeDirectories({ includes: [], cudaHome: join(opts.toolkits, newestCtk) });
      const dirs = here === version ? [...new Set([...fallback, ...toolkit])] : [];
      if (dirs.length === 0 && !opts.check) {
        opts.log(`${axis} ${version}: its headers are not in the --include folders; left as it is.`);
        continue;
      }
      code = Math.max(code, runVersion({ ...opts, ctkVersion: undefined }, dirs, manifest, axis, version));
    }
  }
  return code;
}

/** Orders "X.Y" versions numerically. */
function byVersion(a: string, b: string): number {
  const [x, y] = [a, b].map((v) => v.split(".").map(Number));
  return x![0]! - y![0]! || x![1]! - y![1]!;
}

/**
 * The axis a run without --toolkits generates: the one of its --library libraries when they all have it; else,
 * without --library, the axis whose version header is here when cuda.h is not (undefined: the CTK).
 */
function axisOfRun(opts: RunOptions, dirs: string[]): string | undefined {
  const manifest = loadManifest(opts.manifest);
  if (opts.libraries.length > 0) {
    const axes = new Set(opts.libraries.map((l) => manifest.libraries[l]?.axis));
    if (axes.size > 1) {
      throw new GeneratorError(`--library ${opts.libraries.join(", ")}: these libraries version apart (${[...axes].map((a) => a ?? "the CTK").join(", ")}); generate them in separate runs.`);
    }
    return [...axes][0];
  }
  if (opts.ctkVersion !== undefined || detectCtkVersion(dirs) !== undefined) return undefined;
  return Object.keys(manifest.axes).find((a) => detectAxisVersion(dirs, manifest, a) !== undefined);
}

/**
 * Runs the generator for one CTK version with these include directories; with `axis`, for one version of that
 * axis (`axisVersion`, else the one its version header declares) into generated/<axis>-X.Y.
 */
function runVersion(opts: RunOptions, dirs: string[], loaded: Manifest | undefined, axis?: string, axisVersion?: string): number {
  const t0 = performance.now();
  checkFolderOption("--out", opts.out);
  if (opts.emitIr !== undefined) checkFolderOption("--emit-ir", opts.emitIr);
  const manifest = loaded ?? loadManifest(opts.manifest);
  if (dirs.length === 0 && !(opts.check && opts.toolkits !== undefined)) {
    throw new GeneratorError(
      "no include directory: pass --cuda-home DIR or --include DIR, or set CUDA_HOME/CUDA_PATH (default /usr/local/cuda).",
    );
  }
  const version = axis !== undefined ? (axisVersion ?? detectAxisVersion(dirs, manifest, axis)) : (opts.ctkVersion ?? detectCtkVersion(dirs));
  const label = axis === undefined ? "CTK" : axis;
  if (version === undefined && axis !== undefined) {
    throw new GeneratorError(`cannot tell the ${axis} version: no ${manifest.axes[axis]!.versionHeader} with ${manifest.axes[axis]!.versionMacros.join(" and ")} in ${dirs.join(", ")}. Pass --include with its folder.`);
  }
  if (version === undefined) {
    throw new GeneratorError(
      `cannot tell the CTK version: no cuda.h with CUDA_VERSION in ${dirs.join(", ")}. Pass --ctk-version X.Y.`,
    );
  }
  if (opts.recordHashes) return recordHashes(opts, manifest, dirs, version, axis);
  if (axis !== undefined && !versionEntry(manifest, version, axis)) {
    throw new GeneratorError(`${opts.manifest} has no entry for ${axis} ${version}. Run the generator with --record-hashes and --library of that axis with its headers to add it.`);
  }
  if (!manifest.ctk[version] && axis === undefined) {
    throw new GeneratorError(
      `${opts.manifest} has no entry for CTK ${version}. Run the generator with --record-hashes (\`npm run generate -- ` +
        "--record-hashes`, or `cuda-ts generate --record-hashes --manifest FILE` with a copy of the manifest) with that " +
        "toolkit's headers to add it.",
    );
  }
  const known = librariesFor(manifest, version, axis);
  for (const l of opts.libraries) {
    if (!(l in manifest.libraries)) {
      throw new GeneratorError(`unknown library "${l}"; the manifest has ${Object.keys(manifest.libraries).join(", ")}.`);
    }
    if (!known.includes(l)) throw new GeneratorError(`library "${l}" has no headers listed for ${label} ${version} in the manifest.`);
  }
  const wanted = opts.libraries.length > 0 ? opts.libraries : known;
  const entry = versionEntry(manifest, version, axis)!;

  // Which libraries can be generated here: every header present and equal to the manifest's hash.
  const plans: LibraryPlan[] = [];
  for (const name of known) {
    const spec = manifest.libraries[name]!;
    const files = libraryFiles(spec);
    const headers = files.map((f) => ({ path: f, sha256: entry.headers[f]! }));
    const found = files.map((f) => [f, findHeader(dirs, f)] as const);
    const present = found.filter(([, p]) => p !== undefined);
    let status: LibraryPlan["status"] = "generate";
    if (present.length < files.length || !wanted.includes(name)) {
      if (opts.libraries.includes(name)) {
        const missing = found.filter(([, p]) => p === undefined).map(([f]) => f);
        throw new GeneratorError(
          `library ${name}: header ${missing.join(", ")} not found in ${dirs.join(", ")}. Pass --include DIR (or ` +
            `--cuda-home DIR) with the folder that holds it, or leave out --library ${name}.`,
        );
      }
      if (present.length > 0 && present.length < files.length && wanted.includes(name)) {
        const missing = found.filter(([, p]) => p === undefined).map(([f]) => f);
        opts.log(`note: ${name}: ${missing.join(", ")} not found (only part of its headers is here); checked against the manifest instead.`);
      }
      status = "absent";
    } else {
      for (const [f, p] of found) {
        const sum = sha256Hex(readFileSync(p!));
        if (sum !== entry.headers[f]) {
          throw new GeneratorError(
            `${p} (sha256 ${sum}) differs from the manifest's ${label} ${version} entry (${entry.headers[f]}). If the toolkit ` +
              "was updated, run `npm run generate -- --record-hashes` and regenerate; otherwise point --include/--cuda-home at the right headers.",
          );
        }
      }
    }
    plans.push({ name, status, headers, files: new Map() });
  }
  const toGenerate = plans.filter((p) => p.status === "generate");
  if (toGenerate.length === 0 && !opts.check) {
    throw new GeneratorError(`none of the manifest's headers for ${label} ${version} are in ${dirs.join(", ")}; nothing to generate.`);
  }

  // Parse every available library, then emit (emitters need every library's names).
  const location = findLibclang();
  let clang: Clang;
  try {
    clang = new Clang(location);
  } catch (e) {
    throw new GeneratorError(
      `libclang at ${location.path} (found via ${location.foundVia}) could not be loaded: ${String((e as Error).message ?? e).split("\n")[0]}. ` +
        "Set LIBCLANG_PATH to libclang's shared library (such as /usr/lib/llvm-19/lib/libclang-19.so.1), or unset it.",
    );
  }
  const index = clang.createIndex();
  const owners = new Map<string, string>();
  // A library of another axis (NCCL) owns its own headers only: the CTK types it uses (cudaStream_t) are emitted
  // as what they are (a handle branded by its struct, as the runtime's), so its output needs no CTK output.
  for (const [n, l] of Object.entries(manifest.libraries)) {
    if (l.axis !== axis) continue;
    for (const h of [...l.headers, ...l.owns]) if (!owners.has(h)) owners.set(h, n);
  }
  const irs: IrLibrary[] = [];
  try {
    for (const plan of toGenerate) {
      const ir = collectLibrary({
        clang,
        index,
        library: plan.name,
        spec: manifest.libraries[plan.name]!,
        includeDirs: dirs,
        resourceDir: location.resourceDir,
        owners,
        ctkVersion: version,
        headers: plan.headers,
      });
      irs.push(ir);
    }
  } finally {
    clang.disposeIndex(index);
    clang.close();
  }
  for (const ir of irs) {
    const spec = manifest.libraries[ir.library]!;
    const twin = spec.twin === undefined ? undefined : irs.find((x) => x.library === spec.twin);
    if (twin) {
      applyTwinOverrides(ir, spec, twin, manifest.libraries[twin.library]!);
      applyTwinOverrides(twin, manifest.libraries[twin.library]!, ir, spec);
    }
  }
  for (const ir of irs) {
    const missing = Object.values(ir.imports).filter((lib) => !irs.some((x) => x.library === lib));
    if (missing.length > 0) {
      const plan = plans.find((p) => p.name === ir.library)!;
      plan.status = "absent";
      opts.log(`note: ${ir.library} uses types of ${[...new Set(missing)].join(", ")}, whose headers are not here; checked against the manifest instead.`);
    }
  }
  for (const ir of irs) for (const n of ir.notes) if (n.startsWith("MISSING ")) opts.log(`warning: ${n.slice(8)}`);
  // A library that decides its pointers refuses a pointer parameter nothing decided, naming each.
  for (const ir of irs) {
    if (!manifest.libraries[ir.library]!.decidePointers) continue;
    const undecided = ir.functions.flatMap((f) => f.params.filter((_, i) => f.roles[i]!.rule === UNDECIDED_POINTER).map((p) => `${f.name}(${p.name}: ${p.type.spelling})`));
    if (undecided.length > 0) {
      throw new GeneratorError(
        `${ir.library} (${label} ${version}): ${undecided.length} pointer parameter${undecided.length === 1 ? "" : "s"} that neither the headers' documentation nor a ` +
          `rule or override of the manifest decides:\n  ${undecided.join("\n  ")}\nAdd a pointerRules entry (or a pointerRoles override) for ${ir.library} in ${opts.manifest}.`,
      );
    }
  }
  const generated = irs.filter((ir) => plans.find((p) => p.name === ir.library)!.status === "generate");
  const src = sourceRootFor(opts.out);
  setSourceRoot(src.prefix, src.ext, src.specifier);
  for (const ir of generated) {
    plans.find((p) => p.name === ir.library)!.files = emitLibrary(ir, manifest.libraries[ir.library]!, irs);
  }
  if (opts.emitIr) {
    mkdirSync(opts.emitIr, { recursive: true });
    for (const ir of irs) writeFileSync(join(opts.emitIr, `${ir.library}.json`), JSON.stringify(ir, null, 1) + "\n");
  }

  const outDir = join(opts.out, releaseFolder(version, axis));
  const oldReport = readReport(outDir);
  const reports: { report: LibraryReport; status: string }[] = [];
  const newReport: LibraryReport[] = [];
  for (const plan of plans) {
    const ir = generated.find((x) => x.library === plan.name);
    if (ir) {
      const r = reportFor(ir);
      newReport.push(r);
      reports.push({ report: r, status: "generated" });
    } else {
      const old = oldReport.find((r) => r.library === plan.name);
      if (old) {
        newReport.push(old);
        reports.push({ report: old, status: "headers absent: checked against the manifest's sha256" });
      }
    }
  }
  const reportText = JSON.stringify({ ctkVersion: version, libraries: newReport }, null, 1) + "\n";
  if (opts.quiet !== true) opts.log(formatReport(reports));

  const code = opts.check
    ? check(outDir, plans, reportText, opts.log, leftoverFolders(opts.out))
    : write(outDir, plans, reportText, opts.log, opts.out);
  opts.log(`${opts.check ? "checked" : "generated"} ${label} ${version} in ${((performance.now() - t0) / 1000).toFixed(2)} s (libclang ${location.path} via ${location.foundVia}).`);
  return code;
}

function readReport(outDir: string): LibraryReport[] {
  const p = join(outDir, "report.json");
  if (!existsSync(p)) return [];
  try {
    return (JSON.parse(readFileSync(p, "utf8")) as { libraries: LibraryReport[] }).libraries;
  } catch {
    return [];
  }
}

function listFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).filter((f) => statSync(join(dir, f)).isFile()).sort();
}

/** Compares what would be written with what is there. */
function check(outDir: string, plans: LibraryPlan[], reportText: string, log: (l: string) => void, leftovers: string[]): number {
  const problems: string[] = leftovers.map((p) => `${p}: left behind by a generation that did not finish; a generation removes it (or delete it)`);
  for (const plan of plans) {
    const dir = join(outDir, plan.name);
    const have = listFiles(dir);
    if (plan.status === "generate") {
      const want = [...plan.files.keys()].sort();
      for (const f of want) {
        const p = join(dir, f);
        if (!existsSync(p)) problems.push(`${p}: missing`);
        else if (readFileSync(p, "utf8") !== plan.files.get(f)) problems.push(`${p}: differs from a fresh generation`);
      }
      for (const f of have) if (!want.includes(f)) problems.push(`${join(dir, f)}: not produced by the generator`);
    } else {
      if (have.length === 0) problems.push(`${dir}: missing (and its headers are not here to generate it)`);
      for (const f of have) {
        const p = join(dir, f);
        const text = readFileSync(p, "utf8");
        const seal = checkSeal(text);
        if (seal) problems.push(`${p}: ${seal}`);
        const rec = recordedHeaders(text);
        for (const h of plan.headers) {
          if (rec.get(h.path) !== h.sha256) problems.push(`${p}: was generated from ${h.path} ${rec.get(h.path) ?? "(unknown)"}, the manifest says ${h.sha256}`);
        }
      }
    }
  }
  const reportPath = join(outDir, "report.json");
  if (!existsSync(reportPath) || readFileSync(reportPath, "utf8") !== reportText) problems.push(`${reportPath}: differs from a fresh generation`);
  if (problems.length > 0) {
    log(`generated code is out of date (${problems.length} problem${problems.length > 1 ? "s" : ""}):`);
    for (const p of problems.slice(0, 50)) log(`  - ${p}`);
    log("Run `npm run generate` and commit the result.");
    return 1;
  }
  log(`generated/ matches: ${plans.filter((p) => p.status === "generate").length} libraries regenerated and compared, ${plans.filter((p) => p.status === "absent").length} checked against the manifest's sha256 (headers absent).`);
  return 0;
}

/** Writes the CTK's folder atomically: a complete new tree in a temporary folder, then swapped into place. */
function write(outDir: string, plans: LibraryPlan[], reportText: string, log: (l: string) => void, out: string): number {
  const parent = dirname(outDir);
  mkdirSync(parent, { recursive: true });
  for (const leftover of leftoverFolders(out)) {
    rmSync(leftover, { recursive: true, force: true });
    log(`removed ${leftover} (left behind by a generation that did not finish)`);
  }
  const tmp = `${outDir}.tmp-${process.pid}`;
  const backup = `${outDir}.old-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  try {
    for (const plan of plans) {
      const dst = join(tmp, plan.name);
      // A library with nothing to write (its headers absent, no earlier output) gets no empty folder.
      const files: [string, string | Uint8Array][] =
        plan.status === "generate"
          ? [...plan.files]
          : listFiles(join(outDir, plan.name)).map((f) => [f, readFileSync(join(outDir, plan.name, f))]);
      if (files.length === 0) continue;
      mkdirSync(dst, { recursive: true });
      for (const [f, content] of files) writeFileSync(join(dst, f), content);
    }
    writeFileSync(join(tmp, "report.json"), reportText);
  } catch (e) {
    rmSync(tmp, { recursive: true, force: true });
    throw e;
  }
  if (existsSync(outDir)) renameSync(outDir, backup);
  renameSync(tmp, outDir);
  rmSync(backup, { recursive: true, force: true });
  log(`wrote ${outDir}`);
  return 0;
}

function recordHashes(opts: RunOptions, manifest: Manifest, dirs: string[], version: string, axis?: string): number {
  const headers: Record<string, string> = {};
  const missing: string[] = [];
  for (const spec of Object.values(manifest.libraries)) {
    if (spec.axis !== axis) continue;
    for (const f of libraryFiles(spec)) {
      const p = findHeader(dirs, f);
      if (p) headers[f] = sha256Hex(readFileSync(p));
      else missing.push(f);
    }
  }
  const raw = JSON.parse(readFileSync(opts.manifest, "utf8")) as { ctk: Record<string, unknown>; axes?: Record<string, { versions: Record<string, unknown> }> };
  const versions = axis === undefined ? raw.ctk : raw.axes![axis]!.versions;
  const previous = (versions[version] as { headers?: Record<string, string> } | undefined)?.headers ?? {};
  const sorted = Object.fromEntries(
    Object.entries({ ...versions, [version]: { headers: Object.fromEntries(Object.entries({ ...previous, ...headers }).sort(([a], [b]) => (a < b ? -1 : 1))) } }).sort(([a], [b]) => byVersion(a, b)),
  );
  if (axis === undefined) raw.ctk = sorted;
  else raw.axes![axis]!.versions = sorted;
  writeFileSync(opts.manifest, JSON.stringify(raw, null, 2) + "\n");
  loadManifest(opts.manifest);
  opts.log(`recorded ${Object.keys(headers).length} header hashes for ${axis ?? "CTK"} ${version} in ${opts.manifest}${missing.length ? `; not found here (kept as they were): ${missing.join(", ")}` : ""}.`);
  return 0;
}
