/**
 * One library's headers → IrLibrary: parse with libclang, walk the declarations of the files the library owns,
 * evaluate its #define constants, resolve the driver's cuGetProcAddress versions and the per-thread-default-stream
 * symbols, and decide the checked style's output parameters.
 */
import { type Clang, type Cursor, CursorKind, type Diagnostic, ParseError } from "../libclang/api.ts";
import type { IrConstant, IrEnum, IrFunction, IrLibrary, IrRecord, IrSkip, IrType, IrTypedef } from "../ir.ts";
import type { LibrarySpec } from "../manifest.ts";
import { ParseContext, isRecordDecl, resolveTypedefs } from "./context.ts";
import { parseDoc, parseMemberDoc } from "./doc.ts";
import { collectRecord, nameNestedRecords } from "./records.ts";
import { evaluationSource, macroDoc, macroSkipReason, type MacroDef, precedingComment, readEvaluations, readMacro } from "./macros.ts";
import { matchProcAddress, type PfnEntry, procAddressBase, readPfn, signatureOf, symbolRanks } from "./proc-address.ts";
import { decideRoles, paramDocs, pointerRulesOf, type RoleOverrides } from "./roles.ts";

/** What collectLibrary needs. */
export interface CollectInput {
  clang: Clang;
  index: Deno.PointerValue;
  library: string;
  spec: LibrarySpec;
  includeDirs: string[];
  resourceDir: string | undefined;
  /** Header path (relative) → owning library, over the whole manifest. */
  owners: Map<string, string>;
  ctkVersion: string;
  headers: { path: string; sha256: string }[];
}

const DETAILED_PREPROCESSING_RECORD = 0x01;

/** The clang command line used for every parse: C, x86-64 Linux, every error reported. */
export function clangArgs(input: CollectInput, extraDefines: Record<string, string> = {}): string[] {
  const args = ["-x", "c", "-std=gnu11", "--target=x86_64-unknown-linux-gnu", "-ferror-limit=0", "-Wno-everything"];
  if (input.resourceDir) args.push("-resource-dir", input.resourceDir);
  for (const d of input.includeDirs) args.push("-I", d);
  for (const [k, v] of Object.entries({ ...input.spec.defines, ...extraDefines })) args.push(`-D${k}=${v}`);
  return args;
}

function includes(spec: LibrarySpec): string {
  return [...spec.headers, ...spec.auxiliary].map((h) => `#include "${h}"`).join("\n");
}

function fatal(diags: Diagnostic[]): Diagnostic[] {
  return diags.filter((d) => d.severity >= 3);
}

/** Parses and collects one library. Throws ParseError when a header does not parse. */
export function collectLibrary(input: CollectInput): IrLibrary {
  const { clang, index, spec } = input;
  const mainFile = `/__cudats__/${input.library}.c`;
  const source = includes(spec) + "\n";
  const { tu, diagnostics } = clang.parse(index, mainFile, clangArgs(input), { [mainFile]: source }, DETAILED_PREPROCESSING_RECORD);
  try {
    const errors = fatal(diagnostics);
    if (errors.length > 0) {
      throw new ParseError(
        mainFile,
        errors,
        `the headers of ${input.library} do not parse:\n` + errors.slice(0, 20).map((d) => `  ${d.text}`).join("\n") +
          (errors.length > 20 ? `\n  ... and ${errors.length - 20} more` : "") +
          "\nCheck that the include directories hold a complete toolkit (--include, --cuda-home).",
      );
    }
    return collectFromTu(input, tu);
  } finally {
    clang.disposeTranslationUnit(tu);
  }
}

