/**
 * The public face of NVTX (`import { nvtx } from "cuda-ts"`): see nvtx.ts for what each call does, with and
 * without a tool attached.
 *
 * @module
 */
export {
  range,
  push,
  pop,
  startRange,
  mark,
  nameCategory,
  registerString,
  domain,
  defaultNvtxDomain as defaultDomain,
  nameCudaObject,
  initialize,
  status,
  Domain,
  RegisteredString,
  NvtxInjectionError,
  NvtxArgumentError,
  COLORS,
  INJECTION_VARIABLE,
  type ColorName,
  type EventOptions,
  type Message,
  type NvtxRange,
  type NvtxStatus,
  type PayloadType,
} from "./nvtx.ts";
