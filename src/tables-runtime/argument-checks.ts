/**
 * What a JavaScript argument must be for a native parameter type: the one statement of the rules, as a check
 * function per kind, used by the checked call style the generator writes (generated/.../checked-impl.ts imports
 * them) and by the raw call style's wrappers the bindings layer makes from each function's native signature. No
 * runtime, no FFI.
 *
 * The rules (identical on Bun and Deno):
 * - 8/16/32-bit integers and enums: a `number` that is an integer in the C type's range (no fraction, no NaN).
 * - 64-bit integers: a `bigint` in range, or a `number` that is a safe integer in range.
 * - `float`/`double`: a `number`. `bool`: a `boolean`.
 * - pointers, handles and function pointers: a {@link Pointer} (`null` or what the FFI hands out), tested by the
 *   backend's `isPointer` (`P` in the conditions).
 * - structs by value: a `Uint8Array` of at least the struct's size.
 *
 * @module
 */
import type { NativeType } from "../ffi/types.ts";

/** The native types whose argument a condition checks (struct: any struct passed by value). */
export type ArgumentKind = Exclude<NativeType, object> | "struct";

/** The C range of each integer kind. */
const RANGE: Readonly<Record<string, readonly [string, string]>> = {
  i8: ["-128", "127"],
  u8: ["0", "255"],
  i16: ["-32768", "32767"],
  u16: ["0", "65535"],
  i32: ["-2147483648", "2147483647"],
  u32: ["0", "4294967295"],
  i64: ["-9223372036854775808", "9223372036854775807"],
  u64: ["0", "18446744073709551615"],
};

/** The kind of a native type as {@link argumentCondition} takes it. */
export function argumentKind(t: NativeType): ArgumentKind {
  return typeof t === "object" ? "struct" : t;
}

// The checks, one small function per native kind: the generated checked calls import them (`if (!isU32(flags))
// rt.bad(...)`) and the raw style's wrappers call them; engines inline them where the call is hot. The integer checks
// ask typeof first (`|` on a bigint or a symbol throws a TypeError of its own) and refuse -0, which passes every
// `|`-based test and which Deno's FFI refuses for an 8- to 32-bit integer ("expected integer"), so that both runtimes
// answer alike (the division runs only for a zero).

/** An `int8_t`: an integer number from -128 to 127. */
export function isI8(v: unknown): boolean {
  return typeof v === "number" && (v << 24) >> 24 === v && (v !== 0 || 1 / v > 0);
}
/** A `uint8_t`: an integer number from 0 to 255. */
export function isU8(v: unknown): boolean {
  return typeof v === "number" && (v & 255) === v && (v !== 0 || 1 / v > 0);
}
/** An `int16_t`. */
export function isI16(v: unknown): boolean {
  return typeof v === "number" && (v << 16) >> 16 === v && (v !== 0 || 1 / v > 0);
}
/** A `uint16_t`. */
export function isU16(v: unknown): boolean {
  return typeof v === "number" && (v & 65535) === v && (v !== 0 || 1 / v > 0);
}
/** An `int32_t` (and a signed enum). */
export function isI32(v: unknown): boolean {
  return typeof v === "number" && (v | 0) === v && (v !== 0 || 1 / v > 0);
}
/** A `uint32_t` (and an unsigned enum). */
export function isU32(v: unknown): boolean {
  return typeof v === "number" && v >>> 0 === v && (v !== 0 || 1 / v > 0);
}
/** An `int64_t`: a bigint in range, or a safe-integer number. */
export function isI64(v: unknown): boolean {
  return typeof v === "bigint" ? v >= -9223372036854775808n && v <= 9223372036854775807n : Number.isSafeInteger(v);
}
/** A `uint64_t` (`size_t`, `CUdeviceptr`): a bigint in range, or a non-negative safe-integer number. */
export function isU64(v: unknown): boolean {
  return typeof v === "bigint" ? v >= 0n && v <= 18446744073709551615n : Number.isSafeInteger(v) && (v as number) >= 0;
}
/** A `float` or `double`: a number. */
export function isF64(v: unknown): boolean {
  return typeof v === "number";
}
/** A `bool`: a boolean. */
export function isBool(v: unknown): boolean {
  return typeof v === "boolean";
}

/** The checks of the scalar kinds, by the names {@link checkName} gives (pointers: the FFI backend's `isPointer`). */
export const SCALAR_CHECKS = { isI8, isU8, isI16, isU16, isI32, isU32, isI64, isU64, isF64, isBool } as const;

/** The name of the check function of a kind (pointers: `P`, the backend's isPointer), or undefined for a struct. */
export function checkName(kind: ArgumentKind, P = "P"): string | undefined {
  if (kind === "pointer" || kind === "function") return P;
  if (kind === "struct" || kind === "void") return undefined;
  const k = kind === "f32" ? "f64" : kind;
  return `is${k[0]!.toUpperCase()}${k.slice(1)}`;
}

/**
 * A JavaScript expression, true when `v` (an identifier) is a valid argument of `kind`: a call of its check
 * (`isU32(v)`, `P(v)` for pointers, with `P` the backend's `isPointer`), or for a struct a Uint8Array of at least `S`
 * bytes. The names must be in scope where the expression is compiled.
 */
export function argumentCondition(kind: ArgumentKind, v: string, P = "P", S = "S"): string {
  const check = checkName(kind, P);
  if (check !== undefined) return `${check}(${v})`;
  return kind === "struct" ? `(${v} instanceof Uint8Array && ${v}.byteLength >= ${S})` : "false";
}

/** What an argument of `kind` must be, in words (the error's "must be ..."). */
export function expectedArgument(kind: ArgumentKind, structSize?: number): string {
  const range = RANGE[kind];
  if (range !== undefined) {
    const bits = kind.slice(1);
    const wide = bits === "64";
    return `${kind[0] === "u" ? "an unsigned" : "a signed"} ${bits}-bit integer (${range[0]} to ${range[1]})${wide ? ", as a bigint or a safe-integer number" : ", as a number"}`;
  }
  switch (kind) {
    case "f32":
    case "f64":
      return "a number";
    case "bool":
      return "a boolean";
    case "pointer":
      return "a native pointer (null, or a Pointer the bindings or ffi.pointerOf / ffi.pointerFromAddress gave)";
    case "function":
      return "a native function pointer (null, or a Pointer such as a callback's .pointer)";
    case "struct":
      return `the struct's bytes: a Uint8Array of ${structSize ?? "its"} bytes`;
    default:
      return "nothing (void)";
  }
}
