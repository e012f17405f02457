/**
 * Public classes keep their working state private: what launches and graph capture need (a buffer's address words,
 * a stream's capture sink, a scalar's encoded words, a launch configuration's native struct) is module state, not
 * a property a user could read or overwrite.
 */
import { describe, expect, it } from "vitest";
import { Buffer, LaunchConfig, LEGACY_DEFAULT_STREAM, f32, u64 } from "../../src/index.ts";
import type { CUdeviceptr } from "../../src/bindings/driver.ts";

function ownAndInherited(o: object): string[] {
  const names = new Set<string>();
  for (let p: object | null = o; p !== null && p !== Object.prototype; p = Object.getPrototypeOf(p) as object | null) {
    for (const k of Object.getOwnPropertyNames(p)) names.add(k);
  }
  return [...names];
}

describe("no public internals", () => {
  it("Buffer: no address words or open flag", () => {
    const b = Buffer.fromHandle(0x1000n as CUdeviceptr, 16, { owner: {} });
    const names = ownAndInherited(b);
    for (const internal of ["addressLo", "addressHi", "open"]) expect(names).not.toContain(internal);
    expect(b.handle).toBe(0x1000n);
    b.close();
    expect(b.isClosed).toBe(true);
  });

  it("Stream: no capture sink", () => {
    expect(ownAndInherited(LEGACY_DEFAULT_STREAM)).not.toContain("captureSink");
  });

  it("KernelScalar: no encoded words", () => {
    for (const s of [f32(1.5), u64(7n)]) for (const w of ["w0", "w1", "w2", "w3"]) expect(ownAndInherited(s)).not.toContain(w);
  });

  it("LaunchConfig: no native struct, pointer or dims", () => {
    const names = ownAndInherited(new LaunchConfig({ grid: 1, block: 1, cluster: 2 }));
    for (const internal of ["pointer", "dims", "hasAttributes", "setStream"]) expect(names).not.toContain(internal);
  });
});
