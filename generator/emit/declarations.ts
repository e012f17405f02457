/** enums.ts, constants.ts and types.ts of a generated library. */
import type { IrConstant, IrLibrary, IrTypedef } from "../ir.ts";
import { resolveTypedefs } from "../parse/context.ts";
import { docBlock, type ImportTracker, shortDoc, sourceModule, tsType } from "./common.ts";
import { scalarNative } from "./native.ts";

function literal(value: string, big: boolean): string {
  return big ? `${value}n` : value;
}

/** Enums as frozen objects plus a type of the same name. */
export function emitEnums(lib: IrLibrary): string {
  let out = "";
  for (const e of lib.enums) {
    const big = e.size === 8;
    const extra = [`C type: \`${e.size * 8}-bit ${e.signed ? "signed" : "unsigned"} enum\`${e.aliases.length ? `; also named ${e.aliases.map((a) => `\`${a}\``).join(", ")}` : ""}.`];
    out += docBlock(shortDoc(e.doc, e.deprecated, e.doc ? ["", ...extra] : extra));
    out += `export const ${e.name} = Object.freeze({\n`;
    for (const c of e.constants) {
      out += docBlock(shortDoc(c.doc, c.deprecated), "  ");
      out += `  ${c.name}: ${literal(c.value, big)},\n`;
    }
    out += `} as const);\n`;
    out += `/** A value of {@link ${e.name}}. */\n`;
    out += `export type ${e.name} = (typeof ${e.name})[keyof typeof ${e.name}];\n`;
    for (const a of e.aliases) {
      out += `/** Another name of {@link ${e.name}}. */\nexport const ${a} = ${e.name};\n/** Another name of {@link ${e.name}}. */\nexport type ${a} = ${e.name};\n`;
    }
    out += "\n";
  }
  return out;
}

function constantValue(c: IrConstant): { code: string; type?: string } {
  switch (c.kind) {
    case "int": {
      const v = BigInt(c.value);
      const safe = v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER);
      return { code: safe ? c.value : `${c.value}n` };
    }
    case "float":
      return { code: Number.isFinite(c.value) ? String(c.value) : c.value > 0 ? "Infinity" : c.value < 0 ? "-Infinity" : "NaN" };
    case "string":
      return { code: JSON.stringify(c.value) };
    case "pointer":
      return { code: `address(0x${BigInt(c.value).toString(16)}n)`, type: "NativeAddress" };
  }
}

/** #define constants and anonymous enum constants. */
export function emitConstants(lib: IrLibrary): string {
  let out = "";
  let usesAddress = false;
  for (const c of lib.constants) {
    const v = constantValue(c);
    if (v.type) usesAddress = true;
    const kind =
      c.kind === "int"
        ? `${c.size * 8}-bit ${c.signed ? "signed" : "unsigned"} integer`
        : c.kind === "float"
          ? c.size === 4 ? "float" : "double"
          : c.kind === "string" ? "string" : "pointer (an address: convert with the FFI layer's pointerFromAddress)";
    // Enumerators of an anonymous enum come here too (collect.ts marks them with the expression "enum constant").
    const decl = c.expression === "enum constant" && c.kind === "int" ? `enum { ${c.name} = ${c.value} }` : `#define ${c.name} ${c.expression}`;
    const extra = [`C: \`${decl}\` (${kind}).`];
    out += docBlock(c.doc ? [c.doc, "", ...extra] : extra);
    out += `export const ${c.name}${v.type ? `: ${v.type}` : ""} = ${v.code};\n`;
  }
  const head = usesAddress ? `import { address, type NativeAddress } from "${sourceModule("ffi/types")}";\n\n` : "";
  return head + out;
}

/**
 * A handle's brand: the struct it points to (`CUstream_st`), so that the driver's and the runtime's names of one
 * handle (`CUstream`, `cudaStream_t`; `CUevent`, `cudaEvent_t`) are one type, as they are one in C, while different
 * handles stay apart. Falls back to the typedef's own name.
 */
