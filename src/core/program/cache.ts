/**
 * The compile cache: `program.compile(target, { cache })` looks the compilation up by a key made of everything
 * that decides its result (the source, the code type, the target, the backend's flags with the architecture, the
 * name expressions, the compiler's version and library file, the NVVM extra sources and libdevice, and an optional
 * caller digest), and on a hit returns a fresh ObjectCode without compiling.
 *
 * As in cuda.core, caching is opt-in: `cache` is an {@link InMemoryProgramCache}, a `FileProgramCache`, any
 * {@link ProgramCache}, or `true` for the default file cache (`$XDG_CACHE_HOME/cuda-ts/program-cache`, else
 * `~/.cache/cuda-ts/program-cache`). Unlike cuda.core, name expressions may be combined with the cache: the symbol
 * mapping is stored with the code.
 *
 * What the key cannot see is refused with a RangeError rather than cached wrongly: options with side effects
 * (`createPch`, `time`, `fdeviceTimeTrace`: a hit would skip them) and, without a `cacheDigest`, options that read
 * files the key does not hash (`includePath`, `preInclude`, `pch`, `usePch`, `pchDir`, a `name` with a directory).
 * libdevice is hashed here, so `useLibdevice` needs no digest.
 *
 * @module
 */
import { driver } from "../../bindings/driver.ts";
import { nvjitlinkModule, nvrtcModule, nvvmModule } from "./libraries.ts";
import type { BindingExtras } from "../../bindings/binding.ts";
import { canReadPath, fileInfo, realPath } from "../../host.ts";
import { probeNvJitLink, whichLinkerBackend } from "./linker-backend.ts";
import { LinkerOptions } from "./linker-options.ts";
import type { ObjectCode } from "./object-code.ts";
import { fromCachedProgram, sha256Hex, toCachedProgram, type CachedProgram } from "./cache-entry.ts";
import { defaultFileProgramCache } from "./cache-file.ts";
import { optionalInteger } from "./option-checks.ts";
import { irBytes, nvvmVersionString, readLibdevice } from "./nvvm.ts";
import { nvrtcVersionString } from "./nvrtc.ts";
import { packageHeaderDigest } from "./package-headers.ts";
import { ProgramOptions, type CompileTarget, type ProgramOptionsInit } from "./options.ts";
import { describeValue } from "../../errors/describe.ts";

export type { CachedProgram } from "./cache-entry.ts";

/** The kinds of source a Program compiles. */
export type CodeType = "c++" | "ptx" | "nvvm";

/** A compile cache: compiled programs by key. Implementations must not throw from `get` for a missing entry. */
export interface ProgramCache {
  /** The entry for `key`, or undefined. */
  get(key: string): CachedProgram | undefined;
  /** Stores `entry` under `key`, replacing any entry there. */
  set(key: string, entry: CachedProgram): void;
  /** Removes the entry for `key`; whether there was one. */
  delete(key: string): boolean;
  /** Removes every entry. */
  clear(): void;
  /** The number of entries. */
  readonly size: number;
}

/** Options of an {@link InMemoryProgramCache}. */
export interface InMemoryProgramCacheOptions {
  /** The most entries kept (least recently used go first). Default 1024. */
  readonly maxEntries?: number;
  /** The most bytes of code kept (least recently used go first). Default: no limit. */
  readonly maxBytes?: number;
}

/** A compile cache in this process's memory, least recently used entries evicted first. */
export class InMemoryProgramCache implements ProgramCache {
  readonly #entries = new Map<string, CachedProgram>();
  readonly #maxEntries: number;
  readonly #maxBytes: number;
  #bytes = 0;

  /** An empty cache. */
  constructor(options: InMemoryProgramCacheOptions = {}) {
    this.#maxEntries = optionalInteger("InMemoryProgramCache", "maxEntries", options.maxEntries, 1) ?? 1024;
    this.#maxBytes = optionalInteger("InMemoryProgramCache", "maxBytes", options.maxBytes, 0) ?? Number.POSITIVE_INFINITY;
  }

