/** functions.ts (the native table and the raw call style) and checked.ts (the checked call style). */
import type { IrFunction, IrLibrary, IrRecord, IrType } from "../ir.ts";
import type { LibrarySpec } from "../manifest.ts";
import { resolveTypedefs } from "../parse/context.ts";
import { docBlock, functionDoc, type ImportTracker, safeIdent, sourceModule, tsType, TYPED_ARRAY } from "./common.ts";
import { elementSize, layoutOf, scalarNative } from "./native.ts";
import { layoutLiteral } from "./records.ts";
import { type ArgumentKind, argumentCondition } from "../../src/tables-runtime/argument-checks.ts";

/** The record a by-value parameter or result passes, if any. */
export function byValueRecord(t: IrType): string | undefined {
  const r = resolveTypedefs(t);
  return r.kind === "record" ? r.name : undefined;
}

/**
 * A parameter's or result's native type as JSON, or undefined for a record passed by value: its layout is code (the
 * record class's `$layout` for one of this library; a layout written here for another library's, cuSPARSE's
 * `cuComplex`, the runtime's `float2`, so that what a library emits never depends on which others a run generates),
 * set into the parsed table by `functionTable` (see {@link structCode}).
 */
function nativeJson(t: IrType): string | undefined {
  return byValueRecord(t) === undefined ? JSON.stringify(scalarNative(t)) : undefined;
}

/** The layout code of a record passed by value (see {@link nativeJson}). */
function structCode(t: IrType, imp: ImportTracker, own: ReadonlySet<string>, index: ReadonlyMap<string, IrRecord>): string {
  const rec = byValueRecord(t)!;
  const ir = index.get(rec);
  if (own.has(rec) || ir === undefined) return `${imp.ref(rec, true) ?? rec}.$layout`;
  return layoutLiteral(layoutOf(ir, index as Map<string, IrRecord>));
}

/**
 * functions.ts (`library` and the `functions` table, written as JSON: parsed at every import, and JSON parses many
 * times faster than the same object literal) and raw.ts (the `Raw` interface: types only, never loaded at run time).
 */
