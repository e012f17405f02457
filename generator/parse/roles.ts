/**
 * Each parameter's role in the checked call style, decided from the C types, the parameter names and the headers'
 * doc comments, with the manifest's overrides:
 *
 * - `input`: the caller passes it (by value, a handle, a `const` pointer, a string).
 * - `output`: one value written through a pointer; the checked style returns it.
 * - `array-output`: N elements written through a pointer; the checked style returns them (a typed array, an array of
 *   handles or pointers, an array of records, or a string for `char` buffers), sized by its `count`.
 * - `count`: the element count of one or more arrays, by value (the caller passes it) or through a pointer (an
 *   in/out count: the checked style writes the capacity and reads what the library reports).
 * - `array-input`: N elements the caller passes (checked against the count when the memory is JavaScript's).
 * - `caller-buffer`: memory the caller provides and the library writes or reads (in/out pointers, `void*` buffers,
 *   buffers sized in bytes), checked against its byte size when there is one.
 * - `handle-reference`: a pointer to a handle that the function only reads (`nvrtcDestroyProgram(nvrtcProgram*)`):
 *   the checked style takes the handle.
 *
 * Every role carries the rule (or override) that decided it; report.json lists them per function.
 */
import { type IrDoc, type IrFunction, type IrParamRole, type IrType, resolveTypedefs } from "../ir.ts";

const OUTPUT_TEXT =
  /^(Returned|Returns\b|The returned\b|Pointer to (allocated|new|newly|the new|the allocated)\b|Pointer to (the )?(return|store)|Pointer to return|Location to (return|store)|Optional location to (return|store)|Reference in which to return|Reference to return|Address of the|Output\b|On return|On output|Pointer in which|Buffer where .* returned|Array reference in which to return|Container to return|Pointer to caller-supplied buffer into which)/i;
const RETURNED_TEXT = /\bfor the output\b|\bused to return\b|\bis placed in here\b|\bto return the\b|\b(array|location|pointer|buffer|reference|container) (in which )?to return\b|\b(is|are|will be) (returned|written|stored)\b|^On success, this will contain|^Pointer to (a |an )?\w+( \w+)? in which|\bin which to return\b|\bin which\b[^.]*\breturned\b/i;
const COLLECTION_TEXT = /\b(array|arrays|list|buffer|string)\b/i;
const BYTES_TEXT = /\bbytes?\b|Bytes$|^(p?[bB]uffer[sS]ize|p?[sS]ize|.*[sS]izeBytes|len|length)$/;
/** The name of a byte size passed right after the buffer it sizes. */
const BYTE_SIZE_NAME = /^(size|len|length|count|nbytes|bytes|ByteCount|\w*(Size|_size|Length|Len|Bytes))$/;
const QUERY_TEXT = /\bNULL\b|INSUFFICIENT_SIZE|[Ww]hen zero|to query|PARAMETER_SIZE_NOT_SUFFICIENT/;
/** A `T**` that receives a pointer to an array the library owns (cuStreamGetCaptureInfo's dependencies_out): one pointer. */
const OWNED_ARRAY_TEXT = /\bpointer to (an? )?array\b/i;
/** A value that describes a collection (its size, count or length) is one value, not the collection. */
const MEASURE_TEXT = /\b(size|length|count|number of (elements|entries|items)) of (the|an?) (array|buffer|list|string)\b/i;
/** The function's description names what it returns: "Returns in `*major` and `*minor`", "returns it in `pTexObject`". */
const DESCRIBED_OUTPUTS = /\b[Rr]eturns?(?: it)? in ((?:`\*?\w+`(?:\s*,\s*|\s*,?\s*and\s+|\s+or\s+)?)+)/g;

/** The parameters a function's description says it returns values in ("Returns in `*desc`, `*extent` and `*flags`"). */
export function describedOutputs(doc: IrDoc | undefined): Set<string> {
  const names = new Set<string>();
  if (!doc) return names;
  const text = [doc.summary, doc.deprecated ?? "", ...doc.notes].join("\n");
  for (const m of text.matchAll(DESCRIBED_OUTPUTS)) for (const n of m[1]!.matchAll(/`\*?(\w+)`/g)) names.add(n[1]!);
  return names;
}

