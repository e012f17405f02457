/**
 * How the math libraries' bindings (cuBLAS, cuBLASLt, cuFFT, cuRAND, cuSOLVER, cuSPARSE) choose a generated table:
 * by the loaded library's own version, which `<lib>GetProperty` reports without a GPU or a driver. Most of these
 * libraries number their releases apart from the CUDA Toolkit (CUDA 12.4 ships cuFFT 11.2, cuRAND 10.3.5,
 * cuSOLVER 11.6 and cuSPARSE 12.3; CUDA 13.0 cuFFT 12.0, cuRAND 10.4, cuSOLVER 12.0 and cuSPARSE 12.6), and cuRAND
 * and cuSPARSE keep one soname across toolkits, so neither the soname nor a CUDA version says which table fits.
 * Each table's own headers say which library version they declare (`CUFFT_VER_MAJOR`, ...): the binding takes the
 * newest table whose headers are not newer than the loaded library (by major and minor version). cuBLAS and cuBLASLt
 * number their releases as the toolkit does, so their tables are compared by the toolkit's version.
 *
 * @module
 */
import { ffi } from "../ffi/index.ts";
import type { FunctionType } from "../ffi/types.ts";
import { type LoadedLibrary, type TableChooser, chooseBySoname } from "./binding.ts";
import type { GeneratedTable } from "./tables/registry.ts";

/** A library version as (major, minor, patch). */
export type LibraryVersion = readonly [number, number, number];

/** `libraryPropertyType`'s members (library_types.h), in the order of their values: MAJOR_VERSION, MINOR_VERSION, PATCH_LEVEL. */
const PROPERTIES = 3;

/**
 * The version a `(libraryPropertyType, int*)` query (`cufftGetProperty`, ...) of `lib` reports, or undefined when the
 * library lacks the symbol or refuses.
 */
export function queryLibraryProperty(lib: LoadedLibrary, symbol: string): LibraryVersion | undefined {
  const type: FunctionType = { parameters: ["u32", "pointer"], result: "u32" };
  const f = lib.native.bind(symbol, type) as ((t: number, p: unknown) => number) | null;
  if (f === null) return undefined;
  const buf = new ArrayBuffer(4);
  const p = ffi.pointerOf(buf);
  const v = new DataView(buf);
  const out: number[] = [];
  for (let t = 0; t < PROPERTIES; t++) {
    if (f(t, p) !== 0) return undefined;
    out.push(v.getInt32(0, true));
  }
  return [out[0]!, out[1]!, out[2]!];
}

/**
 * Compares two versions by major and minor: negative when `a` is older. The patch level is left out: a toolkit's
 * update may raise it in the headers (cuSPARSE 12.6.3) while its first release's library says 12.6.2.
 */
export function compareVersions(a: LibraryVersion, b: LibraryVersion): number {
  return a[0] - b[0] || a[1] - b[1];
}

/** The version a table's headers declare through the constants `<prefix>_VER_MAJOR`, `_MINOR`, `_PATCH`, if it has them. */
export function headerVersionFromConstants(prefix: string): (table: GeneratedTable) => LibraryVersion | undefined {
  return (table) => {
    const t = table as unknown as Record<string, unknown>;
    const [a, b, c] = [t[`${prefix}_VER_MAJOR`], t[`${prefix}_VER_MINOR`], t[`${prefix}_VER_PATCH`]];
    return typeof a === "number" && typeof b === "number" ? [a, b, typeof c === "number" ? c : 0] : undefined;
  };
}

/** A table's CTK version as a library version (cuBLAS and cuBLASLt follow the toolkit's numbering: cuBLAS 12.4 is CUDA 12.4's). */
export function headerVersionFromCtk(table: GeneratedTable): LibraryVersion {
  const [a, b] = table.library.ctkVersion.split(".").map(Number);
  return [a ?? 0, b ?? 0, 0];
}

/**
 * Chooses by the version `symbol` (a `<lib>GetProperty`) reports: the table whose headers declare the newest version
 * not newer than the loaded library's, else (a library older than every table) the oldest table. A library that
 * cannot say falls back to its soname. `followsCtk`: the library numbers its releases as the toolkit does, so its
 * version is reported as the CUDA version (cuBLAS); otherwise only the reason names it.
 */
export function chooseByLibraryProperty(
  symbol: string,
  headerVersion: (table: GeneratedTable) => LibraryVersion | undefined,
  followsCtk = false,
): TableChooser {
  return (lib, tables) => {
    let loaded: LibraryVersion | undefined;
    try {
      loaded = queryLibraryProperty(lib, symbol);
    } catch {
      loaded = undefined;
    }
    if (loaded === undefined) return chooseBySoname(lib, tables);
    const known = tables.map((table) => ({ table, version: headerVersion(table) })).filter((x): x is { table: GeneratedTable; version: LibraryVersion } => x.version !== undefined);
    if (known.length === 0) return chooseBySoname(lib, tables);
    const fitting = known.filter((x) => compareVersions(x.version, loaded) <= 0).sort((x, y) => compareVersions(y.version, x.version));
    const pick = fitting[0] ?? [...known].sort((x, y) => compareVersions(x.version, y.version))[0]!;
    const text = loaded.join(".");
    return {
      table: pick.table,
      ...(followsCtk ? { libraryVersion: `${loaded[0]}.${loaded[1]}` } : {}),
      reason: `${symbol} ${text} (the CUDA ${pick.table.library.ctkVersion} table's headers declare ${pick.version.join(".")})`,
    };
  };
}
