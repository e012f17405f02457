/**
 * The errors the pathfinder throws. A "not found" error carries every place that was searched, in order, what to
 * set to make the search succeed, and which Deno permissions were missing while searching.
 *
 * Each error sits under the subject base that says what went wrong (src/errors/base.ts): a name not in the catalog
 * or a bad override is an {@link ArgumentError}, a failed search a {@link NotFoundError}, a catalog cycle an
 * {@link InternalError}. {@link PathfinderError} matches all of them with `instanceof`.
 *
 * @module
 */
import { ArgumentError, CudaTsError, InternalError, NotFoundError, quietFields } from "../errors/base.ts";

export { CudaTsError, NotFoundError };

/** What kind of thing was looked for. */
export type SearchedKind = "library" | "header directory" | "binary utility" | "bitcode library" | "static library" | "CUDA root";

/** One place the pathfinder looked, and what it found there. */
export interface SearchAttempt {
  /** The search step, such as `"override"`, `"site-packages"`, `"CUDA_PATH"` or `"system-search"`. */
  readonly step: string;
  /** What was examined: a directory, a file, an environment variable or a soname. */
  readonly location: string;
  /** What happened, such as `"no such directory"` or `"not set"`. */
  readonly outcome: string;
}

/**
 * Every error the pathfinder throws is `instanceof PathfinderError`. It is the pathfinder's family, not a base class:
 * each of its errors extends the subject base of what went wrong (an unknown name is an `ArgumentError`, a failed
 * search a `NotFoundError`), and this class's `instanceof` matches the family.
 */
export abstract class PathfinderError extends CudaTsError {
  static override [Symbol.hasInstance](value: unknown): boolean {
    // A class that extends PathfinderError keeps the ordinary check.
    if (this !== PathfinderError) return Function.prototype[Symbol.hasInstance].call(this, value);
    return PATHFINDER_ERRORS.some((c) => Function.prototype[Symbol.hasInstance].call(c, value));
  }

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "PathfinderError";
  }
}

/** A name that is not in the pathfinder's catalog for its kind. */
export class UnknownNameError extends ArgumentError {
  override name = "UnknownNameError";
  /** What kind of thing was asked for. */
  readonly kind: SearchedKind;
  /** The name that was asked for. */
  readonly requested: string;
  /** The names the catalog knows for this kind. */
  readonly known: readonly string[];

  /** Creates the error for `requested`, listing the `known` names in the message. */
  constructor(kind: SearchedKind, requested: string, known: readonly string[]) {
    super(`unknown ${kind} ${JSON.stringify(requested)}; known: ${known.join(", ")}`);
    this.kind = kind;
    this.requested = requested;
    this.known = known;
    quietFields(this);
  }
}

/** A dynamic library name that is not in the catalog (names are case-sensitive: `nvJitLink`, `cublasLt`). */
export class UnknownLibraryError extends UnknownNameError {
  override name = "UnknownLibraryError";

  /** Creates the error for `requested`, listing the `known` library names. */
  constructor(requested: string, known: readonly string[]) {
    super("library", requested, known);
  }
}

/** An override variable whose value cannot be used (a relative path). */
export class InvalidOverrideError extends ArgumentError {
  override name = "InvalidOverrideError";
  /** The environment variable, such as `CUDA_TS_NVRTC_PATH`. */
  readonly variable: string;
  /** Its value. */
  readonly value: string;

  /** Creates the error for `variable=value`, saying why the value was rejected. */
  constructor(variable: string, value: string, reason: string) {
    super(`${variable}=${JSON.stringify(value)} ${reason}`);
    this.variable = variable;
    this.value = value;
    quietFields(this);
  }
}

/** Renders attempts as aligned lines, one per place searched. */
export function formatAttempts(attempts: readonly SearchAttempt[]): string {
  if (attempts.length === 0) return "  (nowhere to search)";
  const width = Math.max(...attempts.map((a) => a.step.length));
  return attempts.map((a) => `  ${a.step.padEnd(width)}  ${a.location}: ${a.outcome}`).join("\n");
}

/** Everything a "not found" error reports. */
export interface NotFoundDetails {
  /** Every place searched, in order. */
  readonly attempts: readonly SearchAttempt[];
  /** What the user can set or install to make the search succeed. */
  readonly hint: string;
  /** Deno flags that would have let the search look further, such as `--allow-env=CUDA_PATH`. */
  readonly missingPermissions: readonly string[];
}

