/**
 * How the driver binding opens libcuda. The pathfinder's search for the driver (src/pathfinder/libraries.ts), once no
 * override is set and nothing is loaded yet, asks the system loader for `libcuda.so.1` by its soname, as
 * cuda.pathfinder and a C program linked with `-lcuda` do. {@link openDriverLibrary} takes that step itself when
 * nothing could make the pathfinder's answer differ, so that a script's first driver call neither loads the
 * pathfinder nor binds libc's loader for it: on the H200 that was most of the driver's first load (pathfinder,
 * `dlopen`, table: 9.0 ms on Bun, 7.9 on Deno, against a raw `dlopen` of 2.5 / 3.0 ms; 3.8 and 5.7 this way:
 * bench/results/2026-12-02-h200-session10.md, in git history at 416dd8f~1). Otherwise, and whenever the loader fails (so that the error lists every
 * place searched), the pathfinder opens it as it opens every library.
 *
 * "Nothing could make the answer differ": no `CUDA_TS_CUDA_PATH` or `CUDA_TS_CUDA_MAJOR`, an `LD_LIBRARY_PATH` with
 * no relative entry (the pathfinder never lets the loader search the current directory), the shared pathfinder
 * not given options of the script's own, and under Deno the permissions to read those variables and
 * `/proc/self/maps` (where the loaded file's path is read, as the pathfinder reads it with `dlinfo`).
 *
 * @module
 */
import { ffi } from "../ffi/index.ts";
import { readSmallFile } from "../ffi/libc-read.ts";
import { canReadEnv, canReadPath, getEnv } from "../host.ts";
import { defaultPathfinderCustomised } from "../pathfinder/customised.ts";
import { hasRelativeEntry } from "../pathfinder/paths.ts";
import { type LoadedLibrary, openThroughPathfinder } from "./binding.ts";

const SONAME = "libcuda.so.1";
const MAPS = "/proc/self/maps";
const VARIABLES = ["CUDA_TS_CUDA_PATH", "CUDA_TS_CUDA_MAJOR", "LD_LIBRARY_PATH"] as const;

/** The absolute path of the libcuda file mapped into this process, if one is. */
function mappedDriverFile(): string | undefined {
  const bytes = readSmallFile(MAPS);
  if (bytes === undefined) return undefined;
  return /\s(\/\S*\/libcuda\.so[^\s/]*)$/m.exec(new TextDecoder().decode(bytes))?.[1];
}

/** Whether the system loader's answer for `libcuda.so.1` is the pathfinder's. */
function loaderAnswersForThePathfinder(): boolean {
  if (defaultPathfinderCustomised() || !canReadPath(MAPS)) return false;
  if (!VARIABLES.every(canReadEnv)) return false;
  if (getEnv("CUDA_TS_CUDA_PATH") !== undefined || getEnv("CUDA_TS_CUDA_MAJOR") !== undefined) return false;
  return !hasRelativeEntry(getEnv("LD_LIBRARY_PATH"));
}

/**
 * libcuda opened by the system loader (`foundVia` "system-search", or "already-loaded" when the process had it
 * mapped), or `undefined` when the pathfinder must search (see the module's documentation).
 */
export function openBySoname(): LoadedLibrary | undefined {
  if (!loaderAnswersForThePathfinder()) return undefined;
  const before = mappedDriverFile();
  let native;
  try {
    native = ffi.openLibrary(SONAME);
  } catch {
    return undefined; // the pathfinder searches again and reports every place it looked
  }
  const path = before ?? mappedDriverFile() ?? SONAME;
  return { name: "cuda", path, foundVia: before === undefined ? "system-search" : "already-loaded", soname: SONAME, native };
}

/** Opens libcuda for the driver binding: by its soname where that is the pathfinder's answer, else through the pathfinder. */
export function openDriverLibrary(): LoadedLibrary {
  return openBySoname() ?? openThroughPathfinder("cuda");
}
