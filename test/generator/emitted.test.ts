/**
 * The emitted fixture modules, imported and run on this runtime (Bun or Deno): the function tables with their
 * by-value struct layouts and passing classes, enums and constants as values, aliases, and the checked call style
 * driven through a stub raw table and a stub CheckedRuntime.
 */
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ffi } from "../../src/ffi/index.ts";
import type { NativePointer, Pointer, StructType } from "../../src/ffi/types.ts";
import { CheckedRuntimeImpl } from "../../src/bindings/checked-runtime.ts";
import { enumName } from "../../src/tables-runtime/enum.ts";
import { type FixtureGeneration, generateFixture, removeDir } from "./helpers.ts";

// deno-lint-ignore no-explicit-any
type Any = any; // eslint-disable-line @typescript-eslint/no-explicit-any

let gen: FixtureGeneration | undefined;
let fx: Record<string, Any>;
let fxe: Record<string, Any>;

beforeAll(async () => {
  gen = generateFixture("1.0");
  fx = (await import(path.join(gen.ctkDir, "fixture/index.ts"))) as Record<string, Any>;
  fxe = (await import(path.join(gen.ctkDir, "fixture_ext/index.ts"))) as Record<string, Any>;
});
afterAll(() => removeDir(gen?.dir));

const struct = (t: unknown): StructType["struct"] => (t as StructType).struct;

describe("function tables", () => {
  it("structs by value carry their layout and x86-64 passing class", () => {
    const f = fx.functions;
    expect(struct(f.fxMemAdvise.parameters[2])).toMatchObject({ name: "struct fxLocation_st", size: 8, align: 4, passing: { kind: "registers", classes: ["INTEGER"] } });
    expect(struct(f.fxMalloc3D.parameters[1])).toMatchObject({ name: "struct fxExtent_st", size: 24, passing: { kind: "memory" } });
    expect(struct(f.fxMakeExtent.result)).toMatchObject({ size: 24, passing: { kind: "memory" } });
    expect(struct(f.fxMakeLocation.result).passing).toEqual({ kind: "registers", classes: ["INTEGER"] });
    expect(struct(f.fxScale.parameters[0]).passing).toEqual({ kind: "registers", classes: ["SSE"] });
    expect(struct(f.fxScale.result).leaves).toEqual([{ offset: 0, type: "f32" }, { offset: 4, type: "f32" }]);
    // The second library passes the first library's record: the same layout, written in its own table, so that
    // what a library emits does not depend on which other libraries a run generates.
    expect(struct(fxe.functions.fxePlace.parameters[0])).toEqual(fx.fxLocation_st.$layout);
  });

  it("symbols, variants, resolution and deprecation", () => {
    const f = fx.functions;
    expect(f.fxAlloc).toEqual({ symbol: "fxAlloc_v2", parameters: ["pointer", "u64"], names: ["dptr", "bytesize"], result: "u32", procAddress: { name: "fxAlloc", version: 1020 } });
    expect(f.fxMemcpyAsync).toMatchObject({ symbol: "fxMemcpyAsync", ptdsSymbol: "fxMemcpyAsync_ptsz", procAddress: { ptdsVersion: 1000 } });
    expect(f.fxLaunchHostFunc.parameters).toEqual(["pointer", "function", "pointer"]);
    expect(f.fxGetName).toEqual({ symbol: "fxGetName", parameters: [], result: "pointer" });
    expect(f.fxOld.deprecated).toBe(true);
    expect(f.fxPrintf).toBeUndefined();
    expect(f.fxSetValue).toBeUndefined();
    expect(fx.library).toEqual({ name: "fixture", library: "fixture", ctkVersion: "1.0", status: "fxResult" });
  });
});