function collectFromTu(input: CollectInput, tu: Deno.PointerValue): IrLibrary {
  const { clang, spec, library } = input;
  const ctx = new ParseContext(clang, tu, input.includeDirs, library, input.owners);
  const owned = new Set([...spec.headers, ...spec.owns]);
  const auxiliary = new Set(spec.auxiliary);
  const top = clang.children(clang.root(tu));
  const fileOf = (c: Cursor): string | null => ctx.relative(clang.position(c).file);

  // Pass 1: names. A typedef that names an enum gives the enum its TypeScript name (CUresult, not CUresult_enum).
  for (const c of top) {
    const k = clang.kind(c);
    if (k === CursorKind.TypedefDecl) {
      const u = clang.typedefUnderlying(c);
      const decl = clang.declaration(clang.canonical(u));
      if (clang.kind(decl) === CursorKind.EnumDecl) {
        const usr = clang.usr(decl);
        if (!ctx.names.has(usr)) ctx.names.set(usr, clang.spelling(c));
      }
    } else if (isRecordDecl(k) && clang.isDefinition(c)) {
      const rel = fileOf(c);
      if (rel !== null && owned.has(rel)) nameNestedRecords(ctx, c, ctx.declName(c));
    }
  }

  const functions: IrFunction[] = [];
  const enums: IrEnum[] = [];
  const records: IrRecord[] = [];
  const typedefDecls: Cursor[] = [];
  const constants: IrConstant[] = [];
  const skipped: IrSkip[] = [];
  const notes: string[] = [];
  const macros: MacroDef[] = [];
  const pfns = new Map<string, PfnEntry[]>();
  const seenFunctions = new Set<string>();
  const seenRecords = new Set<string>();
  const seenEnums = new Set<string>();
  const functionCursors = new Map<string, Cursor>();
  const inlineDefinitions: { fn: IrFunction; cursor: Cursor }[] = [];
  const externSymbols = new Set<string>();

  for (const c of top) {
    const k = clang.kind(c);
    if (k === CursorKind.MacroExpansion || k === CursorKind.InclusionDirective) continue;
    const rel = fileOf(c);
    if (rel === null) continue;
    if (auxiliary.has(rel) && !owned.has(rel)) {
      if (k === CursorKind.TypedefDecl) {
        const pfn = readPfn(clang, c);
        if (pfn) {
          const list = pfns.get(pfn.base) ?? [];
          list.push(pfn);
          pfns.set(pfn.base, list);
        }
      }
      continue;
    }
    if (!owned.has(rel)) continue;
    switch (k) {
      case CursorKind.FunctionDecl: {
        const symbol = clang.spelling(c);
        const fn = readFunction(ctx, c, symbol);
        if (!clang.isDefinition(c)) externSymbols.add(symbol);
        if (seenFunctions.has(fn.name)) break;
        seenFunctions.add(fn.name);
        if (clang.isDefinition(c)) {
          inlineDefinitions.push({ fn, cursor: c });
          break;
        }
        externSymbols.add(symbol);
        const reason = functionSkipReason(fn, spec);
        if (reason) skipped.push({ name: fn.name, kind: "function", reason, location: fn.location });
        else {
          functions.push(fn);
          functionCursors.set(fn.name, c);
        }
        break;
      }
      case CursorKind.EnumDecl: {
        if (!clang.isDefinition(c)) break;
        const e = readEnum(ctx, c);
        if (e === "anonymous") {
          constants.push(...anonymousEnumConstants(ctx, c));
        } else if (!seenEnums.has(e.name)) {
          seenEnums.add(e.name);
          enums.push(e);
        }
        break;
      }
      case CursorKind.StructDecl:
      case CursorKind.UnionDecl: {
        if (!clang.isDefinition(c)) break;
        const name = ctx.declName(c);
        if (name.startsWith("anonymous_")) {
          skipped.push({ name, kind: "record", reason: "anonymous record with no typedef: unreachable", location: ctx.location(c) });
          break;
        }
        if (seenRecords.has(name)) break;
        const before = records.length;
        collectRecord(ctx, c, name, records);
        for (const r of records.slice(before)) seenRecords.add(r.name);
        break;
      }
      case CursorKind.TypedefDecl:
        typedefDecls.push(c);
        break;
      case CursorKind.VarDecl:
        skipped.push({ name: clang.spelling(c), kind: "variable", reason: "global variable: not part of the callable API", location: ctx.location(c) });
        break;
      case CursorKind.MacroDefinition:
        if (!clang.isMacroBuiltin(c)) {
          const p = clang.position(c);
          macros.push(readMacro(clang, tu, c, ctx.location(c), ctx.text(p.file)));
        }
        break;
      default:
        break;
    }
  }

  // Inline functions that only forward to an exported one (nvJitLink's nvJitLinkCreate → __nvJitLinkCreate_13_0)
  // are the API users call: emit them under their name, bound to the exported symbol they forward to.
  for (const { fn, cursor } of inlineDefinitions) {
    const tokens = clang.tokens(tu, cursor);
    const at = tokens.indexOf("return");
    const target = at >= 0 ? tokens[at + 1] : undefined;
    if (target !== undefined && tokens[at + 2] === "(" && externSymbols.has(target)) {
      fn.symbol = target;
      const reason = functionSkipReason(fn, spec);
      if (reason) skipped.push({ name: fn.name, kind: "function", reason, location: fn.location });
      else {
        functions.push(fn);
        functionCursors.set(fn.name, cursor);
      }
      const wrapped = skipped.findIndex((x) => x.kind === "function" && x.name === target);
      if (wrapped >= 0) skipped[wrapped]!.reason = `exported symbol behind the inline function ${fn.name}, which is generated`;
    } else {
      skipped.push({
        name: fn.name,
        kind: "function",
        reason: "inline function defined in the header: the library exports no symbol for it",
        location: fn.location,
      });
    }
  }

  // Typedefs after enums and records, so that aliases attach to them.
  const typedefs: IrTypedef[] = [];
  const seenTypedefs = new Set<string>();
  const enumByName = new Map(enums.map((e) => [e.name, e]));
  const recordByName = new Map(records.map((r) => [r.name, r]));
  for (const c of typedefDecls) {
    const name = clang.spelling(c);
    if (seenTypedefs.has(name)) continue;
    seenTypedefs.add(name);
    const td = readTypedef(ctx, c, name);
    const target = td.target;
    if (target.kind === "enum") {
      if (target.name === name) continue;
      const e = enumByName.get(target.name);
      if (e) {
        e.aliases.push(name);
        continue;
      }
    }
    if (target.kind === "record" && target.complete) {
      if (target.name === name) continue;
      const r = recordByName.get(target.name);
      if (r) {
        r.aliases.push(name);
        continue;
      }
    }
    typedefs.push(td);
  }
  // Enum tags that differ from the chosen name are aliases too.
  for (const c of top) {
    if (clang.kind(c) !== CursorKind.EnumDecl) continue;
    const tag = clang.spelling(c);
    const e = enumByName.get(ctx.declName(c));
    if (e && /^[A-Za-z_]\w*$/.test(tag) && tag !== e.name && !e.aliases.includes(tag)) e.aliases.push(tag);
  }

  // The driver's cuGetProcAddress versions.
  if (spec.procAddress) {
    // Symbols of one base and signature (CUDA 12.4's cuDeviceGetUuid and cuDeviceGetUuid_v2) are ranked, so that
    // each is resolved at the version of its own ABI.
    const signatures = new Map(functions.map((fn) => [fn.name, signatureOf(clang, clang.type(functionCursors.get(fn.name)!))]));
    const ranks = symbolRanks(functions.map((fn) => {
      const signature = signatures.get(fn.name)!;
      return { symbol: fn.symbol, base: procAddressBase(pfns, [fn.name, fn.symbol], signature), signature };
    }));
    for (const fn of functions) {
      const match = matchProcAddress(pfns, [fn.name, fn.symbol], signatures.get(fn.name)!, ranks.get(fn.symbol));
      if (match?.clamped) notes.push(`${fn.name}: ${fn.symbol} shares its cuGetProcAddress version with another symbol of ${match.name}: ${spec.auxiliary.join(", ")} has fewer versions of its signature than the headers declare symbols`);
      if (match) {
        fn.procAddress = match.ptdsVersion === undefined
          ? { name: match.name, version: match.version }
          : { name: match.name, version: match.version, ptdsVersion: match.ptdsVersion };
      } else {
        notes.push(`${fn.name}: no PFN typedef in ${spec.auxiliary.join(", ")} matches its signature; it is bound by its exported symbol ${fn.symbol}`);
      }
    }
  }

  // Per-thread default stream symbols: the same declarations parsed with CUDA_API_PER_THREAD_DEFAULT_STREAM.
  if (spec.ptds) {
    const ptds = ptdsSymbols(input);
    for (const fn of functions) {
      const alt = ptds.get(`${fn.location.file}:${fn.location.line}:${fn.name}`);
      if (alt !== undefined && alt !== fn.symbol) fn.ptdsSymbol = alt;
    }
  }

  // Parameter roles (outputs, arrays and their counts, caller buffers).
  for (const fn of functions) {
    assignRoles(fn, spec, roleOverrides(fn, spec));
  }
  for (const name of [...Object.keys(spec.outputs), ...Object.keys(spec.notOutputs), ...Object.keys(spec.fixedArrays), ...Object.keys(spec.counts)]) {
    if (!functions.some((f) => f.name === name)) notes.push(`manifest override names ${name}, which is not a generated function`);
  }

  // #define constants.
  const functionNames = new Set<string>();
  for (const f of functions) {
    functionNames.add(f.name);
    functionNames.add(f.symbol);
    if (f.ptdsSymbol) functionNames.add(f.ptdsSymbol);
  }
  for (const s of skipped) if (s.kind === "function") functionNames.add(s.name);
  const typeNames = new Set<string>([...typedefs.map((t) => t.name), ...enums.map((e) => e.name), ...records.map((r) => r.name)]);
  const candidates: MacroDef[] = [];
  const seenMacros = new Set<string>();
  for (const m of macros) {
    if (seenMacros.has(m.name)) continue;
    seenMacros.add(m.name);
    const reason = macroSkipReason(m, functionNames, typeNames);
    if (reason) skipped.push({ name: m.name, kind: "macro", reason, location: m.location });
    else candidates.push(m);
  }
  renameByMacro(functions, macros, externSymbols, notes);
  addAliasFunctions(functions, macros, spec);
  if (candidates.length > 0) {
    const evaluated = evaluateMacros(input, candidates);
    constants.push(...evaluated.constants);
    skipped.push(...evaluated.skipped);
  }

  // A header the manifest assigns to this library that contributed nothing was not parsed (not included by the
  // library's headers, or guarded out): say so instead of leaving its declarations silently missing.
  const seenFiles = new Set<string>();
  for (const d of [...functions, ...enums, ...records, ...typedefs, ...constants, ...skipped]) if (d.location) seenFiles.add(d.location.file);
  for (const file of [...spec.headers, ...spec.owns]) {
    if (!seenFiles.has(file)) notes.push(`MISSING ${file}: listed in the manifest for ${library}, but none of its declarations reached the parse (is it included by ${spec.headers.join(", ")}?)`);
  }

  return {
    library,
    ctkVersion: input.ctkVersion,
    headers: input.headers,
    functions,
    enums,
    constants,
    typedefs,
    records,
    skipped,
    imports: sortedRecord(ctx.imports),
    notes,
  };
}

