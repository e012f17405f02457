/**
 * The `T*` argument of the compilers' destroy functions (`nvrtcDestroyProgram(nvrtcProgram*)`,
 * `nvvmDestroyProgram(nvvmProgram*)`, `nvJitLinkDestroy(nvJitLinkHandle*)`): one pointer-sized slot.
 *
 * @module
 */
import { ffi } from "../../ffi/index.ts";
import type { Pointer } from "../../ffi/types.ts";

/** An 8-byte slot holding `handle` (NULL when omitted), to pass as the address of a handle. */
export function handleSlot(handle: Pointer = null): ArrayBuffer {
  const slot = new ArrayBuffer(8);
  ffi.writePointer(new DataView(slot), 0, handle);
  return slot;
}

