/**
 * Lowering of calls that pass or return structs by value to calls with scalar arguments only, by the x86-64
 * System V rules (psABI §3.2.3), for bun:ffi, which has no struct type.
 *
 * The plan places every eightbyte where the callee reads it:
 * - A struct in registers (≤ 16 bytes, classes from {@link classifyStruct}) travels as one scalar per eightbyte:
 *   an INTEGER eightbyte as a `u64`, an SSE eightbyte as an `f64` whose bits are the struct's bytes.
 * - A MEMORY struct argument, and a register struct for which too few registers are left, goes on the stack in
 *   argument order. The lowered call fills the six integer registers first (with dummy `u64` arguments where the
 *   original call leaves some unused) so that its stack words then land on the stack, in order. Scalars that
 *   overflow the registers go to the stack in argument order too; SSE registers are counted independently.
 * - A MEMORY struct result is written through a hidden pointer passed in the first integer register.
 * - A struct result of one eightbyte comes back in RAX (`u64`) or XMM0 (`f64`). A result of two eightbytes
 *   (RAX:RDX, XMM0:XMM1, or a mix) cannot be read through an FFI that returns one scalar: the plan marks it
 *   unsupported.
 *
 * Everything here is pure (no FFI), so it is tested on both runtimes.
 *
 * @module
 */
import type { FunctionType, NativeType, ScalarType, StructLayout, StructType } from "./types.ts";

/** A scalar type of a lowered call (the runtime's FFI types; `pointer` covers `function`). */
export type LoweredType = Exclude<ScalarType, "function">;

/** Where one scalar argument lands in a call. */
export type Location =
  | { readonly kind: "int"; readonly register: number }
  | { readonly kind: "sse"; readonly register: number }
  | { readonly kind: "stack"; readonly offset: number }
  /** A padding-only (`NONE`) eightbyte of a struct in registers: passed nowhere. */
  | { readonly kind: "none" };

/** How one argument of the lowered call gets its value from the caller's arguments. */
export type LoweredArg =
  /** The caller's argument `source`, unchanged. */
  | { readonly kind: "value"; readonly type: LoweredType; readonly source: number }
  /**
   * Eightbyte `word` of the struct argument `source`: its `bytes` bytes from `word * 8`, as a `u64` (INTEGER,
   * or any stack word) or an `f64` (SSE). `loneDouble` marks an SSE eightbyte that is exactly one `double`.
   */
  | {
      readonly kind: "word";
      readonly type: "u64" | "f64";
      readonly source: number;
      readonly word: number;
      readonly bytes: number;
      readonly loneDouble: boolean;
    }
  /** A dummy `u64` 0 that occupies an integer register, or a stack slot that aligns a 16-byte-aligned struct. */
  | { readonly kind: "pad"; readonly type: "u64" }
  /** The hidden pointer to the caller-allocated memory of a MEMORY struct result. */
  | { readonly kind: "result-pointer"; readonly type: "pointer" };

/** How the result of the lowered call becomes the caller's result. */
export type LoweredResult =
  /** The native result, unchanged (also `void`). */
  | { readonly kind: "value"; readonly type: LoweredType }
  /**
   * A struct with one eightbyte in a register: RAX (`u64`) or XMM0 (`f64`) holds eightbyte `word` of the
   * `size`-byte struct (the others are padding).
   */
  | {
      readonly kind: "word";
      readonly type: "u64" | "f64";
      readonly size: number;
      readonly word: number;
      readonly loneDouble: boolean;
    }
  /** A MEMORY struct written through the hidden pointer (the lowered call returns nothing useful). */
  | { readonly kind: "memory"; readonly size: number }
  /**
   * A struct result the runtime's FFI returns itself (planned with `nativeResult`): it passes through unchanged.
   * A MEMORY result still takes the first integer register for its hidden pointer, which the runtime supplies.
   */
  | { readonly kind: "native" }
  /** A result the lowered call cannot express, with the reason. */
  | { readonly kind: "unsupported"; readonly reason: string };

/** The lowering of one call. */
export interface CallPlan {
  /** The arguments of the lowered call, in order. */
  readonly args: readonly LoweredArg[];
  /** The lowered result. */
  readonly result: LoweredResult;
  /** True when the lowered call is the original one (no struct anywhere): bind the native function directly. */
  readonly direct: boolean;
}

const INT_REGISTERS = 6;
const SSE_REGISTERS = 8;

