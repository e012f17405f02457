/**
 * A C++ program compiled by NVRTC: the program handle, one compilation (name expressions added, flags passed,
 * the output read, the lowered names looked up), the log, and the handle's destruction. A failed compilation
 * throws NVRTCError carrying the program log.
 *
 * @module
 */
import { driver } from "../../bindings/driver.ts";
import { formatCudaVersion } from "../../bindings/describe.ts";
import type { NvrtcBinding, nvrtcProgram } from "../../bindings/nvrtc.ts";
import { nvrtcModule } from "./libraries.ts";
import type { CompileTarget } from "./options.ts";
import { PACKAGE_HEADERS } from "./package-headers.ts";

/** The package's headers (cuda_ts/array.h), handed to every program: NVRTC reads one only where it is included. */
const HEADER_NAMES = Object.keys(PACKAGE_HEADERS);
const HEADER_SOURCES = HEADER_NAMES.map((n) => PACKAGE_HEADERS[n]!);

/** NVRTC's checked binding (loaded on first use: ./libraries.ts). */
function nvrtc(): NvrtcBinding {
  return nvrtcModule().nvrtc;
}

/** What one NVRTC compilation produced. */
export interface NvrtcOutput {
  /** The PTX, cubin or LTO-IR. */
  readonly code: Uint8Array;
  /** Name expressions → lowered names. */
  readonly symbolMapping: Record<string, string>;
  /** The program log (warnings; empty when there are none). */
  readonly log: string;
}

/** NVRTC's version as `"nvrtc <major>.<minor>"` (loads NVRTC). */
export function nvrtcVersionString(): string {
  const [major, minor] = nvrtc().nvrtcVersion();
  return `nvrtc ${major}.${minor}`;
}

let ptxWarned = false;

/** Warns once when the driver is older than NVRTC, so the PTX it generates will not load. */
function warnIfPtxTooNew(): void {
  if (ptxWarned) return;
  try {
    const [major, minor] = nvrtc().nvrtcVersion();
    const driverVersion = driver.driverVersion();
    if (driverVersion > 0 && major * 1000 + minor * 10 > driverVersion) {
      ptxWarned = true;
      console.warn(
        `cuda-ts: NVRTC ${major}.${minor} is newer than the CUDA driver (${formatCudaVersion(driverVersion)}); ` +
          'the PTX it generates will not load on this driver. Compile to "cubin" instead, or update the driver.',
      );
    }
  } catch {
    // No driver: nothing will load the PTX here, so there is nothing to warn about.
  }
}

/** One NVRTC program. */
export class NvrtcProgram {
  /** The NVRTC handle. */
  readonly handle: nvrtcProgram;
  #destroyed = false;

  /**
   * Creates the program, with the package's own headers in memory (`#include <cuda_ts/array.h>` works without an
   * include path); headers of the user's come through include paths, as in cuda.core.
   */
  constructor(source: string, name: string) {
    this.handle = nvrtc().nvrtcCreateProgram(source, name, HEADER_NAMES.length, HEADER_SOURCES, HEADER_NAMES);
  }

  /** Compiles to `target` with `flags`, registering `nameExpressions` first. Throws NVRTCError with the log. */
  compile(target: CompileTarget, flags: readonly string[], nameExpressions: readonly string[]): NvrtcOutput {
    for (const n of nameExpressions) nvrtc().nvrtcAddNameExpression(this.handle, n);
    if (target === "ptx") warnIfPtxTooNew();
    nvrtc().nvrtcCompileProgram(this.handle, flags.length, flags);
    const code = this.#output(target);
    const symbolMapping: Record<string, string> = {};
    for (const n of nameExpressions) {
      const lowered = nvrtc().nvrtcGetLoweredName(this.handle, n);
      if (lowered !== null) symbolMapping[n] = lowered;
    }
    return { code, symbolMapping, log: this.log() };
  }

  #output(target: CompileTarget): Uint8Array {
    const h = this.handle;
    const size = Number(target === "ptx" ? nvrtc().nvrtcGetPTXSize(h) : target === "cubin" ? nvrtc().nvrtcGetCUBINSize(h) : nvrtc().nvrtcGetLTOIRSize(h));
    const out = new Uint8Array(new ArrayBuffer(size));
    if (size > 0) {
      if (target === "ptx") nvrtc().nvrtcGetPTX(h, out);
      else if (target === "cubin") nvrtc().nvrtcGetCUBIN(h, out);
      else nvrtc().nvrtcGetLTOIR(h, out);
    }
    return out;
  }

  /** The program log (empty when there is none). */
  log(): string {
    return this.#destroyed ? "" : nvrtcModule().nvrtcProgramLog(this.handle);
  }

  /** Destroys the program (once); a failure throws NVRTCError. */
  destroy(): void {
    if (this.#destroyed) return;
    this.#destroyed = true;
    nvrtc().nvrtcDestroyProgram(this.handle);
  }
}
