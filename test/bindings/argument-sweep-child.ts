/**
 * One library's argument sweep, in a process of its own (test/bindings/argument-sweep.test.ts starts one per library and
 * table version, so that a crash is that library's failure, not the test runner's):
 *
 *   bun test/bindings/argument-sweep-child.ts <library> <version> [--seed N] [--only fn,fn] [--skip fn,fn]
 *   deno run -A test/bindings/argument-sweep-child.ts <library> <version> [...]
 *
 * It builds a mock of the library from the generated table (test/support/mock-library.ts; the libraries the pathfinder
 * loads first too), points `CUDA_TS_<NAME>_PATH` at it, loads the binding, checks that the binding chose the table of
 * `version`, and then, for every function of that table and both call styles, with fast-check:
 * - wrong arguments (one argument missing or one extra; a value of the wrong JavaScript type; an integer that is
 *   fractional, NaN, not safe or outside the C type's range; a negative count; a count larger than the buffer passed
 *   with it; a string holding NUL) must throw BindingArgumentError naming the function, with no call reaching the
 *   mock;
 * - right arguments (in range, counts of 0..4 with buffers that hold them, null or buffers for pointers, NUL-free
 *   strings, the struct's bytes for a struct by value, records where the checked style asks for one) must reach the
 *   mock and return without throwing;
 * - what the checked style returns for them must have the shape the function's roles promise
 *   (test/bindings/argument-sweep-shapes.ts; the mock writes nothing into outputs but `char**` ones and the version
 *   queries', so the values are whatever the output slots held: the check is of kinds, counts, lengths and
 *   identities), and its declared return type (checked.ts) must agree with those roles.
 *
 * Output (stdout): one `{"type":"failures"}` JSON line per function and style that broke the contract (its
 * failures, the first few of each kind), a `shapes <library> <version> (<runtime>): ...` line (functions with outputs
 * checked, values by shape, mismatches), then one `{"type":"summary"}` JSON line. stderr: `at <style> <function>` before
 * each function, so that a crash names where it happened. `CUDA_TS_SWEEP_SEED` (or --seed) fixes the seed;
 * `CUDA_TS_SWEEP_RUNS` the random runs per function and style beyond the enumerated wrong cases (default 4).
 * `CUDA_TS_SWEEP_EXCLUDE` (JSON: { "library@version": { "function": "reason" } }) names functions not to sweep;
 * `CUDA_TS_SWEEP_TRACE=1` prints every case before it runs; `CUDA_TS_SWEEP_KEEP=1` keeps the mocks' C sources.
 *
 * @module
 */
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import fc from "fast-check";
import { MOCK_DEPENDENCIES, buildMock, mockSource, overrideVariable, target, type MockSource, type MockTarget } from "../support/mock-library.ts";
import { cDeclarations, expectation, splitTopLevel, type Expectation, type ShapeRuntime, type ShapeSource, type Signature } from "./argument-sweep-shapes.ts";
import type { FunctionSpec, FunctionTable, LibraryInfo } from "../../src/tables-runtime/spec.ts";
import type { NativeType } from "../../src/ffi/types.ts";

const root = resolve(import.meta.dirname ?? new URL(".", import.meta.url).pathname, "../..");
const deno = (globalThis as unknown as { Deno?: { args: string[]; env: { set(k: string, v: string): void; get(k: string): string | undefined } } }).Deno;
const isBun = (globalThis as { Bun?: unknown }).Bun !== undefined;
const runtimeName = isBun ? "bun" : "deno";
const argv = deno?.args ?? process.argv.slice(2);

const getEnv = (k: string): string | undefined => (deno ? deno.env.get(k) : process.env[k]);
const setEnv = (k: string, v: string): void => {
  if (deno) deno.env.set(k, v);
  else process.env[k] = v;
};
const emit = (o: unknown): void => {
  writeSync(1, `${JSON.stringify(o, (_k, v) => (typeof v === "bigint" ? `${v}n` : v))}\n`);
};
const progress = (s: string): void => {
  writeSync(2, `${s}\n`);
};

function option(name: string): string | undefined {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : undefined;
}
const [library, version] = argv.filter((a, i) => !a.startsWith("--") && !(i > 0 && argv[i - 1]!.startsWith("--")));
if (library === undefined || version === undefined) throw new Error("usage: argument-sweep-child.ts <library> <version> [--seed N] [--only fn,fn] [--skip fn,fn]");
const seed = Number(option("seed") ?? getEnv("CUDA_TS_SWEEP_SEED") ?? Math.floor(Math.random() * 2 ** 31));
const randomRuns = Number(getEnv("CUDA_TS_SWEEP_RUNS") ?? 4);
const only = option("only")?.split(",");
const skip = new Set(option("skip")?.split(",") ?? []);
const excluded: Record<string, string> = (JSON.parse(getEnv("CUDA_TS_SWEEP_EXCLUDE") ?? "{}") as Record<string, Record<string, string>>)[`${library}@${version}`] ?? {};
const started = performance.now();
/** `CUDA_TS_SWEEP_TRACE=1`: every case on stderr before it runs (to find the one that crashes). */
const trace = getEnv("CUDA_TS_SWEEP_TRACE") === "1";

// ---------------------------------------------------------------------------------------------------------------
// The generated table, its report roles and its checked signatures.

interface GeneratedModule {
  readonly library: LibraryInfo;
  readonly functions: FunctionTable;
  readonly createChecked: (raw: never, rt: never) => object;
  readonly [name: string]: unknown;
}
interface RecordClassLike {
  new (): object;
  readonly $size: number;
  readonly $cName: string;
}

