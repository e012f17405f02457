/**
 * Structs and unions: exact layout from libclang (size, alignment, each field's offset; bit-fields in bits),
 * anonymous members flattened into their parent (as C lets code reach them), nested anonymous records named
 * Parent_field.
 */
import { type Clang, type Cursor, CursorKind, TypeKind } from "../libclang/api.ts";
import type { IrField, IrRecord, IrType } from "../ir.ts";
import { parseMemberDoc } from "./doc.ts";
import { isRecordDecl, type ParseContext } from "./context.ts";

/**
 * The record a field holds, directly or as the element of a (multi-dimensional) array: its USR and the C member
 * access that reaches one instance of it from the field's record (`point`, `items[0]`). Undefined for other fields.
 */
function fieldRecord(c: Clang, field: Cursor): { usr: string; access: string } | undefined {
  let t = c.type(field);
  let access = c.spelling(field);
  for (let i = 0; i < 8; i++) {
    const k = c.typeKind(c.canonical(t));
    if (k !== TypeKind.ConstantArray && k !== TypeKind.IncompleteArray) break;
    t = c.arrayElement(t);
    access += "[0]";
  }
  const decl = c.declaration(t);
  if (c.isNull(decl) || !isRecordDecl(c.kind(decl))) return undefined;
  return { usr: c.usr(decl), access };
}

/**
 * Type spellings of anonymous records name the header by its absolute path (`struct (unnamed struct at
 * /usr/local/cuda/include/cuda.h:629:5)`); the IR and the generated files must not depend on where the headers are,
 * so the path becomes include-relative (`cuda.h:629:5`).
 */
function portableType(ctx: ParseContext, t: IrType): IrType {
  const fix = (s: string): string =>
    s.replace(/\((unnamed|anonymous) (struct|union|enum) at ([^)]*?):(\d+):(\d+)\)/g, (_m, a: string, k: string, file: string, line: string, col: string) =>
      `(${a} ${k} at ${ctx.relative(file) ?? file}:${line}:${col})`);
  switch (t.kind) {
    case "pointer":
      return { ...t, spelling: fix(t.spelling), pointee: portableType(ctx, t.pointee) };
    case "array":
      return { ...t, spelling: fix(t.spelling), element: portableType(ctx, t.element) };
    case "typedef":
      return { ...t, spelling: fix(t.spelling), target: portableType(ctx, t.target) };
    case "function":
      return { ...t, spelling: fix(t.spelling), parameters: t.parameters.map((p) => portableType(ctx, p)), result: portableType(ctx, t.result) };
    default:
      return { ...t, spelling: fix(t.spelling) };
  }
}

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
      const field = kids.slice(i + 1).find((f) => c.kind(f) === CursorKind.FieldDecl && fieldRecord(c, f)?.usr === usr);
      name = field ? `${parentName}_${c.spelling(field)}` : `${parentName}_anonymous${i}`;
    }
    ctx.names.set(usr, name);
    nameNestedRecords(ctx, k, name);
  }
}

/**
 * How C code names a record: its spelling for a named one (`struct CUuuid_st`, or the typedef name of a typedef'd
 * anonymous one), `root` plus a member path for an anonymous nested one.
 */
interface Reach {
  root: string;
  path: string;
}

/**
 * Collects a record definition and (recursively) the records nested in it. Anonymous members are flattened:
 * their fields appear in the parent with offsets relative to the parent.
 *
 * A nested anonymous record (`struct { ... } point;`) has no C name; its cName is a C type expression that reaches
 * it through its outermost named parent: `__typeof__(((struct P *)0)->u.pair)`, `__typeof__(((T *)0)->items[0])`.
 */
export function collectRecord(
  ctx: ParseContext,
  decl: Cursor,
  name: string,
  out: IrRecord[],
  aliases: string[] = [],
  reach?: Reach,
): void {
  const c = ctx.clang;
  const type = c.type(decl);
  const fields: IrField[] = [];
  const nested: Cursor[] = [];
  /** Record USR → the member access reaching it from this record. */
  const accessTo = new Map<string, string>();
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
      const held = fieldRecord(c, k);
      if (held && !accessTo.has(held.usr)) accessTo.set(held.usr, held.access);
      // Offsets of fields reached through anonymous members are asked of the outer record.
      const bits = viaAnonymous ? c.offsetOf(type, fname) : c.fieldOffsetBits(k);
      const irType = portableType(ctx, ctx.convert(ft));
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
  const self: Reach | undefined = anonymous ? reach : { root: c.typeSpelling(type), path: "" };
  const rec: IrRecord = {
    name,
    cName: !anonymous
      ? self!.root
      : self !== undefined && self.path !== ""
        ? `__typeof__(((${self.root} *)0)->${self.path})`
        : `(anonymous ${c.kind(decl) === CursorKind.UnionDecl ? "union" : "struct"} ${name})`,
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
  for (const n of nested) {
    const access = accessTo.get(c.usr(n));
    const sub = self !== undefined && access !== undefined ? { root: self.root, path: self.path ? `${self.path}.${access}` : access } : undefined;
    collectRecord(ctx, n, ctx.declName(n), out, [], sub);
  }
}