function isStruct(t: NativeType): t is StructType {
  return typeof t === "object";
}

/** The lowered scalar type of a native scalar type. */
export function loweredScalar(t: ScalarType): LoweredType {
  return t === "function" ? "pointer" : t;
}

function isFloat(t: LoweredType): boolean {
  return t === "f32" || t === "f64";
}

/** Whether eightbyte `word` of a struct is exactly one `double` leaf (its bits are a meaningful f64). */
function isLoneDouble(layout: StructLayout, word: number): boolean {
  const inWord = layout.leaves.filter((l) => Math.floor(l.offset / 8) === word);
  return inWord.length === 1 && inWord[0]!.type === "f64" && inWord[0]!.offset === word * 8;
}

function wordCount(size: number): number {
  return Math.ceil(size / 8);
}

function wordBytes(size: number, word: number): number {
  return Math.min(8, size - word * 8);
}

function describe(layout: StructLayout): string {
  return `struct ${layout.name} (${layout.size} bytes)`;
}

/** Options of {@link planCall}. */
export interface PlanOptions {
  /**
   * The runtime returns struct results itself (Deno): only the parameters are lowered, and a struct result is
   * `{ kind: "native" }`.
   */
  readonly nativeResult?: boolean;
}

/**
 * Plans the lowering of a call to scalar arguments (x86-64 System V).
 *
 * @param type - the native signature.
 * @param name - the function's name, for messages.
 * @param options - see {@link PlanOptions}.
 * @returns the plan; a result that cannot be expressed is `{ kind: "unsupported" }`, never an exception.
 */
export function planCall(type: FunctionType, name = "this function", options: PlanOptions = {}): CallPlan {
  const direct = !isStruct(type.result) && !type.parameters.some(isStruct);

  const registerArgs: LoweredArg[] = [];
  const stackArgs: LoweredArg[] = [];
  let stackOffset = 0; // bytes of stack arguments so far, to align 16-byte-aligned structs
  let intUsed = 0;
  let sseUsed = 0;

  let result: LoweredResult;
  const r = type.result;
  if (!isStruct(r)) {
    result = { kind: "value", type: loweredScalar(r) };
  } else if (options.nativeResult === true) {
    result = { kind: "native" };
    if (r.struct.passing.kind === "memory") intUsed = 1;
  } else if (r.struct.passing.kind === "memory") {
    result = { kind: "memory", size: r.struct.size };
    registerArgs.push({ kind: "result-pointer", type: "pointer" });
    intUsed = 1;
  } else if (r.struct.passing.classes.filter((c) => c !== "NONE").length === 1) {
    const word = r.struct.passing.classes.findIndex((c) => c !== "NONE");
    const cls = r.struct.passing.classes[word];
    result = {
      kind: "word",
      type: cls === "SSE" ? "f64" : "u64",
      size: r.struct.size,
      word,
      loneDouble: cls === "SSE" && isLoneDouble(r.struct, word),
    };
  } else {
    let nextInt = 0;
    let nextSse = 0;
    const regs = r.struct.passing.classes
      .filter((c) => c !== "NONE")
      .map((c) => (c === "SSE" ? `XMM${nextSse++}` : nextInt++ === 0 ? "RAX" : "RDX"))
      .join(":");
    result = {
      kind: "unsupported",
      reason:
        `${name} returns ${describe(r.struct)} in two registers (${regs}); bun:ffi reads only one result ` +
        `register, so this call cannot be expressed on Bun. Deno can call it (deno run --allow-ffi).`,
    };
  }

  const toStack = (arg: LoweredArg): void => {
    stackArgs.push(arg);
    stackOffset += 8;
  };

  type.parameters.forEach((p, source) => {
    if (!isStruct(p)) {
      const t = loweredScalar(p);
      if (t === "void") throw new TypeError(`${name}: parameter ${source} has type void`);
      const fits = isFloat(t) ? sseUsed < SSE_REGISTERS : intUsed < INT_REGISTERS;
      const arg: LoweredArg = { kind: "value", type: t, source };
      if (fits) {
        registerArgs.push(arg);
        if (isFloat(t)) sseUsed++;
        else intUsed++;
      } else {
        toStack(arg);
      }
      return;
    }
    const layout = p.struct;
    const words = wordCount(layout.size);
    const passing = layout.passing;
    if (passing.kind === "registers") {
      const needInt = passing.classes.filter((c) => c === "INTEGER").length;
      const needSse = passing.classes.filter((c) => c === "SSE").length;
      if (intUsed + needInt <= INT_REGISTERS && sseUsed + needSse <= SSE_REGISTERS) {
        passing.classes.forEach((cls, word) => {
          if (cls === "NONE") return;
          registerArgs.push({
            kind: "word",
            type: cls === "SSE" ? "f64" : "u64",
            source,
            word,
            bytes: wordBytes(layout.size, word),
            loneDouble: cls === "SSE" && isLoneDouble(layout, word),
          });
        });
        intUsed += needInt;
        sseUsed += needSse;
        return;
      }
      // Not enough registers left for every eightbyte: the whole struct goes on the stack and the registers stay
      // free for later arguments (psABI: "If there are no registers available for any eightbyte of an argument,
      // the whole argument is passed on the stack").
    }
    if (layout.align > 8 && stackOffset % 16 !== 0) toStack({ kind: "pad", type: "u64" });
    for (let word = 0; word < words; word++) {
      toStack({
        kind: "word",
        type: "u64",
        source,
        word,
        bytes: wordBytes(layout.size, word),
        loneDouble: false,
      });
    }
  });

  // Stack words are integer-typed (u64), or scalars that overflowed their register file. For them to land on the
  // stack, the lowered call must have used every integer register before them.
  const stackHasInt = stackArgs.some((a) => !isFloat(a.type));
  const args = [...registerArgs];
  if (stackHasInt) for (let i = intUsed; i < INT_REGISTERS; i++) args.push({ kind: "pad", type: "u64" });
  args.push(...stackArgs);
  return { args, result, direct };
}