const mine = target(library, version);
const mod = (await import(join(root, "generated", mine.folder, library, "index.ts"))) as GeneratedModule;
const functions = mod.functions;
const report = JSON.parse(readFileSync(join(root, "generated", mine.folder, "report.json"), "utf8")) as { libraries: { library: string; roles: Record<string, string[]> }[] };
const roles = report.libraries.find((l) => l.library === library)?.roles ?? {};
const signatures = new Map<string, Signature>();
for (const line of readFileSync(join(root, "generated", mine.folder, library, "checked.ts"), "utf8").split("\n")) {
  const m = /^ {2}(\w+)\((.*)\): (.*);$/.exec(line);
  if (m === null) continue;
  const params = m[2] === "" ? [] : splitTopLevel(m[2]!).map((p) => {
    const colon = p.indexOf(":");
    const n = p.slice(0, colon).trim();
    return { name: n.replace(/\?$/, ""), optional: n.endsWith("?"), type: p.slice(colon + 1).trim() };
  });
  signatures.set(m[1]!, { params, result: m[3]! });
}

const recordClasses = new Map<string, RecordClassLike>();
for (const [k, v] of Object.entries(mod)) {
  if (typeof v === "function" && typeof (v as Partial<RecordClassLike>).$size === "number" && typeof (v as Partial<RecordClassLike>).$cName === "string") recordClasses.set(k, v as RecordClassLike);
}
const maxRecord = Math.max(0, ...[...recordClasses.values()].map((c) => c.$size));

/** The C parameter names of a function: the table's, else report.json's roles'. */
function cNames(name: string, spec: FunctionSpec): string[] {
  const fromSpec = (spec as { names?: readonly string[] }).names;
  if (fromSpec !== undefined && fromSpec.length === spec.parameters.length) return [...fromSpec];
  const r = roles[name];
  if (r !== undefined && r.length === spec.parameters.length) return r.map((x) => x.slice(0, x.indexOf(":")));
  return spec.parameters.map((_, i) => `arg${i}`);
}

/** Role text of parameter `index` ("output (…)", "count of …"), or undefined. */
function roleOf(name: string, index: number): string | undefined {
  const r = roles[name]?.[index];
  return r === undefined ? undefined : r.slice(r.indexOf(":") + 1).trim();
}

/**
 * The outputs a function's checked form reads a C string through (`const char**`: `string | null` in what it returns),
 * which the mock sets to NULL: a mock that wrote nothing there would leave what an earlier call left in that output
 * slot, and the checked style would read a string at whatever address that is. Other outputs are left alone: their
 * size is not in the table (an `int*` output may be 4 bytes of an 8-byte buffer, as the version queries' are).
 */
function stringOutputs(name: string): { index: number; bytes: number }[] {
  const sig = signatures.get(name);
  const spec = functions[name];
  if (sig === undefined || spec === undefined) return [];
  const names = cNames(name, spec);
  const outputs = spec.parameters.flatMap((_, i) => (roleOf(name, i)?.startsWith("output") ? [i] : []));
  const types = new Map<number, string>();
  const tuple = /^\[(.*)\]$/.exec(sig.result);
  if (tuple !== null) {
    for (const part of splitTopLevel(tuple[1]!)) {
      const colon = part.indexOf(":");
      const i = names.indexOf(part.slice(0, colon).trim());
      if (i >= 0) types.set(i, part.slice(colon + 1));
    }
  } else if (outputs.length === 1) types.set(outputs[0]!, sig.result);
  return outputs.filter((i) => /\bstring\b/.test(types.get(i) ?? "") && spec.parameters[i] === "pointer").map((index) => ({ index, bytes: 8 }));
}

// ---------------------------------------------------------------------------------------------------------------
// The mocks, the environment, the binding.

const dir = mkdtempSync(join(tmpdir(), `cuda-ts-sweep-${library}-${version}-`));
function build(t: MockTarget, table: FunctionTable, info: LibraryInfo, outputs?: (name: string) => { index: number; bytes: number }[]): { path: string; mock: MockSource } {
  const d = join(dir, `${t.folder}-${t.library}`);
  mkdirSync(d, { recursive: true });
  const mock = mockSource(table, { info, version: t.version, ...(outputs ? { outputs } : {}) });
  const path = buildMock(d, t.soname, mock.source);
  setEnv(overrideVariable(t.pathfinderName), path);
  return { path, mock };
}
for (const dep of MOCK_DEPENDENCIES[library] ?? []) {
  const t = target(dep, "13.0");
  const m = (await import(join(root, "generated", t.folder, dep, "functions.ts"))) as GeneratedModule;
  build(t, m.functions, m.library);
}
const { path: mockPath, mock } = build(mine, functions, mod.library, stringOutputs);
// The driver's and NVML's older tables load only where the driver may need them: here, always.
setEnv("CUDA_TS_TABLES", "all");
if (getEnv("CUDA_TS_DEBUG") === undefined) setEnv("CUDA_TS_DEBUG", "guards");

const { ffi } = await import("../../src/ffi/index.ts");
const { BindingArgumentError } = await import("../../src/bindings/errors.ts");
const { createBinding } = await import("../../src/bindings/binding.ts");

type AnyFn = (...args: unknown[]) => unknown;
type Binding = Record<string, unknown> & { raw: Record<string, AnyFn>; load(): { path: string }; table(): { table: { library: LibraryInfo }; reason: string } };

