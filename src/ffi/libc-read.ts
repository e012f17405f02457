/**
 * Reading a small system file (`/proc/self/maps`, `/proc/driver/nvidia/version`) at start without Bun's `node:fs`.
 *
 * The driver binding reads two such files on its way to the first driver call: the kernel module's version at
 * import (which tables to load) and the process's mappings when libcuda opens (which file the loader chose). On Bun
 * the only synchronous file API is `node:fs`, and its first use costs more than everything else the binding does
 * there: loading the module 7.5–9 ms and its first `readFileSync` 2–4 ms more (the 2-core CPU machine, in-process),
 * against 1–2 ms to bind `open`, `read` and `close` from libc through bun:ffi, which the binding loads anyway.
 * So on Bun {@link readSmallFile} reads through libc; on Deno it is `Deno.readFileSync` behind Deno's read
 * permission (src/host.ts's `readFileBytes`), which costs Deno nothing to load and keeps the permission asked.
 *
 * @module
 */
import { readFileBytes, runtimeName } from "../host.ts";
import type { NativeFunction } from "./backend.ts";
import { ffi } from "./current.ts";
import { encodeCString } from "./text.ts";

// `open` is variadic (the mode follows the flags); on LP64 Linux an int passed there is passed as a fixed one.
const signatures = {
  open: { parameters: ["pointer", "i32", "u32"], result: "i32" },
  read: { parameters: ["i32", "pointer", "u64"], result: "i64" },
  close: { parameters: ["i32"], result: "i32" },
} as const;

type LibcRead = { readonly [K in keyof typeof signatures]: NativeFunction<(typeof signatures)[K]> };

/** O_RDONLY | O_CLOEXEC (the same on x86-64 and aarch64 Linux). */
const OPEN_READ = 0o2000000;

/** The largest file read: system files are kilobytes; a bigger one is not what this is for. */
export const SMALL_FILE_LIMIT = 64 * 1024 * 1024;

let bound: LibcRead | null | undefined;

/** libc's `open`, `read` and `close`, bound on first use; null where libc or one of them is missing. */
function libc(): LibcRead | null {
  if (bound !== undefined) return bound;
  try {
    const l = ffi.openLibrary("libc.so.6");
    const open = l.bind("open", signatures.open);
    const read = l.bind("read", signatures.read);
    const close = l.bind("close", signatures.close);
    bound = open !== null && read !== null && close !== null ? { open, read, close } : null;
  } catch {
    bound = null;
  }
  return bound;
}

/** The whole of `path` through libc's `open`/`read`/`close`; undefined when it cannot be opened or read. */
export function readThroughLibc(path: string, limit = SMALL_FILE_LIMIT): Uint8Array | undefined {
  const c = libc();
  if (c === null) return undefined;
  const fd = c.open(ffi.pointerOf(encodeCString(path)), OPEN_READ, 0);
  if (fd < 0) return undefined;
  try {
    // /proc files report a size of 0: read until the end, doubling the buffer as it fills. It may grow to one
    // byte past the limit, so that a file of exactly `limit` bytes is told from a longer one.
    let buffer = new Uint8Array(Math.min(16384, limit + 1));
    let length = 0;
    for (;;) {
      if (length === buffer.length) {
        if (length > limit) return undefined;
        const bigger = new Uint8Array(Math.min(buffer.length * 2, limit + 1));
        bigger.set(buffer);
        buffer = bigger;
      }
      const n = Number(c.read(fd, ffi.offsetPointer(ffi.pointerOf(buffer), length), buffer.length - length));
      if (n < 0) return undefined;
      if (n === 0) return length > limit ? undefined : buffer.slice(0, length);
      length += n;
    }
  } finally {
    c.close(fd);
  }
}

/**
 * The bytes of a small system file, or undefined when it is missing or may not be read. Bun: through libc (see the
 * module's documentation), falling back to `node:fs` where libc cannot be bound; Deno: `Deno.readFileSync` under its
 * read permission.
 */
export function readSmallFile(path: string): Uint8Array | undefined {
  return runtimeName === "bun" && libc() !== null ? readThroughLibc(path) : readFileBytes(path);
}
