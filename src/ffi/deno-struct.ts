/**
 * The field list Deno's FFI (libffi underneath) needs for a struct passed by value: `{ struct: [...] }`.
 *
 * Deno lays the fields out with natural alignment and classifies the struct from them, while a
 * {@link StructLayout} records the C compiler's offsets. The list below reproduces those offsets, the size and the
 * x86-64 passing class exactly: leaves in order, with padding leaves where natural alignment alone would not put a
 * leaf at its offset; unions (overlapping leaves) become one integer or float run per eightbyte. Anything that still
 * differs is refused with a clear error instead of calling with a wrong layout.
 *
 * Pure (no FFI): tested on both runtimes.
 *
 * @module
 */
import { classifyStruct, leafSize } from "./abi.ts";
import type { LeafType, StructLayout, StructPassing } from "./types.ts";

/** A field type of a Deno struct definition (`function` is spelled `pointer`). */
export type DenoFieldType = Exclude<LeafType, "function">;

interface Placed {
  readonly offset: number;
  readonly type: DenoFieldType;
}

function roundUp(n: number, to: number): number {
  return Math.ceil(n / to) * to;
}

function samePassing(a: StructPassing, b: StructPassing): boolean {
  if (a.kind !== b.kind) return false;
  if (a.kind === "memory" || b.kind === "memory") return true;
  return a.classes.length === b.classes.length && a.classes.every((c, i) => c === b.classes[i]);
}

/**
 * The class of the eightbyte holding `offset` for padding and runs: SSE stays SSE; INTEGER otherwise (MEMORY structs,
 * where any integer run will do, and NONE eightbytes, which libffi cannot express: the class check then fails).
 */
function classAt(layout: StructLayout, offset: number): "INTEGER" | "SSE" {
  const p = layout.passing;
  return p.kind === "registers" && p.classes[Math.floor(offset / 8)] === "SSE" ? "SSE" : "INTEGER";
}

/** Padding leaves for bytes [from, to): `f32` in an SSE eightbyte where aligned (keeps it SSE), else `u8`. */
function padding(layout: StructLayout, from: number, to: number): Placed[] {
  const out: Placed[] = [];
  let at = from;
  while (at < to) {
    if (classAt(layout, at) === "SSE" && at % 4 === 0 && at + 4 <= to) {
      out.push({ offset: at, type: "f32" });
      at += 4;
    } else {
      out.push({ offset: at, type: "u8" });
      at += 1;
    }
  }
  return out;
}

/** The leaves with padding, or `null` when they overlap or a leaf is misaligned (unions, packed structs). */
function fromLeaves(layout: StructLayout): Placed[] | null {
  const leaves = [...layout.leaves].sort((a, b) => a.offset - b.offset);
  const out: Placed[] = [];
  let cursor = 0;
  let maxAlign = 1;
  for (const leaf of leaves) {
    const size = leafSize(leaf.type);
    const natural = roundUp(cursor, size);
    if (leaf.offset < natural) return null;
    if (leaf.offset > natural) out.push(...padding(layout, cursor, leaf.offset));
    out.push({ offset: leaf.offset, type: leaf.type === "function" ? "pointer" : leaf.type });
    cursor = leaf.offset + size;
    maxAlign = Math.max(maxAlign, size);
  }
  if (roundUp(cursor, maxAlign) !== layout.size) {
    if (cursor > layout.size) return null;
    out.push(...padding(layout, cursor, layout.size));
  }
  return out;
}

/** One integer or float run per eightbyte, by the struct's passing classes (unions and other overlaps). */
function fromClasses(layout: StructLayout): Placed[] {
  const out: Placed[] = [];
  let at = 0;
  while (at < layout.size) {
    const end = Math.min(layout.size, (Math.floor(at / 8) + 1) * 8);
    if (classAt(layout, at) === "SSE") {
      if (at % 8 === 0 && end - at === 8 && layout.align >= 8) {
        out.push({ offset: at, type: "f64" });
        at += 8;
        continue;
      }
      if (at % 4 === 0 && end - at >= 4) {
        out.push({ offset: at, type: "f32" });
        at += 4;
        continue;
      }
    }
    let k = 8;
    while (k > 1 && (k > layout.align || at % k !== 0 || at + k > end)) k /= 2;
    out.push({ offset: at, type: k === 8 ? "u64" : k === 4 ? "u32" : k === 2 ? "u16" : "u8" });
    at += k;
  }
  return out;
}

/** Whether natural alignment of `fields` gives exactly their offsets and the layout's size. */
function layoutMatches(layout: StructLayout, fields: readonly Placed[]): boolean {
  let cursor = 0;
  let maxAlign = 1;
  for (const f of fields) {
    const size = leafSize(f.type);
    if (roundUp(cursor, size) !== f.offset) return false;
    cursor = f.offset + size;
    maxAlign = Math.max(maxAlign, size);
  }
  return roundUp(cursor, maxAlign) === layout.size;
}

/**
 * The Deno struct field list for a struct layout.
 *
 * @param layout - the C layout.
 * @returns field types whose natural layout has the layout's offsets, size and x86-64 passing class.
 * @throws TypeError when no such list exists (an empty struct, or a packed struct of 16 bytes or less that C passes
 * in memory but libffi would pass in registers).
 */
export function denoStructFields(layout: StructLayout): DenoFieldType[] {
  if (layout.size === 0) throw new TypeError(`struct ${layout.name} is empty; Deno's FFI rejects empty structs`);
  for (const fields of [fromLeaves(layout), fromClasses(layout)]) {
    if (fields === null || !layoutMatches(layout, fields)) continue;
    const passing = classifyStruct(layout.size, layout.align, fields);
    if (samePassing(passing, layout.passing)) return fields.map((f) => f.type);
  }
  throw new TypeError(
    `struct ${layout.name} (${layout.size} bytes, align ${layout.align}) has no field list that Deno's FFI lays out ` +
      `and passes like C does (${layout.passing.kind === "memory" ? "in memory" : layout.passing.classes.join(", ")})`,
  );
}
