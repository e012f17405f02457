/**
 * Enums in the generated tables are frozen objects of name → value (usable as values; a type of the same name
 * covers their values). This module turns a value back into its name.
 *
 * @module
 */

const reverse = new WeakMap<object, Map<number | bigint, string>>();

/**
 * The name of an enum's value, or `undefined` when no enumerator has it. Where several enumerators share a
 * value, the first one the header declares wins.
 *
 * @example
 * ```ts
 * enumName(CUresult, 1) // "CUDA_ERROR_INVALID_VALUE"
 * ```
 */
export function enumName<E extends Readonly<Record<string, number | bigint>>>(
  enumObject: E,
  value: number | bigint,
): (keyof E & string) | undefined {
  let map = reverse.get(enumObject);
  if (map === undefined) {
    map = new Map();
    for (const [name, v] of Object.entries(enumObject)) if (!map.has(v)) map.set(v, name);
    reverse.set(enumObject, map);
  }
  return map.get(value) as (keyof E & string) | undefined;
}

/** Whether `value` is one of the enum's values. */
export function isEnumValue<E extends Readonly<Record<string, number | bigint>>>(
  enumObject: E,
  value: unknown,
): value is E[keyof E] {
  return (typeof value === "number" || typeof value === "bigint") && enumName(enumObject, value) !== undefined;
}
