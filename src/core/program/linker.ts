/**
 * `Linker`: links ObjectCodes (PTX, cubin, fatbin, LTO-IR, relocatable objects, libraries) into a cubin or PTX,
 * through nvJitLink, or through the driver's `cuLink*` functions when nvJitLink cannot be used (with a warning
 * printed once). As in cuda.core:
 *
 * ```ts
 * using linker = new Linker(a, b, { arch: "sm_90", linkTimeOptimization: true });
 * const cubin = linker.link("cubin");
 * ```
 *
 * The inputs are added when the Linker is built; `link()` completes the link. A failed link throws
 * NVJitLinkError carrying the error log (nvJitLink) or a CudaError with the log in its message (driver); both logs
 * stay readable on the Linker (`errorLog`, `infoLog`).
 *
 * @module
 */
import type { CUlinkState } from "../../bindings/driver.ts";
import type { nvJitLinkHandle } from "../../bindings/nvjitlink.ts";
import { ClosedError } from "../base/errors.ts";
import { track, untrack } from "../base/lifetime.ts";
import { releaseReporting } from "../base/release-errors.ts";
import { whichLinkerBackend, type LinkerBackend } from "./linker-backend.ts";
import { DriverLinkSession } from "./linker-driver.ts";
import { NvJitLinkSession } from "./linker-nvjitlink.ts";
import { LinkerOptions, type LinkerOptionsInit } from "./linker-options.ts";
import { ObjectCode } from "./object-code.ts";
import { describeValue } from "../../errors/describe.ts";

export type { LinkerBackend } from "./linker-backend.ts";

/** What a Linker can produce. */
export type LinkTarget = "cubin" | "ptx";

const warnedIgnored = new Set<string>();

/** Links ObjectCodes into a cubin or PTX. */
export class Linker {
  /** Which linker this one uses: `"nvJitLink"` or `"driver"` (cuLink*). */
  readonly backend: LinkerBackend;
  /** The validated options. */
  readonly options: LinkerOptions;
  /** The inputs, in the order they were added. */
  readonly objectCodes: readonly ObjectCode[];
  readonly #session: NvJitLinkSession | DriverLinkSession;
  readonly #outputs = new Map<LinkTarget, Uint8Array>();
  #completed = false;
  #closed = false;
  #errorLog: string | undefined;
  #infoLog: string | undefined;

  /** Links `objectCodes` with default options. */
  constructor(...objectCodes: ObjectCode[]);
  /** Links `objectCodes` with `options` (the last argument). */
  constructor(...args: [...objectCodes: ObjectCode[], options: LinkerOptions | LinkerOptionsInit]);
  constructor(...args: (ObjectCode | LinkerOptions | LinkerOptionsInit)[]) {
    const last = args[args.length - 1];
    const hasOptions = args.length > 0 && !(last instanceof ObjectCode);
    const codes = (hasOptions ? args.slice(0, -1) : args) as unknown[];
    codes.forEach((c, i) => {
      if (!(c instanceof ObjectCode)) {
        throw new TypeError(`Linker: argument ${i} must be an ObjectCode (only the last argument may be the options), got ${describeValue(c)}`);
      }
    });
    if (codes.length === 0) throw new TypeError("Linker: at least one ObjectCode to link is required");
    this.objectCodes = Object.freeze([...(codes as ObjectCode[])]);
    this.options = LinkerOptions.from(hasOptions ? (last as LinkerOptions | LinkerOptionsInit) : undefined);
    const needsNvJitLink = this.options.needsNvJitLink || this.objectCodes.some((c) => c.format === "ltoir");
    this.backend = whichLinkerBackend(needsNvJitLink);
    let session: NvJitLinkSession | DriverLinkSession;
    if (this.backend === "nvJitLink") {
      session = new NvJitLinkSession(this.options.asFlags());
    } else {
      session = new DriverLinkSession(this.options);
      for (const option of this.options.driverJitOptions(0).ignored) {
        if (warnedIgnored.has(option)) continue;
        warnedIgnored.add(option);
        console.warn(`cuda-ts: LinkerOptions.${option} is ignored by the driver's linker (cuLink*); nvJitLink honours it.`);
      }
    }
    try {
      for (const code of this.objectCodes) session.add(code);
    } catch (e) {
      this.#errorLog = session.errorLog();
      this.#infoLog = session.infoLog();
      releaseReporting("Linker", () => session.destroy());
      throw e;
    }
    this.#session = session;
    track(this, "Linker", () => session.destroy());
  }

  /**
   * The backend a Linker would use in this process, without LTO: `"nvJitLink"` when it loads (12.3+) and matches
   * the driver's major version, else `"driver"` (printing a warning once).
   */
  static whichBackend(): LinkerBackend {
    return whichLinkerBackend(false);
  }

  /**
   * Completes the link and returns the result: a cubin, or PTX (nvJitLink with linkTimeOptimization only). With
   * nvJitLink, a completed link can be asked for both.
   */
  link(target: LinkTarget = "cubin"): ObjectCode {
    if (this.#closed) throw new ClosedError("Linker", "link");
    if (target !== "cubin" && target !== "ptx") {
      throw new RangeError(`Linker.link: expected target "cubin" or "ptx", got ${describeValue(target)}`);
    }
    if (target === "ptx" && !this.options.linkTimeOptimization) {
      throw new RangeError('Linker.link("ptx"): linked PTX comes only from link-time optimisation; pass { linkTimeOptimization: true } (and LTO-IR inputs)');
    }
    let bytes = this.#outputs.get(target);
    if (bytes === undefined) {
      try {
        if (!this.#completed) {
          bytes = this.#session.complete(target);
          this.#completed = true;
        } else if (this.#session instanceof NvJitLinkSession) {
          bytes = this.#session.output(target);
        } else {
          throw new RangeError(`Linker.link: the driver's linker is already complete and gave a cubin; ${target} cannot be had from it`);
        }
      } finally {
        this.#errorLog = this.#session.errorLog();
        this.#infoLog = this.#session.infoLog();
      }
      this.#outputs.set(target, bytes);
    }
    const options = { name: this.options.name };
    return target === "cubin" ? ObjectCode.fromCubin(bytes, options) : ObjectCode.fromPtx(bytes, options);
  }

  /** The linker's error log (after a failure, what went wrong). */
  get errorLog(): string {
    return this.#errorLog ?? (this.#closed ? "" : this.#session.errorLog());
  }

  /** The linker's info log (with `verbose` or `time`, what it did). */
  get infoLog(): string {
    return this.#infoLog ?? (this.#closed ? "" : this.#session.infoLog());
  }

  /** The nvJitLink handle or the driver's CUlinkState. */
  get handle(): nvJitLinkHandle | CUlinkState {
    if (this.#closed) throw new ClosedError("Linker", "use its handle");
    return this.#session.handle;
  }

  /** Whether close() has been called. */
  get isClosed(): boolean {
    return this.#closed;
  }

  /** Destroys the link (the logs stay readable). Closing twice is harmless. */
  close(): void {
    if (this.#closed) return;
    this.#errorLog ??= this.#session.errorLog();
    this.#infoLog ??= this.#session.infoLog();
    this.#closed = true;
    untrack(this);
    const session = this.#session;
    releaseReporting("Linker", () => session.destroy());
  }

  [Symbol.dispose](): void {
    this.close();
  }

  /** `Linker(backend=..., inputs=N)`. */
  toString(): string {
    return `Linker(backend=${this.backend}, inputs=${this.objectCodes.length})`;
  }
}
