/**
 * nvJitLink, the JIT linker (libnvJitLink). A failed link throws an NVJitLinkError carrying the error log.
 *
 * @module
 */
import { type Checked, createChecked, generatedTables, functions, library as info, type nvJitLinkHandle, nvJitLinkResult, type Raw } from "./tables/nvjitlink.ts";
import { type BindingExtras, chooseByVersion, majorMinor, queryInts, createBinding } from "./binding.ts";
import { readLog, statusName } from "./describe.ts";
import { NVJitLinkError } from "./errors.ts";

export * from "./tables/nvjitlink.ts";

/** nvJitLink: checked functions, `.raw`, and the binding's facts. */
export type NvJitLinkBinding = Checked & BindingExtras<Raw>;

const DESCRIPTIONS: Record<string, string> = {
  NVJITLINK_ERROR_UNRECOGNIZED_OPTION: "an option was not recognised",
  NVJITLINK_ERROR_MISSING_ARCH: "no -arch option was given",
  NVJITLINK_ERROR_INVALID_INPUT: "an input is invalid",
  NVJITLINK_ERROR_PTX_COMPILE: "PTX compilation failed",
  NVJITLINK_ERROR_NVVM_COMPILE: "NVVM (LTO) compilation failed",
  NVJITLINK_ERROR_INTERNAL: "internal error",
  NVJITLINK_ERROR_THREADPOOL: "thread pool error",
  NVJITLINK_ERROR_UNRECOGNIZED_INPUT: "an input's type was not recognised",
  NVJITLINK_ERROR_FINALIZE: "finalisation failed",
  NVJITLINK_ERROR_NULL_INPUT: "an input is NULL",
  NVJITLINK_ERROR_INCOMPATIBLE_OPTIONS: "incompatible options",
  NVJITLINK_ERROR_INCORRECT_INPUT_TYPE: "an input has the wrong type",
  NVJITLINK_ERROR_ARCH_MISMATCH: "an input's architecture does not match -arch",
  NVJITLINK_ERROR_OUTDATED_LIBRARY: "an input was made by a newer toolkit than this nvJitLink",
  NVJITLINK_ERROR_MISSING_FATBIN: "a fatbinary input is missing what is needed",
};

/** The error log of a link (empty when there is none or it cannot be read). */
export function nvJitLinkErrorLog(handle: nvJitLinkHandle): string {
  return readLog((out) => nvjitlink.raw.nvJitLinkGetErrorLogSize(handle, out), (buf) => nvjitlink.raw.nvJitLinkGetErrorLog(handle, buf)) ?? "";
}

/** The info log of a link. */
export function nvJitLinkInfoLog(handle: nvJitLinkHandle): string {
  return readLog((out) => nvjitlink.raw.nvJitLinkGetInfoLogSize(handle, out), (buf) => nvjitlink.raw.nvJitLinkGetInfoLog(handle, buf)) ?? "";
}

/** nvJitLink. */
export const nvjitlink: NvJitLinkBinding = createBinding<Raw, Checked>({
  library: "nvJitLink",
  info,
  functions,
  createChecked,
  tables: () => generatedTables,
  chooseTable: chooseByVersion("nvJitLinkVersion", (lib) => majorMinor(queryInts(lib, "nvJitLinkVersion", 2))),
  makeError: (code, fn, subject) => {
    const c = Number(code);
    const name = statusName(nvJitLinkResult, "nvJitLinkResult", c);
    const log = subject !== undefined && fn !== "nvJitLinkDestroy" ? nvJitLinkErrorLog(subject as nvJitLinkHandle) : undefined;
    return new NVJitLinkError(c, name, DESCRIPTIONS[name] ?? "no description", fn, log || undefined);
  },
});
