/**
 * Checks shared by `ProgramOptions` and `LinkerOptions`: every value is validated when the options object is
 * built, before anything reaches a compiler, and a wrong one throws a TypeError (wrong type) or RangeError (wrong
 * value) that names the option, what was expected and what came.
 *
 * @module
 */
import { describeValue } from "../../errors/describe.ts";

/** Throws a TypeError: `Owner.option: expected X, got Y`. */
export function typeFailure(owner: string, option: string, expected: string, value: unknown): never {
  throw new TypeError(`${owner}.${option}: expected ${expected}, got ${describeValue(value)}`);
}

/** Throws a RangeError: `Owner.option: expected X, got Y`. */
export function rangeFailure(owner: string, option: string, expected: string, value: unknown): never {
  throw new RangeError(`${owner}.${option}: expected ${expected}, got ${describeValue(value)}`);
}

/** A boolean, or undefined. */
export function optionalBoolean(owner: string, option: string, value: unknown): boolean | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "boolean") typeFailure(owner, option, "a boolean", value);
  return value;
}

/** A string (non-empty unless `allowEmpty`), or undefined. */
export function optionalString(owner: string, option: string, value: unknown, allowEmpty = false): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string") typeFailure(owner, option, "a string", value);
  if (!allowEmpty && value === "") rangeFailure(owner, option, "a non-empty string", value);
  if (value.includes("\0")) rangeFailure(owner, option, "a string without NUL characters", value);
  return value;
}

/** One of `choices`, or undefined. */
export function optionalChoice<T extends string>(owner: string, option: string, value: unknown, choices: readonly T[]): T | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string") typeFailure(owner, option, `one of ${choices.map((c) => JSON.stringify(c)).join(", ")}`, value);
  if (!(choices as readonly string[]).includes(value)) {
    rangeFailure(owner, option, `one of ${choices.map((c) => JSON.stringify(c)).join(", ")}`, value);
  }
  return value as T;
}

/** An integer in [min, max], or undefined. */
export function optionalInteger(owner: string, option: string, value: unknown, min: number, max = Number.MAX_SAFE_INTEGER): number | undefined {
  if (value === undefined) return undefined;
  const expected = max === Number.MAX_SAFE_INTEGER ? `an integer ≥ ${min}` : `an integer in [${min}, ${max}]`;
  if (typeof value !== "number") typeFailure(owner, option, expected, value);
  if (!Number.isInteger(value) || value < min || value > max) rangeFailure(owner, option, expected, value);
  return value;
}

/** A string or an array of strings, normalised to a frozen array; undefined stays undefined. */
export function optionalStringList(owner: string, option: string, value: unknown): readonly string[] | undefined {
  if (value === undefined) return undefined;
  const list = typeof value === "string" ? [value] : value;
  if (!Array.isArray(list)) typeFailure(owner, option, "a string or an array of strings", value);
  list.forEach((item, i) => {
    if (typeof item !== "string") typeFailure(owner, `${option}[${i}]`, "a string", item);
    if (item === "") rangeFailure(owner, `${option}[${i}]`, "a non-empty string", item);
    if (item.includes("\0")) rangeFailure(owner, `${option}[${i}]`, "a string without NUL characters", item);
  });
  return Object.freeze([...(list as string[])]);
}

/** A non-negative integer or an array of them, normalised to a frozen array; undefined stays undefined. */
export function optionalIntegerList(owner: string, option: string, value: unknown): readonly number[] | undefined {
  if (value === undefined) return undefined;
  const list = typeof value === "number" ? [value] : value;
  if (!Array.isArray(list)) typeFailure(owner, option, "a non-negative integer or an array of them", value);
  list.forEach((item, i) => {
    if (typeof item !== "number") typeFailure(owner, `${option}[${i}]`, "a non-negative integer", item);
    if (!Number.isInteger(item) || item < 0) rangeFailure(owner, `${option}[${i}]`, "a non-negative integer", item);
  });
  return Object.freeze([...(list as number[])]);
}

function camelCase(name: string): string {
  return name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/**
 * Rejects keys that are not options (a typo would otherwise be silently ignored), suggesting the camelCase name
 * for a snake_case spelling (`max_register_count` → `maxRegisterCount`) or a different capitalisation.
 */
export function rejectUnknownKeys(owner: string, init: object, known: ReadonlySet<string>): void {
  for (const key of Object.keys(init)) {
    if (known.has(key)) continue;
    const camel = camelCase(key);
    const suggestion = known.has(camel) ? camel : [...known].find((k) => k.toLowerCase() === key.toLowerCase());
    throw new TypeError(`${owner}: unknown option ${JSON.stringify(key)}${suggestion !== undefined ? ` (did you mean ${suggestion}?)` : ""}`);
  }
}

/** Requires a plain options object (or undefined). */
export function requireObject(owner: string, init: unknown): object {
  if (init === undefined || init === null) return {};
  if (typeof init !== "object" || Array.isArray(init)) {
    throw new TypeError(`${owner}: expected an options object, got ${describeValue(init)}`);
  }
  return init;
}
