/**
 * CUPTI, the CUDA Profiling Tools Interface (libcupti).
 *
 * @module
 */
import { type Checked, createChecked, generatedTables, CUptiResult, functions, library as info, type Raw } from "./tables/cupti.ts";
import { ffi } from "../ffi/index.ts";
import { type BindingExtras, createBinding } from "./binding.ts";
import { statusName } from "./describe.ts";
import { LibraryError } from "./errors.ts";

export * from "./tables/cupti.ts";

/** A CUPTI call failed. */
export class CUPTIError extends LibraryError {
  constructor(code: number, codeName: string, description: string, functionName: string) {
    super("cupti", code, codeName, description, functionName);
    this.name = "CUPTIError";
  }
}

/** CUPTI: checked functions, `.raw`, and the binding's facts. */
export type CuptiBinding = Checked & BindingExtras<Raw>;

function describe(code: number): string | undefined {
  if (cupti.loaded === undefined) return undefined;
  try {
    const slot = new ArrayBuffer(8);
    if (cupti.raw.cuptiGetResultString(code as CUptiResult, ffi.pointerOf(slot)) !== 0) return undefined;
    return ffi.readCString(ffi.readPointer(new DataView(slot), 0)) ?? undefined;
  } catch {
    return undefined;
  }
}

/** CUPTI. */
export const cupti: CuptiBinding = createBinding<Raw, Checked>({
  library: "cupti",
  info,
  functions,
  createChecked,
  tables: () => generatedTables,
  makeError: (code, fn) => cuptiError(Number(code), fn),
});

/** The typed error of a CUPTI status `code` that `functionName` returned (for callers of the raw or non-blocking style). */
export function cuptiError(code: number, functionName: string): CUPTIError {
  return new CUPTIError(code, statusName(CUptiResult, "CUptiResult", code), describe(code) ?? "no description", functionName);
}
