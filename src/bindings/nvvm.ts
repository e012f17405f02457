/**
 * libNVVM, the NVVM IR compiler (libnvvm). A failed compilation or verification throws an NVVMError carrying the
 * program log.
 *
 * @module
 */
import { type Checked, createChecked, generatedTables, functions, library as info, type nvvmProgram, nvvmResult, type Raw } from "./tables/nvvm.ts";
import { type BindingExtras, chooseBySoname, createBinding } from "./binding.ts";
import { libraryDescription, readLog, statusName } from "./describe.ts";
import { NVVMError } from "./errors.ts";

export * from "./tables/nvvm.ts";

/** libNVVM: checked functions, `.raw`, and the binding's facts. */
export type NvvmBinding = Checked & BindingExtras<Raw>;

/** The program log of an NVVM program (empty when there is none or it cannot be read). */
export function nvvmProgramLog(prog: nvvmProgram): string {
  return readLog((out) => nvvm.raw.nvvmGetProgramLogSize(prog, out), (buf) => nvvm.raw.nvvmGetProgramLog(prog, buf)) ?? "";
}

/** libNVVM. */
export const nvvm: NvvmBinding = createBinding<Raw, Checked>({
  library: "nvvm",
  info,
  functions,
  createChecked,
  tables: () => generatedTables,
  // nvvmVersion is NVVM's own version (2.0 in CUDA 12.4 and 13.0), not the toolkit's, and the soname is
  // libnvvm.so.4 in both: the newest table, whose functions 12.4's libNVVM has too.
  chooseTable: chooseBySoname,
  makeError: (code, fn, subject) => {
    const c = Number(code);
    const log = fn === "nvvmCompileProgram" || fn === "nvvmVerifyProgram" ? nvvmProgramLog(subject as nvvmProgram) : undefined;
    return new NVVMError(c, statusName(nvvmResult, "nvvmResult", c), libraryDescription(nvvm, "nvvmGetErrorString", c) ?? "no description", fn, log);
  },
});
