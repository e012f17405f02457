/**
 * libc's dynamic loader (`dlopen`, `dlsym`, `dlerror`, `dlclose`, `dlinfo`), runtime-neutral, through the FFI
 * backend. glibc ≥ 2.34 exports all of them from libc.so.6. Bound on first use.
 *
 * @module
 */
import type { NativeFunction } from "./backend.ts";
import { ffi } from "./current.ts";
import { nodeBuiltin } from "../host.ts";
import { Scratch } from "./memory.ts";
import type { NativePointer, Pointer } from "./types.ts";
import { SymbolNotFoundError } from "./errors.ts";
import type * as NodePath from "node:path";

// Node.js built-ins, loaded on first use (src/host.ts, nodeBuiltin).
const nodePath = (): typeof NodePath => nodeBuiltin("node:path") as typeof NodePath;

/** Resolve symbols when first called. */
export const RTLD_LAZY = 1;
/** Resolve all symbols at load. */
export const RTLD_NOW = 2;
/** Only return a handle if the library is already loaded (never load it). */
export const RTLD_NOLOAD = 4;
/** Prefer the library's own symbols over global ones. */
export const RTLD_DEEPBIND = 8;
/** Make the library's symbols available to libraries loaded later. */
export const RTLD_GLOBAL = 0x100;
/** Keep the library's symbols to itself (the default). */
export const RTLD_LOCAL = 0;
/** Never unload the library. */
export const RTLD_NODELETE = 0x1000;
/** `dlsym` pseudo-handle: search the global scope (NULL). */
export const RTLD_DEFAULT: Pointer = null;
/** `dlinfo` request: the library's `struct link_map *`. */
export const RTLD_DI_LINKMAP = 2;

const signatures = {
  dlopen: { parameters: ["pointer", "i32"], result: "pointer" },
  dlerror: { parameters: [], result: "pointer" },
  dlsym: { parameters: ["pointer", "pointer"], result: "pointer" },
  dlclose: { parameters: ["pointer"], result: "i32" },
  dlinfo: { parameters: ["pointer", "i32", "pointer"], result: "i32" },
} as const;

interface Loader {
  readonly dlopen: NativeFunction<typeof signatures.dlopen>;
  readonly dlerror: NativeFunction<typeof signatures.dlerror>;
  readonly dlsym: NativeFunction<typeof signatures.dlsym>;
  readonly dlclose: NativeFunction<typeof signatures.dlclose>;
  readonly dlinfo: NativeFunction<typeof signatures.dlinfo>;
  readonly names: Scratch;
  readonly out: Scratch;
}

let loader: Loader | undefined;

function libc(): Loader {
  if (loader !== undefined) return loader;
  const lib = ffi.openLibrary("libc.so.6");
  const need = <K extends keyof typeof signatures>(name: K): NativeFunction<(typeof signatures)[K]> => {
    const fn = lib.bind(name, signatures[name]);
    if (fn === null) throw new SymbolNotFoundError("libc.so.6", name, "glibc 2.34 or newer is needed");
    return fn;
  };
  loader = {
    dlopen: need("dlopen"),
    dlerror: need("dlerror"),
    dlsym: need("dlsym"),
    dlclose: need("dlclose"),
    dlinfo: need("dlinfo"),
    names: new Scratch(4096),
    out: new Scratch(8),
  };
  return loader;
}

/**
 * Loads a shared library, or finds it already loaded.
 *
 * @param file - an absolute path, a soname searched the loader's way, or `null` for the main program.
 * @param flags - `RTLD_*` flags, for example `RTLD_NOW | RTLD_GLOBAL`.
 * @returns the handle, or `null` on failure (then {@link dlerror} says why).
 */
export function dlopen(file: string | null, flags: number): Pointer {
  const l = libc();
  return l.dlopen(file === null ? null : l.names.cstring(file), flags);
}

/** The loader's message about the last failure on this thread, or `null`; reading it clears it. */
export function dlerror(): string | null {
  return ffi.readCString(libc().dlerror());
}

/**
 * The address of a symbol.
 *
 * @param handle - a handle from {@link dlopen}, or {@link RTLD_DEFAULT} (`null`) for the global scope.
 * @returns the address, or `null` when it is not found.
 */
export function dlsym(handle: Pointer, name: string): Pointer {
  const l = libc();
  return l.dlsym(handle, l.names.cstring(name));
}

/** Releases a handle from {@link dlopen}. Returns 0 on success. */
export function dlclose(handle: NativePointer): number {
  return libc().dlclose(handle);
}

/**
 * The absolute path of the file a handle refers to (`dlinfo(RTLD_DI_LINKMAP)`, then `link_map.l_name`).
 *
 * @param handle - a live handle from {@link dlopen}.
 * @returns the path, or `null` for the main program, a `null` handle, or when `dlinfo` fails.
 */
export function loadedPath(handle: Pointer): string | null {
  if (handle === null) return null;
  const l = libc();
  if (l.dlinfo(handle, RTLD_DI_LINKMAP, l.out.pointer) !== 0) return null;
  const linkMap = l.out.readPointer(0);
  if (linkMap === null) return null;
  // struct link_map { ElfW(Addr) l_addr; char *l_name; ... }
  const name = ffi.readCString(ffi.readPointerAt(linkMap, 8));
  if (name === null || name === "") return null;
  return name.startsWith("/") ? name : nodePath().resolve(name);
}
