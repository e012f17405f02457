// Pure tests of the x86-64 System V lowering plan (lowering.ts), the struct classification (abi.ts) and Deno's
// struct field lists (deno-struct.ts). No FFI calls.
import { describe, expect, it } from "vitest";
import { classifyStruct } from "../../src/ffi/abi.ts";
import { denoStructFields } from "../../src/ffi/deno-struct.ts";
import {
  argumentLocations,
  planCall,
  scalarLocations,
  type Location,
  type LoweredArg,
} from "../../src/ffi/lowering.ts";
import type { FunctionType, NativeType } from "../../src/ffi/types.ts";
import { ComplexDouble, ComplexFloat, CXCursor, CXSourceLocation, CXString, DivT, InAddr, struct } from "./helpers.ts";

const A16 = struct("A16", 16, 16, [
  [0, "i64"],
  [8, "i64"],
]);
const A32 = struct("A32", 32, 16, [
  [0, "i64"],
  [8, "i64"],
  [16, "i64"],
]);
const IntFloat = struct("IntFloat", 16, 8, [
  [0, "i32"],
  [4, "f32"],
  [8, "f64"],
]);
const Packed5 = struct("Packed5", 5, 1, [
  [0, "i8"],
  [1, "i32"],
]);

/** Short names for the arguments of a plan: v<source>, w<source>.<word>:<type>, pad, ret. */
function shape(args: readonly LoweredArg[]): string[] {
  return args.map((a) => {
    switch (a.kind) {
      case "value":
        return `v${a.source}`;
      case "word":
        return `w${a.source}.${a.word}:${a.type}`;
      case "pad":
        return "pad";
      case "result-pointer":
        return "ret";
    }
  });
}

function loc(l: Location): string {
  return l.kind === "stack" ? `stack+${l.offset}` : l.kind === "none" ? "none" : `${l.kind}${l.register}`;
}

/** Checks that the plan's scalars land exactly where the psABI puts the original arguments' eightbytes. */
function checkAgainstAbi(type: FunctionType): void {
  const plan = planCall(type, "f");
  const placed = scalarLocations(plan.args.map((a) => a.type)).map(loc);
  const want = argumentLocations(type).map((ls) => ls.map(loc));
  plan.args.forEach((a, i) => {
    if (a.kind === "value") expect(placed[i]).toBe(want[a.source]![0]);
    if (a.kind === "word") expect(placed[i]).toBe(want[a.source]![a.word]);
    if (a.kind === "result-pointer") expect(placed[i]).toBe("int0");
  });
  // Every eightbyte of every argument is passed exactly once.
  const passed = plan.args.filter((a) => a.kind === "value" || a.kind === "word").length;
  expect(passed).toBe(want.reduce((n, ls) => n + ls.filter((l) => l !== "none").length, 0));
}

