/**
 * What each checked function must return, for the argument sweep (test/bindings/argument-sweep-child.ts): built from
 * the generated report's roles (generated/<version>/report.json: which parameters are outputs, arrays the library
 * fills, in/out sizes), the checked style's declared return type (its checked.ts, read as text, with the type names it
 * uses resolved through the generated types.ts, enums.ts and records.ts files they are imported from) and the C
 * declarations the raw style documents (raw.ts's `C:` lines: the width of a scalar output's C type), never from the
 * generator's code, so that it checks what the generator emitted.
 *
 * The rules (docs/reference.md, "Bindings: two call styles"; generator/emit/functions.ts `emitChecked`):
 * - a function whose C result is not the library's status returns that result first (a `char*` as `string | null`);
 *   one that returns the status returns it first only where the manifest lists non-errors for it;
 * - then every output, array output and in/out byte size, in parameter order: nothing is `undefined`, one is the
 *   value itself, several are a tuple of exactly that many;
 * - an output the checked signature still takes as a parameter is one the generator left to the caller (outputs it
 *   cannot express): not returned, and listed apart;
 * - scalars are numbers, 64-bit integers bigints, `bool` booleans; pointers and handles Pointers; a `char**` output a
 *   string or null; a record output an instance of its record class, the caller's own where one was passed; an array
 *   output the typed array of its element, an array of Pointers or of records, or a string for a char buffer, as long
 *   as the capacity passed (0 where the library is asked and, as the mock, reports nothing); an in/out byte size the
 *   size passed, a bigint where its C type is 64 bits wide.
 *
 * Where the declared return type and the roles disagree (how many values, their names, their order, a kind the roles
 * rule out), the function is a mismatch: a generator bug, reported by the sweep.
 *
 * @module
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

/** A checked signature as the sweep reads it from checked.ts. */
export interface Signature {
  readonly params: readonly { readonly name: string; readonly optional: boolean; readonly type: string }[];
  readonly result: string;
}

/** A kind a type name resolves to. */
type Resolved =
  | { readonly kind: "number" | "integer" | "bigint" | "boolean" | "pointer" | "bytes" }
  | { readonly kind: "record"; readonly folder: string; readonly name: string };

/** One value a checked function returns, and how it is checked. */
export interface ExpectedValue {
  /** The C parameter it comes from, or "status" / "result". */
  readonly name: string;
  /** What it is: status, result, output, array, size. */
  readonly role: "status" | "result" | "output" | "array" | "size";
  /** How the runtime check reads it (for the per-library counts). */
  readonly shape: string;
  /** A failure's description, or undefined where `value` has the shape; `args` are the checked call's arguments. */
  readonly check: (value: unknown, args: readonly unknown[]) => string | undefined;
}

/** What one checked function must return. */
export interface Expectation {
  readonly values: readonly ExpectedValue[];
  /** Outputs (by role) that the checked signature takes as parameters: left to the caller. */
  readonly leftToCaller: readonly string[];
}

/** What the checks need at run time: the FFI's pointer test and the record classes by folder and name. */
export interface ShapeRuntime {
  readonly isPointer: (v: unknown) => boolean;
  /** The record class `name` of the generated library in `folder` (an absolute path), or undefined. */
  readonly recordClass: (folder: string, name: string) => (abstract new (...a: never[]) => object) | undefined;
}

const RESERVED_SUFFIX = (label: string, name: string): boolean => label === name || label === `${name}_`;

/** Splits at top-level commas (not inside (), [], {}, <>). */
export function splitTopLevel(s: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let cur = "";
  for (const ch of s) {
    if ("([{<".includes(ch)) depth++;
    if (")]}>".includes(ch)) depth--;
    if (ch === "," && depth === 0) {
      parts.push(cur.trim());
      cur = "";
    } else cur += ch;
  }
  if (cur.trim() !== "") parts.push(cur.trim());
  return parts;
}

// ---------------------------------------------------------------------------------------------------------------
// Type names, resolved through the generated files that declare them.

interface FolderDecls {
  readonly enums: ReadonlySet<string>;
  readonly records: ReadonlySet<string>;
  readonly aliases: ReadonlyMap<string, string>;
  /** Names imported from another generated library: name → that library's folder. */
  readonly imports: ReadonlyMap<string, string>;
}

const declCache = new Map<string, FolderDecls>();

function readIf(path: string): string {
  return existsSync(path) ? readFileSync(path, "utf8") : "";
}