/** What a pointer parameter points to. */
export type PointeeKind = "scalar" | "handle" | "pointer" | "cstring" | "record" | "char" | "void" | "none";

/** What a pointer parameter's pointee is (`none` for non-pointers and `const` pointees). */
export function pointeeKind(t: IrType): PointeeKind {
  const r = resolveTypedefs(t);
  if (r.kind !== "pointer") return "none";
  if (r.constPointee) return "none";
  return pointeeOf(r.pointee);
}

function pointeeOf(pointee: IrType): PointeeKind {
  const p = resolveTypedefs(pointee);
  switch (p.kind) {
    case "int":
      return p.size === 1 ? "char" : "scalar";
    case "float":
    case "bool":
    case "enum":
      return "scalar";
    case "pointer": {
      const pp = resolveTypedefs(p.pointee);
      if (pp.kind === "record" && !pp.complete) return "handle";
      if (pp.kind === "int" && pp.size === 1) return "cstring";
      return "pointer";
    }
    case "record":
      return p.complete ? "record" : "none";
    case "void":
      return "void";
    default:
      return "none";
  }
}

/** `T*` where T is a typedef of `void*` (cuFile's CUfileHandle_t): a pointer to an opaque handle. */
function opaqueHandlePointer(t: IrType): boolean {
  const r = resolveTypedefs(t);
  if (r.kind !== "pointer" || r.pointee.kind !== "typedef") return false;
  const p = resolveTypedefs(r.pointee);
  return p.kind === "pointer" && resolveTypedefs(p.pointee).kind === "void";
}

/** A plain integer type: a C integer or one of the standard typedefs (size_t, uint32_t), not a CUdevice. */
function plainInteger(t: IrType): boolean {
  if (t.kind === "typedef") return /^(u?int\d+_t|size_t|ssize_t|cuuint\d+_t)$/.test(t.name) && plainInteger(t.target);
  return t.kind === "int" && t.size > 1;
}

const COUNTISH = /^(p?[nN]um|nb|n[A-Z]|.*[cC]ount(_out)?$|.*[sS]ize$|.*[sS]izeBytes$|.*[lL]en(gth)?$|.*Entries$|.*Capacity$)/;

/** A count-like integer parameter: by value (`size_t n`) or through a non-const pointer (`size_t* n`). */
function integerParam(t: IrType): "value" | "pointer" | undefined {
  if (plainInteger(t)) return "value";
  const r = t.kind === "pointer" ? t : resolveTypedefs(t);
  if (r.kind === "pointer" && !r.constPointee && plainInteger(r.pointee)) return "pointer";
  return undefined;
}

/** What a reviewed rule or override makes a pointer parameter. */
export type PointerRole = "output" | "caller-buffer" | "input";

/** A reviewed rule of the manifest (`pointerRules`), its regular expressions compiled (anchored). */
export interface PointerRule {
  readonly rule: string;
  readonly functions: RegExp;
  readonly parameters?: RegExp;
  readonly type?: RegExp;
  readonly role: PointerRole;
}

/** The manifest's text of a rule (headers-manifest.json `pointerRules`). */
export interface PointerRuleSpec {
  readonly rule: string;
  readonly functions: string;
  readonly parameters?: string | undefined;
  readonly type?: string | undefined;
  readonly role: PointerRole;
}

/** Each library's reviewed pointer rules, compiled once. */
const compiledRules = new WeakMap<object, PointerRule[]>();

/** A library's pointer rules (its manifest entry's `pointerRules`), each regular expression anchored and compiled. */
export function pointerRulesOf(spec: { readonly pointerRules: readonly PointerRuleSpec[] }): PointerRule[] {
  let rules = compiledRules.get(spec);
  if (rules === undefined) {
    const anchored = (s: string): RegExp => new RegExp(`^(?:${s})$`);
    rules = spec.pointerRules.map((r) => ({
      rule: r.rule,
      functions: anchored(r.functions),
      ...(r.parameters === undefined ? {} : { parameters: anchored(r.parameters) }),
      ...(r.type === undefined ? {} : { type: anchored(r.type) }),
      role: r.role,
    }));
    compiledRules.set(spec, rules);
  }
  return rules;
}

/** The rule text of a pointer parameter nothing decided (a library with `decidePointers` fails on it). */
export const UNDECIDED_POINTER = "undecided: no documentation, reviewed rule or override says what this pointer is";