export function emitFunctions(
  lib: IrLibrary,
  spec: LibrarySpec,
  libraryName: string,
  imp: ImportTracker,
  index: ReadonlyMap<string, IrRecord> = new Map(),
  rawImp: ImportTracker = imp,
): { functions: string; raw: string } {
  const own = new Set(lib.records.map((r) => r.name));
  const rows: string[] = [];
  const structs: string[] = [];
  let iface = "";
  for (const fn of lib.functions) {
    const parts = [`"symbol": ${JSON.stringify(fn.symbol)}`];
    if (fn.ptdsSymbol) parts.push(`"ptdsSymbol": ${JSON.stringify(fn.ptdsSymbol)}`);
    const params = fn.params.map((p, k) => {
      const j = nativeJson(p.type);
      if (j === undefined) structs.push(`  [${JSON.stringify(fn.name)}, ${k}, ${structCode(p.type, imp, own, index)}],`);
      return j ?? "null";
    });
    parts.push(`"parameters": [${params.join(", ")}]`);
    if (fn.params.length > 0) parts.push(`"names": [${fn.params.map((p) => JSON.stringify(p.name)).join(", ")}]`);
    const result = nativeJson(fn.result);
    if (result === undefined) structs.push(`  [${JSON.stringify(fn.name)}, -1, ${structCode(fn.result, imp, own, index)}],`);
    parts.push(`"result": ${result ?? "null"}`);
    if (fn.procAddress) {
      const pa = fn.procAddress;
      parts.push(`"procAddress": { "name": ${JSON.stringify(pa.name)}, "version": ${pa.version}${pa.ptdsVersion !== undefined ? `, "ptdsVersion": ${pa.ptdsVersion}` : ""} }`);
    }
    if (fn.deprecated !== undefined) parts.push(`"deprecated": true`);
    rows.push(`  ${JSON.stringify(fn.name)}: { ${parts.join(", ")} }`);
    const sig = fn.params.map((p) => `${safeIdent(p.name)}: ${tsType(p.type, "param", rawImp)}`).join(", ");
    const cSig = `${fn.result.spelling} ${fn.symbol === fn.name ? fn.name : `${fn.name} (exported as ${fn.symbol})`}(${fn.params.map((p) => `${p.type.spelling} ${p.name}`).join(", ")})`;
    // The documentation lives on the checked style; the raw entry names the C declaration and links there.
    iface += docBlock([`C: \`${cSig}\`. Raw call style; documented on {@link Checked.${fn.name}} (checked.ts).`, ...(fn.deprecated !== undefined ? [`@deprecated${fn.deprecated ? " " + fn.deprecated.replace(/\n/g, " ") : ""}`] : [])], "  ");
    iface += `  ${fn.name}(${sig}): ${tsType(fn.result, "result", rawImp)};\n`;
  }
  const json = `{\n${rows.join(",\n")}\n}`;
  if (/[`\\]|\$\{/.test(json)) throw new Error(`${lib.library}: a function table's JSON holds a character a template literal would change`);
  const info = [`name: ${JSON.stringify(lib.library)}`, `library: ${JSON.stringify(libraryName)}`, `ctkVersion: ${JSON.stringify(lib.ctkVersion)}`];
  if (spec.status) info.push(`status: ${JSON.stringify(spec.status.type)}`);
  let out = `export type { Raw } from "./raw.ts";\n\n`;
  out += `/** Facts about this generated library. */\nexport const library: LibraryInfo = { ${info.join(", ")} };\n\n`;
  out += docBlock([
    "Every exported function's native signature, by C name. Written as JSON, which a runtime parses many times faster",
    "than the same object literal; a record passed by value is `null` there and its layout is set in after (the list).",
  ]);
  out += `export const functions: { readonly [K in keyof Raw]: FunctionSpec } = functionTable<Raw>(\`${json}\`${structs.length > 0 ? `, [\n${structs.join("\n")}\n]` : ""});\n`;
  let head = `import type { FunctionSpec, LibraryInfo } from "${sourceModule("tables-runtime/spec")}";\n`;
  head += `import { functionTable } from "${sourceModule("tables-runtime/function-table")}";\n`;
  head += `import type { Raw } from "./raw.ts";\n`;
  for (const l of imp.lines()) head += l + "\n";
  let raw = docBlock([
    `The raw call style of ${lib.library}: C semantics. Functions return the library's status code, pointer`,
    "parameters take native pointers (out-parameters included), 64-bit integers are bigint, structs passed by value",
    "are their bytes. Bound lazily by the bindings layer; nothing is resolved until the first call.",
  ]);
  raw += `export interface Raw {\n${iface}}\n`;
  let rawHead = "";
  if (/\bPointer\b/.test(iface.replace(/FunctionPointer|NativePointer/g, ""))) rawHead += `import type { Pointer } from "${sourceModule("ffi/types")}";\n`;
  for (const l of rawImp.lines()) rawHead += l.replace(/^import \{ /, "import type { ").replace(/\btype (\w)/g, "$1") + "\n";
  return { functions: head + "\n" + out, raw: rawHead + (rawHead ? "\n" : "") + raw };
}

type OutputKind =
  | { kind: "scalar"; native: string; ts: string; slot: number }
  | { kind: "pointer"; ts: string; slot: number }
  | { kind: "string"; slot: number }
  | { kind: "record"; cls: string };

const VIEW: Record<string, [string, number]> = {
  i8: ["i8", 8],
  u8: ["u8", 8],
  i16: ["i16", 4],
  u16: ["u16", 4],
  i32: ["i32", 2],
  u32: ["u32", 2],
  i64: ["i64", 1],
  u64: ["u64", 1],
  f32: ["f32", 2],
  f64: ["f64", 1],
  bool: ["u8", 8],
};

/** The output-slot views a checked function may read (CheckedRuntime's typed arrays). */
const VIEW_NAMES: Record<string, true> = { i8: true, u8: true, i16: true, u16: true, i32: true, u32: true, i64: true, u64: true, f32: true, f64: true };

function outputKind(t: IrType, slot: number, imp: ImportTracker): OutputKind | undefined {
  const r = resolveTypedefs(t);
  if (r.kind !== "pointer") return undefined;
  const pointee = r.pointee;
  const p = resolveTypedefs(pointee);
  if (p.kind === "record") {
    const cls = imp.ref(p.name, true);
    return cls ? { kind: "record", cls } : undefined;
  }
  if (p.kind === "pointer") {
    const pp = resolveTypedefs(p.pointee);
    if (pp.kind === "int" && pp.size === 1) return { kind: "string", slot };
    return { kind: "pointer", ts: tsType(pointee, "result", imp), slot };
  }
  if (p.kind === "int" || p.kind === "enum" || p.kind === "float" || p.kind === "bool") {
    return { kind: "scalar", native: scalarNative(p), ts: tsType(pointee, "result", imp), slot };
  }
  // A `void*` that the manifest names an output (cudaGraphMemFreeNodeGetParams' dptr_out, declared `void*` where
  // the driver's twin has `CUdeviceptr*`): the library writes an address there.
  if (p.kind === "void") return { kind: "pointer", ts: tsType(t, "result", imp), slot };
  return undefined;
}

/** `const char* const*` / `const char**` inputs: arrays of C strings (compiler options, header names). */
function isStringArrayInput(t: IrType): boolean {
  const r = resolveTypedefs(t);
  if (r.kind !== "pointer") return false;
  const p = resolveTypedefs(r.pointee);
  if (p.kind !== "pointer" || !p.constPointee) return false;
  const c = resolveTypedefs(p.pointee);
  return c.kind === "int" && c.size === 1;
}

function isStringInput(t: IrType): boolean {
  const r = resolveTypedefs(t);
  if (r.kind !== "pointer" || !r.constPointee) return false;
  const p = resolveTypedefs(r.pointee);
  return p.kind === "int" && p.size === 1;
}


/** How one element of an array output is decoded, and its TypeScript type. */
function arrayElement(t: IrType, imp: ImportTracker): { code: string; ts: string; size: number } | undefined {
  const r = resolveTypedefs(t);
  if (r.kind !== "pointer") return undefined;
  const p = resolveTypedefs(r.pointee);
  switch (p.kind) {
    case "int":
      if (p.size === 1) return { code: `{ kind: "string", size: 1 }`, ts: "string", size: 1 };
    // falls through
    case "float":
    case "bool":
    case "enum": {
      const native = scalarNative(p);
      const size = native === "bool" ? 1 : Number(/\d+/.exec(native)?.[0] ?? 8) / 8;
      const kind = native === "bool" ? "u8" : native;
      return { code: `{ kind: "${kind}", size: ${size} }`, ts: TYPED_ARRAY[native]!, size };
    }
    case "pointer":
      return { code: `{ kind: "pointer", size: 8 }`, ts: `${tsType(r.pointee, "result", imp)}[]`, size: 8 };
    case "record": {
      const cls = imp.ref(p.name, true);
      if (!cls) return undefined;
      return { code: `{ kind: "record", size: ${cls}.$size, cls: ${cls} }`, ts: `${cls}[]`, size: 0 };
    }
    default:
      return undefined;
  }
}

/** The record a pointer parameter points to, if any. */
function pointeeRecord(t: IrType): string | undefined {
  const r = resolveTypedefs(t);
  if (r.kind !== "pointer") return undefined;
  const p = resolveTypedefs(r.pointee);
  return p.kind === "record" && p.complete ? p.name : undefined;
}

/** The element size of a pointer's pointee (void and unknown: 1, so the check is in bytes). */
function pointeeSize(t: IrType, records: Map<string, IrRecord>): number {
  const r = resolveTypedefs(t);
  if (r.kind !== "pointer") return 1;
  return elementSize(resolveTypedefs(r.pointee), records) || 1;
}

/** The version constant a versioned record's checked allocation is stamped with (nvmlPciInfoExt_v1 for nvmlPciInfoExt_v1_t). */
export function structVersion(lib: IrLibrary, spec: LibrarySpec, recordName: string): { field: string; value: string; constant: string } | undefined {
  const sv = spec.structVersions;
  if (!sv) return undefined;
  const rec = lib.records.find((r) => r.name === recordName);
  if (!rec || !rec.fields.some((f) => f.name === sv.field)) return undefined;
  for (const name of [rec.name, ...rec.aliases]) {
    const base = name.replace(/(_t|_st)$/, "");
    const upper = base.replace(/^nvml/, "").replace(/_v\d+$/, "").replace(/([a-z0-9])([A-Z])/g, "$1_$2").toUpperCase();
    for (const pattern of sv.patterns) {
      const cname = pattern.replace("$1", base).replace("$U", upper);
      const c = lib.constants.find((k) => k.name === cname && k.kind === "int");
      if (!c || c.kind !== "int") continue;
      const v = BigInt(c.value);
      // NVML_STRUCT_VERSION(T, n) is sizeof(T) | n << 24: a constant that names another size is another struct's.
      if (v >= 1n << 24n && Number(v & 0xffffffn) !== rec.size) continue;
      return { field: sv.field, value: c.value, constant: cname };
    }
  }
  return undefined;
}

/** checked.ts: the `Checked` interface and `createChecked(raw, rt)`. */
export function emitChecked(
  lib: IrLibrary,
  spec: LibrarySpec,
  imp: ImportTracker,
  statusRecord: IrRecord | undefined,
  statusValues: Map<string, string>,
  index: ReadonlyMap<string, IrRecord> = new Map(),
  parts: LibrarySpec["makerParts"] = {},
): { api: string; impl: string; parts: Map<string, string> } {
  let iface = "";
  let impl = "";
  let makers = "";
  // The parts' makers (headers-manifest.json's `makerParts`): function → its part; each part's makers and their code.
  const partOf = new Map<string, string>();
  for (const [part, p] of Object.entries(parts)) for (const f of p.functions) partOf.set(f, part);
  const partImpl = new Map<string, string>(Object.keys(parts).map((part) => [part, ""]));
  const partMakers = new Map<string, string>(Object.keys(parts).map((part) => [part, ""]));
  const statusType = spec.status?.type;
  const recordsByName = new Map(lib.records.map((r) => [r.name, r]));
  const retry = spec.sizeQueryStatus.map((n) => statusValues.get(n)).filter((v): v is string => v !== undefined);
  for (const fn of lib.functions) {
    let specs = "";
    const roles = fn.roles;
    const resolvedResult = resolveTypedefs(fn.result);
    const returnsStatus =
      statusType !== undefined &&
      (fn.result.spelling === statusType ||
        (fn.result.kind === "typedef" && fn.result.name === statusType) ||
        (resolvedResult.kind === "enum" && resolvedResult.name === statusType) ||
        (resolvedResult.kind === "record" && statusRecord !== undefined && resolvedResult.name === statusRecord.name));
    const roleOf = (name: string) => roles[fn.params.findIndex((p) => p.name === name)]!;
    // Slots: the in/out count of array outputs first, then byte sizes, handle references and single outputs.
    let slot = 0;
    const slotOf = new Map<string, number>();
    const countParam = fn.params.find((p, i) => roles[i]!.role === "count" && (roles[i] as { pointer: boolean }).pointer);
    const arrayOuts = fn.params.filter((_, i) => roles[i]!.role === "array-output");
    const arrayCount = arrayOuts.length > 0 ? (roleOf(arrayOuts[0]!.name) as { count: string }).count : undefined;
    const arrayCountRole = arrayCount !== undefined && fn.params.some((p) => p.name === arrayCount) ? roleOf(arrayCount) : undefined;
    if (countParam && arrayCountRole && arrayCountRole.role === "count" && arrayCountRole.pointer && arrayCount === countParam.name) slotOf.set(countParam.name, slot++);
    fn.params.forEach((p, i) => {
      const r = roles[i]!;
      if (slotOf.has(p.name)) return;
      if ((r.role === "count" && r.pointer) || r.role === "handle-reference") slotOf.set(p.name, slot++);
    });
    type Out = { name: string; k: OutputKind; doc?: string };
    const outs: Out[] = [];
    let ok = true;
    for (const name of fn.outputs) {
      const p = fn.params.find((q) => q.name === name)!;
      const s = slot;
      const k = outputKind(p.type, s, imp);
      if (!k) {
        ok = false;
        break;
      }
      if (k.kind !== "record") slotOf.set(name, slot++);
      const d = fn.doc?.params.find((q) => q.name === name)?.text;
      outs.push(d ? { name, k, doc: d } : { name, k });
    }
    if (!ok || slot > 16) {
      // Outputs the checked style cannot express: the caller passes every pointer.
      outs.length = 0;
    }
    const docs = new Map<string, string>();
    for (const p of fn.params) {
      const d = fn.doc?.params.find((q) => q.name === p.name)?.text;
      if (d) docs.set(p.name, d);
    }
    const optionalDocs = new Map<string, string>();
    const arrayEls = new Map<string, { code: string; ts: string; size: number }>();
    for (const p of arrayOuts) {
      const el = arrayElement(p.type, imp);
      if (el) arrayEls.set(p.name, el);
    }
    const useArrays = arrayOuts.length > 0 && arrayEls.size === arrayOuts.length && returnsStatus && spec.status?.field === undefined;
    const fixed = useArrays && arrayCount !== undefined && /^\d+$/.test(arrayCount) ? Number(arrayCount) : undefined;
    // Parameter list and conversions.
    let strIndex = 0;
    const sigParts: string[] = [];
    const optional: string[] = [];
    const args: string[] = [];
    // Each scalar's own check, then the conversions (which may read a count: checked first).
    const checks: string[] = [];
    const prelude: string[] = [];
    const after: string[] = [];
    const docParams: string[] = [];
    const sizeReturns: { name: string; slot: number; bytes: number }[] = [];
    let capacityArg: string | undefined;
    for (const [i, p] of fn.params.entries()) {
      const id = safeIdent(p.name);
      const role = roles[i]!;
      const o = outs.find((x) => x.name === p.name);
      if (o) {
        if (o.k.kind === "record") {
          const version = structVersion(lib, spec, (resolveTypedefs((resolveTypedefs(p.type) as { pointee: IrType }).pointee) as { name: string }).name);
          optional.push(`${id}?: ${o.k.cls}`);
          docParams.push(p.name);
          optionalDocs.set(p.name, `optional: a ${o.k.cls} to fill instead of a new one (its own contents${version ? `, ${version.field} included,` : ""} are passed in)${version ? `; a new one is stamped with ${version.field} = ${version.constant}` : ""}`);
          prelude.push(`const $${id} = ${id} === undefined ? rt.record(${o.k.cls}) : rt.recordArg(${id}, ${o.k.cls}, ${JSON.stringify(fn.name)}, ${JSON.stringify(p.name)});`);
          if (version) prelude.push(`if (${id} === undefined) $${id}.${version.field} = ${version.value};`);
          args.push(`$${id}.$pointer()`);
        } else args.push(`o${slotOf.get(p.name)}`);
        continue;
      }
      if (useArrays && role.role === "array-output") {
        args.push(`p[${arrayOuts.findIndex((q) => q.name === p.name)}]!`);
        continue;
      }
      if (role.role === "count" && role.pointer && useArrays && arrayCount === p.name) {
        // A capacity the caller may give: an element count of the C type the count points to.
        const capacityCheck = (optionalArg: boolean): void => {
          const kind = scalarNative((resolveTypedefs(p.type) as { pointee: IrType }).pointee) as ArgumentKind;
          const cond = `${argumentCondition(kind, id, "isPtr")} && ${id} >= 0`;
          checks.push(`if (${optionalArg ? `${id} !== undefined && ` : ""}!(${cond})) rt.bad(${JSON.stringify(fn.name)}, ${JSON.stringify(p.name)}, "${kind}", ${id});`);
        };
        if (role.capacity) {
          optional.push(`${id}?: number`);
          docParams.push(p.name);
          optionalDocs.set(p.name, `optional capacity: how many elements to ask for${role.query ? " (default: the size the library reports)" : ""}`);
          capacityCheck(true);
          capacityArg = id;
        } else if (!role.query) {
          sigParts.push(`${id}: number`);
          docParams.push(p.name);
          capacityCheck(false);
          capacityArg = id;
        }
        args.push(`o${slotOf.get(p.name)}`);
        continue;
      }
      if (role.role === "count" && role.pointer && slotOf.has(p.name)) {
        // An in/out byte size: taken as a number, the size the library reports is returned.
        const r = resolveTypedefs((resolveTypedefs(p.type) as { pointee: IrType }).pointee) as { size: number };
        const s = slotOf.get(p.name)!;
        sigParts.push(`${id}: number | bigint`);
        docParams.push(p.name);
        prelude.push(`rt.writeCount(${s}, ${r.size}, ${id}, ${JSON.stringify(fn.name)}, ${JSON.stringify(p.name)});`);
        args.push(`o${s}`);
        sizeReturns.push({ name: p.name, slot: s, bytes: r.size });
        continue;
      }
      if (role.role === "handle-reference") {
        const pointee = (resolveTypedefs(p.type) as { pointee: IrType }).pointee;
        const s = slotOf.get(p.name)!;
        sigParts.push(`${id}: ${tsType(pointee, "result", imp)}`);
        docParams.push(p.name);
        prelude.push(`rt.writePointer(${s}, ${id}, ${JSON.stringify(fn.name)}, ${JSON.stringify(p.name)});`);
        args.push(`o${s}`);
        continue;
      }
      docParams.push(p.name);
      const r = resolveTypedefs(p.type);
      const cat = p.type.kind === "typedef" ? imp.names.typedefCategory.get(p.type.name) : undefined;
      const rec = pointeeRecord(p.type);
      const recCls = rec ? imp.ref(rec, true) : undefined;
      const scalarCheck = (): void => {
        const kind = scalarNative(p.type) as ArgumentKind;
        checks.push(`if (!(${argumentCondition(kind, id, "isPtr")})) rt.bad(${JSON.stringify(fn.name)}, ${JSON.stringify(p.name)}, "${kind}", ${id});`);
      };
      if (role.role === "count" && !role.pointer) {
        sigParts.push(`${id}: ${tsType(p.type, "param", imp)}`);
        scalarCheck();
        if (scalarNative(p.type).startsWith("i")) checks.push(`rt.count(${id}, ${JSON.stringify(fn.name)}, ${JSON.stringify(p.name)});`);
        args.push(id);
        if (useArrays && arrayCount === p.name) capacityArg = id;
      } else if (isStringInput(p.type)) {
        sigParts.push(`${id}: string | PointerLike`);
        // A string the library reads `size` bytes of: the size is checked against the string's bytes.
        const tie = role.role === "array-input" ? role.count : role.role === "caller-buffer" ? role.size : undefined;
        const tieRole = tie !== undefined && fn.params.some((q) => q.name === tie) ? roleOf(tie) : undefined;
        if (tieRole && tieRole.role === "count" && !tieRole.pointer) {
          args.push(`rt.cstrSized(${id}, ${safeIdent(tie!)}, ${strIndex++}, ${JSON.stringify(fn.name)}, ${JSON.stringify(p.name)}, ${JSON.stringify(tie)})`);
        } else args.push(`rt.cstr(${id}, ${strIndex++}, ${JSON.stringify(fn.name)}, ${JSON.stringify(p.name)})`);
      } else if (isStringArrayInput(p.type)) {
        sigParts.push(`${id}: readonly string[] | PointerLike`);
        const c = role.role === "array-input" ? role.count : undefined;
        if (c && fn.params.some((q) => q.name === c) && roleOf(c).role === "count" && !(roleOf(c) as { pointer: boolean }).pointer) {
          prelude.push(`rt.strings(${id}, ${safeIdent(c)}, ${JSON.stringify(fn.name)}, ${JSON.stringify(p.name)});`);
        }
        args.push(`rt.cstrs(${id}, ${strIndex++}, ${JSON.stringify(fn.name)}, ${JSON.stringify(p.name)})`);
      } else if ((r.kind === "pointer" || r.kind === "array") && cat !== "handle" && cat !== "callback") {
        sigParts.push(`${id}: PointerLike`);
        const sizeName = role.role === "array-input" ? role.count : role.role === "caller-buffer" ? role.size : undefined;
        const sizeRole = sizeName !== undefined && fn.params.some((q) => q.name === sizeName) ? roleOf(sizeName) : undefined;
        const name = JSON.stringify(fn.name);
        if (sizeRole && sizeRole.role === "count" && !sizeRole.pointer) {
          const el = role.role === "caller-buffer" && role.unit === "bytes" ? 1 : pointeeSize(p.type, recordsByName);
          args.push(`rt.sized(${id}, ${safeIdent(sizeName!)}, ${el}, ${name}, ${JSON.stringify(p.name)}${recCls ? `, ${recCls}` : ""})`);
        } else if (sizeRole && sizeRole.role === "count" && sizeRole.pointer && slotOf.has(sizeName!)) {
          args.push(`rt.sized(${id}, ${safeIdent(sizeName!)}, 1, ${name}, ${JSON.stringify(p.name)})`);
        } else if (recCls) {
          args.push(`rt.ptr(rt.expect(${id}, ${recCls}, ${name}, ${JSON.stringify(p.name)}), ${name}, ${JSON.stringify(p.name)})`);
        } else args.push(`rt.ptr(${id}, ${name}, ${JSON.stringify(p.name)})`);
      } else if (r.kind === "record") {
        const cls = imp.ref(r.name, true);
        const size = recordsByName.get(r.name)?.size ?? (index.get(r.name)?.size);
        sigParts.push(`${id}: Uint8Array${cls ? ` | ${cls}` : ""}`);
        args.push(`rt.struct(${id}, ${size ?? (cls ? `${cls}.$size` : 0)}, ${JSON.stringify(fn.name)}, ${JSON.stringify(p.name)}${cls ? `, ${cls}` : ""})`);
      } else {
        sigParts.push(`${id}: ${tsType(p.type, "param", imp)}`);
        scalarCheck();
        args.push(id);
      }
    }
    prelude.unshift(...checks);
    if (fixed !== undefined) capacityArg = String(fixed);
    // Return value.
    const reads: { ts: string; code: string; name: string }[] = [];
    const arrayNames = arrayOuts.map((p) => safeIdent(p.name));
    for (const p of fn.params) {
      const o = outs.find((x) => x.name === p.name);
      if (o) {
        switch (o.k.kind) {
          case "scalar": {
            const [view, mul] = VIEW[o.k.native]!;
            const expr = `${view}[${o.k.slot * mul}]!`;
            if (o.k.native === "bool") reads.push({ ts: "boolean", code: `${expr} !== 0`, name: p.name });
            else {
              const cast = o.k.ts !== "number" && o.k.ts !== "bigint" ? ` as ${o.k.ts}` : "";
              reads.push({ ts: o.k.ts, code: expr + cast, name: p.name });
            }
            break;
          }
          case "pointer":
            reads.push({ ts: o.k.ts, code: `rt.readPointer(${o.k.slot})${o.k.ts !== "Pointer" ? ` as ${o.k.ts}` : ""}`, name: p.name });
            break;
          case "string":
            reads.push({ ts: "string | null", code: `rt.readString(${o.k.slot})`, name: p.name });
            break;
          case "record":
            reads.push({ ts: o.k.cls, code: `$${safeIdent(o.name)}`, name: p.name });
            break;
        }
        continue;
      }
      if (useArrays && arrayEls.has(p.name)) {
        const el = arrayEls.get(p.name)!;
        const k = arrayOuts.findIndex((q) => q.name === p.name);
        reads.push({ ts: el.ts, code: `a[${k}] as ${el.ts}`, name: p.name });
        continue;
      }
      const sr = sizeReturns.find((x) => x.name === p.name);
      if (sr) {
        const view = sr.bytes === 8 ? "u64" : "u32";
        reads.push({ ts: sr.bytes === 8 ? "bigint" : "number", code: `${view}[${sr.bytes === 8 ? sr.slot : sr.slot * 2}]!`, name: p.name });
      }
    }
    void arrayNames;
    const first = fn.params[0];
    const subject = first !== undefined && roles[0]!.role === "input" && first.type.kind === "typedef" && imp.names.typedefCategory.get(first.type.name) === "handle"
      ? `, ${safeIdent(first.name)}`
      : "";
    const nonErrors = (spec.nonErrors[fn.name] ?? []).map((n) => statusValues.get(n)).filter((v): v is string => v !== undefined);
    let resultTs: string;
    let body: string[];
    const call = `raw.${fn.name}(${args.join(", ")})`;
    const guard = `if (rt.guards) rt.check(${JSON.stringify(fn.name)});`;
    if (useArrays) {
      const countSlot = countParam && slotOf.has(countParam.name) && arrayCount === countParam.name ? slotOf.get(countParam.name)! : undefined;
      const countBytes = countSlot !== undefined ? ((resolveTypedefs((resolveTypedefs(countParam!.type) as { pointee: IrType }).pointee) as { size: number }).size) : 0;
      const cr = arrayCountRole && arrayCountRole.role === "count" ? arrayCountRole : undefined;
      const specName = `A_${fn.name}`;
      specs = `  const ${specName}: ArraySpec = { elements: [${arrayOuts.map((p) => arrayEls.get(p.name)!.code).join(", ")}], count: ${countSlot !== undefined ? `{ slot: ${countSlot}, bytes: ${countBytes} }` : "null"}, query: ${cr?.query ?? false}, retry: [${retry.join(", ")}] };\n`;
      body = [...prelude, `const a = rt.arrays(${JSON.stringify(fn.name)}, ${specName}, ${capacityArg ?? "undefined"}, (p) => ${call}${subject});`];
    } else if (returnsStatus) {
      body = [...prelude];
    } else body = [...prelude];
    if (returnsStatus) {
      const codeExpr = statusRecord && spec.status?.field
        ? (() => {
            const f = statusRecord.fields.find((x) => x.name === spec.status!.field);
            return `new DataView(r.buffer, r.byteOffset, r.byteLength).getInt32(${f?.offset ?? 0}, true)`;
          })()
        : "r";
      if (!useArrays) {
        const cond = [`${codeExpr === "r" ? "r" : "code"} !== 0`, ...nonErrors.map((v) => `${codeExpr === "r" ? "r" : "code"} !== ${v}`)].join(" && ");
        body.push(`const r = ${call};`);
        body.push(guard);
        if (codeExpr !== "r") body.push(`const code = ${codeExpr};`);
        body.push(`if (${cond}) rt.fail(${codeExpr === "r" ? "r" : "code"}, ${JSON.stringify(fn.name)}${subject});`);
      }
      body.push(...after);
      const statusTs = tsType(fn.result, "result", imp);
      const values = [...(nonErrors.length && !useArrays ? [{ ts: statusTs, code: "r", name: "status" }] : []), ...reads];
      if (values.length === 0) {
        resultTs = "void";
      } else if (values.length === 1) {
        resultTs = values[0]!.ts;
        body.push(`return ${values[0]!.code};`);
      } else {
        resultTs = `[${values.map((v) => `${safeIdent(v.name)}: ${v.ts}`).join(", ")}]`;
        body.push(`return [${values.map((v) => v.code).join(", ")}];`);
      }
    } else {
      const rts = tsType(fn.result, "result", imp);
      const isString = resolvedResult.kind === "pointer" && resolveTypedefs(resolvedResult.pointee).kind === "int" && (resolveTypedefs(resolvedResult.pointee) as { size: number }).size === 1;
      const resultValue = resolvedResult.kind === "void" ? undefined : { ts: isString ? "string | null" : rts, code: isString ? "rt.string(r)" : "r", name: "result" };
      const values = [...(resultValue ? [resultValue] : []), ...reads];
      body.push(resolvedResult.kind === "void" ? `${call};` : `const r = ${call};`);
      body.push(guard);
      if (values.length === 0) resultTs = "void";
      else if (values.length === 1) {
        resultTs = values[0]!.ts;
        body.push(`return ${values[0]!.code};`);
      } else {
        resultTs = `[${values.map((v) => `${safeIdent(v.name)}: ${v.ts}`).join(", ")}]`;
        body.push(`return [${values.map((v) => v.code).join(", ")}];`);
      }
    }
    const returned = reads.map((v) => v.name);
    const returnsDoc = returned.length > 0
      ? returned.map((n) => `\`${n}\`${docs.get(n) ? `: ${docs.get(n)}` : ""}`).join("; ")
      : returnsStatus
        ? nonErrors.length
          ? `the status: success or one of ${(spec.nonErrors[fn.name] ?? []).join(", ")}; other codes throw.`
          : "nothing; a failure throws the library's typed error."
        : fn.doc?.returns;
    const allSig = [...sigParts, ...optional];
    const docFn = { ...(fn.doc ?? { summary: "", params: [], notes: [], see: [] }) };
    docFn.params = docParams.map((n) => ({ name: n, text: optionalDocs.get(n) ?? docs.get(n) ?? "" }));
    iface += docBlock(functionDoc(docFn, fn.deprecated, docParams, returnsDoc), "  ");
    iface += `  ${fn.name}(${allSig.join(", ")}): ${resultTs};\n`;
    // The function's maker: what it closes over (output slots, views, its array spec), then the function itself.
    // Module-level makers cost nothing until called: the table is made lazily (createChecked below).
    // The arity first: a missing or extra argument is refused before anything else is read.
    const sigNames = allSig.map((x) => x.replace(/\??:.*$/, ""));
    const arityCond = optional.length === 0 ? `arguments.length !== ${sigParts.length}` : `arguments.length < ${sigParts.length} || arguments.length > ${allSig.length}`;
    body.unshift(`if (${arityCond}) rt.arity(${JSON.stringify(fn.name)}, ${JSON.stringify(sigNames.join(","))}, ${sigParts.length}, arguments.length);`);
    // The function's name, once per maker (F$: no C parameter name holds a `$`).
    const nameLiteral = JSON.stringify(fn.name);
    for (let k = 0; k < body.length; k++) body[k] = body[k]!.split(nameLiteral).join("F$");
    const text = body.join("\n");
    const slots = [...new Set([...text.matchAll(/\bo(\d+)\b/g)].map((m) => Number(m[1])))].sort((a, b) => a - b);
    const used = Object.keys(VIEW_NAMES).filter((v) => new RegExp(`\\b${v}\\[`).test(text));
    let maker = `function ${fn.name}$(raw: Raw, rt: CheckedRuntime): Checked[${JSON.stringify(fn.name)}] {\n`;
    for (const k of slots) maker += `  const o${k} = rt.out[${k}]!;\n`;
    for (const v of used) maker += `  const ${v} = rt.${v};\n`;
    if (/\bisPtr\(/.test(text)) maker += "  const isPtr = rt.isPointer;\n";
    if (/\bF\$/.test(text)) maker += `  const F$ = ${nameLiteral};\n`;
    maker += specs;
    maker += `  return function ${fn.name}(${allSig.join(", ")}): ${resultTs} {\n${body.map((l) => `    ${l}\n`).join("")}  };\n}\n\n`;
    const part = partOf.get(fn.name);
    if (part === undefined) {
      impl += maker;
      makers += `  ${fn.name}: ${fn.name}$,\n`;
    } else {
      partImpl.set(part, partImpl.get(part)! + maker);
      partMakers.set(part, partMakers.get(part)! + `  ${fn.name}: ${fn.name}$,\n`);
    }
  }
  const header = (file: string): string[] => [
    `The checked call style of ${lib.library}: a failure throws the library's typed error, out-parameters come back`,
    "as the return value (one value, or a tuple for several), arrays the library fills come back as typed arrays or",
    `arrays of handles or records, strings are JavaScript strings. Inputs are checked before the native call.${file}`,
  ];
  // checked.ts: the documented interface, types only (a runtime never loads it: importing the bindings stays cheap).
  let api = docBlock(header(""));
  api += `export interface Checked {\n${iface}}\n`;
  const typeOnly = (line: string): string => line.replace(/^import \{ (.*) \} from/, (_, names: string) => `import type { ${names.replace(/\btype /g, "")} } from`);
  const rtTypes = (text: string): string[] => ["CheckedRuntime", ...(/PointerLike/.test(text) ? ["PointerLike"] : []), ...(/ArraySpec/.test(text) ? ["ArraySpec"] : [])];
  const pointerImport = (text: string): string =>
    /\bPointer\b/.test(text.replace(/FunctionPointer|NativePointer|PointerLike/g, "")) ? `import type { Pointer } from "${sourceModule("ffi/types")}";\n` : "";
  let apiHead = `import type { ${rtTypes(api).filter((t) => t !== "CheckedRuntime" && t !== "ArraySpec").join(", ") || "PointerLike"} } from "${sourceModule("tables-runtime/checked")}";\n`;
  apiHead += pointerImport(api);
  for (const l of imp.lines()) apiHead += typeOnly(l) + "\n";
  // checked-impl.ts: one maker per function, and createChecked, which makes each function on its first call. The
  // parts' makers are modules of their own (checked-impl.<part>.ts), which this one gathers.
  const partNames = [...partImpl.keys()];
  const partIdent = (part: string): string => `${part}Makers`;
  let out = `// The checked call style of ${lib.library} (documented in checked.ts): one maker per function, then the table.\n\n`;
  out += impl;
  out += `/** Every function's maker, by C name${partNames.length > 0 ? ` (with the parts': ${partNames.map((n) => `checked-impl.${n}.ts`).join(", ")})` : ""}. */\n`;
  out += `export const makers: { readonly [K in keyof Checked]: (raw: Raw, rt: CheckedRuntime) => Checked[K] } = {\n${partNames.map((n) => `  ...${partIdent(n)},\n`).join("")}${makers}};\n\n`;
  out += docBlock([
    "Builds the checked call style over a raw table. Each function is made on its first call (then it replaces its",
    "placeholder in the table), so that building the table, at import, costs next to nothing.",
  ]);
  out += `export function createChecked(raw: Raw, rt: CheckedRuntime): Checked {\n  return lazyTable(makers, raw, rt);\n}\n`;
  // Each module imports only the names its code uses (a part must not load what it does not need).
  const usedImports = (text: string): string[] =>
    imp.lines().flatMap((l) => {
      const m = /^import (type )?\{ (.*) \} from (".*");$/.exec(l);
      if (m === null) return [l];
      const names = m[2]!.split(", ").filter((n) => new RegExp(`\\b${n.replace(/^type /, "").replace(/\$/g, "\\$")}\\b`).test(text));
      if (names.length === 0) return [];
      // Only types left: `import type`, so that the module is not loaded for them.
      if (m[1] === undefined && names.every((n) => n.startsWith("type "))) return [`import type { ${names.map((n) => n.slice(5)).join(", ")} } from ${m[3]};`];
      return [`import ${m[1] ?? ""}{ ${names.join(", ")} } from ${m[3]};`];
    });
  const moduleHead = (text: string, lazy: boolean): string => {
    let h = `import { ${rtTypes(text).map((t) => `type ${t}`).join(", ")}${lazy ? ", lazyTable" : ""} } from "${sourceModule("tables-runtime/checked")}";\n`;
    h += pointerImport(text);
    h += `import type { Checked } from "./checked.ts";\n`;
    h += `import type { Raw } from "./functions.ts";\n`;
    for (const l of partNames.length > 0 ? usedImports(text) : imp.lines()) h += l + "\n";
    return h;
  };
  let head = moduleHead(out, true);
  for (const n of partNames) head += `import { makers as ${partIdent(n)} } from "./checked-impl.${n}.ts";\n`;
  const partFiles = new Map<string, string>();
  for (const n of partNames) {
    let body = `// Part of the checked call style of ${lib.library} (documented in checked.ts): the makers of ${parts[n]!.description}\n`;
    body += `// checked-impl.ts gathers them with the rest; a binding may load this part alone.\n\n`;
    body += partImpl.get(n)!;
    const inPart = [...partMakers.get(n)!.matchAll(/^ {2}(\w+):/gm)].map((m) => JSON.stringify(m[1]));
    body += `/** The functions of this part. */\nexport type PartName = ${inPart.length === 0 ? "never" : inPart.join(" | ")};\n\n`;
    body += `/** The makers of this part, by C name. */\nexport const makers: { readonly [K in PartName]: (raw: Raw, rt: CheckedRuntime) => Checked[K] } = {\n${partMakers.get(n)!}};\n`;
    partFiles.set(n, moduleHead(body, false) + "\n" + body);
  }
  return { api: apiHead + "\n" + api, impl: head + "\n" + out, parts: partFiles };
}
