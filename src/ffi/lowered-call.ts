/**
 * Runs a call planned by lowering.ts: turns the caller's struct bytes into the lowered scalar arguments, calls the
 * native function bound with the lowered signature, and turns its result back into struct bytes.
 *
 * The wrapper is generated per signature as straight-line code (one expression per lowered argument, bytes read
 * directly from the caller's `Uint8Array`), because a generic loop with a spread call costs ~10x more than the
 * native call itself. The generated source is built only from numbers of the plan; names and messages stay in
 * closure variables.
 *
 * Runtime-neutral: Bun uses it for every struct call, Deno only for struct arguments its FFI cannot place
 * (16-byte-aligned structs on the stack, packed structs).
 *
 * @module
 */
import { StructValueError, UnsupportedOnRuntimeError } from "./errors.ts";
import type { CallPlan, LoweredArg } from "./lowering.ts";
import type { FunctionType, StructLayout } from "./types.ts";

/** A runtime's native function, seen untyped. */
export type UntypedFunction = (...args: unknown[]) => unknown;

/** A function that throws the reason a call cannot be made on this runtime. */
export function unsupportedCall(runtime: "bun" | "deno", feature: string, reason: string): UntypedFunction {
  return () => {
    throw new UnsupportedOnRuntimeError(runtime, feature, reason);
  };
}

/** The little-endian value of bytes [from, from + count) of `a` as an unsigned 32-bit expression. */
function u32Expr(a: string, from: number, count: number): string {
  if (count <= 0) return "0";
  const parts: string[] = [];
  for (let k = 0; k < count; k++) parts.push(k === 0 ? `${a}[${from}]` : `${a}[${from + k}] << ${8 * k}`);
  return `((${parts.join(" | ")}) >>> 0)`;
}

/** The expression of one lowered argument. */
function argExpr(step: LoweredArg, index: number): string {
  switch (step.kind) {
    case "value":
      return `a${step.source}`;
    case "pad":
      return "0";
    case "result-pointer":
      return "res";
    case "word": {
      const a = `s${step.source}`;
      const at = step.word * 8;
      const lo = u32Expr(a, at, Math.min(4, step.bytes));
      const hi = u32Expr(a, at + 4, step.bytes - 4);
      if (step.type === "u64") return `(l = ${lo}, h = ${hi}, h < 0x200000 ? h * 4294967296 + l : big(l, h))`;
      return `(u32[0] = ${lo}, u32[1] = ${hi}, ${step.loneDouble ? "f64[0]" : `noNaN(f64[0], ${index})`})`;
    }
  }
}

/**
 * Wraps `fn`, bound with the lowered signature of `plan`, into a function of the original signature.
 *
 * @param fn - the native function with the lowered scalar parameters (a hidden result pointer is passed as a
 * `Uint8Array`, so bind it as a type that accepts one: `ptr` on Bun, `buffer` on Deno).
 * @param plan - the plan from `planCall(type, name)`.
 * @param type - the original signature.
 * @param name - the function's name, for messages.
 * @param runtime - the runtime, for messages.
 */
