/**
 * The compilers' bindings (NVRTC, nvJitLink, libNVVM, with their tables), loaded when a Program or Linker first
 * needs one on Bun, and at import elsewhere (src/deferred.ts says why): a script that loads cubins compiles nothing.
 *
 * @module
 */
import type * as NvrtcModule from "../../bindings/nvrtc.ts";
import type * as NvJitLinkModule from "../../bindings/nvjitlink.ts";
import type * as NvvmModule from "../../bindings/nvvm.ts";
import { deferredLoader, markLoaded } from "../../deferred.ts";
import { ownModuleUrl } from "../../module-url.ts";
import { nativeRequire } from "../../host.ts";

const nvrtcLoader = deferredLoader<typeof NvrtcModule>(nativeRequire(import.meta), ownModuleUrl("src/bindings/nvrtc"), "nvrtc", false);
const nvjitlinkLoader = deferredLoader<typeof NvJitLinkModule>(nativeRequire(import.meta), ownModuleUrl("src/bindings/nvjitlink"), "nvjitlink", false);
const nvvmLoader = deferredLoader<typeof NvvmModule>(nativeRequire(import.meta), ownModuleUrl("src/bindings/nvvm"), "nvvm", false);

// One decision for the three (they share the conditions): imported at import where the runtime cannot load later.
const eager = nvrtcLoader === undefined
  ? { nvrtc: await import("../../bindings/nvrtc.ts"), nvjitlink: await import("../../bindings/nvjitlink.ts"), nvvm: await import("../../bindings/nvvm.ts") }
  : undefined;
if (eager !== undefined) for (const name of ["nvrtc", "nvjitlink", "nvvm"]) markLoaded(name);

/** NVRTC's binding module. */
export function nvrtcModule(): typeof NvrtcModule {
  return eager?.nvrtc ?? (nvrtcLoader as () => typeof NvrtcModule)();
}

/** nvJitLink's binding module. */
export function nvjitlinkModule(): typeof NvJitLinkModule {
  return eager?.nvjitlink ?? (nvjitlinkLoader as () => typeof NvJitLinkModule)();
}

/** libNVVM's binding module. */
export function nvvmModule(): typeof NvvmModule {
  return eager?.nvvm ?? (nvvmLoader as () => typeof NvvmModule)();
}