/** The manifest's overrides of one function. */
function roleOverrides(fn: IrFunction, spec: LibrarySpec): RoleOverrides {
  const o: RoleOverrides = {};
  if (spec.pointerRules.length > 0) o.pointerRules = pointerRulesOf(spec);
  if (spec.pointerRoles[fn.name]) o.pointerRoles = spec.pointerRoles[fn.name];
  if (spec.decidePointers) o.decidePointers = true;
  if (spec.outputs[fn.name]) o.outputs = spec.outputs[fn.name];
  if (spec.notOutputs[fn.name]) o.notOutputs = spec.notOutputs[fn.name];
  if (spec.fixedArrays[fn.name]) o.fixedArrays = spec.fixedArrays[fn.name];
  if (spec.counts[fn.name]) o.counts = spec.counts[fn.name];
  return o;
}

function assignRoles(fn: IrFunction, spec: LibrarySpec, overrides: RoleOverrides): void {
  // Doc parameters matched by position (the header names them differently) take the declaration's names, so that
  // every emitter finds them.
  if (fn.doc) {
    const matched = paramDocs(fn);
    const used = new Set(matched.filter((d) => d !== undefined));
    fn.doc.params = [
      ...fn.params.flatMap((p, i) => (matched[i] ? [{ ...matched[i]!, name: p.name }] : [])),
      ...fn.doc.params.filter((d) => !used.has(d)),
    ];
  }
  const statusType = spec.status?.type;
  const res = resolveTypedefs(fn.result);
  const returnsStatus = statusType !== undefined && spec.status?.field === undefined &&
    (fn.result.spelling === statusType || (fn.result.kind === "typedef" && fn.result.name === statusType) || (res.kind === "enum" && res.name === statusType));
  // An array parameter (`T* vectors[]`) is a pointer in C; one the manifest overrides as an output is typed as that
  // pointer, so that the checked style reads what the library writes through it.
  for (const p of fn.params) {
    if (p.type.kind === "array" && overrides.pointerRoles?.[p.name] === "output") {
      p.type = { kind: "pointer", spelling: `${p.type.element.spelling}*`, pointee: p.type.element, constPointee: false };
    }
  }
  fn.roles = decideRoles(fn, overrides, returnsStatus);
  fn.outputs = fn.params.filter((_, i) => fn.roles[i]!.role === "output").map((p) => p.name);
}

