/**
 * `ObjectCode`: compiled device code (cubin, PTX, LTO-IR, fatbin, relocatable object, library), from bytes or a
 * file. Loadable formats (cubin, PTX, fatbin) are loaded lazily through `cuLibraryLoadData`, which is
 * context-independent: the same ObjectCode serves every device and context. LTO-IR, objects and libraries are
 * inputs to the Linker.
 *
 * As in cuda.core: a string is a file path, bytes are an image.
 *
 * @module
 */
import type { CUlibrary } from "../../bindings/driver.ts";
import type { Device } from "../device.ts";
import type { DeviceArray } from "../array/device-array.ts";
import type { DTypeLike } from "../array/dtype.ts";
import { Buffer } from "../memory/buffer.ts";
import { deviceOf } from "../base/hub.ts";
import { readFileBytes } from "../../host.ts";
import { driver, ensureInit } from "../base/driver-state.ts";
import { ClosedError } from "../base/errors.ts";
import { KernelNotFoundError, HostFileError } from "./errors.ts";
import { Kernel, kMarkClosed } from "../launch/kernel.ts";
import { INTERNAL } from "../base/internal.ts";
import { track, untrack } from "../base/lifetime.ts";
import { describeValue } from "../../errors/describe.ts";
import { DeviceFaultError } from "../../bindings/driver-fault.ts";

/** The formats of device code. */
export type ObjectCodeFormat = "cubin" | "ptx" | "ltoir" | "fatbin" | "object" | "library";

/** Options of the ObjectCode factories. */
export interface ObjectCodeOptions {
  /** A name for messages and logs. */
  readonly name?: string;
  /** Name expressions → lowered (mangled) names, so `getKernel("axpy<float>")` works. */
  readonly symbolMapping?: Readonly<Record<string, string>>;
}

/** Options of {@link ObjectCode.getGlobal}. */
export interface GetGlobalOptions {
  /** The element type of the variable (`__constant__ float coeffs[16]` → "float32"). */
  readonly dtype: DTypeLike;
  /** The shape (default: as many elements as the variable holds, on one axis). */
  readonly shape?: number | readonly number[];
  /** The device whose copy of the variable to use (default: the current device). */
  readonly device?: Device;
}

/** Wraps a global's memory as a DeviceArray; provided by the array module when it loads (it sits above this one). */
type GlobalArrayFactory = (buffer: Buffer, options: GetGlobalOptions) => DeviceArray;
let globalArrayFactory: GlobalArrayFactory | undefined;

/** @internal Called once by src/core/array/device-array.ts when it loads. */
export function provideGlobalArrayFactory(f: GlobalArrayFactory): void {
  globalArrayFactory = f;
}

const LOADABLE: ReadonlySet<ObjectCodeFormat> = new Set(["cubin", "ptx", "fatbin"]);

function bytesOf(code: Uint8Array | ArrayBuffer | string, format: ObjectCodeFormat): { bytes: Uint8Array; path?: string } {
  if (typeof code === "string") {
    const bytes = readFileBytes(code);
    if (bytes === undefined) {
      throw new HostFileError(code, `cannot read ${format} file ${code}: it does not exist or may not be read (under Deno, allow it with --allow-read=${code})`);
    }
    return { bytes, path: code };
  }
  if (code instanceof ArrayBuffer) return { bytes: new Uint8Array(code) };
  if (code instanceof Uint8Array) return { bytes: code };
  throw new TypeError(`ObjectCode takes bytes (Uint8Array, ArrayBuffer) or a file path (string), not ${describeValue(code)}`);
}

/** Compiled device code. */
export class ObjectCode {
  /** The format. */
  readonly format: ObjectCodeFormat;
  /** A name for messages. */
  readonly name: string;
  /** The image (a private copy, NUL-terminated for PTX). */
  readonly code: Uint8Array;
  readonly #symbolMapping: Record<string, string>;
  #library: CUlibrary | undefined;
  #closed = false;
  readonly #kernels = new Map<string, Kernel>();

