/**
 * The math libraries' checked style returns what the library produces, checked by value against mocks: for cuBLAS,
 * cuBLASLt, cuFFT, cuRAND, cuSOLVER and cuSPARSE at each table version (CUDA 13.0 and 12.4), a mock generated here
 * from the table (C, compiled with gcc) writes a known value into every output that report.json's roles name (a
 * 32- or 64-bit integer, a float, a pointer; a record is left as it is), and a child process
 * (test/bindings/math-outputs-child.ts) calls every checked function with outputs and compares: one output is the
 * result, several a tuple in parameter order, each of its type (number, bigint, Pointer, record) and value.
 *
 * That report.json decides every pointer parameter (of these and every other generated library) by the documentation,
 * a reviewed rule or an override of headers-manifest.json, never by a guess: test/generator/pointer-rules.test.ts.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runtimeCommand } from "../support/runtime.ts";
import { buildMock, mockBuildUnavailable, overrideVariable, target, MOCK_DEPENDENCIES } from "../support/mock-library.ts";
import type { FunctionTable } from "../../src/tables-runtime/spec.ts";
import type { MathOutputPlan, MathOutputResult, OutputKind, PlannedOutput } from "./math-outputs-plan.ts";

const root = path.resolve(import.meta.dirname ?? new URL(".", import.meta.url).pathname, "../..");
const child = path.join(root, "test/bindings/math-outputs-child.ts");
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "cuda-ts-math-outputs-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const LIBRARIES = ["cublas", "cublaslt", "cufft", "curand", "cusolver", "cusparse"] as const;
const VERSIONS = ["13.0", "12.4"] as const;

/** A library's entry of generated/cuda-X.Y/report.json: per function, `name: role (rule)` per parameter. */
function reportRoles(version: string, library: string): Record<string, string[]> {
  const report = JSON.parse(fs.readFileSync(path.join(root, `generated/cuda-${version}/report.json`), "utf8")) as { libraries: { library: string; roles: Record<string, string[]> }[] };
  const lib = report.libraries.find((l) => l.library === library);
  if (lib === undefined) throw new Error(`report.json of ${version} has no ${library}`);
  return lib.roles;
}

/** `name: role… (rule)` (generator/report.ts's describeRole) → its parts; `detail`: what comes between. */
function parseRole(text: string): { name: string; role: string; detail: string; rule: string } {
  const colon = text.indexOf(": ");
  let depth = 0;
  let open = -1;
  for (let i = text.length - 1; i > colon; i--) {
    if (text[i] === ")") depth++;
    if (text[i] === "(" && --depth === 0) {
      open = i;
      break;
    }
  }
  const head = text.slice(colon + 2, open).trim();
  const role = /^[\w-]+/.exec(head)?.[0];
  if (colon < 0 || open < 0 || role === undefined) throw new Error(`unreadable role: ${text}`);
  return { name: text.slice(0, colon), role, detail: head, rule: text.slice(open + 1, -1) };
}

