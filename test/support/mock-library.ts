/**
 * Mock NVIDIA libraries generated from the generated function tables (generated/<version>/<library>/functions.ts):
 * C source for a shared library that exports every function's `symbol` (and `ptdsSymbol`), each of which counts its
 * calls and returns success, built with gcc under the soname the pathfinder looks for. For the argument sweep
 * (test/bindings/argument-sweep.test.ts), and for any test that needs a library that answers every call.
 *
 * What a mock function does:
 * - counts the call in a slot of a counter array (`mock_counters()`, read through the FFI; `mock_calls(name)` by the
 *   table's C name), and in the slot after the last, the calls of all table functions together;
 * - writes zeros into the outputs it is told to (`outputs`: the sweep names the `const char**` outputs the checked
 *   style reads a string through, so that it reads NULL rather than what an earlier call left in its output slot;
 *   the table does not say how large other outputs are, and writing past a 4-byte `int*` output corrupts the
 *   caller's memory); writes the version of the table under test into version queries' outputs
 *   (`cudaRuntimeGetVersion`, `nvrtcVersion`, ...); it writes only through pointers that can be addresses (not below
 *   64 KiB, not above 2^47), so that a bad pointer that slips past the bindings' checks is counted, not a segfault;
 *   the math libraries' `<lib>GetProperty` report the version of the table's headers (MAJOR_VERSION, MINOR_VERSION,
 *   PATCH_LEVEL by the type asked for), which their bindings choose the table by;
 * - returns 0 (success), NULL for pointer results, zeros for a struct result. Each function is declared with its
 *   real C prototype (structs by value as structs of the same size and x86-64 passing class), so gcc does what the
 *   ABI asks, a struct returned in memory included (it returns the hidden pointer in rax).
 *
 * A libcuda mock also answers `cuGetProcAddress_v2` (and `cuGetProcAddress`) by base name and ABI version, as the
 * driver binding resolves every function (`procAddress` in the table), and `cuDriverGetVersion`. The exported
 * `cuGetProcAddress_v2` counts in a slot of its own (`RESOLVER_SLOT`): it is what the binding resolves functions
 * through, and the table's `cuGetProcAddress` (what `driver.raw.cuGetProcAddress` resolves to) counts apart from it.
 *
 * @module
 */
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { FunctionSpec, FunctionTable, LibraryInfo } from "../../src/tables-runtime/spec.ts";
import type { NativeType, StructLayout } from "../../src/ffi/types.ts";

/** What one sweep target (a library at one table version) is loaded as. */
export interface MockTarget {
  /** The generated library's name (driver, runtime, nvrtc, ..., nccl). */
  readonly library: string;
  /** The table's version ("13.0", "12.4", "2.28"). */
  readonly version: string;
  /** The folder under generated/ ("cuda-13.0", "nccl-2.28"). */
  readonly folder: string;
  /** The pathfinder's name of the shared library (cuda, cudart, nvJitLink, ...). */
  readonly pathfinderName: string;
  /** The file name the mock is built as (the soname the pathfinder looks for; it chooses some tables by it). */
  readonly soname: string;
}

const SONAMES: Readonly<Record<string, readonly [pathfinderName: string, cuda13: string, cuda12: string]>> = {
  driver: ["cuda", "libcuda.so.1", "libcuda.so.1"],
  runtime: ["cudart", "libcudart.so.13", "libcudart.so.12"],
  nvrtc: ["nvrtc", "libnvrtc.so.13", "libnvrtc.so.12"],
  nvjitlink: ["nvJitLink", "libnvJitLink.so.13", "libnvJitLink.so.12"],
  nvvm: ["nvvm", "libnvvm.so.4", "libnvvm.so.4"],
  nvml: ["nvml", "libnvidia-ml.so.1", "libnvidia-ml.so.1"],
  cufile: ["cufile", "libcufile.so.0", "libcufile.so.0"],
  nvfatbin: ["nvfatbin", "libnvfatbin.so.13", "libnvfatbin.so.12"],
  cupti: ["cupti", "libcupti.so.13", "libcupti.so.12"],
  cublas: ["cublas", "libcublas.so.13", "libcublas.so.12"],
  cublaslt: ["cublasLt", "libcublasLt.so.13", "libcublasLt.so.12"],
  curand: ["curand", "libcurand.so.10", "libcurand.so.10"],
  cufft: ["cufft", "libcufft.so.12", "libcufft.so.11"],
  cusolver: ["cusolver", "libcusolver.so.12", "libcusolver.so.11"],
  cusparse: ["cusparse", "libcusparse.so.12", "libcusparse.so.12"],
  nccl: ["nccl", "libnccl.so.2", "libnccl.so.2"],
};

