/**
 * A library's subsets (headers-manifest.json's `subsets`): part of its functions with the records they reach, its
 * status enum and named constants, emitted beside the library's own files as `<name>.ts` and `<name>.<part>.ts`.
 *
 * A module that calls a few functions of a large library and must have them at import (Deno has no synchronous
 * loader, so `system` loads NVML's tables at import there) loads the subset's few kilobytes instead of the whole
 * library's tables. The subset's files are made by the library's own emitters from a filtered copy of its IR, so a
 * function of the subset is the same code as in the whole table; its record classes are classes of their own.
 */
import type { IrEnum, IrLibrary, IrRecord, IrType } from "../ir.ts";
import { type LibrarySpec, ManifestError } from "../manifest.ts";
import { docBlock, ImportTracker, type TypeNames } from "./common.ts";
import { emitConstants, emitEnums } from "./declarations.ts";
import { byValueRecord, emitFunctions } from "./functions.ts";
import { emitRecords } from "./records.ts";

/** One subset of a library, as the manifest gives it. */
export type SubsetSpec = LibrarySpec["subsets"][string];

/** The records a type reaches (through typedefs, pointers and arrays) that `own` declares. */
function reached(t: IrType, own: ReadonlyMap<string, IrRecord>, into: Set<IrRecord>): void {
  switch (t.kind) {
    case "typedef": {
      const r = own.get(t.name);
      if (r !== undefined) addRecord(r, own, into);
      reached(t.target, own, into);
      return;
    }
    case "pointer":
      reached(t.pointee, own, into);
      return;
    case "array":
      reached(t.element, own, into);
      return;
    case "record": {
      const r = own.get(t.name);
      if (r !== undefined) addRecord(r, own, into);
      return;
    }
    default:
      return;
  }
}

/** Adds a record and every record its fields hold by value (their accessors name those classes). */
function addRecord(r: IrRecord, own: ReadonlyMap<string, IrRecord>, into: Set<IrRecord>): void {
  if (into.has(r)) return;
  into.add(r);
  for (const f of r.fields) {
    let t = f.type;
    for (let i = 0; i < 50 && (t.kind === "typedef" || t.kind === "array"); i++) t = t.kind === "typedef" ? t.target : t.element;
    if (t.kind === "record") {
      const nested = own.get(t.name);
      if (nested !== undefined) addRecord(nested, own, into);
    }
  }
}

/** Words of `text` in lines of at most 110 characters. */
function wrap(text: string): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/)) {
    if (line !== "" && line.length + 1 + word.length > 110) {
      lines.push(line);
      line = word;
    } else line = line === "" ? word : `${line} ${word}`;
  }
  if (line !== "") lines.push(line);
  return lines;
}

/** The file of a subset's part (`system.records.ts`), or its entry (`system.ts`). */
export function subsetFile(name: string, part?: string): string {
  return part === undefined ? `${name}.ts` : `${name}.${part}.ts`;
}

/**
 * Every file of one subset: file name → body. `statusEnum` is the library's status enum, or its status record's
 * code enum (the subset carries it: error messages name the code); `checked` emits the checked style of a library
 * (emitLibrary's closure, with the library's status facts).
 */
export function emitSubset(
  lib: IrLibrary,
  spec: LibrarySpec,
  names: TypeNames,
  index: ReadonlyMap<string, IrRecord>,
  name: string,
  subset: SubsetSpec,
  statusEnum: IrEnum | undefined,
  checked: (lib: IrLibrary, imp: ImportTracker) => { api: string; impl: string },
): Map<string, string> {
  const wanted = new Set(subset.functions);
  const functions = lib.functions.filter((f) => wanted.has(f.name));
  if (functions.length === 0) {
    throw new ManifestError(`${lib.library}: subset ${name} names no function these headers declare (the manifest's libraries.${lib.library}.subsets.${name}.functions); name functions of the library, as its functions.ts lists them`);
  }
  const own = new Map<string, IrRecord>();
  for (const r of lib.records) for (const n of [r.name, ...r.aliases]) if (!own.has(n)) own.set(n, r);
  const records = new Set<IrRecord>();
  for (const fn of functions) for (const t of [fn.result, ...fn.params.map((p) => p.type)]) reached(t, own, records);
  const constantNames = new Set(subset.constants);
  const enumNames = new Set(subset.enums);
  const part: IrLibrary = {
    ...lib,
    functions,
    records: lib.records.filter((r) => records.has(r)),
    constants: lib.constants.filter((c) => constantNames.has(c.name)),
    enums: lib.enums.filter((e) => e === statusEnum || [e.name, ...e.aliases].some((n) => enumNames.has(n))),
  };
  // The records a function of the subset passes by value carry their $layout (as in the library's records.ts).
  const byValue = new Set<string>();
  for (const fn of functions) {
    for (const t of [fn.result, ...fn.params.map((p) => p.type)]) {
      const r = own.get(byValueRecord(t) ?? "");
      if (r !== undefined) byValue.add(r.name);
    }
  }
  const files = new Map<string, string>();
  const rename = (body: string): string =>
    body.replace(/from "\.\/(records|functions|raw|checked)\.ts";/g, (_m, file: string) => `from "./${subsetFile(name, file)}";`);
  const fns = emitFunctions(part, spec, spec.library, new ImportTracker(names, "functions"), index, new ImportTracker(names, "functions"));
  const impl = checked(part, new ImportTracker(names, "checked"));
  files.set(subsetFile(name, "records"), rename(emitRecords(part, new ImportTracker(names, "records"), byValue, new Map(index))));
  files.set(subsetFile(name, "functions"), rename(fns.functions));
  files.set(subsetFile(name, "raw"), rename(fns.raw));
  files.set(subsetFile(name, "checked"), rename(impl.api));
  files.set(subsetFile(name, "checked-impl"), rename(impl.impl));
  files.set(subsetFile(name, "enums"), emitEnums(part));
  files.set(subsetFile(name, "constants"), emitConstants(part));
  for (const [file, body] of files) {
    // What the subset is for: loading it must not load the whole library's modules (or another library's).
    for (const m of body.matchAll(/^import (?!type )[^\n]*from "(\.[^"]*)";$/gm)) {
      const target = m[1]!;
      if (target.startsWith("../") && !target.includes("/src/")) {
        throw new ManifestError(`${lib.library}/${file}: subset ${name} would load another library's tables (${target}): a subset's records must be its own library's; leave out the functions that reach the other library's records`);
      }
      const values = (/\{([^}]*)\}/.exec(m[0])?.[1] ?? "").split(",").map((n) => n.trim()).filter((n) => n !== "" && !n.startsWith("type "));
      if (/^\.\/(enums|constants|types|records|functions|raw|checked|checked-impl|index)\.ts$/.test(target) && values.length > 0) {
        throw new Error(`${lib.library}/${file}: subset ${name} imports a value from the whole library (${m[0]})`);
      }
    }
  }
  const entry = [
    docBlock([...wrap(`Part of ${lib.library}'s tables (headers-manifest.json's subset \`${name}\`): ${subset.description}`), "", "@module"]).trimEnd(),
    "",
    `export * from "./${subsetFile(name, "enums")}";`,
    `export * from "./${subsetFile(name, "constants")}";`,
    `export * from "./${subsetFile(name, "records")}";`,
    `export { functions, library, type Raw } from "./${subsetFile(name, "functions")}";`,
    `export type { Checked } from "./${subsetFile(name, "checked")}";`,
    `export { createChecked } from "./${subsetFile(name, "checked-impl")}";`,
    "",
  ].join("\n");
  files.set(subsetFile(name), entry);
  return files;
}
