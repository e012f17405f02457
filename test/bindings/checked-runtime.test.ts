/**
 * The checked style's runtime without a GPU: array outputs (size query, fill, retry while the library says the
 * arrays are too small, trimming), the guard bytes of debug mode, and the typed errors for bad input before any
 * native call. The library calls are JavaScript functions that write through the pointers they get, as C would.
 */
import { describe, expect, it } from "vitest";
import { CheckedRuntimeImpl } from "../../src/bindings/checked-runtime.ts";
import { driver } from "../../src/bindings/driver-entry.ts";
import { BindingArgumentError, GuardError } from "../../src/bindings/errors.ts";
import { nvml } from "../../src/bindings/nvml.ts";
import { ffi } from "../../src/ffi/index.ts";
import type { NativePointer, Pointer } from "../../src/ffi/types.ts";
import type { ArraySpec } from "../../src/tables-runtime/checked.ts";
import { CUgraphEdgeData_st, CUmemLocation_st, CUtensorMap_st, CUuuid_st } from "../../generated/cuda-13.0/driver/index.ts";

const TOO_SMALL = 7;

function runtime(guards = true): CheckedRuntimeImpl {
  return new CheckedRuntimeImpl((code, fn) => new Error(`${fn} failed with ${code}`), guards);
}

/** A C-like function filling `n` u32 values (i * 10) and reporting how many it has, NVML style. */
function nvmlLike(rt: CheckedRuntimeImpl, have: () => number, calls: number[]) {
  return (p: readonly Pointer[]): number => {
    const capacity = rt.u32[0]!;
    calls.push(capacity);
    const n = have();
    rt.u32[0] = n;
    if (p[0] === null) return n === 0 ? 0 : TOO_SMALL;
    if (capacity < n) return TOO_SMALL;
    const out = new Uint32Array(ffi.view(p[0] as NativePointer, n * 4));
    for (let i = 0; i < n; i++) out[i] = i * 10;
    return 0;
  };
}

const U32_LIST: ArraySpec = { elements: [{ kind: "u32", size: 4 }], count: { slot: 0, bytes: 4 }, query: true, retry: [TOO_SMALL] };

describe("array outputs", () => {
  it("ask for the size, then fill, and return exactly what the library reports", () => {
    const rt = runtime();
    const calls: number[] = [];
    const a = rt.arrays("fill", U32_LIST, undefined, nvmlLike(rt, () => 110, calls));
    expect(a[0]).toBeInstanceOf(Uint32Array);
    expect([...(a[0] as Uint32Array)].slice(0, 3)).toEqual([0, 10, 20]);
    expect((a[0] as Uint32Array).length).toBe(110);
    expect(calls).toEqual([0, 110]);
  });

  it("retry while the list grows between the two calls", () => {
    const rt = runtime();
    const calls: number[] = [];
    let n = 3;
    const a = rt.arrays("grow", U32_LIST, undefined, nvmlLike(rt, () => Math.min(n++, 6), calls));
    expect(calls).toEqual([0, 3, 4, 5, 6]); // the query saw 3; each fill found one more, until 6
    expect((a[0] as Uint32Array).length).toBe(6);
  });

  it("trim to the count the library reports when the caller's capacity is larger; empty when there is nothing", () => {
    const rt = runtime();
    expect((rt.arrays("cap", U32_LIST, 50, nvmlLike(rt, () => 4, []))[0] as Uint32Array).length).toBe(4);
    expect((rt.arrays("none", U32_LIST, undefined, nvmlLike(rt, () => 0, []))[0] as Uint32Array).length).toBe(0);
    expect(() => rt.arrays("small", U32_LIST, 2, nvmlLike(rt, () => 4, []))).toThrow("small failed with 7");
  });

  it("decode handles, records and strings", () => {
    const rt = runtime();
    const spec: ArraySpec = {
      elements: [{ kind: "pointer", size: 8 }, { kind: "record", size: CUgraphEdgeData_st.$size, cls: CUgraphEdgeData_st }],
      count: { slot: 0, bytes: 8 },
      query: true,
      retry: [],
    };
    const a = rt.arrays("nodes", spec, undefined, (p) => {
      if (p[0] === null) {
        rt.u64[0] = 2n;
        return 0;
      }
      const ptrs = new BigUint64Array(ffi.view(p[0] as NativePointer, 16));
      ptrs.set([0x1000n, 0x2000n]);
      new Uint8Array(ffi.view(p[1] as NativePointer, CUgraphEdgeData_st.$size * 2))[CUgraphEdgeData_st.$size] = 3;
      return 0;
    });
    expect((a[0] as Pointer[]).map((x) => ffi.bigAddressOf(x))).toEqual([0x1000n, 0x2000n]);
    expect((a[1] as CUgraphEdgeData_st[])[1]).toBeInstanceOf(CUgraphEdgeData_st);
    expect((a[1] as CUgraphEdgeData_st[])[1]!.$bytes()[0]).toBe(3);
    const s = rt.arrays("name", { elements: [{ kind: "string", size: 1 }], count: null, query: false, retry: [] }, 32, (p) => {
      new Uint8Array(ffi.view(p[0] as NativePointer, 32)).set(new TextEncoder().encode("NVIDIA H200\0junk"));
      return 0;
    });
    expect(s[0]).toBe("NVIDIA H200");
  });
});