const BINDINGS: Readonly<Record<string, readonly [module: string, name: string]>> = {
  driver: ["driver-entry", "driver"],
  runtime: ["runtime", "runtime"],
  nvrtc: ["nvrtc", "nvrtc"],
  nvjitlink: ["nvjitlink", "nvjitlink"],
  nvvm: ["nvvm", "nvvm"],
  nvml: ["nvml", "nvml"],
  cufile: ["cufile", "cufile"],
  nvfatbin: ["nvfatbin", "nvfatbin"],
  cupti: ["cupti", "cupti"],
  cublas: ["cublas", "cublas"],
  cublaslt: ["cublaslt", "cublasLt"],
  curand: ["curand", "curand"],
  cufft: ["cufft", "cufft"],
  cusolver: ["cusolver", "cusolver"],
  cusparse: ["cusparse", "cusparse"],
  nccl: ["nccl", "nccl"],
};
// NVML, cuFile and libNVVM: the package binds the newest table whatever it loads (their version queries and sonames do
// not name the toolkit), so their older tables are swept through a binding made over that table alone.
const newestOnly = ["nvml", "cufile", "nvvm"].includes(library) && version !== "13.0";
let binding: Binding;
if (newestOnly) {
  binding = createBinding({
    library: mine.pathfinderName,
    info: mod.library,
    functions: mod.functions,
    createChecked: mod.createChecked as never,
    tables: () => [mod as never],
    makeError: (code: number | bigint, fn: string) => new Error(`${fn} returned ${code}`),
  }) as unknown as Binding;
} else {
  const [file, name] = BINDINGS[library]!;
  binding = (await import(`../../src/bindings/${file}.ts`))[name] as Binding;
}
const loaded = binding.load();
const choice = binding.table();
if (choice.table.library.ctkVersion !== version) {
  emit({ type: "fatal", library, version, message: `the binding chose the ${choice.table.library.ctkVersion} table (${choice.reason}) for the mock of ${version} at ${loaded.path}` });
  throw new Error(`wrong table: ${choice.table.library.ctkVersion}`);
}

// The mock's counters, read in place.
const native = ffi.openLibrary(mockPath);
const countersAt = native.bind("mock_counters", { parameters: [], result: "pointer" }) as () => unknown;
const counters = new Uint32Array(ffi.view(countersAt() as never, (mock.slotCount + 1) * 4));
const TOTAL = mock.totalSlot;

// ---------------------------------------------------------------------------------------------------------------
// What each checked function must return (test/bindings/argument-sweep-shapes.ts): from the report's roles, the
// checked signatures and raw.ts's C declarations.

const folder = join(root, "generated", mine.folder, library);
const manifest = JSON.parse(readFileSync(join(root, "headers-manifest.json"), "utf8")) as { libraries: Record<string, { nonErrors?: Record<string, string[]> }> };
const nonErrorNames = manifest.libraries[library]?.nonErrors ?? {};
const statusType = mod.library.status;
const statusEnum = statusType === undefined ? undefined : (mod[statusType] as Record<string, unknown> | undefined);
/** Generated modules by folder, for a record output whose class another library declares (none so far: loaded on demand). */
const folderModules = new Map<string, Record<string, unknown>>([[folder, mod]]);
const foldersWanted = new Set<string>();
const isRecordClass = (v: unknown): v is RecordClassLike => typeof v === "function" && typeof (v as Partial<RecordClassLike>).$size === "number";
const shapeRuntime: ShapeRuntime = {
  isPointer: ffi.isPointer,
  recordClass: (f, n) => {
    const m = folderModules.get(f);
    if (m === undefined) foldersWanted.add(f);
    const c = m?.[n];
    return isRecordClass(c) ? (c as unknown as abstract new () => object) : undefined;
  },
};
const shapeSource: ShapeSource = {
  folder,
  roles,
  signatures,
  c: cDeclarations(readFileSync(join(folder, "raw.ts"), "utf8"), (fn) => (functions[fn] as { names?: readonly string[] } | undefined)?.names),
  status: statusType,
  // The manifest's non-errors that this version's status enum has.
  nonErrors: (fn) => (nonErrorNames[fn] ?? []).filter((n) => statusEnum?.[n] !== undefined),
  resultStruct: (fn) => {
    const r = functions[fn]?.result;
    return typeof r === "object" ? r.struct.size : undefined;
  },
  runtime: shapeRuntime,
};
const shapeOf = (name: string): Expectation | { mismatch: string } => expectation(shapeSource, name, cNames(name, functions[name]!));
// A first pass names the other libraries whose records are returned; their modules load before the real one.
for (const name of Object.keys(functions)) if (signatures.has(name)) shapeOf(name);
for (const f of foldersWanted) folderModules.set(f, (await import(join(f, "index.ts"))) as Record<string, unknown>);

// ---------------------------------------------------------------------------------------------------------------
// Values.

/** Memory that right arguments point into: big enough for 4 elements of the largest record, kept alive throughout. */
const POOL_BYTES = Math.max(65536, 8 * maxRecord + 64);
const pool = Array.from({ length: 3 }, () => new ArrayBuffer(POOL_BYTES));
const poolPointers = pool.map((b) => ffi.pointerOf(b));
const poolViews: unknown[] = [new Uint8Array(pool[0]!), pool[1]!, new Float64Array(pool[2]!), new DataView(pool[0]!)];

