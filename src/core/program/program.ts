/**
 * `Program`: compiles source into an {@link ObjectCode}, in the style of cuda.core:
 *
 * - `"c++"`: CUDA C++ through NVRTC, to `"ptx"`, `"cubin"` or `"ltoir"`, with name expressions
 *   (`nameExpressions: ["axpy<float>"]`) recorded in the ObjectCode's symbol mapping so
 *   `getKernel("axpy<float>")` works;
 * - `"ptx"`: PTX through the {@link Linker} (nvJitLink, else the driver), to `"cubin"` (or `"ptx"` with LTO);
 * - `"nvvm"`: NVVM IR (text or bitcode) through libNVVM, to `"ptx"` or `"ltoir"`, with `extraSources` and
 *   `useLibdevice`.
 *
 * ```ts
 * using prog = new Program(source, "c++", { arch: "sm_90", std: "c++17" });
 * const mod = prog.compile("cubin", { nameExpressions: ["axpy<float>"], cache: true });
 * const k = mod.getKernel("axpy<float>");
 * ```
 *
 * Options are validated when the Program is built, before anything is compiled. A failed compilation throws the
 * compiler's error (NVRTCError, NVVMError, NVJitLinkError) with the log in `error.log`; the same log is
 * `program.log`. Compiling with `cache` (see program-cache.ts) skips the compiler on a hit. `compileAsync` does the
 * same in a Worker (compile-async.ts), off the event loop.
 *
 * @module
 */
import { NVJitLinkError, NVRTCError, NVVMError } from "../../bindings/errors.ts";
import type { nvrtcProgram } from "../../bindings/nvrtc.ts";
import type { nvvmProgram } from "../../bindings/nvvm.ts";
import { ClosedError } from "../base/errors.ts";
import { track, untrack } from "../base/lifetime.ts";
import { releaseReporting } from "../base/release-errors.ts";
import { whichLinkerBackend } from "./linker-backend.ts";
import { Linker } from "./linker.ts";
import { LinkerOptions } from "./linker-options.ts";
import { ObjectCode } from "./object-code.ts";
import { isRealArch } from "./arch.ts";
import { compileThroughCache, makeProgramCacheKey, resolveProgramCache, type CodeType, type ProgramCache } from "./cache.ts";
import { NvrtcProgram } from "./nvrtc.ts";
import { NvvmProgram } from "./nvvm.ts";
import { ProgramOptions, type CompileTarget, type ProgramOptionsInit } from "./options.ts";
import { fromCachedProgram, toCachedProgram } from "./cache-entry.ts";
import { compileInWorker } from "./compile-async.ts";
import { isAbortSignal, type AbortSignalLike } from "../worker/pool.ts";
import type { CompileRequest, CompileResult } from "./compile-job.ts";
import { describeValue } from "../../errors/describe.ts";

export type { CodeType } from "./cache.ts";
export type { CompileTarget } from "./options.ts";

/** The compiler behind a Program. */
export type ProgramBackend = "NVRTC" | "NVJITLINK" | "DRIVER" | "NVVM";

/** Where compile logs go: anything with `write(text)` (as cuda.core's `logs`), or a function. */
export type LogSink = { write(text: string): unknown } | ((text: string) => unknown);

/** Options of {@link Program.compile}. */
export interface CompileOptions {
  /** NVRTC only: name expressions to instantiate and record (`"axpy<float>"`, `"&f"`). */
  readonly nameExpressions?: readonly string[];
  /** Receives the compiler's log when it is not empty (warnings, or the errors of a failed compilation). */
  readonly logs?: LogSink;
  /**
   * A compile cache: an InMemoryProgramCache, a FileProgramCache, any ProgramCache, or `true` for the default
   * file cache. Default: none (as cuda.core, caching is opt-in).
   */
  readonly cache?: ProgramCache | boolean;
  /** A digest of what the cache key cannot see (the headers behind includePath, a PCH); see program-cache.ts. */
  readonly cacheDigest?: string | Uint8Array;
}