/**
 * The manifest's output overrides of one library apply to the twin functions of another (the driver's
 * cuDeviceGetMemPool to the runtime's cudaDeviceGetMemPool), mapped by parameter position, where the twin has no
 * override of its own and both take the same number of parameters.
 */
export function applyTwinOverrides(ir: IrLibrary, spec: LibrarySpec, twin: IrLibrary, twinSpec: LibrarySpec): void {
  const own = spec.functionPrefixes[0]!;
  const other = twinSpec.functionPrefixes[0]!;
  const twins = new Map(twin.functions.map((f) => [f.name, f]));
  for (const fn of ir.functions) {
    if (spec.outputs[fn.name] || !fn.name.startsWith(own)) continue;
    const twinName = other + fn.name.slice(own.length);
    const names = twinSpec.outputs[twinName];
    const t = twins.get(twinName);
    if (!names || !t || t.params.length !== fn.params.length) continue;
    const outputs = names.map((n) => t.params.findIndex((p) => p.name === n)).filter((k) => k >= 0).map((k) => fn.params[k]!.name);
    const o = roleOverrides(fn, spec);
    o.outputs = outputs;
    assignRoles(fn, spec, o);
    for (const r of fn.roles) if (r.role === "output" && r.rule === "manifest outputs override") r.rule = `manifest outputs override of the twin ${twinName}`;
  }
}

