/**
 * NVRTC, the runtime compiler (libnvrtc). A failed `nvrtcCompileProgram` throws an NVRTCError carrying the
 * program log.
 *
 * @module
 */
import { type Checked, createChecked, functions, library as info, nvrtcResult, type nvrtcProgram, type Raw } from "../../generated/cuda-13.0/nvrtc/index.ts";
import { type BindingExtras, createBinding } from "./binding.ts";
import { libraryDescription, readLog, statusName } from "./describe.ts";
import { NVRTCError } from "./errors.ts";

export * from "../../generated/cuda-13.0/nvrtc/index.ts";

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
  makeError: (code, fn, subject) => {
    const c = Number(code);
    const log = fn === "nvrtcCompileProgram" ? nvrtcProgramLog(subject as nvrtcProgram) : undefined;
    return new NVRTCError(c, statusName(nvrtcResult, "nvrtcResult", c), libraryDescription(nvrtc, "nvrtcGetErrorString", c) ?? "no description", fn, log);
  },
});
