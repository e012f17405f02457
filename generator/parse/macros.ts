/**
 * Object-like #define constants. Their bodies are evaluated by clang itself: a second translation unit declares
 * `__auto_type v = (NAME);` for each candidate and libclang evaluates the initialisers (integers of any width and
 * sign, floats, strings); pointer-valued ones (`((void*)0x00)`) are evaluated through a cast to an integer.
 * Function-like macros and bodies that are not constant expressions are reported with the reason.
 */
import { type Clang, type Cursor, CursorKind, TypeKind } from "../libclang/api.ts";
import type { IrConstant, IrLocation, IrSkip } from "../ir.ts";
import { parseMemberDoc } from "./doc.ts";

/** A macro definition seen in an owned header. */
export interface MacroDef {
  name: string;
  body: string[];
  functionLike: boolean;
  location: IrLocation;
  doc?: string;
}

let lastText = "";
let lastLines: string[] = [];

/** A file's lines (the last file's split is kept: macros of one header are read one after another). */
function linesOf(text: string): string[] {
  if (text !== lastText) {
    lastText = text;
    lastLines = text.split("\n");
  }
  return lastLines;
}

/**
 * The raw `/** ... *\/` comment that ends just before `line` (1-based), with only blank lines and, when
 * `skipDirectives`, preprocessor lines between; or undefined.
 */
export function precedingComment(text: string, line: number, skipDirectives: boolean): string | undefined {
  const lines = linesOf(text);
  let end = line - 2;
  while (end >= 0 && (lines[end]!.trim() === "" || (skipDirectives && lines[end]!.trim().startsWith("#")))) end--;
  if (end < 0 || !lines[end]!.trim().endsWith("*/")) return undefined;
  let start = end;
  while (start >= 0 && !lines[start]!.includes("/*")) start--;
  if (start < 0 || !lines[start]!.includes("/**")) return undefined;
  // A comment that follows code on its line (`#define A 1 /**< about A */`) or is written as a trailing one
  // (`/**<`) documents that line, not the next declaration.
  const opening = lines[start]!;
  const at = opening.lastIndexOf("/*", start === end ? opening.lastIndexOf("*/") : opening.length);
  if (opening.slice(0, at).trim() !== "" || /^\/\*[*!]</.test(opening.slice(at))) return undefined;
  return lines.slice(start, end + 1).join("\n");
}

/** The doc comment written before (`/** ... *\/` ending on the previous line) or after (`/**< ... *\/`) a #define. */
export function macroDoc(text: string, line: number): string | undefined {
  const own = linesOf(text)[line - 1] ?? "";
  const trailing = /\/\*\*<(.*?)\*\//.exec(own) ?? /\/\/\/<(.*)$/.exec(own);
  if (trailing) return parseMemberDoc(`/**${trailing[1]}*/`);
  const raw = precedingComment(text, line, false);
  return raw === undefined ? undefined : parseMemberDoc(raw);
}

/** Reads a macro definition cursor. */
export function readMacro(clang: Clang, tu: Deno.PointerValue, cur: Cursor, location: IrLocation, fileText: string): MacroDef {
  const tokens = clang.tokens(tu, cur);
  const def: MacroDef = {
    name: clang.spelling(cur),
    body: tokens.slice(1),
    functionLike: clang.isMacroFunctionLike(cur),
    location,
  };
  const doc = macroDoc(fileText, location.line);
  if (doc) def.doc = doc;
  return def;
}

/** Classifies macros that are not evaluated; returns the reason or undefined for candidates. */
export function macroSkipReason(m: MacroDef, functionNames: Set<string>, typeNames: Set<string>): string | undefined {
  if (m.functionLike) return "function-like macro: not a constant";
  if (m.body.length === 0) return "empty macro (a marker, guard or attribute switch)";
  const ids = m.body.filter((t) => /^[A-Za-z_]\w*$/.test(t));
  const fn = ids.find((t) => functionNames.has(t));
  if (fn !== undefined) return `version alias of the function ${fn} (the generated function carries the exported symbol)`;
  if (m.body.length === 1 && typeNames.has(m.body[0]!)) return `type alias of ${m.body[0]}`;
  if (m.body.includes("__attribute__") || m.body.includes("__declspec")) return "attribute macro: not a constant";
  return undefined;
}

/** Builds the evaluation source for the candidates. */
export function evaluationSource(includes: string, names: string[]): string {
  const lines = [includes];
  names.forEach((n, i) => {
    lines.push(`__auto_type __cudats_v${i} = (${n});`);
    lines.push(`unsigned long long __cudats_p${i} = (unsigned long long)(${n});`);
    // libclang evaluates a string literal only when it initialises a variable directly (not through parentheses).
    lines.push(`static const char __cudats_s${i}[] = ${n};`);
  });
  return lines.join("\n") + "\n";
}

/** Reads the evaluated variables back. */
export function readEvaluations(
  clang: Clang,
  root: Cursor,
  macros: MacroDef[],
): { constants: IrConstant[]; skipped: IrSkip[] } {
  const vars = new Map<string, Cursor>();
  for (const c of clang.children(root)) {
    if (clang.kind(c) !== CursorKind.VarDecl) continue;
    const s = clang.spelling(c);
    if (s.startsWith("__cudats_")) vars.set(s, c);
  }
  const constants: IrConstant[] = [];
  const skipped: IrSkip[] = [];
  macros.forEach((m, i) => {
    const v = vars.get(`__cudats_v${i}`);
    const p = vars.get(`__cudats_p${i}`);
    const s = vars.get(`__cudats_s${i}`);
    const base = { name: m.name, location: m.location, expression: m.body.join(" ") };
    const withDoc = m.doc ? { ...base, doc: m.doc } : base;
    const skip = (reason: string): void => {
      skipped.push({ name: m.name, kind: "macro", reason, location: m.location });
    };
    if (v === undefined || clang.isInvalid(v)) {
      skip(`not a constant expression: ${truncate(base.expression)}`);
      return;
    }
    const t = clang.canonical(clang.type(v));
    const tk = clang.typeKind(t);
    const r = clang.evaluate(v);
    const str = tk === TypeKind.Pointer && s !== undefined && !clang.isInvalid(s) ? clang.evaluate(s) : undefined;
    if (r.kind === "string") {
      constants.push({ ...withDoc, kind: "string", value: r.value });
    } else if (str?.kind === "string") {
      constants.push({ ...withDoc, kind: "string", value: str.value });
    } else if (r.kind === "float" && (tk === TypeKind.Float || tk === TypeKind.Double)) {
      constants.push({ ...withDoc, kind: "float", value: r.value, size: tk === TypeKind.Float ? 4 : 8 });
    } else if (r.kind === "int" && tk !== TypeKind.Pointer) {
      const size = clang.sizeOf(t);
      const signed = !r.unsigned;
      let value = r.value;
      if (!signed && value < 0n) value = BigInt.asUintN(64, value);
      constants.push({ ...withDoc, kind: "int", value: value.toString(), size, signed });
    } else if (tk === TypeKind.Pointer && p !== undefined && !clang.isInvalid(p)) {
      const pr = clang.evaluate(p);
      if (pr.kind === "int") {
        constants.push({ ...withDoc, kind: "pointer", value: BigInt.asUintN(64, pr.value).toString() });
      } else skip(`pointer value is not a constant: ${truncate(base.expression)}`);
    } else {
      skip(`not a constant expression: ${truncate(base.expression)}`);
    }
  });
  return { constants, skipped };
}

function truncate(s: string): string {
  return s.length > 80 ? s.slice(0, 77) + "..." : s;
}