type Wrong = readonly [label: string, value: unknown];
const COMMON: readonly Wrong[] = [
  ["undefined", undefined],
  ["a string", "1"],
  ["an object", {}],
  ["an array", []],
  ["a symbol", Symbol("sweep")],
];
/** Values that are not a Pointer on this runtime (on Bun, a Pointer is a non-negative safe integer or a bigint address). */
const NOT_POINTER: readonly Wrong[] = isBun
  ? [["-1 (a negative address)", -1], ["1.5 (a fractional address)", 1.5], ["NaN", Number.NaN], ["-1n (a negative address)", -1n]]
  : [["a number", 1], ["0 (a number, not null)", 0], ["a bigint", 1n]];

const RANGES: Readonly<Record<string, readonly [number, number]>> = {
  i8: [-128, 127],
  u8: [0, 255],
  i16: [-32768, 32767],
  u16: [0, 65535],
  i32: [-2147483648, 2147483647],
  u32: [0, 4294967295],
};
const RANGES64: Readonly<Record<string, readonly [bigint, bigint]>> = {
  i64: [-(2n ** 63n), 2n ** 63n - 1n],
  u64: [0n, 2n ** 64n - 1n],
};

interface Param {
  readonly name: string;
  /** Other spellings of the name an error may use (the C name of a renamed parameter: `function_` → `function`). */
  readonly aliases: readonly string[];
  readonly optional: boolean;
  readonly right: fc.Arbitrary<unknown>;
  readonly wrong: readonly Wrong[];
  /** A count (by value or in/out): the names of the buffers it sizes, in which units. */
  readonly countOf?: { readonly arrays: readonly string[]; readonly bytes: boolean; readonly wide: boolean };
  /** What a buffer parameter takes, for a count-too-large case: bytes, an array of strings, a string. */
  readonly buffer?: "bytes" | "strings" | "string";
}

const small = fc.integer({ min: 0, max: 4 });
function intParam(kind: string, count: boolean): Pick<Param, "right" | "wrong"> {
  const [min, max] = RANGES[kind]!;
  const right = count ? small : fc.oneof({ arbitrary: fc.integer({ min: Math.max(min, 0), max: Math.min(max, 4) }), weight: 2 }, { arbitrary: fc.integer({ min, max }), weight: 1 });
  const wrong: Wrong[] = [
    ...COMMON,
    ["null", null],
    ["true", true],
    ["a bigint (1n)", 1n],
    ["1.5 (fractional)", 1.5],
    ["NaN", Number.NaN],
    ["Infinity", Number.POSITIVE_INFINITY],
    [`${min - 1} (below ${kind})`, min - 1],
    [`${max + 1} (above ${kind})`, max + 1],
    ["2**53 (not safe)", 2 ** 53],
    ["-0 (no integer to Deno's FFI)", -0],
  ];
  if (count && min < 0) wrong.push(["-1 (a negative count)", -1]);
  return { right, wrong };
}
function int64Param(kind: string, count: boolean, numberOnly = false): Pick<Param, "right" | "wrong"> {
  const [min, max] = RANGES64[kind]!;
  const smallBig = fc.bigInt({ min: 0n, max: 4n });
  const right = count
    ? numberOnly
      ? small
      : fc.oneof(small, smallBig)
    : fc.oneof(
        { arbitrary: small, weight: 2 },
        { arbitrary: fc.integer({ min: kind === "u64" ? 0 : Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }), weight: 1 },
        ...(numberOnly ? [] : [{ arbitrary: fc.bigInt({ min, max }), weight: 2 }]),
      );
  const wrong: Wrong[] = [
    ...COMMON,
    ["null", null],
    ["true", true],
    ["1.5 (fractional)", 1.5],
    ["NaN", Number.NaN],
    ["Infinity", Number.POSITIVE_INFINITY],
    ["2**53 (not safe)", 2 ** 53],
    ["-(2**53) (not safe)", -(2 ** 53)],
  ];
  if (kind === "u64") wrong.push(["-1 (below u64)", -1], ["-1n (below u64)", -1n], ["2n**64n (above u64)", 2n ** 64n]);
  else wrong.push(["2n**63n (above i64)", 2n ** 63n], ["-(2n**63n)-1n (below i64)", -(2n ** 63n) - 1n]);
  if (count && kind === "i64") wrong.push(["-1 (a negative count)", -1], ["-1n (a negative count)", -1n]);
  return { right, wrong };
}
const floatParam: Pick<Param, "right" | "wrong"> = { right: fc.double(), wrong: [...COMMON, ["null", null], ["true", true], ["a bigint (1n)", 1n]] };
const boolParam: Pick<Param, "right" | "wrong"> = { right: fc.boolean(), wrong: [...COMMON, ["null", null], ["1", 1], ["0", 0]] };
const pointerRight = fc.constantFrom<unknown>(null, ...poolPointers);
const pointerWrong: readonly Wrong[] = [...COMMON, ["true", true], ["a Uint8Array", new Uint8Array(8)], ["an ArrayBuffer", new ArrayBuffer(8)], ...NOT_POINTER];

function structBytes(size: number): fc.Arbitrary<unknown> {
  return fc.constant(0).map(() => new Uint8Array(size));
}
function structWrong(size: number): Wrong[] {
  const w: Wrong[] = [...COMMON, ["null", null], ["a number", 1], [`an ArrayBuffer of ${size} bytes (not a Uint8Array)`, new ArrayBuffer(size)]];
  if (size > 0) w.push([`a Uint8Array of ${size - 1} bytes (short)`, new Uint8Array(size - 1)]);
  return w;
}

