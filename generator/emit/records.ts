/** records.ts of a generated library: one class per struct or union, with exact layout and typed accessors. */
import type { IrField, IrLibrary, IrRecord, IrType } from "../ir.ts";
import { resolveTypedefs } from "../parse/context.ts";
import { docBlock, type ImportTracker, shortDoc, sourceModule, tsType, TYPED_ARRAY as TYPED } from "./common.ts";
import { type LayoutInfo, layoutOf } from "./native.ts";


function scalarCode(r: IrType): string | undefined {
  switch (r.kind) {
    case "bool":
      return "bool";
    case "int":
    case "enum":
      return `${r.signed ? "i" : "u"}${r.size * 8}`;
    case "float":
      return r.size === 4 ? "f32" : "f64";
    default:
      return undefined;
  }
}

/** Flattens nested arrays: element type and total length. */
function flatArray(t: IrType): { element: IrType; length: number | null } {
  let r = resolveTypedefs(t);
  let length: number | null = 1;
  while (r.kind === "array") {
    length = r.length === null || length === null ? null : length * r.length;
    r = resolveTypedefs(r.element);
  }
  return { element: r, length };
}

/**
 * A field's accessor (its type for the interface, and its description for RecordBase.$define: src/tables-runtime/
 * record.ts's AccessorSpec, with a referenced record class by name until the record's list of classes numbers it),
 * or a comment saying why there is none.
 */
type Accessor =
  | { readonly doc: string; readonly name: string; readonly type: string; readonly setType?: string; readonly spec: readonly (string | number)[]; readonly cls?: string }
  | { readonly comment: string };

function fieldAccessor(f: IrField, imp: ImportTracker): Accessor {
  const name = f.name === "constructor" ? "constructor_" : f.name;
  const doc = docBlock(shortDoc(f.doc, undefined, [`C: \`${f.type.spelling} ${f.name}${f.bitWidth !== undefined ? ` : ${f.bitWidth}` : ""}\`, offset ${f.offset}${f.bitOffset !== undefined ? ` (bit ${f.bitOffset})` : ""}, ${f.size} bytes.`]), "  ");
  const r = resolveTypedefs(f.type);
  const ts = tsType(f.type, "field", imp);
  if (f.bitWidth !== undefined) {
    const signed = (r.kind === "int" || r.kind === "enum") && r.signed ? 1 : 0;
    if (f.bitWidth > 32) return { doc, name, type: "bigint", setType: "bigint | number", spec: [name, "B", f.bitOffset!, f.bitWidth, signed] };
    const t = r.kind === "bool" ? "boolean" : ts === "bigint" ? "number" : ts;
    return { doc, name, type: t, setType: t, spec: [name, "b", f.bitOffset!, f.bitWidth, r.kind === "bool" ? 0 : signed, r.kind === "bool" ? 1 : 0] };
  }
  const code = scalarCode(r);
  if (code !== undefined) {
    const setType = code === "i64" || code === "u64" ? `${ts} | number` : ts;
    return { doc, name, type: ts, setType, spec: [name, "s", code, f.offset] };
  }
  if (r.kind === "pointer") return { doc, name, type: ts, setType: ts, spec: [name, "p", f.offset] };
  if (r.kind === "array") {
    const { element, length } = flatArray(r);
    if (length === null) return { comment: `  // ${f.name}: a flexible array member (${f.type.spelling}); reach it through $pointer() and the FFI layer.\n` };
    const ec = scalarCode(element);
    if (ec !== undefined) {
      const ctor = TYPED[ec]!;
      return { doc, name, type: ctor, spec: [name, "a", ctor, f.offset, length] };
    }
    if (element.kind === "pointer") return { doc, name, type: "PointerArray", spec: [name, "P", f.offset, length] };
    if (element.kind === "record") {
      const cls = imp.ref(element.name, true);
      if (cls) return { doc, name, type: `RecordArray<${cls}>`, spec: [name, "R", cls, f.offset, length], cls };
    }
    return { comment: `  // ${f.name}: ${f.type.spelling} has no accessor.\n` };
  }
  if (r.kind === "record") {
    const cls = imp.ref(r.name, true);
    if (cls && r.complete) return { doc, name, type: cls, setType: cls, spec: [name, "r", cls, f.offset, f.size], cls };
  }
  return { comment: `  // ${f.name}: ${f.type.spelling} has no accessor (${r.kind === "unsupported" ? r.reason : "unsupported type"}).\n` };
}

