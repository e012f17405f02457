/**
 * The search roots that come from the environment: the active Python environments' `site-packages` directories
 * (`$VIRTUAL_ENV`, `$CONDA_PREFIX`), the conda prefix itself, and the CUDA Toolkit root named by `CUDA_PATH` or
 * `CUDA_HOME`.
 *
 * @module
 */
import { absoluteOrNote, type Search } from "./context.ts";
import { joinPath, normalizePath } from "./paths.ts";

/** The toolkit root named by the environment, and which variable named it. */
export interface CudaPathOrHome {
  /** `CUDA_PATH` or `CUDA_HOME`. */
  readonly variable: "CUDA_PATH" | "CUDA_HOME";
  /** Its value, an absolute path. */
  readonly path: string;
}

/**
 * `CUDA_PATH` if set, else `CUDA_HOME` (empty values count as unset; a relative value is ignored and noted, and
 * then the other variable is used).
 * When both are set to different directories, `warnOnce` is called with a message saying CUDA_PATH wins.
 */
export function cudaPathOrHome(search: Search, warnOnce: (message: string) => void): CudaPathOrHome | undefined {
  const cudaPath = search.env("CUDA_PATH");
  const cudaHome = search.env("CUDA_HOME");
  if (cudaPath !== undefined && cudaHome !== undefined && !sameDirectory(search, cudaPath, cudaHome)) {
    warnOnce(
      `cuda-ts: CUDA_PATH=${cudaPath} and CUDA_HOME=${cudaHome} name different directories; using CUDA_PATH. ` +
        "Unset one of them, or set both to the same CUDA Toolkit root.",
    );
  }
  if (cudaPath !== undefined) {
    const path = absoluteOrNote(search, "CUDA_PATH", "CUDA_PATH", cudaPath);
    if (path !== undefined) return { variable: "CUDA_PATH", path };
    if (cudaHome === undefined) return undefined;
  }
  if (cudaHome === undefined) {
    const denied = ["CUDA_PATH", "CUDA_HOME"].filter((v) => search.envDenied(v)).map((v) => `--allow-env=${v}`);
    search.note("CUDA_PATH", "CUDA_PATH, CUDA_HOME", denied.length > 0 ? `not readable (Deno: ${denied.join(" ")})` : "not set");
    return undefined;
  }
  const path = absoluteOrNote(search, "CUDA_HOME", "CUDA_HOME", cudaHome);
  return path === undefined ? undefined : { variable: "CUDA_HOME", path };
}

function sameDirectory(search: Search, a: string, b: string): boolean {
  if (normalizePath(a) === normalizePath(b)) return true;
  const host = search.config.host;
  const realA = host.canReadPath(a) ? host.realPath(a) : undefined;
  const realB = host.canReadPath(b) ? host.realPath(b) : undefined;
  return realA !== undefined && realA === realB;
}

/** The conda prefix (`$CONDA_PREFIX`) when set to an absolute path; notes it otherwise under `step`. */
export function condaPrefix(search: Search, step = "conda"): string | undefined {
  return absoluteOrNote(search, step, "CONDA_PREFIX", search.env("CONDA_PREFIX"));
}

/**
 * The `site-packages` directories of the active Python environments: `$VIRTUAL_ENV/lib/python3.*\/site-packages`,
 * then `$CONDA_PREFIX/lib/python3.*\/site-packages` (newest Python first within each). Notes what was missing.
 */
export function sitePackagesDirectories(search: Search): string[] {
  const found: string[] = [];
  for (const variable of ["VIRTUAL_ENV", "CONDA_PREFIX"] as const) {
    const prefix = absoluteOrNote(search, "site-packages", variable, search.env(variable));
    if (prefix === undefined) continue;
    const libDir = joinPath(prefix, "lib");
    const state = search.directoryState(libDir);
    if (state !== "ok") {
      search.note("site-packages", libDir, state === "denied" ? `not readable (Deno: --allow-read=${libDir})` : "no such directory");
      continue;
    }
    const pythons = search
      .list(libDir)
      .filter((entry) => /^python3\.\d+t?$/.test(entry))
      .sort((x, y) => pythonMinor(y) - pythonMinor(x));
    const dirs = pythons.map((p) => joinPath(libDir, p, "site-packages")).filter((d) => search.directoryState(d) === "ok");
    if (dirs.length === 0) search.note("site-packages", joinPath(libDir, "python3.*/site-packages"), "no such directory");
    for (const dir of dirs) if (!found.includes(dir)) found.push(dir);
  }
  return found;
}

function pythonMinor(entry: string): number {
  return Number.parseInt(entry.slice("python3.".length), 10);
}

/**
 * The toolkit root a library directory belongs to: `<root>/lib64`, `<root>/lib` and `<root>/targets/<t>/lib*`
 * give `<root>`. Returns `undefined` for other layouts and for `/` and `/usr` (system directories are not roots).
 */
export function toolkitRootOfLibraryDirectory(directory: string): string | undefined {
  const segments = normalizePath(directory).split("/");
  const last = segments[segments.length - 1];
  if (last !== "lib" && last !== "lib64") return undefined;
  let root = segments.slice(0, -1);
  if (root.length >= 2 && root[root.length - 2] === "targets") root = root.slice(0, -2);
  const path = root.join("/") || "/";
  return path === "/" || path === "/usr" ? undefined : path;
}
