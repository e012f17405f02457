/**
 * Every checked query of NVML and the driver whose inputs are only a device (or nothing), called on this machine's
 * GPU with the guard bytes on: no call writes past the memory the checked style gives it, and no NVML call fails
 * with NVML_ERROR_ARGUMENT_VERSION_MISMATCH (a versioned struct left unstamped). Other failures (not supported,
 * no permission, not found) are the GPU's answers and are counted, not judged.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { driver } from "../../src/bindings/driver-entry.ts";
import { ffi } from "../../src/ffi/index.ts";
import type { Pointer } from "../../src/ffi/types.ts";
import { BindingArgumentError, LibraryError, GuardError } from "../../src/bindings/errors.ts";
import { nvml } from "../../src/bindings/nvml.ts";
import { gpu, skipNote } from "../support/gpu.ts";

interface Report {
  libraries: { library: string; roles: Record<string, string[]> }[];
}
const report = JSON.parse(readFileSync(new URL("../../generated/cuda-13.0/report.json", import.meta.url), "utf8")) as Report;

/** Functions to call, and how: which parameter takes the device, which a string length. */
function candidates(library: string, deviceParam: string, isQuery: (name: string) => boolean): { name: string; args: ("device" | "length")[] }[] {
  const roles = report.libraries.find((l) => l.library === library)!.roles;
  const out: { name: string; args: ("device" | "length")[] }[] = [];
  for (const [name, params] of Object.entries(roles)) {
    if (!isQuery(name)) continue;
    const args: ("device" | "length")[] = [];
    let ok = true;
    for (const p of params) {
      const [pname, rest] = [p.slice(0, p.indexOf(":")), p.slice(p.indexOf(":") + 2)];
      if (/^(output|array-output)/.test(rest)) continue;
      if (/^count of .*in\/out pointer, elements, size query/.test(rest)) continue; // optional capacity
      if (/^count of .*by value, bytes/.test(rest) && /array-output/.test(params.join(" "))) {
        args.push("length");
        continue;
      }
      if (pname === deviceParam && rest.startsWith("input")) {
        args.push("device");
        continue;
      }
      ok = false;
      break;
    }
    if (ok && args.filter((a) => a === "device").length <= 1) out.push({ name, args });
  }
  return out;
}

/**
 * Calls each function with the device (and 256 for a string's length); returns each one's answer, "ok" or the status
 * name. A guard that trips or an argument the checked style refuses fails the test at once.
 */
function sweep(what: string, binding: object, fns: { name: string; args: ("device" | "length")[] }[], device: unknown): Map<string, string> {
  const api = binding as Record<string, (...a: unknown[]) => unknown>;
  const results = new Map<string, string>();
  for (const f of fns) {
    try {
      api[f.name]!(...f.args.map((a) => (a === "device" ? device : 256)));
      results.set(f.name, "ok");
    } catch (e) {
      if (e instanceof GuardError || e instanceof BindingArgumentError || !(e instanceof LibraryError)) throw e;
      results.set(f.name, e.codeName);
    }
  }
  const tally = new Map<string, number>();
  for (const r of results.values()) tally.set(r, (tally.get(r) ?? 0) + 1);
  console.log(`${what} sweep: ${results.size} functions called; ${[...tally].map(([k, v]) => `${k} ${v}`).join(", ")}`);
  return results;
}

const QUERY = /Get|Query/;
const SIDE_EFFECT = /Set|Reset|Clear|Create|Destroy|Register|Free|Remove|Discover|Modify|Validate|Retain|Release|Flush|Dump|Checkpoint|Export|Import|Open|Close|Init|Shutdown/;

