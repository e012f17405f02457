/**
 * The host module: everything the library needs from the host process besides calling C (environment variables,
 * the file system, permissions, the platform), asked only where the runtime's permissions already allow (Deno is
 * queried, never prompted). No other file in src/ touches `node:fs`, `process.env`, `process.platform` or Deno's
 * permissions; it is not part of the FFI layer (src/ffi uses it, as the pathfinder, the bindings and core do).
 *
 * Everything here is synchronous and cheap; callers cache what they derive from it.
 *
 * @module
 */
import type * as NodeFs from "node:fs";
import type * as NodeOs from "node:os";
import type * as NodePath from "node:path";
import { UnsupportedRuntimeError } from "./ffi/no-ffi.ts";

interface DenoStat {
  readonly isFile: boolean;
  readonly isDirectory: boolean;
  readonly isSymlink: boolean;
  readonly size: number;
  readonly mtime: Date | null;
  readonly mode: number | null;
  readonly uid: number | null;
}
interface DenoPermissionsLike {
  querySync(desc: { name: string; variable?: string; path?: string }): { state: "granted" | "denied" | "prompt" };
}
interface DenoLike {
  permissions: DenoPermissionsLike;
  env: { get(name: string): string | undefined };
  build: { os: string; arch: string };
  statSync(path: string): DenoStat;
  lstatSync(path: string): DenoStat;
  readDirSync(path: string): Iterable<{ readonly name: string }>;
  realPathSync(path: string): string;
  readFileSync(path: string): Uint8Array;
}

const deno = (globalThis as unknown as { Deno?: DenoLike }).Deno;

/** The Node.js built-in modules cuda-ts uses. */
export type NodeBuiltinName = "node:buffer" | "node:child_process" | "node:crypto" | "node:fs" | "node:net" | "node:os" | "node:path";

const builtins = new Map<string, unknown>();

/**
 * A Node.js built-in module, loaded on its first use (`process.getBuiltinModule`, synchronous on Bun and Deno).
 * Importing cuda-ts loads none of them: Deno's Node.js compatibility layer costs tens of milliseconds to start
 * (its first `node:` module or its first touch of `process`), paid only by the features that need one (the program
 * cache on disk, IPC sockets, the rendezvous store, files written).
 */
export function nodeBuiltin(name: NodeBuiltinName): unknown {
  let m = builtins.get(name);
  if (m === undefined) {
    const proc = (globalThis as { process?: { getBuiltinModule?(id: string): unknown } }).process;
    m = proc?.getBuiltinModule?.(name);
    if (m === undefined) throw new UnsupportedRuntimeError(); // Bun and Deno have it

    builtins.set(name, m);
  }
  return m;
}
// Each caller types the module it asks for (a module-private `typeof import(...)`), so that no declaration the
// package exports names Node.js's types.

const fs = (): typeof NodeFs => nodeBuiltin("node:fs") as typeof NodeFs;
const nodePath = (): typeof NodePath => nodeBuiltin("node:path") as typeof NodePath;

/** The JavaScript runtime this process runs on. */
export const runtimeName: "bun" | "deno" | "other" =
  (globalThis as { Bun?: unknown }).Bun !== undefined ? "bun" : deno !== undefined ? "deno" : "other";

/**
 * Bun's own synchronous `require` for the module whose `import.meta` is `meta` (`import.meta.require`, which shares
 * the ES module registry), where that module runs natively on Bun; `undefined` on Deno and under a module runner
 * such as vitest's, whose `import.meta` has none. Pass the caller's own `import.meta`: specifiers resolve against it.
 */
export function nativeRequire(meta: ImportMeta): ((id: string) => unknown) | undefined {
  const req = (meta as unknown as { require?: (id: string) => unknown }).require;
  return runtimeName === "bun" && typeof req === "function" ? req : undefined;
}

/** The operating system, as Node.js names it ("linux", "darwin", "win32"). */
export const platform: string = deno !== undefined ? (deno.build.os === "windows" ? "win32" : deno.build.os) : process.platform;

/** The processor architecture, as Node.js names it ("x64", "arm64"). */
export const architecture: string =
  deno !== undefined ? (deno.build.arch === "x86_64" ? "x64" : deno.build.arch === "aarch64" ? "arm64" : deno.build.arch) : process.arch;

