/**
 * The bindings choose the generated table for the library they load, shown without a GPU:
 *
 * - a stub driver (test/fixtures/versions/stub-driver.c, built here with the machine's C compiler) reporting
 *   CUDA 12.4: the driver binding chooses the 12.4 table, resolves cuEventElapsedTime at the 12.4 table's ABI
 *   (2000, not 13.0's 12080, which a 12.4 driver refuses), and refuses the 13.0-only cuCtxRecordEvent with a
 *   FunctionVersionError naming both versions; the same stub reporting 13.0 gets the 13.0 table;
 * - this machine's libcudart (13.0): the runtime binding chooses the 13.0 table;
 * - Debian's CUDA 12.4 libcudart.so.12, libnvrtc.so.12 and libnvJitLink.so.12 where scripts/fetch-cuda12.sh libs
 *   has unpacked them into .cache/cuda-12.4/lib (or CUDA_TS_CUDA12_LIBS names a folder with them): the 12.4 tables,
 *   cudaRuntimeGetVersion 12040, an NVRTC 12.4 compilation to PTX and an nvJitLink 12.4 handle
 *   (`__nvJitLinkCreate_12_4`, a symbol the 13.0 table does not name).
 *
 * Each case runs test/fixtures/versions/probe.ts in a child process: a binding loads its library once per process.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runtimeCommand } from "../support/runtime.ts";
import { findCc } from "../generator/helpers.ts";
import { runtime } from "../../src/bindings/runtime.ts";
import { tryFindNvidiaLibrary } from "../../src/pathfinder/index.ts";

const root = path.resolve(import.meta.dirname ?? new URL(".", import.meta.url).pathname, "../..");
const probe = path.join(root, "test/fixtures/versions/probe.ts");
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "cuda-ts-versions-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function runProbe(args: string[], env: Record<string, string>): Record<string, unknown> {
  const cmd = runtimeCommand(probe, ["--allow-ffi", "--allow-env", "--allow-read"], args);
  const r = spawnSync(cmd[0]!, cmd.slice(1), { cwd: root, encoding: "utf8", env: { ...process.env, CUDA_TS_DISABLE_VERSION_WARNING: "1", ...env }, timeout: 120_000 });
  const line = (r.stdout ?? "").trim().split("\n").pop() ?? "";
  if (r.status !== 0 || !line.startsWith("{")) throw new Error(`probe ${args.join(" ")} failed (${r.status}):\n${r.stdout}\n${r.stderr}`);
  return JSON.parse(line) as Record<string, unknown>;
}

const cc = findCc();

function buildStub(version: number): string {
  const out = path.join(tmp, `libcuda-${version}.so.1`);
  const r = spawnSync(cc!, ["-shared", "-fPIC", "-O1", `-DSTUB_VERSION=${version}`, "-o", out, path.join(root, "test/fixtures/versions/stub-driver.c")], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`cc failed: ${r.stderr}`);
  return out;
}

describe.skipIf(cc === undefined)(`the driver binding against a stub driver${cc === undefined ? " [skipped: no C compiler]" : ""}`, () => {
  it("a CUDA 12.4 driver gets the 12.4 table, each function at its ABI, and a typed error for a 13.0-only function", () => {
    const stub = buildStub(12040);
    const r = runProbe(["driver", stub], { CUDA_TS_CUDA_PATH: stub });
    expect(r.table).toBe("12.4");
    expect(r.libraryVersion).toBe("12.4");
    expect(r.reason).toBe("cuDriverGetVersion 12040");
    expect(r.driverVersion).toBe(12040);
    expect(r.init).toEqual({ returned: "undefined" });
    expect(r.count).toBe(3);
    expect(r.elapsed).toBe(0);
    expect(r.elapsedMs).toBe(1.5);
    expect(r.elapsedAbi).toBe(2000);
    for (const k of ["newer", "newerChecked"] as const) {
      const e = r[k] as Record<string, unknown>;
      expect(e.name).toBe("FunctionVersionError");
      expect(e.isVersionError).toBe(true);
      expect(e.requiredVersion).toBe("13.0");
      expect(e.tableVersion).toBe("12.4");
      expect(e.loadedVersion).toBe("12.4");
      expect(e.message).toMatch(/cuCtxRecordEvent is not available: it needs CUDA 13\.0, but the loaded driver \(.*libcuda-12040\.so\.1\) is CUDA 12\.4, so cuda-ts bound it with the CUDA 12\.4 table.*Update the NVIDIA driver/);
    }
  });

  it("a CUDA 13.0 driver gets the 13.0 table and 13.0's ABI (cuEventElapsedTime_v2, 12080)", () => {
    const stub = buildStub(13000);
    const r = runProbe(["driver", stub], { CUDA_TS_CUDA_PATH: stub });
    expect(r.table).toBe("13.0");
    expect(r.elapsedAbi).toBe(12080);
    expect((r.newer as Record<string, unknown>).name).toBe("FunctionNotFoundError");
  });

  it("a CUDA 13.0 driver pinned to the 12.4 table (CUDA_TS_DRIVER_TABLE=12.4) gets 12.4's ABI", () => {
    const stub = buildStub(13000);
    const r = runProbe(["driver", stub], { CUDA_TS_CUDA_PATH: stub, CUDA_TS_DRIVER_TABLE: "12.4" });
    expect(r.table).toBe("12.4");
    expect(r.reason).toBe("pinned to 12.4, cuDriverGetVersion 13000");
    expect(r.elapsedAbi).toBe(2000);
    expect((r.newer as Record<string, unknown>).name).toBe("FunctionVersionError");
    expect((r.newer as Record<string, unknown>).message).toMatch(/is CUDA 13\.0, but cuda-ts was told to bind it with the CUDA 12\.4 table.*Unpin the table/);
  });

  it("a CUDA 12.8 driver gets the newest table not newer than it: 12.4", () => {
    const stub = buildStub(12080);
    const r = runProbe(["driver", stub], { CUDA_TS_CUDA_PATH: stub });
    expect(r.table).toBe("12.4");
    expect(r.libraryVersion).toBe("12.8");
  });
});

const hasCudart13 = tryFindNvidiaLibrary("cudart")?.path.includes("libcudart.so.13") ?? false;

describe.skipIf(!hasCudart13)(`this machine's libcudart (13)${hasCudart13 ? "" : " [skipped: no libcudart.so.13 here]"}`, () => {
  it("the runtime binding chooses the 13.0 table", () => {
    const choice = runtime.table();
    expect(choice.table.library.ctkVersion).toBe("13.0");
    expect(choice.libraryVersion).toBe("13.0");
    expect(runtime.info.ctkVersion).toBe("13.0");
    expect(runtime.tableVersions).toEqual(["13.0", "12.4"]);
  });
});

/** A folder with Debian's CUDA 12.4 libraries: CUDA_TS_CUDA12_LIBS, else what scripts/fetch-cuda12.sh libs unpacked. */
const cuda12 = [process.env.CUDA_TS_CUDA12_LIBS, path.join(root, ".cache/cuda-12.4/lib")].find((d) => d !== undefined && fs.existsSync(path.join(d, "libcudart.so.12")));
const no12 = cuda12 === undefined ? " [skipped: no libcudart.so.12: run scripts/fetch-cuda12.sh libs, or set CUDA_TS_CUDA12_LIBS]" : "";