describe("planCall", () => {
  it("scalar-only signatures are direct, even with more than six integer arguments", () => {
    const type = { parameters: ["i32", "i32", "i32", "i32", "i32", "i32", "i32", "f64"], result: "i64" } as const;
    const plan = planCall(type);
    expect(plan.direct).toBe(true);
    // Register arguments first (the f64 in XMM0), then the stack: order among register files does not matter.
    expect(shape(plan.args)).toEqual(["v0", "v1", "v2", "v3", "v4", "v5", "v7", "v6"]);
    expect(argumentLocations(type).map((l) => loc(l[0]!))).toEqual([
      "int0", "int1", "int2", "int3", "int4", "int5", "stack+0", "sse0",
    ]);
  });

  it("a MEMORY struct argument goes on the stack after the integer registers are padded", () => {
    const plan = planCall({ parameters: [CXCursor], result: "i32" });
    expect(plan.direct).toBe(false);
    expect(shape(plan.args)).toEqual([
      "pad", "pad", "pad", "pad", "pad", "pad",
      "w0.0:u64", "w0.1:u64", "w0.2:u64", "w0.3:u64",
    ]);
    checkAgainstAbi({ parameters: [CXCursor], result: "i32" });
  });

  it("clang_Cursor_getArgument(CXCursor, unsigned) -> CXCursor: hidden pointer in RDI, the scalar in RSI, the struct on the stack", () => {
    const type = { parameters: [CXCursor, "u32"], result: CXCursor } as const;
    const plan = planCall(type, "clang_Cursor_getArgument");
    expect(plan.result).toEqual({ kind: "memory", size: 32 });
    expect(shape(plan.args)).toEqual([
      "ret", "v1", "pad", "pad", "pad", "pad",
      "w0.0:u64", "w0.1:u64", "w0.2:u64", "w0.3:u64",
    ]);
    checkAgainstAbi(type);
  });

  it("small INTEGER and SSE structs travel in registers as u64 and f64 words", () => {
    const type = { parameters: [InAddr, ComplexFloat, DivT, ComplexDouble, IntFloat], result: "void" } as const;
    const plan = planCall(type);
    expect(shape(plan.args)).toEqual([
      "w0.0:u64", "w1.0:f64", "w2.0:u64", "w3.0:f64", "w3.1:f64", "w4.0:u64", "w4.1:f64",
    ]);
    const words = plan.args.filter((a) => a.kind === "word");
    expect(words.map((w) => w.bytes)).toEqual([4, 8, 8, 8, 8, 8, 8]);
    expect(words.map((w) => w.loneDouble)).toEqual([false, false, false, true, true, false, true]);
    checkAgainstAbi(type);
  });

  it("a register struct that no longer fits goes wholly on the stack; the next scalar takes the register left", () => {
    const S16 = struct("S16", 16, 8, [
      [0, "u64"],
      [8, "u64"],
    ]);
    const type = { parameters: ["pointer", "u64", "pointer", "u64", "u64", S16, "u64", CXCursor, "u64"], result: "i32" } as const;
    const plan = planCall(type);
    expect(shape(plan.args)).toEqual([
      "v0", "v1", "v2", "v3", "v4", "v6",
      "w5.0:u64", "w5.1:u64", "w7.0:u64", "w7.1:u64", "w7.2:u64", "w7.3:u64", "v8",
    ]);
    checkAgainstAbi(type);
  });

  it("scalars overflowing their register file keep argument order on the stack; SSE registers count separately", () => {
    const params: NativeType[] = [
      "i64", "f64", "i64", "f64", "i64", "f64", "i64", "f64", "i64", "f64", "i64", "f64",
      CXSourceLocation, "f64", "f64", "f64", "i32", "f32", "f32", ComplexFloat, "i8",
    ];
    const type: FunctionType = { parameters: params, result: CXSourceLocation };
    const plan = planCall(type);
    expect(shape(plan.args)).toEqual([
      "ret", "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v11", "v13", "v14",
      "v10", "w12.0:u64", "w12.1:u64", "w12.2:u64", "v15", "v16", "v17", "v18", "w19.0:u64", "v20",
    ]);
    checkAgainstAbi(type);
  });

  it("16-byte-aligned MEMORY structs start at a 16-byte stack offset", () => {
    const type = { parameters: ["i64", "i64", "i64", "i64", "i64", "i64", "i64", A32, A16], result: "void" } as const;
    const plan = planCall(type);
    // i64 #6 takes stack+0, so A32 starts at stack+16 after a pad word; A16 (INTEGER, INTEGER, but no integer
    // register left) follows at stack+48, already 16-aligned.
    expect(shape(plan.args)).toEqual([
      "v0", "v1", "v2", "v3", "v4", "v5",
      "v6", "pad", "w7.0:u64", "w7.1:u64", "w7.2:u64", "w7.3:u64", "w8.0:u64", "w8.1:u64",
    ]);
    expect(argumentLocations(type).map((ls) => ls.map(loc))[7]).toEqual(["stack+16", "stack+24", "stack+32", "stack+40"]);
    checkAgainstAbi(type);
  });

  it("packed structs with misaligned fields are MEMORY", () => {
    expect(Packed5.struct.passing).toEqual({ kind: "memory" });
    checkAgainstAbi({ parameters: ["i32", Packed5, "i32"], result: Packed5 });
  });

  it("one-eightbyte struct results come back as u64 (RAX) or f64 (XMM0)", () => {
    expect(planCall({ parameters: [], result: DivT }).result).toEqual({
      kind: "word",
      type: "u64",
      size: 8,
      word: 0,
      loneDouble: false,
    });
    expect(planCall({ parameters: [], result: ComplexFloat }).result).toEqual({
      kind: "word",
      type: "f64",
      size: 8,
      word: 0,
      loneDouble: false,
    });
  });

  it("two-eightbyte struct results are unsupported, naming the function, the struct, the registers and Deno", () => {
    const r = planCall({ parameters: [CXCursor], result: CXString }, "clang_getCursorSpelling").result;
    expect(r.kind).toBe("unsupported");
    expect(r.kind === "unsupported" && r.reason).toBe(
      "clang_getCursorSpelling returns struct CXString (16 bytes) in two registers (RAX:RDX); bun:ffi reads only one " +
        "result register, so this call cannot be expressed on Bun. Deno can call it (deno run --allow-ffi).",
    );
    const mixed = planCall({ parameters: [], result: struct("M", 16, 8, [[0, "f64"], [8, "i64"]]) }, "g").result;
    expect(mixed.kind === "unsupported" && mixed.reason).toContain("(XMM0:RAX)");
  });

  it("padding-only (NONE) eightbytes of over-aligned structs take no register, as GCC passes them", () => {
    // struct __attribute__((aligned(16))) { int i; } is INTEGER + NONE: RDI alone; the next long goes in RSI.
    const IntA16 = struct("IntA16", 16, 16, [[0, "i32"]]);
    expect(IntA16.struct.passing).toEqual({ kind: "registers", classes: ["INTEGER", "NONE"] });
    const type = { parameters: [IntA16, "i64"], result: IntA16 } as const;
    const plan = planCall(type);
    expect(shape(plan.args)).toEqual(["w0.0:u64", "v1"]);
    expect(plan.result).toEqual({ kind: "word", type: "u64", size: 16, word: 0, loneDouble: false });
    expect(argumentLocations(type).map((ls) => ls.map(loc))).toEqual([["int0", "none"], ["int1"]]);
    checkAgainstAbi(type);
    // struct __attribute__((aligned(16))) { double d; } is SSE + NONE: XMM0 alone.
    const DoubleA16 = struct("DoubleA16", 16, 16, [[0, "f64"]]);
    expect(shape(planCall({ parameters: [DoubleA16, "i64", "f64"], result: "void" }).args)).toEqual(["w0.0:f64", "v1", "v2"]);
  });

  it("nativeResult keeps the struct result and still reserves RDI for a MEMORY result", () => {
    const plan = planCall({ parameters: [A16, "i32"], result: CXCursor }, "f", { nativeResult: true });
    expect(plan.result).toEqual({ kind: "native" });
    expect(shape(plan.args)).toEqual(["w0.0:u64", "w0.1:u64", "v1"]);
    expect(scalarLocations(plan.args.map((a) => a.type)).map(loc)).toEqual(["int0", "int1", "int2"]);
  });

  it("agrees with the psABI on 2,000 random signatures", () => {
    const pool: NativeType[] = [
      "i32", "i64", "u8", "f32", "f64", "pointer", "bool", struct("IntA16", 16, 16, [[0, "i32"]]),
      InAddr, DivT, ComplexFloat, ComplexDouble, IntFloat, CXCursor, CXSourceLocation, A16, A32, Packed5,
    ];
    let seed = 1;
    const next = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (let i = 0; i < 2000; i++) {
      const parameters = Array.from({ length: next(16) }, () => pool[next(pool.length)]!);
      const result = ([CXCursor, "void", "i32", DivT] as const satisfies NativeType[])[next(4)]!;
      checkAgainstAbi({ parameters, result });
    }
  });
});

