/**
 * The layout oracle: the C compiler of this machine says what every generated record looks like, and the
 * generated classes must agree field by field.
 *
 * For every record class of every generated library whose headers are here (generated/cuda-X.Y/<library> against
 * /usr/local/cuda/include, generated/nccl-X.Y/nccl against .cache/nccl-X.Y, each with the manifest's sha256) and of
 * the fixture libraries, a C program prints:
 * - `sizeof` and `_Alignof` of the record (nested anonymous records are named by their `$cName`, a C type
 *   expression `__typeof__(((struct P *)0)->member)`);
 * - for each field: `offsetof`, `sizeof` of the member and its scalar kind (signed / unsigned integer, floating,
 *   _Bool, or other) through `_Generic`;
 * - for each bit-field: the record's bytes after `v.field = -1` on a zeroed record, and the value read back.
 * The test compares these with `$size`, `$align`, `$fields` (offset, size, bitOffset/bitWidth) and with the
 * generated accessors, which it drives on zeroed records: setting -1 (or 0.5, or a pointer) through the accessor
 * must touch exactly the field's bytes (bits), with the width and signedness C gives the member, and read back.
 *
 * Only this test compiles C (with `cc`, or $CC); without a compiler it is skipped with a message.
 *
 * ORACLE_GENERATED=DIR checks DIR/cuda-X.Y instead of the repository's generated/ (for a fresh generation before
 * committing it: DIR must sit beside a `src` link to the repository's src/, as generated/ does), and
 * ORACLE_INCLUDE=DIR compiles against DIR only. Without it, each library is checked against the first of
 * .cache/ctk/X.Y/include (a complete toolkit's headers, git-ignored: they check nvrtc, nvJitLink, NVML, cuFile and
 * nvFatbin too) and /usr/local/cuda/include that holds its headers; a library neither holds is skipped, and the run's
 * skip summary names it with the reason for each directory.
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ffi } from "../../src/ffi/index.ts";
import { RecordArray, RecordBase, PointerArray, type FieldInfo } from "../../src/tables-runtime/record.ts";
import {
  compileAndRun,
  CUDA_INCLUDE,
  findCc,
  fixtureArgs,
  fixtureInclude,
  headersUnavailable,
  makeImportableOut,
  type ManifestLike,
  readJson,
  removeDir,
  REPO_GENERATED,
  REPO_MANIFEST,
  ROOT,
  runGeneratorOk,
  FIXTURE_MANIFEST,
  libraryHeaders,
} from "./helpers.ts";

/** A generated record class, as the oracle sees it. */
interface RecordClassLike {
  new (): RecordBase;
  readonly name: string;
  readonly $cName: string;
  readonly $size: number;
  readonly $align: number;
  readonly $fields: readonly FieldInfo[];
}

/** The record classes a records module exports (aliases point to the same class and are counted once). */
function recordClasses(mod: Record<string, unknown>): RecordClassLike[] {
  const seen = new Set<unknown>();
  const out: RecordClassLike[] = [];
  for (const v of Object.values(mod)) {
    if (typeof v !== "function" || seen.has(v)) continue;
    const c = v as unknown as RecordClassLike;
    if (!(c.prototype instanceof RecordBase) || typeof c.$cName !== "string") continue;
    seen.add(v);
    out.push(c);
  }
  return out;
}

/** What C says about one record. */
interface CRecord {
  size: number;
  align: number;
  fields: Map<number, { offset: number; size: number; kind: string }>;
  bits: Map<number, { readBack: bigint; bytes: string }>;
}

const KINDS = `#define CUDATS_KIND(x) _Generic((x), _Bool: 'b', char: 'i', signed char: 'i', unsigned char: 'u', \\
  short: 'i', unsigned short: 'u', int: 'i', unsigned int: 'u', long: 'i', unsigned long: 'u', long long: 'i', \\
  unsigned long long: 'u', float: 'f', double: 'f', default: 'o')`;