function handleBrand(t: IrTypedef): string {
  const r = resolveTypedefs(t.target);
  if (r.kind === "pointer") {
    const p = resolveTypedefs(r.pointee);
    if (p.kind === "record" && p.name) return p.name;
  }
  return t.name;
}

function typedefType(t: IrTypedef, imp: ImportTracker): string {
  switch (t.category) {
    case "handle":
      return `Handle<"${handleBrand(t)}">`;
    case "callback":
      return `FunctionPointer<"${t.name}">`;
    case "pointer":
      return "Pointer";
    case "array":
      return "Uint8Array";
    case "scalar":
      return tsType(t.target, "result", imp);
    case "alias": {
      const target = t.target;
      if (target.kind === "typedef" || target.kind === "enum") {
        const n = imp.ref(target.name);
        if (n !== undefined) return n;
      }
      if (target.kind === "record") {
        const n = imp.ref(target.name);
        if (n !== undefined) return n;
        return `Opaque<"${target.name}">`;
      }
      const r = resolveTypedefs(target);
      if (r.kind === "record") return imp.ref(r.name) ?? `Opaque<"${r.name}">`;
      return tsType(target, "result", imp);
    }
  }
}

/** The JavaScript signature of a callback typedef. */
function callbackSignature(t: IrTypedef, imp: ImportTracker): { fnType: string; native: string } | undefined {
  const target = resolveTypedefs(t.target);
  const fn = target.kind === "pointer" ? resolveTypedefs(target.pointee) : target;
  if (fn.kind !== "function") return undefined;
  const params = fn.parameters.map((p, i) => `arg${i}: ${tsType(p, "field", imp)}`);
  let native: string;
  try {
    native = `{ parameters: [${fn.parameters.map((p) => JSON.stringify(scalarNative(p))).join(", ")}], result: ${JSON.stringify(scalarNative(fn.result))} }`;
  } catch {
    return undefined;
  }
  return { fnType: `(${params.join(", ")}) => ${tsType(fn.result, "result", imp)}`, native };
}

/** Typedefs: handles, scalars, callbacks, aliases. */
export function emitTypes(lib: IrLibrary, imp: ImportTracker): string {
  let out = "";
  for (const t of lib.typedefs) {
    const cat = {
      handle: "an opaque handle",
      scalar: `a ${t.target.spelling}`,
      callback: "a function pointer",
      pointer: "a pointer",
      alias: `another name of \`${t.target.spelling}\``,
      array: "a fixed-size array",
    }[t.category];
    out += docBlock(shortDoc(t.doc, t.deprecated, [`C: \`typedef ${t.target.spelling} ${t.name}\` (${cat}).`]));
    out += `export type ${t.name} = ${typedefType(t, imp)};\n`;
    if (t.category === "callback") {
      const sig = callbackSignature(t, imp);
      if (sig) {
        out += `/** The native signature of {@link ${t.name}}, for creating a callback with the FFI layer. */\n`;
        out += `export const ${t.name}_signature = ${sig.native} as const satisfies FunctionType;\n`;
        out += `/** A JavaScript function with the signature of {@link ${t.name}}. */\n`;
        out += `export type ${t.name}_function = ${sig.fnType};\n`;
      }
    }
  }
  const usesHandle = /Handle</.test(out);
  const usesFp = /FunctionPointer</.test(out);
  const usesFnType = /satisfies FunctionType/.test(out);
  const usesPointer = /\bPointer\b/.test(out.replace(/FunctionPointer/g, ""));
  const ffiNames = [
    usesFp ? "FunctionPointer" : "",
    usesFnType ? "FunctionType" : "",
    usesHandle ? "Handle" : "",
    usesPointer ? "Pointer" : "",
  ].filter(Boolean);
  let head = "";
  if (ffiNames.length) head += `import type { ${ffiNames.join(", ")} } from "${sourceModule("ffi/types")}";\n`;
  if (/Opaque</.test(out)) head += `import type { Opaque } from "${sourceModule("tables-runtime/opaque")}";\n`;
  for (const l of imp.lines()) head += l + "\n";
  return (head ? head + "\n" : "") + out;
}