/** A record of another class than `cls` (for "a record of the wrong type"), if the module has one. */
function otherRecord(cls: RecordClassLike | undefined): Wrong[] {
  if (cls === undefined) return [];
  for (const c of recordClasses.values()) {
    if (c.$cName !== cls.$cName && c.$size >= cls.$size) return [[`a record of another type (${c.$cName})`, new c()]];
  }
  return [];
}

/** The raw style's parameter of native type `t`. */
function rawParam(name: string, t: NativeType): Param {
  const base = { name, aliases: [] as string[], optional: false };
  if (typeof t === "object") return { ...base, right: structBytes(t.struct.size), wrong: structWrong(t.struct.size) };
  switch (t) {
    case "i8":
    case "u8":
    case "i16":
    case "u16":
    case "i32":
    case "u32":
      return { ...base, ...intParam(t, false) };
    case "i64":
    case "u64":
      return { ...base, ...int64Param(t, false) };
    case "f32":
    case "f64":
      return { ...base, ...floatParam };
    case "bool":
      return { ...base, ...boolParam };
    default:
      return { ...base, right: pointerRight, wrong: pointerWrong };
  }
}

const recordOf = (cls: RecordClassLike): fc.Arbitrary<unknown> => fc.constant(0).map(() => new cls());
const pointerLikeRight = fc.oneof(pointerRight, fc.constantFrom<unknown>(...poolViews));
const pointerLikeWrong: readonly Wrong[] = [...COMMON, ["true", true], ...NOT_POINTER];
const safeString = fc.string({ minLength: 5, maxLength: 12 }).filter((s) => !s.includes("\0"));

/** The checked style's parameter `p` (of its signature), over native parameter `index` (undefined: not native). */
function checkedParam(fnName: string, p: { name: string; optional: boolean; type: string }, native: NativeType | undefined, role: string | undefined, cName: string | undefined): Param {
  const base = { name: p.name, aliases: cName !== undefined && cName !== p.name ? [cName] : [], optional: p.optional };
  const countMatch = role === undefined ? null : /^count of (.*?), (?:by value|in\/out pointer),(.*)$/.exec(role);
  const countOf = countMatch === null ? undefined : { arrays: countMatch[1]!.split(", "), bytes: /\bbytes\b/.test(countMatch[2]!), wide: false };
  const count = countOf !== undefined || p.name === "capacity";
  const t = p.type;
  const ids = t.match(/[A-Za-z_]\w*/g) ?? [];
  const cls = ids.map((id) => recordClasses.get(id)).find((c) => c !== undefined);
  const nativeKind = typeof native === "object" ? "struct" : native;
  if (p.optional && cls !== undefined) {
    // An output record the caller may pass in (`pci?: nvmlPciInfoExt_v1_t`).
    return { ...base, right: fc.oneof(fc.constant(undefined), recordOf(cls)), wrong: [["a string", "1"], ["an object", {}], ["a symbol", Symbol("sweep")], ["true", true], ["a number", 1], ...otherRecord(cls)] };
  }
  if (t === "PointerLike") return { ...base, right: pointerLikeRight, wrong: pointerLikeWrong, buffer: "bytes" };
  if (t === "string | PointerLike") {
    return {
      ...base,
      right: fc.oneof(safeString, pointerLikeRight),
      wrong: [["undefined", undefined], ["an object", {}], ["an array", []], ["a symbol", Symbol("sweep")], ["true", true], ["a string with NUL", "a\0b"], ...NOT_POINTER],
      buffer: "string",
    };
  }
  if (t === "readonly string[] | PointerLike") {
    return {
      ...base,
      right: fc.oneof(fc.array(safeString, { minLength: 6, maxLength: 8 }), pointerLikeRight),
      wrong: [["undefined", undefined], ["an object", {}], ["a symbol", Symbol("sweep")], ["true", true], ["a string (not an array)", "abc"], ["an array with a NUL string", ["a\0b"]], ["an array with a number", [1]], ...NOT_POINTER],
      buffer: "strings",
    };
  }
  if (t === "boolean") return { ...base, ...boolParam };
  if (t.startsWith("Uint8Array |") && typeof native === "object") {
    const size = native.struct.size;
    return { ...base, right: cls !== undefined ? fc.oneof(structBytes(size), recordOf(cls)) : structBytes(size), wrong: [...structWrong(size), ...otherRecord(cls)] };
  }
  if (nativeKind === "pointer" && (t === "number" || t === "bigint | number" || t === "number | bigint")) {
    // An in/out count the checked style writes into an output slot.
    const wide = t !== "number";
    const wrong: Wrong[] = [["-1 (a negative count)", -1], ["1.5 (fractional)", 1.5], ["NaN", Number.NaN], ["a string", "1"], ["an object", {}], ["a symbol", Symbol("sweep")], ["true", true]];
    if (!p.optional) wrong.push(["undefined", undefined]);
    return { ...base, right: p.optional ? fc.oneof(fc.constant(undefined), small) : wide ? fc.oneof(small, fc.bigInt({ min: 0n, max: 4n })) : small, wrong, ...(countOf ? { countOf: { ...countOf, wide } } : {}) };
  }
  if (native === undefined) {
    // `capacity`: how many elements to return, or undefined to ask the library.
    const wrong: Wrong[] = [["-1 (a negative count)", -1], ["1.5 (fractional)", 1.5], ["NaN", Number.NaN], ["a string", "1"], ["an object", {}], ["a symbol", Symbol("sweep")], ["true", true]];
    return { ...base, right: p.optional ? fc.oneof(fc.constant(undefined), small) : small, wrong };
  }
  if (nativeKind === "i8" || nativeKind === "u8" || nativeKind === "i16" || nativeKind === "u16" || nativeKind === "i32" || nativeKind === "u32") {
    return { ...base, ...intParam(nativeKind, count), ...(countOf ? { countOf } : {}) };
  }
  if (nativeKind === "i64" || nativeKind === "u64") {
    return { ...base, ...int64Param(nativeKind, count, t === "number"), ...(countOf ? { countOf: { ...countOf, wide: t !== "number" } } : {}) };
  }
  if (nativeKind === "f32" || nativeKind === "f64") return { ...base, ...floatParam };
  if (nativeKind === "bool") return { ...base, ...boolParam };
  if (cls !== undefined && nativeKind === "pointer") {
    return { ...base, right: recordOf(cls), wrong: [...COMMON, ["true", true], ...NOT_POINTER, ...otherRecord(cls)] };
  }
  // A handle (or function pointer): a Pointer.
  void fnName;
  return { ...base, right: pointerRight, wrong: pointerWrong };
}