/** Overrides from the manifest for one function. */
export interface RoleOverrides {
  /** Reviewed rules for undocumented pointers, in order (the first that matches decides). */
  pointerRules?: readonly PointerRule[];
  /** Per-parameter overrides of this function: parameter → role. */
  pointerRoles?: Readonly<Record<string, PointerRole>>;
  /** No guess for an undocumented pointer: one that no rule decides is marked {@link UNDECIDED_POINTER}. */
  decidePointers?: boolean;
  /** Parameters that are single outputs, and only these. */
  outputs?: string[];
  /** Parameters that are not outputs. */
  notOutputs?: string[];
  /** Fixed-length output arrays: parameter → element count (`float pBorderColor[4]` written as `float*`). */
  fixedArrays?: Record<string, number>;
  /** Buffers sized by a parameter the names and documentation do not tie to them: buffer → its count. */
  counts?: Record<string, string>;
}

/** The doc entry of each parameter: by name, or by position when the header names them differently. */
export function paramDocs(fn: IrFunction): (IrDoc["params"][number] | undefined)[] {
  const docs = fn.doc?.params ?? [];
  const names = new Set(fn.params.map((p) => p.name));
  return fn.params.map((p, i) => {
    const byName = docs.find((d) => d.name === p.name);
    if (byName) return byName;
    // Position: the doc lists every parameter in order and the one at this place names no parameter.
    const at = docs[i];
    if (at && docs.length === fn.params.length && !names.has(at.name)) return at;
    return undefined;
  });
}

function baseName(name: string): string {
  return name.replace(/^p(?=[A-Z])/, "").replace(/_?[oO]ut$/, "");
}