  private constructor(code: Uint8Array | ArrayBuffer | string, format: ObjectCodeFormat, options: ObjectCodeOptions) {
    const { bytes, path } = bytesOf(code, format);
    const needsNul = format === "ptx" && bytes[bytes.length - 1] !== 0;
    const copy = new Uint8Array(new ArrayBuffer(bytes.length + (needsNul ? 1 : 0)));
    copy.set(bytes);
    this.code = copy;
    this.format = format;
    this.name = options.name ?? path ?? "";
    this.#symbolMapping = { ...(options.symbolMapping ?? {}) };
  }

  /** A cubin (bytes or a file path). */
  static fromCubin(code: Uint8Array | ArrayBuffer | string, options: ObjectCodeOptions = {}): ObjectCode {
    return new ObjectCode(code, "cubin", options);
  }
  /** PTX (bytes or a file path; to load PTX text, encode it: `new TextEncoder().encode(ptx)`). */
  static fromPtx(code: Uint8Array | ArrayBuffer | string, options: ObjectCodeOptions = {}): ObjectCode {
    return new ObjectCode(code, "ptx", options);
  }
  /** LTO-IR (a Linker input). */
  static fromLtoir(code: Uint8Array | ArrayBuffer | string, options: ObjectCodeOptions = {}): ObjectCode {
    return new ObjectCode(code, "ltoir", options);
  }
  /** A fatbinary. */
  static fromFatbin(code: Uint8Array | ArrayBuffer | string, options: ObjectCodeOptions = {}): ObjectCode {
    return new ObjectCode(code, "fatbin", options);
  }
  /** A relocatable object (a Linker input). */
  static fromObject(code: Uint8Array | ArrayBuffer | string, options: ObjectCodeOptions = {}): ObjectCode {
    return new ObjectCode(code, "object", options);
  }
  /** A library archive (a Linker input). */
  static fromLibrary(code: Uint8Array | ArrayBuffer | string, options: ObjectCodeOptions = {}): ObjectCode {
    return new ObjectCode(code, "library", options);
  }