/** Each function's C parameter types, from raw.ts's `C:` lines (each documents the member that follows it). */
function cParameterTypes(version: string, library: string): Map<string, string[]> {
  const text = fs.readFileSync(path.join(root, `generated/cuda-${version}/${library}/raw.ts`), "utf8");
  const out = new Map<string, string[]>();
  let decl: string | undefined;
  for (const line of text.split("\n")) {
    const c = /C: `(.*)`\. Raw call style/.exec(line);
    if (c !== null) decl = c[1]!;
    const member = /^  (\w+)\(/.exec(line);
    if (member === null || decl === undefined) continue;
    // The parameter list: the last parenthesised group (`cublasCreate (exported as cublasCreate_v2)(...)`).
    let depth = 0;
    let start = decl.length - 1;
    for (let i = decl.length - 1; i >= 0; i--) {
      if (decl[i] === ")") depth++;
      if (decl[i] === "(" && --depth === 0) {
        start = i;
        break;
      }
    }
    const inner = decl.slice(start + 1, decl.length - 1);
    const params: string[] = [];
    let cur = "";
    depth = 0;
    for (const ch of inner) {
      if (ch === "(") depth++;
      if (ch === ")") depth--;
      if (ch === "," && depth === 0) {
        params.push(cur.trim());
        cur = "";
      } else cur += ch;
    }
    if (cur.trim() !== "" && cur.trim() !== "void") params.push(cur.trim());
    // Drop each parameter's name: the type is what precedes the last identifier.
    out.set(member[1]!, params.map((p) => p.replace(/\s*\b\w+$/, "").trim()));
    decl = undefined;
  }
  return out;
}

/** Every generated file of one kind (types.ts, enums.ts, records.ts) of a CTK version, as one text. */
function generatedText(version: string, file: string): string {
  const dir = path.join(root, `generated/cuda-${version}`);
  return fs.readdirSync(dir).map((l) => path.join(dir, l, file)).filter((f) => fs.existsSync(f)).map((f) => fs.readFileSync(f, "utf8")).join("\n");
}

const PRIMITIVES: Readonly<Record<string, OutputKind>> = {
  double: "f64",
  float: "f32",
  int: "i32",
  int32_t: "i32",
  short: "i32",
  unsigned: "u32",
  "unsigned int": "u32",
  uint32_t: "u32",
  "long long": "i64",
  "long long int": "i64",
  "unsigned long long": "i64",
  long: "i64",
  int64_t: "i64",
  uint64_t: "i64",
  size_t: "i64",
};

/** What an output's pointee (`T` of `T*`) is, through the generated types, enums and records of `version`. */
function classify(pointee: string, texts: { types: string; enums: string; records: string }): OutputKind | undefined {
  let t = pointee.replace(/\bconst\b/g, "").replace(/\s+/g, " ").trim();
  for (let hops = 0; hops < 8; hops++) {
    if (t.includes("*")) return "ptr";
    const p = PRIMITIVES[t];
    if (p !== undefined) return p;
    if (new RegExp(`export const ${t} = (Object\\.freeze\\(|\\w+;)`).test(texts.enums)) return "u32";
    if (new RegExp(`export class ${t}\\b`).test(texts.records)) return "record";
    const alias = new RegExp(`export type ${t} = ([^;]+);`).exec(texts.types)?.[1]?.trim();
    if (alias === undefined) return undefined;
    if (alias === "Pointer" || alias.startsWith("Handle<") || alias.startsWith("FunctionPointer<")) return "ptr";
    if (alias === "number") return "i32";
    if (alias === "bigint") return "i64";
    t = alias;
  }
  return undefined;
}

/** The (major, minor, patch) the table's headers declare, as the mock's `<lib>GetProperty` reports it. */
async function headerVersion(version: string, library: string): Promise<[number, number, number]> {
  if (library === "cublas" || library === "cublaslt") {
    const [a, b] = version.split(".").map(Number) as [number, number];
    return [a, b, 0];
  }
  const c = (await import(path.join(root, `generated/cuda-${version}/${library}/constants.ts`))) as Record<string, number>;
  const prefix = library.toUpperCase();
  return [c[`${prefix}_VER_MAJOR`]!, c[`${prefix}_VER_MINOR`]!, c[`${prefix}_VER_PATCH`]!];
}

/** The value the mock writes into output `k` of kind `kind`, as decimal text, and as C. */
function valueOf(kind: OutputKind, k: number): { text: string; c: string } {
  switch (kind) {
    case "i32":
    case "u32":
      return { text: String(100 + k), c: `*(int32_t *)a = ${100 + k};` };
    case "i64": {
      const v = 5_000_000_000n + BigInt(k);
      return { text: String(v), c: `*(int64_t *)a = ${v}LL;` };
    }
    case "f32":
      return { text: String(0.25 + k), c: `*(float *)a = ${0.25 + k}f;` };
    case "f64":
      return { text: String(0.125 + k), c: `*(double *)a = ${0.125 + k};` };
    case "ptr": {
      const v = 0x10000000n + 0x100n * BigInt(k + 1);
      return { text: String(v), c: `*(uint64_t *)a = ${v}ULL;` };
    }
    case "record":
      return { text: "record", c: "" };
  }
}

const C_TYPES: Readonly<Record<string, string>> = {
  void: "void",
  bool: "_Bool",
  i8: "int8_t",
  u8: "uint8_t",
  i16: "int16_t",
  u16: "uint16_t",
  i32: "int32_t",
  u32: "uint32_t",
  i64: "int64_t",
  u64: "uint64_t",
  f32: "float",
  f64: "double",
  pointer: "void *",
  function: "void *",
};

interface Built {
  readonly plan: MathOutputPlan;
  /** Functions with outputs that the checked style returns with more than single outputs (arrays, in/out sizes). */
  readonly excluded: string[];
  /** Outputs whose C type this test cannot classify. */
  readonly unknown: string[];
  readonly source: string;
}

/** The plan and the mock's C source for one library at one version. */
async function build(version: string, library: string): Promise<Built> {
  const roles = reportRoles(version, library);
  const cTypes = cParameterTypes(version, library);
  const texts = { types: generatedText(version, "types.ts"), enums: generatedText(version, "enums.ts"), records: generatedText(version, "records.ts") };
  const { functions } = (await import(path.join(root, `generated/cuda-${version}/${library}/functions.ts`))) as { functions: FunctionTable };
  const property = await headerVersion(version, library);
  const planned: { name: string; outputs: PlannedOutput[] }[] = [];
  const excluded: string[] = [];
  const unknown: string[] = [];
  const writes = new Map<string, string[]>();
  for (const [fn, list] of Object.entries(roles)) {
    const parsed = list.map(parseRole);
    if (!parsed.some((r) => r.role === "output")) continue;
    if (parsed.some((r) => r.role === "array-output" || (r.role === "count" && /in\/out/.test(r.detail)))) {
      excluded.push(fn);
      continue;
    }
    const types = cTypes.get(fn);
    if (types === undefined || functions[fn] === undefined) throw new Error(`${library} ${version}: no C declaration or table entry for ${fn}`);
    const outputs: PlannedOutput[] = [];
    const lines: string[] = [];
    parsed.forEach((r, index) => {
      if (r.role !== "output") return;
      const pointee = types[index]!.replace(/\*\s*$/, "").trim();
      const kind = classify(pointee, texts);
      if (kind === undefined) {
        unknown.push(`${fn}(${r.name}: ${types[index]})`);
        return;
      }
      const k = outputs.length;
      if (/GetProperty$/.test(fn)) {
        outputs.push({ name: r.name, index, kind, value: String(property[0]) });
        return;
      }
      const v = valueOf(kind, k);
      outputs.push({ name: r.name, index, kind, value: v.text });
      if (v.c !== "") lines.push(`  { void *a = a${index}; if (a) ${v.c} }`);
    });
    planned.push({ name: fn, outputs });
    writes.set(functions[fn]!.symbol, lines);
  }
  // The mock: every symbol of the table, each writing its planned outputs and returning 0; <lib>GetProperty reports
  // the headers' version by the property asked for (the binding chooses its table by it).
  const done = new Set<string>();
  const bodies: string[] = [];
  for (const [fn, spec] of Object.entries(functions)) {
    if (done.has(spec.symbol)) continue;
    done.add(spec.symbol);
    if (spec.parameters.some((p) => typeof p !== "string") || typeof spec.result !== "string") {
      // A struct passed by value (cusparseCnnz_compress's cuComplex tol): left out of the mock, unless it has outputs.
      if (writes.has(spec.symbol)) throw new Error(`${fn}: a struct passed by value, and outputs (not mocked here)`);
      continue;
    }
    const params = spec.parameters.map((p, i) => `${C_TYPES[p as string]} a${i}`).join(", ") || "void";
    const lines = [...(writes.get(spec.symbol) ?? [])];
    if (/GetProperty$/.test(fn)) lines.push(`  if (a1) *(int32_t *)a1 = a0 == 0 ? ${property[0]} : a0 == 1 ? ${property[1]} : ${property[2]};`);
    const ret = spec.result === "void" ? "return;" : `return (${C_TYPES[spec.result as string]})0;`;
    bodies.push(`EXPORT ${C_TYPES[spec.result as string]} ${spec.symbol}(${params}) {\n${lines.join("\n")}\n  ${ret}\n}`);
  }
  const source = `/* Generated by test/bindings/math-outputs.test.ts from the ${library} ${version} table. */
#include <stdint.h>
#define EXPORT __attribute__((visibility("default")))
${bodies.join("\n")}
`;
  return { plan: { functions: planned }, excluded, unknown, source };
}

/** Builds the mock of `library` at `version` and the stand-ins of the libraries the pathfinder loads first. */
function environment(version: string, library: string, source: string): Record<string, string> {
  const dir = fs.mkdtempSync(path.join(tmp, `${library}-${version}-`));
  const t = target(library, version);
  const env: Record<string, string> = {};
  for (const dep of MOCK_DEPENDENCIES[library] ?? []) {
    const d = target(dep, version);
    env[overrideVariable(d.pathfinderName)] = buildMock(dir, d.soname, "int mock_dependency;\n");
  }
  env[overrideVariable(t.pathfinderName)] = buildMock(dir, t.soname, source);
  return env;
}

function runChild(version: string, library: string, planPath: string, env: Record<string, string>): MathOutputResult {
  const cmd = runtimeCommand(child, ["--allow-ffi", "--allow-env", "--allow-read"], [library, version, planPath]);
  const r = spawnSync(cmd[0]!, cmd.slice(1), { cwd: root, encoding: "utf8", env: { ...process.env, CUDA_TS_DISABLE_VERSION_WARNING: "1", ...env }, timeout: 120_000 });
  const line = (r.stdout ?? "").trim().split("\n").pop() ?? "";
  if (r.status !== 0 || !line.startsWith("{")) throw new Error(`math-outputs-child ${library} ${version} failed (${r.status}):\n${r.stdout}\n${r.stderr}`);
  return JSON.parse(line) as MathOutputResult;
}

const skip = mockBuildUnavailable === undefined ? "" : ` [skipped: ${mockBuildUnavailable}]`;

describe.skipIf(mockBuildUnavailable !== undefined)(`checked math functions return the values the library writes${skip}`, () => {
  for (const version of VERSIONS) {
    for (const library of LIBRARIES) {
      it(`${library} ${version}: every checked function with outputs, by type and value`, async () => {
        const b = await build(version, library);
        expect(b.unknown, "outputs of a C type this test cannot classify").toEqual([]);
        const planPath = path.join(tmp, `${library}-${version}.json`);
        fs.writeFileSync(planPath, JSON.stringify(b.plan));
        const r = runChild(version, library, planPath, environment(version, library, b.source));
        console.log(`math outputs ${library} ${version}: table ${r.table}; ${r.checked} functions, ${r.values} values checked; ${b.excluded.length} with array outputs or in/out sizes left to the argument sweep${b.excluded.length > 0 ? ` (${b.excluded.join(", ")})` : ""}`);
        expect(r.table).toBe(version);
        expect(r.failures).toEqual([]);
        expect(r.checked).toBe(b.plan.functions.length);
        expect(r.checked).toBeGreaterThan(0);
      });
    }
  }
});
