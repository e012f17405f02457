/**
 * Every output of the checked call style exact, pinned against the committed generated/cuda-13.0 and cuda-12.4
 * (no headers needed), compared with what NVIDIA's own bindings (cuda-python) return:
 *
 * - outputs sized by a count are arrays, and single outputs are single (nvmlVgpuInstanceGetEncoderSessions made one
 *   record where NVML writes `*sessionCount` of them; cuDevSmResourceSplitByCount's `remaining` is one record);
 * - single outputs are returned, not left as caller pointers (cuDeviceComputeCapability, cuTexObjectCreate,
 *   cuTensorMapEncode*, cuGraphExecUpdate's result info, NVML's sampleValType, ...);
 * - CUDA 12.4's cuStreamGetCaptureInfo_v3 returns what 13.0's cuStreamGetCaptureInfo (the same ABI) returns;
 * - each driver symbol is resolved through cuGetProcAddress at the version of its own ABI (12.4's cuDeviceGetUuid is
 *   the v1 symbol, 9020; cuDeviceGetUuid_v2 is 11040), checked over every driver function of both tables and,
 *   where the headers are in .cache/ctk, against cudaTypedefs.h.
 *
 * The rules are in generator/parse/roles.ts and generator/parse/proc-versions.ts; overrides in headers-manifest.json.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import type { IrDoc, IrFunction, IrParamRole, IrType } from "../../generator/ir.ts";
import { matchProcAddress, type PfnEntry, symbolAbi, symbolRanks } from "../../generator/parse/proc-versions.ts";
import { decideRoles, describedOutputs } from "../../generator/parse/roles.ts";
import { REPO_GENERATED, ROOT } from "./helpers.ts";

type Report = { libraries: { library: string; roles: Record<string, string[]> }[] };
const VERSIONS = ["13.0", "12.4"] as const;
const have = (v: string): boolean => fs.existsSync(path.join(REPO_GENERATED, `cuda-${v}`, "report.json"));
const reports = new Map<string, Report>();
const report = (v: string): Report => {
  let r = reports.get(v);
  if (r === undefined) reports.set(v, (r = JSON.parse(fs.readFileSync(path.join(REPO_GENERATED, `cuda-${v}`, "report.json"), "utf8")) as Report));
  return r;
};
/** A function's roles without the rules: "name: role". */
const roles = (v: string, fn: string): string[] => {
  for (const l of report(v).libraries) if (l.roles[fn]) return l.roles[fn]!.map((r) => r.replace(/ \(.*$/, ""));
  return ["(not generated)"];
};
/** The role of one parameter ("output", "array-output[n]", "count of ...", ...). */
const role = (v: string, fn: string, param: string): string | undefined =>
  roles(v, fn).find((r) => r.startsWith(`${param}: `))?.slice(param.length + 2);
/** The checked style's declaration of a function in checked.ts. */
const signature = (v: string, lib: string, fn: string): string | undefined => {
  const text = fs.readFileSync(path.join(REPO_GENERATED, `cuda-${v}`, lib, "checked.ts"), "utf8");
  return new RegExp(`^  ${fn}\\(.*$`, "m").exec(text)?.[0].trim();
};

describe.skipIf(!have("13.0") || !have("12.4"))("outputs sized by a count are arrays, single outputs single", () => {
  it.each(VERSIONS)("CUDA %s: nvmlVgpuInstanceGetEncoderSessions makes an array sized by sessionCount, like its twin", (v) => {
    const count = "count of sessionInfo, in/out pointer, elements, size query, caller capacity";
    expect(roles(v, "nvmlVgpuInstanceGetEncoderSessions")).toEqual(["vgpuInstance: input", `sessionCount: ${count}`, "sessionInfo: array-output[sessionCount]"]);
    expect(roles(v, "nvmlDeviceGetEncoderSessions")).toEqual(["device: input", `sessionCount: ${count.replace("sessionInfo", "sessionInfos")}`, "sessionInfos: array-output[sessionCount]"]);
    expect(signature(v, "nvml", "nvmlVgpuInstanceGetEncoderSessions")).toBe(
      "nvmlVgpuInstanceGetEncoderSessions(vgpuInstance: nvmlVgpuInstance_t, sessionCount?: number): nvmlEncoderSessionInfo_st[];",
    );
  });

  it.each(VERSIONS)("CUDA %s: no function returns an output beside a count it leaves to the caller", (v) => {
    // A count-named in/out pointer the caller must fill beside an output is an array the checked style sized wrong.
    const countName = /^(p?[cC]ount|\w*Count|p?[nN]um[A-Z]\w*|nb[A-Z]\w*)$/;
    const found: string[] = [];
    for (const l of report(v).libraries) {
      for (const [fn, rs] of Object.entries(l.roles)) {
        const hasOutput = rs.some((r) => /^\w+: output /.test(r));
        const leftCount = rs.filter((r) => /: caller-buffer \(/.test(r) && !/undocumented pointer/.test(r) && countName.test(r.slice(0, r.indexOf(":"))));
        if (hasOutput && leftCount.length > 0) found.push(`${l.library} ${fn}: ${leftCount.join("; ")}`);
      }
    }
    expect(found).toEqual([]);
  });

  it.each(VERSIONS)("CUDA %s: cuDevSmResourceSplitByCount returns result[nbGroups] and one remaining record", (v) => {
    expect(roles(v, "cuDevSmResourceSplitByCount")).toEqual([
      "result: array-output[nbGroups]",
      "nbGroups: count of result, in/out pointer, elements, size query, caller capacity",
      "input: input",
      "remaining: output",
      "useFlags: input",
      "minCount: input",
    ]);
    expect(signature(v, "driver", "cuDevSmResourceSplitByCount")).toBe(
      "cuDevSmResourceSplitByCount(input: PointerLike, useFlags: number, minCount: number, nbGroups?: number, remaining?: CUdevResource_st): [result: CUdevResource_st[], remaining: CUdevResource_st];",
    );
  });

  it.each(VERSIONS)("CUDA %s: cuptiSupportedDomains returns the count and the pointer to CUPTI's own table", (v) => {
    expect(roles(v, "cuptiSupportedDomains")).toEqual(["domainCount: output", "domainTable: output"]);
  });

  it("CUDA 12.4's cuStreamGetCaptureInfo_v3 and cudaStreamGetCaptureInfo_v3 return what 13.0's cuStreamGetCaptureInfo returns", () => {
    const kinds = (v: string, fn: string): string[] => roles(v, fn).map((r) => r.replace(/^\w+: /, ""));
    const all = ["input", "output", "output", "output", "output", "output", "output"];
    expect(kinds("13.0", "cuStreamGetCaptureInfo")).toEqual(all);
    expect(kinds("13.0", "cudaStreamGetCaptureInfo")).toEqual(all);
    expect(roles("12.4", "cuStreamGetCaptureInfo_v3")).toEqual(roles("13.0", "cuStreamGetCaptureInfo"));
    expect(roles("12.4", "cudaStreamGetCaptureInfo_v3")).toEqual(roles("13.0", "cudaStreamGetCaptureInfo"));
    const result = (s: string | undefined): string | undefined => s?.slice(s.indexOf("): ") + 3);
    expect(result(signature("12.4", "driver", "cuStreamGetCaptureInfo_v3"))).toBe(result(signature("13.0", "driver", "cuStreamGetCaptureInfo")));
    expect(result(signature("12.4", "runtime", "cudaStreamGetCaptureInfo_v3"))).toBe(result(signature("13.0", "runtime", "cudaStreamGetCaptureInfo")));
    expect(result(signature("13.0", "driver", "cuStreamGetCaptureInfo"))).toBe(
      "[captureStatus_out: CUstreamCaptureStatus, id_out: cuuint64_t, graph_out: CUgraph, dependencies_out: Pointer, edgeData_out: Pointer, numDependencies_out: bigint];",
    );
  });
});

describe.skipIf(!have("13.0") || !have("12.4"))("single outputs are returned, not left as caller pointers", () => {
  // function → the parameters that must be `output`, per CTK version (a function a version lacks is left out).
  const both: Record<string, string[]> = {
    cuDeviceComputeCapability: ["major", "minor"],
    cuDeviceRegisterAsyncNotification: ["callback"],
    cuGraphExecUpdate: ["resultInfo"],
    cuTexObjectCreate: ["pTexObject"],
    cuSurfObjectCreate: ["pSurfObject"],
    cuTensorMapEncodeTiled: ["tensorMap"],
    cuTensorMapEncodeIm2col: ["tensorMap"],
    cuGetExportTable: ["ppExportTable"],
    cudaCreateTextureObject: ["pTexObject"],
    cudaCreateSurfaceObject: ["pSurfObject"],
    cudaGraphExecUpdate: ["resultInfo"],
    cudaDeviceRegisterAsyncNotification: ["callback"],
    cudaArrayGetInfo: ["desc", "extent", "flags"],
    cudaGetExportTable: ["ppExportTable"],
    cudaGraphMemFreeNodeGetParams: ["dptr_out"],
    cudaGetSymbolSize: ["size"],
    nvmlDeviceGetSamples: ["sampleValType"],
    nvmlDeviceGetVgpuUtilization: ["sampleValType"],
    nvmlDeviceGetAccountingBufferSize: ["bufferSize"],
    nvmlDeviceQueryDrainState: ["currentState"],
    nvmlDeviceSetMigMode: ["activationStatus"],
    nvmlDeviceIsMigDeviceHandle: ["isMigDevice"],
    nvmlGpmQueryDeviceSupport: ["gpmSupport"],
    nvmlSystemGetConfComputeSettings: ["settings"],
    cuptiActivityPopExternalCorrelationId: ["lastId"],
  };
  const only13: Record<string, string[]> = {
    cuTensorMapEncodeIm2colWide: ["tensorMap"],
    cudaGetDriverEntryPointByVersion: ["funcPtr", "driverStatus"],
    nvmlDeviceGetSramUniqueUncorrectedEccErrorCounts: ["errorCounts"],
  };

  it.each(VERSIONS)("CUDA %s: each is an output", (v) => {
    const want = { ...both, ...(v === "13.0" ? only13 : {}) };
    const got = Object.fromEntries(Object.entries(want).map(([fn, ps]) => [fn, ps.map((p) => `${p}: ${role(v, fn, p) ?? "(no such parameter)"}`)]));
    expect(got).toEqual(Object.fromEntries(Object.entries(want).map(([fn, ps]) => [fn, ps.map((p) => `${p}: output`)])));
  });

  it.each(VERSIONS)("CUDA %s: the inputs beside them stay inputs", (v) => {
    expect(role(v, "cudaGetSymbolSize", "symbol")).toBe("input"); // not a buffer of `size` bytes
    expect(role(v, "nvmlDeviceQueryDrainState", "pciInfo")).toBe("caller-buffer"); // the PCI address to query
  });

  it("the checked style's declarations (CUDA 13.0)", () => {
    const sigs = Object.fromEntries(
      ([
        ["driver", "cuDeviceComputeCapability"],
        ["driver", "cuDeviceRegisterAsyncNotification"],
        ["driver", "cuGraphExecUpdate"],
        ["driver", "cuTexObjectCreate"],
        ["driver", "cuSurfObjectCreate"],
        ["driver", "cuGetExportTable"],
        ["runtime", "cudaArrayGetInfo"],
        ["runtime", "cudaGetDriverEntryPointByVersion"],
        ["runtime", "cudaGraphExecUpdate"],
        ["runtime", "cudaGraphMemFreeNodeGetParams"],
        ["runtime", "cudaGetSymbolSize"],
        ["nvml", "nvmlDeviceGetVgpuUtilization"],
        ["nvml", "nvmlDeviceQueryDrainState"],
        ["nvml", "nvmlDeviceSetMigMode"],
      ] as const).map(([lib, fn]) => [fn, signature("13.0", lib, fn)]),
    );
    expect(sigs).toEqual({
      cuDeviceComputeCapability: "cuDeviceComputeCapability(dev: CUdevice): [major: number, minor: number];",
      cuDeviceRegisterAsyncNotification: "cuDeviceRegisterAsyncNotification(device: CUdevice, callbackFunc: CUasyncCallback, userData: PointerLike): CUasyncCallbackHandle;",
      // The update's failure is a status to read, with the result info that says why (manifest nonErrors).
      cuGraphExecUpdate: "cuGraphExecUpdate(hGraphExec: CUgraphExec, hGraph: CUgraph, resultInfo?: CUgraphExecUpdateResultInfo_st): [status: CUresult, resultInfo: CUgraphExecUpdateResultInfo_st];",
      cuTexObjectCreate: "cuTexObjectCreate(pResDesc: PointerLike, pTexDesc: PointerLike, pResViewDesc: PointerLike): CUtexObject;",
      cuSurfObjectCreate: "cuSurfObjectCreate(pResDesc: PointerLike): CUsurfObject;",
      cuGetExportTable: "cuGetExportTable(pExportTableId: PointerLike): Pointer;",
      cudaArrayGetInfo: "cudaArrayGetInfo(array: cudaArray_t, desc?: cudaChannelFormatDesc, extent?: cudaExtent): [desc: cudaChannelFormatDesc, extent: cudaExtent, flags: number];",
      cudaGetDriverEntryPointByVersion:
        "cudaGetDriverEntryPointByVersion(symbol: string | PointerLike, cudaVersion: number, flags: bigint | number): [funcPtr: Pointer, driverStatus: cudaDriverEntryPointQueryResult];",
      cudaGraphExecUpdate:
        "cudaGraphExecUpdate(hGraphExec: cudaGraphExec_t, hGraph: cudaGraph_t, resultInfo?: cudaGraphExecUpdateResultInfo_st): [status: cudaError_t, resultInfo: cudaGraphExecUpdateResultInfo_st];",
      cudaGraphMemFreeNodeGetParams: "cudaGraphMemFreeNodeGetParams(node: cudaGraphNode_t): Pointer;",
      cudaGetSymbolSize: "cudaGetSymbolSize(symbol: PointerLike): bigint;",
      nvmlDeviceGetVgpuUtilization:
        "nvmlDeviceGetVgpuUtilization(device: nvmlDevice_t, lastSeenTimeStamp: bigint | number, vgpuInstanceSamplesCount?: number): [sampleValType: nvmlValueType_t, utilizationSamples: nvmlVgpuInstanceUtilizationSample_st[]];",
      nvmlDeviceQueryDrainState: "nvmlDeviceQueryDrainState(pciInfo: PointerLike): nvmlEnableState_t;",
      nvmlDeviceSetMigMode: "nvmlDeviceSetMigMode(device: nvmlDevice_t, mode: number): nvmlReturn_t;",
    });
    expect(signature("13.0", "driver", "cuTensorMapEncodeTiled")).toMatch(/, oobFill: CUtensorMapFloatOOBfill, tensorMap\?: CUtensorMap_st\): CUtensorMap_st;$/);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// cuGetProcAddress versions: each symbol at the version of its own ABI.

type DriverTable = Record<string, { symbol: string; procAddress?: { name: string; version: number; ptdsVersion?: number } }>;
const tables = new Map<string, DriverTable>();
const loaders: Record<string, () => Promise<unknown>> = {
  "13.0": () => import("../../generated/cuda-13.0/driver/functions.ts"),
  "12.4": () => import("../../generated/cuda-12.4/driver/functions.ts"),
};
const driverTable = async (v: string): Promise<DriverTable> => {
  let t = tables.get(v);
  if (t === undefined) tables.set(v, (t = ((await loaders[v]!()) as { functions: DriverTable }).functions));
  return t;
};

describe.skipIf(!have("13.0") || !have("12.4"))("cuGetProcAddress versions of the driver tables", () => {
  it.each(VERSIONS)("CUDA %s: no two symbols of one name share a version, and a later ABI (_vN) has a later version", async (v) => {
    const t = await driverTable(v);
    const bySymbol = new Map<string, { name: string; version: number; ptdsVersion?: number }>();
    for (const [fn, f] of Object.entries(t)) {
      if (!f.procAddress) continue;
      const seen = bySymbol.get(f.symbol);
      // Aliases (cuCtxCreate for cuCtxCreate_v4) share their target's symbol: one resolution per symbol.
      if (seen) expect(f.procAddress, `${fn} (${f.symbol})`).toEqual(seen);
      else bySymbol.set(f.symbol, f.procAddress);
    }
    const byName = new Map<string, { symbol: string; abi: number; version: number; ptdsVersion?: number }[]>();
    for (const [symbol, pa] of bySymbol) {
      const abi = symbolAbi(symbol, pa.name);
      if (abi === undefined) continue; // bound under another name (cuGraphInstantiateWithFlags)
      byName.set(pa.name, [...(byName.get(pa.name) ?? []), { symbol, abi, version: pa.version, ...(pa.ptdsVersion !== undefined ? { ptdsVersion: pa.ptdsVersion } : {}) }]);
    }
    const problems: string[] = [];
    for (const [name, list] of byName) {
      list.sort((a, b) => a.abi - b.abi);
      for (let i = 1; i < list.length; i++) {
        if (list[i]!.version <= list[i - 1]!.version) {
          problems.push(`${name}: ${list[i - 1]!.symbol} at ${list[i - 1]!.version}, ${list[i]!.symbol} at ${list[i]!.version}`);
        }
      }
    }
    expect(problems).toEqual([]);
    expect(byName.size).toBeGreaterThan(300);
  });

  it("cuDeviceGetUuid: 12.4 binds the v1 symbol at 9020 and cuDeviceGetUuid_v2 at 11040; 13.0's cuDeviceGetUuid is the v2 symbol", async () => {
    const t12 = await driverTable("12.4");
    const t13 = await driverTable("13.0");
    expect(t12.cuDeviceGetUuid).toMatchObject({ symbol: "cuDeviceGetUuid", procAddress: { name: "cuDeviceGetUuid", version: 9020 } });
    expect(t12.cuDeviceGetUuid_v2).toMatchObject({ symbol: "cuDeviceGetUuid_v2", procAddress: { name: "cuDeviceGetUuid", version: 11040 } });
    expect(t13.cuDeviceGetUuid).toMatchObject({ symbol: "cuDeviceGetUuid_v2", procAddress: { name: "cuDeviceGetUuid", version: 11040 } });
  });

  /** cudaTypedefs.h and cudaProfilerTypedefs.h of a version in .cache/ctk, if there. */
  const typedefs = (v: string): string | undefined => {
    const files = ["cudaTypedefs.h", "cudaProfilerTypedefs.h"].map((f) => path.join(ROOT, ".cache/ctk", v, "include", f));
    return files.every((f) => fs.existsSync(f)) ? files.map((f) => fs.readFileSync(f, "utf8")).join("\n") : undefined;
  };

  for (const v of VERSIONS) {
    const text = typedefs(v);
    describe.skipIf(text === undefined)(`against .cache/ctk/${v}/include/cudaTypedefs.h${text === undefined ? " (skipped: not there)" : ""}`, () => {
      it("every version is one of the PFN typedefs of its name", async () => {
        const t = await driverTable(v);
        // A typedef written without its version (12.4's `PFN_cuModuleGetFunctionCount`) takes it from the macro
        // before it (`#define PFN_cuModuleGetFunctionCount PFN_cuModuleGetFunctionCount_v12040`).
        const renamed = new Map([...text!.matchAll(/^#define (PFN_\w+)\s+(PFN_\w+_v\d+)\s*$/gm)].map((m) => [m[1]!, m[2]!]));
        const names = [...text!.matchAll(/\*\s*(PFN_\w+)\)\s*\(/g)].map((m) => renamed.get(m[1]!) ?? m[1]!);
        const pfn = new Set(names.flatMap((n) => {
          const m = /^PFN_(\w+?)_v(\d+)(_ptsz|_ptds)?$/.exec(n);
          return m ? [`${m[1]} ${m[2]}${m[3] ? " ptds" : ""}`] : [];
        }));
        const missing: string[] = [];
        for (const [fn, f] of Object.entries(t)) {
          const pa = f.procAddress;
          if (!pa) continue;
          if (!pfn.has(`${pa.name} ${pa.version}`)) missing.push(`${fn}: PFN_${pa.name}_v${pa.version}`);
          if (pa.ptdsVersion !== undefined && !pfn.has(`${pa.name} ${pa.ptdsVersion} ptds`)) missing.push(`${fn}: PFN_${pa.name}_v${pa.ptdsVersion}_ptds/_ptsz`);
        }
        expect(missing).toEqual([]);
      });

      it("a symbol named _vN is at the version its `#define PFN_<name>_vN` names, and every such macro's symbol is", async () => {
        // CUDA 12.4's header pairs versioned names with versions (`#define PFN_cuStreamGetCaptureInfo_v3
        // __API_TYPEDEF_PTSZ(PFN_cuStreamGetCaptureInfo, 12030, 12030)`); 13.0's has no such macros. The macros of
        // unversioned names say the newest version of the name (`PFN_cuDeviceGetUuid` is v11040 while 12.4's
        // cuDeviceGetUuid is the v1 symbol), so they pair nothing.
        const t = await driverTable(v);
        const macros = new Map<string, { version: number; ptds?: number }>();
        for (const m of text!.matchAll(/^#define PFN_(\w+_v\d+)\s+(?:PFN_\w+?_v(\d+)\b|__API_TYPEDEF_PTSZ\(PFN_\w+,\s*(\d+),\s*(\d+)\))/gm)) {
          macros.set(m[1]!, m[2] !== undefined ? { version: Number(m[2]) } : { version: Number(m[3]), ptds: Number(m[4]) });
        }
        const bySymbol = new Map(Object.values(t).map((f) => [f.symbol, f] as const));
        const problems: string[] = [];
        for (const [symbol, want] of macros) {
          const f = bySymbol.get(symbol);
          if (f === undefined) continue; // a name the headers declare under another symbol
          if (f.procAddress?.version !== want.version) problems.push(`${symbol}: ${f.procAddress?.version}, the macro says ${want.version}`);
          if (want.ptds !== undefined && f.procAddress?.ptdsVersion !== undefined && f.procAddress.ptdsVersion !== want.ptds) {
            problems.push(`${symbol}: per-thread ${f.procAddress.ptdsVersion}, the macro says ${want.ptds}`);
          }
        }
        for (const f of Object.values(t)) {
          if (/_v\d+$/.test(f.symbol) && macros.has(f.symbol) && f.procAddress === undefined) problems.push(`${f.symbol}: no procAddress`);
        }
        expect(problems).toEqual([]);
        if (v === "12.4") expect([...macros.keys()].filter((s) => bySymbol.has(s)).length).toBeGreaterThan(5);
      });
    });
  }
});

// ---------------------------------------------------------------------------------------------------------------
// The rules themselves, on small declarations (no headers).

const int32: IrType = { kind: "int", spelling: "int", size: 4, signed: true };
const u32: IrType = { kind: "int", spelling: "unsigned int", size: 4, signed: false };
const sizeT: IrType = { kind: "typedef", spelling: "size_t", name: "size_t", target: { kind: "int", spelling: "unsigned long", size: 8, signed: false } };
const ptr = (t: IrType, constPointee = false): IrType => ({ kind: "pointer", spelling: `${t.spelling} *`, pointee: t, constPointee });
const handle: IrType = { kind: "typedef", spelling: "XHandle", name: "XHandle", target: ptr({ kind: "record", spelling: "struct X_st", name: "X_st", complete: false } as IrType) };
const status: IrType = { kind: "enum", spelling: "xResult", name: "xResult", size: 4, signed: false } as IrType;
const fn = (name: string, params: [string, IrType][], doc?: Partial<IrDoc>): IrFunction => ({
  name,
  symbol: name,
  params: params.map(([n, type]) => ({ name: n, type })),
  result: status,
  variadic: false,
  outputs: [],
  roles: [],
  location: { file: "x.h", line: 1 },
  ...(doc ? { doc: { summary: "", params: [], notes: [], see: [], ...doc } } : {}),
});
const brief = (rs: IrParamRole[], f: IrFunction): string[] =>
  rs.map((r, i) => `${f.params[i]!.name}: ${r.role}${r.role === "array-output" || r.role === "array-input" ? `[${r.count}]` : ""}`);
const decide = (f: IrFunction): string[] => brief(decideRoles(f, {}, true), f);

describe("roles.ts rules", () => {
  it("the description's \"Returns in `*a` and `*b`\" makes single outputs of pointers the parameter docs do not call outputs", () => {
    expect([...describedOutputs({ summary: "Returns in `*desc`, `*extent` and `*flags` respectively, the type", params: [], notes: [], see: [] })]).toEqual(["desc", "extent", "flags"]);
    expect([...describedOutputs({ summary: "Creates a texture object and returns it in `pTexObject`.", params: [], notes: [], see: [] })]).toEqual(["pTexObject"]);
    const f = fn("xComputeCapability", [["major", ptr(int32)], ["minor", ptr(int32)], ["dev", int32]], {
      deprecated: "Returns in `*major` and `*minor` the major and minor revision numbers",
      params: [{ name: "major", text: "Major revision number" }, { name: "minor", text: "Minor revision number" }, { name: "dev", text: "Device" }],
    });
    expect(decide(f)).toEqual(["major: output", "minor: output", "dev: input"]);
    // "Returned array flags": the word "array" does not make a collection of what the description returns.
    const g = fn("xArrayGetInfo", [["flags", ptr(u32)], ["array", handle]], { summary: "Returns in `*flags` the flags", params: [{ name: "flags", text: "Returned array flags" }] });
    expect(decide(g)).toEqual(["flags: output", "array: input"]);
    // A size the description returns in is not the byte count of the const pointer beside it.
    const h = fn("xGetSymbolSize", [["size", ptr(sizeT)], ["symbol", ptr({ kind: "void", spelling: "void" }, true)]], {
      summary: "Returns in `*size` the size of symbol `symbol`.",
      params: [{ name: "size", text: "Size of object associated with symbol" }, { name: "symbol", text: "Device symbol address" }],
    });
    expect(decide(h)).toEqual(["size: output", "symbol: input"]);
  });

  it("a pointer to an array the library owns is one output, and the count that names it is one value", () => {
    const node = handle;
    const f = fn(
      "xStreamGetCaptureInfo_v3",
      [["stream", handle], ["graph_out", ptr(handle)], ["dependencies_out", ptr(ptr(node), false)], ["numDependencies_out", ptr(sizeT)]],
      {
        params: [
          { name: "stream", text: "The stream to query" },
          { name: "graph_out", text: "Optional location to return the graph being captured into." },
          { name: "dependencies_out", text: "Optional location to store a pointer to an array of nodes." },
          { name: "numDependencies_out", text: "Optional location to store the size of the array returned in dependencies_out." },
        ],
      },
    );
    expect(decide(f)).toEqual(["stream: input", "graph_out: output", "dependencies_out: output", "numDependencies_out: output"]);
  });

  it("\"caller supplied array in which ... returned\" beside the only count: an array sized by it", () => {
    const rec: IrType = { kind: "record", spelling: "struct S", name: "S", complete: true } as IrType;
    const f = fn("xGetEncoderSessions", [["id", u32], ["sessionCount", ptr(u32)], ["sessionInfo", ptr(rec)]], {
      returns: "X_ERROR_INSUFFICIENT_SIZE if sessionCount is too small",
      params: [
        { name: "id", text: "Identifier" },
        { name: "sessionCount", text: "Reference to caller supplied array size, and returns the number of sessions." },
        { name: "sessionInfo", text: "Reference to caller supplied array in which the list of session information us returned." },
      ],
    });
    expect(decide(f)).toEqual(["id: input", "sessionCount: count", "sessionInfo: array-output[sessionCount]"]);
  });

  it("\"Set\" inside a word (Settings) does not make a Get function a setter", () => {
    const rec: IrType = { kind: "record", spelling: "struct S", name: "S", complete: true } as IrType;
    const f = fn("xSystemGetConfComputeSettings", [["settings", ptr(rec)]], { params: [{ name: "settings", text: "System CC settings" }] });
    expect(decide(f)).toEqual(["settings: output"]);
  });
});

describe("proc-versions.ts: several symbols of one signature", () => {
  const sig = "int (int *)";
  const pfns = new Map<string, PfnEntry[]>([
    ["xGetUuid", [{ base: "xGetUuid", version: 9020, ptds: false, signature: sig }, { base: "xGetUuid", version: 11040, ptds: false, signature: sig }]],
  ]);
  it("each symbol takes the version of its own ABI; a symbol alone takes the newest", () => {
    const ranks = symbolRanks([
      { symbol: "xGetUuid", base: "xGetUuid", signature: sig },
      { symbol: "xGetUuid_v2", base: "xGetUuid", signature: sig },
    ]);
    expect(matchProcAddress(pfns, ["xGetUuid", "xGetUuid"], sig, ranks.get("xGetUuid"))).toEqual({ name: "xGetUuid", version: 9020 });
    expect(matchProcAddress(pfns, ["xGetUuid_v2", "xGetUuid_v2"], sig, ranks.get("xGetUuid_v2"))).toEqual({ name: "xGetUuid", version: 11040 });
    // 13.0: only `#define cuDeviceGetUuid cuDeviceGetUuid_v2` is declared.
    const alone = symbolRanks([{ symbol: "xGetUuid_v2", base: "xGetUuid", signature: sig }]);
    expect(alone.size).toBe(0);
    expect(matchProcAddress(pfns, ["xGetUuid", "xGetUuid_v2"], sig, alone.get("xGetUuid_v2"))).toEqual({ name: "xGetUuid", version: 11040 });
  });
  it("fewer versions than symbols is flagged", () => {
    const one = new Map<string, PfnEntry[]>([["xF", [{ base: "xF", version: 100, ptds: false, signature: sig }]]]);
    const ranks = symbolRanks([
      { symbol: "xF", base: "xF", signature: sig },
      { symbol: "xF_v2", base: "xF", signature: sig },
    ]);
    expect(matchProcAddress(one, ["xF"], sig, ranks.get("xF"))).toEqual({ name: "xF", version: 100, clamped: true });
  });
});

describe.skipIf(!have("13.0") || !have("12.4"))("buffers are tied to the sizes that bound them", () => {
  it.each(VERSIONS)("CUDA %s: a const byte buffer followed by its size (nvvmAddModuleToProgram, cuMemcpyHtoD)", (v) => {
    expect(role(v, "nvvmAddModuleToProgram", "buffer")).toBe("array-input[size]");
    expect(role(v, "nvvmAddModuleToProgram", "size")).toBe("count of buffer, by value, bytes, caller capacity");
    expect(role(v, "cuMemcpyHtoD", "srcHost")).toBe("array-input[ByteCount]");
  });

  it.each(VERSIONS)("CUDA %s: the manifest's counts tie what the names do not say (memory the library writes)", (v) => {
    // A char buffer the function fills, with its length: returned as a string, as cuDeviceGetName is.
    expect(roles(v, "cuDeviceGetPCIBusId")).toEqual(["pciBusId: array-output[len]", "len: count of pciBusId, by value, bytes, caller capacity", "dev: input"]);
    expect(signature(v, "driver", "cuDeviceGetPCIBusId")).toBe("cuDeviceGetPCIBusId(len: number, dev: CUdevice): string;");
    expect(role(v, "nvmlDeviceGetBoardPartNumber", "partNumber")).toBe("array-output[length]");
    // cudaMemcpy's count bounds both ends: dst by the manifest, src as the byte buffer before it.
    expect(role(v, "cudaMemcpy", "dst")).toBe("caller-buffer[count bytes]");
    expect(role(v, "cudaMemcpy", "src")).toBe("array-input[count]");
    expect(role(v, "cudaMemcpy", "count")).toBe("count of dst, src, by value, bytes, caller capacity");
    // An in/out size through a pointer: the size given is checked against the buffer, the size written returned.
    expect(role(v, "nvmlVgpuTypeGetClass", "vgpuTypeClass")).toBe("caller-buffer[size bytes]");
    expect(role(v, "nvmlVgpuTypeGetClass", "size")).toBe("count of vgpuTypeClass, in/out pointer, bytes, caller capacity");
    // A buffer of a size only the documentation gives (NVML_GSP_FIRMWARE_VERSION_BUF_SIZE).
    expect(role(v, "nvmlDeviceGetGspFirmwareVersion", "version")).toBe("array-output[64]");
  });
});