/**
 * A function renamed by a macro after its first declaration (`cuFileDriverClose(void);` then
 * `#define cuFileDriverClose cuFileDriverClose_v2` and a second declaration): C code that includes the header calls
 * the macro's target, so that is the symbol to bind.
 */
function renameByMacro(functions: IrFunction[], macros: MacroDef[], externSymbols: Set<string>, notes: string[]): void {
  const byName = new Map(functions.map((f) => [f.name, f]));
  for (const m of macros) {
    if (m.functionLike || m.body.length !== 1) continue;
    const f = byName.get(m.name);
    const target = m.body[0]!;
    if (f === undefined || target === f.symbol || target === f.ptdsSymbol || !externSymbols.has(target)) continue;
    notes.push(`${f.name}: bound to ${target}, the symbol the header's \`#define ${m.name} ${target}\` makes C code call (declared first as ${f.symbol})`);
    f.symbol = target;
  }
}

/**
 * C code can call a function under every name the header gives it: `#define nvmlInit nvmlInit_v2` makes
 * `nvmlInit` the name to use, and `#define cuGraphInstantiate cuGraphInstantiateWithFlags` leaves
 * `cuGraphInstantiateWithFlags` callable too. Each such name gets its own entry (same symbol, same signature).
 */
function addAliasFunctions(functions: IrFunction[], macros: MacroDef[], spec: LibrarySpec): void {
  const byName = new Map(functions.map((f) => [f.name, f]));
  const bySymbol = new Map<string, IrFunction>();
  for (const f of functions) if (!bySymbol.has(f.symbol)) bySymbol.set(f.symbol, f);
  const add = (name: string, from: IrFunction): void => {
    if (byName.has(name) || !spec.functionPrefixes.some((p) => name.startsWith(p))) return;
    const copy: IrFunction = { ...from, name, outputs: [...from.outputs], roles: from.roles.map((r) => ({ ...r })) };
    byName.set(name, copy);
    functions.splice(functions.indexOf(from) + 1, 0, copy);
  };
  for (const m of macros) {
    if (m.functionLike) continue;
    const ids = m.body.filter((t) => /^[A-Za-z_]\w*$/.test(t) && !t.startsWith("__"));
    if (ids.length !== 1 || m.body.length > 4) continue;
    const target = byName.get(ids[0]!) ?? bySymbol.get(ids[0]!);
    if (target) add(m.name, target);
  }
  for (const f of [...functions]) {
    if (f.symbol === f.name || f.symbol.startsWith("__")) continue;
    if (new RegExp(`^${f.name}(_v\\d+)?(_ptsz|_ptds)?$`).test(f.symbol)) continue;
    add(f.symbol, f);
  }
}

