import { existsSync } from "node:fs";
import { isAbsolute } from "node:path";
import { describe, expect, it } from "vitest";
import { dl, ffi, LibraryLoadError } from "../../src/ffi/index.ts";
import { LIBCLANG } from "./helpers.ts";

describe("dl: libc's dynamic loader through the backend", () => {
  it("has glibc's flag values", () => {
    expect([dl.RTLD_LAZY, dl.RTLD_NOW, dl.RTLD_NOLOAD, dl.RTLD_GLOBAL, dl.RTLD_DI_LINKMAP]).toEqual([1, 2, 4, 0x100, 2]);
  });

  it("opens libc by soname, finds a symbol, and reports the absolute path it loaded", () => {
    const h = dl.dlopen("libc.so.6", dl.RTLD_NOW);
    expect(h).not.toBeNull();
    const strlen = dl.dlsym(h, "strlen");
    expect(strlen).not.toBeNull();
    const libc = ffi.openLibrary("libc.so.6");
    expect(ffi.samePointer(strlen, libc.symbol("strlen"))).toBe(true);
    expect(dl.dlsym(h, "no_such_symbol_here")).toBeNull();
    const path = dl.loadedPath(h);
    expect(path).not.toBeNull();
    expect(isAbsolute(path!)).toBe(true);
    expect(existsSync(path!)).toBe(true);
    expect(path).toMatch(/libc\.so\.6$/);
    expect(dl.loadedPath(libc.handle)).toBe(path);
    expect(dl.dlclose(h!)).toBe(0);
  });

  it("dlsym(RTLD_DEFAULT) searches the global scope", () => {
    expect(dl.dlsym(dl.RTLD_DEFAULT, "malloc")).not.toBeNull();
  });

  it("RTLD_NOLOAD returns null for a library that is not loaded, and a handle once it is", () => {
    expect(existsSync(LIBCLANG)).toBe(true);
    expect(dl.dlopen(LIBCLANG, dl.RTLD_NOW | dl.RTLD_NOLOAD)).toBeNull();
    const h = dl.dlopen(LIBCLANG, dl.RTLD_LAZY);
    expect(h).not.toBeNull();
    const again = dl.dlopen(LIBCLANG, dl.RTLD_NOW | dl.RTLD_NOLOAD);
    expect(ffi.samePointer(again, h)).toBe(true);
    expect(dl.loadedPath(h)).toBe(LIBCLANG);
    dl.dlclose(again!);
    dl.dlclose(h!);
  });

  it("dlerror explains a missing library, then clears", () => {
    expect(dl.dlopen("libcuda-ts-does-not-exist.so.1", dl.RTLD_NOW)).toBeNull();
    expect(dl.dlerror()).toBe("libcuda-ts-does-not-exist.so.1: cannot open shared object file: No such file or directory");
    expect(dl.dlerror()).toBeNull();
  });

  it("the main program has a handle and no path", () => {
    const main = dl.dlopen(null, dl.RTLD_NOW);
    expect(main).not.toBeNull();
    expect(dl.loadedPath(main)).toBeNull();
    expect(dl.loadedPath(null)).toBeNull();
  });

  it("ffi.openLibrary throws LibraryLoadError with the path and the loader's reason", () => {
    let error: unknown;
    try {
      ffi.openLibrary("/nonexistent/libnothing.so");
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(LibraryLoadError);
    const e = error as LibraryLoadError;
    expect(e.path).toBe("/nonexistent/libnothing.so");
    expect(e.reason).toBe("/nonexistent/libnothing.so: cannot open shared object file: No such file or directory");
    expect(e.message).toContain("cannot load /nonexistent/libnothing.so");
  });
});