const CODE_TYPES: readonly CodeType[] = ["c++", "ptx", "nvvm"];
const TARGETS: Readonly<Record<ProgramBackend, readonly CompileTarget[]>> = {
  NVRTC: ["ptx", "cubin", "ltoir"],
  NVVM: ["ptx", "ltoir"],
  NVJITLINK: ["cubin", "ptx"],
  DRIVER: ["cubin"],
};
const FACTORIES: Readonly<Record<CompileTarget, (code: Uint8Array, options: { name: string; symbolMapping?: Record<string, string> }) => ObjectCode>> = {
  ptx: (c, o) => ObjectCode.fromPtx(c, o),
  cubin: (c, o) => ObjectCode.fromCubin(c, o),
  ltoir: (c, o) => ObjectCode.fromLtoir(c, o),
};

const FACTORIES_ALL: Readonly<Partial<Record<string, (code: Uint8Array, options: { name: string; symbolMapping?: Record<string, string> }) => ObjectCode>>> = {
  ...FACTORIES,
  fatbin: (c, o) => ObjectCode.fromFatbin(c, o),
  object: (c, o) => ObjectCode.fromObject(c, o),
  library: (c, o) => ObjectCode.fromLibrary(c, o),
};

function writeLog(sink: LogSink | undefined, log: string): void {
  if (sink === undefined || log === "") return;
  if (typeof sink === "function") sink(log);
  else sink.write(log);
}

/** Options of {@link Program.compileAsync}: those of compile(), and a signal that cancels. */
export interface CompileAsyncOptions extends CompileOptions {
  /** Cancels the compilation (queued: dropped; running: its worker terminated); rejects with the signal's reason. */
  readonly signal?: AbortSignalLike;
}

/** Compiles C++, PTX or NVVM IR into an ObjectCode. */
export class Program {
  /** The kind of source. */
  readonly codeType: CodeType;
  /** The compiler: NVRTC, NVVM, or the linker for PTX (NVJITLINK or DRIVER). */
  readonly backend: ProgramBackend;
  /** The validated options. */
  readonly options: ProgramOptions;
  readonly #code: string | Uint8Array;
  #nvrtc: NvrtcProgram | undefined;
  #nvrtcUsed = false;
  readonly #nvvm: NvvmProgram | undefined;
  #log = "";
  #closed = false;

