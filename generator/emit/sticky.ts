/**
 * sticky.ts of the driver: the CUresult codes after which the process cannot use CUDA any more, read from the
 * header's own documentation of each code (cuda.h says of them that the process "must be terminated and
 * relaunched", that they leave it "in an inconsistent state", or that the context "cannot be used anymore"). The
 * object layer marks the context dead when a call returns one of them, and throws its fault error instead of
 * calling the driver again.
 */
import type { IrEnum, IrLibrary } from "../ir.ts";
import type { LibrarySpec } from "../manifest.ts";

/** The status type whose codes are classified: the driver's. */
const DRIVER_STATUS = "CUresult";

/** What cuda.h says of a code that ruins the context or the process (whitespace collapsed, case ignored). */
const STICKY_WORDING = [/must be terminated and relaunched/i, /leaves the process in an inconsistent state/i, /context cannot be used anymore/i];

/** Whether an enumerator's documentation says the code ruins the context or the process. */
export function documentedAsSticky(doc: string | undefined): boolean {
  if (doc === undefined) return false;
  const text = doc.replace(/\s+/g, " ");
  return STICKY_WORDING.some((re) => re.test(text));
}

/** The status enum of `spec` when it is the driver's and this library declares it. */
function driverStatusEnum(lib: IrLibrary, spec: LibrarySpec): IrEnum | undefined {
  if (spec.status?.type !== DRIVER_STATUS) return undefined;
  return lib.enums.find((e) => e.name === DRIVER_STATUS || e.aliases.includes(DRIVER_STATUS));
}

/** The body of sticky.ts, or undefined for a library other than the driver (or a header without such codes). */
export function emitStickyStatuses(lib: IrLibrary, spec: LibrarySpec): string | undefined {
  const e = driverStatusEnum(lib, spec);
  if (e === undefined) return undefined;
  const sticky = e.constants.filter((c) => documentedAsSticky(c.doc));
  if (sticky.length === 0) return undefined;
  let out = "/**\n";
  out += ` * The ${e.name} codes whose documentation in the header says that they leave the process in an inconsistent\n`;
  out += " * state (the context cannot be used any more; the process must be terminated and relaunched), by name.\n";
  out += " */\n";
  out += "export const stickyStatuses: Readonly<Record<string, number>> = Object.freeze({\n";
  for (const c of sticky) out += `  ${c.name}: ${c.value},\n`;
  out += "});\n";
  return out;
}
