/**
 * Opening a file once and asking the open descriptor what it is (Linux, glibc 2.28 or later): `open` with
 * O_NOFOLLOW, `statx` on a descriptor (AT_EMPTY_PATH) or on a path without following its last link
 * (AT_SYMLINK_NOFOLLOW), `readlink`. Bound through the FFI on first use, on Bun and Deno alike: Deno's `FsFile`
 * hands out no descriptor, and a check that must be about the file later loaded needs one.
 *
 * `struct statx` has one layout on every Linux architecture (unlike `struct stat`), so x86-64 and aarch64 read it
 * the same way; the open(2) flags that differ between them are chosen by {@link openFlagsFor}.
 *
 * @module
 */
import type { NativeFunction } from "./index.ts";
import { ffi } from "./index.ts";
import { SymbolNotFoundError } from "./errors.ts";
import { ENOENT, ENOTDIR, SystemCallError, closeFd, errno } from "./libc-socket.ts";

export { ENOENT, ENOTDIR, SystemCallError, closeFd } from "./libc-socket.ts";

// `open` is variadic (the mode follows the flags); on LP64 Linux an int passed there is passed as a fixed one.
const signatures = {
  open: { parameters: ["pointer", "i32", "u32"], result: "i32" },
  statx: { parameters: ["i32", "pointer", "i32", "u32", "pointer"], result: "i32" },
  readlink: { parameters: ["pointer", "pointer", "u64"], result: "i64" },
} as const;

type Libc = { readonly [K in keyof typeof signatures]: NativeFunction<(typeof signatures)[K]> };

let libc: Libc | undefined;

function lib(): Libc {
  if (libc !== undefined) return libc;
  const l = ffi.openLibrary("libc.so.6");
  const out: Partial<Record<keyof typeof signatures, unknown>> = {};
  for (const name of Object.keys(signatures) as (keyof typeof signatures)[]) {
    const fn = l.bind(name, signatures[name]);
    if (fn === null) throw new SymbolNotFoundError("libc.so.6", name, "checking a file by its descriptor needs glibc 2.28 or later on Linux");
    out[name] = fn;
  }
  libc = out as Libc;
  return libc;
}

/** The open(2) flags used here for `arch` (O_NOFOLLOW and O_DIRECTORY differ between x86-64 and aarch64). */
export function openFlagsFor(arch: string): { readonly O_RDONLY: number; readonly O_NOFOLLOW: number; readonly O_CLOEXEC: number } {
  const aarch64 = arch === "arm64" || arch === "aarch64";
  if (!aarch64 && arch !== "x64" && arch !== "x86_64") throw new SystemCallError(`open flags for ${arch}`, 95, "only x86-64 and aarch64 Linux are known here");
  return { O_RDONLY: 0, O_NOFOLLOW: aarch64 ? 0o100000 : 0o400000, O_CLOEXEC: 0o2000000 };
}

/** errno values the callers tell apart. */
export const EACCES = 13;
export const ELOOP = 40;

const AT_FDCWD = -100;
const AT_SYMLINK_NOFOLLOW = 0x100;
const AT_EMPTY_PATH = 0x1000;
const STATX_BASIC_STATS = 0x7ff;
const S_IFMT = 0o170000;

/** What `statx` says about a file: its identity (device and inode), type, owner and permission bits. */
export interface FileStatus {
  /** `major:minor` of the device. */
  readonly dev: string;
  readonly ino: bigint;
  readonly uid: number;
  /** Permission bits with setuid, setgid and sticky (`mode & 0o7777`). */
  readonly mode: number;
  readonly isFile: boolean;
  readonly isDirectory: boolean;
  readonly isSymbolicLink: boolean;
  readonly isSocket: boolean;
}