function cap(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** Whether `count` names the element count of `array` (numNodes/nodes, pNumRootNodes/pRootNodes, infoCount/infos). */
function namesCountOf(count: string, array: string): boolean {
  const a = baseName(array);
  const c = baseName(count);
  const forms = new Set<string>();
  for (const b of [a, a.replace(/s$/, ""), a.replace(/ies$/, "y")]) {
    forms.add(`num${cap(b)}`);
    forms.add(`nb${cap(b)}`);
    forms.add(`n${cap(b)}`);
    forms.add(`${b}Count`);
    forms.add(`${b}sCount`);
  }
  for (const f of [...forms]) forms.add(f.replace(/s$/, ""));
  return forms.has(c) || forms.has(c.replace(/s$/, ""));
}

function mentions(text: string | undefined, name: string): boolean {
  if (!text) return false;
  return new RegExp(`(^|[^\\w])${name}([^\\w]|$)`).test(text);
}

/** Decides the role of every parameter of one function. */
export function decideRoles(fn: IrFunction, overrides: RoleOverrides, returnsStatus: boolean): IrParamRole[] {
  const docs = paramDocs(fn);
  const n = fn.params.length;
  const roles: (IrParamRole | undefined)[] = new Array(n).fill(undefined);
  const excluded = new Set(overrides.notOutputs ?? []);
  const forced = overrides.outputs ? new Set(overrides.outputs) : undefined;
  const says = (i: number): boolean => {
    const d = docs[i];
    if (!d) return false;
    if (d.direction === "in" || d.direction === "in,out") return false;
    return d.direction === "out" || OUTPUT_TEXT.test(d.text) || RETURNED_TEXT.test(d.text);
  };
  const allText = [fn.doc?.summary ?? "", fn.doc?.returns ?? "", ...(fn.doc?.notes ?? [])].join("\n");
  const described = describedOutputs(fn.doc);
  /** A `T**` documented as receiving a pointer to an array the library owns: one pointer, never an array of them. */
  const ownedArray = (i: number): boolean => pointeeKind(fn.params[i]!.type) === "pointer" && OWNED_ARRAY_TEXT.test(docs[i]?.text ?? "");

  // Per-function overrides from the manifest: reviewed, they win over the documentation and every rule below.
  for (const [name, role] of Object.entries(overrides.pointerRoles ?? {})) {
    const i = fn.params.findIndex((p) => p.name === name);
    if (i >= 0) roles[i] = { role, rule: `manifest pointerRoles override (${role})` };
  }

  // Handle references: a destroy function that takes a pointer to the handle it destroys.
  if (!roles[0] && /(Destroy|Delete)\w*$/.test(fn.name) && n >= 1 && pointeeKind(fn.params[0]!.type) === "handle" && !says(0) && !forced?.has(fn.params[0]!.name)) {
    roles[0] = { role: "handle-reference", rule: "destroy function taking a pointer to the handle it destroys" };
  }

  // Counts and the arrays they size.
  const countOf = new Map<number, number>(); // array index → count index
  // A pointer the description says the function returns a value in ("Returns in `*size` the size of symbol") is
  // that value, not the count of an array.
  const isCountCandidate = (j: number): boolean =>
    overrides.pointerRoles?.[fn.params[j]!.name] === undefined && integerParam(fn.params[j]!.type) !== undefined && COUNTISH.test(fn.params[j]!.name) && !(integerParam(fn.params[j]!.type) === "pointer" && described.has(fn.params[j]!.name));
  for (let i = 0; i < n; i++) {
    if (roles[i]) continue;
    const p = fn.params[i]!;
    const r = resolveTypedefs(p.type);
    if (r.kind !== "pointer") continue;
    if (forced?.has(p.name)) continue;
    if (overrides.fixedArrays?.[p.name] !== undefined) continue;
    const kind = pointeeOf(r.pointee);
    if (kind === "none") continue;
    if (ownedArray(i)) continue;
    let found: { j: number; rule: string } | undefined;
    const named = overrides.counts?.[p.name];
    if (named !== undefined) {
      const j = fn.params.findIndex((q) => q.name === named);
      if (j >= 0 && j !== i && integerParam(fn.params[j]!.type) !== undefined) found = { j, rule: `manifest counts: ${named} sizes ${p.name}` };
    }
    for (let j = 0; j < n && !found; j++) {
      if (j === i || !isCountCandidate(j)) continue;
      if (namesCountOf(fn.params[j]!.name, p.name)) found = { j, rule: `count named after the array (${fn.params[j]!.name} → ${p.name})` };
    }
    for (let j = 0; j < n && !found; j++) {
      if (j === i || !isCountCandidate(j)) continue;
      const cd = docs[j]?.text;
      if (mentions(cd, p.name) && /\b(size|number of (elements|entries|items)|entries|elements|length|filled with)\b/i.test(cd ?? "")) {
        found = { j, rule: `the count's documentation names the array (${fn.params[j]!.name} → ${p.name})` };
      }
    }
    for (let j = 0; j < n && !found; j++) {
      if (j === i || !isCountCandidate(j)) continue;
      if (mentions(docs[i]?.text, fn.params[j]!.name) && /\b(array|buffer|list)\b/i.test(docs[i]?.text ?? "")) {
        found = { j, rule: `the array's documentation names its count (${p.name} → ${fn.params[j]!.name})` };
      }
    }
    if (!found && !r.constPointee && says(i) && kind !== "void") {
      // One count-named integer left in the function sizes an output whose documentation speaks of several.
      const generic = [...Array(n).keys()].filter(
        (j) => j !== i && isCountCandidate(j) && /^(p?[cC]ount|.*Count|p?[nN]um[A-Z]\w*|nb[A-Z]\w*)$/.test(fn.params[j]!.name) && ![...countOf.values()].includes(j),
      );
      if (generic.length === 1 && /\beach\b|\barray of\b|\blist\b|\bbuffer\b/i.test(docs[i]?.text ?? "")) {
        found = { j: generic[0]!, rule: `the only count-named parameter (${fn.params[generic[0]!]!.name}) sizes an output documented as several` };
      }
    }
    if (found) countOf.set(i, found.j), (roles[i] = { role: "input", rule: found.rule });
  }

  // Record or handle outputs beside arrays of one in/out count share it (cuGraphNodeGetDependencies' edgeData), and a
  // function's only in/out count sizes every record or handle output (cuGraphGetEdges' from, to and edgeData).
  const pointerCounts = [...Array(n).keys()].filter((j) => isCountCandidate(j) && integerParam(fn.params[j]!.type) === "pointer");
  if (pointerCounts.length === 1) {
    const j = pointerCounts[0]!;
    // A count whose documentation names what it counts ("the size of the array returned in dependencies_out") sizes
    // that, not every record or handle output beside it (cuStreamGetCaptureInfo's graph_out).
    const named = fn.params.map((_, k) => k).filter((k) => k !== j && mentions(docs[j]?.text, fn.params[k]!.name));
    for (let i = 0; i < n; i++) {
      if (roles[i] || countOf.has(i) || j === i) continue;
      if (named.some((k) => k !== i && !countOf.has(k))) continue;
      const k = pointeeKind(fn.params[i]!.type);
      if ((k === "record" || k === "handle") && says(i) && !forced?.has(fn.params[i]!.name)) {
        const paired = [...countOf.values()].includes(j);
        countOf.set(i, j);
        roles[i] = { role: "input", rule: paired ? `an output beside arrays sized by ${fn.params[j]!.name}` : `the function's only in/out count (${fn.params[j]!.name})` };
      }
    }
  }

  // Turn each pairing into roles.
  const countArrays = new Map<number, number[]>();
  for (const [i, j] of countOf) countArrays.set(j, [...(countArrays.get(j) ?? []), i]);
  for (const [j, arrays] of countArrays) {
    const c = fn.params[j]!;
    const cKind = integerParam(c.type)!;
    const cDoc = docs[j];
    const pairRule = (i: number): string => roles[i]!.rule;
    const outputs = arrays.filter((i) => {
      const p = fn.params[i]!;
      const r = resolveTypedefs(p.type) as { kind: "pointer"; constPointee: boolean; pointee: IrType };
      return !r.constPointee && !excluded.has(p.name) && (says(i) || forced?.has(p.name)) && pointeeOf(r.pointee) !== "void";
    });
    const voidArrays = arrays.every((i) => pointeeOf((resolveTypedefs(fn.params[i]!.type) as { pointee: IrType }).pointee) === "void");
    const elementsText = /\bnumber of\b|\belements\b|\bentries\b|size of the `?\w+`? array\b|`?\w+`? array size\b/i.test(cDoc?.text ?? "");
    const bytes = voidArrays || BYTES_TEXT.test(c.name) || /\bin bytes\b|\bbytes\b/i.test(cDoc?.text ?? "") || (/[sS]ize$/.test(c.name) && !elementsText);
    const chars = arrays.length === 1 && pointeeOf((resolveTypedefs(fn.params[arrays[0]!]!.type) as { pointee: IrType }).pointee) === "char";
    if (chars && cKind === "value" && returnsStatus && outputs.length === 1) {
      const i = arrays[0]!;
      roles[i] = { role: "array-output", count: c.name, rule: `${pairRule(i)}; a char buffer: returned as a string` };
      roles[j] = { role: "count", arrays: [fn.params[i]!.name], pointer: false, query: false, capacity: true, unit: "bytes", rule: "length of a string buffer, passed by value" };
      continue;
    }
    if (bytes) {
      for (const i of arrays) roles[i] = { role: "caller-buffer", size: c.name, unit: "bytes", rule: `${pairRule(i)}; the count is in bytes` };
      roles[j] = cKind === "pointer"
        ? { role: "count", arrays: arrays.map((i) => fn.params[i]!.name), pointer: true, query: false, capacity: true, unit: "bytes", rule: "in/out byte size of a caller buffer: taken as a number, the size the library reports is returned" }
        : { role: "count", arrays: arrays.map((i) => fn.params[i]!.name), pointer: false, query: false, capacity: true, unit: "bytes", rule: "byte size of a caller buffer" };
      continue;
    }
    const query = cKind === "pointer" && QUERY_TEXT.test([allText, cDoc?.text ?? "", ...arrays.map((i) => docs[i]?.text ?? "")].join("\n"));
    const capacity = cKind === "value" || (cDoc?.direction !== "out" && !/^(Returns?\b|The (count|number) of returned)/i.test(cDoc?.text ?? ""));
    const sizable = returnsStatus && (cKind === "value" || query || capacity);
    for (const i of arrays) {
      const p = fn.params[i]!;
      const r = resolveTypedefs(p.type) as { kind: "pointer"; constPointee: boolean; pointee: IrType };
      const kind = pointeeOf(r.pointee);
      if (outputs.includes(i) && sizable && kind !== "none") {
        roles[i] = { role: "array-output", count: c.name, rule: pairRule(i) };
      } else if (r.constPointee || !outputs.includes(i)) {
        roles[i] = { role: "array-input", count: c.name, rule: `${pairRule(i)}; the caller passes the elements` };
      } else {
        roles[i] = { role: "caller-buffer", size: c.name, unit: "elements", rule: `${pairRule(i)}; no way to size it here (the function does not return a status, or cannot be queried)` };
      }
    }
    const arrayNames = arrays.map((i) => fn.params[i]!.name);
    const hasOutputArray = arrays.some((i) => roles[i]!.role === "array-output");
    if (cKind === "value") {
      roles[j] = { role: "count", arrays: arrayNames, pointer: false, query: false, capacity: true, unit: "elements", rule: "element count passed by value" };
    } else if (hasOutputArray) {
      roles[j] = {
        role: "count",
        arrays: arrayNames,
        pointer: true,
        query,
        capacity,
        unit: "elements",
        rule: query
          ? `in/out element count; the function reports the size needed (${capacity ? "the caller may pass a capacity" : "the query decides the capacity"})`
          : "in/out element count: the caller passes the capacity",
      };
    } else {
      roles[j] = { role: "caller-buffer", rule: "in/out count of arrays the caller provides" };
    }
  }

  // A byte buffer the function reads, followed by its size: `(const void* data, size_t size)`, `(const char*
  // buffer, size_t size)`. The size is tied to the buffer, so the checked style refuses a size past the memory given.
  // The size may already size another buffer (cudaMemcpy's count: dst, by the manifest, and src).
  for (let i = 0; i + 1 < n; i++) {
    const sizeRole = roles[i + 1];
    if (roles[i] || (sizeRole !== undefined && !(sizeRole.role === "count" && !sizeRole.pointer && sizeRole.unit === "bytes"))) continue;
    const r = resolveTypedefs(fn.params[i]!.type);
    if (r.kind !== "pointer" || !r.constPointee) continue;
    const pointee = resolveTypedefs(r.pointee);
    if (pointee.kind !== "void" && !(pointee.kind === "int" && pointee.size === 1)) continue;
    const size = fn.params[i + 1]!;
    if (integerParam(size.type) !== "value" || !BYTE_SIZE_NAME.test(size.name)) continue;
    const rule = `a byte buffer followed by its size (${fn.params[i]!.name}, ${size.name})`;
    roles[i] = { role: "array-input", count: size.name, rule };
    if (sizeRole?.role === "count") sizeRole.arrays.push(fn.params[i]!.name);
    else roles[i + 1] = { role: "count", arrays: [fn.params[i]!.name], pointer: false, query: false, capacity: true, unit: "bytes", rule };
  }

  // Fixed-length output arrays from the manifest.
  for (const [name, length] of Object.entries(overrides.fixedArrays ?? {})) {
    const i = fn.params.findIndex((p) => p.name === name);
    if (i >= 0) roles[i] = { role: "array-output", count: String(length), rule: `manifest fixedArrays: ${length} elements` };
  }

  // Single outputs and the rest.
  for (let i = 0; i < n; i++) {
    if (roles[i]) continue;
    const p = fn.params[i]!;
    const r = resolveTypedefs(p.type);
    if (r.kind !== "pointer" && r.kind !== "array") {
      roles[i] = { role: "input", rule: "passed by value" };
      continue;
    }
    if (r.kind === "array" || r.constPointee) {
      roles[i] = { role: "input", rule: "const pointer" };
      continue;
    }
    const kind = pointeeOf(r.pointee);
    if (kind === "none") {
      roles[i] = { role: "input", rule: "handle or opaque pointer" };
      continue;
    }
    if (kind === "void" && p.type.kind === "typedef") {
      roles[i] = { role: "input", rule: `opaque handle typedef (${p.type.name})` };
      continue;
    }
    if (forced) {
      roles[i] = forced.has(p.name)
        ? { role: "output", rule: "manifest outputs override" }
        : { role: "caller-buffer", rule: "manifest outputs override names other parameters" };
      continue;
    }
    if (excluded.has(p.name)) {
      roles[i] = { role: "caller-buffer", rule: "manifest notOutputs override" };
      continue;
    }
    if (kind === "void") {
      roles[i] = { role: "caller-buffer", rule: "void*: memory the caller provides" };
      continue;
    }
    if (kind === "char") {
      roles[i] = { role: "caller-buffer", rule: "char buffer with no length parameter" };
      continue;
    }
    const d = docs[i];
    if (d?.direction === "in,out" && kind === "record") {
      roles[i] = { role: "output", rule: "documented [in,out] record: returned; the caller may pass one with its inputs set" };
      continue;
    }
    if (d?.direction === "in,out") {
      roles[i] = { role: "caller-buffer", rule: "documented [in,out]" };
      continue;
    }
    if (d?.direction === "in") {
      roles[i] = { role: "caller-buffer", rule: "documented [in]" };
      continue;
    }
    const describedRole: IrParamRole = { role: "output", rule: "the function's description says it returns a value in it" };
    if (!d && described.has(p.name)) {
      roles[i] = describedRole;
      continue;
    }
    if (!d && i === 0 && kind === "pointer" && opaqueHandlePointer(p.type) && /(Register|SetUp|Create|Open|Alloc|Import)/.test(fn.name)) {
      roles[i] = { role: "output", rule: "the handle a creator returns through its first parameter" };
      continue;
    }
    if (!d) {
      // Undocumented: a reviewed rule of the manifest decides, the first that matches.
      const rule = overrides.pointerRules?.find((r) => r.functions.test(fn.name) && (r.parameters?.test(p.name) ?? true) && (r.type?.test(p.type.spelling) ?? true));
      if (rule !== undefined) {
        roles[i] = { role: rule.role, rule: `manifest rule: ${rule.rule}` };
        continue;
      }
      if (overrides.decidePointers) {
        roles[i] = { role: "caller-buffer", rule: UNDECIDED_POINTER };
        continue;
      }
      // Else a guess: a getter's or creator's pointer to one handle, scalar or record is what it returns.
      // Only the first or the last parameter: one in the middle may be an in/out count (cuFileBatchIOGetStatus' nr).
      const edge = i === 0 || i === n - 1;
      if (edge && /(Get|Create|Alloc|Query|Import|Open|Export)/.test(fn.name) && kind !== "pointer" && !fn.params.slice(0, i).some((q, k) => roles[k]?.role === "output")) {
        roles[i] = { role: "output", rule: "undocumented pointer of a getter or creator" };
      } else roles[i] = { role: "caller-buffer", rule: "undocumented pointer" };
      continue;
    }
    if (i === 0 && (kind === "handle" || (kind === "pointer" && opaqueHandlePointer(p.type))) && /(Register|SetUp|Create|Open|Alloc|Import)/.test(fn.name)) {
      roles[i] = { role: "output", rule: "the handle a creator returns through its first parameter" };
      continue;
    }
    const output = says(i);
    // "Pointer to caller-supplied vGPU metadata structure" is an input; "caller-supplied buffer to hold ..." is not.
    const suppliedInput = /caller-supplied/.test(d.text) && !/\b(hold|returns?|returned|written|into which)\b/.test(d.text);
    // A collection word in the text of a value that measures one ("Returned size of the buffer") is not a collection.
    const collection = COLLECTION_TEXT.test(d.text) && !MEASURE_TEXT.test(d.text);
    // "Set" as a word of the name (nvmlDeviceSetMigMode), not inside one (nvmlSystemGetConfComputeSettings).
    const getter = /Get/.test(fn.name) && !/Set(?![a-z])/.test(fn.name) && (kind === "record" || !collection) && !suppliedInput;
    if (!output && !getter) {
      roles[i] = described.has(p.name) ? describedRole : { role: "caller-buffer", rule: "not documented as an output" };
      continue;
    }
    if (ownedArray(i)) {
      roles[i] = { role: "output", rule: "a pointer to an array the library owns: one pointer, returned" };
      continue;
    }
    if ((kind === "scalar" || kind === "pointer") && collection) {
      // "Returned array flags" of cudaArrayGetInfo, whose description says "Returns in `*desc`, `*extent` and `*flags`".
      roles[i] = described.has(p.name) ? describedRole : { role: "caller-buffer", rule: "documented as an array or buffer with no count parameter" };
      continue;
    }
    roles[i] = {
      role: "output",
      rule: d.direction === "out" ? "documented [out]" : output ? "documentation says it is returned" : "pointer to one value of a Get function",
    };
  }
  return roles.map((r) => r!);
}
