/**
 * The real CUDA headers and the committed generated/ tree.
 *
 * - With the headers of this machine (/usr/local/cuda/include: driver, runtime and NVVM on the test machines),
 *   `--check` against the committed generated/ passes, and the driver IR of that run pins the checked style's
 *   output parameters of the 60 most used driver functions. Without the headers these tests are skipped, with
 *   the reason in their title.
 * - Spot checks read generated/cuda-13.0 itself (no headers needed): versioned symbols, cuGetProcAddress versions,
 *   per-thread-default-stream variants, structs by value, constants, and enum names.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { IrLibrary } from "../../generator/ir.ts";
import { enumName } from "../../src/tables-runtime/enum.ts";
import type { FunctionTable } from "../../src/tables-runtime/spec.ts";
import type { StructType } from "../../src/ffi/types.ts";
import {
  CUDA_INCLUDE,
  headersUnavailable,
  makeTempDir,
  type ManifestLike,
  readJson,
  removeDir,
  REPO_GENERATED,
  REPO_MANIFEST,
  runGenerator,
  type GeneratorRun,
} from "./helpers.ts";

const manifest = readJson<ManifestLike>(REPO_MANIFEST);
/** The CTK version whose driver headers are on this machine, or why there is none. */
const version = Object.keys(manifest.ctk).find((v) => headersUnavailable(manifest, "driver", v, CUDA_INCLUDE) === undefined);
const why = version === undefined ? headersUnavailable(manifest, "driver", Object.keys(manifest.ctk).sort().at(-1) ?? "?", CUDA_INCLUDE) : undefined;

let tmp = "";
let check: GeneratorRun | undefined;
let driver: IrLibrary | undefined;

beforeAll(() => {
  if (version === undefined) return;
  tmp = makeTempDir();
  // --check writes nothing but the IR; the output root is the repository's generated/.
  check = runGenerator([
    "--cuda-home",
    path.dirname(CUDA_INCLUDE),
    "--ctk-version",
    version,
    "--out",
    REPO_GENERATED,
    "--check",
    "--emit-ir",
    tmp,
  ]);
  const irFile = path.join(tmp, "driver.json");
  if (fs.existsSync(irFile)) driver = readJson<IrLibrary>(irFile);
});
afterAll(() => removeDir(tmp));