function statxInto(dirfd: number, path: string, flags: number, what: string): FileStatus {
  const buf = new Uint8Array(new ArrayBuffer(256)); // struct statx
  if (lib().statx(dirfd, ffi.pointerOf(ffi.cstring(path)), flags, STATX_BASIC_STATS, ffi.pointerOf(buf)) !== 0) {
    throw new SystemCallError(what, errno());
  }
  const v = new DataView(buf.buffer);
  // stx_uid @20 (u32), stx_mode @28 (u16), stx_ino @32 (u64), stx_dev_major @136, stx_dev_minor @140 (u32 each).
  const mode = v.getUint16(28, true);
  const fmt = mode & S_IFMT;
  return {
    dev: `${v.getUint32(136, true)}:${v.getUint32(140, true)}`,
    ino: v.getBigUint64(32, true),
    uid: v.getUint32(20, true),
    mode: mode & 0o7777,
    isFile: fmt === 0o100000,
    isDirectory: fmt === 0o040000,
    isSymbolicLink: fmt === 0o120000,
    isSocket: fmt === 0o140000,
  };
}

/** `lstat(path)`: the path itself, a final symbolic link not followed. Throws {@link SystemCallError}. */
export function lstatPath(path: string): FileStatus {
  return statxInto(AT_FDCWD, path, AT_SYMLINK_NOFOLLOW, `statx(${JSON.stringify(path)}, AT_SYMLINK_NOFOLLOW)`);
}

/** What {@link linkStatus} tells of a path: its identity (device and inode), owner and type. */
export interface LinkStatus {
  /** The device, as `major:minor`. */
  readonly dev: string;
  /** The inode number. */
  readonly ino: bigint;
  /** The owner's user id. */
  readonly uid: number;
  /** The permission bits (with set-id and sticky bits). */
  readonly mode: number;
  /** The file type: `"symlink"`, `"directory"`, `"socket"` or `"other"`. */
  readonly type: "symlink" | "directory" | "socket" | "other";
}

/**
 * {@link lstatPath}, or undefined where the path does not exist (ENOENT, ENOTDIR): what a socket path's components are.
 *
 * @throws SystemCallError on other failures (EACCES: a directory on the way may not be searched).
 */
export function linkStatus(path: string): LinkStatus | undefined {
  let st: FileStatus;
  try {
    st = lstatPath(path);
  } catch (e) {
    if (e instanceof SystemCallError && (e.errno === ENOENT || e.errno === ENOTDIR)) return undefined;
    throw e;
  }
  const type = st.isSymbolicLink ? "symlink" : st.isDirectory ? "directory" : st.isSocket ? "socket" : "other";
  return { dev: st.dev, ino: st.ino, uid: st.uid, mode: st.mode, type };
}

/** `fstat(fd)`: the open file itself. Throws {@link SystemCallError}. */
export function fstatFd(fd: number): FileStatus {
  return statxInto(fd, "", AT_EMPTY_PATH, `statx(fd ${fd}, AT_EMPTY_PATH)`);
}

/** Opens `path` read-only and close-on-exec (`open(2)`), with O_NOFOLLOW when `follow` is false. Throws {@link SystemCallError}. */
export function openReadOnly(path: string, follow: boolean, arch: string): number {
  const f = openFlagsFor(arch);
  const fd = lib().open(ffi.pointerOf(ffi.cstring(path)), f.O_RDONLY | f.O_CLOEXEC | (follow ? 0 : f.O_NOFOLLOW), 0);
  if (fd < 0) throw new SystemCallError(`open(${JSON.stringify(path)})`, errno());
  return fd;
}

/** The target of the symbolic link `path` (`readlink(2)`); for `/proc/self/fd/N`, the open file's path. Throws {@link SystemCallError}. */
export function readLink(path: string): string {
  const buf = new Uint8Array(new ArrayBuffer(4097));
  const n = Number(lib().readlink(ffi.pointerOf(ffi.cstring(path)), ffi.pointerOf(buf), BigInt(buf.length)));
  if (n < 0) throw new SystemCallError(`readlink(${JSON.stringify(path)})`, errno());
  if (n >= buf.length) throw new SystemCallError(`readlink(${JSON.stringify(path)})`, 36, "the target is longer than PATH_MAX");
  return new TextDecoder().decode(buf.subarray(0, n));
}

/** Closes a descriptor {@link openReadOnly} opened. */
export function closeDescriptor(fd: number): void {
  closeFd(fd);
}