/** What `stat` (or `lstat`) says of a path; throws when it is missing. Deno's own calls on Deno (no Node.js layer). */
function statOf(path: string, follow: boolean): { isFile: boolean; isDirectory: boolean; isSymbolicLink: boolean; size: number; mtimeMs: number; mode: number; uid: number } {
  if (deno !== undefined) {
    const s = follow ? deno.statSync(path) : deno.lstatSync(path);
    return { isFile: s.isFile, isDirectory: s.isDirectory, isSymbolicLink: s.isSymlink, size: s.size, mtimeMs: s.mtime?.getTime() ?? 0, mode: s.mode ?? 0, uid: s.uid ?? -1 };
  }
  const s = follow ? fs().statSync(path) : fs().lstatSync(path);
  return { isFile: s.isFile(), isDirectory: s.isDirectory(), isSymbolicLink: s.isSymbolicLink(), size: s.size, mtimeMs: s.mtimeMs, mode: s.mode, uid: s.uid };
}

function granted(desc: { name: string; variable?: string; path?: string }): boolean {
  if (deno === undefined) return true;
  try {
    return deno.permissions.querySync(desc).state === "granted";
  } catch {
    return false;
  }
}

/** Whether reading this environment variable is allowed without a prompt. */
export function canReadEnv(name: string): boolean {
  return granted({ name: "env", variable: name });
}

/** Whether reading this path is allowed without a prompt. */
export function canReadPath(path: string): boolean {
  return granted({ name: "read", path });
}

/**
 * Reads an environment variable. Returns `undefined` when it is unset, empty, or not readable under the
 * runtime's permissions (Deno without `--allow-env`); never prompts.
 */
export function getEnv(name: string): string | undefined {
  if (!canReadEnv(name)) return undefined;
  const value = deno !== undefined ? deno.env.get(name) : process.env[name];
  return value === undefined || value === "" ? undefined : value;
}

/** The permissions that were not granted when a lookup needed them (for error messages). */
export const deniedPermissions = new Set<string>();

function readable(path: string): boolean {
  if (canReadPath(path)) return true;
  deniedPermissions.add(`--allow-read=${path}`);
  return false;
}

/** Whether `path` exists (false when it does not or may not be read). */
export function pathExists(path: string): boolean {
  if (!readable(path)) return false;
  try {
    statOf(path, true);
    return true;
  } catch {
    return false;
  }
}

/** Whether `path` is an existing directory (false when it may not be read). */
export function isDirectory(path: string): boolean {
  if (!readable(path)) return false;
  try {
    return statOf(path, true).isDirectory;
  } catch {
    return false;
  }
}

/** Whether `path` is an existing regular file, following links (false when it may not be read). */
export function isFile(path: string): boolean {
  if (!readable(path)) return false;
  try {
    return statOf(path, true).isFile;
  } catch {
    return false;
  }
}

/**
 * Whether `path` is an executable regular file. Deno's `access(X_OK)` needs `--allow-sys` (it asks for the uid);
 * without it, any execute bit in the file's mode counts, so that `--allow-read` alone finds tools such as nvcc.
 */
export function isExecutable(path: string): boolean {
  if (!isFile(path)) return false;
  if (deno !== undefined) {
    try {
      return (statOf(path, true).mode & 0o111) !== 0;
    } catch {
      return false;
    }
  }
  try {
    fs().accessSync(path, fs().constants.X_OK);
    return true;
  } catch (e) {
    if ((e as { name?: unknown }).name !== "NotCapable") return false;
    try {
      return (statOf(path, true).mode & 0o111) !== 0;
    } catch {
      return false;
    }
  }
}

/** The entries of a directory, sorted; empty when it does not exist or may not be read. */
export function listDirectory(path: string): string[] {
  if (!readable(path)) return [];
  try {
    return readDirectory(path).sort();
  } catch {
    return [];
  }
}

/** The canonical path (links resolved), or `undefined`. */
export function realPath(path: string): string | undefined {
  if (!readable(path)) return undefined;
  try {
    return deno !== undefined ? deno.realPathSync(path) : fs().realpathSync(path);
  } catch {
    return undefined;
  }
}

/** Reads a whole file, or `undefined` when it is missing or may not be read. */
export function readFileBytes(path: string): Uint8Array | undefined {
  if (!readable(path)) return undefined;
  try {
    return deno !== undefined ? deno.readFileSync(path) : new Uint8Array(fs().readFileSync(path));
  } catch {
    return undefined;
  }
}

/**
 * Whether this process may write under `path`, and read it (renaming needs both under Deno): asked of Deno's
 * permissions, never prompting; always true on Bun.
 */
export function canWritePath(path: string): boolean {
  return granted({ name: "write", path }) && granted({ name: "read", path });
}

/** What `stat` says of a path, following links, or `undefined` when it is missing or may not be read. */
export function fileInfo(path: string): { readonly isFile: boolean; readonly size: number; readonly mtimeMs: number } | undefined {
  if (!readable(path)) return undefined;
  try {
    const st = statOf(path, true);
    return { isFile: st.isFile, size: st.size, mtimeMs: st.mtimeMs };
  } catch {
    return undefined;
  }
}

