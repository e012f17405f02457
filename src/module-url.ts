/**
 * Where cuda-ts's own modules are, for the few it loads by a specifier made at run time: the libraries' bindings it
 * loads on first use (src/deferred.ts), Bun's FFI backend and the dynamic loader, CUPTI's activity module, the compile
 * worker. Each is named by its place in the package's layout, without extension: `src/bindings/nvml`,
 * `generated/cuda-13.0/driver/checked-impl`.
 *
 * Why not relative to the module that loads it: the package's JavaScript is bundled (scripts/bundle-dist.ts), and a
 * module's code then runs from a shared chunk, not from its source's path; only the entry points keep their paths.
 * So these addresses are made from one place, this module's, which the build corrects where its code lands: the
 * string `"../#cuda-ts-layout-root"` below is the path from here to the layout's root (the folder holding `src/` and
 * `generated/`: the repository, or the package's `dist/`), and the build rewrites its `../` for the file that holds it.
 *
 * @module
 */

/** The layout's root (the fragment is the build's mark; resolving a path against this URL drops it). */
const LAYOUT_ROOT = new URL("../#cuda-ts-layout-root", import.meta.url);

/** The extension of cuda-ts's modules here: `.ts` from the sources, `.js` from the package. */
export const moduleExtension: ".ts" | ".js" = import.meta.url.endsWith(".ts") ? ".ts" : ".js";

/**
 * The modules loaded by a specifier made at run time, by their place in the layout. The build makes each an entry
 * point of the bundle (it must stay at its path), and a test checks that every {@link ownModuleUrl} call names one.
 */
export const RUN_TIME_MODULES = [
  "src/ffi/bun",
  "src/ffi/dl",
  "src/pathfinder/index",
  "generated/cuda-13.0/driver/checked-impl",
  "generated/cuda-13.0/driver/checked-impl.core",
  "src/core/system/nvml-binding",
  "src/core/gds/cufile-binding",
  "src/bindings/nccl",
  "src/bindings/pmix",
  "src/bindings/nvrtc",
  "src/bindings/nvjitlink",
  "src/bindings/nvvm",
  "src/bindings/curand",
  "src/bindings/cufft",
  "src/bindings/cusolver",
  "src/bindings/cusparse",
  "src/core/math/classes",
  "src/core/profiling/activity",
  "src/core/program/compile-worker",
] as const;

/** A module of {@link RUN_TIME_MODULES}. */
export type RunTimeModule = (typeof RUN_TIME_MODULES)[number];

/** The URL (`href`) of one of cuda-ts's own modules, named by its place in the layout ("src/bindings/nvml"). */
export function ownModuleUrl(path: RunTimeModule): string {
  return new URL(path + moduleExtension, LAYOUT_ROOT).href;
}

/** The file-system path of a `file:` URL (what Bun's `require` takes). */
export function filePath(url: string): string {
  return decodeURIComponent(new URL(url).pathname);
}
