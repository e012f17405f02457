/**
 * The compilers' bindings (NVRTC, nvJitLink, libNVVM, with their tables), loaded when a Program or Linker first
 * needs one on Bun, and at import elsewhere (src/deferred.ts says why): a script that loads cubins compiles nothing.
 *
 * @module
 */
import type * as NvrtcModule from "../../bindings/nvrtc.ts";
import type * as NvJitLinkModule from "../../bindings/nvjitlink.ts";
import type * as NvvmModule from "../../bindings/nvvm.ts";
import { loadOnFirstUse } from "../../deferred.ts";
import { ownModuleUrl } from "../../module-url.ts";
import { nativeRequire } from "../../host.ts";

/** NVRTC's binding module. */
export const nvrtcModule: () => typeof NvrtcModule = await loadOnFirstUse(nativeRequire(import.meta), ownModuleUrl("src/bindings/nvrtc"), "nvrtc", false, () => import("../../bindings/nvrtc.ts"));

/** nvJitLink's binding module. */
export const nvjitlinkModule: () => typeof NvJitLinkModule = await loadOnFirstUse(nativeRequire(import.meta), ownModuleUrl("src/bindings/nvjitlink"), "nvjitlink", false, () => import("../../bindings/nvjitlink.ts"));

/** libNVVM's binding module. */
export const nvvmModule: () => typeof NvvmModule = await loadOnFirstUse(nativeRequire(import.meta), ownModuleUrl("src/bindings/nvvm"), "nvvm", false, () => import("../../bindings/nvvm.ts"));