/** Every library and table version the package carries, as sweep targets (CUDA 13.0, 12.4, NCCL 2.28, 2.22). */
export const MOCK_TARGETS: readonly MockTarget[] = [
  ...["driver", "runtime", "nvrtc", "nvjitlink", "nvvm", "nvml", "cufile", "nvfatbin", "cupti", "cublas", "cublaslt", "curand", "cufft", "cusolver", "cusparse"].map((l) => target(l, "13.0")),
  ...["driver", "runtime", "nvrtc", "nvjitlink", "nvvm", "nvml", "cufile", "nvfatbin", "cupti", "cublas", "cublaslt", "curand", "cufft", "cusolver", "cusparse"].map((l) => target(l, "12.4")),
  target("nccl", "2.28"),
  target("nccl", "2.22"),
];

/** The sweep target of `library` at table `version`. */
export function target(library: string, version: string): MockTarget {
  const s = SONAMES[library];
  if (s === undefined) throw new RangeError(`no mock target for ${library}`);
  const nccl = library === "nccl";
  return { library, version, folder: `${nccl ? "nccl" : "cuda"}-${version}`, pathfinderName: s[0], soname: nccl ? s[1] : version.startsWith("12.") ? s[2] : s[1] };
}

/**
 * The libraries the pathfinder loads before `library` (the catalog's dependencies, src/pathfinder/catalog.ts): their
 * mocks must be there too when the override variables point at mocks.
 */
export const MOCK_DEPENDENCIES: Readonly<Record<string, readonly string[]>> = {
  cublas: ["cublaslt"],
  cusparse: ["nvjitlink"],
  cusolver: ["nvjitlink", "cusparse", "cublaslt", "cublas"],
};

/** `CUDA_TS_<NAME>_PATH` for a pathfinder name (src/pathfinder/catalog.ts's overrideVariable). */
export function overrideVariable(pathfinderName: string): string {
  return `CUDA_TS_${pathfinderName.toUpperCase().replace(/[^A-Z0-9]/g, "_")}_PATH`;
}

/** A version query's outputs: parameter index → the int32 value written there. */
type Writes = Readonly<Record<number, number>>;

/** The version each table stands for, as each library's version query reports it. */
function versionWrites(library: string, version: string): Readonly<Record<string, Writes>> {
  const [major, minor] = version.split(".").map(Number) as [number, number];
  const cuda = major * 1000 + minor * 10;
  switch (library) {
    case "driver":
      return { cuDriverGetVersion: { 0: cuda } };
    case "runtime":
      return { cudaRuntimeGetVersion: { 0: cuda }, cudaDriverGetVersion: { 0: cuda } };
    case "nvrtc":
      return { nvrtcVersion: { 0: major, 1: minor } };
    case "nvjitlink":
      return { nvJitLinkVersion: { 0: major, 1: minor } };
    case "nvfatbin":
      return { nvFatbinVersion: { 0: major, 1: minor } };
    case "nvvm":
      return { nvvmVersion: { 0: 2, 1: 0 }, nvvmIRVersion: { 0: 2, 1: 0, 2: 3, 3: 2 } };
    case "nvml":
      return { nvmlSystemGetCudaDriverVersion: { 0: cuda }, nvmlSystemGetCudaDriverVersion_v2: { 0: cuda } };
    case "cufile":
      return { cuFileGetVersion: { 0: 1150 } };
    case "cupti":
      return { cuptiGetVersion: { 0: major >= 13 ? 130000 : 120400 } };
    case "cublas":
      return { cublasGetVersion: { 1: major * 10000 + minor * 100 }, cublasGetVersion_v2: { 1: major * 10000 + minor * 100 } };
    case "curand":
      return { curandGetVersion: { 0: major >= 13 ? 10400 : 10305 } };
    case "cufft":
      return { cufftGetVersion: { 0: major >= 13 ? 12000 : 11201 } };
    case "cusolver":
      return { cusolverGetVersion: { 0: major >= 13 ? 12000 : 11601 } };
    case "cusparse":
      return { cusparseGetVersion: { 1: major >= 13 ? 12600 : 12301 } };
    case "nccl":
      // NCCL_VERSION_CODE: major·10000 + minor·100 + patch.
      return { ncclGetVersion: { 0: major * 10000 + minor * 100 + 3 } };
    default:
      return {};
  }
}

