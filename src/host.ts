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

/**
 * Writes `bytes` to `file`, created with mode `mode` (default 0600: private to the user) or truncated (an existing
 * file keeps its mode). Throws the file system's error when it cannot (a missing directory, no permission).
 */
export function writeFileBytes(file: string, bytes: Uint8Array, mode = 0o600): void {
  const fd = fs().openSync(file, "w", mode);
  try {
    let at = 0;
    while (at < bytes.length) at += fs().writeSync(fd, bytes, at, bytes.length - at);
  } finally {
    fs().closeSync(fd);
  }
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

// Private files reached without following another user's links (the compile cache's entries). A path is checked
// one component at a time from `/` with `lstat` (no link followed unseen), and a file is opened with O_NOFOLLOW and
// judged by `fstat` of the descriptor opened, so that what was checked is what is read: a check of a path followed by
// a second open of the same path could meet another file, swapped in between by whoever can change a directory or
// a link on the way.

const GROUP_OR_OTHER_WRITE = 0o022;
const STICKY = 0o1000;
const MAX_LINKS = 40;

/** What `lstat` or `fstat` says of one file: which file it is (device and inode), its owner, mode and kind. */
export interface FileIdentity {
  /** The device of the file system. */
  readonly dev: bigint;
  /** The inode on that device. */
  readonly ino: bigint;
  /** The owner's user id. */
  readonly uid: number;
  /** The permission bits (mode & 0o7777). */
  readonly mode: number;
  /** A regular file, a directory, a symbolic link, or something else (a FIFO, a device, a socket). */
  readonly kind: "file" | "directory" | "symlink" | "other";
  /** The size in bytes. */
  readonly size: number;
  /** The modification time. */
  readonly mtimeMs: number;
}

function identityOf(s: NodeFs.BigIntStats): FileIdentity {
  const kind = s.isSymbolicLink() ? "symlink" : s.isFile() ? "file" : s.isDirectory() ? "directory" : "other";
  return { dev: s.dev, ino: s.ino, uid: Number(s.uid), mode: Number(s.mode & 0o7777n), kind, size: Number(s.size), mtimeMs: Number(s.mtimeMs) };
}

/** Whether two identities are the same file (device and inode). */
export function sameFile(a: FileIdentity, b: FileIdentity): boolean {
  return a.dev === b.dev && a.ino === b.ino;
}

/** What `lstat` says of `path` itself (a final link is described, not followed), or `undefined` when missing or not readable. */
export function linkIdentity(path: string): FileIdentity | undefined {
  if (!readable(path)) return undefined;
  try {
    return identityOf(fs().lstatSync(path, { bigint: true }));
  } catch {
    return undefined;
  }
}

/** The target of the symbolic link `path`, as stored in the link (maybe relative), or `undefined`. */
export function readLinkTarget(path: string): string | undefined {
  if (!readable(path)) return undefined;
  try {
    return fs().readlinkSync(path, "utf8");
  } catch {
    return undefined;
  }
}

/** The answer of {@link checkPrivateDirectoryNoFollow}. */
export type PrivateDirectoryCheck =
  /** Trusted: `real` is the directory with every link resolved, every component of it checked. */
  | { readonly ok: true; readonly real: string }
  /**
   * Not trusted. `missing`: a component does not exist (or may not be read) and everything before it was trusted;
   * `rest` is then the whole directory with the trusted part resolved (create it, then check again).
   */
  | { readonly ok: false; readonly missing: boolean; readonly path: string; readonly reason: string; readonly rest?: string };

function octal(mode: number): string {
  return `0${(mode & 0o777).toString(8).padStart(3, "0")}`;
}

/**
 * Checks that directory `dir` is private to user `uid`, walking it from `/` one component at a time with `lstat`,
 * never letting the kernel follow a link unseen: each directory on the way is owned by `uid` or root and is not
 * writable by group or others unless it has the sticky bit (as /tmp: others may not rename or remove what they do not
 * own there); each symbolic link on the way is owned by `uid` or root (a link another user owns could be pointed
 * elsewhere between this check and any later use) and is followed by reading it and walking its target the same way;
 * the directory itself is owned by `uid` and not writable by group or others. Relative paths are taken from the
 * current directory. Never throws.
 *
 * A path below the answer's `real` cannot then be changed by another user (only by `uid` and root), so it may be used
 * by name; the final component of a file in it is still to be opened with {@link openPrivateFileNoFollow}.
 */
export function checkPrivateDirectoryNoFollow(dir: string, uid: number): PrivateDirectoryCheck {
  const np = nodePath();
  const refuse = (path: string, reason: string): PrivateDirectoryCheck => ({ ok: false, missing: false, path, reason });
  const parts = (p: string): string[] => p.split("/").filter((s) => s !== "" && s !== ".");
  let absolute: string;
  try {
    absolute = np.resolve(dir);
  } catch {
    return { ok: false, missing: true, path: dir, reason: `${dir}: the current directory cannot be read` };
  }
  const pending = parts(absolute).reverse(); // a stack: the next component last
  let real = "/";
  let links = 0;
  const judge = (path: string, id: FileIdentity, final: boolean): PrivateDirectoryCheck | undefined => {
    if (id.kind !== "directory") return refuse(path, `${path}${path === dir ? "" : `, on the way to ${dir},`} is not a directory: point at a directory of your own.`);
    if (final) {
      if (id.uid !== uid) return refuse(path, `${path} is owned by uid ${id.uid}, not by this user (uid ${uid}): refusing to trust it. Use a directory of your own (mode 0700).`);
      if ((id.mode & GROUP_OR_OTHER_WRITE) !== 0) {
        return refuse(path, `${path} has mode ${octal(id.mode)}, writable by group or others: refusing to trust it. Run chmod 700 on it, or use a directory of your own.`);
      }
      return undefined;
    }
    if (id.uid !== uid && id.uid !== 0) {
      return refuse(path, `${path}, above ${dir}, is owned by uid ${id.uid}, neither this user (uid ${uid}) nor root: its owner could replace ${dir}. Use a directory elsewhere.`);
    }
    if ((id.mode & GROUP_OR_OTHER_WRITE) !== 0 && (id.mode & STICKY) === 0) {
      return refuse(path, `${path}, above ${dir}, has mode ${octal(id.mode)}, writable by group or others without the sticky bit: others could replace ${dir}. Run chmod go-w on it, or use a directory elsewhere.`);
    }
    return undefined;
  };
  const root = linkIdentity("/");
  if (root === undefined) return { ok: false, missing: true, path: "/", reason: `/ cannot be read: cannot check who may change ${dir}` };
  const rootVerdict = judge("/", root, false);
  if (rootVerdict !== undefined) return rootVerdict;
  while (pending.length > 0) {
    const name = pending.pop()!;
    if (name === "..") {
      real = np.dirname(real); // `real` has no link left in it, so its parent is the kernel's `..`
      continue;
    }
    const next = np.join(real, name);
    const id = linkIdentity(next);
    if (id === undefined) {
      const rest = np.join(next, ...[...pending].reverse());
      return { ok: false, missing: true, path: next, reason: `${next} does not exist or cannot be read`, rest };
    }
    if (id.kind === "symlink") {
      if (id.uid !== uid && id.uid !== 0) {
        return refuse(
          next,
          `${next}${next === dir ? "" : `, on the way to ${dir},`} is a symbolic link owned by uid ${id.uid}, neither this user (uid ${uid}) nor root: its owner could point it elsewhere at any moment. Use the directory it points to, or a directory of your own.`,
        );
      }
      if (++links > MAX_LINKS) return refuse(next, `${dir}: more than ${MAX_LINKS} symbolic links on the way (a loop?)`);
      const target = readLinkTarget(next);
      if (target === undefined) return { ok: false, missing: true, path: next, reason: `${next} (a symbolic link) cannot be read` };
      if (target.startsWith("/")) real = "/";
      pending.push(...parts(target).reverse());
      continue;
    }
    const verdict = judge(next, id, pending.length === 0);
    if (verdict !== undefined) return verdict;
    real = next;
  }
  // Every directory on the way passed as one above; the directory itself must be this user's alone.
  const last = linkIdentity(real);
  if (last === undefined) return { ok: false, missing: true, path: real, reason: `${real} cannot be read` };
  return judge(real, last, true) ?? { ok: true, real };
}

/** A regular file opened for reading by {@link openPrivateFileNoFollow}; read and change it only through this. */
export interface PrivateFile {
  /** The path it was opened by. */
  readonly path: string;
  /** What `fstat` of the descriptor said when it was opened (the same file as `lstat` of the path said just before). */
  readonly identity: FileIdentity;
  /** Reads the whole file through the descriptor. Throws the file system's error. */
  read(): Uint8Array;
  /** Sets its access and modification times to now through the descriptor (best effort; never throws). */
  touch(): void;
  /** Closes the descriptor (once; later calls do nothing). */
  close(): void;
}

/** The answer of {@link openPrivateFileNoFollow}: the file, or why not (`missing`: there is none, nothing to report). */
export type PrivateFileOpen = { readonly ok: true; readonly file: PrivateFile } | { readonly ok: false; readonly missing: boolean; readonly reason: string };

/**
 * Opens `path` for reading if it is a regular file private to user `uid`: `lstat` of the path says a regular file (not
 * a link, a FIFO or a device), it is opened with O_NOFOLLOW (and O_NONBLOCK, so that a FIFO swapped in cannot block),
 * and `fstat` of the descriptor says the same device and inode, a regular file, owned by `uid`, not writable by group
 * or others. What is then read (through {@link PrivateFile.read}) is the file that was checked, whatever happens to the
 * path meanwhile. Its directory must be one others cannot change ({@link checkPrivateDirectoryNoFollow}). Never throws.
 */
export function openPrivateFileNoFollow(path: string, uid: number): PrivateFileOpen {
  const missing: PrivateFileOpen = { ok: false, missing: true, reason: `${path} does not exist or cannot be read` };
  const before = linkIdentity(path);
  if (before === undefined) return missing;
  const refuse = (why: string): PrivateFileOpen => ({ ok: false, missing: false, reason: `${path} ${why}: refusing to trust it. Remove it.` });
  if (before.kind === "symlink") return refuse(`is not a regular file (a symbolic link owned by uid ${before.uid}, not followed)`);
  if (before.kind !== "file") return refuse("is not a regular file");
  const f = fs();
  let fd: number;
  try {
    fd = f.openSync(path, f.constants.O_RDONLY | f.constants.O_NOFOLLOW | f.constants.O_NONBLOCK);
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    return code === "ENOENT" ? missing : code === "ELOOP" ? refuse("became a symbolic link as it was opened") : { ok: false, missing: true, reason: `${path} cannot be opened (${String(code)})` };
  }
  let id: FileIdentity;
  try {
    id = identityOf(f.fstatSync(fd, { bigint: true }));
  } catch {
    f.closeSync(fd);
    return missing;
  }
  const why =
    !sameFile(id, before) ? "was replaced by another file as it was opened"
    : id.kind !== "file" ? "is not a regular file"
    : id.uid !== uid ? `is owned by uid ${id.uid}, not by this user (uid ${uid})`
    : (id.mode & GROUP_OR_OTHER_WRITE) !== 0 ? `has mode ${octal(id.mode)}, writable by group or others`
    : undefined;
  if (why !== undefined) {
    f.closeSync(fd);
    return refuse(why);
  }
  let open = true;
  const file: PrivateFile = {
    path,
    identity: id,
    read() {
      const chunks: Uint8Array[] = [];
      let total = 0;
      for (;;) {
        const buf = new Uint8Array(Math.max(65536, id.size - total + 1));
        const n = f.readSync(fd, buf, 0, buf.length, total);
        if (n === 0) break;
        chunks.push(buf.subarray(0, n));
        total += n;
      }
      if (chunks.length === 1) return chunks[0]!.slice();
      const out = new Uint8Array(new ArrayBuffer(total));
      let at = 0;
      for (const c of chunks) {
        out.set(c, at);
        at += c.length;
      }
      return out;
    },
    touch() {
      try {
        const now = new Date();
        f.futimesSync(fd, now, now);
      } catch {
        // Best effort.
      }
    },
    close() {
      if (!open) return;
      open = false;
      try {
        f.closeSync(fd);
      } catch {
        // Already closed.
      }
    },
  };
  return { ok: true, file };
}

/** Reads the whole of `path` if it is a regular file private to user `uid` ({@link openPrivateFileNoFollow}), else `undefined`. */
export function readPrivateFile(path: string, uid: number): { readonly bytes: Uint8Array; readonly identity: FileIdentity } | undefined {
  const opened = openPrivateFileNoFollow(path, uid);
  if (!opened.ok) return undefined;
  try {
    return { bytes: opened.file.read(), identity: opened.file.identity };
  } catch {
    return undefined;
  } finally {
    opened.file.close();
  }
}

/**
 * Writes `bytes` to `file` atomically through a new file `tmp` in the same directory: `tmp` is created exclusively
 * with O_NOFOLLOW (a link or anything else already there fails the call), mode 0600, written and synced through its
 * descriptor, then renamed over `file` (a link at `file` is replaced, not followed). Returns the identity of the file
 * written. Throws the file system's error; `tmp` is then removed if it is still the file this call created. The
 * directory must be one others cannot change ({@link checkPrivateDirectoryNoFollow}).
 */
export function writePrivateFileAtomic(file: string, tmp: string, bytes: Uint8Array): FileIdentity {
  const f = fs();
  const c = f.constants;
  const fd = f.openSync(tmp, c.O_WRONLY | c.O_CREAT | c.O_EXCL | c.O_NOFOLLOW, 0o600);
  let id: FileIdentity | undefined;
  try {
    id = identityOf(f.fstatSync(fd, { bigint: true }));
    let at = 0;
    while (at < bytes.length) at += f.writeSync(fd, bytes, at, bytes.length - at);
    f.fsyncSync(fd);
    f.closeSync(fd);
    f.renameSync(tmp, file);
    return id;
  } catch (e) {
    try {
      f.closeSync(fd);
    } catch {
      // Closed already.
    }
    if (id !== undefined) removeFileIfSame(tmp, id);
    throw e;
  }
}

/**
 * Removes `path` only if it is still the regular file `identity` describes (same device and inode, by `lstat`):
 * never a file swapped in after it was checked, never a link or a directory. False when it was not removed.
 */
export function removeFileIfSame(path: string, identity: FileIdentity): boolean {
  const now = linkIdentity(path);
  if (now === undefined || now.kind !== "file" || !sameFile(now, identity)) return false;
  try {
    fs().unlinkSync(path);
    return true;
  } catch {
    return false;
  }
}
