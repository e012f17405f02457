/**
 * What a JavaScript argument must be for a native parameter type, as source code: the one statement of the rules,
 * shared by the generator (which writes the checks into the checked call style, generated/.../checked-impl.ts) and
 * the bindings layer (which makes the raw call style's checks from each function's native signature). Pure data
 * and strings: no runtime, no FFI.
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

/**
 * A JavaScript expression, true when `v` (an identifier) is a valid argument of `kind`, written inline where the
 * argument is checked (a check function shared by every call site would see every call's values, and engines
 * optimise such a polymorphic check worse than one inline copy per site). `P` names the backend's `isPointer`; `S`
 * (structs only) the struct's size. Straight-line: no call but `P`, no allocation.
 *
 * The integer tests ask typeof first (`|` on a bigint or a symbol throws a TypeError of its own) and refuse -0, which
 * passes every `|`-based test and which Deno's FFI refuses for an 8- to 32-bit integer ("expected integer"), so that
 * both runtimes answer alike: the division runs only for a zero, and `+` makes TypeScript compare the number (an enum
 * without a 0 member is otherwise a type that "cannot be 0").
 */
export function argumentCondition(kind: ArgumentKind, v: string, P = "P", S = "S"): string {
  const notNegativeZero = `(+${v} !== 0 || 1 / ${v} > 0)`;
  switch (kind) {
    case "i8":
      return `(typeof ${v} === "number" && (${v} << 24 >> 24) === ${v} && ${notNegativeZero})`;
    case "u8":
      return `(typeof ${v} === "number" && (${v} & 255) === ${v} && ${notNegativeZero})`;
    case "i16":
      return `(typeof ${v} === "number" && (${v} << 16 >> 16) === ${v} && ${notNegativeZero})`;
    case "u16":
      return `(typeof ${v} === "number" && (${v} & 65535) === ${v} && ${notNegativeZero})`;
    case "i32":
      return `(typeof ${v} === "number" && (${v} | 0) === ${v} && ${notNegativeZero})`;
    case "u32":
      return `(typeof ${v} === "number" && (${v} >>> 0) === ${v} && ${notNegativeZero})`;
    case "i64":
      return `(typeof ${v} === "bigint" ? ${v} >= -9223372036854775808n && ${v} <= 9223372036854775807n : Number.isSafeInteger(${v}))`;
    case "u64":
      return `(typeof ${v} === "bigint" ? ${v} >= 0n && ${v} <= 18446744073709551615n : Number.isSafeInteger(${v}) && ${v} >= 0)`;
    case "f32":
    case "f64":
      return `typeof ${v} === "number"`;
    case "bool":
      return `typeof ${v} === "boolean"`;
    case "pointer":
    case "function":
      return `${P}(${v})`;
    case "struct":
      return `(${v} instanceof Uint8Array && ${v}.byteLength >= ${S})`;
    case "void":
      return "false";
  }
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
