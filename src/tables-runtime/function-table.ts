/**
 * The generated `functions` tables are written as JSON text (generated/cuda-X.Y/<library>/functions.ts): a runtime
 * parses JSON many times faster than the same object literal as code, and a table is parsed at every import. A record
 * passed by value has no JSON form (its layout is an object the records module makes), so the JSON holds `null` in
 * its place and {@link functionTable} sets the layout in after parsing.
 *
 * @module
 */
import type { NativeType, StructLayout } from "../ffi/types.ts";
import type { FunctionSpec } from "./spec.ts";

/** A record passed by value: the function, the parameter's index (-1: the result), the record's layout. */
export type StructSlot = readonly [name: string, index: number, layout: StructLayout];

/** Parses a generated table's JSON and sets the layouts of records passed by value into it. */
export function functionTable<R>(json: string, structs: readonly StructSlot[] = []): { readonly [K in keyof R]: FunctionSpec } {
  const table = JSON.parse(json) as Record<string, { parameters: NativeType[]; result: NativeType }>;
  for (const [name, index, layout] of structs) {
    const spec = table[name];
    if (spec === undefined) throw new TypeError(`functionTable: a record layout is set for ${name}, which the table does not hold (a malformed generated table: regenerate it)`);
    if (index < 0) spec.result = { struct: layout };
    else spec.parameters[index] = { struct: layout };
  }
  return table as unknown as { readonly [K in keyof R]: FunctionSpec };
}
