/**
 * The math bindings (cuBLAS, cuBLASLt, cuFFT, cuRAND, cuSOLVER, cuSPARSE) choose the generated table for the library
 * they load by the version its `<lib>GetProperty` reports, shown without a GPU:
 *
 * - a stub library (test/fixtures/versions/stub-math.c, built here with the machine's C compiler) reporting each
 *   library's CUDA 12.4 version gets the 12.4 table, and its CUDA 13.0 version the 13.0 table; a function only the
 *   13.0 table has is refused with a FunctionVersionError naming both versions;
 * - Debian's CUDA 12.4 math libraries where `scripts/fetch-cuda12.sh math` unpacked them into .cache/cuda-12.4/lib
 *   (or CUDA_TS_CUDA12_LIBS names a folder with them): the real libraries load and get the 12.4 tables.
 *
 * Each case runs test/fixtures/versions/math-probe.ts in a child process: a binding loads its library once per process.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runtimeCommand } from "../support/runtime.ts";
import { findCc } from "../generator/helpers.ts";
import { requireEnumValue } from "../../src/core/math/blas/common.ts";
import { COMPUTE_TYPES_BY_VERSION } from "../../src/core/math/blas/plan.ts";
import { FunctionVersionError } from "../../src/bindings/errors.ts";
import type { BindingExtras } from "../../src/bindings/binding.ts";
import { cublasComputeType_t } from "../../generated/cuda-13.0/cublas/enums.ts";
import * as cublas12 from "../../generated/cuda-12.4/cublas/constants.ts";
import * as cufft12 from "../../generated/cuda-12.4/cufft/constants.ts";
import * as curand12 from "../../generated/cuda-12.4/curand/constants.ts";
import * as cusolver12 from "../../generated/cuda-12.4/cusolver/constants.ts";
import * as cusparse12 from "../../generated/cuda-12.4/cusparse/constants.ts";
import * as cufft13 from "../../generated/cuda-13.0/cufft/constants.ts";
import * as curand13 from "../../generated/cuda-13.0/curand/constants.ts";
import * as cusolver13 from "../../generated/cuda-13.0/cusolver/constants.ts";
import * as cusparse13 from "../../generated/cuda-13.0/cusparse/constants.ts";

const root = path.resolve(import.meta.dirname ?? new URL(".", import.meta.url).pathname, "../..");
const probe = path.join(root, "test/fixtures/versions/math-probe.ts");
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "cuda-ts-math-versions-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function runProbe(lib: string, env: Record<string, string>): Record<string, unknown> {
  const cmd = runtimeCommand(probe, ["--allow-ffi", "--allow-env", "--allow-read"], [lib]);
  const r = spawnSync(cmd[0]!, cmd.slice(1), { cwd: root, encoding: "utf8", env: { ...process.env, CUDA_TS_DISABLE_VERSION_WARNING: "1", ...env }, timeout: 120_000 });
  const line = (r.stdout ?? "").trim().split("\n").pop() ?? "";
  if (r.status !== 0 || !line.startsWith("{")) throw new Error(`math-probe ${lib} failed (${r.status}):\n${r.stdout}\n${r.stderr}`);
  return JSON.parse(line) as Record<string, unknown>;
}

const cc = findCc();

/** The stub reporting `version` as `prefix`GetProperty does, under the library's file name. */
function buildStub(prefix: string, file: string, version: readonly number[]): string {
  const dir = fs.mkdtempSync(path.join(tmp, `${prefix}-`));
  const out = path.join(dir, file);
  const defs = [`-DSTUB_PREFIX=${prefix}`, `-DSTUB_MAJOR=${version[0]}`, `-DSTUB_MINOR=${version[1]}`, `-DSTUB_PATCH=${version[2]}`];
  const r = spawnSync(cc!, ["-shared", "-fPIC", "-O1", ...defs, "-o", out, path.join(root, "test/fixtures/versions/stub-math.c")], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`cc failed: ${r.stderr}`);
  return out;
}

interface Case {
  readonly lib: string;
  readonly prefix: string;
  readonly variable: string;
  readonly file12: string;
  readonly file13: string;
  readonly v12: readonly number[];
  readonly v13: readonly number[];
}

