/**
 * The libc calls GPUDirect Storage needs (Linux, glibc): `open` with O_DIRECT (cuFile registers a file descriptor,
 * which neither Bun's nor Deno's own file APIs hand out portably) and `close`. Bound through the FFI on first use.
 *
 * @module
 */
import type { NativeFunction } from "./index.ts";
import { ffi } from "./index.ts";
import { SymbolNotFoundError } from "./errors.ts";
import { encodeCString } from "./text.ts";
import { SystemCallError, closeFd, errno } from "./libc-socket.ts";

export { SystemCallError, closeFd, errno } from "./libc-socket.ts";

// `open` is variadic (the mode follows the flags); on LP64 Linux an int passed there is passed as a fixed one.
const signatures = {
  open: { parameters: ["pointer", "i32", "u32"], result: "i32" },
} as const;

type LibcFile = { readonly [K in keyof typeof signatures]: NativeFunction<(typeof signatures)[K]> };

let libc: LibcFile | undefined;

function lib(): LibcFile {
  if (libc !== undefined) return libc;
  const l = ffi.openLibrary("libc.so.6");
  const open = l.bind("open", signatures.open);
  if (open === null) throw new SymbolNotFoundError("libc.so.6", "open", "GPUDirect Storage needs glibc on Linux");
  libc = { open };
  return libc;
}

/** The open(2) flags used here, for the machine's architecture (O_DIRECT differs between x86-64 and aarch64). */
export function openFlags(arch: string): { readonly O_RDONLY: number; readonly O_WRONLY: number; readonly O_RDWR: number; readonly O_CREAT: number; readonly O_TRUNC: number; readonly O_DIRECT: number; readonly O_CLOEXEC: number } {
  const aarch64 = arch === "arm64" || arch === "aarch64";
  return { O_RDONLY: 0, O_WRONLY: 1, O_RDWR: 2, O_CREAT: 0o100, O_TRUNC: 0o1000, O_DIRECT: aarch64 ? 0o200000 : 0o40000, O_CLOEXEC: 0o2000000 };
}

/** EINVAL: what open(2) says when the file system does not support O_DIRECT (tmpfs, some overlay mounts). */
export const EINVAL = 22;

/** Opens `path` (`open(2)`); throws SystemCallError with errno and its text. */
export function openFd(path: string, flags: number, mode: number): number {
  const fd = lib().open(ffi.pointerOf(encodeCString(path)), flags, mode);
  if (fd < 0) {
    const code = errno();
    throw new SystemCallError(`open(${JSON.stringify(path)})`, code);
  }
  return fd;
}

/** Closes a descriptor this module opened. */
export function closeFile(fd: number): void {
  closeFd(fd);
}