describe.skipIf(cuda12 === undefined)(`Debian's CUDA 12.4 libraries${no12}`, () => {
  it("libcudart.so.12: the 12.4 table, cudaRuntimeGetVersion 12040, 13.0-only functions refused", () => {
    const r = runProbe(["runtime"], { CUDA_TS_CUDART_PATH: path.join(cuda12!, "libcudart.so.12") });
    expect(r.version).toBe(12040);
    expect(r.table).toBe("12.4");
    expect(r.infoVersion).toBe("12.4");
    expect(r.libraryVersion).toBe("12.4");
    expect(r.path).toMatch(/libcudart\.so\.12/);
    expect((r.newer as Record<string, unknown>).name).toBe("FunctionVersionError");
  });

  it("found by the pathfinder when pinned to CUDA 12 (CUDA_TS_CUDA_MAJOR=12, the folder on LD_LIBRARY_PATH)", () => {
    const r = runProbe(["runtime"], { CUDA_TS_CUDA_MAJOR: "12", LD_LIBRARY_PATH: cuda12! });
    expect(r.table).toBe("12.4");
    expect(r.path).toBe(path.join(cuda12!, "libcudart.so.12"));
  });

  it.skipIf(!fs.existsSync(path.join(cuda12 ?? "", "libnvrtc.so.12")))("libnvrtc.so.12: the 12.4 table compiles a kernel to PTX", () => {
    // libnvrtc loads libnvrtc-builtins.so.12.4 through the system loader: its folder goes on LD_LIBRARY_PATH.
    const r = runProbe(["nvrtc"], { CUDA_TS_NVRTC_PATH: path.join(cuda12!, "libnvrtc.so.12"), LD_LIBRARY_PATH: cuda12! });
    expect(r.table).toBe("12.4");
    expect(r.version).toEqual([12, 4]);
    expect(r.ptxBytes).toBeGreaterThan(100);
  });

  it.skipIf(!fs.existsSync(path.join(cuda12 ?? "", "libnvJitLink.so.12")))("libnvJitLink.so.12: the 12.4 table creates a linker through __nvJitLinkCreate_12_4", () => {
    const r = runProbe(["nvjitlink"], { CUDA_TS_NVJITLINK_PATH: path.join(cuda12!, "libnvJitLink.so.12") });
    expect(r.table).toBe("12.4");
    expect(r.version).toEqual([12, 4]);
    expect(r.created).toBe(true);
  });
});