/** The C program that describes `classes`. */
function oracleSource(includes: string[], classes: RecordClassLike[]): string {
  const lines = [
    "#include <stdio.h>",
    "#include <stddef.h>",
    "#include <string.h>",
    ...includes.map((h) => `#include "${h}"`),
    KINDS,
    "static void cudats_bytes(const void *p, size_t n) {",
    "  const unsigned char *b = (const unsigned char *)p;",
    '  for (size_t i = 0; i < n; i++) printf("%02x", b[i]);',
    "}",
    "int main(void) {",
  ];
  classes.forEach((cls, i) => {
    const t = cls.$cName;
    lines.push(`  printf("R ${i} %zu %zu\\n", sizeof(${t}), _Alignof(${t}));`);
    cls.$fields.forEach((f, j) => {
      if (f.name === "") return;
      if (f.bitWidth === undefined) {
        lines.push(
          `  printf("F ${i} ${j} %zu %zu %c\\n", offsetof(${t}, ${f.name}), sizeof(((${t} *)0)->${f.name}), CUDATS_KIND(((${t} *)0)->${f.name}));`,
        );
      } else {
        lines.push(
          `  { ${t} v; memset(&v, 0, sizeof v); v.${f.name} = -1; printf("B ${i} ${j} %llu ", (unsigned long long)v.${f.name}); cudats_bytes(&v, sizeof v); printf("\\n"); }`,
        );
      }
    });
  });
  lines.push("  return 0;", "}", "");
  return lines.join("\n");
}

function parseOracle(out: string, count: number): CRecord[] {
  const recs: CRecord[] = Array.from({ length: count }, () => ({ size: -1, align: -1, fields: new Map(), bits: new Map() }));
  for (const line of out.split("\n")) {
    const p = line.split(" ");
    if (p[0] === "R") recs[Number(p[1])] = { ...recs[Number(p[1])]!, size: Number(p[2]), align: Number(p[3]) };
    else if (p[0] === "F") recs[Number(p[1])]!.fields.set(Number(p[2]), { offset: Number(p[3]), size: Number(p[4]), kind: p[5]! });
    else if (p[0] === "B") recs[Number(p[1])]!.bits.set(Number(p[2]), { readBack: BigInt(p[3]!), bytes: p[4]! });
  }
  return recs;
}

const hex = (b: Uint8Array): string => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");

/** The bytes of a `size`-byte record with bits [bitOffset, bitOffset + bitWidth) set. */
function bitMask(size: number, bitOffset: number, bitWidth: number): string {
  const b = new Uint8Array(size);
  for (let i = bitOffset; i < bitOffset + bitWidth; i++) b[i >> 3]! |= 1 << (i & 7);
  return hex(b);
}

type Accessible = Record<string, unknown>;
/** A user-space-like address (exact as a double on Bun) and its little-endian bytes. */
const ADDRESS = 0x7f0102030408n;
const ADDRESS_HEX = "08040302017f0000";
const prop = (name: string): string => (name === "constructor" ? "constructor_" : name);
const toU64 = (v: unknown): bigint => BigInt.asUintN(64, BigInt(typeof v === "boolean" ? (v ? 1 : 0) : (v as number | bigint)));

/**
 * Drives one non-bit-field accessor on zeroed records. Returns the problems found and the kind the accessor
 * behaves as ('i', 'u', 'f', 'b', or 'o' for everything that is not a scalar).
 */
