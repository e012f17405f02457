/**
 * Which parameters the checked call style returns instead of taking: single values written through a pointer,
 * as the headers' doc comments describe them ("Returned ...", "[out]", "Reference in which to return ..."),
 * with the manifest's overrides.
 */
import type { IrFunction, IrType } from "../ir.ts";
import { resolveTypedefs } from "./context.ts";

const OUTPUT_TEXT =
  /^(Returned|Returns\b|The returned\b|Pointer to (allocated|new|newly|the new|the allocated)\b|Pointer to (the )?(return|store)|Location to (return|store)|Optional location to (return|store)|Reference in which to return|Reference to return|Address of the|Output\b|On return|On output|Pointer in which)/i;
const RETURNED_TEXT = /\b(is|are|will be) (returned|written|stored)\b|^On success, this will contain|^Pointer to (a |an )?\w+( \w+)? in which/i;
const COLLECTION_TEXT = /\b(array|arrays|list|buffer|string)\b/i;

/** What a pointer parameter's pointee is, for deciding whether one value comes back through it. */
export function pointeeKind(t: IrType): "scalar" | "handle" | "pointer" | "cstring" | "record" | "char" | "none" {
  const r = resolveTypedefs(t);
  if (r.kind !== "pointer") return "none";
  if (r.constPointee) return "none";
  const p = resolveTypedefs(r.pointee);
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
      return p.complete && p.recordKind === "struct" ? "record" : "none";
    default:
      return "none";
  }
}

/** Applies the doc-comment rule and the manifest overrides to one function. */
export function detectOutputs(
  fn: IrFunction,
  overrides: { outputs?: string[]; notOutputs?: string[] },
): string[] {
  if (overrides.outputs) return overrides.outputs.filter((n) => fn.params.some((p) => p.name === n));
  const excluded = new Set(overrides.notOutputs ?? []);
  // An in/out element count (numNodes, count) means pointer outputs are arrays the caller sizes.
  const hasInOutCount = fn.params.some(
    (p) => /^num[A-Z_]|[cC]ount$|^num$/.test(p.name) && pointeeKind(p.type) === "scalar",
  );
  const out: string[] = [];
  for (const p of fn.params) {
    if (excluded.has(p.name)) continue;
    const kind = pointeeKind(p.type);
    if (kind === "none" || kind === "char") continue;
    const d = fn.doc?.params.find((q) => q.name === p.name);
    if (!d) continue;
    if (d.direction === "in" || d.direction === "in,out") continue;
    const says = d.direction === "out" || OUTPUT_TEXT.test(d.text) || RETURNED_TEXT.test(d.text);
    if (!says) continue;
    if ((kind === "scalar" || kind === "pointer") && COLLECTION_TEXT.test(d.text)) continue;
    if (hasInOutCount && (kind === "handle" || kind === "pointer" || kind === "record")) continue;
    out.push(p.name);
  }
  return out;
}