function folderDecls(folder: string): FolderDecls {
  let d = declCache.get(folder);
  if (d !== undefined) return d;
  const enumsText = readIf(join(folder, "enums.ts"));
  const recordsText = readIf(join(folder, "records.ts"));
  const typesText = readIf(join(folder, "types.ts"));
  const enums = new Set([...enumsText.matchAll(/^export (?:const|type) (\w+)\b/gm)].map((m) => m[1]!));
  const records = new Set([...recordsText.matchAll(/^export (?:class|const) (\w+)\b/gm)].map((m) => m[1]!));
  const aliases = new Map<string, string>();
  for (const m of typesText.matchAll(/^export type (\w+) = (.*);$/gm)) aliases.set(m[1]!, m[2]!.trim());
  // Type aliases of records.ts (`export type CUfileError_t = CUfileError`) name records too.
  for (const m of recordsText.matchAll(/^export type (\w+) = (\w+);$/gm)) aliases.set(m[1]!, m[2]!);
  const imports = new Map<string, string>();
  for (const file of ["checked.ts", "types.ts", "records.ts", "enums.ts"]) {
    for (const m of readIf(join(folder, file)).matchAll(/^import (?:type )?\{ ([^}]*) \} from "(\.\.\/[^"]+)";$/gm)) {
      const target = dirname(resolve(folder, m[2]!));
      if (relative(dirname(folder), target).startsWith("..")) continue; // src/: Pointer, Handle, ...
      for (const n of m[1]!.split(",")) imports.set(n.replace(/^\s*type\s+/, "").trim(), target);
    }
  }
  d = { enums, records, aliases, imports };
  declCache.set(folder, d);
  return d;
}

/** What a TypeScript type text of a generated library in `folder` is at run time, or a string saying why not known. */
function resolveType(folder: string, text: string, depth = 0): Resolved | string {
  const t = text.trim();
  if (depth > 20) return `${t}: alias chain too long`;
  if (t === "number") return { kind: "number" };
  if (t === "bigint") return { kind: "bigint" };
  if (t === "boolean") return { kind: "boolean" };
  if (t === "Pointer" || /^(Handle|FunctionPointer|Opaque)</.test(t) || /^\(.*\) =>/.test(t)) return { kind: "pointer" };
  if (t === "Uint8Array") return { kind: "bytes" };
  if (!/^\w+$/.test(t)) return `${t}: not a type name`;
  const d = folderDecls(folder);
  if (d.enums.has(t)) return { kind: "integer" };
  const alias = d.aliases.get(t);
  if (d.records.has(t) && alias === undefined) return { kind: "record", folder, name: t };
  if (alias !== undefined) {
    const r = resolveType(folder, alias, depth + 1);
    // A record's alias keeps its own name as the class to check (records.ts exports it as a value too).
    return typeof r === "object" && r.kind === "record" && d.records.has(t) ? { ...r, name: t } : r;
  }
  const from = d.imports.get(t);
  if (from !== undefined) return resolveType(from, t, depth + 1);
  return `${t}: not declared in ${folder}`;
}

// ---------------------------------------------------------------------------------------------------------------
// C declarations (raw.ts's `C:` lines).

/** A C parameter spelling's width class: "i" (≤ 32 bits), "i64", "f", "bool", "char", or undefined (a typedef). */
function cScalar(spelling: string): "i" | "i64" | "f" | "bool" | "char" | undefined {
  const s = spelling.replace(/\bconst\b/g, "").replace(/\s+/g, " ").trim();
  if (/^(size_t|ssize_t|u?int64_t|(unsigned |signed )?long( long)?( int)?|long unsigned int|cuuint64_t)$/.test(s)) return "i64";
  if (/^(u?int(8|16|32)_t|(unsigned |signed )?(int|short|short int)|unsigned|cuuint32_t)$/.test(s)) return "i";
  if (/^(float|double)$/.test(s)) return "f";
  if (/^(bool|_Bool)$/.test(s)) return "bool";
  if (/^((un)?signed )?char$/.test(s)) return "char";
  return undefined;
}

/** The pointee spelling of a C pointer parameter (`unsigned int *` → `unsigned int`), or undefined. */
function pointee(spelling: string): string | undefined {
  const m = /^(.*?)\s*\*\s*(?:const\s*)?$/.exec(spelling.trim());
  return m === null ? undefined : m[1]!.trim();
}

