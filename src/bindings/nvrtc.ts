/**
 * NVRTC, the runtime compiler (libnvrtc). A failed `nvrtcCompileProgram` throws an NVRTCError carrying the
 * program log.
 *
 * @module
 */
import { type Checked, createChecked, generatedTables, functions, library as info, nvrtcResult, type nvrtcProgram, type Raw } from "./tables/nvrtc.ts";
import { type BindingExtras, chooseByVersion, majorMinor, queryInts, createBinding } from "./binding.ts";
import { libraryDescription, readLog, statusName } from "./describe.ts";
import { NVRTCError } from "./errors.ts";

export * from "./tables/nvrtc.ts";

/** NVRTC: checked functions, `.raw`, and the binding's facts. */
export type NvrtcBinding = Checked & BindingExtras<Raw>;

/** The program log of an NVRTC program (empty when there is none or it cannot be read). */
export function nvrtcProgramLog(prog: nvrtcProgram): string {
  return readLog((out) => nvrtc.raw.nvrtcGetProgramLogSize(prog, out), (buf) => nvrtc.raw.nvrtcGetProgramLog(prog, buf)) ?? "";
}

/** NVRTC. */
export const nvrtc: NvrtcBinding = createBinding<Raw, Checked>({
  library: "nvrtc",
  info,
  functions,
  createChecked,
  tables: () => generatedTables,
  chooseTable: chooseByVersion("nvrtcVersion", (lib) => majorMinor(queryInts(lib, "nvrtcVersion", 2))),
  makeError: (code, fn, subject) => {
    const c = Number(code);
    const log = fn === "nvrtcCompileProgram" ? nvrtcProgramLog(subject as nvrtcProgram) : undefined;
    return new NVRTCError(c, statusName(nvrtcResult, "nvrtcResult", c), libraryDescription(nvrtc, "nvrtcGetErrorString", c) ?? "no description", fn, log);
  },
});
