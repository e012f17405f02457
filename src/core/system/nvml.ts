/**
 * The NVML session behind `system`: NVML (libnvidia-ml.so.1, a driver library the pathfinder finds through the
 * system loader) is initialised once, on first use, and shut down when the process exits.
 *
 * Exit hook: Deno fires the `unload` event on a normal end, on `Deno.exit()` and on `process.exit()`, so the
 * hook is an `unload` listener there; Bun fires `process.on("exit")` on a normal end and on `process.exit()`.
 * Neither runs the hook when the process dies of an uncaught error or a signal; NVML needs no shutdown then (the
 * driver releases a dead process's resources), so the hook is tidiness, not a requirement.
 *
 * Optional readings: a device that cannot report something (NVML_ERROR_NOT_SUPPORTED, or a driver too old to
 * export the function) gives `undefined` through {@link optional}; every other failure throws NVMLError.
 *
 * @module
 */
import { FunctionNotFoundError, NVMLError } from "../../bindings/errors.ts";
import type { NvmlSystemBinding } from "./nvml-binding.ts";
import { nvmlModule } from "./nvml-module.ts";
import { nvmlReturn_t } from "../../../generated/cuda-13.0/nvml/system.enums.ts";

/** The NVML functions the `system` module calls (the checked style of the binding; tests substitute a fake). */
export type NvmlApi = Pick<
  NvmlSystemBinding,
  | "nvmlInit"
  | "nvmlShutdown"
  | "nvmlSystemGetDriverVersion"
  | "nvmlSystemGetNVMLVersion"
  | "nvmlSystemGetCudaDriverVersion_v2"
  | "nvmlSystemGetProcessName"
  | "nvmlDeviceGetCount"
  | "nvmlDeviceGetHandleByIndex"
  | "nvmlDeviceGetHandleByUUID"
  | "nvmlDeviceGetHandleByPciBusId"
  | "nvmlDeviceGetIndex"
  | "nvmlDeviceGetName"
  | "nvmlDeviceGetUUID"
  | "nvmlDeviceGetPciInfo"
  | "nvmlDeviceGetMemoryInfo"
  | "nvmlDeviceGetMemoryInfo_v2"
  | "nvmlDeviceGetUtilizationRates"
  | "nvmlDeviceGetTemperatureV"
  | "nvmlDeviceGetTemperature"
  | "nvmlDeviceGetPowerUsage"
  | "nvmlDeviceGetEnforcedPowerLimit"
  | "nvmlDeviceGetClockInfo"
  | "nvmlDeviceGetMaxClockInfo"
  | "nvmlDeviceGetFanSpeed"
  | "nvmlDeviceGetPerformanceState"
  | "nvmlDeviceGetPersistenceMode"
  | "nvmlDeviceGetDisplayActive"
  | "nvmlDeviceGetComputeMode"
  | "nvmlDeviceGetMigMode"
  | "nvmlDeviceGetTotalEccErrors"
  | "nvmlDeviceGetCudaComputeCapability"
  | "nvmlDeviceGetComputeRunningProcesses"
>;

/** NVML status codes this layer treats specially. */
export const NVML_ERROR_NOT_SUPPORTED = nvmlReturn_t.NVML_ERROR_NOT_SUPPORTED;
export const NVML_ERROR_NOT_FOUND = nvmlReturn_t.NVML_ERROR_NOT_FOUND;
export const NVML_ERROR_INSUFFICIENT_SIZE = nvmlReturn_t.NVML_ERROR_INSUFFICIENT_SIZE;
export const NVML_ERROR_FUNCTION_NOT_FOUND = nvmlReturn_t.NVML_ERROR_FUNCTION_NOT_FOUND;
export const NVML_ERROR_ARGUMENT_VERSION_MISMATCH = nvmlReturn_t.NVML_ERROR_ARGUMENT_VERSION_MISMATCH;

let override: NvmlApi | undefined;
let ready = false;
let hooked = false;
let session = 0;

/** The active NVML functions: the binding, or the fake installed by {@link useNvmlForTesting}. */
function library(): NvmlApi {
  return override ?? nvmlModule().nvml;
}