/**
 * Base class of the pathfinder's "not found" errors: lists every searched place, a hint, and missing Deno
 * permissions. Set what the hint says (a `CUDA_TS_<NAME>_PATH`, `CUDA_PATH`), install the component, or grant the
 * permissions listed.
 */
export class SearchNotFoundError extends NotFoundError {
  override name = "SearchNotFoundError";
  /** What kind of thing was looked for. */
  readonly kind: SearchedKind;
  /** The name that was looked for. */
  readonly requested: string;
  /** Every place searched, in order. */
  readonly attempts: readonly SearchAttempt[];
  /** What the user can set or install. */
  readonly hint: string;
  /** Deno flags that would have let the search look further. */
  readonly missingPermissions: readonly string[];

  /** Creates the error; `what` describes the target in the first line (for example the sonames tried). */
  constructor(kind: SearchedKind, requested: string, what: string, details: NotFoundDetails, prefix = "") {
    const lines = [
      `${prefix}could not find ${kind} ${JSON.stringify(requested)} (${what}). Searched, in order:`,
      formatAttempts(details.attempts),
      details.hint,
    ];
    if (details.missingPermissions.length > 0) {
      lines.push(`Missing Deno permissions (the search could not look there): ${details.missingPermissions.join(" ")}`);
    }
    super(lines.join("\n"));
    this.kind = kind;
    this.requested = requested;
    this.attempts = details.attempts;
    this.hint = details.hint;
    this.missingPermissions = details.missingPermissions;
    quietFields(this);
  }
}

/** A dynamic library that no search step found or could load. */
export class LibraryNotFoundError extends SearchNotFoundError {
  override name = "LibraryNotFoundError";
  /** The file names that were looked for, newest first. */
  readonly sonames: readonly string[];
  /** When this library was a dependency: the library that needed it (a chain such as `cusolver → cusparse`). */
  readonly requiredBy: string | undefined;

  /** Creates the error for library `requested`, which was looked for under the file names `sonames`. */
  constructor(requested: string, sonames: readonly string[], details: NotFoundDetails, requiredBy?: string) {
    super("library", requested, sonames.join(", "), details, requiredBy === undefined ? "" : `${requiredBy} needs ${requested}, but `);
    this.sonames = sonames;
    this.requiredBy = requiredBy;
    quietFields(this);
  }

  /**
   * The same error, reported as a dependency of `requiredBy` (the original is its `cause`). Through several levels
   * the chain is kept: `cusolver → cusparse needs nvJitLink`.
   */
  asDependencyOf(requiredBy: string): LibraryNotFoundError {
    const chain = this.requiredBy === undefined ? requiredBy : `${requiredBy} → ${this.requiredBy}`;
    const copy = new LibraryNotFoundError(this.requested, this.sonames, this, chain);
    Object.defineProperty(copy, "cause", { value: this, enumerable: false, writable: true, configurable: true });
    return copy;
  }
}

/** A header directory that no search step found. */
export class HeaderDirectoryNotFoundError extends SearchNotFoundError {
  override name = "HeaderDirectoryNotFoundError";
}

/** A binary utility that no search step found. */
export class BinaryUtilityNotFoundError extends SearchNotFoundError {
  override name = "BinaryUtilityNotFoundError";
}

/** A bitcode library that no search step found. */
export class BitcodeLibraryNotFoundError extends SearchNotFoundError {
  override name = "BitcodeLibraryNotFoundError";
}

/** A static library that no search step found. */
export class StaticLibraryNotFoundError extends SearchNotFoundError {
  override name = "StaticLibraryNotFoundError";
}

/** No CUDA Toolkit root could be determined. */
export class CudaRootNotFoundError extends SearchNotFoundError {
  override name = "CudaRootNotFoundError";
}

/** Libraries whose dependencies lead back to themselves (a catalog error). */
export class DependencyCycleError extends InternalError {
  override name = "DependencyCycleError";
  /** The library reached again while it was loading. */
  readonly library: string;
  constructor(library: string) {
    super(`cuda-ts pathfinder: dependency cycle through ${library}`);
    this.library = library;
    quietFields(this);
  }
}

/** The roots of the pathfinder's family, which `instanceof PathfinderError` matches. */
const PATHFINDER_ERRORS: readonly (abstract new (...args: never[]) => Error)[] = [PathfinderError, UnknownNameError, InvalidOverrideError, SearchNotFoundError, DependencyCycleError];
