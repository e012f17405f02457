/**
 * Type-level test: the generated handle types are distinct brands. Passing a CUevent where a CUstream is expected
 * must not compile. The `@ts-expect-error` lines below are checked by `tsc -p .` and `deno check test` (an unused
 * directive is an error there); the runtime part only makes vitest count the file.
 */
import { describe, expect, expectTypeOf, it } from "vitest";
import type { Checked, CUcontext, CUdeviceptr, CUevent, CUstream, Raw } from "../../generated/cuda-13.0/driver/index.ts";
import type { NativePointer, Pointer } from "../../src/ffi/types.ts";

/** Never called: it exists for the type checkers. */
export function handleMisuse(api: Checked, raw: Raw, stream: CUstream, event: CUevent, ctx: CUcontext, ptr: NativePointer): void {
  // The right handles are accepted, and null is the NULL handle (the default stream).
  api.cuStreamSynchronize(stream);
  api.cuStreamSynchronize(null);
  api.cuEventRecord(event, stream);
  raw.cuStreamSynchronize(stream);
  const asPointer: Pointer = stream; // a handle is a pointer
  void asPointer;

  // @ts-expect-error a CUevent is not a CUstream
  api.cuStreamSynchronize(event);
  // @ts-expect-error a CUstream is not a CUevent
  api.cuEventSynchronize(stream);
  // @ts-expect-error the raw style is just as strict
  raw.cuStreamSynchronize(event);
  // @ts-expect-error a CUcontext is not a CUstream
  api.cuStreamWaitEvent(ctx, event, 0);
  // @ts-expect-error a bare native pointer carries no handle brand
  api.cuStreamSynchronize(ptr);
  // @ts-expect-error a number is not a handle
  api.cuStreamSynchronize(0);
  // @ts-expect-error handles are not interchangeable by assignment either
  const s: CUstream = event;
  void s;
}

describe("generated handle types", () => {
  it("are distinct brands (checked at compile time by tsc and deno check)", () => {
    expectTypeOf<CUevent>().not.toMatchTypeOf<CUstream>();
    expectTypeOf<CUstream>().not.toMatchTypeOf<CUevent>();
    expectTypeOf<CUstream>().toMatchTypeOf<Pointer>();
    expectTypeOf<null>().toMatchTypeOf<CUstream>();
    // A device pointer is a 64-bit integer, not a handle.
    expectTypeOf<CUdeviceptr>().toEqualTypeOf<bigint>();
    expect(typeof handleMisuse).toBe("function");
  });
});