describe("declarations as values", () => {
  it("enums: numbers, bigints for 64-bit ones, aliases, and names back from values", () => {
    expect(fx.fxResult.FX_ERROR_NOT_READY).toBe(600);
    expect(fx.fxSigned.FX_SIGNED_MIN).toBe(-2147483648);
    expect(fx.fxWide.FX_WIDE_MAX).toBe(18446744073709551615n);
    expect(fx.fxWideSigned.FX_WIDE_SIGNED_MIN).toBe(-9223372036854775808n);
    expect(fx.fxResult_enum).toBe(fx.fxResult);
    expect(fx.fxModeAlias).toBe(fx.fxMode);
    expect(Object.isFrozen(fx.fxResult)).toBe(true);
    expect(enumName(fx.fxResult, 600)).toBe("FX_ERROR_NOT_READY");
    expect(enumName(fx.fxWide, 4294967296n)).toBe("FX_WIDE_2_POW_32");
  });

  it("constants: exact integers, bigints beyond 2^53, floats, strings, addresses", () => {
    expect([fx.FX_VERSION, fx.FX_MAX_DEVICES, fx.FX_MINUS_TEN, fx.FX_ANON_SECOND]).toEqual([1000, 64, -10, -4]);
    expect([fx.FX_MASK_HIGH, fx.FX_NEGATIVE_HUGE]).toEqual([0xfffffffffffffff0n, -9007199254740993n]);
    expect([fx.FX_HALF, fx.FX_E, fx.FX_NAME]).toEqual([0.5, 2.718281828459045, "fixture"]);
    expect([fx.FX_LAUNCH_PARAM_END, fx.FX_LAUNCH_PARAM_BUFFER_POINTER]).toEqual([0n, 1n]);
    expect(fx.FX_MAKE_VERSION).toBeUndefined();
  });

  it("records: typedef names are the same class, and a foreign record nests inside a local one", () => {
    expect(fx.fxLocation).toBe(fx.fxLocation_st);
    const req = new fxe.fxeRequest();
    req.where.id = 9;
    req.extent.depth = 3n;
    req.lastStatus = fx.fxResult.FX_ERROR_UNKNOWN;
    expect(req.where).toBeInstanceOf(fx.fxLocation_st);
    expect(req.$toObject()).toMatchObject({ kind: 0, where: { type: 0, id: 9 }, lastStatus: 999, extent: { width: 0n, height: 0n, depth: 3n } });
  });
});

/** The bindings' CheckedRuntime with its guards on, recording failures and serving C strings by address. */
class StubRuntime extends CheckedRuntimeImpl {
  /** Every rt.fail call. */
  readonly failures: [number | bigint, string][] = [];
  /** C strings by address, for readString. */
  readonly cstrings = new Map<bigint, string>();
  constructor() {
    super((code, fn) => {
      this.failures.push([code, fn]);
      return new Error(`${fn} failed with ${code}`);
    }, true);
  }
  override readString(slot: number): string | null {
    return this.cstrings.get(this.u64[slot]!) ?? null;
  }
  override string(p: Pointer): string | null {
    return p === null ? null : `string at ${ffi.bigAddressOf(p)}`;
  }
}
function stubRuntime(): StubRuntime {
  return new StubRuntime();
}

