/**
 * Argument checks at the binding boundary: the raw call style's wrappers (made per native signature from the
 * generated table, once, as straight-line code) and the errors both call styles throw. A call that fails a check
 * throws {@link BindingArgumentError} and never reaches native code.
 *
 * @module
 */
import { ffi } from "../ffi/index.ts";
import type { NativeType } from "../ffi/types.ts";
import { type ArgumentKind, argumentCondition, argumentKind, expectedArgument } from "../tables-runtime/argument-checks.ts";
import type { FunctionSpec } from "../tables-runtime/spec.ts";
import { describeValue } from "../errors/describe.ts";
import { BindingArgumentError } from "./errors.ts";

/** What to do about a bad argument of `kind`. */
function fixFor(kind: ArgumentKind, value: unknown, style: "raw" | "checked"): string {
  switch (kind) {
    case "i64":
    case "u64":
      return typeof value === "number" && Number.isInteger(value) ? "Pass a bigint for values past 2^53." : "Pass an integer in range.";
    case "pointer":
    case "function":
      return style === "raw"
        ? "The raw style takes native pointers: make one with ffi.pointerOf(buffer), or call the checked style, which takes arrays and records."
        : "Pass the handle the library gave, or null.";
    case "struct":
      return "Pass the struct's record or its bytes.";
    case "bool":
      return "Pass true or false.";
    case "f32":
    case "f64":
      return "Pass a number.";
    default:
      if (Object.is(value, -0)) return "Pass 0: Deno's FFI takes -0 for no integer, so neither runtime does.";
      return typeof value === "bigint" ? "Pass a number (bigint is for 64-bit parameters)." : "Pass an integer in range.";
  }
}

/** The error for an argument of native kind `kind` that failed its check. */
export function argumentError(fn: string, param: string, kind: ArgumentKind, value: unknown, style: "raw" | "checked" = "checked", structSize?: number): BindingArgumentError {
  return new BindingArgumentError(fn, param, expectedArgument(kind, structSize), describeValue(value), fixFor(kind, value, style));
}

/** The error for a call with `got` arguments where `min`..`max` are taken (`names`: the parameters, in order). */
export function arityError(fn: string, names: readonly string[], min: number, got: number): BindingArgumentError {
  const max = names.length;
  const takes = `${min === max ? max : `${min} to ${max}`} argument${max === 1 ? "" : "s"}${names.length > 0 ? ` (${names.join(", ")})` : ""}`;
  const given = `${got} argument${got === 1 ? "" : "s"}`;
  if (got < min) {
    const param = names[got] ?? `argument ${got + 1}`;
    return new BindingArgumentError(fn, param, `passed: ${fn} takes ${takes}`, given, `Pass \`${param}\`${got + 1 < min ? " and the arguments after it" : ""}.`);
  }
  return new BindingArgumentError(fn, "arguments", takes, given, "Remove the extra arguments.");
}

type Fn = (...args: unknown[]) => unknown;
type Factory = (f: Fn, spec: FunctionSpec, P: (v: unknown) => boolean, fail: (k: number, v: unknown) => never, arity: (got: number) => never) => Fn;

/** The source of the wrapper factory per native signature (its kinds joined), written on its first function. */
const sources = new Map<string, string>();

/**
 * A wrapper factory for one function of the signature `kinds`. The source is shared per signature, but each function
 * compiles its own copy: closures of one compiled function share the engine's call-site feedback, and the wrapped
 * native call (`f(...)`) of a signature that many functions have (one pointer: cuCtxGetCurrent, cuStreamQuery,
 * cuEventDestroy, ...) would turn polymorphic and stop being inlined (measured on Bun: +5 to +20 ns a call).
 */
function factoryFor(kinds: readonly ArgumentKind[]): Factory {
  const key = kinds.join(",");
  let body = sources.get(key);
  if (body === undefined) {
    const params = kinds.map((_, k) => `a${k}`);
    const lines = kinds.map((kind, k) => `if (!(${argumentCondition(kind, `a${k}`, "P", `S${k}`)})) fail(${k}, a${k});`);
    const sizes = kinds.map((kind, k) => (kind === "struct" ? `const S${k} = spec.parameters[${k}].struct.size;\n` : "")).join("");
    // The wrapper is written out per signature: each check is inline code the engine optimises with the call.
    body =
      `${sizes}return function checkedArguments(${params.join(", ")}) {\n` +
      `if (arguments.length !== ${kinds.length}) arity(arguments.length);\n${lines.join("\n")}\n` +
      `return f(${params.join(", ")});\n};`;
    sources.set(key, body);
  }
  return new Function("f", "spec", "P", "fail", "arity", body) as Factory;
}

/** The parameter names of a table entry (`argument N` where the table has none). */
function namesOf(spec: FunctionSpec): readonly string[] {
  return spec.names ?? spec.parameters.map((_, k) => `argument ${k + 1}`);
}

/**
 * The raw function `f` behind a checking wrapper: every argument is checked against its native type before `f` is
 * called, and a call with a missing or extra argument is refused. The wrapper allocates nothing.
 */
export function checkRawArguments<F extends Fn>(name: string, spec: FunctionSpec, f: F): F {
  const kinds = spec.parameters.map((t: NativeType) => argumentKind(t));
  const fail = (k: number, v: unknown): never => {
    const t = spec.parameters[k]!;
    throw argumentError(name, namesOf(spec)[k]!, kinds[k]!, v, "raw", typeof t === "object" ? t.struct.size : undefined);
  };
  const arity = (got: number): never => {
    throw arityError(name, namesOf(spec), kinds.length, got);
  };
  return factoryFor(kinds)(f, spec, ffi.isPointer, fail, arity) as F;
}