function probeField(cls: RecordClassLike, f: FieldInfo): { kind: string; problems: string[] } {
  const problems: string[] = [];
  const r = new cls();
  const base = r.$view.byteOffset;
  const acc = r as unknown as Accessible;
  const name = prop(f.name);
  const v0 = acc[name];
  const bytes = (): Uint8Array => r.$bytes();
  /** Bytes that changed must all be inside the field, and `want` (hex) there when given. */
  const placed = (what: string, want?: string): void => {
    const b = bytes();
    for (let i = 0; i < b.length; i++) {
      if (b[i] !== 0 && (i < f.offset || i >= f.offset + f.size)) {
        problems.push(`${what}: byte ${i} changed, outside the field's bytes ${f.offset}..${f.offset + f.size - 1}`);
        break;
      }
    }
    if (want !== undefined) {
      const got = hex(b.subarray(f.offset, f.offset + f.size));
      if (got !== want) problems.push(`${what}: field bytes ${got}, expected ${want}`);
    }
    b.fill(0);
  };
  if (!(name in r)) {
    problems.push("no accessor");
    return { kind: "none", problems };
  }
  if (typeof v0 === "boolean") {
    acc[name] = true;
    if (acc[name] !== true) problems.push("set true, read back false");
    placed("set true", "01" + "00".repeat(f.size - 1));
    return { kind: "b", problems };
  }
  if (typeof v0 === "bigint") {
    acc[name] = -1n;
    const back = acc[name] as bigint;
    const kind = back === -1n ? "i" : "u";
    if (kind === "u" && back !== 2n ** BigInt(f.size * 8) - 1n) problems.push(`set -1n, read back ${back}`);
    placed("set -1n", "ff".repeat(f.size));
    acc[name] = ADDRESS;
    if (acc[name] !== ADDRESS) problems.push("64-bit round trip failed");
    placed("set ADDRESS", f.size === 8 ? ADDRESS_HEX : undefined);
    return { kind, problems };
  }
  if (typeof v0 === "number") {
    acc[name] = 0.5;
    if (acc[name] === 0.5) {
      const dv = new DataView(new ArrayBuffer(f.size));
      if (f.size === 4) dv.setFloat32(0, 0.5, true);
      else if (f.size === 8) dv.setFloat64(0, 0.5, true);
      placed("set 0.5", hex(new Uint8Array(dv.buffer)));
      acc[name] = -1.25;
      if (acc[name] !== -1.25) problems.push("float round trip failed");
      placed("set -1.25");
      return { kind: "f", problems };
    }
    bytes().fill(0);
    acc[name] = -1;
    const back = acc[name] as number;
    const kind = back === -1 ? "i" : "u";
    if (kind === "u" && back !== 2 ** (f.size * 8) - 1) problems.push(`set -1, read back ${back}`);
    placed("set -1", "ff".repeat(f.size));
    acc[name] = 7;
    if (acc[name] !== 7) problems.push(`set 7, read back ${String(acc[name])}`);
    placed("set 7", "07" + "00".repeat(f.size - 1));
    return { kind, problems };
  }
  if (v0 === null) {
    // A pointer, handle or function pointer: round-trip an address.
    if (f.size !== 8) problems.push(`a pointer accessor on a ${f.size}-byte field`);
    acc[name] = ffi.pointerFromAddress(ADDRESS);
    const back = acc[name] as Parameters<typeof ffi.bigAddressOf>[0];
    if (ffi.bigAddressOf(back) !== ADDRESS) problems.push("pointer round trip failed");
    placed("set a pointer", ADDRESS_HEX);
    acc[name] = null;
    if (acc[name] !== null) problems.push("set null, read back non-null");
    return { kind: "o", problems };
  }
  if (v0 instanceof RecordBase) {
    if (v0.$view.byteOffset - base !== f.offset || v0.$view.byteLength !== f.size) {
      problems.push(`nested record view at ${v0.$view.byteOffset - base} (+${v0.$view.byteLength}), field is at ${f.offset} (+${f.size})`);
    }
    return { kind: "o", problems };
  }
  if (ArrayBuffer.isView(v0)) {
    if (v0.byteOffset - base !== f.offset || v0.byteLength !== f.size) {
      problems.push(`array view at ${v0.byteOffset - base} (+${v0.byteLength}), field is at ${f.offset} (+${f.size})`);
    }
    (v0 as unknown as { fill(v: number | bigint): void }).fill(v0 instanceof BigInt64Array || v0 instanceof BigUint64Array ? 1n : 1);
    placed("fill the array with 1");
    return { kind: "o", problems };
  }
  if (v0 instanceof RecordArray) {
    const first = v0.at(0);
    const per = first.$view.byteLength;
    if (first.$view.byteOffset - base !== f.offset || per * v0.length !== f.size) {
      problems.push(`record array at ${first.$view.byteOffset - base}, ${v0.length} × ${per} bytes; field is at ${f.offset} (+${f.size})`);
    }
    return { kind: "o", problems };
  }
  if (v0 instanceof PointerArray) {
    if (v0.length * 8 !== f.size) problems.push(`pointer array of ${v0.length}, field has ${f.size} bytes`);
    v0.set(v0.length - 1, ffi.pointerFromAddress(ADDRESS));
    const b = bytes();
    if (hex(b.subarray(f.offset + f.size - 8, f.offset + f.size)) !== ADDRESS_HEX) problems.push("last pointer not at the field's end");
    if (ffi.bigAddressOf(v0.get(v0.length - 1)) !== ADDRESS) problems.push("pointer array round trip failed");
    placed("set the last pointer");
    return { kind: "o", problems };
  }
  problems.push(`unexpected accessor value ${String(v0)}`);
  return { kind: "?", problems };
}