function sortedRecord(r: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(r).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function readFunction(ctx: ParseContext, c: Cursor, symbol: string): IrFunction {
  const clang = ctx.clang;
  const n = clang.argumentCount(c);
  const params = [];
  for (let i = 0; i < n; i++) {
    const a = clang.argument(c, i);
    const name = clang.spelling(a) || `arg${i}`;
    params.push({ name, type: ctx.convert(clang.type(a)) });
  }
  const fn: IrFunction = {
    name: ctx.writtenName(c) ?? symbol,
    symbol,
    params,
    result: ctx.convert(clang.resultType(c)),
    variadic: clang.isVariadic(c),
    outputs: [],
    roles: [],
    location: ctx.location(c),
  };
  // A written name that is not an identifier of this function (a macro call at the declaration) keeps the symbol.
  if (!/^[A-Za-z_]\w*$/.test(fn.name)) fn.name = symbol;
  // A comment separated from its declaration by a preprocessor line (`#ifndef NVJITLINK_NO_INLINE`) is not
  // attached by clang; take it from the source.
  let raw = clang.rawComment(c);
  if (raw === "") {
    const start = clang.start(c);
    if (start.file) raw = precedingComment(ctx.text(start.file), start.line, true) ?? "";
  }
  const doc = parseDoc(raw);
  if (doc) fn.doc = doc;
  const dep = clang.deprecation(c);
  if (dep !== undefined) fn.deprecated = dep || doc?.deprecated || "";
  else if (doc?.deprecated !== undefined) fn.deprecated = doc.deprecated;
  return fn;
}

function unsupportedIn(t: IrType, seen = 0): string | undefined {
  if (seen > 30) return undefined;
  switch (t.kind) {
    case "unsupported":
      return `${t.spelling}: ${t.reason}`;
    case "typedef":
      return unsupportedIn(t.target, seen + 1);
    case "array":
      return unsupportedIn(t.element, seen + 1);
    default:
      return undefined;
  }
}

function functionSkipReason(fn: IrFunction, spec: LibrarySpec): string | undefined {
  if (!spec.functionPrefixes.some((p) => fn.name.startsWith(p))) {
    return `name does not start with ${spec.functionPrefixes.join(" or ")}: not part of this library's API`;
  }
  if (fn.variadic) return "variadic function: neither bun:ffi nor Deno's FFI can call C varargs";
  for (const t of [fn.result, ...fn.params.map((p) => p.type)]) {
    const bad = unsupportedIn(t);
    if (bad) return `uses a type with no FFI representation (${bad})`;
    const r = resolveTypedefs(t);
    if (r.kind === "record" && !r.complete) return `passes the incomplete type ${r.spelling} by value`;
    if (r.kind === "record" && r.recordKind === "union") return `passes the union ${r.name} by value (no FFI can express a union argument)`;
  }
  return undefined;
}

function enumIsUnsigned(ctx: ParseContext, c: Cursor): { size: number; signed: boolean } {
  const t = ctx.convert(ctx.clang.enumIntegerType(c));
  const r = resolveTypedefs(t);
  if (r.kind === "int") return { size: r.size, signed: r.signed };
  return { size: 4, signed: true };
}

function readEnum(ctx: ParseContext, c: Cursor): IrEnum | "anonymous" {
  const clang = ctx.clang;
  const usr = clang.usr(c);
  const named = ctx.names.get(usr);
  const spelling = clang.spelling(c);
  const name = named ?? (/^[A-Za-z_]\w*$/.test(spelling) ? spelling : undefined);
  if (name === undefined) return "anonymous";
  const { size, signed } = enumIsUnsigned(ctx, c);
  const e: IrEnum = { name, aliases: [], size, signed, constants: [], location: ctx.location(c) };
  for (const k of clang.children(c)) {
    if (clang.kind(k) !== CursorKind.EnumConstantDecl) continue;
    const value = clang.enumValue(k, !signed);
    const constant: IrEnum["constants"][number] = { name: clang.spelling(k), value: value.toString() };
    const doc = parseMemberDoc(clang.rawComment(k));
    if (doc) constant.doc = doc;
    const dep = clang.deprecation(k);
    if (dep !== undefined) constant.deprecated = dep;
    e.constants.push(constant);
  }
  const doc = parseMemberDoc(clang.rawComment(c));
  if (doc) e.doc = doc;
  const dep = clang.deprecation(c);
  if (dep !== undefined) e.deprecated = dep;
  return e;
}

function anonymousEnumConstants(ctx: ParseContext, c: Cursor): IrConstant[] {
  const clang = ctx.clang;
  const { size, signed } = enumIsUnsigned(ctx, c);
  const out: IrConstant[] = [];
  for (const k of clang.children(c)) {
    if (clang.kind(k) !== CursorKind.EnumConstantDecl) continue;
    const value = clang.enumValue(k, !signed);
    const constant: IrConstant = {
      name: clang.spelling(k),
      location: ctx.location(k),
      expression: `enum constant`,
      kind: "int",
      value: value.toString(),
      size,
      signed,
    };
    const doc = parseMemberDoc(clang.rawComment(k));
    if (doc) constant.doc = doc;
    out.push(constant);
  }
  return out;
}

function readTypedef(ctx: ParseContext, c: Cursor, name: string): IrTypedef {
  const clang = ctx.clang;
  const u = ctx.convert(clang.typedefUnderlying(c));
  let category: IrTypedef["category"];
  switch (u.kind) {
    case "pointer": {
      const p = resolveTypedefs(u.pointee);
      if (p.kind === "record" && !p.complete) category = "handle";
      else if (p.kind === "function") category = "callback";
      else category = "pointer";
      break;
    }
    case "function":
      category = "callback";
      break;
    case "typedef":
    case "enum":
    case "record":
      category = "alias";
      break;
    case "array":
      category = "array";
      break;
    default:
      category = "scalar";
  }
  const td: IrTypedef = { name, category, target: u, location: ctx.location(c) };
  let raw = clang.rawComment(c);
  if (raw === "") {
    // A trailing `/**< ... */` on the typedef's line is not attached by clang.
    const p = clang.position(c);
    const own = p.file ? macroDoc(ctx.text(p.file), p.line) : undefined;
    if (own !== undefined) raw = `/** ${own} */`;
  }
  const doc = parseMemberDoc(raw);
  if (doc) td.doc = doc;
  const dep = clang.deprecation(c);
  if (dep !== undefined) td.deprecated = dep;
  return td;
}

function ptdsSymbols(input: CollectInput): Map<string, string> {
  const { clang, index, spec } = input;
  const mainFile = `/__cudats__/${input.library}_ptds.c`;
  const { tu } = clang.parse(
    index,
    mainFile,
    clangArgs(input, { CUDA_API_PER_THREAD_DEFAULT_STREAM: "1" }),
    { [mainFile]: includes(spec) + "\n" },
    0,
  );
  try {
    const ctx = new ParseContext(clang, tu, input.includeDirs, input.library, input.owners);
    const out = new Map<string, string>();
    for (const c of clang.children(clang.root(tu))) {
      // Inline definitions (forwarders such as nvJitLinkCreate) export nothing: their symbol is what they call.
      if (clang.kind(c) !== CursorKind.FunctionDecl || clang.isDefinition(c)) continue;
      const loc = ctx.location(c);
      const written = ctx.writtenName(c);
      out.set(`${loc.file}:${loc.line}:${written}`, clang.spelling(c));
    }
    return out;
  } finally {
    clang.disposeTranslationUnit(tu);
  }
}

function evaluateMacros(input: CollectInput, candidates: MacroDef[]): { constants: IrConstant[]; skipped: IrSkip[] } {
  const { clang, index, spec } = input;
  const mainFile = `/__cudats__/${input.library}_macros.c`;
  const src = evaluationSource(includes(spec), candidates.map((m) => m.name));
  const { tu } = clang.parse(index, mainFile, clangArgs(input), { [mainFile]: src }, 0);
  try {
    return readEvaluations(clang, clang.root(tu), candidates);
  } finally {
    clang.disposeTranslationUnit(tu);
  }
}
