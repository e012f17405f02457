/**
 * A link through nvJitLink: create with the flag strings, add each input with its `NVJITLINK_INPUT_*` type,
 * complete, read the cubin or PTX, destroy. Failures throw NVJitLinkError with the linker's error log.
 *
 * @module
 */
import { nvjitlink, nvJitLinkErrorLog, nvJitLinkInfoLog, nvJitLinkInputType, type nvJitLinkHandle } from "../../bindings/nvjitlink.ts";
import { ffi } from "../../ffi/index.ts";
import type { ObjectCode, ObjectCodeFormat } from "./object-code.ts";
import { handleSlot } from "./handle-slot.ts";

/** The nvJitLink input type of each ObjectCode format. */
export const NVJITLINK_INPUT_TYPES: Readonly<Record<ObjectCodeFormat, nvJitLinkInputType>> = Object.freeze({
  cubin: nvJitLinkInputType.NVJITLINK_INPUT_CUBIN,
  ptx: nvJitLinkInputType.NVJITLINK_INPUT_PTX,
  ltoir: nvJitLinkInputType.NVJITLINK_INPUT_LTOIR,
  fatbin: nvJitLinkInputType.NVJITLINK_INPUT_FATBIN,
  object: nvJitLinkInputType.NVJITLINK_INPUT_OBJECT,
  library: nvJitLinkInputType.NVJITLINK_INPUT_LIBRARY,
});

/** One nvJitLink link. */
export class NvJitLinkSession {
  /** The nvJitLink handle. */
  readonly handle: nvJitLinkHandle;
  #destroyed = false;

  /** Creates the link with `flags`. */
  constructor(flags: readonly string[]) {
    this.handle = nvjitlink.nvJitLinkCreate(flags.length, flags);
  }

  /** Adds one input. */
  add(code: ObjectCode): void {
    nvjitlink.nvJitLinkAddData(this.handle, NVJITLINK_INPUT_TYPES[code.format], code.code, code.code.length, code.name || code.format);
  }

  /** Completes the link and returns the linked cubin or PTX. */
  complete(target: "cubin" | "ptx"): Uint8Array {
    nvjitlink.nvJitLinkComplete(this.handle);
    return this.output(target);
  }

  /** The linked cubin or PTX of a completed link. */
  output(target: "cubin" | "ptx"): Uint8Array {
    const size = Number(target === "cubin" ? nvjitlink.nvJitLinkGetLinkedCubinSize(this.handle) : nvjitlink.nvJitLinkGetLinkedPtxSize(this.handle));
    const out = new Uint8Array(new ArrayBuffer(size));
    if (size > 0) {
      if (target === "cubin") nvjitlink.nvJitLinkGetLinkedCubin(this.handle, out);
      else nvjitlink.nvJitLinkGetLinkedPtx(this.handle, out);
    }
    return out;
  }

  /** The error log. */
  errorLog(): string {
    return this.#destroyed ? "" : nvJitLinkErrorLog(this.handle);
  }

  /** The info log. */
  infoLog(): string {
    return this.#destroyed ? "" : nvJitLinkInfoLog(this.handle);
  }

  /** Destroys the handle (once). */
  destroy(): void {
    if (this.#destroyed) return;
    this.#destroyed = true;
    nvjitlink.raw.nvJitLinkDestroy(ffi.pointerOf(handleSlot(this.handle)));
  }
}