describe("classifyStruct", () => {
  it("classifies the psABI examples", () => {
    expect(classifyStruct(4, 4, [{ offset: 0, type: "u32" }])).toEqual({ kind: "registers", classes: ["INTEGER"] });
    expect(ComplexDouble.struct.passing).toEqual({ kind: "registers", classes: ["SSE", "SSE"] });
    expect(IntFloat.struct.passing).toEqual({ kind: "registers", classes: ["INTEGER", "SSE"] });
    expect(CXString.struct.passing).toEqual({ kind: "registers", classes: ["INTEGER", "INTEGER"] });
    expect(CXCursor.struct.passing).toEqual({ kind: "memory" });
    const s12 = struct("float3", 12, 4, [
      [0, "f32"],
      [4, "f32"],
      [8, "f32"],
    ]);
    expect(s12.struct.passing).toEqual({ kind: "registers", classes: ["SSE", "SSE"] });
  });
});

describe("denoStructFields", () => {
  it("keeps naturally aligned leaves as they are", () => {
    expect(denoStructFields(CXCursor.struct)).toEqual(["i32", "i32", "pointer", "pointer", "pointer"]);
    expect(denoStructFields(CXString.struct)).toEqual(["pointer", "u32"]);
  });

  it("pads where natural alignment would not reach a leaf's offset, keeping the SSE class", () => {
    const gap = struct("Gap", 16, 8, [
      [0, "f32"],
      [8, "f32"],
    ]);
    // f32 at 0, 4 bytes of padding, f32 at 8, 4 bytes of tail padding: float padding keeps both eightbytes SSE.
    expect(gap.struct.passing).toEqual({ kind: "registers", classes: ["SSE", "SSE"] });
    expect(denoStructFields(gap.struct)).toEqual(["f32", "f32", "f32", "f32"]);
    const intGap = struct("IntGap", 12, 4, [
      [0, "u8"],
      [8, "u32"],
    ]);
    expect(denoStructFields(intGap.struct)).toEqual(["u8", "u8", "u8", "u8", "u8", "u8", "u8", "u8", "u32"]);
  });

  it("gives unions one run per eightbyte", () => {
    const u = struct("U", 8, 8, [
      [0, "f64"],
      [0, "i64"],
    ]);
    expect(denoStructFields(u.struct)).toEqual(["u64"]);
    const f = struct("UF", 4, 4, [
      [0, "f32"],
      [0, "f32"],
    ]);
    expect(denoStructFields(f.struct)).toEqual(["f32"]);
  });

  it("refuses what libffi would pass differently from C", () => {
    expect(() => denoStructFields(Packed5.struct)).toThrow(/Packed5/);
    expect(() => denoStructFields(struct("E", 0, 1, []).struct)).toThrow(/empty/);
  });
});
