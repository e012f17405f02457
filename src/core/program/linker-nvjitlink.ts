/**
 * A link through nvJitLink: create with the flag strings, add each input with its `NVJITLINK_INPUT_*` type,
 * complete, read the cubin or PTX, destroy. Failures throw NVJitLinkError with the linker's error log.
 *
 * @module
 */
import type { NvJitLinkBinding, nvJitLinkHandle, nvJitLinkInputType } from "../../bindings/nvjitlink.ts";
import { nvjitlinkModule } from "./libraries.ts";
import type { ObjectCode, ObjectCodeFormat } from "./object-code.ts";

/** nvJitLink's checked binding (loaded on first use: ./libraries.ts). */
function nvjitlink(): NvJitLinkBinding {
  return nvjitlinkModule().nvjitlink;
}

let inputTypes: Readonly<Record<ObjectCodeFormat, nvJitLinkInputType>> | undefined;

/** The nvJitLink input type of each ObjectCode format (made on first use: it needs nvJitLink's tables). */
export function nvJitLinkInputTypes(): Readonly<Record<ObjectCodeFormat, nvJitLinkInputType>> {
  if (inputTypes !== undefined) return inputTypes;
  const { nvJitLinkInputType } = nvjitlinkModule();
  return (inputTypes = Object.freeze({
    cubin: nvJitLinkInputType.NVJITLINK_INPUT_CUBIN,
    ptx: nvJitLinkInputType.NVJITLINK_INPUT_PTX,
    ltoir: nvJitLinkInputType.NVJITLINK_INPUT_LTOIR,
    fatbin: nvJitLinkInputType.NVJITLINK_INPUT_FATBIN,
    object: nvJitLinkInputType.NVJITLINK_INPUT_OBJECT,
    library: nvJitLinkInputType.NVJITLINK_INPUT_LIBRARY,
  }));
}

/** One nvJitLink link. */
export class NvJitLinkSession {
  /** The nvJitLink handle. */
  readonly handle: nvJitLinkHandle;
  #destroyed = false;

  /** Creates the link with `flags`. */
  constructor(flags: readonly string[]) {
    this.handle = nvjitlink().nvJitLinkCreate(flags.length, flags);
  }

  /** Adds one input. */
  add(code: ObjectCode): void {
    nvjitlink().nvJitLinkAddData(this.handle, nvJitLinkInputTypes()[code.format], code.code, code.code.length, code.name || code.format);
  }

  /** Completes the link and returns the linked cubin or PTX. */
  complete(target: "cubin" | "ptx"): Uint8Array {
    nvjitlink().nvJitLinkComplete(this.handle);
    return this.output(target);
  }

  /** The linked cubin or PTX of a completed link. */
  output(target: "cubin" | "ptx"): Uint8Array {
    const size = Number(target === "cubin" ? nvjitlink().nvJitLinkGetLinkedCubinSize(this.handle) : nvjitlink().nvJitLinkGetLinkedPtxSize(this.handle));
    const out = new Uint8Array(new ArrayBuffer(size));
    if (size > 0) {
      if (target === "cubin") nvjitlink().nvJitLinkGetLinkedCubin(this.handle, out);
      else nvjitlink().nvJitLinkGetLinkedPtx(this.handle, out);
    }
    return out;
  }

  /** The error log. */
  errorLog(): string {
    return this.#destroyed ? "" : nvjitlinkModule().nvJitLinkErrorLog(this.handle);
  }

  /** The info log. */
  infoLog(): string {
    return this.#destroyed ? "" : nvjitlinkModule().nvJitLinkInfoLog(this.handle);
  }

  /** Destroys the handle (once); a failure throws NVJitLinkError. */
  destroy(): void {
    if (this.#destroyed) return;
    this.#destroyed = true;
    nvjitlink().nvJitLinkDestroy(this.handle);
  }
}
