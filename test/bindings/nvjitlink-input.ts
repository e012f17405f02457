/** nvJitLink's input kinds for the GPU tests. */
import { nvjitlink, nvJitLinkInputType, nvJitLinkResult } from "../../src/bindings/nvjitlink.ts";
export { nvjitlink, nvJitLinkResult };
/** NVJITLINK_INPUT_CUBIN. */
export const NVJITLINK_INPUT_CUBIN_VALUE = nvJitLinkInputType.NVJITLINK_INPUT_CUBIN;