  /** Name expressions → lowered names (a copy). */
  get symbolMapping(): Record<string, string> {
    return { ...this.#symbolMapping };
  }

  /** The loaded CUlibrary (loads on first use). Only cubin, PTX and fatbin load. */
  get handle(): CUlibrary {
    if (this.#closed) throw new ClosedError(`ObjectCode ${this.name || this.format}`, "load or use it");
    if (this.#library === undefined) {
      if (!LOADABLE.has(this.format)) {
        throw new TypeError(`${this.format} cannot be loaded: it is a Linker input. Link it (new Linker(...).link("cubin")) first.`);
      }
      ensureInit();
      const lib = driver.cuLibraryLoadData(this.code, null, null, 0, null, null, 0);
      this.#library = lib;
      track(this, "ObjectCode", () => driver.cuLibraryUnload(lib));
    }
    return this.#library;
  }

  /** A kernel by name: a name expression given at compile time (`axpy<float>`), a lowered name, or an extern "C" name. */
  getKernel(name: string): Kernel {
    if (typeof name !== "string" || name === "") throw new TypeError("getKernel takes the kernel's name (a non-empty string)");
    let k = this.#kernels.get(name);
    if (k !== undefined && !k.isClosed) return k;
    let lowered = this.#symbolMapping[name] ?? name;
    let handle;
    try {
      try {
        handle = driver.cuLibraryGetKernel(this.handle, lowered);
      } catch (e) {
        // A plain C++ kernel's name ("spin" for _Z4spinxPii): accepted when exactly one kernel has it.
        const mangled = lowered === name && /^[A-Za-z_]\w*$/.test(name) ? this.#mangledNamed(name) : undefined;
        if (mangled === undefined) throw e;
        lowered = mangled;
        handle = driver.cuLibraryGetKernel(this.handle, lowered);
      }
    } catch (e) {
      // A fault of earlier device code is the fault, not a missing kernel.
      if (e instanceof DeviceFaultError) throw e;
      const known = Object.keys(this.#symbolMapping);
      throw new KernelNotFoundError(
        name,
        lowered,
        `no kernel ${JSON.stringify(name)}${lowered !== name ? ` (lowered ${lowered})` : ""} in ${this.name || `this ${this.format}`}` +
          (known.length ? `; name expressions given at compile time: ${known.join(", ")}` : "; for templates or overloads, pass nameExpressions when compiling") +
          ` (${(e as Error).message})`,
        { cause: e },
      );
    }
    k = new Kernel(INTERNAL, handle, this, name, lowered);
    this.#kernels.set(name, k);
    return k;
  }

  /** The one kernel whose mangled name is the plain function `name` (any parameters), or undefined. */
  #mangledNamed(name: string): string | undefined {
    const names = this.kernelNames();
    const prefix = `_Z${name.length}${name}`;
    const hits = names.filter((n) => n.startsWith(prefix) && !/^[\d]/.test(n.slice(prefix.length)) && n.slice(prefix.length, prefix.length + 1) !== "I");
    if (hits.length > 1) {
      throw new TypeError(`${name} is overloaded in ${this.name || `this ${this.format}`} (${hits.join(", ")}): ask for one by its mangled name or a name expression`);
    }
    return hits[0];
  }

  /**
   * The address and size of a `__device__` or `__constant__` variable in a device's context (cuLibraryGetGlobal;
   * default: the current device). A name expression given at compile time (`"&coeffs"`) or the symbol works.
   */
  getGlobalAddress(name: string, device?: Device): { readonly address: bigint; readonly size: number } {
    if (typeof name !== "string" || name === "") throw new TypeError("getGlobalAddress takes the variable's name (a non-empty string)");
    const lowered = this.#symbolMapping[name] ?? this.#symbolMapping[`&${name}`] ?? name;
    const dev = device ?? deviceOf();
    const lib = this.handle;
    try {
      const [ptr, bytes] = dev.withContext(() => driver.cuLibraryGetGlobal(lib, lowered));
      return { address: BigInt(ptr), size: Number(bytes) };
    } catch (e) {
      throw new KernelNotFoundError(
        name,
        lowered,
        `no global variable ${JSON.stringify(name)}${lowered !== name ? ` (lowered ${lowered})` : ""} in ${this.name || `this ${this.format}`}: declare it __device__ or __constant__ (extern "C", or pass "&name" in nameExpressions) (${(e as Error).message})`,
        { cause: e },
      );
    }
  }

  /**
   * A `__device__` or `__constant__` variable as a DeviceArray over its memory (read and write it with copies, as
   * any array; the array keeps this ObjectCode alive): `code.getGlobal("coeffs", { dtype: "float32" })`.
   */
  getGlobal(name: string, options: GetGlobalOptions): DeviceArray {
    if (options === null || typeof options !== "object") throw new TypeError("getGlobal takes options { dtype, shape?, device? }");
    if (globalArrayFactory === undefined) throw new ReferenceError("cuda-ts: src/core/array/device-array.ts has not loaded: import cuda-ts (src/index.ts), which loads it");
    const { address, size } = this.getGlobalAddress(name, options.device);
    return globalArrayFactory(Buffer.fromHandle(address, size, { owner: this }), options);
  }

  /** The (mangled) names of every kernel in the loaded code. */
  kernelNames(): string[] {
    const lib = this.handle;
    const n = driver.cuLibraryGetKernelCount(lib);
    if (n === 0) return [];
    return driver.cuLibraryEnumerateKernels(n, lib).map((k) => driver.cuKernelGetName(k) ?? "");
  }

  /** Whether close() has been called. */
  get isClosed(): boolean {
    return this.#closed;
  }

  /** Unloads the library (kernels taken from it stop working). Closing twice is harmless. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const k of this.#kernels.values()) k[kMarkClosed]();
    if (this.#library !== undefined) {
      untrack(this);
      driver.cuLibraryUnload(this.#library);
    }
  }

  [Symbol.dispose](): void {
    this.close();
  }
}