  get(key: string): CachedProgram | undefined {
    const entry = this.#entries.get(key);
    if (entry !== undefined) {
      this.#entries.delete(key);
      this.#entries.set(key, entry);
    }
    return entry;
  }

  set(key: string, entry: CachedProgram): void {
    this.delete(key);
    if (entry.code.length > this.#maxBytes) return;
    this.#entries.set(key, entry);
    this.#bytes += entry.code.length;
    for (const [k] of this.#entries) {
      if (this.#entries.size <= this.#maxEntries && this.#bytes <= this.#maxBytes) break;
      this.delete(k);
    }
  }

  delete(key: string): boolean {
    const entry = this.#entries.get(key);
    if (entry === undefined) return false;
    this.#bytes -= entry.code.length;
    return this.#entries.delete(key);
  }

  clear(): void {
    this.#entries.clear();
    this.#bytes = 0;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** The bytes of code held. */
  get bytes(): number {
    return this.#bytes;
  }
}

/** What decides a compilation's result: the inputs of {@link makeProgramCacheKey}. */
export interface ProgramCacheKeyInputs {
  /** The source (C++ or PTX text, NVVM IR text or bitcode). */
  readonly code: string | Uint8Array;
  /** The code type. */
  readonly codeType: CodeType;
  /** The options. */
  readonly options: ProgramOptions | ProgramOptionsInit;
  /** The target. */
  readonly target: CompileTarget;
  /** NVRTC name expressions (order does not matter). */
  readonly nameExpressions?: readonly string[];
  /** The caller's digest of what the key cannot see (the headers of includePath, a PCH, ...). */
  readonly extraDigest?: string | Uint8Array;
  /** The compiler's fingerprint; default: probed from the loaded compiler ({@link compilerFingerprint}). */
  readonly compilerVersion?: string;
}

/** Bumped when the key's makeup changes, so older keys stop matching. */
const KEY_SCHEMA = "cuda-ts program cache key v1";

const SIDE_EFFECT_OPTIONS = ["createPch", "time", "fdeviceTimeTrace"] as const;
const EXTERNAL_CONTENT_OPTIONS = ["includePath", "preInclude", "pch", "usePch", "pchDir"] as const;

function libraryIdentity(binding: BindingExtras<unknown>): string {
  const lib = binding.loaded;
  if (lib === undefined) return "";
  try {
    if (!canReadPath(lib.path)) return lib.path;
    const real = realPath(lib.path);
    const st = real === undefined ? undefined : fileInfo(real);
    return real === undefined || st === undefined ? lib.path : `${real} ${st.size} ${Math.trunc(st.mtimeMs)}`;
  } catch {
    return lib.path;
  }
}

/**
 * The compiler a code type uses, as a string for cache keys: its name and version and the identity of its library
 * file (path, size, modification time, so a patch release invalidates the entries). Loads the compiler.
 */
function compilerFingerprint(codeType: CodeType): string {
  if (codeType === "c++") return `${nvrtcVersionString()} ${libraryIdentity(nvrtcModule().nvrtc)}`;
  if (codeType === "nvvm") return `${nvvmVersionString()} ${libraryIdentity(nvvmModule().nvvm)}`;
  if (whichLinkerBackend(false) === "nvJitLink") {
    const probe = probeNvJitLink();
    return `nvJitLink ${"version" in probe ? probe.version.join(".") : "?"} ${libraryIdentity(nvjitlinkModule().nvjitlink)}`;
  }
  return `driver ${driver.driverVersion()} ${libraryIdentity(driver)}`;
}

/** Refuses (RangeError) options whose effect the key cannot capture. */
function checkCacheable(codeType: CodeType, options: ProgramOptions, extraDigest: unknown): void {
  if (codeType !== "c++") return;
  const sideEffects = SIDE_EFFECT_OPTIONS.filter((k) => options[k] !== undefined);
  if (sideEffects.length > 0) {
    throw new RangeError(
      `the compile cache cannot be used with ${sideEffects.join(", ")}: these write files as a side effect, which a cache hit would skip. ` +
        "Drop them, or compile without the cache.",
    );
  }
  if (extraDigest !== undefined) return;
  const external: string[] = EXTERNAL_CONTENT_OPTIONS.filter((k) => options[k] !== undefined && options[k] !== false);
  if (/[/\\]/.test(options.name)) external.push(`name (${JSON.stringify(options.name)}: NVRTC resolves #include "..." in its directory)`);
  if (external.length > 0) {
    throw new RangeError(
      `the compile cache cannot see the files read through ${external.join(", ")}: pass cacheDigest (a digest of the headers or ` +
        "PCH the compilation reads) with the cache, or compile without the cache.",
    );
  }
}

/**
 * The cache key of a compilation: a SHA-256 in hex. Throws a RangeError for options the key cannot capture (see
 * the module's description), and whatever the compiler's probe throws when `compilerVersion` is not given.
 */
export function makeProgramCacheKey(inputs: ProgramCacheKeyInputs): string {
  const options = ProgramOptions.from(inputs.options);
  const { codeType, target } = inputs;
  checkCacheable(codeType, options, inputs.extraDigest);
  const parts: [string, string | Uint8Array][] = [
    ["schema", KEY_SCHEMA],
    ["codeType", codeType],
    ["target", target],
    ["code", inputs.code],
  ];
  if (codeType === "ptx") {
    const linker = new LinkerOptions(options.toLinkerOptions());
    parts.push(["arch", linker.resolveArch()], ["flags", linker.asFlags().join("\n")]);
  } else {
    parts.push(["arch", options.resolveArch()], ["flags", options.asFlags(codeType === "c++" ? "nvrtc" : "nvvm", target).join("\n")]);
  }
  parts.push(["name", options.name]);
  const names = [...new Set(inputs.nameExpressions ?? [])].sort();
  parts.push(["nameExpressions", String(names.length)], ...names.map((n): [string, string] => ["nameExpression", n]));
  if (codeType === "nvvm") {
    for (const [name, source] of options.extraSources ?? []) parts.push(["extraSourceName", name], ["extraSource", irBytes(source)]);
    if (options.useLibdevice) parts.push(["libdevice", sha256Hex(readLibdevice().bytes)]);
  }
  if (codeType === "c++" && typeof inputs.code === "string") {
    const headers = packageHeaderDigest(inputs.code);
    if (headers !== undefined) parts.push(["packageHeaders", headers]);
  }
  if (inputs.extraDigest !== undefined) parts.push(["extraDigest", inputs.extraDigest]);
  parts.push(["compiler", inputs.compilerVersion ?? compilerFingerprint(codeType)]);
  const framed: (string | Uint8Array)[] = [];
  for (const [label, value] of parts) {
    const bytes = typeof value === "string" ? new TextEncoder().encode(value) : value;
    framed.push(`${label}\0${bytes.length}\0`, bytes);
  }
  return sha256Hex(...framed);
}

/** The cache `compile(target, { cache })` uses: undefined for none, the default file cache for `true`. */
export function resolveProgramCache(cache: ProgramCache | boolean | undefined): ProgramCache | undefined {
  if (cache === undefined || cache === false) return undefined;
  if (cache === true) return defaultFileProgramCache();
  if (typeof cache !== "object" || cache === null || typeof cache.get !== "function" || typeof cache.set !== "function") {
    throw new TypeError(`compile: cache must be a ProgramCache (InMemoryProgramCache, FileProgramCache) or true, got ${describeValue(cache)}`);
  }
  return cache;
}

/**
 * Looks `key` up in `cache`: a hit of the expected format gives a fresh ObjectCode; otherwise `compile()` runs and
 * its result is stored. `compile` is the only step that compiles (tests inject a counting one).
 */
export function compileThroughCache(cache: ProgramCache, key: string, format: CompileTarget, compile: () => ObjectCode): { code: ObjectCode; hit: boolean } {
  const entry = cache.get(key);
  if (entry !== undefined && entry.format === format) return { code: fromCachedProgram(entry), hit: true };
  const code = compile();
  cache.set(key, toCachedProgram(code));
  return { code, hit: false };
}