describe("debug guards", () => {
  it("are on in the test suites (CUDA_TS_DEBUG=guards) and in every binding", () => {
    expect(driver.guards).toBe(true);
    expect(nvml.guards).toBe(true);
  });

  it("a call writing one element past its array fails loudly, naming the function", () => {
    const rt = runtime();
    const overflow = (p: readonly Pointer[]): number => {
      if (p[0] === null) {
        rt.u32[0] = 4;
        return 0;
      }
      new Uint32Array(ffi.view(p[0] as NativePointer, 20)).fill(1);
      return 0;
    };
    expect(() => rt.arrays("overflowing", U32_LIST, undefined, overflow)).toThrow(GuardError);
    expect(() => rt.arrays("overflowing", U32_LIST, undefined, overflow)).toThrow(/overflowing wrote past array output 0 of 4 elements/);
  });

  it("a call writing past the output slots or a record trips the check after it", () => {
    const rt = runtime();
    new Uint8Array(ffi.view(rt.out[15]!, 9))[8] = 1; // one byte past the last slot
    expect(() => rt.check("pastSlots")).toThrow(/pastSlots wrote past the 16 output slots/);
    rt.check("again"); // the guard is restored after reporting
    const rec = rt.record(CUuuid_st);
    new Uint8Array(ffi.view(rec.$pointer(), 17))[16] = 1;
    expect(() => rt.check("pastRecord")).toThrow(GuardError);
    expect(runtime(false).record(CUuuid_st)).toBeInstanceOf(CUuuid_st);
  });
});

describe("records the checked style allocates", () => {
  it("are aligned as C aligns them (a CUtensorMap to 128 bytes), with guards and without", () => {
    for (const guards of [true, false]) {
      const rt = runtime(guards);
      for (let i = 0; i < 8; i++) {
        const map = rt.record(CUtensorMap_st);
        expect(ffi.addressOf(map.$pointer()) % 128).toBe(0);
        expect(map.$view.byteLength).toBe(128);
      }
      rt.check("aligned");
    }
  });
});

describe("bad input is a typed error before the call", () => {
  const rt = runtime();
  it("a negative or fractional count", () => {
    expect(() => rt.count(-1, "cuGraphAddEmptyNode", "numDependencies")).toThrow(BindingArgumentError);
    expect(() => rt.count(1.5, "f", "n")).toThrow("f: `n` must be a non-negative integer count; got 1.5");
    expect(() => rt.arrays("f", U32_LIST, -3, () => 0)).toThrow(BindingArgumentError);
  });

  it("a count larger than the array passed can hold", () => {
    const deps = new BigUint64Array(2);
    expect(() => rt.sized(deps, 3, 8, "cuGraphAddEmptyNode", "dependencies")).toThrow(
      "cuGraphAddEmptyNode: `dependencies` must be at least 24 bytes (3 × 8); got a BigUint64Array of 16 bytes.",
    );
    expect(rt.sized(deps, 2, 8, "cuGraphAddEmptyNode", "dependencies")).not.toBeNull();
    expect(rt.sized(new BigUint64Array(0), 0, 8, "cuGraphAddEmptyNode", "dependencies")).toBeNull(); // no address for nothing
    expect(() => rt.strings(["-arch=sm_90"], 2, "nvrtcCompileProgram", "options")).toThrow(BindingArgumentError);
  });

  it("a record of another type", () => {
    expect(() => rt.expect(new CUuuid_st(), CUmemLocation_st, "cuMemPrefetchAsync", "location")).toThrow(
      /cuMemPrefetchAsync: `location` must be a struct CUmemLocation_st/,
    );
    expect(() => rt.expect(new Uint8Array(2), CUmemLocation_st, "f", "location")).toThrow(BindingArgumentError);
    const loc = new CUmemLocation_st();
    expect(rt.expect(loc, CUmemLocation_st, "f", "location")).toBe(loc);
  });

  it("the generated checked calls check before calling (no library is loaded here)", () => {
    expect(() => driver.cuGraphAddEmptyNode(null as never, new BigUint64Array(1), 2)).toThrow(BindingArgumentError);
    expect(() => driver.cuLibraryEnumerateKernels(-1, null as never)).toThrow(BindingArgumentError);
    expect(() => driver.cuMemPrefetchAsync(0n, 8, new CUuuid_st() as never, 0, null as never)).toThrow(BindingArgumentError);
  });
});
