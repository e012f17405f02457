/**
 * Turning a library's status code into words: the code's name from the generated enum, a description from the
 * library's own `...GetErrorString` when it is loaded.
 *
 * @module
 */
import { ffi } from "../ffi/index.ts";
import type { Pointer } from "../ffi/types.ts";
import { enumName } from "../tables-runtime/enum.ts";
import type { BindingExtras } from "./binding.ts";
import { CuFileError, NVMLError } from "./errors.ts";

/** The name of `code` in `statusEnum`, or `Type(code)`. */
export function statusName(statusEnum: Readonly<Record<string, number | bigint>>, type: string, code: number): string {
  return enumName(statusEnum, code) ?? `${type}(${code})`;
}

/**
 * The library's description of a status code through a `const char* fn(code)` function, or undefined when the
 * library is not loaded or has no text for it.
 */
export function libraryDescription<R>(binding: BindingExtras<R>, fn: keyof R & string, code: number): string | undefined {
  if (binding.loaded === undefined) return undefined;
  try {
    const f = (binding.raw as Record<string, (c: number) => Pointer>)[fn];
    if (f === undefined) return undefined;
    return ffi.readCString(f(code)) ?? undefined;
  } catch {
    return undefined;
  }
}

/** The largest log {@link readLog} reads (64 MiB): a larger size is taken as a broken library, not allocated. */
export const MAX_LOG_BYTES = 64 * 1024 * 1024;

/**
 * Reads a log through a `(handle, size*)` / `(handle, char*)` pair of functions; undefined when it cannot. The text
 * ends at the first NUL or the buffer's end; a size over {@link MAX_LOG_BYTES} gives a note instead of the log.
 */
export function readLog(
  size: (out: Pointer) => number,
  read: (buffer: Pointer) => number,
): string | undefined {
  try {
    const sizeBuf = new ArrayBuffer(8);
    if (size(ffi.pointerOf(sizeBuf)) !== 0) return undefined;
    const n = Number(new DataView(sizeBuf).getBigUint64(0, true));
    if (n <= 1) return "";
    if (n > MAX_LOG_BYTES) return `(the library reported a log of ${n} bytes, more than the ${MAX_LOG_BYTES} read; it was not read)`;
    const buf = new Uint8Array(new ArrayBuffer(n));
    if (read(ffi.pointerOf(buf)) !== 0) return undefined;
    const end = buf.indexOf(0);
    return new TextDecoder().decode(end >= 0 ? buf.subarray(0, end) : buf);
  } catch {
    return undefined;
  }
}

/** A CUDA version number as people write it: 13000 → "13.0", 12080 → "12.8". */
export function formatCudaVersion(version: number): string {
  return `${Math.floor(version / 1000)}.${Math.floor((version % 1000) / 10)}`;
}

/**
 * The typed error of a cuFile status `code` (a CU_FILE_* value of `opError`, the CUfileOpError enum of the tables in
 * use) that `functionName` reported.
 */
export function cuFileErrorOf(opError: Readonly<Record<string, number | bigint>>, code: number, functionName: string): CuFileError {
  const name = statusName(opError, "CUfileOpError", code);
  return new CuFileError(code, name, name.replace(/^CU_FILE_/, "").toLowerCase().replace(/_/g, " "), functionName);
}

/**
 * The typed error of an NVML status `code` (of `returnEnum`, the nvmlReturn_t of the tables in use) that
 * `functionName` reported, with NVML's own description (`nvmlErrorString`) when the binding has loaded NVML.
 */
export function nvmlErrorOf<R>(returnEnum: Readonly<Record<string, number | bigint>>, binding: BindingExtras<R & { nvmlErrorString: unknown }>, code: number, functionName: string): NVMLError {
  return new NVMLError(code, statusName(returnEnum, "nvmlReturn_t", code), libraryDescription(binding, "nvmlErrorString", code) ?? "no description", functionName);
}