/** Each library's versions as the 12.4 and 13.0 headers declare them (cuBLAS numbers its releases as the CTK does). */
const CASES: readonly Case[] = [
  { lib: "cublas", prefix: "cublas", variable: "CUDA_TS_CUBLAS_PATH", file12: "libcublas.so.12", file13: "libcublas.so.13", v12: [cublas12.CUBLAS_VER_MAJOR, cublas12.CUBLAS_VER_MINOR, cublas12.CUBLAS_VER_PATCH], v13: [13, 0, 0] },
  { lib: "cublaslt", prefix: "cublasLt", variable: "CUDA_TS_CUBLASLT_PATH", file12: "libcublasLt.so.12", file13: "libcublasLt.so.13", v12: [12, 4, 5], v13: [13, 0, 0] },
  { lib: "cufft", prefix: "cufft", variable: "CUDA_TS_CUFFT_PATH", file12: "libcufft.so.11", file13: "libcufft.so.12", v12: [cufft12.CUFFT_VER_MAJOR, cufft12.CUFFT_VER_MINOR, cufft12.CUFFT_VER_PATCH], v13: [cufft13.CUFFT_VER_MAJOR, cufft13.CUFFT_VER_MINOR, cufft13.CUFFT_VER_PATCH] },
  { lib: "curand", prefix: "curand", variable: "CUDA_TS_CURAND_PATH", file12: "libcurand.so.10", file13: "libcurand.so.10", v12: [curand12.CURAND_VER_MAJOR, curand12.CURAND_VER_MINOR, curand12.CURAND_VER_PATCH], v13: [curand13.CURAND_VER_MAJOR, curand13.CURAND_VER_MINOR, curand13.CURAND_VER_PATCH] },
  { lib: "cusolver", prefix: "cusolver", variable: "CUDA_TS_CUSOLVER_PATH", file12: "libcusolver.so.11", file13: "libcusolver.so.12", v12: [cusolver12.CUSOLVER_VER_MAJOR, cusolver12.CUSOLVER_VER_MINOR, cusolver12.CUSOLVER_VER_PATCH], v13: [cusolver13.CUSOLVER_VER_MAJOR, cusolver13.CUSOLVER_VER_MINOR, cusolver13.CUSOLVER_VER_PATCH] },
  { lib: "cusparse", prefix: "cusparse", variable: "CUDA_TS_CUSPARSE_PATH", file12: "libcusparse.so.12", file13: "libcusparse.so.12", v12: [cusparse12.CUSPARSE_VER_MAJOR, cusparse12.CUSPARSE_VER_MINOR, cusparse12.CUSPARSE_VER_PATCH], v13: [cusparse13.CUSPARSE_VER_MAJOR, cusparse13.CUSPARSE_VER_MINOR, cusparse13.CUSPARSE_VER_PATCH] },
];

/**
 * The libraries the pathfinder loads first (cuBLAS needs cuBLASLt; cuSOLVER nvJitLink, cuSPARSE, cuBLASLt and cuBLAS),
 * each pointed at a stub: the library under test's own variable, set after these, wins.
 */
function dependencies(): Record<string, string> {
  const dep = buildStub("dependency", "libdependency.so", [0, 0, 0]);
  return Object.fromEntries(["CUDA_TS_CUBLASLT_PATH", "CUDA_TS_CUBLAS_PATH", "CUDA_TS_CUSPARSE_PATH", "CUDA_TS_NVJITLINK_PATH"].map((v) => [v, dep]));
}

describe.skipIf(cc === undefined)(`the math bindings against stub libraries${cc === undefined ? " [skipped: no C compiler]" : ""}`, () => {
  const deps = cc === undefined ? {} : dependencies();
  for (const c of CASES) {
    it(`${c.lib}: ${c.v12.join(".")} gets the 12.4 table, ${c.v13.join(".")} the 13.0 table`, () => {
      const r12 = runProbe(c.lib, { ...deps, [c.variable]: buildStub(c.prefix, c.file12, c.v12) });
      expect(r12.table).toBe("12.4");
      expect(r12.versions).toEqual(["13.0", "12.4"]);
      expect(r12.reason).toContain(`${c.prefix}GetProperty ${c.v12.join(".")}`);
      if (r12.newer !== undefined) {
        const e = r12.newer as Record<string, unknown>;
        expect(e.name).toBe("FunctionVersionError");
        expect(e.isVersionError).toBe(true);
        expect(e.requiredVersion).toBe("13.0");
        expect(e.tableVersion).toBe("12.4");
        expect(e.message).toMatch(/needs CUDA 13\.0.*bound it with the CUDA 12\.4 table/);
      }
      const r13 = runProbe(c.lib, { ...deps, [c.variable]: buildStub(c.prefix, c.file13, c.v13) });
      expect(r13.table).toBe("13.0");
    });
  }

  it("a library newer than every table gets the newest; one older than every table the oldest", () => {
    expect(runProbe("cufft", { ...deps, CUDA_TS_CUFFT_PATH: buildStub("cufft", "libcufft.so.12", [12, 9, 0]) }).table).toBe("13.0");
    expect(runProbe("cufft", { ...deps, CUDA_TS_CUFFT_PATH: buildStub("cufft", "libcufft.so.11", [11, 0, 2]) }).table).toBe("12.4");
    // cuSPARSE keeps one soname: CUDA 12.8's 12.5 is older than 13.0's 12.6.
    expect(runProbe("cusparse", { ...deps, CUDA_TS_CUSPARSE_PATH: buildStub("cusparse", "libcusparse.so.12", [12, 5, 7]) }).table).toBe("12.4");
  });
});