// ---------------------------------------------------------------------------------------------------------------
// The sweep.

interface Mutation {
  readonly label: string;
  /** The parameters an error may name (empty: any). */
  readonly names: readonly string[];
  readonly apply: (args: readonly unknown[]) => unknown[];
}

interface Model {
  readonly params: readonly Param[];
  readonly required: number;
}

function mutations(model: Model): Mutation[] {
  const { params, required } = model;
  const out: Mutation[] = [];
  if (required > 0) out.push({ label: "one argument missing", names: [], apply: (a) => a.slice(0, required - 1) });
  out.push({
    label: "one argument extra",
    names: [],
    apply: (a) => {
      const full = [...a];
      while (full.length < params.length) full.push(undefined);
      return [...full, 0];
    },
  });
  params.forEach((p, i) => {
    for (const [label, value] of p.wrong) {
      out.push({
        label: `${p.name}: ${label}`,
        names: [p.name, ...p.aliases],
        apply: (a) => {
          const b = [...a];
          while (b.length <= i) b.push(undefined);
          b[i] = value;
          return b;
        },
      });
    }
  });
  // A count larger than the buffer passed with it.
  params.forEach((p, ci) => {
    if (p.countOf === undefined) return;
    for (const arrayName of p.countOf.arrays) {
      const bi = params.findIndex((q) => q.name === arrayName || q.aliases.includes(arrayName));
      const b = params[bi];
      if (b === undefined || b.buffer === undefined) continue;
      for (const k of [0, 3]) {
        let buffer: unknown;
        let n: number;
        if (b.buffer === "strings") [buffer, n] = [Array.from({ length: k }, () => "s"), k + 1];
        else if (b.buffer === "string") [buffer, n] = ["s".repeat(k), k + 2];
        else [buffer, n] = [new Uint8Array(k), k + 1];
        const countValue = p.countOf.wide && k > 0 ? BigInt(n) : n;
        const what = b.buffer === "strings" ? `${k} strings` : b.buffer === "string" ? `a string of ${k} bytes` : `a Uint8Array of ${k} bytes`;
        out.push({
          label: `${p.name}: ${n} for ${b.name} (${what})`,
          names: [p.name, b.name, ...p.aliases, ...b.aliases],
          apply: (a) => {
            const c = [...a];
            while (c.length <= Math.max(ci, bi)) c.push(undefined);
            c[ci] = countValue;
            c[bi] = buffer;
            return c;
          },
        });
      }
    }
  });
  return out;
}

interface Failure {
  readonly kind: string;
  readonly case: string;
  readonly detail: string;
}

function describeError(e: unknown): string {
  if (e instanceof Error) return `${e.name}: ${e.message}`.slice(0, 300);
  try {
    return `threw ${String(e)}`;
  } catch {
    return "threw a value";
  }
}

function hash(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
}

let cases = 0;
let swept = 0;
let failedFunctions = 0;
const byKind = new Map<string, number>();
const byCase = new Map<string, number>();
const MAX_LISTED = 4;

/** What the shape checks saw: checked functions and values, by shape. */
const shapeStats = { functions: 0, withOutputs: 0, calls: 0, values: new Map<string, number>(), mismatches: [] as { function: string; detail: string }[], leftToCaller: [] as string[] };

/** Why `returned` (of a call with `args`) does not have the shape `shape` promises, or undefined. */
function shapeFailure(shape: Expectation, returned: unknown, args: readonly unknown[]): string | undefined {
  const { values } = shape;
  if (values.length === 0) return returned === undefined ? undefined : `expected undefined (no outputs), got ${show(returned)}`;
  if (values.length === 1) {
    const why = values[0]!.check(returned, args);
    return why === undefined ? undefined : `${values[0]!.name}: ${why}`;
  }
  if (!Array.isArray(returned)) return `expected a tuple of ${values.length} [${values.map((v) => v.name).join(", ")}], got ${show(returned)}`;
  if (returned.length !== values.length) return `expected a tuple of ${values.length} [${values.map((v) => v.name).join(", ")}], got ${returned.length} values`;
  for (const [k, v] of values.entries()) {
    const why = v.check(returned[k], args);
    if (why !== undefined) return `${v.name} (value ${k}): ${why}`;
  }
  return undefined;
}