/** A string literal of `text` (single-quoted where that needs no escape: JSON of C names reads better so). */
function stringLiteral(text: string): string {
  return /['\\\n]/.test(text) ? JSON.stringify(text) : `'${text}'`;
}

/** A StructLayout as TypeScript source. */
export function layoutLiteral(l: LayoutInfo): string {
  const leaves = l.leaves.map((x) => `{ offset: ${x.offset}, type: "${x.type}" }`).join(", ");
  const passing = l.passing.kind === "memory" ? `{ kind: "memory" }` : `{ kind: "registers", classes: [${l.passing.classes.map((c) => `"${c}"`).join(", ")}] }`;
  return `{ name: ${JSON.stringify(l.name)}, size: ${l.size}, align: ${l.align}, leaves: [${leaves}], passing: ${passing} }`;
}

/** Emits the records of a library. `byValue` names the records some function passes by value. */
export function emitRecords(lib: IrLibrary, imp: ImportTracker, byValue: Set<string>, index: Map<string, IrRecord>): string {
  let out = "";
  let usesLayout = false;
  for (const rec of lib.records) {
    const extra = [`C: \`${rec.cName}\`${rec.aliases.length ? ` (also ${rec.aliases.map((a) => `\`${a}\``).join(", ")})` : ""}: ${rec.size} bytes, aligned to ${rec.align}.`];
    out += docBlock(shortDoc(rec.doc, rec.deprecated, rec.doc ? ["", ...extra] : extra));
    // The class alone is made at import; its layout facts and field accessors when it is first used
    // (RecordBase.$define: the first `new`, or the first read of $size, $fields, ...).
    out += `export class ${rec.name} extends RecordBase {`;
    if (byValue.has(rec.name)) {
      usesLayout = true;
      out += `\n  /** How this record travels when a function takes or returns it by value. */\n`;
      out += `  static readonly $layout: StructLayout = ${layoutLiteral(layoutOf(rec, index))};\n`;
    }
    out += `}\n`;
    const fields = rec.fields.map((f) => (f.bitOffset !== undefined ? [f.name, f.offset, f.size, f.bitOffset, f.bitWidth!] : [f.name, f.offset, f.size]));
    let iface = "";
    const accessors: (string | number)[][] = [];
    const classes: string[] = [];
    for (const f of rec.fields) {
      if (f.name === "") continue;
      const a = fieldAccessor(f, imp);
      if ("comment" in a) {
        iface += a.comment;
        continue;
      }
      iface += `${a.doc}  get ${a.name}(): ${a.type};\n`;
      if (a.setType !== undefined) iface += `  set ${a.name}(v: ${a.setType});\n`;
      const spec = [...a.spec];
      if (a.cls !== undefined) {
        if (!classes.includes(a.cls)) classes.push(a.cls);
        spec[2] = classes.indexOf(a.cls);
      }
      accessors.push(spec);
    }
    out += `export interface ${rec.name} {\n${iface}}\n`;
    // Its facts and accessors as data (JSON read when the class is first used): a runtime parses a string far faster
    // than the same accessors as code, and most records are never used.
    const description = JSON.stringify({ c: rec.cName, s: rec.size, a: rec.align, f: fields, x: accessors });
    out += `RecordBase.$define(${rec.name}, ${stringLiteral(description)}${classes.length > 0 ? `, () => [${classes.join(", ")}]` : ""});\n`;
    for (const a of rec.aliases) {
      out += `/** Another name of {@link ${rec.name}}. */\nexport const ${a} = ${rec.name};\n/** Another name of {@link ${rec.name}}. */\nexport type ${a} = ${rec.name};\n`;
    }
    out += "\n";
  }
  const ffi: string[] = [];
  if (/\bPointer\b/.test(out.replace(/PointerArray|FunctionPointer|NativePointer/g, ""))) ffi.push("Pointer");
  if (usesLayout) ffi.push("StructLayout");
  const sys = ["RecordBase"];
  if (/PointerArray/.test(out)) sys.push("PointerArray");
  if (/RecordArray</.test(out)) sys.push("RecordArray");
  let head = `import { ${sys.join(", ")} } from "${sourceModule("tables-runtime/record")}";\n`;
  if (ffi.length) head += `import type { ${ffi.join(", ")} } from "${sourceModule("ffi/types")}";\n`;
  for (const l of imp.lines()) head += l + "\n";
  return head + "\n" + out;
}
