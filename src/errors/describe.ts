/**
 * Describing a bad argument: the one way the object layer and the bindings' argument checks say what came when
 * they refuse a value ("expected X, not <this>; do Y"), so every message reads the same. No imports: the bindings
 * layer takes it without loading the object layer.
 *
 * @module
 */

/**
 * A short description of a value for error messages: `"c++17"` (strings quoted), `-3`, `-0`, `12n`, `true`, `null`,
 * `undefined`, `a function`, `an array of 3`, `a Uint8Array of 16 bytes`, `an ArrayBuffer of 8 bytes`, `a Stream`
 * (an instance of a class),
 * `{"grid":1}` (a small plain object), `an object`.
 */
export function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (value === undefined) return "undefined";
  switch (typeof value) {
    case "string":
      return JSON.stringify(value.length > 80 ? `${value.slice(0, 77)}...` : value);
    case "number":
      return Object.is(value, -0) ? "-0" : String(value);
    case "boolean":
      return String(value);
    case "bigint":
      return `${value}n`;
    case "function":
      return "a function";
    case "symbol":
      return "a symbol";
    default: {
      if (Array.isArray(value)) return `an array of ${value.length}`;
      if (ArrayBuffer.isView(value)) return `a ${value.constructor.name} of ${value.byteLength} bytes`;
      if (value instanceof ArrayBuffer) return `an ArrayBuffer of ${value.byteLength} bytes`;
      const proto = Object.getPrototypeOf(value) as { constructor?: { name?: string } } | null;
      const name = proto?.constructor?.name;
      if (proto !== null && proto !== Object.prototype && name) return `${/^[AEIOU]/.test(name) ? "an" : "a"} ${name}`;
      try {
        const json = JSON.stringify(value);
        if (json !== undefined && json.length <= 80) return json;
      } catch {
        // cyclic or unserialisable: fall through
      }
      return "an object";
    }
  }
}

/** The gist of an error for a one-line message: its first line, without a trailing "Searched, in order:". */
export function briefError(e: unknown): string {
  const text = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
  return (text.split("\n")[0] ?? "").replace(/\.?\s*Searched, in order:\s*$/, "").trim();
}