/**
 * The (major, minor, patch) each math library's `<lib>GetProperty` reports for a table version (what its headers
 * declare): the math bindings choose their table by it (src/bindings/library-version.ts).
 */
function propertyVersion(library: string, version: string): { readonly fn: string; readonly value: readonly [number, number, number] } | undefined {
  const [major, minor] = version.split(".").map(Number) as [number, number];
  const cuda13 = major >= 13;
  switch (library) {
    case "cublas":
      return { fn: "cublasGetProperty", value: [major, minor, 0] };
    case "cublaslt":
      return { fn: "cublasLtGetProperty", value: [major, minor, 0] };
    case "cufft":
      return { fn: "cufftGetProperty", value: cuda13 ? [12, 0, 0] : [11, 2, 1] };
    case "curand":
      return { fn: "curandGetProperty", value: cuda13 ? [10, 4, 0] : [10, 3, 5] };
    case "cusolver":
      return { fn: "cusolverGetProperty", value: cuda13 ? [12, 0, 4] : [11, 6, 1] };
    case "cusparse":
      return { fn: "cusparseGetProperty", value: cuda13 ? [12, 6, 3] : [12, 3, 1] };
    default:
      return undefined;
  }
}

/** Options of {@link mockSource}. */
export interface MockSourceOptions {
  /** The table's facts. */
  readonly info: LibraryInfo;
  /** The table's version ("13.0", "2.28"): what the version queries report. */
  readonly version: string;
  /** Per function, the indices of its single-value outputs and how many bytes to zero there (8 at most). */
  readonly outputs?: (name: string) => readonly { readonly index: number; readonly bytes: number }[];
}

/** The mock's C source, and which counter slot each table function counts in. */
export interface MockSource {
  readonly source: string;
  /** Table C name → counter slot (functions bound to one native function share one). */
  readonly slots: ReadonlyMap<string, number>;
  /** The number of slots, the resolver's included. */
  readonly slotCount: number;
  /** The slot after the last: the calls of every table function together (the resolver's not counted). */
  readonly totalSlot: number;
  /** The slot of the exported cuGetProcAddress_v2/cuGetProcAddress (libcuda only), else -1. */
  readonly resolverSlot: number;
}

