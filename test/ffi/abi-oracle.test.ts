// The calling-convention oracle: random signatures that mix scalars and structs by value (INTEGER, SSE and mixed
// eightbytes, MEMORY, packed, 16-byte-aligned, padding-only eightbytes, a union), compiled by gcc into a throwaway
// library whose functions print the bytes they received and return a known pattern. Every byte must arrive where
// gcc's callee reads it: on Bun through lowering.ts, on Deno natively (or lowered where libffi would misplace it).
// Like the generator's layout oracle, the test compiles C; the product never does.
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import {
  ffi,
  UnsupportedOnRuntimeError,
  type FunctionType,
  type LeafType,
  type NativeLibrary,
  type NativeType,
  type Pointer,
  type StructType,
} from "../../src/ffi/index.ts";
import { struct } from "./helpers.ts";

interface Catalogued {
  readonly c: string;
  readonly type: StructType;
  /** The bytes that carry data (a prefix: the rest is padding, which registers do not carry). */
  readonly data: number;
}

function record(c: string, name: string, size: number, align: number, leaves: [number, LeafType][], data = size) {
  return { c: `${c};`, type: struct(name, size, align, leaves), data };
}

const structs: Record<string, Catalogued> = {
  S4i: record("struct S4i { int a; }", "S4i", 4, 4, [[0, "i32"]]),
  S8i: record("struct S8i { int a, b; }", "S8i", 8, 4, [[0, "i32"], [4, "i32"]]),
  S12i: record("struct S12i { unsigned a, b, c; }", "S12i", 12, 4, [[0, "u32"], [4, "u32"], [8, "u32"]]),
  S16i: record("struct S16i { long a, b; }", "S16i", 16, 8, [[0, "i64"], [8, "i64"]]),
  S8f: record("struct S8f { float a, b; }", "S8f", 8, 4, [[0, "f32"], [4, "f32"]]),
  S12f: record("struct S12f { float a, b, c; }", "S12f", 12, 4, [[0, "f32"], [4, "f32"], [8, "f32"]]),
  S16d: record("struct S16d { double a, b; }", "S16d", 16, 8, [[0, "f64"], [8, "f64"]]),
  S16di: record("struct S16di { double a; long b; }", "S16di", 16, 8, [[0, "f64"], [8, "i64"]]),
  S16id: record("struct S16id { int a; float f; double b; }", "S16id", 16, 8, [[0, "i32"], [4, "f32"], [8, "f64"]]),
  S3c: record("struct S3c { char a, b, c; }", "S3c", 3, 1, [[0, "i8"], [1, "i8"], [2, "i8"]]),
  S24: record("struct S24 { long a, b, c; }", "S24", 24, 8, [[0, "i64"], [8, "i64"], [16, "i64"]]),
  S32: record("struct S32 { int k, x; void *d[3]; }", "S32", 32, 8, [
    [0, "i32"],
    [4, "i32"],
    [8, "pointer"],
    [16, "pointer"],
    [24, "pointer"],
  ]),
  S20f: record("struct S20f { float f[5]; }", "S20f", 20, 4, [[0, "f32"], [4, "f32"], [8, "f32"], [12, "f32"], [16, "f32"]]),
  A16: record("struct A16 { long a, b; } __attribute__((aligned(16)))", "A16", 16, 16, [[0, "i64"], [8, "i64"]]),
  A32: record("struct A32 { long a, b, c; } __attribute__((aligned(16)))", "A32", 32, 16, [
    [0, "i64"],
    [8, "i64"],
    [16, "i64"],
  ], 24),
  IA16: record("struct IA16 { int i; } __attribute__((aligned(16)))", "IA16", 16, 16, [[0, "i32"]], 4),
  DA16: record("struct DA16 { double d; } __attribute__((aligned(16)))", "DA16", 16, 16, [[0, "f64"]], 8),
  P5: record("struct __attribute__((packed)) P5 { char c; int i; }", "P5", 5, 1, [[0, "i8"], [1, "i32"]]),
  U4: record("union U4 { int i; float f; }", "U4", 4, 4, [[0, "i32"], [0, "f32"]]),
};