describe("the object layer refuses an enum value the loaded cuBLAS lacks", () => {
  /** A binding that chose the table of `ctk` (only what requireEnumValue reads). */
  const fake = (ctk: string): BindingExtras<object> =>
    ({
      table: () => ({ table: { library: { name: "cublas", library: "cublas", ctkVersion: ctk } }, libraryVersion: ctk, reason: "test" }),
      tableVersions: ["13.0", "12.4"],
      loaded: { path: "/stub/libcublas.so.12" },
      info: { name: "cublas", library: "cublas", ctkVersion: "13.0" },
    }) as unknown as BindingExtras<object>;

  it("an emulated compute type on cuBLAS 12.4 is a FunctionVersionError naming the member and both versions", () => {
    let caught: unknown;
    try {
      requireEnumValue(fake("12.4"), "cublasGemmEx", COMPUTE_TYPES_BY_VERSION, cublasComputeType_t.CUBLAS_COMPUTE_32F_EMULATED_16BFX9);
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(FunctionVersionError);
    const e = caught as FunctionVersionError;
    expect(e.functionName).toBe("cublasGemmEx with CUBLAS_COMPUTE_32F_EMULATED_16BFX9");
    expect(e.requiredVersion).toBe("13.0");
    expect(e.tableVersion).toBe("12.4");
    expect(e.message).toContain("CUDA 13.0");
  });

  it("a value both versions have passes, and so does any value on 13.0", () => {
    expect(() => requireEnumValue(fake("12.4"), "cublasGemmEx", COMPUTE_TYPES_BY_VERSION, cublasComputeType_t.CUBLAS_COMPUTE_32F)).not.toThrow();
    expect(() => requireEnumValue(fake("13.0"), "cublasGemmEx", COMPUTE_TYPES_BY_VERSION, cublasComputeType_t.CUBLAS_COMPUTE_32F_EMULATED_16BFX9)).not.toThrow();
  });
});

/** A folder with Debian's CUDA 12.4 math libraries: CUDA_TS_CUDA12_LIBS, else what scripts/fetch-cuda12.sh math unpacked. */
const cuda12 = [process.env.CUDA_TS_CUDA12_LIBS, path.join(root, ".cache/cuda-12.4/lib")].find((d) => d !== undefined && fs.existsSync(path.join(d, "libcurand.so.10")));
const no12 = cuda12 === undefined ? " [skipped: no libcurand.so.10: run scripts/fetch-cuda12.sh math, or set CUDA_TS_CUDA12_LIBS]" : "";
const REAL: readonly [string, string, string][] = [
  ["cublas", "CUDA_TS_CUBLAS_PATH", "libcublas.so.12"],
  ["cublaslt", "CUDA_TS_CUBLASLT_PATH", "libcublasLt.so.12"],
  ["cufft", "CUDA_TS_CUFFT_PATH", "libcufft.so.11"],
  ["curand", "CUDA_TS_CURAND_PATH", "libcurand.so.10"],
  ["cusolver", "CUDA_TS_CUSOLVER_PATH", "libcusolver.so.11"],
  ["cusparse", "CUDA_TS_CUSPARSE_PATH", "libcusparse.so.12"],
];

describe.skipIf(cuda12 === undefined)(`Debian's CUDA 12.4 math libraries${no12}`, () => {
  for (const [lib, variable, file] of REAL) {
    it.skipIf(!fs.existsSync(path.join(cuda12 ?? "", file)))(`${file}: loads without a GPU and gets the 12.4 table`, () => {
      // cuBLAS needs cuBLASLt, cuSOLVER and cuSPARSE nvJitLink (and more): the folder goes on LD_LIBRARY_PATH.
      const r = runProbe(lib, { [variable]: path.join(cuda12!, file), LD_LIBRARY_PATH: cuda12! });
      expect(r.table).toBe("12.4");
      expect(r.path).toBe(path.join(cuda12!, file));
    });
  }
});