describe.skipIf(!gpu.available)(`the checked queries of NVML and the driver on this GPU, with guards${skipNote}`, () => {
  it("runs with the guard bytes on (CUDA_TS_DEBUG=guards, set by vitest.config.ts)", () => {
    expect(driver.guards).toBe(true);
    expect(nvml.guards).toBe(true);
  });

  it("NVML: no guard trips, no ARGUMENT_VERSION_MISMATCH", () => {
    nvml.nvmlInit_v2();
    try {
      const device = nvml.nvmlDeviceGetHandleByIndex_v2(0);
      const fns = candidates("nvml", "device", (n) => QUERY.test(n) && !SIDE_EFFECT.test(n.replace(/^nvml\w*?Get/, "")));
      const results = sweep("NVML", nvml, fns, device);
      const mismatches = [...results].filter(([, r]) => r === "NVML_ERROR_ARGUMENT_VERSION_MISMATCH");
      console.log(`NVML sweep, other answers: ${[...results].filter(([, r]) => r !== "ok" && r !== "NVML_ERROR_NOT_SUPPORTED").map(([f, r]) => `${f}=${r}`).join(" ")}`);
      expect(results.size).toBeGreaterThan(100);
      expect(mismatches).toEqual([]);
      expect(results.get("nvmlDeviceGetPciInfoExt")).toBe("ok");
      expect(results.get("nvmlDeviceGetSupportedGraphicsClocks") ?? "ok").not.toMatch(/GUARD/);
    } finally {
      nvml.nvmlShutdown();
    }
  });

  it("NVML lists come back whole: 110+ graphics clocks on an H200, trimmed to what NVML reports", () => {
    nvml.nvmlInit_v2();
    try {
      const device = nvml.nvmlDeviceGetHandleByIndex_v2(0);
      const memClocks = nvml.nvmlDeviceGetSupportedMemoryClocks(device);
      expect(memClocks).toBeInstanceOf(Uint32Array);
      expect(memClocks.length).toBeGreaterThan(0);
      const clocks = nvml.nvmlDeviceGetSupportedGraphicsClocks(device, memClocks[0]!);
      expect(clocks.length).toBeGreaterThan(16);
      expect([...clocks].every((c) => c > 0)).toBe(true);
      const few = nvml.nvmlDeviceGetSupportedGraphicsClocks(device, memClocks[0]!, clocks.length);
      expect([...few]).toEqual([...clocks]);
      console.log(`NVML: ${memClocks.length} memory clocks, ${clocks.length} graphics clocks at ${memClocks[0]} MHz`);
      expect(nvml.nvmlDeviceGetName(device, 96)).toMatch(/NVIDIA/);
    } finally {
      nvml.nvmlShutdown();
    }
  });

  it("driver: no guard trips in the device queries", () => {
    driver.cuInit(0);
    const dev = driver.cuDeviceGet(0);
    const ctx = driver.cuDevicePrimaryCtxRetain(dev);
    driver.cuCtxSetCurrent(ctx);
    try {
      const fns = candidates("driver", "dev", (n) => QUERY.test(n) && !SIDE_EFFECT.test(n.replace(/^cu\w*?Get/, "")) && !/ProcAddress|ExportTable|ErrorString|ErrorName/.test(n));
      const results = sweep("driver", driver, fns, dev);
      expect(results.size).toBeGreaterThan(15);
      expect(results.get("cuDeviceGetName")).toBe("ok");
      expect(results.get("cuDeviceGetUuid")).toBe("ok");
    } finally {
      driver.cuDevicePrimaryCtxRelease(dev);
    }
  });

  it("driver arrays: a graph's nodes, root nodes and edges come back whole, past the 16 output slots", () => {
    const graph = driver.cuGraphCreate(0);
    try {
      const nodes = [];
      let prev: unknown = null;
      for (let i = 0; i < 40; i++) {
        const deps = prev === null ? [] : [prev];
        const buf = new BigUint64Array(deps.map((d) => ffi.bigAddressOf(d as Pointer)));
        const node = driver.cuGraphAddEmptyNode(graph, buf, deps.length);
        nodes.push(node);
        if (i % 2 === 1) prev = node;
      }
      expect(driver.cuGraphGetNodes(graph)).toHaveLength(40);
      const roots = driver.cuGraphGetRootNodes(graph);
      expect(roots.length).toBe(2);
      const [from, to, edgeData] = driver.cuGraphGetEdges(graph);
      expect(from.length).toBe(to.length);
      expect(edgeData.length).toBe(from.length);
      expect(from.length).toBe(38);
    } finally {
      driver.cuGraphDestroy(graph);
    }
  });
});