const scalars = { i32: "int", i64: "long", u8: "unsigned char", i16: "short", f32: "float", f64: "double", pointer: "void *" };
type Scalar = keyof typeof scalars;
const scalarSize: Record<Scalar, number> = { i32: 4, i64: 8, u8: 1, i16: 2, f32: 4, f64: 8, pointer: 8 };
const resultNames = ["void", "i32", "i64", "f32", "f64", "S4i", "S8i", "S8f", "S24", "S32", "S3c", "A32", "P5", "S16i", "S16d", "IA16", "DA16"];

/** A deterministic generator (LCG), so failures reproduce. */
function random(seed: number): (n: number) => number {
  let state = seed;
  return (n) => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state % n;
  };
}

interface Signature {
  readonly name: string;
  readonly params: string[];
  readonly result: string;
}

const next = random(2026);
const names = [...Object.keys(scalars), ...Object.keys(structs), "i32", "i64", "f64", "pointer", "S32"];
const signatures: Signature[] = Array.from({ length: 240 }, (_, i) => ({
  name: `f${i}`,
  params: Array.from({ length: next(15) }, () => names[next(names.length)]!),
  result: resultNames[next(resultNames.length)]!,
}));

function cType(t: string): string {
  if (t in scalars) return scalars[t as Scalar];
  return t.startsWith("U") ? `union ${t}` : `struct ${t}`;
}

function dataBytes(t: string): number {
  return t in scalars ? scalarSize[t as Scalar] : structs[t]!.data;
}

function cSource(): string {
  const lines = [
    "#include <stdio.h>",
    "#include <string.h>",
    "char out[16384]; static int pos;",
    ...Object.values(structs).map((s) => s.c),
    "static void put(const void *p, int n) { const unsigned char *b = p; for (int i = 0; i < n; i++) pos += " +
      'sprintf(out + pos, "%02x", b[i]); out[pos++] = \'|\'; out[pos] = 0; }',
  ];
  for (const f of signatures) {
    const params = f.params.map((t, i) => `${cType(t)} p${i}`).join(", ") || "void";
    const body = ["pos = 0; out[0] = 0;", ...f.params.map((t, i) => `put(&p${i}, ${dataBytes(t)});`)];
    if (f.result !== "void") {
      body.push(`${cType(f.result)} r; for (int i = 0; i < (int)sizeof r; i++) ((unsigned char *)&r)[i] = (unsigned char)(i * 7 + 3 + pos);`);
      if (f.result === "f64") body.push("r = 1.5 + pos;");
      if (f.result === "f32") body.push("r = 2.5f + pos;");
      if (f.result === "S8f") body.push("r.a = 1.25f; r.b = pos;");
      body.push("return r;");
    }
    lines.push(`${f.result === "void" ? "void" : cType(f.result)} ${f.name}(${params}) { ${body.join(" ")} }`);
  }
  return `${lines.join("\n")}\n`;
}

function nativeType(t: string): NativeType {
  return t in structs ? structs[t]!.type : (t as NativeType);
}

const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");

/** A random argument for type `t` and the bytes the callee must see. */
function argument(t: string, rnd: (n: number) => number): { value: unknown; bytes: Uint8Array } {
  const buffer = new ArrayBuffer(32);
  const dv = new DataView(buffer);
  const fill = (type: LeafType, at: number) => {
    if (type === "f32") dv.setFloat32(at, (rnd(100000) - 50000) / 7, true);
    else if (type === "f64") dv.setFloat64(at, (rnd(1000000) - 500000) / 13, true);
    else if (type === "i64" || type === "pointer") dv.setBigUint64(at, BigInt(rnd(2 ** 31)) * 65537n + 4096n, true);
    else if (type === "i32" || type === "u32") dv.setUint32(at, rnd(2 ** 30) * 3, true);
    else dv.setUint8(at, rnd(256));
  };
  if (t in structs) {
    const s = structs[t]!;
    for (const leaf of s.type.struct.leaves) fill(leaf.type, leaf.offset);
    const bytes = new Uint8Array(buffer.slice(0, s.type.struct.size));
    return { value: bytes, bytes: bytes.subarray(0, s.data) };
  }
  const n = scalarSize[t as Scalar];
  let value: unknown;
  switch (t as Scalar) {
    case "i32":
      value = rnd(2 ** 31) - 2 ** 30;
      dv.setInt32(0, value as number, true);
      break;
    case "i16":
      value = rnd(65536) - 32768;
      dv.setInt16(0, value as number, true);
      break;
    case "u8":
      value = rnd(256);
      dv.setUint8(0, value as number);
      break;
    case "i64":
      value = BigInt(rnd(2 ** 31)) * 4294967311n - 2n ** 62n;
      dv.setBigInt64(0, value as bigint, true);
      break;
    case "f32":
      value = Math.fround((rnd(100000) - 50000) / 3);
      dv.setFloat32(0, value as number, true);
      break;
    case "f64":
      value = (rnd(10000000) - 5000000) / 7;
      dv.setFloat64(0, value as number, true);
      break;
    case "pointer": {
      const address = rnd(2 ** 31) * 4096 + 4096;
      dv.setBigUint64(0, BigInt(address), true);
      value = ffi.pointerFromAddress(address);
      break;
    }
  }
  return { value, bytes: new Uint8Array(buffer, 0, n) };
}