export function loweredCall(
  fn: UntypedFunction,
  plan: CallPlan,
  type: FunctionType,
  name: string,
  runtime: "bun" | "deno",
): UntypedFunction {
  const result = plan.result;
  if (result.kind === "unsupported") return unsupportedCall(runtime, "two-register struct results", result.reason);

  const layouts: (StructLayout | undefined)[] = type.parameters.map((t) =>
    typeof t === "object" ? t.struct : undefined,
  );
  const words = new ArrayBuffer(8);
  const u32 = new Uint32Array(words);
  const f64 = new Float64Array(words);
  const u64 = new BigUint64Array(words);
  const u8 = new Uint8Array(words);
  const resultSize = result.kind === "memory" || result.kind === "word" ? result.size : 0;

  /** The caller's struct argument as a Uint8Array of at least the struct's size. */
  const bytes = (arg: unknown, source: number): Uint8Array => {
    const layout = layouts[source]!;
    if (ArrayBuffer.isView(arg) && arg.byteLength >= layout.size) {
      return arg instanceof Uint8Array ? arg : new Uint8Array(arg.buffer, arg.byteOffset, arg.byteLength);
    }
    throw new StructValueError(
      `${name}: argument ${source} must hold the ${layout.size} bytes of struct ${layout.name} (a Uint8Array)`,
    );
  };
  const big = (lo: number, hi: number): bigint => (BigInt(hi) << 32n) | BigInt(lo);
  const noNaN = (value: number, index: number): number => {
    if (value === value) return value;
    const step = plan.args[index] as Extract<LoweredArg, { kind: "word" }>;
    throw new StructValueError(
      `${name}: eightbyte ${step.word} of struct ${layouts[step.source]!.name} goes in an SSE register as a double ` +
        `whose bits are a NaN; JavaScript may canonicalise NaN bits, so these bytes cannot be passed faithfully on ` +
        `${runtime === "bun" ? "Bun (Deno passes structs natively)" : "Deno"}.`,
    );
  };
  // A MEMORY result is written into one buffer per function (an explicit ArrayBuffer: allocating one per call costs
  // ~190 ns on Bun) and copied out; a nested call of the same function (from a callback) gets a buffer of its own.
  const shared = new Uint8Array(new ArrayBuffer(Math.max(resultSize, 1)));
  const state = { busy: false };
  const resultBuffer = (): Uint8Array => (state.busy ? new Uint8Array(new ArrayBuffer(resultSize)) : shared);
  const wordAt = result.kind === "word" ? result.word * 8 : 0;
  const wordBytes = Math.min(8, resultSize - wordAt);
  /** The result struct: the register's bytes at their eightbyte, padding eightbytes zero. */
  const fromWord = (): Uint8Array => {
    if (wordAt === 0 && wordBytes === resultSize) return u8.slice(0, resultSize);
    const out = new Uint8Array(new ArrayBuffer(resultSize));
    out.set(u8.subarray(0, wordBytes), wordAt);
    return out;
  };
  const fromU64 = (r: unknown): Uint8Array => {
    u64[0] = r as bigint;
    return fromWord();
  };
  const fromF64 = (r: unknown, loneDouble: boolean): Uint8Array => {
    const value = r as number;
    if (value !== value && !loneDouble) {
      throw new StructValueError(
        `${name}: its struct result came back in XMM0 as a double whose bits are a NaN; JavaScript may have ` +
          `canonicalised them, so the bytes cannot be returned faithfully on ${runtime}.` +
          (runtime === "bun" ? " Deno returns structs natively." : ""),
      );
    }
    f64[0] = value;
    return fromWord();
  };

  const params = type.parameters.map((_, i) => `a${i}`);
  const prologue = layouts.flatMap((l, i) => (l === undefined ? [] : [`const s${i} = bytes(a${i}, ${i});`]));
  const call = `fn(${plan.args.map(argExpr).join(", ")})`;
  let epilogue: string;
  switch (result.kind) {
    case "value":
    case "native":
      epilogue = `return ${call};`;
      break;
    case "memory":
      epilogue = [
        `res = resultBuffer();`,
        `const outer = state.busy;`,
        `state.busy = true;`,
        `try { ${call}; } finally { state.busy = outer; }`,
        `return res === shared ? res.slice(0, ${resultSize}) : res;`,
      ].join("\n");
      break;
    case "word":
      epilogue =
        result.type === "u64" ? `return fromU64(${call});` : `return fromF64(${call}, ${String(result.loneDouble)});`;
      break;
  }
  const body = [
    `"use strict";`,
    `return function lowered(${params.join(", ")}) {`,
    ...prologue,
    `let l = 0, h = 0, res;`,
    epilogue,
    `};`,
  ].join("\n");
  const deps = { fn, bytes, big, noNaN, resultBuffer, shared, state, fromU64, fromF64, u32, f64 };
  const make = new Function(...Object.keys(deps), body) as (...values: unknown[]) => UntypedFunction;
  return make(...Object.values(deps));
}
