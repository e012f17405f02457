/**
 * Doxygen comments as the CUDA headers write them (`\brief`, `\param x - ...`, `\param [out] x ...`,
 * `@param x ...`, `\return`, `\note`, `\sa`, `\deprecated`, `\p`, `::name`, `\code`) parsed into an IrDoc.
 */
import type { IrDoc } from "../ir.ts";

/** Strips the comment markers of a raw comment, keeping line structure. */
export function stripCommentMarkers(raw: string): string[] {
  let text = raw.trim();
  // Line comments: `///`, `///<`, and the Qt style `//!`, `//!<` (nvml.h documents its fields with `//!<`).
  if (text.startsWith("///") || text.startsWith("//!")) {
    return text.split("\n").map((l) => l.replace(/^\s*\/\/[/!]<?\s?/, ""));
  }
  // Block comments: `/**`, `/**<`, and the Qt style `/*!`, `/*!<`.
  text = text.replace(/^\/\*(?:\*+|!)?<?/, "").replace(/\*+\/$/, "");
  return text.split("\n").map((l) => l.replace(/^\s*\*+(?!\/)\s?/, "").replace(/\s+$/, ""));
}

/** Doxygen's inline markup turned into plain Markdown-ish text. */
export function inlineMarkup(s: string): string {
  return s
    .replace(/\\link\s+#?(\S+)\s+(.*?)\\endlink/g, "$2")
    .replace(/\\ref\s+(?:#|::)?([A-Za-z_][\w:]*)/g, "`$1`")
    .replace(/[\\@](?:p|a|c|e|b|em)\s+(\*?[A-Za-z_](?:[\w[\]]|->|\.(?=\w))*)/g, "`$1`")
    .replace(/(^|[\s(,])::([A-Za-z_]\w*)/g, "$1`$2`")
    .replace(/\\n\b/g, "\n")
    .replace(/\\(?:note_\w+|notefnerr|note_null_stream|note_sync|note_async|note_init_rt|note_callback|note_memcpy_sync|note_memset_sync)\b/g, "")
    .replace(/\\[<>&]/g, (m) => m.slice(1))
    .replace(/\\(?:ingroup|defgroup|addtogroup)\b.*$/gm, "")
    .replace(/\\(?:link_\w+|\w+_behavior)\b/g, "")
    .replace(/[ \t]+$/gm, "");
}

const SECTION = /^[\\@](brief|short|details|param|tparam|return|returns|retval|note|notes|sa|see|deprecated|ingroup|defgroup|addtogroup|code|endcode|warning|remark|remarks|since|pre|post|todo|internal|endinternal|example|bug|file|struct|typedef|enum|fn|var|def|name|{|})\b(\[[^\]]*\])?\s*(.*)$/;

/** Parses a raw doc comment. Returns `undefined` for an empty one. */
export function parseDoc(raw: string): IrDoc | undefined {
  if (raw.trim() === "") return undefined;
  const lines = stripCommentMarkers(raw);
  const doc: IrDoc = { summary: "", params: [], notes: [], see: [] };
  type Target = { kind: "summary" } | { kind: "param"; index: number } | { kind: "returns" } | { kind: "note" } | { kind: "see" } | { kind: "deprecated" } | { kind: "ignore" };
  let target: Target = { kind: "summary" };
  const buffers = { summary: [] as string[], returns: [] as string[], note: [] as string[][], see: [] as string[], deprecated: [] as string[] };
  const params: string[][] = [];
  let inCode = false;
  const push = (line: string): void => {
    switch (target.kind) {
      case "summary":
        buffers.summary.push(line);
        break;
      case "param":
        params[target.index]!.push(line);
        break;
      case "returns":
        buffers.returns.push(line);
        break;
      case "note":
        buffers.note[buffers.note.length - 1]!.push(line);
        break;
      case "see":
        buffers.see.push(line);
        break;
      case "deprecated":
        buffers.deprecated.push(line);
        break;
      case "ignore":
        break;
    }
  };
  for (const rawLine of lines) {
    const line = rawLine.replace(/^\s+/, "");
    if (inCode) {
      if (/^[\\@]endcode\b/.test(line)) {
        inCode = false;
        push("```");
      } else push(rawLine.replace(/^ /, ""));
      continue;
    }
    const m = SECTION.exec(line);
    if (m === null) {
      // "see ::foo" without a backslash (nvrtc) starts a see-also list too.
      const seeLine = /^see\s+(::\w.*)$/i.exec(line);
      if (seeLine) {
        target = { kind: "see" };
        push(seeLine[1]!);
      } else push(line);
      continue;
    }
    const [, tag, , restRaw] = m;
    const rest = restRaw ?? "";
    switch (tag) {
      case "brief":
      case "short":
      case "details":
        target = { kind: "summary" };
        if (tag === "details") buffers.summary.push("");
        push(rest);
        break;
      case "param":
      case "tparam": {
        // "\param [out] name text", "\param name - text", "@param name text", "\param[in,out] name text"
        let dirText = m[2] ?? "";
        let body = rest;
        const dirAfter = /^\[([^\]]*)\]\s*(.*)$/.exec(body);
        if (dirAfter) {
          dirText = `[${dirAfter[1]}]`;
          body = dirAfter[2]!;
        }
        const nm = /^(\w+)\s*(?:-\s*)?(.*)$/.exec(body);
        if (!nm) break;
        const dir = dirText.replace(/[[\]\s]/g, "").toLowerCase();
        const direction = dir === "out" ? "out" : dir === "in" ? "in" : dir === "in,out" || dir === "inout" ? "in,out" : undefined;
        doc.params.push(direction ? { name: nm[1]!, direction, text: "" } : { name: nm[1]!, text: "" });
        params.push([nm[2]!]);
        target = { kind: "param", index: params.length - 1 };
        break;
      }
      case "return":
      case "returns":
      case "retval":
        target = { kind: "returns" };
        push(rest);
        break;
      case "note":
      case "notes":
      case "warning":
      case "remark":
      case "remarks":
        buffers.note.push([]);
        target = { kind: "note" };
        push(rest);
        break;
      case "sa":
      case "see":
        target = { kind: "see" };
        push(rest);
        break;
      case "deprecated":
        target = { kind: "deprecated" };
        push(rest);
        break;
      case "code":
        inCode = true;
        push("```c");
        break;
      case "struct":
      case "typedef":
      case "enum":
      case "fn":
      case "var":
      case "def":
        // A structural command names the declaration on its own line (`\typedef typedef struct X_st* X`); the
        // lines after it are the description.
        target = { kind: "summary" };
        break;
      default:
        target = { kind: "ignore" };
    }
  }
  const para = (ls: string[]): string =>
    inlineMarkup(ls.join("\n"))
      .replace(/\n{3,}/g, "\n\n")
      .trim();
  doc.summary = para(buffers.summary);
  params.forEach((p, i) => (doc.params[i]!.text = para(p).replace(/\s*\n\s*/g, " ")));
  const returns = para(buffers.returns);
  if (returns) doc.returns = returns;
  doc.notes = buffers.note.map(para).filter((n) => n.length > 0);
  // Cross references are API names (`::cuStreamCreate`, `cuMemAlloc()`, `CUstream`); the prose around them
  // ("for details", "and") is not a reference.
  doc.see = [
    ...new Set(
      buffers.see
        .join(" ")
        .split(/[,\s]+/)
        .filter((s) => /^::/.test(s) || /\(\)[.,;]?$/.test(s) || /^[A-Za-z_]\w*[A-Z_0-9]\w*[.,;]?$/.test(s))
        .map((s) => s.replace(/^::/, "").replace(/[.,;]$/, "").replace(/\(\)$/, ""))
        .filter((s) => /^[A-Za-z_][\w:]*$/.test(s)),
    ),
  ];
  const deprecated = para(buffers.deprecated);
  if (buffers.deprecated.length > 0) doc.deprecated = deprecated;
  if (!doc.summary && doc.params.length === 0 && !doc.returns && doc.notes.length === 0 && doc.deprecated === undefined) {
    return undefined;
  }
  return doc;
}

/** The text of a short member comment (`/**< ... *\/`), flattened to one paragraph. */
export function parseMemberDoc(raw: string): string | undefined {
  if (raw.trim() === "") return undefined;
  const d = parseDoc(raw);
  if (!d) return undefined;
  const parts = [d.summary, ...d.notes].filter((s) => s.length > 0);
  const text = parts.join("\n\n").trim();
  return text.length > 0 ? text : undefined;
}