/** Per function: its C result spelling and parameter type spellings, from raw.ts. */
export function cDeclarations(rawText: string, names: (fn: string) => readonly string[] | undefined): Map<string, { result: string; params: string[] }> {
  const out = new Map<string, { result: string; params: string[] }>();
  for (const m of rawText.matchAll(/C: `([^`]*)`\. Raw call style/g)) {
    const d = /^(.*?)\b(\w+)(?: \(exported as \w+\))?\((.*)\)$/s.exec(m[1]!);
    if (d === null) continue;
    const fn = d[2]!;
    const parts = d[3]!.trim() === "" || d[3]!.trim() === "void" ? [] : splitTopLevel(d[3]!);
    const pn = names(fn) ?? [];
    const params = parts.map((p, i) => {
      const n = pn[i];
      return n !== undefined && p.endsWith(` ${n}`) ? p.slice(0, -n.length - 1).trim() : p.replace(/\s*\w+$/, "").trim();
    });
    out.set(fn, { result: d[1]!.trim(), params });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// Expectations.

const TYPED_ARRAYS = new Set(["Int8Array", "Uint8Array", "Int16Array", "Uint16Array", "Int32Array", "Uint32Array", "BigInt64Array", "BigUint64Array", "Float32Array", "Float64Array"]);

function describe(v: unknown): string {
  if (v === null || v === undefined) return String(v);
  if (typeof v === "bigint") return `${v}n (bigint)`;
  if (typeof v === "string") return `a string of ${v.length}`;
  if (typeof v === "number") return `${v} (number)`;
  if (typeof v === "boolean") return `${v} (boolean)`;
  if (Array.isArray(v)) return `an array of ${v.length}`;
  if (ArrayBuffer.isView(v)) return `${v.constructor.name}(${(v as unknown as { length?: number }).length ?? v.byteLength})`;
  if (typeof v === "object") return Object.getPrototypeOf(v) === null ? "a Pointer object" : `a ${v.constructor?.name ?? "object"}`;
  return typeof v;
}

/** Everything {@link expectation} reads, for one library at one table version. */
export interface ShapeSource {
  /** The library's generated folder (absolute): generated/<version>/<library>. */
  readonly folder: string;
  /** report.json's roles of this library. */
  readonly roles: Readonly<Record<string, readonly string[]>>;
  /** The checked signatures (checked.ts). */
  readonly signatures: ReadonlyMap<string, Signature>;
  /** raw.ts's C declarations ({@link cDeclarations}). */
  readonly c: ReadonlyMap<string, { result: string; params: string[] }>;
  /** The library's status type (CUresult, ...). */
  readonly status: string | undefined;
  /** The status names that are no errors, per function (the manifest's `nonErrors`), present in this version's enum. */
  readonly nonErrors: (fn: string) => readonly string[];
  /** The size of the struct a function returns by value (the table's result layout), or undefined. */
  readonly resultStruct: (fn: string) => number | undefined;
  readonly runtime: ShapeRuntime;
}

/** A role split into its parameter name and text. */
function roleParts(r: string): { name: string; text: string } {
  const i = r.indexOf(":");
  return { name: r.slice(0, i), text: r.slice(i + 1).trim() };
}

/**
 * What `fn` must return, or a mismatch: the declared return type disagrees with the roles (a string saying how).
 */
export function expectation(src: ShapeSource, fn: string, cNames: readonly string[]): Expectation | { mismatch: string } {
  const sig = src.signatures.get(fn)!;
  const roles = (src.roles[fn] ?? []).map(roleParts);
  const decl = src.c.get(fn);
  const sigIndex = (n: string): number => sig.params.findIndex((p) => RESERVED_SUFFIX(p.name, n));
  const cParam = (n: string): string | undefined => decl?.params[cNames.indexOf(n)];

  // The values the roles promise, in order.
  type Planned = { name: string; role: ExpectedValue["role"]; count?: string; cType?: string };
  const planned: Planned[] = [];
  const leftToCaller: string[] = [];
  const resultSpelling = decl?.result ?? "";
  const returnsStatus = src.status !== undefined && resultSpelling === src.status;
  if (decl === undefined) return { mismatch: "no C declaration in raw.ts" };
  if (!returnsStatus && resultSpelling !== "void") planned.push({ name: "result", role: "result", cType: resultSpelling });
  const arrays = roles.filter((r) => r.text.startsWith("array-output["));
  const returnedArrays = arrays.filter((r) => sigIndex(r.name) < 0);
  const arrayCounts = new Set(returnedArrays.map((r) => /^array-output\[([^\]]*)\]/.exec(r.text)![1]!));
  if (returnsStatus && src.nonErrors(fn).length > 0 && returnedArrays.length === 0) planned.push({ name: "status", role: "status" });
  for (const r of roles) {
    const cType = cParam(r.name);
    if (r.text.startsWith("output")) {
      const i = sigIndex(r.name);
      if (i >= 0 && !sig.params[i]!.optional) leftToCaller.push(r.name);
      else planned.push({ name: r.name, role: "output", ...(cType !== undefined ? { cType } : {}) });
    } else if (r.text.startsWith("array-output[")) {
      if (sigIndex(r.name) >= 0) leftToCaller.push(r.name);
      else planned.push({ name: r.name, role: "array", count: /^array-output\[([^\]]*)\]/.exec(r.text)![1]!, ...(cType !== undefined ? { cType } : {}) });
    } else if (/^count of .*, in\/out pointer,/.test(r.text) && !arrayCounts.has(r.name)) {
      planned.push({ name: r.name, role: "size", ...(cType !== undefined ? { cType } : {}) });
    }
  }

  // The declared return type's values.
  let declared: { label?: string; type: string }[];
  const tuple = /^\[(.*)\]$/.exec(sig.result);
  if (sig.result === "void") declared = [];
  else if (tuple !== null) {
    declared = splitTopLevel(tuple[1]!).map((part) => {
      const colon = part.indexOf(":");
      return { label: part.slice(0, colon).trim(), type: part.slice(colon + 1).trim() };
    });
  } else declared = [{ type: sig.result }];
  const names = (xs: readonly { name: string }[]): string => `[${xs.map((x) => x.name).join(", ")}]`;
  if (declared.length !== planned.length) {
    return { mismatch: `the roles promise ${planned.length} value(s) ${names(planned)}; checked.ts returns ${declared.length}: ${sig.result}` };
  }
  if (declared.length > 1) {
    const labels = declared.map((d) => d.label ?? "?");
    if (!labels.every((l, i) => RESERVED_SUFFIX(l, planned[i]!.name))) {
      return { mismatch: `the roles promise ${names(planned)} in this order; checked.ts returns [${labels.join(", ")}]` };
    }
  }

  const values: ExpectedValue[] = [];
  for (const [k, p] of planned.entries()) {
    const made = checker(src, fn, p, declared[k]!.type, sig, sigIndex);
    if (typeof made === "string") return { mismatch: `${p.name}: ${made}` };
    values.push(made);
  }
  return { values, leftToCaller };
}

/** The check of one planned value whose declared type is `type`, or why the two disagree. */
function checker(
  src: ShapeSource,
  fn: string,
  p: { name: string; role: ExpectedValue["role"]; count?: string; cType?: string },
  type: string,
  sig: Signature,
  sigIndex: (n: string) => number,
): ExpectedValue | string {
  const { isPointer } = src.runtime;
  const base = { name: p.name, role: p.role };
  const scalarC = p.cType === undefined ? undefined : p.role === "result" ? p.cType : pointee(p.cType);
  const width = scalarC === undefined ? undefined : cScalar(scalarC);
  switch (p.role) {
    case "status": {
      if (src.status === undefined || type !== src.status) return `the status is declared ${type}, not ${src.status}`;
      // The mock returns success.
      return { ...base, shape: "status", check: (v) => (v === 0 ? undefined : `expected the status 0 (the mock's success), got ${describe(v)}`) };
    }
    case "size": {
      if (type !== "number" && type !== "bigint") return `an in/out size declared ${type}`;
      if (width !== undefined && (width === "i64") !== (type === "bigint")) return `an in/out size of C type ${scalarC} declared ${type}`;
      const i = sigIndex(p.name);
      if (i < 0) return "an in/out size the signature does not take";
      const wide = type === "bigint";
      // The mock writes nothing: what comes back is what was passed.
      return {
        ...base,
        shape: type,
        check: (v, args) => {
          const given = args[i] as number | bigint;
          const want = wide ? BigInt(given) : Number(given);
          return typeof v === type && v === want ? undefined : `expected the size passed, ${describe(want)}, got ${describe(v)}`;
        },
      };
    }
    case "result": {
      // The mock returns 0, NULL or zeros.
      if (/^(const )?char \*$/.test(p.cType!)) {
        if (type !== "string | null") return `a ${p.cType} result declared ${type}`;
        return { ...base, shape: "string | null", check: (v) => (v === null ? undefined : `expected null (the mock returns NULL), got ${describe(v)}`) };
      }
      const r = resolveType(src.folder, type);
      if (typeof r === "string") return r;
      if (width !== undefined && !kindFits(r.kind, width)) return `a result of C type ${p.cType} declared ${type} (${r.kind})`;
      if (r.kind === "pointer") return { ...base, shape: "Pointer", check: (v) => (v === null ? undefined : `expected null (the mock returns NULL), got ${describe(v)}`) };
      if (r.kind === "bigint") return { ...base, shape: "bigint", check: (v) => (v === 0n ? undefined : `expected 0n, got ${describe(v)}`) };
      if (r.kind === "number" || r.kind === "integer") return { ...base, shape: "number", check: (v) => (v === 0 ? undefined : `expected 0, got ${describe(v)}`) };
      if (r.kind === "boolean") return { ...base, shape: "boolean", check: (v) => (v === false ? undefined : `expected false, got ${describe(v)}`) };
      const size = src.resultStruct(fn);
      if (r.kind === "bytes" && size !== undefined) {
        // A struct returned by value: its bytes, zeros from the mock.
        return {
          ...base,
          shape: "struct bytes",
          check: (v) =>
            !(v instanceof Uint8Array)
              ? `expected the struct's bytes (a Uint8Array), got ${describe(v)}`
              : v.byteLength !== size
                ? `expected ${size} bytes, got ${v.byteLength}`
                : v.some((b) => b !== 0)
                  ? "expected zeros (the mock returns a zeroed struct)"
                  : undefined,
        };
      }
      return `a result declared ${type} (${r.kind})`;
    }
    case "output": {
      if (/^(const )?char \*\s*\*$/.test(p.cType ?? "")) {
        if (type !== "string | null") return `a ${p.cType} output declared ${type}`;
        // The mock writes NULL there (the sweep asks it to): null comes back.
        return { ...base, shape: "string | null", check: (v) => (v === null ? undefined : `expected null (the mock writes NULL), got ${describe(v)}`) };
      }
      const r = resolveType(src.folder, type);
      if (typeof r === "string") return r;
      if (width !== undefined && !kindFits(r.kind, width)) return `an output of C type ${p.cType} declared ${type} (${r.kind})`;
      return valueCheck(base, r, type, sig, sigIndex, src.runtime);
    }
    case "array": {
      const length = arrayLength(p.count!, sig, sigIndex);
      if (typeof length === "string") return length;
      const elC = p.cType === undefined ? undefined : pointee(p.cType);
      const elWidth = elC === undefined ? undefined : cScalar(elC);
      const lengthCheck = (v: { length: number }, args: readonly unknown[]): string | undefined => {
        const want = length(args);
        return v.length === want ? undefined : `expected ${want} elements (${length.why}), got ${v.length}`;
      };
      if (type === "string") {
        if (elWidth !== undefined && elWidth !== "char") return `an array of C type ${elC} declared string`;
        // A char buffer: the fresh buffer the mock writes nothing into reads as "".
        return { ...base, shape: "string (char buffer)", check: (v) => (v === "" ? undefined : `expected "" (nothing written), got ${describe(v)}`) };
      }
      if (TYPED_ARRAYS.has(type)) {
        if (elWidth !== undefined && !typedArrayFits(type, elC!, elWidth)) return `an array of C type ${elC} declared ${type}`;
        const ctor = (globalThis as unknown as Record<string, abstract new () => object>)[type]!;
        return {
          ...base,
          shape: type,
          check: (v, args) => (v instanceof ctor ? lengthCheck(v as unknown as { length: number }, args) : `expected a ${type}, got ${describe(v)}`),
        };
      }
      const el = /^(\w+)\[\]$/.exec(type);
      if (el === null) return `an array output declared ${type}`;
      const r = resolveType(src.folder, el[1]!);
      if (typeof r === "string") return r;
      if (r.kind === "pointer") {
        return {
          ...base,
          shape: "Pointer[]",
          check: (v, args) => {
            if (!Array.isArray(v)) return `expected an array of Pointers, got ${describe(v)}`;
            const bad = v.findIndex((x) => !(x === null || isPointer(x)));
            return bad >= 0 ? `element ${bad} is ${describe(v[bad])}, not a Pointer` : lengthCheck(v, args);
          },
        };
      }
      if (r.kind === "record") {
        const cls = src.runtime.recordClass(r.folder, r.name);
        if (cls === undefined) return `no record class ${r.name}`;
        return {
          ...base,
          shape: "record[]",
          check: (v, args) => {
            if (!Array.isArray(v)) return `expected an array of ${r.name}, got ${describe(v)}`;
            const bad = v.findIndex((x) => !(x instanceof cls));
            return bad >= 0 ? `element ${bad} is ${describe(v[bad])}, not a ${r.name}` : lengthCheck(v, args);
          },
        };
      }
      return `an array output of ${el[1]} (${r.kind})`;
    }
  }
}