/**
 * Where each argument of an all-scalar call lands (x86-64 System V): integer registers RDI, RSI, RDX, RCX, R8, R9
 * (0–5), SSE registers XMM0–7, then 8-byte stack slots in argument order.
 *
 * @param types - the scalar argument types, in order.
 */
export function scalarLocations(types: readonly LoweredType[]): Location[] {
  let intUsed = 0;
  let sseUsed = 0;
  let stack = 0;
  return types.map((t) => {
    if (isFloat(t) ? sseUsed < SSE_REGISTERS : intUsed < INT_REGISTERS) {
      return isFloat(t) ? { kind: "sse", register: sseUsed++ } : { kind: "int", register: intUsed++ };
    }
    const offset = stack;
    stack += 8;
    return { kind: "stack", offset };
  });
}

/**
 * Where each eightbyte of each argument of a call lands by the x86-64 System V rules, computed directly from the
 * psABI (independently of {@link planCall}; tests check one against the other). A MEMORY result takes RDI first.
 *
 * @param type - the native signature.
 * @returns per parameter, one location per scalar or per eightbyte of a struct.
 */
export function argumentLocations(type: FunctionType): Location[][] {
  let intUsed = isStruct(type.result) && type.result.struct.passing.kind === "memory" ? 1 : 0;
  let sseUsed = 0;
  let stack = 0;
  return type.parameters.map((p) => {
    if (!isStruct(p)) {
      const t = loweredScalar(p);
      if (isFloat(t) ? sseUsed < SSE_REGISTERS : intUsed < INT_REGISTERS) {
        return [isFloat(t) ? { kind: "sse", register: sseUsed++ } : { kind: "int", register: intUsed++ }];
      }
      const offset = stack;
      stack += 8;
      return [{ kind: "stack", offset }];
    }
    const layout = p.struct;
    const passing = layout.passing;
    if (passing.kind === "registers") {
      const needInt = passing.classes.filter((c) => c === "INTEGER").length;
      const needSse = passing.classes.filter((c) => c === "SSE").length;
      if (intUsed + needInt <= INT_REGISTERS && sseUsed + needSse <= SSE_REGISTERS) {
        return passing.classes.map(
          (c): Location =>
            c === "NONE"
              ? { kind: "none" }
              : c === "SSE"
                ? { kind: "sse", register: sseUsed++ }
                : { kind: "int", register: intUsed++ },
        );
      }
    }
    if (layout.align > 8) stack = Math.ceil(stack / 16) * 16;
    const out: Location[] = [];
    for (let w = 0; w < wordCount(layout.size); w++) {
      out.push({ kind: "stack", offset: stack });
      stack += 8;
    }
    return out;
  });
}
