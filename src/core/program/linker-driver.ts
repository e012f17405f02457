/**
 * A link through the driver's `cuLink*` functions, the fallback when nvJitLink cannot be used: the JIT options and
 * their log buffers live as long as the link state, inputs are added with their `CU_JIT_INPUT_*` type, and
 * `cuLinkComplete`'s cubin (owned by the link state) is copied out before the state is destroyed. A failure's
 * CudaError gets the linker's error log appended to its message.
 *
 * @module
 */
import { CUjitInputType, driver, type CUlinkState } from "../../bindings/driver.ts";
import { ffi } from "../../ffi/index.ts";
import type { NativePointer } from "../../ffi/types.ts";
import { ensureInit } from "../base/driver-state.ts";
import type { LinkerOptions } from "./linker-options.ts";
import type { ObjectCode, ObjectCodeFormat } from "./object-code.ts";

/** The driver's JIT input type of each ObjectCode format (LTO-IR needs nvJitLink; CU_JIT_INPUT_NVVM is its slot). */
export const DRIVER_INPUT_TYPES: Readonly<Record<ObjectCodeFormat, CUjitInputType>> = Object.freeze({
  cubin: CUjitInputType.CU_JIT_INPUT_CUBIN,
  ptx: CUjitInputType.CU_JIT_INPUT_PTX,
  ltoir: CUjitInputType.CU_JIT_INPUT_NVVM,
  fatbin: CUjitInputType.CU_JIT_INPUT_FATBINARY,
  object: CUjitInputType.CU_JIT_INPUT_OBJECT,
  library: CUjitInputType.CU_JIT_INPUT_LIBRARY,
});

/** Bytes of each of the info and error logs. */
const LOG_SIZE = 1 << 20;

function decodeLog(buffer: Uint8Array): string {
  const end = buffer.indexOf(0);
  return new TextDecoder().decode(end >= 0 ? buffer.subarray(0, end) : buffer);
}

/** One cuLink* link. */
export class DriverLinkSession {
  /** The link state. */
  readonly handle: CUlinkState;
  readonly #keys: Uint32Array;
  readonly #values: ArrayBuffer;
  readonly #infoLog: Uint8Array;
  readonly #errorLog: Uint8Array;
  #destroyed = false;

  /** Creates the link state with the options' JIT options (throws RangeError for options the driver lacks). */
  constructor(options: LinkerOptions) {
    const jit = options.driverJitOptions(LOG_SIZE);
    this.#keys = Uint32Array.from(jit.keys);
    this.#values = new ArrayBuffer(jit.values.length * 8);
    const dv = new DataView(this.#values);
    jit.values.forEach((v, i) => {
      if (typeof v === "number") dv.setBigUint64(i * 8, BigInt(v), true);
      else ffi.writePointer(dv, i * 8, ffi.pointerOf(v));
    });
    this.#infoLog = jit.values[0] as Uint8Array;
    this.#errorLog = jit.values[2] as Uint8Array;
    ensureInit();
    this.handle = this.#annotate(() => driver.cuLinkCreate(jit.keys.length, this.#keys, this.#values));
  }

  #annotate<T>(fn: () => T): T {
    try {
      return fn();
    } catch (e) {
      const log = this.errorLog().trim();
      if (log && e instanceof Error) e.message += `\nLinker error log: ${log}`;
      throw e;
    }
  }

  /** Adds one input. */
  add(code: ObjectCode): void {
    this.#annotate(() => driver.cuLinkAddData(this.handle, DRIVER_INPUT_TYPES[code.format], code.code, code.code.length, code.name || code.format, 0, null, null));
  }

  /** Completes the link and returns a copy of the cubin (the driver's linker emits only cubins). */
  complete(target: "cubin" | "ptx"): Uint8Array {
    if (target !== "cubin") throw new RangeError('the driver\'s linker (cuLink*) emits only "cubin"; PTX output needs nvJitLink');
    const [cubin, size] = this.#annotate(() => driver.cuLinkComplete(this.handle));
    const n = Number(size);
    const out = new Uint8Array(new ArrayBuffer(n));
    if (n > 0 && cubin !== null) out.set(new Uint8Array(ffi.view(cubin as NativePointer, n)));
    return out;
  }

  /** The error log. */
  errorLog(): string {
    return decodeLog(this.#errorLog);
  }

  /** The info log. */
  infoLog(): string {
    return decodeLog(this.#infoLog);
  }

  /** Destroys the link state (once; a failure throws CudaError). The logs stay readable. */
  destroy(): void {
    if (this.#destroyed) return;
    this.#destroyed = true;
    driver.cuLinkDestroy(this.handle);
  }
}