  /**
   * A program over `code`: C++ or PTX text, or NVVM IR (text, or bitcode bytes). `codeType` is case-insensitive.
   * Throws TypeError or RangeError for a wrong argument or option, before any compiler is loaded.
   */
  constructor(code: string | Uint8Array, codeType: CodeType | string, options?: ProgramOptions | ProgramOptionsInit) {
    const type = typeof codeType === "string" ? codeType.toLowerCase() : codeType;
    if (!(CODE_TYPES as readonly unknown[]).includes(type)) {
      throw new RangeError(`Program: codeType must be one of ${CODE_TYPES.map((t) => JSON.stringify(t)).join(", ")}, got ${describeValue(codeType)}`);
    }
    this.codeType = type as CodeType;
    this.options = ProgramOptions.from(options);
    if (this.codeType === "nvvm") {
      if (typeof code !== "string" && !(code instanceof Uint8Array)) {
        throw new TypeError(`Program: NVVM IR must be text (a string) or bitcode (a Uint8Array), got ${describeValue(code)}`);
      }
      if (code.length === 0) throw new RangeError("Program: the NVVM IR is empty");
      const unsupported = this.options.unsupportedByNvvm();
      if (unsupported.length > 0) throw new RangeError(`ProgramOptions: not supported by the NVVM backend: ${unsupported.join(", ")}`);
    } else {
      if (typeof code !== "string") throw new TypeError(`Program: ${this.codeType} source must be a string, got ${describeValue(code)}`);
      const nvvmOnly = (["extraSources", "useLibdevice"] as const).filter((k) => this.options[k] !== undefined && this.options[k] !== false);
      if (nvvmOnly.length > 0) throw new RangeError(`ProgramOptions: ${nvvmOnly.join(", ")} only apply to NVVM programs, not ${this.codeType}`);
    }
    this.#code = typeof code === "string" ? code : code.slice();
    if (this.codeType === "c++") {
      const nvrtcProgram = new NvrtcProgram(code as string, this.options.name);
      this.#nvrtc = nvrtcProgram;
      this.backend = "NVRTC";
      track(this, "Program", () => nvrtcProgram.destroy());
    } else if (this.codeType === "nvvm") {
      const modules: (readonly [string, string | Uint8Array])[] = [[this.options.name, this.#code], ...(this.options.extraSources ?? [])];
      const nvvmProgram = new NvvmProgram(modules);
      this.#nvvm = nvvmProgram;
      this.backend = "NVVM";
      track(this, "Program", () => nvvmProgram.destroy());
    } else {
      const linkerOptions = new LinkerOptions(this.options.toLinkerOptions());
      this.backend = whichLinkerBackend(linkerOptions.needsNvJitLink) === "nvJitLink" ? "NVJITLINK" : "DRIVER";
      if (this.backend === "DRIVER") {
        const unsupported = linkerOptions.unsupportedByDriver();
        if (unsupported.length > 0) {
          throw new RangeError(`ProgramOptions: not supported by the driver's linker (cuLink*; install nvJitLink for them): ${unsupported.join(", ")}`);
        }
      }
    }
  }

  /**
   * The NVRTC or NVVM program handle (for NVRTC, each compilation after the first gets a fresh program, so this is
   * the latest one); null for PTX (linked at compile time) and after close().
   */
  get handle(): nvrtcProgram | nvvmProgram | null {
    if (this.#closed) return null;
    return this.#nvrtc?.handle ?? this.#nvvm?.handle ?? null;
  }

  /** The log of the last compilation (warnings, or the errors of a failure); empty after a cache hit. */
  get log(): string {
    return this.#log;
  }

  /** Whether close() has been called. */
  get isClosed(): boolean {
    return this.#closed;
  }

  /**
   * Compiles to `target` and returns the ObjectCode (named after `options.name`, with the name expressions'
   * lowered names in its symbol mapping). Targets: NVRTC ptx/cubin/ltoir, NVVM ptx/ltoir, PTX cubin (ptx with
   * nvJitLink LTO). Throws RangeError/TypeError for a wrong argument, and the compiler's error (with the log)
   * when compilation fails.
   */
  compile(target: CompileTarget, options: CompileOptions = {}): ObjectCode {
    const job = this.#prepare("compile", target, options);
    if (job.cache === undefined) return this.#compileNow(target, job.names, job.logs);
    const result = compileThroughCache(job.cache, job.key!, target, () => this.#compileNow(target, job.names, job.logs));
    if (result.hit) this.#log = "";
    return result.code;
  }

  /**
   * Compiles as {@link compile} does, in a Worker, so the event loop stays free while NVRTC, nvJitLink or libNVVM
   * work (from ~10 ms to seconds). The worker builds its own Program (its own FFI tables; a GPU's primary context is
   * shared with this thread) and moves the code back (ArrayBuffer transfer, not a structured copy). Arguments are
   * checked here, before anything is sent, with the errors of compile(); a failed compilation rejects with the same
   * typed error (NVRTCError, NVVMError, NVJitLinkError, with `log`), and `logs` and `program.log` get the log.
   *
   * The cache (`options.cache`) is looked up here before dispatching and filled here afterwards, so the in-memory
   * and file caches are the same ones the synchronous compile uses. `options.signal` cancels: a queued compilation
   * is dropped, a running one's worker terminated; the promise rejects with the signal's reason. Pool size and idle
   * timeout: {@link configureCompileWorkers}.
   *
   * ```ts
   * const code = await prog.compileAsync("cubin", { nameExpressions: ["axpy<float>"], signal: AbortSignal.timeout(30_000) });
   * ```
   */
  async compileAsync(target: CompileTarget, options: CompileAsyncOptions = {}): Promise<ObjectCode> {
    const job = this.#prepare("compileAsync", target, options);
    const signal = options.signal;
    if (signal !== undefined && !isAbortSignal(signal)) {
      throw new TypeError(`Program.compileAsync: signal must be an AbortSignal, got ${describeValue(signal)}`);
    }
    if (signal?.aborted) throw signal.reason;
    if (job.cache !== undefined) {
      const entry = job.cache.get(job.key!);
      if (entry !== undefined && entry.format === target) {
        this.#log = "";
        return fromCachedProgram(entry);
      }
    }
    const request: CompileRequest = {
      code: this.#code,
      codeType: this.codeType,
      options: this.#workerOptions(),
      target,
      nameExpressions: job.names,
    };
    let result: CompileResult;
    try {
      result = await compileInWorker(request, signal !== undefined ? { signal } : {});
    } catch (e) {
      const log = (e as { log?: unknown } | null)?.log;
      if (typeof log === "string") {
        this.#log = log;
        writeLog(job.logs, log);
      }
      throw e;
    }
    if (this.#closed) throw new ClosedError(`Program ${this.options.name}`, "compileAsync");
    this.#log = result.log;
    writeLog(job.logs, result.log);
    const code = FACTORIES_ALL[result.format]?.(result.code, { name: result.name, symbolMapping: result.symbolMapping });
    if (code === undefined) throw new TypeError(`Program.compileAsync: the worker answered an unknown format ${describeValue(result.format)}`);
    job.cache?.set(job.key!, toCachedProgram(code));
    return code;
  }

  /** The options as plain data for a worker, with the architecture resolved here (one device query, not one per worker). */
  #workerOptions(): ProgramOptionsInit {
    const plain: Record<string, unknown> = { ...this.options };
    if (plain.arch === undefined) {
      try {
        plain.arch = this.options.resolveArch();
      } catch {
        // Without a device here, the worker's own compile reports the missing architecture with the usual error.
      }
    }
    return plain as ProgramOptionsInit;
  }

  /** The checks of compile() and compileAsync(), and the cache and its key when one is asked for. */
  #prepare(
    method: "compile" | "compileAsync",
    target: CompileTarget,
    options: CompileOptions,
  ): { names: string[]; logs: LogSink | undefined; cache: ProgramCache | undefined; key: string | undefined } {
    if (this.#closed) throw new ClosedError(`Program ${this.options.name}`, method);
    const supported = TARGETS[this.backend];
    if (!(supported as readonly unknown[]).includes(target)) {
      throw new RangeError(
        `Program.${method}: the ${this.backend} backend compiles ${this.codeType} to ${supported.map((t) => JSON.stringify(t)).join(", ")}, not ${describeValue(target)}`,
      );
    }
    if (typeof options !== "object" || options === null) throw new TypeError(`Program.${method}: expected an options object, got ${describeValue(options)}`);
    const names = this.#nameExpressions(options.nameExpressions);
    const logs = options.logs;
    if (logs !== undefined && typeof logs !== "function" && typeof (logs as { write?: unknown }).write !== "function") {
      throw new TypeError(`Program.${method}: logs must have a write(text) method or be a function, got ${describeValue(logs)}`);
    }
    if (options.cacheDigest !== undefined && typeof options.cacheDigest !== "string" && !(options.cacheDigest instanceof Uint8Array)) {
      throw new TypeError(`Program.${method}: cacheDigest must be a string or a Uint8Array, got ${describeValue(options.cacheDigest)}`);
    }
    if (this.backend === "NVRTC" && target === "cubin" && !isRealArch(this.options.resolveArch())) {
      throw new RangeError(`Program.${method}("cubin"): a cubin needs a real architecture (sm_<cc>), not ${JSON.stringify(this.options.resolveArch())}`);
    }
    const cache = resolveProgramCache(options.cache);
    if (cache === undefined) return { names, logs, cache, key: undefined };
    const key = makeProgramCacheKey({
      code: this.#code,
      codeType: this.codeType,
      options: this.options,
      target,
      nameExpressions: names,
      ...(options.cacheDigest !== undefined ? { extraDigest: options.cacheDigest } : {}),
    });
    return { names, logs, cache, key };
  }

  #nameExpressions(value: unknown): string[] {
    if (value === undefined) return [];
    if (!Array.isArray(value)) typeError("nameExpressions", "an array of strings", value);
    if (value.length > 0 && this.backend !== "NVRTC") {
      throw new RangeError(`Program.compile: nameExpressions are an NVRTC feature (c++ programs), not one of ${this.backend}`);
    }
    value.forEach((n, i) => {
      if (typeof n !== "string") typeError(`nameExpressions[${i}]`, "a string", n);
      if (n === "" || n.includes("\0")) throw new RangeError(`Program.compile: nameExpressions[${i}]: expected a non-empty name expression, got ${describeValue(n)}`);
    });
    return [...new Set(value as string[])];
  }

  #compileNow(target: CompileTarget, names: readonly string[], logs: LogSink | undefined): ObjectCode {
    const name = this.options.name;
    try {
      if (this.#nvrtc !== undefined) {
        if (this.#nvrtcUsed) this.#renewNvrtc();
        this.#nvrtcUsed = true;
        const out = this.#nvrtc.compile(target, this.options.asFlags("nvrtc", target), names);
        this.#log = out.log;
        writeLog(logs, out.log);
        return FACTORIES[target](out.code, { name, symbolMapping: out.symbolMapping });
      }
      if (this.#nvvm !== undefined) {
        const out = this.#nvvm.compile(this.options.asFlags("nvvm", target), this.options.useLibdevice === true);
        this.#log = out.log;
        writeLog(logs, out.log);
        return FACTORIES[target](out.code, { name });
      }
    } catch (e) {
      if (e instanceof NVRTCError || e instanceof NVVMError) {
        this.#log = e.log ?? this.#nvrtc?.log() ?? this.#nvvm?.log() ?? "";
        writeLog(logs, this.#log);
      }
      throw e;
    }
    return this.#link(target as "cubin" | "ptx", logs);
  }

  /** A fresh NVRTC program for each compilation after the first: every compilation starts from a clean state. */
  #renewNvrtc(): void {
    const fresh = new NvrtcProgram(this.#code as string, this.options.name);
    untrack(this);
    const old = this.#nvrtc;
    if (old !== undefined) releaseReporting("Program", () => old.destroy());
    this.#nvrtc = fresh;
    track(this, "Program", () => fresh.destroy());
  }

  #link(target: "cubin" | "ptx", logs: LogSink | undefined): ObjectCode {
    const ptx = ObjectCode.fromPtx(new TextEncoder().encode(this.#code as string), { name: this.options.name });
    let linker: Linker;
    try {
      linker = new Linker(ptx, this.options.toLinkerOptions());
    } catch (e) {
      if (e instanceof NVJitLinkError && e.log !== undefined) {
        this.#log = e.log;
        writeLog(logs, e.log);
      }
      throw e;
    }
    try {
      return linker.link(target);
    } finally {
      this.#log = [linker.errorLog, linker.infoLog].filter((l) => l !== "").join("\n");
      linker.close();
      if (this.#log !== "") writeLog(logs, this.#log);
    }
  }

  /** Destroys the NVRTC or NVVM program. Closing twice is harmless; ObjectCodes already made stay valid. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    untrack(this);
    const nvrtcProgram = this.#nvrtc;
    const nvvmProgram = this.#nvvm;
    if (nvrtcProgram !== undefined) releaseReporting("Program", () => nvrtcProgram.destroy());
    if (nvvmProgram !== undefined) releaseReporting("Program", () => nvvmProgram.destroy());
  }

  [Symbol.dispose](): void {
    this.close();
  }

  /** `Program(backend=..., name=...)`. */
  toString(): string {
    return `Program(backend=${this.backend}, name=${JSON.stringify(this.options.name)})`;
  }
}

function typeError(option: string, expected: string, value: unknown): never {
  throw new TypeError(`Program.compile: ${option}: expected ${expected}, got ${describeValue(value)}`);
}