const SCALAR_C: Readonly<Record<string, string>> = {
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

/**
 * A C struct type passed and returned as `layout` is on x86-64 System V: in memory (over 16 bytes), a byte array of
 * its size and alignment; in registers, one member per eightbyte of its class (INTEGER: an integer of the bytes
 * left, SSE: a double or a float), which gcc classifies as the original.
 */
function structDefinition(name: string, layout: StructLayout): string {
  if (layout.passing.kind === "memory") {
    if (layout.size <= 16) throw new Error(`${layout.name}: a struct of ${layout.size} bytes passed in memory (misaligned members) is not mocked`);
    return `typedef struct { unsigned char b[${layout.size}]; } __attribute__((aligned(${Math.max(1, layout.align)}))) ${name};`;
  }
  const members: string[] = [];
  layout.passing.classes.forEach((cls, k) => {
    const left = Math.min(8, layout.size - 8 * k);
    if (cls === "NONE") throw new Error(`${layout.name}: an eightbyte of padding only is not mocked`);
    if (cls === "SSE") members.push(left > 4 ? `double w${k};` : `float w${k};`);
    else members.push(left > 4 ? `uint64_t w${k};` : left > 2 ? `uint32_t w${k};` : left > 1 ? `uint16_t w${k};` : `uint8_t w${k};`);
  });
  return `typedef struct { ${members.join(" ")} } ${name};`;
}

/** The C source of a mock of one generated table (see the module's documentation). */
export function mockSource(functions: FunctionTable, options: MockSourceOptions): MockSource {
  const isDriver = options.info.name === "driver";
  const writes = versionWrites(options.info.name, options.version);
  const property = propertyVersion(options.info.name, options.version);
  const structs = new Map<string, string>(); // layout key → C type name
  const defs: string[] = [];
  const cType = (t: NativeType): string => {
    if (typeof t === "string") return SCALAR_C[t]!;
    const key = `${t.struct.name}/${t.struct.size}/${t.struct.align}/${JSON.stringify(t.struct.passing)}`;
    let n = structs.get(key);
    if (n === undefined) {
      n = `mock_struct_${structs.size}`;
      structs.set(key, n);
      defs.push(structDefinition(n, t.struct));
    }
    return n;
  };
  // One native function (slot) per implementation: by symbol, or for the driver by what cuGetProcAddress hands out
  // (base name and ABI version: two table entries of the same name and version are one driver function).
  const slots = new Map<string, number>();
  const implOfKey = new Map<string, number>();
  const impls: { name: string; spec: FunctionSpec }[] = [];
  for (const [name, spec] of Object.entries(functions)) {
    const key = isDriver && spec.procAddress !== undefined ? `${spec.procAddress.name}@${spec.procAddress.version}` : spec.symbol;
    let slot = implOfKey.get(key);
    if (slot === undefined) {
      slot = impls.length;
      implOfKey.set(key, slot);
      impls.push({ name, spec });
    }
    slots.set(name, slot);
  }
  const resolverSlot = isDriver ? impls.length : -1;
  const slotCount = impls.length + (isDriver ? 1 : 0);
  const body: string[] = [];
  const exported = new Set<string>();
  const exports: string[] = [];
  const exportAs = (symbol: string | undefined, slot: number, proto: (n: string) => string): void => {
    if (symbol === undefined || exported.has(symbol)) return;
    exported.add(symbol);
    exports.push(`EXPORT ${proto(symbol)} __attribute__((alias("mock_impl_${slot}")));`);
  };
  impls.forEach(({ name, spec }, slot) => {
    const params = spec.parameters.map((p, i) => `${cType(p)} a${i}`);
    const result = cType(spec.result);
    const proto = (n: string): string => `${result} ${n}(${params.length === 0 ? "void" : params.join(", ")})`;
    const lines = [`  counts[${slot}]++; counts[${slotCount}]++;`];
    for (const o of options.outputs?.(name) ?? []) {
      if (spec.parameters[o.index] === "pointer" && o.bytes > 0) lines.push(`  if (OK(a${o.index})) memset(a${o.index}, 0, ${Math.min(8, o.bytes)});`);
    }
    if (property?.fn === name && spec.parameters[1] === "pointer") {
      const [a, b, c] = property.value;
      lines.push(`  if (OK(a1)) *(int32_t *)a1 = a0 == 0 ? ${a} : a0 == 1 ? ${b} : ${c};`);
    }
    for (const [index, value] of Object.entries(writes[name] ?? {})) {
      if (spec.parameters[Number(index)] === "pointer") lines.push(`  if (OK(a${index})) *(int32_t *)a${index} = ${value};`);
    }
    if (isDriver && name === "cuGetProcAddress") lines.push("  return (" + result + ")resolve(a0, a1, a2, a4);");
    else if (spec.result === "void") lines.push("  return;");
    else if (typeof spec.result === "object") lines.push(`  ${result} r; memset(&r, 0, sizeof r); return r;`);
    else lines.push(`  return (${result})0;`);
    body.push(`${proto(`mock_impl_${slot}`)} {\n${lines.join("\n")}\n}`);
  });
  for (const [name, spec] of Object.entries(functions)) {
    const slot = slots.get(name)!;
    const params = spec.parameters.map((p, i) => `${cType(p)} a${i}`);
    const proto = (n: string): string => `${cType(spec.result)} ${n}(${params.length === 0 ? "void" : params.join(", ")})`;
    if (isDriver && (spec.symbol === "cuGetProcAddress_v2" || spec.symbol === "cuGetProcAddress")) continue; // the resolver's
    exportAs(spec.symbol, slot, proto);
    exportAs(spec.ptdsSymbol, slot, proto);
  }
  const procs = isDriver
    ? [...implOfKey.entries()].filter(([k]) => k.includes("@")).map(([k, slot]) => {
        const [n, v] = k.split("@") as [string, string];
        return `  { ${JSON.stringify(n)}, ${v}, (void *)mock_impl_${slot} },`;
      })
    : [];
  const names = [...slots.entries()].map(([n, s]) => `  { ${JSON.stringify(n)}, ${s} },`);
  const source = `/* Generated by test/support/mock-library.ts from the ${options.info.name} ${options.version} table: every function counts its call and succeeds. */
#include <stdint.h>
#include <string.h>
#define EXPORT __attribute__((visibility("default")))
/* An address C may write through: not in the first 64 KiB, not past user space (a bad pointer is counted, not followed). */
#define OK(p) ((uintptr_t)(p) >= 65536u && (uintptr_t)(p) < ((uintptr_t)1 << 47))
static uint32_t counts[${slotCount + 1}];
EXPORT uint32_t *mock_counters(void) { return counts; }
EXPORT uint32_t mock_slot_count(void) { return ${slotCount}; }
static const struct { const char *name; uint32_t slot; } mock_names[] = {
${names.join("\n")}
  { 0, 0 }
};
/* The calls counted for a table function (its C name), or 0xffffffff for a name the table does not have. */
EXPORT uint32_t mock_calls(const char *name) {
  if (!OK(name)) return 0xffffffffu;
  for (int i = 0; mock_names[i].name; i++) if (strcmp(mock_names[i].name, name) == 0) return counts[mock_names[i].slot];
  return 0xffffffffu;
}
${defs.join("\n")}
${isDriver ? "static uint64_t resolve(void *symbol, void *pfn, int version, void *status);" : ""}
${body.join("\n")}
${exports.join("\n")}
${
  isDriver
    ? `static const struct { const char *name; int version; void *fn; } procs[] = {
${procs.join("\n")}
  { 0, 0, 0 }
};
/* cuGetProcAddress: the function of that base name with the newest ABI not newer than the version asked for. */
static uint64_t resolve(void *symbol, void *pfn, int version, void *status) {
  void *best = 0; int bestVersion = -1, named = 0;
  if (OK(symbol)) {
    for (int i = 0; procs[i].name; i++) {
      if (strcmp(procs[i].name, (const char *)symbol) != 0) continue;
      named = 1;
      if (procs[i].version <= version && procs[i].version > bestVersion) { best = procs[i].fn; bestVersion = procs[i].version; }
    }
  }
  if (OK(pfn)) *(void **)pfn = best;
  /* CU_GET_PROC_ADDRESS_SUCCESS, _SYMBOL_NOT_FOUND, _VERSION_NOT_SUFFICIENT */
  if (OK(status)) *(int32_t *)status = best ? 0 : named ? 2 : 1;
  return 0;
}
EXPORT uint32_t cuGetProcAddress_v2(void *symbol, void **pfn, int version, uint64_t flags, void *status) {
  (void)flags; counts[${resolverSlot}]++; return (uint32_t)resolve(symbol, pfn, version, status);
}
EXPORT uint32_t cuGetProcAddress(void *symbol, void **pfn, int version, uint64_t flags) {
  (void)flags; counts[${resolverSlot}]++; return (uint32_t)resolve(symbol, pfn, version, 0);
}`
    : ""
}
`;
  return { source, slots, slotCount, totalSlot: slotCount, resolverSlot };
}

/** gcc's path, or undefined where it is not installed. */
export function findGcc(): string | undefined {
  const r = spawnSync("gcc", ["--version"], { encoding: "utf8" });
  return r.status === 0 ? "gcc" : undefined;
}

/** Why the mocks cannot be built here (no gcc), or undefined. */
export const mockBuildUnavailable: string | undefined = findGcc() === undefined ? "gcc is not installed (the mock libraries are C generated and compiled by the tests)" : undefined;

/**
 * Writes `source` to `dir` and builds it as `dir/<soname>` with that soname. Throws with gcc's output when the build
 * fails. Returns the library's path.
 */
export function buildMock(dir: string, soname: string, source: string): string {
  const c = join(dir, `${soname}.c`);
  const out = join(dir, soname);
  writeFileSync(c, source);
  const r = spawnSync("gcc", ["-shared", "-fPIC", "-O0", "-fvisibility=hidden", "-Wl,-Bsymbolic", `-Wl,-soname,${soname}`, "-o", out, c], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`gcc failed building ${soname} (${c}):\n${r.stdout}${r.stderr}${r.error ? String(r.error) : ""}`);
  return out;
}
