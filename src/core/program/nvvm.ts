/**
 * An NVVM IR program compiled by libNVVM: the program handle with its modules (the main one, `extraSources`, and
 * libdevice added lazily when `useLibdevice` is set), verification, compilation to PTX or LTO-IR, the log, and
 * the handle's destruction. Failures throw NVVMError carrying the program log.
 *
 * @module
 */
import type { NvvmBinding, nvvmProgram } from "../../bindings/nvvm.ts";
import { nvvmModule } from "./libraries.ts";
import { readFileBytes } from "../../host.ts";
import { pathfinder } from "../../pathfinder/on-demand.ts";
import { releaseReporting } from "../base/release-errors.ts";
import { HostFileError } from "./errors.ts";

/** libNVVM's checked binding (loaded on first use: ./libraries.ts). */
function nvvm(): NvvmBinding {
  return nvvmModule().nvvm;
}

/** libNVVM's versions as `"nvvm <major>.<minor> ir <major>.<minor> debug <major>.<minor>"` (loads libNVVM). */
export function nvvmVersionString(): string {
  const [major, minor] = nvvm().nvvmVersion();
  const [irMajor, irMinor, debugMajor, debugMinor] = nvvm().nvvmIRVersion();
  return `nvvm ${major}.${minor} ir ${irMajor}.${irMinor} debug ${debugMajor}.${debugMinor}`;
}

/** The bytes of libdevice (`libdevice.10.bc`), found by the pathfinder. */
export function readLibdevice(): { path: string; bytes: Uint8Array } {
  const found = pathfinder().findBitcodeLibrary("device");
  const bytes = readFileBytes(found.path);
  if (bytes === undefined) throw new HostFileError(found.path, `cannot read libdevice at ${found.path} (under Deno, allow it with --allow-read=${found.path})`);
  return { path: found.path, bytes };
}

const encoder = new TextEncoder();

/** Text as UTF-8 bytes; bytes as they are. */
export function irBytes(source: string | Uint8Array): Uint8Array {
  return typeof source === "string" ? encoder.encode(source) : source;
}

/** One libNVVM program. */
export class NvvmProgram {
  /** The libNVVM handle. */
  readonly handle: nvvmProgram;
  #libdeviceAdded = false;
  #destroyed = false;

  /** Creates the program and adds the modules (`[name, IR]`, text or bitcode). */
  constructor(modules: readonly (readonly [name: string, source: string | Uint8Array])[]) {
    this.handle = nvvm().nvvmCreateProgram();
    try {
      for (const [name, source] of modules) {
        const bytes = irBytes(source);
        nvvm().nvvmAddModuleToProgram(this.handle, bytes, bytes.length, name);
      }
    } catch (e) {
      releaseReporting("Program", () => this.destroy());
      throw e;
    }
  }

  /** Verifies, adds libdevice once when asked, compiles with `flags`, and returns the PTX or LTO-IR and the log. */
  compile(flags: readonly string[], useLibdevice: boolean): { code: Uint8Array; log: string } {
    nvvm().nvvmVerifyProgram(this.handle, flags.length, flags);
    if (useLibdevice && !this.#libdeviceAdded) {
      const libdevice = readLibdevice().bytes;
      nvvm().nvvmLazyAddModuleToProgram(this.handle, libdevice, libdevice.length, null);
      this.#libdeviceAdded = true;
    }
    nvvm().nvvmCompileProgram(this.handle, flags.length, flags);
    const size = Number(nvvm().nvvmGetCompiledResultSize(this.handle));
    const code = new Uint8Array(new ArrayBuffer(size));
    if (size > 0) nvvm().nvvmGetCompiledResult(this.handle, code);
    return { code, log: this.log() };
  }

  /** The program log (empty when there is none). */
  log(): string {
    return this.#destroyed ? "" : nvvmModule().nvvmProgramLog(this.handle);
  }

  /** Destroys the program (once); a failure throws NVVMError. */
  destroy(): void {
    if (this.#destroyed) return;
    this.#destroyed = true;
    nvvm().nvvmDestroyProgram(this.handle);
  }
}