function sweep(style: "raw" | "checked", name: string, call: AnyFn, model: Model, slot: number, shape?: Expectation): void {
  const failures: Failure[] = [];
  const fail = (kind: string, c: string, detail: string): void => {
    failures.push({ kind, case: c, detail });
  };
  const fnSeed = (seed ^ hash(`${style} ${name}`)) | 0;
  const trim = (a: readonly unknown[]): unknown[] => {
    const b = [...a];
    while (b.length > model.required && b[b.length - 1] === undefined && model.params[b.length - 1]?.optional) b.pop();
    return b;
  };
  const rightArb = fc.tuple(fc.tuple(...model.params.map((p) => p.right)), fc.boolean()).map(([a, t]) => (t ? trim(a) : a));

  const wrongCase = (args: readonly unknown[], m: Mutation): boolean => {
    cases++;
    const bad = m.apply(args);
    if (trace) progress(`  ${m.label}: ${bad.map(show).join(", ")}`);
    const own = counters[slot]!;
    const total = counters[TOTAL]!;
    let returned = false;
    let error: unknown;
    try {
      call(...bad);
      returned = true;
    } catch (e) {
      error = e;
    }
    const moved = counters[slot]! - own + (counters[TOTAL]! - total);
    if (returned) fail("wrong accepted", m.label, moved > 0 ? "reached the native function" : "returned without a native call");
    else if (!(error instanceof BindingArgumentError)) fail("wrong: another error", m.label, `${describeError(error)}${moved > 0 ? " (after a native call)" : ""}`);
    else {
      if (moved > 0) fail("wrong: native call before the error", m.label, describeError(error));
      if (error.functionName !== name) fail("wrong: error names another function", m.label, `functionName ${JSON.stringify(error.functionName)}`);
      if (m.names.length > 0 && !m.names.some((n) => error.parameter === n || error.parameter.startsWith(`${n}[`) || error.parameter.startsWith(`${n}.`))) {
        fail("wrong: error names another parameter", m.label, `parameter ${JSON.stringify(error.parameter)}, expected ${m.names.join(" or ")}`);
      }
    }
    return true;
  };
  const ms = mutations(model);
  if (ms.length > 0) {
    const base = fc.sample(rightArb, { numRuns: 1, seed: fnSeed })[0]!;
    fc.assert(
      fc.property(rightArb, fc.constantFrom(...ms), (args, m) => wrongCase(args, m)),
      // Examples count in numRuns: every enumerated wrong case once, then random ones.
      { seed: fnSeed, numRuns: ms.length + randomRuns, examples: ms.map((m) => [base, m] as [unknown[], Mutation]) },
    );
  }
  fc.assert(
    fc.property(rightArb, (args) => {
      cases++;
      if (trace) progress(`  right: ${args.map(show).join(", ")}`);
      const own = counters[slot]!;
      let returned: unknown;
      try {
        returned = call(...args);
      } catch (e) {
        fail("right threw", `right arguments`, `${describeError(e)} (arguments: ${args.map(show).join(", ")})`);
        return true;
      }
      const calls = counters[slot]! - own;
      if (calls < 1) fail("right: no native call", "right arguments", `arguments: ${args.map(show).join(", ")}`);
      else if (style === "raw" && calls !== 1) fail("right: several native calls", "right arguments", `${calls} calls`);
      if (shape !== undefined) {
        shapeStats.calls++;
        const why = shapeFailure(shape, returned, args);
        if (why !== undefined) fail("right: wrong shape returned", "right arguments", `${why} (arguments: ${args.map(show).join(", ")})`);
      }
      return true;
    }),
    { seed: fnSeed, numRuns: randomRuns * 2 + 2 },
  );

  swept++;
  if (failures.length === 0) return;
  failedFunctions++;
  const listed = new Map<string, Failure[]>();
  for (const f of failures) {
    byKind.set(`${style} / ${f.kind}`, (byKind.get(`${style} / ${f.kind}`) ?? 0) + 1);
    const generic = `${style} / ${f.kind} / ${f.case.replace(/^[^:]*: /, "")}`;
    byCase.set(generic, (byCase.get(generic) ?? 0) + 1);
    const l = listed.get(f.kind) ?? [];
    if (l.length < MAX_LISTED && !l.some((x) => x.case === f.case)) l.push(f);
    listed.set(f.kind, l);
  }
  emit({ type: "failures", library, version, runtime: runtimeName, style, function: name, count: failures.length, failures: [...listed.values()].flat() });
}

function show(v: unknown): string {
  if (v === null || v === undefined) return String(v);
  if (typeof v === "bigint") return `${v}n`;
  if (typeof v === "string") return JSON.stringify(v.length > 12 ? `${v.slice(0, 12)}…` : v);
  if (typeof v === "symbol") return "a symbol";
  if (Array.isArray(v)) return `[${v.length}]`;
  if (ArrayBuffer.isView(v)) return `${v.constructor.name}(${v.byteLength})`;
  if (v instanceof ArrayBuffer) return `ArrayBuffer(${v.byteLength})`;
  if (typeof v === "object") return Object.getPrototypeOf(v) === null ? "Pointer" : (v.constructor?.name ?? "object");
  return String(v);
}

