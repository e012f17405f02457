/**
 * The errors the FFI layer throws on purpose. Everything else that reaches the caller is a bug or a runtime error
 * passed through unchanged.
 *
 * @module
 */
import { ArgumentError, InvalidStateError, NotFoundError, UnsupportedError, quietFields } from "../errors/base.ts";

/**
 * A shared library could not be loaded (`dlopen` returned NULL): the file is missing, or is not a library this
 * process can load (another architecture, a missing dependency). `reason` is the dynamic loader's word.
 */
export class LibraryLoadError extends NotFoundError {
  /** The path or soname that was asked for, as given. */
  readonly path: string;
  /** The dynamic loader's explanation (`dlerror()`), or `null` when it gave none. */
  readonly reason: string | null;

  /**
   * @param path - the path or soname that was asked for.
   * @param reason - the `dlerror()` text, or `null`.
   */
  constructor(path: string, reason: string | null) {
    super(`cannot load ${path}: ${reason ?? "the dynamic loader gave no reason"}`);
    this.name = "LibraryLoadError";
    this.path = path;
    this.reason = reason;
    quietFields(this);
  }
}

/** Something this JavaScript runtime's FFI cannot do, with the runtime that can when there is one. */
export class UnsupportedOnRuntimeError extends UnsupportedError {
  /** The runtime that cannot do it. */
  readonly runtime: "bun" | "deno";
  /** What was asked for, in a few words (for example "thread-safe callbacks"). */
  readonly feature: string;

  /**
   * @param runtime - the runtime that cannot do it.
   * @param feature - what was asked for, in a few words.
   * @param detail - the full explanation; it should say which runtime can do it, if any.
   */
  constructor(runtime: "bun" | "deno", feature: string, detail: string) {
    super(detail);
    this.name = "UnsupportedOnRuntimeError";
    this.runtime = runtime;
    this.feature = feature;
    quietFields(this);
  }
}

/**
 * A struct passed by value cannot be lowered to scalar arguments faithfully (its bytes would be a NaN in a
 * floating-point register and JavaScript may change them, or a buffer is too short).
 */
export class StructValueError extends ArgumentError {
  /**
   * @param message - the full explanation, naming the function and the struct.
   */
  constructor(message: string) {
    super(message);
    this.name = "StructValueError";
  }
}

/** A library that was loaded does not export a symbol the FFI layer needs (libc's loader or socket calls). */
export class SymbolNotFoundError extends NotFoundError {
  /** The library. */
  readonly path: string;
  /** The symbol. */
  readonly symbol: string;
  constructor(path: string, symbol: string, hint: string) {
    super(`${path} does not export ${symbol}${hint ? ` (${hint})` : ""}`);
    this.name = "SymbolNotFoundError";
    this.path = path;
    this.symbol = symbol;
    quietFields(this);
  }
}

/** A library was used after `close()`. */
export class LibraryClosedError extends InvalidStateError {
  /** The library. */
  readonly path: string;
  constructor(path: string) {
    super(`${path} is closed: open it again with ffi.openLibrary(path)`);
    this.name = "LibraryClosedError";
    this.path = path;
    quietFields(this);
  }
}