/**
 * NVML, initialised (nvmlInit_v2 once per session). Throws LibraryNotFoundError where there is no
 * libnvidia-ml, and NVMLError where NVML cannot start (NVML_ERROR_DRIVER_NOT_LOADED, ...).
 */
export function nvmlSession(): NvmlApi {
  const lib = library();
  if (!ready) {
    lib.nvmlInit();
    ready = true;
    session++;
    hookExit();
  }
  return lib;
}

/** A number that changes every time NVML is initialised again (device handles of older sessions are stale). */
export function nvmlSessionId(): number {
  return session;
}

/** Whether NVML is initialised now. */
export function nvmlIsInitialized(): boolean {
  return ready;
}

/**
 * Shuts NVML down now (nvmlShutdown) if this module initialised it; the next use initialises it again. Harmless
 * when NVML was never initialised. Called at process exit.
 */
export function shutdownNvml(): void {
  if (!ready) return;
  ready = false;
  library().nvmlShutdown();
}

function shutdownQuietly(): void {
  try {
    shutdownNvml();
  } catch {
    // The process is ending: nothing to report to.
  }
}

interface ExitHost {
  readonly Deno?: unknown;
  readonly process?: { on?(event: "exit", listener: () => void): unknown };
  addEventListener?(type: "unload", listener: () => void): void;
}

function hookExit(): void {
  if (hooked) return;
  hooked = true;
  const host = globalThis as ExitHost;
  if (host.Deno !== undefined && typeof host.addEventListener === "function") host.addEventListener("unload", shutdownQuietly);
  else if (typeof host.process?.on === "function") host.process.on("exit", shutdownQuietly);
}

/**
 * Replaces NVML by `fake` (or restores the real binding with `undefined`), shutting down the current session
 * first. For tests: no NVML function reaches the library while a fake is installed.
 */
export function useNvmlForTesting(fake: NvmlApi | undefined): void {
  shutdownNvml();
  override = fake;
}

/** The NVML status code of an error, or undefined for anything else. */
export function nvmlCode(e: unknown): number | undefined {
  return e instanceof NVMLError ? e.code : undefined;
}

/** Whether a failure means "this device or driver cannot report that" rather than an error. */
function isNotSupported(e: unknown): boolean {
  if (e instanceof FunctionNotFoundError) return true;
  const code = nvmlCode(e);
  return code === NVML_ERROR_NOT_SUPPORTED || code === NVML_ERROR_FUNCTION_NOT_FOUND;
}

/** Whether a versioned call should be retried with the older, unversioned function. */
export function needsFallback(e: unknown): boolean {
  return e instanceof FunctionNotFoundError || nvmlCode(e) === NVML_ERROR_FUNCTION_NOT_FOUND || nvmlCode(e) === NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
}

/** `read()`, or `undefined` when the reading is not supported ({@link isNotSupported}); other failures throw. */
export function optional<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch (e) {
    if (isNotSupported(e)) return undefined;
    throw e;
  }
}

/**
 * NVML's version word of a versioned struct: `NVML_STRUCT_VERSION(name, v)` is `sizeof(struct) | (v << 24)`
 * (nvmlMemory_v2 = 40 | 2 << 24).
 */
export function structVersion(size: number, version: number): number {
  if (!Number.isInteger(size) || size <= 0 || size >= 1 << 24) throw new RangeError(`a struct size is 1..2^24-1 bytes, not ${size}`);
  if (!Number.isInteger(version) || version < 0 || version > 255) throw new RangeError(`a struct version is 0..255, not ${version}`);
  return (size | (version << 24)) >>> 0;
}

const decoder = new TextDecoder();

/** Decodes a NUL-terminated C string from bytes (up to the first NUL, or all of them). */
export function decodeCString(bytes: Uint8Array | Int8Array): string {
  const u8 = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const end = u8.indexOf(0);
  return decoder.decode(u8.subarray(0, end < 0 ? u8.length : end));
}

/** Calls an NVML string getter with a fresh `size`-byte buffer and decodes the result. */
export function readString(size: number, fill: (buffer: Uint8Array, length: number) => void): string {
  const buffer = new Uint8Array(new ArrayBuffer(size));
  fill(buffer, size);
  return decodeCString(buffer);
}