/** Whether a resolved kind is what a C scalar of width class `w` comes back as. */
function kindFits(kind: Resolved["kind"], w: "i" | "i64" | "f" | "bool" | "char"): boolean {
  if (w === "i64") return kind === "bigint";
  if (w === "bool") return kind === "boolean";
  return kind === "number" || kind === "integer";
}

/** Whether typed array `type` holds elements of C type `c` (width class `w`). */
function typedArrayFits(type: string, c: string, w: "i" | "i64" | "f" | "bool" | "char"): boolean {
  const s = c.replace(/\bconst\b/g, "").trim();
  if (w === "f") return type === (s === "float" ? "Float32Array" : "Float64Array");
  if (w === "i64") return type === "BigInt64Array" || type === "BigUint64Array";
  if (w === "bool") return type === "Uint8Array";
  const bits = /(8|16|32)_t$/.exec(s)?.[1] ?? (/short/.test(s) ? "16" : "32");
  return type.endsWith(`Int${bits}Array`) || type.endsWith(`int${bits}Array`);
}

/** How long an array output must be, from its count (a number, or a parameter the sweep passed or left out). */
function arrayLength(count: string, sig: Signature, sigIndex: (n: string) => number): ((args: readonly unknown[]) => number) & { why: string } | string {
  const make = (f: (args: readonly unknown[]) => number, why: string): ((args: readonly unknown[]) => number) & { why: string } => Object.assign(f, { why });
  if (/^\d+$/.test(count)) return make(() => Number(count), "a fixed count");
  const i = sigIndex(count);
  // Not taken: the library is asked how many (the mock reports 0).
  if (i < 0) return make(() => 0, `${count} asked of the mock, which reports nothing`);
  const t = sig.params[i]!.type;
  if (!/^(number|bigint|number \| bigint|bigint \| number)$/.test(t)) return `the count ${count} is declared ${t}`;
  return make((args) => (args[i] === undefined ? 0 : Number(args[i] as number | bigint)), `the ${count} passed, or 0 asked of the mock`);
}

