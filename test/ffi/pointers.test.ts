import { describe, expect, it } from "vitest";
import { ffi } from "../../src/ffi/index.ts";

const libc = ffi.openLibrary("libc.so.6");
const strlen = libc.bind("strlen", { parameters: ["pointer"], result: "u64" } as const)!;
const memcpy = libc.bind("memcpy", { parameters: ["pointer", "pointer", "u64"], result: "pointer" } as const)!;
// memmove returns its first argument: with a u64 result, the exact 64 bits a pointer parameter passed.
const memmoveBits = libc.bind("memmove", { parameters: ["pointer", "pointer", "u64"], result: "u64" } as const)!;

describe("pointer helpers", () => {
  it("cstring encodes UTF-8 with a NUL, in memory C can read", () => {
    const s = ffi.cstring("héllo, wörld ✓");
    expect(s.byteLength).toBe(new TextEncoder().encode("héllo, wörld ✓").length + 1);
    expect(s[s.byteLength - 1]).toBe(0);
    expect(strlen(ffi.pointerOf(s))).toBe(BigInt(s.byteLength - 1));
    expect(ffi.readCString(ffi.pointerOf(s))).toBe("héllo, wörld ✓");
    expect(ffi.readCString(ffi.pointerOf(s), 8)).toBe("wörld ✓"); // "héllo, " is 8 bytes of UTF-8
    expect(ffi.readCString(null)).toBeNull();
    expect(ffi.readCString(ffi.pointerOf(ffi.cstring("")))).toBe("");
  });

  it("pointerOf gives the address of a view's first byte", () => {
    const buf = new ArrayBuffer(64);
    const base = ffi.addressOf(ffi.pointerOf(buf));
    expect(base).toBeGreaterThan(0);
    expect(ffi.addressOf(ffi.pointerOf(new Uint8Array(buf, 8, 4))) - base).toBe(8);
    expect(ffi.addressOf(ffi.pointerOf(new Float64Array(buf, 16))) - base).toBe(16);
    expect(ffi.addressOf(ffi.pointerOf(new DataView(buf, 24))) - base).toBe(24);
  });

  it("keeps a 64-bit value above 2^53 exact (an opaque handle in a pointer's place, such as cuFile's CUfileHandle_t)", () => {
    const handle = 0xabababab00000025n; // what cuFileHandleRegister gives for file descriptor 37
    const dv = new DataView(new ArrayBuffer(16));
    dv.setBigUint64(0, handle, true);
    const p = ffi.readPointer(dv, 0);
    expect(ffi.bigAddressOf(p)).toBe(handle);
    ffi.writePointer(dv, 8, p);
    expect(dv.getBigUint64(8, true)).toBe(handle);
    expect(memmoveBits(p, null, 0n)).toBe(handle);
    expect(ffi.bigAddressOf(ffi.readPointerAt(ffi.pointerOf(dv), 0))).toBe(handle);
    const q = ffi.pointerFromAddress(handle);
    expect(ffi.samePointer(p, q)).toBe(true);
    expect(ffi.samePointer(p, ffi.pointerFromAddress(handle + 1n))).toBe(false);
    expect(ffi.isNull(p)).toBe(false);
    expect(ffi.bigAddressOf(ffi.offsetPointer(q!, 8))).toBe(handle + 8n);
    // An ordinary address still comes back as it always did.
    const a = ffi.pointerOf(new ArrayBuffer(8));
    dv.setBigUint64(0, ffi.bigAddressOf(a), true);
    expect(ffi.samePointer(ffi.readPointer(dv, 0), a)).toBe(true);
  });

  it("addressOf, bigAddressOf, pointerFromAddress, offsetPointer, isNull, samePointer round-trip", () => {
    const p = ffi.pointerOf(new ArrayBuffer(16));
    const a = ffi.addressOf(p);
    expect(ffi.bigAddressOf(p)).toBe(BigInt(a));
    expect(ffi.samePointer(ffi.pointerFromAddress(a), p)).toBe(true);
    expect(ffi.samePointer(ffi.pointerFromAddress(BigInt(a)), p)).toBe(true);
    expect(ffi.pointerFromAddress(0)).toBeNull();
    expect(ffi.pointerFromAddress(0n)).toBeNull();
    expect(ffi.addressOf(null)).toBe(0);
    expect(ffi.bigAddressOf(null)).toBe(0n);
    expect(ffi.isNull(null)).toBe(true);
    expect(ffi.isNull(p)).toBe(false);
    expect(ffi.addressOf(ffi.offsetPointer(p, 12))).toBe(a + 12);
    expect(ffi.samePointer(ffi.offsetPointer(ffi.offsetPointer(p, 5), -5), p)).toBe(true);
    expect(ffi.samePointer(null, null)).toBe(true);
    expect(ffi.samePointer(p, null)).toBe(false);
    expect(ffi.addressOf(ffi.pointerFromAddress(0x7fff_ffff_fff8))).toBe(0x7fff_ffff_fff8);
  });

  it("view is a zero-copy window on native memory, both ways", () => {
    const backing = new Uint8Array(new ArrayBuffer(32));
    const p = ffi.pointerOf(backing);
    const v = new Uint8Array(ffi.view(ffi.offsetPointer(p, 4), 8));
    expect(v.byteLength).toBe(8);
    backing[5] = 42;
    expect(v[1]).toBe(42);
    v[7] = 9;
    expect(backing[11]).toBe(9);
    expect(ffi.view(p, 0).byteLength).toBe(0);
    // memcpy through native code into the memory behind the view
    const src = ffi.cstring("abcdefg");
    memcpy(ffi.offsetPointer(p, 4), ffi.pointerOf(src), 8);
    expect(new TextDecoder().decode(v.subarray(0, 7))).toBe("abcdefg");
  });

  it("views never free memory they do not own (Bun issues 35405, 24160)", () => {
    const backing = new Uint8Array(new ArrayBuffer(4096));
    const p = ffi.offsetPointer(ffi.pointerOf(backing), 8); // not the start of any allocation
    for (let i = 0; i < 20_000; i++) new Uint8Array(ffi.view(p, 16))[0] = i & 255;
    const gc = (globalThis as { Bun?: { gc(force: boolean): void }; gc?: () => void }).Bun?.gc;
    gc?.(true);
    expect(backing[8]).toBe((20_000 - 1) & 255);
  });

  it("writePointer and readPointer through a DataView", () => {
    const dv = new DataView(new ArrayBuffer(24));
    const p = ffi.pointerOf(new ArrayBuffer(8));
    ffi.writePointer(dv, 8, p);
    expect(dv.getBigUint64(8, true)).toBe(ffi.bigAddressOf(p));
    expect(ffi.samePointer(ffi.readPointer(dv, 8), p)).toBe(true);
    ffi.writePointer(dv, 8, null);
    expect(ffi.readPointer(dv, 8)).toBeNull();
    dv.setBigUint64(16, 0x7fff_1234_5678n, true);
    expect(ffi.bigAddressOf(ffi.readPointer(dv, 16))).toBe(0x7fff_1234_5678n);
  });

  it("direct reads at a native address", () => {
    const buf = new ArrayBuffer(48);
    const dv = new DataView(buf);
    const p = ffi.pointerOf(buf);
    dv.setInt8(0, -3);
    dv.setUint8(1, 250);
    dv.setInt16(2, -1234, true);
    dv.setUint16(4, 60000, true);
    dv.setInt32(8, -123456789, true);
    dv.setUint32(12, 4000000000, true);
    dv.setBigUint64(16, 2n ** 64n - 5n, true);
    dv.setFloat32(24, 1.5, true);
    dv.setFloat64(32, Math.E, true);
    ffi.writePointer(dv, 40, ffi.offsetPointer(p, 8));
    expect(ffi.readI8(p, 0)).toBe(-3);
    expect(ffi.readU8(p, 1)).toBe(250);
    expect(ffi.readI16(p, 2)).toBe(-1234);
    expect(ffi.readU16(p, 4)).toBe(60000);
    expect(ffi.readI32(p, 8)).toBe(-123456789);
    expect(ffi.readU32(p, 12)).toBe(4000000000);
    expect(ffi.readU64(p, 16)).toBe(2n ** 64n - 5n);
    expect(ffi.readI64(p, 16)).toBe(-5n);
    expect(ffi.readF32(p, 24)).toBe(1.5);
    expect(ffi.readF64(p, 32)).toBe(Math.E);
    expect(ffi.samePointer(ffi.readPointerAt(p, 40), ffi.offsetPointer(p, 8))).toBe(true);
    expect(ffi.readPointerAt(p, 0)).not.toBeNull(); // bytes 0..7 are not zero
    dv.setBigUint64(0, 0n, true);
    expect(ffi.readPointerAt(p, 0)).toBeNull();
    expect(ffi.readI32(ffi.offsetPointer(p, 8))).toBe(-123456789);
  });
});
