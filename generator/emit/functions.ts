/** functions.ts (the native table and the raw call style) and checked.ts (the checked call style). */
import type { IrFunction, IrLibrary, IrRecord, IrType } from "../ir.ts";
import type { LibrarySpec } from "../manifest.ts";
import { resolveTypedefs } from "../parse/context.ts";
import { docBlock, functionDoc, type ImportTracker, safeIdent, tsType } from "./common.ts";
import { scalarNative } from "./native.ts";

/** The record a by-value parameter or result passes, if any. */
export function byValueRecord(t: IrType): string | undefined {
  const r = resolveTypedefs(t);
  return r.kind === "record" ? r.name : undefined;
}

function nativeCode(t: IrType, imp: ImportTracker): string {
  const rec = byValueRecord(t);
  if (rec !== undefined) return `{ struct: ${imp.ref(rec, true) ?? rec}.$layout }`;
  return JSON.stringify(scalarNative(t));
}

/** functions.ts: `library`, the `functions` table and the `Raw` interface. */
export function emitFunctions(lib: IrLibrary, spec: LibrarySpec, libraryName: string, imp: ImportTracker): string {
  let table = "";
  let iface = "";
  for (const fn of lib.functions) {
    const parts = [`symbol: ${JSON.stringify(fn.symbol)}`];
    if (fn.ptdsSymbol) parts.push(`ptdsSymbol: ${JSON.stringify(fn.ptdsSymbol)}`);
    parts.push(`parameters: [${fn.params.map((p) => nativeCode(p.type, imp)).join(", ")}]`);
    parts.push(`result: ${nativeCode(fn.result, imp)}`);
    if (fn.procAddress) {
      const pa = fn.procAddress;
      parts.push(`procAddress: { name: ${JSON.stringify(pa.name)}, version: ${pa.version}${pa.ptdsVersion !== undefined ? `, ptdsVersion: ${pa.ptdsVersion}` : ""} }`);
    }
    if (fn.deprecated !== undefined) parts.push("deprecated: true");
    table += `  ${fn.name}: { ${parts.join(", ")} },\n`;
    const sig = fn.params.map((p) => `${safeIdent(p.name)}: ${tsType(p.type, "param", imp)}`).join(", ");
    const cSig = `${fn.result.spelling} ${fn.symbol === fn.name ? fn.name : `${fn.name} (exported as ${fn.symbol})`}(${fn.params.map((p) => `${p.type.spelling} ${p.name}`).join(", ")})`;
    iface += docBlock(functionDoc(fn.doc, fn.deprecated, fn.params.map((p) => p.name), undefined, [`C: \`${cSig}\``, ""]), "  ");
    iface += `  ${fn.name}(${sig}): ${tsType(fn.result, "result", imp)};\n`;
  }
  const info = [`name: ${JSON.stringify(lib.library)}`, `library: ${JSON.stringify(libraryName)}`, `ctkVersion: ${JSON.stringify(lib.ctkVersion)}`];
  if (spec.status) info.push(`status: ${JSON.stringify(spec.status.type)}`);
  let out = `/** Facts about this generated library. */\nexport const library: LibraryInfo = { ${info.join(", ")} };\n\n`;
  out += `/** Every exported function's native signature, by C name. */\nexport const functions = {\n${table}} as const satisfies FunctionTable;\n\n`;
  out += docBlock([
    `The raw call style of ${lib.library}: C semantics. Functions return the library's status code, pointer`,
    "parameters take native pointers (out-parameters included), 64-bit integers are bigint, structs passed by value",
    "are their bytes. Bound lazily by the bindings layer; nothing is resolved until the first call.",
  ]);
  out += `export interface Raw {\n${iface}}\n`;
  let head = `import type { FunctionTable, LibraryInfo } from "../../../src/sys/spec.ts";\n`;
  if (/\bPointer\b/.test(iface.replace(/FunctionPointer|NativePointer/g, ""))) head += `import type { Pointer } from "../../../src/ffi/types.ts";\n`;
  for (const l of imp.lines()) head += l + "\n";
  return head + "\n" + out;
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

/** checked.ts: the `Checked` interface and `createChecked(raw, rt)`. */
export function emitChecked(
  lib: IrLibrary,
  spec: LibrarySpec,
  imp: ImportTracker,
  statusRecord: IrRecord | undefined,
  statusValues: Map<string, string>,
): string {
  let iface = "";
  let impl = "";
  let maxSlot = -1;
  let maxStr = -1;
  const views = new Set<string>();
  const statusType = spec.status?.type;
  for (const fn of lib.functions) {
    const outputs = new Set(fn.outputs);
    const inputs = fn.params.filter((p) => !outputs.has(p.name));
    const resolvedResult = resolveTypedefs(fn.result);
    const returnsStatus =
      statusType !== undefined &&
      (fn.result.spelling === statusType ||
        (fn.result.kind === "typedef" && fn.result.name === statusType) ||
        (resolvedResult.kind === "enum" && resolvedResult.name === statusType) ||
        (resolvedResult.kind === "record" && statusRecord !== undefined && resolvedResult.name === statusRecord.name));
    let slot = 0;
    const outs: { name: string; k: OutputKind; doc?: string }[] = [];
    let ok = true;
    for (const name of fn.outputs) {
      const p = fn.params.find((q) => q.name === name)!;
      const k = outputKind(p.type, slot, imp);
      if (!k) {
        ok = false;
        break;
      }
      if (k.kind !== "record") slot++;
      const d = fn.doc?.params.find((q) => q.name === name)?.text;
      outs.push(d ? { name, k, doc: d } : { name, k });
    }
    if (!ok) {
      outs.length = 0;
      slot = 0;
    }
    const outNames = new Set(outs.map((o) => o.name));
    const ins = fn.params.filter((p) => !outNames.has(p.name));
    void inputs;
    maxSlot = Math.max(maxSlot, slot - 1);
    // Parameter list and conversions.
    let strIndex = 0;
    const sigParts: string[] = [];
    const args: string[] = [];
    const prelude: string[] = [];
    for (const p of fn.params) {
      const id = safeIdent(p.name);
      const o = outs.find((x) => x.name === p.name);
      if (o) {
        if (o.k.kind === "record") {
          prelude.push(`const ${id} = new ${o.k.cls}();`);
          args.push(`${id}.$pointer()`);
        } else args.push(`o${o.k.slot}`);
        continue;
      }
      const r = resolveTypedefs(p.type);
      const cat = p.type.kind === "typedef" ? imp.names.typedefCategory.get(p.type.name) : undefined;
      if (isStringInput(p.type)) {
        sigParts.push(`${id}: string | PointerLike`);
        args.push(`rt.cstr(${id}, ${strIndex++})`);
      } else if (isStringArrayInput(p.type)) {
        sigParts.push(`${id}: readonly string[] | PointerLike`);
        args.push(`rt.cstrs(${id}, ${strIndex++})`);
      } else if ((r.kind === "pointer" || r.kind === "array") && cat !== "handle" && cat !== "callback") {
        sigParts.push(`${id}: PointerLike`);
        args.push(`rt.ptr(${id})`);
      } else if (r.kind === "record") {
        const cls = imp.ref(r.name);
        sigParts.push(`${id}: Uint8Array${cls ? ` | ${cls}` : ""}`);
        args.push(`rt.bytes(${id})`);
      } else {
        sigParts.push(`${id}: ${tsType(p.type, "param", imp)}`);
        args.push(id);
      }
    }
    maxStr = Math.max(maxStr, strIndex - 1);
    // Return value.
    const reads = outs.map((o) => {
      switch (o.k.kind) {
        case "scalar": {
          const [view, mul] = VIEW[o.k.native]!;
          views.add(view);
          const expr = `${view}[${o.k.slot * mul}]!`;
          if (o.k.native === "bool") return { ts: "boolean", code: `${expr} !== 0` };
          const cast = o.k.ts !== "number" && o.k.ts !== "bigint" ? ` as ${o.k.ts}` : "";
          return { ts: o.k.ts, code: expr + cast };
        }
        case "pointer":
          return { ts: o.k.ts, code: `rt.readPointer(${o.k.slot})${o.k.ts !== "Pointer" ? ` as ${o.k.ts}` : ""}` };
        case "string":
          return { ts: "string | null", code: `rt.readString(${o.k.slot})` };
        case "record":
          return { ts: o.k.cls, code: safeIdent(o.name) };
      }
    });
    const first = fn.params[0];
    const subject = first !== undefined && !outNames.has(first.name) && first.type.kind === "typedef" && imp.names.typedefCategory.get(first.type.name) === "handle"
      ? `, ${safeIdent(first.name)}`
      : "";
    const nonErrors = (spec.nonErrors[fn.name] ?? []).map((n) => statusValues.get(n)).filter((v): v is string => v !== undefined);
    let resultTs: string;
    let body: string[];
    const call = `raw.${fn.name}(${args.join(", ")})`;
    if (returnsStatus) {
      const codeExpr = statusRecord && spec.status?.field
        ? (() => {
            const f = statusRecord.fields.find((x) => x.name === spec.status!.field);
            return `new DataView(r.buffer, r.byteOffset, r.byteLength).getInt32(${f?.offset ?? 0}, true)`;
          })()
        : "r";
      const cond = [`${codeExpr === "r" ? "r" : "code"} !== 0`, ...nonErrors.map((v) => `${codeExpr === "r" ? "r" : "code"} !== ${v}`)].join(" && ");
      body = [...prelude, `const r = ${call};`];
      if (codeExpr !== "r") body.push(`const code = ${codeExpr};`);
      body.push(`if (${cond}) rt.fail(${codeExpr === "r" ? "r" : "code"}, ${JSON.stringify(fn.name)}${subject});`);
      const statusTs = tsType(fn.result, "result", imp);
      const values = [...(nonErrors.length ? [{ ts: statusTs, code: "r" }] : []), ...reads];
      if (values.length === 0) {
        resultTs = "void";
      } else if (values.length === 1) {
        resultTs = values[0]!.ts;
        body.push(`return ${values[0]!.code};`);
      } else {
        const names = [...(nonErrors.length ? ["status"] : []), ...outs.map((o) => safeIdent(o.name))];
        resultTs = `[${values.map((v, i) => `${names[i]}: ${v.ts}`).join(", ")}]`;
        body.push(`return [${values.map((v) => v.code).join(", ")}];`);
      }
    } else {
      const rts = tsType(fn.result, "result", imp);
      const isString = resolvedResult.kind === "pointer" && resolveTypedefs(resolvedResult.pointee).kind === "int" && (resolveTypedefs(resolvedResult.pointee) as { size: number }).size === 1;
      const resultValue = resolvedResult.kind === "void" ? undefined : { ts: isString ? "string | null" : rts, code: isString ? "rt.string(r)" : "r" };
      const values = [...(resultValue ? [resultValue] : []), ...reads];
      body = [...prelude, resolvedResult.kind === "void" ? `${call};` : `const r = ${call};`];
      if (values.length === 0) resultTs = "void";
      else if (values.length === 1) {
        resultTs = values[0]!.ts;
        body.push(`return ${values[0]!.code};`);
      } else {
        const names = [...(resultValue ? ["result"] : []), ...outs.map((o) => safeIdent(o.name))];
        resultTs = `[${values.map((v, i) => `${names[i]}: ${v.ts}`).join(", ")}]`;
        body.push(`return [${values.map((v) => v.code).join(", ")}];`);
      }
    }
    const returnsDoc = outs.length > 0
      ? outs.map((o) => `\`${o.name}\`${o.doc ? `: ${o.doc}` : ""}`).join("; ")
      : returnsStatus
        ? nonErrors.length
          ? `the status: success or one of ${(spec.nonErrors[fn.name] ?? []).join(", ")}; other codes throw.`
          : "nothing; a failure throws the library's typed error."
        : fn.doc?.returns;
    iface += docBlock(functionDoc(fn.doc, fn.deprecated, ins.map((p) => p.name), returnsDoc), "  ");
    iface += `  ${fn.name}(${sigParts.join(", ")}): ${resultTs};\n`;
    impl += `    ${fn.name}(${sigParts.join(", ")}): ${resultTs} {\n${body.map((l) => `      ${l}\n`).join("")}    },\n`;
  }
  let out = docBlock([
    `The checked call style of ${lib.library}: a failure throws the library's typed error, out-parameters come back`,
    "as the return value (one value, or a tuple for several), strings are JavaScript strings.",
  ]);
  out += `export interface Checked {\n${iface}}\n\n`;
  out += `/** Builds the checked call style over a raw table. */\nexport function createChecked(raw: Raw, rt: CheckedRuntime): Checked {\n`;
  for (let k = 0; k <= maxSlot; k++) out += `  const o${k} = rt.out[${k}]!;\n`;
  for (const v of [...views].sort()) out += `  const ${v} = rt.${v};\n`;
  out += `  return {\n${impl}  };\n}\n`;
  let head = `import type { CheckedRuntime${/PointerLike/.test(out) ? ", PointerLike" : ""} } from "../../../src/sys/checked.ts";\n`;
  if (/\bPointer\b/.test(out.replace(/FunctionPointer|NativePointer|PointerLike/g, ""))) head += `import type { Pointer } from "../../../src/ffi/types.ts";\n`;
  head += `import type { Raw } from "./functions.ts";\n`;
  for (const l of imp.lines()) head += l + "\n";
  void maxStr;
  return head + "\n" + out;
}