const notSwept: { function: string; reason: string }[] = [];
for (const [name, spec] of Object.entries(functions)) {
  if (only !== undefined && !only.includes(name)) continue;
  if (excluded[name] !== undefined) {
    notSwept.push({ function: name, reason: excluded[name]! });
    continue;
  }
  if (skip.has(name)) {
    notSwept.push({ function: name, reason: "skipped after a crash (the test reports the crash)" });
    continue;
  }
  const unsupported = ffi.unsupportedReason(spec, name);
  const slot = mock.slots.get(name)!;
  const names = cNames(name, spec);
  // Raw style.
  const raw = binding.raw[name];
  if (typeof raw !== "function") {
    emit({ type: "failures", library, version, runtime: runtimeName, style: "raw", function: name, count: 1, failures: [{ kind: "missing", case: "-", detail: "binding.raw has no such function" }] });
    failedFunctions++;
  } else if (unsupported !== null) {
    notSwept.push({ function: `raw ${name}`, reason: `not callable on ${runtimeName}: ${unsupported}` });
  } else {
    progress(`at raw ${name}`);
    const model: Model = { params: spec.parameters.map((t, i) => rawParam(names[i]!, t)), required: spec.parameters.length };
    sweep("raw", name, (...a) => binding.raw[name]!(...a), model, slot);
  }
  // Checked style.
  const sig = signatures.get(name);
  const checked = binding[name];
  if (sig === undefined || typeof checked !== "function") {
    notSwept.push({ function: `checked ${name}`, reason: "no checked form in the generated table" });
    continue;
  }
  if (unsupported !== null) {
    notSwept.push({ function: `checked ${name}`, reason: `not callable on ${runtimeName}: ${unsupported}` });
    continue;
  }
  const params = sig.params.map((p) => {
    const cIndex = names.findIndex((n) => n === p.name || `${n}_` === p.name);
    return checkedParam(name, p, cIndex >= 0 ? spec.parameters[cIndex] : undefined, cIndex >= 0 ? roleOf(name, cIndex) : undefined, cIndex >= 0 ? names[cIndex] : undefined);
  });
  let required = params.length;
  while (required > 0 && params[required - 1]!.optional) required--;
  const shape = shapeOf(name);
  if ("mismatch" in shape) {
    // The declared return type and the roles disagree: a generator bug, reported as this function's failure.
    shapeStats.mismatches.push({ function: name, detail: shape.mismatch });
    emit({ type: "failures", library, version, runtime: runtimeName, style: "checked", function: name, count: 1, failures: [{ kind: "shape: checked.ts disagrees with the roles", case: "return type", detail: shape.mismatch }] });
    failedFunctions++;
    const kind = "checked / shape: checked.ts disagrees with the roles";
    byKind.set(kind, (byKind.get(kind) ?? 0) + 1);
    byCase.set(`${kind} / return type`, (byCase.get(`${kind} / return type`) ?? 0) + 1);
  } else {
    shapeStats.functions++;
    if (shape.values.some((v) => v.role === "output" || v.role === "array" || v.role === "size")) shapeStats.withOutputs++;
    for (const v of shape.values) shapeStats.values.set(`${v.role} ${v.shape}`, (shapeStats.values.get(`${v.role} ${v.shape}`) ?? 0) + 1);
    if (shape.leftToCaller.length > 0) shapeStats.leftToCaller.push(`${name} (${shape.leftToCaller.join(", ")})`);
  }
  progress(`at checked ${name}`);
  sweep("checked", name, (...a) => (binding[name] as AnyFn)(...a), { params, required }, slot, "mismatch" in shape ? undefined : shape);
}

const shapeValues = [...shapeStats.values.entries()].sort((a, b) => b[1] - a[1]);
const shapes = {
  line:
    `shapes ${library} ${version} (${runtimeName}): ${shapeStats.withOutputs} functions with outputs checked, ${shapeStats.functions - shapeStats.withOutputs} without ` +
    `(${shapeStats.calls} calls; ${shapeValues.reduce((n, [, c]) => n + c, 0)} values: ${shapeValues.map(([k, c]) => `${c} ${k}`).join(", ") || "none"}), ` +
    `mismatches: ${shapeStats.mismatches.length}` +
    (shapeStats.mismatches.length > 0 ? ` (${shapeStats.mismatches.map((m) => m.function).join(", ")})` : "") +
    (shapeStats.leftToCaller.length > 0 ? `; outputs the roles name but the checked signature takes: ${shapeStats.leftToCaller.join(", ")}` : ""),
  functions: shapeStats.functions,
  withOutputs: shapeStats.withOutputs,
  calls: shapeStats.calls,
  values: Object.fromEntries(shapeValues),
  mismatches: shapeStats.mismatches,
  leftToCaller: shapeStats.leftToCaller,
};
writeSync(1, `${shapes.line}\n`);

emit({
  type: "summary",
  library,
  version,
  runtime: runtimeName,
  table: choice.table.library.ctkVersion,
  reason: choice.reason,
  loadedFrom: loaded.path,
  seed,
  functions: Object.keys(functions).length,
  swept,
  cases,
  failedFunctions,
  byKind: Object.fromEntries(byKind),
  byCase: Object.fromEntries([...byCase.entries()].sort((a, b) => b[1] - a[1])),
  notSwept,
  shapes,
  ms: Math.round(performance.now() - started),
});
// The mocks stay loaded (Linux keeps a deleted file's mapping); their sources too where CUDA_TS_SWEEP_KEEP=1.
if (getEnv("CUDA_TS_SWEEP_KEEP") !== "1") rmSync(dir, { recursive: true, force: true });
