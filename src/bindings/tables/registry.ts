/**
 * The generated tables the bindings carry, per library and CTK version, and the tables a user adds from their own
 * generation (`cuda-ts generate --out DIR`, then {@link useGeneratedTables}).
 *
 * @module
 */
import type { CheckedRuntime } from "../../tables-runtime/checked.ts";
import type { FunctionTable, LibraryInfo } from "../../tables-runtime/spec.ts";

/** One generated library module of one CTK version (generated/cuda-X.Y/<lib>/index.ts), as the bindings use it. */
export interface GeneratedTable {
  /** The library's facts; `ctkVersion` says which toolkit's headers the table comes from. */
  readonly library: LibraryInfo;
  /** Every function's native signature. */
  readonly functions: FunctionTable;
  /** Builds the checked call style over a raw table of this version. */
  readonly createChecked: (raw: never, rt: CheckedRuntime) => object;
}

const added = new Map<string, GeneratedTable[]>();

/** A CTK version as comparable numbers ("12.4" → [12, 4]). */
function parts(v: string): [number, number] {
  const [a, b] = v.split(".").map(Number);
  return [a ?? 0, b ?? 0];
}

/** Newest first. */
function byVersionDescending(a: GeneratedTable, b: GeneratedTable): number {
  const [x, y] = [parts(a.library.ctkVersion), parts(b.library.ctkVersion)];
  return y[0] - x[0] || y[1] - x[1];
}

/**
 * The tables of a library (manifest name: driver, runtime, ...), newest first: the built-in ones and those added
 * by {@link addGeneratedTable}; an added table replaces a built-in one of the same CTK version.
 */
export function tablesFor(library: string, builtIn: readonly GeneratedTable[]): readonly GeneratedTable[] {
  const extra = added.get(library);
  if (extra === undefined || extra.length === 0) return builtIn;
  const versions = new Set(extra.map((t) => t.library.ctkVersion));
  return [...extra, ...builtIn.filter((t) => !versions.has(t.library.ctkVersion))].sort(byVersionDescending);
}

/**
 * Adds a generated table (a module of `cuda-ts generate`'s output) to its library's tables. Takes effect for a
 * binding whose library is not loaded yet: add tables before the library's first call.
 */
export function addGeneratedTable(table: GeneratedTable): void {
  const list = added.get(table.library.name) ?? [];
  added.set(table.library.name, [...list.filter((t) => t.library.ctkVersion !== table.library.ctkVersion), table]);
}

/** Forgets the added tables (tests). */
export function clearAddedTables(): void {
  added.clear();
}