/** Compares the generated classes with what C says; returns every disagreement. */
function compare(classes: RecordClassLike[], c: CRecord[]): { problems: string[]; fields: number; bitFields: number; noAccessor: string[] } {
  const problems: string[] = [];
  const noAccessor: string[] = [];
  let fields = 0;
  let bitFields = 0;
  classes.forEach((cls, i) => {
    const cr = c[i]!;
    const where = `${cls.name} (${cls.$cName})`;
    if (cr.size !== cls.$size) problems.push(`${where}: $size ${cls.$size}, C sizeof ${cr.size}`);
    if (cr.align !== cls.$align) problems.push(`${where}: $align ${cls.$align}, C _Alignof ${cr.align}`);
    cls.$fields.forEach((f, j) => {
      const at = `${where}.${f.name}`;
      if (f.name === "") {
        problems.push(`${at}: a field without a name (anonymous members must be flattened)`);
        return;
      }
      if (f.bitWidth === undefined) {
        fields++;
        const cf = cr.fields.get(j);
        if (!cf) {
          problems.push(`${at}: C printed nothing`);
          return;
        }
        if (cf.offset !== f.offset) problems.push(`${at}: offset ${f.offset}, C offsetof ${cf.offset}`);
        if (cf.size !== f.size) problems.push(`${at}: size ${f.size}, C sizeof ${cf.size}`);
        const probe = probeField(cls, f);
        if (probe.kind === "none") {
          noAccessor.push(at);
          return;
        }
        for (const p of probe.problems) problems.push(`${at}: accessor: ${p}`);
        if (probe.kind !== cf.kind) problems.push(`${at}: the accessor behaves as '${probe.kind}', C's member is '${cf.kind}' (i/u: signed/unsigned integer, f: floating, b: _Bool, o: other)`);
      } else {
        bitFields++;
        const cb = cr.bits.get(j);
        if (!cb) {
          problems.push(`${at}: C printed nothing`);
          return;
        }
        const want = bitMask(cls.$size, f.bitOffset!, f.bitWidth);
        if (cb.bytes !== want) problems.push(`${at}: bits ${f.bitOffset}+${f.bitWidth} give ${want}, C sets ${cb.bytes}`);
        // The storage unit the metadata names must hold the bits.
        if (f.offset * 8 > f.bitOffset! || f.bitOffset! + f.bitWidth > (f.offset + f.size) * 8) {
          problems.push(`${at}: bits ${f.bitOffset}+${f.bitWidth} are not inside the storage unit at ${f.offset} (+${f.size})`);
        }
        const r = new cls();
        const acc = r as unknown as Accessible;
        const name = prop(f.name);
        if (!(name in r)) {
          noAccessor.push(at);
          return;
        }
        acc[name] = -1;
        const got = hex(r.$bytes());
        if (got !== cb.bytes) problems.push(`${at}: accessor set -1 gives ${got}, C gives ${cb.bytes}`);
        const back = toU64(acc[name]);
        if (back !== cb.readBack) problems.push(`${at}: accessor reads back ${back}, C reads ${cb.readBack}`);
        acc[name] = 0;
        if (toU64(acc[name]) !== 0n || /[^0]/.test(hex(r.$bytes()))) problems.push(`${at}: accessor set 0 leaves bits set`);
      }
    });
  });
  return { problems, fields, bitFields, noAccessor };
}

