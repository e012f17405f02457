import { describe, expect, it } from "vitest";
import { ffi, UnsupportedOnRuntimeError, type Pointer } from "../../src/ffi/index.ts";

const libc = ffi.openLibrary("libc.so.6");
const qsort = libc.bind("qsort", { parameters: ["pointer", "u64", "u64", "function"], result: "void" } as const)!;
const comparator = { parameters: ["pointer", "pointer"], result: "i32" } as const;

describe("callbacks", () => {
  it("qsort sorts with a JavaScript comparator", () => {
    const values = new Int32Array(new ArrayBuffer(4 * 1000));
    for (let i = 0; i < values.length; i++) values[i] = ((i * 7919) % 1000) - 500;
    let calls = 0;
    const cmp = ffi.callback(comparator, (a: Pointer, b: Pointer) => {
      calls++;
      return ffi.readI32(a!) - ffi.readI32(b!);
    });
    try {
      qsort(ffi.pointerOf(values), values.length, 4, cmp.pointer);
    } finally {
      cmp.close();
    }
    expect(calls).toBeGreaterThan(values.length);
    const sorted = [...values].sort((x, y) => x - y);
    expect([...values]).toEqual(sorted);
    expect(values[0]).toBe(-500);
  });

  it("close is idempotent", () => {
    const cb = ffi.callback({ parameters: [], result: "void" } as const, () => {});
    expect(cb.pointer).not.toBeNull();
    cb.close();
    cb.close();
  });

  it("a thread-safe callback: Bun refuses with a typed error naming Deno, Deno creates it", () => {
    const make = () => ffi.callback({ parameters: ["pointer"], result: "void" } as const, () => {}, { threadSafe: true });
    if (ffi.runtime === "bun") {
      expect(ffi.supportsThreadSafeCallbacks).toBe(false);
      let error: unknown;
      try {
        make();
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(UnsupportedOnRuntimeError);
      expect((error as UnsupportedOnRuntimeError).runtime).toBe("bun");
      expect((error as UnsupportedOnRuntimeError).feature).toBe("thread-safe callbacks");
      expect((error as Error).message).toMatch(/Deno supports them/);
      expect((error as Error).message).toMatch(/24529/);
    } else {
      expect(ffi.supportsThreadSafeCallbacks).toBe(true);
      const cb = make();
      expect(cb.pointer).not.toBeNull();
      cb.close(); // unrefs the event loop again
    }
  });

  it("bsearch finds a key with a JavaScript comparator reading through the pointers", () => {
    const bsearch = libc.bind("bsearch", {
      parameters: ["pointer", "pointer", "u64", "u64", "function"],
      result: "pointer",
    } as const)!;
    const table = new Float64Array(new ArrayBuffer(8 * 64)).map((_, i) => i * 0.5);
    const key = new Float64Array(new ArrayBuffer(8));
    const cmp = ffi.callback(comparator, (a, b) => Math.sign(ffi.readF64(a!) - ffi.readF64(b!)));
    try {
      key[0] = 12.5;
      const hit = bsearch(ffi.pointerOf(key), ffi.pointerOf(table), 64, 8, cmp.pointer);
      expect(ffi.addressOf(hit) - ffi.addressOf(ffi.pointerOf(table))).toBe(25 * 8);
      key[0] = 12.25;
      expect(bsearch(ffi.pointerOf(key), ffi.pointerOf(table), 64, 8, cmp.pointer)).toBeNull();
    } finally {
      cmp.close();
    }
  });
});