describe("the checked call style", () => {
  it("returns outputs, throws on failure, passes non-errors through", () => {
    const rt = stubRuntime();
    const u64 = rt.u64;
    let status = 0;
    const raw: Record<string, (...a: Any[]) => Any> = {
      fxInit: () => status,
      fxMemGetInfo: (a: Pointer, b: Pointer) => {
        expect(ffi.samePointer(a, rt.out[0]!) && ffi.samePointer(b, rt.out[1]!)).toBe(true);
        u64[0] = 100n;
        u64[1] = 200n;
        return 0;
      },
      fxAlloc: (_p: Pointer, size: bigint | number) => {
        u64[0] = 0x7f0000001000n + BigInt(size);
        return 0;
      },
      fxStreamQuery: () => status,
      fxEventElapsedTime: () => {
        rt.f32[0] = 1.5;
        return 0;
      },
      fxStreamGetLocation: (p: NativePointer) => {
        new DataView(ffi.view(p, 8)).setInt32(4, 42, true);
        return 0;
      },
      fxGetErrorName: () => {
        u64[0] = 0x1000n;
        rt.cstrings.set(0x1000n, "FX_ERROR_UNKNOWN");
        return 0;
      },
      fxStreamCreate: () => {
        u64[0] = 0x7f0000002000n;
        return 0;
      },
      fxAdd: (a: number, b: number) => a + b,
      fxReset: () => undefined,
      fxGetName: () => ffi.pointerFromAddress(0x7f0000003000n),
    };
    const api = fx.createChecked(raw, rt);
    expect(api.fxInit(0)).toBeUndefined();
    status = 999;
    expect(() => api.fxInit(0)).toThrow("fxInit failed with 999");
    expect(rt.failures).toEqual([[999, "fxInit"]]);
    expect(api.fxMemGetInfo()).toEqual([100n, 200n]);
    expect(api.fxAlloc(16)).toBe(0x7f0000001010n);
    status = 600; // FX_ERROR_NOT_READY is declared a non-error of fxStreamQuery in the manifest
    expect(api.fxStreamQuery(null)).toBe(600);
    status = 0;
    expect(api.fxStreamQuery(null)).toBe(0);
    status = 1;
    expect(() => api.fxStreamQuery(null)).toThrow("fxStreamQuery failed with 1");
    expect(api.fxEventElapsedTime(null, null)).toBe(1.5);
    const loc = api.fxStreamGetLocation(null);
    expect(loc).toBeInstanceOf(fx.fxLocation_st);
    expect(loc.id).toBe(42);
    expect(api.fxGetErrorName(fx.fxResult.FX_ERROR_UNKNOWN)).toBe("FX_ERROR_UNKNOWN");
    expect(ffi.bigAddressOf(api.fxStreamCreate(0))).toBe(0x7f0000002000n);
    expect(api.fxAdd(2, 3)).toBe(5);
    expect(api.fxReset()).toBeUndefined();
    expect(api.fxGetName()).toBe(`string at ${0x7f0000003000n}`);
  });

  it("arrays, counts, strings and handle references: sized, checked, trimmed", () => {
    const rt = stubRuntime();
    const calls: string[] = [];
    let streams = 3;
    const raw: Record<string, (...a: Any[]) => Any> = {
      fxCtxGetStreams: (p: Pointer, n: NativePointer) => {
        const cap = rt.u64[0]!;
        calls.push(`fxCtxGetStreams(${p === null ? "NULL" : "array"}, ${cap})`);
        rt.u64[0] = BigInt(streams);
        if (p !== null) new BigUint64Array(ffi.view(p as NativePointer, Number(cap) * 8)).set([0x10n, 0x20n, 0x30n].slice(0, Number(cap)));
        void n;
        return 0;
      },
      fxStreamWaitAll: () => 0,
      fxStreamDestroyRef: (p: NativePointer) => {
        calls.push(`destroy ${new BigUint64Array(ffi.view(p, 8))[0]}`);
        return 0;
      },
      fxDeviceGetName: (p: NativePointer, len: number) => {
        new Uint8Array(ffi.view(p, len)).set(new TextEncoder().encode("Fixture GPU\0"));
        return 0;
      },
      fxGetLocations: (p: NativePointer) => {
        const cap = rt.u32[0]!;
        rt.u32[0] = Math.min(cap, 2);
        new Int32Array(ffi.view(p, cap * 8)).set([1, 7, 2, 8].slice(0, cap * 2));
        return 0;
      },
    };
    const api = fx.createChecked(raw, rt);
    const got = api.fxCtxGetStreams();
    expect(got.map((x: Pointer) => ffi.bigAddressOf(x))).toEqual([0x10n, 0x20n, 0x30n]);
    expect(calls).toEqual(["fxCtxGetStreams(NULL, 0)", "fxCtxGetStreams(array, 3)"]);
    streams = 1;
    expect(api.fxCtxGetStreams(3)).toHaveLength(1); // the caller's capacity, trimmed to what the library reports
    expect(() => api.fxStreamWaitAll(new BigUint64Array(2), 3)).toThrow("fxStreamWaitAll: `streams` must be at least 24 bytes");
    expect(() => api.fxStreamWaitAll(new BigUint64Array(2), -1)).toThrow("fxStreamWaitAll: `count` must be an unsigned 32-bit integer (0 to 4294967295), as a number; got -1");
    expect(api.fxStreamWaitAll(new BigUint64Array(2), 2)).toBeUndefined();
    api.fxStreamDestroyRef(ffi.pointerFromAddress(0x7f0000004000n));
    expect(calls.at(-1)).toBe(`destroy ${0x7f0000004000n}`);
    expect(api.fxDeviceGetName(64, 0)).toBe("Fixture GPU");
    const locs = api.fxGetLocations(4);
    expect(locs).toHaveLength(2);
    expect(locs[1]).toBeInstanceOf(fx.fxLocation_st);
    expect([locs[1].type, locs[1].id]).toEqual([2, 8]);
    expect(() => api.fxStreamGetLocation(null, new fxe.fxeRequest())).toThrow(/must be a struct fxLocation_st/);
  });
});
