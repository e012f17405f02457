/**
 * x86-64 System V classification of structs passed by value (psABI §3.2.3), for the runtimes whose FFI has no
 * struct type (Bun). The generator records the result in each generated {@link StructLayout}; the Bun backend
 * uses it to lower a call to scalar arguments.
 *
 * Only what C headers of the CUDA toolkit can contain is handled: integer, pointer, bool, float and double leaves.
 * `long double`, `__int128` and vector types never reach here (the generator reports them as unsupported).
 *
 * @module
 */
import type { EightbyteClass, LeafType, StructPassing } from "./types.ts";

/** Size in bytes of a leaf type on x86-64. */
export function leafSize(type: LeafType): number {
  switch (type) {
    case "bool":
    case "i8":
    case "u8":
      return 1;
    case "i16":
    case "u16":
      return 2;
    case "i32":
    case "u32":
    case "f32":
      return 4;
    case "i64":
    case "u64":
    case "f64":
    case "pointer":
    case "function":
      return 8;
  }
}

/**
 * Classifies a struct or union for passing by value on x86-64 System V.
 *
 * @param size - `sizeof` the record, in bytes.
 * @param align - `_Alignof` the record, in bytes.
 * @param leaves - every scalar leaf with its byte offset (arrays and nested records flattened).
 * @returns `memory` for records over 16 bytes or with a misaligned leaf, otherwise one class per eightbyte
 * (`NONE` for an eightbyte of padding only).
 */
export function classifyStruct(
  size: number,
  align: number,
  leaves: readonly { readonly offset: number; readonly type: LeafType }[],
): StructPassing {
  if (size === 0 || size > 16) return { kind: "memory" };
  const words = Math.ceil(size / 8);
  const classes: EightbyteClass[] = new Array<EightbyteClass>(words).fill("NONE");
  for (const leaf of leaves) {
    const n = leafSize(leaf.type);
    if (leaf.offset % n !== 0) return { kind: "memory" }; // unaligned field: MEMORY (psABI rule 1b)
    const word = Math.floor(leaf.offset / 8);
    const cls: EightbyteClass = leaf.type === "f32" || leaf.type === "f64" ? "SSE" : "INTEGER";
    // INTEGER wins over SSE when both meet in one eightbyte (psABI merge rule d/f).
    if (classes[word] === "NONE" || cls === "INTEGER") classes[word] = cls;
  }
  // An eightbyte holding only padding is NO_CLASS and occupies no register (psABI; GCC passes a 16-byte-aligned
  // `struct { int i; }` in RDI alone). It occurs with over-aligned records (`__attribute__((aligned(16)))`). A record
  // with no leaf at all is left to the conservative INTEGER classification.
  if (classes.every((c) => c === "NONE")) return { kind: "registers", classes: classes.map(() => "INTEGER") };
  void align;
  return { kind: "registers", classes };
}