/** The check of a single output of resolved kind `r`. */
function valueCheck(
  base: { name: string; role: ExpectedValue["role"] },
  r: Resolved,
  type: string,
  sig: Signature,
  sigIndex: (n: string) => number,
  rt: ShapeRuntime,
): ExpectedValue | string {
  switch (r.kind) {
    case "number":
      return { ...base, shape: "number", check: (v) => (typeof v === "number" ? undefined : `expected a number, got ${describe(v)}`) };
    case "integer":
      return { ...base, shape: "number", check: (v) => (Number.isInteger(v) ? undefined : `expected an integer number (${type}), got ${describe(v)}`) };
    case "bigint":
      return { ...base, shape: "bigint", check: (v) => (typeof v === "bigint" ? undefined : `expected a bigint, got ${describe(v)}`) };
    case "boolean":
      return { ...base, shape: "boolean", check: (v) => (typeof v === "boolean" ? undefined : `expected a boolean, got ${describe(v)}`) };
    case "pointer":
      return { ...base, shape: "Pointer", check: (v) => (v === null || rt.isPointer(v) ? undefined : `expected a Pointer, got ${describe(v)}`) };
    case "record": {
      const cls = rt.recordClass(r.folder, r.name);
      if (cls === undefined) return `no record class ${r.name}`;
      const i = sigIndex(base.name);
      if (i < 0 || !sig.params[i]!.optional || sig.params[i]!.type !== type) return `a record output not taken as an optional ${type} to fill`;
      return {
        ...base,
        shape: "record",
        check: (v, args) => {
          if (!(v instanceof cls)) return `expected a ${r.name}, got ${describe(v)}`;
          if (args[i] !== undefined && v !== args[i]) return `expected the ${r.name} passed in, got another`;
          return undefined;
        },
      };
    }
    default:
      return `an output declared ${type} (${r.kind})`;
  }
}