/** Whether the result matches what the C function returned, `pos` being the length of what it printed. */
function resultMatches(t: string, r: unknown, pos: number): boolean {
  const pattern = (n: number) => Uint8Array.from({ length: n }, (_, i) => (i * 7 + 3 + pos) & 255);
  if (t === "void") return r === undefined;
  if (t === "f64") return r === 1.5 + pos;
  if (t === "f32") return r === 2.5 + pos;
  if (t === "i32") return r === new DataView(pattern(4).buffer).getInt32(0, true);
  if (t === "i64") return r === new DataView(pattern(8).buffer).getBigInt64(0, true);
  const s = structs[t]!;
  const bytes = r as Uint8Array;
  if (bytes.byteLength !== s.type.struct.size) return false;
  if (t === "S8f") {
    const dv = new DataView(bytes.buffer, bytes.byteOffset, 8);
    return dv.getFloat32(0, true) === 1.25 && dv.getFloat32(4, true) === pos;
  }
  const want = pattern(s.data);
  // A struct that is one double comes back through a JavaScript number: a NaN's payload may be canonicalised.
  if (t === "DA16" && Number.isNaN(new DataView(want.buffer).getFloat64(0, true))) {
    return Number.isNaN(new DataView(bytes.buffer, bytes.byteOffset, 8).getFloat64(0, true));
  }
  return hex(bytes.subarray(0, s.data)) === hex(want);
}

describe("calling-convention oracle: gcc-compiled callees see every byte where the ABI puts it", () => {
  let lib: NativeLibrary;
  let out: Pointer;

  beforeAll(() => {
    const dir = mkdtempSync(join(tmpdir(), "cuda-ts-abi-"));
    writeFileSync(join(dir, "oracle.c"), cSource());
    execFileSync("cc", ["-O1", "-shared", "-fPIC", "-o", join(dir, "liboracle.so"), join(dir, "oracle.c")]);
    lib = ffi.openLibrary(join(dir, "liboracle.so"));
    out = lib.symbol("out");
  });

  it(`${signatures.length} random signatures, three calls each`, () => {
    const rnd = random(7);
    const failures: string[] = [];
    let refused = 0;
    for (const f of signatures) {
      const type: FunctionType = { parameters: f.params.map(nativeType), result: nativeType(f.result) };
      // Half bound by name, half by address (CFunction on Bun; on Deno the dladdr fast path).
      const fn = (Number(f.name.slice(1)) % 2 === 0 ? lib.bind(f.name, type) : lib.bindAt(lib.symbol(f.name)!, type)) as (
        ...args: unknown[]
      ) => unknown;
      const reason = ffi.unsupportedReason(type, f.name);
      for (let call = 0; call < 3; call++) {
        const args = f.params.map((t) => argument(t, rnd));
        if (reason !== null) {
          expect(() => fn(...args.map((a) => a.value))).toThrow(UnsupportedOnRuntimeError);
          refused++;
          break;
        }
        const r = fn(...args.map((a) => a.value));
        const got = ffi.readCString(out);
        const want = args.map((a) => `${hex(a.bytes)}|`).join("");
        if (got !== want) failures.push(`${f.name}(${f.params.join(", ")}): got ${got}, want ${want}`);
        else if (!resultMatches(f.result, r, want.length)) failures.push(`${f.name} -> ${f.result}: result ${String(r)}`);
      }
    }
    expect(failures).toEqual([]);
    if (ffi.runtime === "deno") expect(refused).toBe(0);
    else expect(refused).toBeGreaterThan(0); // two-register struct results (S16i, S16d) and > 32 arguments
  });
});