/**
 * Writes `bytes` to `file` atomically: into `tmp` (created exclusively, mode `mode`, default 0600: private to the
 * user, synced to disk), then renamed over `file`; `tmp`'s directory is created first (0700 for each directory
 * made). Throws the file system's error (and leaves `tmp` for the caller to remove) when any step fails.
 */
export function writeFileAtomic(file: string, tmp: string, bytes: Uint8Array, mode = 0o600): void {
  const fs = nodeBuiltin("node:fs") as typeof NodeFs;
  fs.mkdirSync(nodePath().dirname(tmp), { recursive: true, mode: 0o700 });
  const fd = fs.openSync(tmp, "wx", mode);
  try {
    let at = 0;
    while (at < bytes.length) at += fs.writeSync(fd, bytes, at, bytes.length - at);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, file);
}

/** Removes a file; false when it could not be removed (missing, not allowed). */
export function removeFile(path: string): boolean {
  try {
    fs().unlinkSync(path);
    return true;
  } catch {
    return false;
  }
}

/** Sets a file's access and modification times to now (best effort). */
export function touchFile(path: string): void {
  try {
    const now = new Date();
    fs().utimesSync(path, now, now);
  } catch {
    // Best effort.
  }
}

/** The names in a directory, unsorted and unfiltered; throws when it cannot be listed. */
export function readDirectory(path: string): string[] {
  return deno !== undefined ? Array.from(deno.readDirSync(path), (e) => e.name) : fs().readdirSync(path);
}

/** Who owns a path and its permission bits (`lstat`: a link is described, not followed), or undefined. */
export interface PathOwnership {
  /** The owner's user id. */
  readonly uid: number;
  /** The permission bits (mode & 0o7777). */
  readonly mode: number;
  /** Whether it is a directory. */
  readonly isDirectory: boolean;
  /** Whether it is a regular file. */
  readonly isFile: boolean;
  /** Whether it is a symbolic link. */
  readonly isSymbolicLink: boolean;
}

/** The owner and mode of `path` (not following a final link), or `undefined` when it is missing or may not be read. */
export function pathOwnership(path: string, follow = false): PathOwnership | undefined {
  if (!readable(path)) return undefined;
  try {
    const st = statOf(path, follow);
    return { uid: st.uid, mode: st.mode & 0o7777, isDirectory: st.isDirectory, isFile: st.isFile, isSymbolicLink: st.isSymbolicLink };
  } catch {
    return undefined;
  }
}

/** Creates `path` and its missing parents with mode 0700 (directories that exist are left as they are). Throws on failure. */
export function makePrivateDirectory(path: string): void {
  fs().mkdirSync(path, { recursive: true, mode: 0o700 });
}

/** Creates a fresh directory of mode 0700 named `prefix` plus random characters under `parent` (default the system's temporary directory). */
export function makeTemporaryPrivateDirectory(prefix: string, parent: string = (nodeBuiltin("node:os") as typeof NodeOs).tmpdir()): string {
  const dir = fs().mkdtempSync(nodePath().join(parent, prefix));
  fs().chmodSync(dir, 0o700);
  return dir;
}

/** Sets a path's permission bits. Throws the file system's error. */
export function setMode(path: string, mode: number): void {
  fs().chmodSync(path, mode);
}

/** Removes an empty directory; false when it could not be removed. */
export function removeDirectory(path: string): boolean {
  try {
    fs().rmdirSync(path);
    return true;
  } catch {
    return false;
  }
}

/** The executable of the running runtime (the `bun` or `deno` binary), to start more processes of the same runtime. */
export function runtimeExecutable(): string {
  return deno !== undefined ? (deno as unknown as { execPath(): string }).execPath() : process.execPath;
}

/** The environment variables this process may read, as an object (to hand to a child process). */
export function environmentVariables(): Record<string, string> {
  if (deno !== undefined) {
    if (!granted({ name: "env" })) return {};
    return (deno as unknown as { env: { toObject(): Record<string, string> } }).env.toObject();
  }
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) out[k] = v;
  return out;
}

const DENO_PERMISSION_NAMES = ["read", "write", "net", "env", "run", "ffi", "sys", "import"] as const;

/**
 * Under Deno, the permission flags this process holds as a whole (`--allow-ffi`, ...; `-A` when it holds them all),
 * for starting a child with the same rights and no more; under Bun, none (Bun has no permissions).
 */
export function grantedPermissionFlags(): string[] {
  if (deno === undefined) return [];
  const held = DENO_PERMISSION_NAMES.filter((name) => granted({ name }));
  return held.length === DENO_PERMISSION_NAMES.length ? ["-A"] : held.map((name) => `--allow-${name}`);
}
