/**
 * The generated tables the bindings carry, per library and CTK version, and the tables a user adds from their own
 * generation (`cuda-ts generate --out DIR`, then {@link useGeneratedTables}).
 *
 * @module
 */
import type { CheckedRuntime } from "../../tables-runtime/checked.ts";
import type { FunctionTable, LibraryInfo } from "../../tables-runtime/spec.ts";
import { getEnv, isDirectory, isFile, listDirectory, realPath } from "../../host.ts";
import { ArgumentError } from "../../errors/base.ts";

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

/** The variable naming a folder of `cuda-ts generate --out` output that the bindings add to their tables. */
export const GENERATED_VARIABLE = "CUDA_TS_GENERATED";

/** A table that {@link useGeneratedTables} added. */
export interface AddedTable {
  /** The library (driver, runtime, ...). */
  readonly library: string;
  /** Its CTK version. */
  readonly ctkVersion: string;
  /** The module it came from. */
  readonly path: string;
}

/** Raised for a folder that holds no usable generated tables. */
export class GeneratedTablesError extends ArgumentError {
  constructor(message: string) {
    super(message);
    this.name = "GeneratedTablesError";
  }
}

function isTable(m: unknown): m is GeneratedTable {
  const t = m as Partial<GeneratedTable> | undefined;
  return typeof t?.library?.name === "string" && typeof t.library.ctkVersion === "string" && typeof t.functions === "object" && typeof t.createChecked === "function";
}

/**
 * Adds the tables of a `cuda-ts generate --out DIR` output (DIR/cuda-X.Y/<library>/index.ts, or index.js) to the
 * bindings: each library's binding then chooses among the package's tables and these (one of the same CTK version
 * replaces the package's). Call it, and await it, before a library's first call; `CUDA_TS_GENERATED=DIR` does the
 * same when the bindings are imported. Throws {@link GeneratedTablesError} when DIR holds no generated library.
 */
export async function useGeneratedTables(dir: string): Promise<AddedTable[]> {
  const root = dir.replace(/\/+$/, "");
  const found: AddedTable[] = [];
  if (!isDirectory(root)) {
    throw new GeneratedTablesError(`${dir} is not a folder. Pass the --out folder of \`cuda-ts generate\` (it holds cuda-X.Y/<library>/index.ts).`);
  }
  for (const version of listDirectory(root).filter((d) => /^cuda-\d+\.\d+$/.test(d)).sort()) {
    for (const lib of listDirectory(`${root}/${version}`).sort()) {
      const file = ["index.ts", "index.js"].map((f) => `${root}/${version}/${lib}/${f}`).find((f) => isFile(f));
      if (file === undefined) continue;
      const m: unknown = await import(new URL(`file://${realPath(file) ?? file}`).href);
      if (!isTable(m)) throw new GeneratedTablesError(`${file} is not a generated table (no library, functions and createChecked exports); regenerate it with \`cuda-ts generate\`.`);
      addGeneratedTable(m);
      found.push({ library: m.library.name, ctkVersion: m.library.ctkVersion, path: file });
    }
  }
  if (found.length === 0) {
    throw new GeneratedTablesError(`${dir} holds no generated tables (cuda-X.Y/<library>/index.ts). Pass the --out folder of \`cuda-ts generate\`.`);
  }
  return found;
}

const fromEnv = getEnv(GENERATED_VARIABLE);
if (fromEnv !== undefined && fromEnv !== "") await useGeneratedTables(fromEnv);
