/**
 * Structs and unions: exact layout from libclang (size, alignment, each field's offset; bit-fields in bits),
 * anonymous members flattened into their parent (as C lets code reach them), nested anonymous records named
 * Parent_field.
 */
import { type Cursor, CursorKind } from "../libclang/api.ts";
import type { IrField, IrRecord } from "../ir.ts";
import { parseMemberDoc } from "./doc.ts";
import { isRecordDecl, type ParseContext } from "./context.ts";

/** Assigns TypeScript names to the nested records of a record (before any type refers to them). */
export function nameNestedRecords(ctx: ParseContext, record: Cursor, parentName: string): void {
  const c = ctx.clang;
  const kids = c.children(record);
  for (let i = 0; i < kids.length; i++) {
    const k = kids[i]!;
    if (!isRecordDecl(c.kind(k))) continue;
    const usr = c.usr(k);
    let name: string;
    if (!c.isAnonymous(k)) {
      name = c.spelling(k);
    } else if (c.isAnonymousRecordDecl(k)) {
      // An anonymous member: its fields belong to the parent. Its own nested records take the parent's prefix.
      nameNestedRecords(ctx, k, parentName);
      continue;
    } else {
      const field = kids.slice(i + 1).find((f) => c.kind(f) === CursorKind.FieldDecl && c.usr(c.declaration(c.type(f))) === usr);
      name = field ? `${parentName}_${c.spelling(field)}` : `${parentName}_anonymous${i}`;
    }
    ctx.names.set(usr, name);
    nameNestedRecords(ctx, k, name);
  }
}

/**
 * Collects a record definition and (recursively) the records nested in it. Anonymous members are flattened:
 * their fields appear in the parent with offsets relative to the parent.
 */
export function collectRecord(ctx: ParseContext, decl: Cursor, name: string, out: IrRecord[], aliases: string[] = []): void {
  const c = ctx.clang;
  const type = c.type(decl);
  const fields: IrField[] = [];
  const nested: Cursor[] = [];
  const walk = (cursor: Cursor, viaAnonymous: boolean): void => {
    for (const k of c.children(cursor)) {
      const kind = c.kind(k);
      if (isRecordDecl(kind)) {
        if (c.isAnonymousRecordDecl(k)) walk(k, true);
        else nested.push(k);
        continue;
      }
      if (kind !== CursorKind.FieldDecl) continue;
      const fname = c.spelling(k);
      const ft = c.type(k);
      // Offsets of fields reached through anonymous members are asked of the outer record.
      const bits = viaAnonymous ? c.offsetOf(type, fname) : c.fieldOffsetBits(k);
      const irType = ctx.convert(ft);
      const size = Math.max(0, c.sizeOf(ft));
      const align = Math.max(1, c.alignOf(ft));
      const f: IrField = { name: fname, type: irType, offset: Math.floor(bits / 8), size, align };
      if (c.isBitField(k)) {
        f.bitOffset = bits;
        f.bitWidth = c.bitWidth(k);
        // The storage unit's byte offset, aligned down to the declared type's alignment.
        f.offset = Math.floor(bits / 8 / align) * align;
      }
      const doc = parseMemberDoc(c.rawComment(k));
      if (doc) f.doc = doc;
      fields.push(f);
    }
  };
  walk(decl, false);
  const anonymous = c.isAnonymous(decl);
  const rec: IrRecord = {
    name,
    cName: anonymous ? `(anonymous ${c.kind(decl) === CursorKind.UnionDecl ? "union" : "struct"} ${name})` : c.typeSpelling(type),
    aliases,
    recordKind: c.kind(decl) === CursorKind.UnionDecl ? "union" : "struct",
    size: c.sizeOf(type),
    align: c.alignOf(type),
    fields,
    anonymous,
    location: ctx.location(decl),
  };
  const doc = parseMemberDoc(c.rawComment(decl));
  if (doc) rec.doc = doc;
  const dep = c.deprecation(decl);
  if (dep !== undefined) rec.deprecated = dep;
  out.push(rec);
  for (const n of nested) collectRecord(ctx, n, ctx.declName(n), out);
}