describe.skipIf(version === undefined)(`the headers in ${CUDA_INCLUDE}${why ? ` (skipped: ${why})` : ""}`, () => {
  it("--check against the committed generated/ passes", () => {
    expect(check!.status, check!.output).toBe(0);
    expect(check!.stdout).toMatch(/generated\/ matches: \d+ libraries regenerated and compared/);
    // Whatever is generated here is regenerated and compared, the rest checked by seal and hash.
    for (const lib of ["driver", "runtime"]) {
      if (headersUnavailable(manifest, lib, version!, CUDA_INCLUDE) === undefined) {
        expect(check!.stdout).toMatch(new RegExp(`^${lib} .* generated\\s*$`, "m"));
      }
    }
  });

  /**
   * The checked style's outputs (returned instead of taken) of the 60 most used driver functions. A change here
   * changes the public API: fix the detection (generator/parse/outputs.ts) or pin the function in the manifest's
   * `outputs` / `notOutputs`.
   */
  const pinned: Record<string, string[]> = {
    cuInit: [],
    cuDriverGetVersion: ["driverVersion"],
    cuDeviceGet: ["device"],
    cuDeviceGetCount: ["count"],
    cuDeviceGetName: [], // a char buffer the caller sizes with len
    cuDeviceGetAttribute: ["pi"],
    cuDeviceTotalMem: ["bytes"],
    cuDeviceGetUuid: ["uuid"], // a record
    cuDevicePrimaryCtxRetain: ["pctx"],
    cuDevicePrimaryCtxRelease: [],
    cuDevicePrimaryCtxGetState: ["flags", "active"],
    cuCtxCreate: ["pctx"], // ctxCreateParams is an input
    cuCtxDestroy: [],
    cuCtxGetCurrent: ["pctx"],
    cuCtxSetCurrent: [],
    cuCtxPushCurrent: [],
    cuCtxPopCurrent: ["pctx"],
    cuCtxGetDevice: ["device"],
    cuCtxSynchronize: [],
    cuModuleLoadData: ["module"],
    cuModuleLoadDataEx: ["module"], // options/optionValues are arrays
    cuModuleUnload: [],
    cuModuleGetFunction: ["hfunc"],
    cuModuleGetGlobal: ["dptr", "bytes"],
    cuLibraryLoadData: ["library"],
    cuLibraryGetKernel: ["pKernel"],
    cuKernelGetFunction: ["pFunc"],
    cuMemGetInfo: ["free", "total"],
    cuMemAlloc: ["dptr"],
    cuMemAllocPitch: ["dptr", "pPitch"],
    cuMemFree: [],
    cuMemAllocHost: ["pp"],
    cuMemFreeHost: [],
    cuMemHostAlloc: ["pp"],
    cuMemHostGetDevicePointer: ["pdptr"],
    cuMemAllocManaged: ["dptr"],
    cuMemAllocAsync: ["dptr"],
    cuMemFreeAsync: [],
    cuMemcpyHtoD: [],
    cuMemcpyDtoH: [], // dstHost is the caller's buffer
    cuMemcpyDtoD: [],
    cuMemcpyAsync: [],
    cuMemsetD8: [],
    cuMemGetAddressRange: ["pbase", "psize"],
    cuPointerGetAttribute: [], // data's type depends on the attribute
    cuStreamCreate: ["phStream"],
    cuStreamCreateWithPriority: ["phStream"],
    cuStreamDestroy: [],
    cuStreamSynchronize: [],
    cuStreamQuery: [],
    cuStreamWaitEvent: [],
    cuStreamGetCaptureInfo: ["captureStatus_out", "id_out", "graph_out", "dependencies_out", "edgeData_out", "numDependencies_out"],
    cuEventCreate: ["phEvent"],
    cuEventRecord: [],
    cuEventElapsedTime: ["pMilliseconds"],
    cuLaunchKernel: [],
    cuFuncGetAttribute: ["pi"],
    cuOccupancyMaxPotentialBlockSize: ["minGridSize", "blockSize"],
    cuGetErrorName: ["pStr"],
    cuGetErrorString: ["pStr"],
  };

  it("a function renamed by a macro is bound to the macro's target (`#define cuFileDriverClose cuFileDriverClose_v2`), in every library here", () => {
    let checked = 0;
    for (const file of fs.readdirSync(tmp).filter((f) => f.endsWith(".json"))) {
      const ir = readJson<IrLibrary>(path.join(tmp, file));
      const byName = new Map(ir.functions.map((f) => [f.name, f]));
      for (const h of ir.headers) {
        const text = fs.readFileSync(path.join(CUDA_INCLUDE, h.path), "utf8");
        for (const m of text.matchAll(/^\s*#\s*define\s+(\w+)\s+(\w+)\s*$/gm)) {
          const f = byName.get(m[1]!);
          if (f === undefined) continue;
          const target = byName.get(m[2]!)?.symbol ?? m[2]!;
          expect([f.symbol, f.ptdsSymbol], `${f.name} (${h.path}: #define ${m[1]} ${m[2]})`).toContain(target);
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(0);
  });

  it("every parameter role of every library generated here is the one report.json records (a change shows as a diff)", async () => {
    const { describeRole } = await import("../../generator/report.ts");
    const committed = readJson<{ libraries: { library: string; roles: Record<string, string[]> }[] }>(path.join(REPO_GENERATED, `cuda-${version}`, "report.json"));
    let compared = 0;
    for (const file of fs.readdirSync(tmp).filter((f) => f.endsWith(".json"))) {
      const ir = readJson<IrLibrary>(path.join(tmp, file));
      const want = committed.libraries.find((l) => l.library === ir.library)?.roles;
      const got = Object.fromEntries(ir.functions.filter((f) => f.params.length > 0).map((f) => [f.name, f.params.map((p, i) => describeRole(p.name, f.roles[i]!))]));
      expect(got, `${ir.library}: regenerate (npm run generate) and review the roles' diff`).toEqual(want);
      compared += Object.keys(got).length;
    }
    expect(compared).toBeGreaterThan(300);
  });

  it("pins the outputs of the 60 most used driver functions", () => {
    expect(Object.keys(pinned)).toHaveLength(60);
    expect(driver, "the run wrote no driver IR").toBeDefined();
    const actual = Object.fromEntries(Object.keys(pinned).map((n) => [n, driver!.functions.find((f) => f.name === n)?.outputs ?? "(not generated)"]));
    expect(actual).toEqual(pinned);
  });

  // Output parameters the detection misses (generator/parse/outputs.ts). Each needs an `outputs` override in
  // headers-manifest.json (or a better rule); remove `.fails` when this passes.
  it("outputs the doc rule misses come from manifest overrides", () => {
    const want: Record<string, string[]> = {
      // "Returned device pointer to buffer": COLLECTION_TEXT excludes scalars whose text says "buffer".
      cuExternalMemoryGetMappedBuffer: ["devPtr"],
      // pSize: "Returned size of the buffer accessible ...": excluded for the word "buffer".
      cuGraphicsResourceGetMappedPointer: ["pDevPtr", "pSize"],
      // "Pointer used to return the handle to the caller.": no OUTPUT_TEXT / RETURNED_TEXT pattern matches.
      cuGraphConditionalHandleCreate: ["pHandle_out"],
    };
    const actual = Object.fromEntries(Object.keys(want).map((n) => [n, driver!.functions.find((f) => f.name === n)?.outputs]));
    expect(actual).toEqual(want);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Spot checks of the committed generated/cuda-13.0 (no headers needed).

const GEN = path.join(REPO_GENERATED, "cuda-13.0");
const haveGenerated = fs.existsSync(path.join(GEN, "driver/functions.ts")) && fs.existsSync(path.join(GEN, "runtime/functions.ts"));

describe.skipIf(!haveGenerated)("spot checks of generated/cuda-13.0", () => {
  type Table = FunctionTable & Record<string, { parameters: readonly unknown[] }>;
  let drv: { functions: Table };
  let rt: { functions: Table };
  beforeAll(async () => {
    drv = (await import("../../generated/cuda-13.0/driver/functions.ts")) as unknown as { functions: Table };
    rt = (await import("../../generated/cuda-13.0/runtime/functions.ts")) as unknown as { functions: Table };
  });
  const structParam = (t: Table, fn: string): StructType["struct"][] =>
    t[fn]!.parameters.filter((p): p is StructType => typeof p === "object" && p !== null && "struct" in p).map((p) => p.struct);

  it("cuMemAlloc is bound to cuMemAlloc_v2, resolved through cuGetProcAddress at version 3020", () => {
    expect(drv.functions.cuMemAlloc).toMatchObject({ symbol: "cuMemAlloc_v2", procAddress: { name: "cuMemAlloc", version: 3020 } });
  });

  it("cuCtxCreate is bound to cuCtxCreate_v4 at version 12050", () => {
    expect(drv.functions.cuCtxCreate).toMatchObject({ symbol: "cuCtxCreate_v4", procAddress: { name: "cuCtxCreate", version: 12050 } });
  });

  it("cuMemcpyAsync has its per-thread-default-stream variant cuMemcpyAsync_ptsz, version 7000", () => {
    expect(drv.functions.cuMemcpyAsync).toMatchObject({ ptdsSymbol: "cuMemcpyAsync_ptsz", procAddress: { ptdsVersion: 7000 } });
  });

  it("cuMemAdvise takes the 8-byte CUmemLocation by value, in one INTEGER register", () => {
    const s = structParam(drv.functions, "cuMemAdvise");
    expect(s.map((x) => [x.name, x.size, x.align, x.passing])).toEqual([["struct CUmemLocation_st", 8, 4, { kind: "registers", classes: ["INTEGER"] }]]);
  });

  it("cudaMalloc3D takes the 24-byte cudaExtent by value, in memory", () => {
    const s = structParam(rt.functions, "cudaMalloc3D");
    expect(s.map((x) => [x.name, x.size, x.align, x.passing])).toEqual([["struct cudaExtent", 24, 8, { kind: "memory" }]]);
  });

  it("constants: CU_LAUNCH_PARAM_END is a pointer constant, CUDA_VERSION is 13000", async () => {
    const c = (await import("../../generated/cuda-13.0/driver/constants.ts")) as Record<string, unknown>;
    expect(c.CUDA_VERSION).toBe(13000);
    expect(c.CU_LAUNCH_PARAM_END).toBe(0n);
    expect(c.CU_LAUNCH_PARAM_BUFFER_POINTER).toBe(1n);
    const text = fs.readFileSync(path.join(GEN, "driver/constants.ts"), "utf8");
    expect(text).toContain("export const CU_LAUNCH_PARAM_END: NativeAddress = address(0x0n);");
  });

  it("enumName turns a CUresult back into its name", async () => {
    const { CUresult } = await import("../../generated/cuda-13.0/driver/enums.ts");
    expect(enumName(CUresult, 1)).toBe("CUDA_ERROR_INVALID_VALUE");
    expect(enumName(CUresult, 0)).toBe("CUDA_SUCCESS");
    expect(enumName(CUresult, 123456)).toBeUndefined();
  });

  it("the checked style returns the outputs: cuMemAlloc, cuMemGetInfo, cuStreamGetCaptureInfo", () => {
    const text = fs.readFileSync(path.join(GEN, "driver/checked.ts"), "utf8");
    const iface = text.slice(text.indexOf("export interface Checked {"));
    const sig = (n: string): string | undefined => new RegExp(`^  ${n}\\(.*$`, "m").exec(iface)?.[0];
    expect(sig("cuMemAlloc")).toBe("  cuMemAlloc(bytesize: bigint | number): CUdeviceptr;");
    expect(sig("cuMemGetInfo")).toBe("  cuMemGetInfo(): [free: bigint, total: bigint];");
    expect(sig("cuCtxGetCurrent")).toBe("  cuCtxGetCurrent(): CUcontext;");
    expect(sig("cuGetErrorName")).toBe("  cuGetErrorName(error: CUresult): string | null;");
    expect(sig("cuStreamGetCaptureInfo")).toMatch(
      /^  cuStreamGetCaptureInfo\(hStream: CUstream\): \[captureStatus_out: CUstreamCaptureStatus, id_out: cuuint64_t, graph_out: CUgraph, dependencies_out: .*, edgeData_out: .*, numDependencies_out: bigint\];$/,
    );
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Parameter roles of the committed report (generator/parse/roles.ts): the cases that once wrote past their memory
// or made the caller pass pointers, pinned. A change here changes the public API; report.json shows every role
// with its rule.

describe.skipIf(!haveGenerated)("parameter roles in generated/cuda-13.0/report.json", () => {
  const report = JSON.parse(fs.readFileSync(path.join(GEN, "report.json"), "utf8")) as { libraries: { library: string; roles: Record<string, string[]>; notes: string[] }[] };
  const roles = (fn: string): string[] => {
    for (const l of report.libraries) if (l.roles[fn]) return l.roles[fn]!.map((r) => r.replace(/ \(.*$/, ""));
    return ["(not generated)"];
  };

  it("arrays are arrays, sized by their counts (by pointer and by value, however the header names them)", () => {
    expect(roles("cudaGraphGetRootNodes")).toEqual([
      "graph: input",
      "pRootNodes: array-output[pNumRootNodes]",
      "pNumRootNodes: count of pRootNodes, in/out pointer, elements, size query, caller capacity",
    ]);
    expect(roles("cudaGraphNodeGetDependencies").slice(1, 3)).toEqual(["pDependencies: array-output[pNumDependencies]", "edgeData: array-output[pNumDependencies]"]);
    expect(roles("cudaGraphNodeGetDependentNodes")[1]).toBe("pDependentNodes: array-output[pNumDependentNodes]");
    expect(roles("cudaLibraryEnumerateKernels")).toEqual(["kernels: array-output[numKernels]", "numKernels: count of kernels, by value, elements, caller capacity", "lib: input"]);
    expect(roles("cuDevSmResourceSplitByCount").slice(0, 2)).toEqual([
      "result: array-output[nbGroups]",
      "nbGroups: count of result, in/out pointer, elements, size query, caller capacity",
    ]);
    expect(roles("cuGraphGetEdges").slice(1, 4)).toEqual(["from: array-output[numEdges]", "to: array-output[numEdges]", "edgeData: array-output[numEdges]"]);
    for (const f of ["cuDeviceGetHostAtomicCapabilities", "cudaDeviceGetHostAtomicCapabilities", "cuDeviceGetP2PAtomicCapabilities", "cudaDeviceGetP2PAtomicCapabilities"]) {
      expect(roles(f).slice(0, 2)).toEqual(["capabilities: array-output[count]", "operations: array-input[count]"]);
    }
    expect(roles("cuTexRefGetBorderColor")[0]).toBe("pBorderColor: array-output[4]");
    expect(roles("cuDeviceGetName")[0]).toBe("name: array-output[len]");
  });

  it("NVML lists and caller buffers sized in bytes", () => {
    for (const f of ["nvmlDeviceGetSupportedGraphicsClocks", "nvmlDeviceGetSupportedMemoryClocks"]) {
      expect(roles(f)).toContain("clocksMHz: array-output[count]");
      expect(roles(f)).toContain("count: count of clocksMHz, in/out pointer, elements, size query, caller capacity");
    }
    expect(roles("nvmlDeviceGetComputeRunningProcesses_v3")).toContain("infos: array-output[infoCount]");
    expect(roles("nvmlVgpuInstanceGetMetadata")[1]).toBe("vgpuMetadata: caller-buffer[bufferSize bytes]");
    expect(roles("nvmlDeviceGetVgpuMetadata")[1]).toBe("pgpuMetadata: caller-buffer[bufferSize bytes]");
    expect(roles("nvmlDeviceGetName")).toEqual(["device: input", "name: array-output[length]", "length: count of name, by value, bytes, caller capacity"]);
  });

  it("single outputs the documentation names differently, twins, unions and handles", () => {
    expect(roles("cuFileHandleRegister")[0]).toBe("fh: output");
    expect(roles("cuMemGetMemPool")[0]).toBe("pool: output");
    expect(roles("cudaMemGetMemPool")[0]).toBe("memPool: output");
    expect(roles("cudaIpcGetEventHandle")).toEqual(["handle: output", "event: input"]);
    expect(roles("cudaExternalMemoryGetMappedBuffer")[0]).toBe("devPtr: output");
    expect(roles("cuStreamGetAttribute")[2]).toBe("value_out: output"); // a union
    expect(roles("cudaStreamGetAttribute")[2]).toBe("value_out: output");
    expect(roles("cudaGraphAddEventRecordNode")[0]).toBe("pGraphNode: output"); // documented as phGraphNode
    for (const f of ["nvrtcDestroyProgram", "nvvmDestroyProgram"]) expect(roles(f)).toEqual(["prog: handle-reference"]);
    expect(roles("nvJitLinkDestroy")).toEqual(["handle: handle-reference"]);
  });

  it("versioned NVML structs the checked style allocates are stamped with their version", () => {
    const impl = fs.readFileSync(path.join(GEN, "nvml/checked-impl.ts"), "utf8");
    const body = (fn: string): string => impl.slice(impl.indexOf(`function ${fn}$(`), impl.indexOf("\n}\n", impl.indexOf(`function ${fn}$(`)));
    expect(body("nvmlDeviceGetPciInfoExt")).toContain("if (pci === undefined) $pci.version = 16777280;"); // nvmlPciInfoExt_v1
    for (const fn of ["nvmlDeviceGetCapabilities", "nvmlDeviceGetNvLinkInfo", "nvmlDeviceGetPdi", "nvmlDeviceGetGpuInstanceProfileInfoV", "nvmlDeviceGetMemoryInfo_v2", "nvmlDeviceGetTemperatureV"]) {
      expect(body(fn), fn).toMatch(/if \(\w+ === undefined\) \$\w+\.version = \d+;/);
    }
  });

  it("every declaration the manifest's headers hold is there: library_types.h, the profiler, renamed functions", async () => {
    const enums = (await import("../../generated/cuda-13.0/runtime/enums.ts")) as Record<string, unknown>;
    for (const e of ["cudaDataType", "libraryPropertyType", "cudaEmulationStrategy", "cudaEmulationMantissaControl", "cudaEmulationSpecialValuesSupport"]) {
      expect(enums[e], e).toBeDefined();
    }
    const rtf = (await import("../../generated/cuda-13.0/runtime/functions.ts")).functions as Record<string, unknown>;
    expect(rtf.cudaProfilerStart).toBeDefined();
    expect(rtf.cudaProfilerStop).toBeDefined();
    const cf = (await import("../../generated/cuda-13.0/cufile/functions.ts")).functions as Record<string, { symbol: string }>;
    expect(cf.cuFileDriverClose!.symbol).toBe("cuFileDriverClose_v2"); // #define cuFileDriverClose cuFileDriverClose_v2
    for (const l of report.libraries) expect(l.notes.filter((n) => n.startsWith("MISSING ")), l.library).toEqual([]);
  });
});