const cc = findCc();
let work: { dir: string; out: string } | undefined;

beforeAll(() => {
  work = makeImportableOut("cuda-ts-layout-");
});
afterAll(() => removeDir(work?.dir));

/** Checks a set of records modules against one C program; asserts there is no disagreement. */
async function checkModules(
  label: string,
  modules: string[],
  includeDirs: string[],
  includes: string[],
  defines: Record<string, string>,
): Promise<{ records: number; fields: number; bitFields: number }> {
  const classes: RecordClassLike[] = [];
  for (const m of modules) classes.push(...recordClasses((await import(m)) as Record<string, unknown>));
  const unnamed = classes.filter((c) => c.$cName.startsWith("("));
  expect(unnamed.map((c) => `${c.name}: ${c.$cName}`), "records whose $cName C cannot name").toEqual([]);
  const out = compileAndRun(cc!, oracleSource(includes, classes), includeDirs, defines, work!.dir, `oracle_${label}`);
  const result = compare(classes, parseOracle(out, classes.length));
  expect(result.problems, `${label}: generated layout differs from C`).toEqual([]);
  return { records: classes.length, fields: result.fields, bitFields: result.bitFields };
}

const noCc = cc === undefined ? " (skipped: no C compiler; install one or set CC)" : "";

describe.skipIf(cc === undefined)(`layout oracle: the fixture libraries${noCc}`, () => {
  it("every record, field and bit-field of fixture and fixture_ext matches C", async () => {
    runGeneratorOk([...fixtureArgs("1.0"), "--out", work!.out]);
    const lib = (l: string): string => path.join(work!.out, "cuda-1.0", l, "records.ts");
    const m = readJson<ManifestLike>(FIXTURE_MANIFEST);
    const counts = await checkModules("fixture", [lib("fixture"), lib("fixture_ext")], [fixtureInclude("1.0")], ["fixture.h", "fixture_ext.h"], m.libraries.fixture!.defines ?? {});
    // The fixture has records of every kind; make sure they were all seen.
    expect(counts.records).toBeGreaterThanOrEqual(16);
    expect(counts.bitFields).toBe(8);
  });

  it("the accessors' values survive a round trip through a record's bytes (nested, arrays, bit-fields)", async () => {
    const mod = (await import(path.join(work!.out, "cuda-1.0/fixture/records.ts"))) as Record<string, unknown>;
    type AnyRec = RecordBase & Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    const make = (name: string): AnyRec => new (mod[name] as new () => AnyRec)();
    const n = make("fxNested");
    n.tag = -5;
    n.inner.a = 0x12345678;
    n.point.x = 1.5;
    n.u.pair.c1 = -3;
    n.items.at(2).w = 0x7fff;
    const copy = make("fxNested_st");
    copy.$copyFrom(n);
    expect([copy.tag, copy.inner.a, copy.point.x, copy.u.pair.c1, copy.items.at(2).w]).toEqual([-5, 0x12345678, 1.5, -3, 0x7fff]);
    expect(copy.u.i & 0xff00).toBe(0xfd00); // pair.c1 is the union's second byte
    const bits = make("fxBits");
    bits.a = 5;
    bits.b = -8;
    bits.c = 1023;
    bits.d = -1;
    bits.e = 0xabcdef0123n;
    bits.f = 9;
    bits.g = true;
    bits.h = 0xffffffff;
    bits.big = -(2n ** 49n);
    expect([bits.a, bits.b, bits.c, bits.d, bits.e, bits.f, bits.g, bits.h, bits.big]).toEqual([5, -8, 1023, -1, 0xabcdef0123n, 9, true, 0xffffffff, -(2n ** 49n)]);
    bits.c = 0;
    expect([bits.a, bits.b, bits.c, bits.d]).toEqual([5, -8, 0, -1]);
    const arrays = make("fxArrays");
    arrays.matrix.set([1, 2, 3, 4, 5, 6]);
    arrays.locations.at(1).id = 42;
    arrays.addresses[1] = 2n ** 63n;
    expect(Array.from(arrays.matrix)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(arrays.locations.at(1).$toObject()).toEqual({ type: 0, id: 42 });
    expect(new DataView(arrays.$view.buffer, arrays.$view.byteOffset).getBigUint64(96, true)).toBe(2n ** 63n);
    const v = make("fxVariant");
    v.d = 2.5;
    v.hi = -2;
    expect([v.d, v.hi, v.lo]).toEqual([2.5, -2, 0]);
  });
});

// The real generated libraries, against the headers of this machine: for each library the first directory that
// holds its headers (the manifest's CTK version, by sha256) of ORACLE_INCLUDE when set, else the git-ignored
// .cache/ctk/X.Y/include (docs/contributing.md, "Regenerating for another CTK version") and /usr/local/cuda/include. A library none of them can check is
// skipped with the reason for each directory (listed at the end of the run).
const repoManifest = readJson<ManifestLike>(REPO_MANIFEST);
const generatedRoot = process.env.ORACLE_GENERATED ? path.resolve(process.env.ORACLE_GENERATED) : REPO_GENERATED;
const includeCandidates = (version: string): string[] =>
  process.env.ORACLE_INCLUDE ? [path.resolve(process.env.ORACLE_INCLUDE)] : [path.join(ROOT, ".cache", "ctk", version, "include"), CUDA_INCLUDE];
const shown = (dir: string): string => (dir.startsWith(ROOT + path.sep) ? path.relative(ROOT, dir) : dir);

/** The include directory that can check `lib`, or why none can. */
function includeFor(lib: string, version: string): { dir: string } | { why: string } {
  if (cc === undefined) return { why: "no C compiler; install one or set CC" };
  const reasons: string[] = [];
  for (const dir of includeCandidates(version)) {
    const why = headersUnavailable(repoManifest, lib, version, dir);
    if (why === undefined) return { dir };
    reasons.push(why.replace(ROOT + path.sep, ""));
  }
  return { why: reasons.join("; ") };
}

const ctkDirs = fs.existsSync(generatedRoot) ? fs.readdirSync(generatedRoot).filter((d) => /^cuda-\d+\.\d+$/.test(d)).sort() : [];
for (const dir of ctkDirs) {
  const version = dir.slice("cuda-".length);
  describe(`layout oracle: ${path.relative(process.cwd(), generatedRoot) || "."}/${dir}`, () => {
    const libraries = Object.keys(repoManifest.libraries).filter((lib) => fs.existsSync(path.join(generatedRoot, dir, lib, "records.ts")));

    it("finds the generated records of the driver and the runtime", () => {
      expect(libraries).toContain("driver");
      expect(libraries).toContain("runtime");
    });

    for (const lib of libraries) {
      const records = path.join(generatedRoot, dir, lib, "records.ts");
      const include = includeFor(lib, version);
      const title = "dir" in include ? `${lib}: every record, field and bit-field matches C (headers: ${shown(include.dir)})` : `${lib}: skipped (${include.why})`;
      it.skipIf(!("dir" in include))(title, async () => {
        const spec = repoManifest.libraries[lib]!;
        const dir = "dir" in include ? include.dir : CUDA_INCLUDE;
        // cuda_fp16.h (included by the math libraries' headers) includes CCCL's <nv/target>: CUDA 13 keeps it in
        // include/cccl, which a copied include folder may lack; the toolkit's own serves then.
        const cccl = [path.join(dir, "cccl"), path.join(CUDA_INCLUDE, "cccl")].find((d) => fs.existsSync(path.join(d, "nv", "target")));
        const counts = await checkModules(lib, [records], [dir, ...(cccl !== undefined ? [cccl] : [])], spec.headers, spec.defines ?? {});
        if (lib === "driver") expect(counts.records).toBeGreaterThan(100);
      });
    }
  });
}

// The libraries on a version axis of their own (NCCL: generated/nccl-X.Y/nccl/), against their headers where this
// machine holds them: .cache/nccl-2.28/nccl/include (the GPU machine's PyTorch wheel, copied back) and
// .cache/nccl-2.22/usr/include (Debian's libnccl-dev), each checked by the manifest's sha256; nccl.h includes
// cuda_runtime.h and cuda_fp16.h, taken from the CTK's include folder (and CCCL's <nv/target>).
interface AxisManifest {
  axes?: Record<string, { versions: Record<string, { headers: Record<string, string> }> }>;
}
const axes = (repoManifest as ManifestLike & AxisManifest).axes ?? {};
const AXIS_INCLUDES: Record<string, (version: string) => string[]> = {
  nccl: (v) => [path.join(ROOT, ".cache", `nccl-${v}`, "nccl", "include"), path.join(ROOT, ".cache", `nccl-${v}`, "usr", "include")],
  // Debian's libpmix-dev (the version the manifest hashes; another version's headers are named as such below).
  pmix: () => ["/usr/lib/x86_64-linux-gnu/pmix2/include"],
};
for (const [axis, spec] of Object.entries(axes)) {
  for (const version of Object.keys(spec.versions).sort()) {
    const dir = path.join(generatedRoot, `${axis}-${version}`);
    const libraries = Object.keys(repoManifest.libraries).filter((lib) => fs.existsSync(path.join(dir, lib, "records.ts")));
    for (const lib of libraries) {
      const headers = libraryHeaders(repoManifest, lib);
      const ctkInclude = [path.join(ROOT, ".cache", "ctk", "13.0", "include"), CUDA_INCLUDE].find((d) => fs.existsSync(path.join(d, "cuda_runtime.h")));
      const cccl = ctkInclude === undefined ? undefined : [path.join(ctkInclude, "cccl"), path.join(CUDA_INCLUDE, "cccl")].find((d) => fs.existsSync(path.join(d, "nv", "target")));
      const reasons: string[] = [];
      let include: string | undefined;
      for (const candidate of (AXIS_INCLUDES[axis] ?? (() => []))(version)) {
        const bad = headers.map((h) => {
          const p = path.join(candidate, h);
          if (!fs.existsSync(p)) return `${h} is not in ${shown(candidate)}`;
          const sum = sha256Of(p);
          return spec.versions[version]!.headers[h] === sum ? undefined : `${shown(p)} is not the ${axis} ${version} header the manifest hashes`;
        }).find((w) => w !== undefined);
        if (bad === undefined) {
          include = candidate;
          break;
        }
        reasons.push(bad);
      }
      if (include === undefined && reasons.length === 0) reasons.push(`no folder of ${axis} ${version}'s headers is known here`);
      if (cc === undefined) reasons.push("no C compiler; install one or set CC");
      if (ctkInclude === undefined || cccl === undefined) reasons.push("no CUDA include folder with cuda_runtime.h and CCCL's <nv/target>");
      const ready = include !== undefined && cc !== undefined && ctkInclude !== undefined && cccl !== undefined;
      const title = ready ? `${axis} ${version} ${lib}: every record, field and bit-field matches C (headers: ${shown(include!)})` : `${axis} ${version} ${lib}: skipped (${reasons.join("; ")})`;
      it.skipIf(!ready)(title, async () => {
        const s = repoManifest.libraries[lib]!;
        const counts = await checkModules(lib, [path.join(dir, lib, "records.ts")], [include!, ctkInclude!, cccl!], s.headers, s.defines ?? {});
        expect(counts.records).toBeGreaterThan(0);
      });
    }
  }
}

function sha256Of(file: string): string {
  return createHash("sha256").update(fs.readFileSync(file)).digest("hex");
}
