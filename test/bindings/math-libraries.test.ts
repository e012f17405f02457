/**
 * The math libraries' bindings (cuBLAS, cuBLASLt, cuRAND, cuFFT, cuSOLVER, cuSPARSE): generated from CUDA 13.0's
 * headers, each on its own entry point, with its typed error; a library this machine lacks is a LibraryNotFoundError
 * naming what is missing (GPU-free: CI has none of them).
 */
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { cublas, cublasStatus_t, functions as cublasFunctions } from "../../src/bindings/cublas.ts";
import { cublasLt } from "../../src/bindings/cublaslt.ts";
import { curand, curandRngType, curandStatus_t } from "../../src/bindings/curand.ts";
import { cufft, type cufftHandle, cufftResult, cufftType } from "../../src/bindings/cufft.ts";
import type { CUstream } from "../../src/bindings/driver.ts";
import { cusolver, cusolverStatus_t } from "../../src/bindings/cusolver.ts";
import { cusparse, cusparseStatus_t } from "../../src/bindings/cusparse.ts";
import { CUBLASError, CUFFTError, CURANDError, CUSOLVERError, CUSPARSEError } from "../../src/bindings/errors.ts";
import { findNvidiaLibrary, LibraryNotFoundError } from "../../src/pathfinder/index.ts";

const root = resolve(import.meta.dirname ?? new URL(".", import.meta.url).pathname, "../..");

const bindings = [
  { entry: "cublas", binding: cublas, library: "cublas", some: ["cublasSgemm_v2", "cublasGemmEx", "cublasGemmStridedBatchedEx", "cublasSgemm_v2_64", "cublasSetStream_v2"] },
  { entry: "cublaslt", binding: cublasLt, library: "cublasLt", some: ["cublasLtCreate", "cublasLtMatmul", "cublasLtMatmulAlgoGetHeuristic", "cublasLtMatmulDescSetAttribute"] },
  { entry: "curand", binding: curand, library: "curand", some: ["curandCreateGenerator", "curandGenerateUniform", "curandGenerateNormalDouble", "curandSetStream"] },
  { entry: "cufft", binding: cufft, library: "cufft", some: ["cufftPlan1d", "cufftPlanMany", "cufftExecC2C", "cufftSetStream", "cufftXtExec"] },
  { entry: "cusolver", binding: cusolver, library: "cusolver", some: ["cusolverDnCreate", "cusolverDnSgetrf", "cusolverDnDpotrf", "cusolverDnXgesvd", "cusolverDnSetStream"] },
  { entry: "cusparse", binding: cusparse, library: "cusparse", some: ["cusparseCreate", "cusparseCreateCsr", "cusparseSpMV", "cusparseSpMM"] },
] as const;

function installed(name: string): boolean {
  try {
    findNvidiaLibrary(name);
    return true;
  } catch {
    return false;
  }
}

describe("the math libraries' bindings", () => {
  it.each(bindings)("$entry: generated from CUDA 13.0, with the functions users reach for", ({ binding, some }) => {
    expect(binding.info.ctkVersion).toBe("13.0");
    expect(binding.tableVersions).toEqual(["13.0", "12.4"]);
    for (const name of some) {
      expect(typeof (binding.raw as unknown as Record<string, unknown>)[name], name).toBe("function");
      expect(typeof (binding as unknown as Record<string, unknown>)[name], name).toBe("function");
    }
  });

  it("binds cuBLAS's v2 names for the macro names of cublas_v2.h", () => {
    expect(cublasFunctions.cublasCreate?.symbol).toBe("cublasCreate_v2");
    expect(cublasFunctions.cublasSgemm?.symbol).toBe("cublasSgemm_v2");
  });

  it("returns what the C functions write through their handle pointers (manifest outputs where the docs do not say)", () => {
    // Type-level: these assignments compile only with the checked signatures (the type checks of CI run them).
    const plan1d: (nx: number, type: cufftType, batch: number) => cufftHandle = cufft.cufftPlan1d;
    const create: () => cufftHandle = cufft.cufftCreate;
    // A core Stream's handle (the driver's CUstream) is the runtime's cudaStream_t: one struct, one type.
    const setStream: (plan: cufftHandle, stream: CUstream) => void = cufft.cufftSetStream;
    expect(typeof setStream).toBe("function");
    expect(typeof plan1d).toBe("function");
    expect(typeof create).toBe("function");
  });

  it("carries the status enums with their C values", () => {
    expect(cublasStatus_t.CUBLAS_STATUS_SUCCESS).toBe(0);
    expect(cublasStatus_t.CUBLAS_STATUS_NOT_INITIALIZED).toBe(1);
    expect(cublasStatus_t.CUBLAS_STATUS_INVALID_VALUE).toBe(7);
    expect(curandStatus_t.CURAND_STATUS_NOT_INITIALIZED).toBe(101);
    expect(curandRngType.CURAND_RNG_PSEUDO_PHILOX4_32_10).toBe(161);
    expect(cufftResult.CUFFT_INVALID_PLAN).toBe(1);
    expect(cufftType.CUFFT_C2C).toBe(0x29);
    expect(cusolverStatus_t.CUSOLVER_STATUS_INVALID_VALUE).toBe(3);
    expect(cusparseStatus_t.CUSPARSE_STATUS_INVALID_VALUE).toBe(3);
  });

  it.each(bindings)("$entry: a machine without the library gets LibraryNotFoundError naming it", ({ binding, library }) => {
    if (installed(library)) return; // the GPU machine has them: nothing to refuse there
    // cuBLAS needs cuBLASLt, cuSOLVER and cuSPARSE need nvJitLink: the error names what is missing first.
    expect(() => binding.load()).toThrow(LibraryNotFoundError);
    expect(() => binding.load()).toThrow(new RegExp(`could not find library|${library} needs`));
    expect(binding.loaded).toBeUndefined();
  });

  it("has one typed error per library, carrying the status", () => {
    const e = new CUBLASError("cublas", 13, "CUBLAS_STATUS_EXECUTION_FAILED", "the GPU program failed to execute", "cublasSgemm_v2");
    expect(e).toBeInstanceOf(Error);
    expect(e.name).toBe("CUBLASError");
    expect(e.message).toContain("CUBLAS_STATUS_EXECUTION_FAILED");
    expect(e.message).toContain("cublasSgemm_v2");
    for (const E of [CURANDError, CUFFTError, CUSOLVERError, CUSPARSEError]) expect(new E("x", 1, "N", "d", "f").name).toBe(E.name);
  });

  it("are entry points of the package (package.json for npm, deno.json for JSR), not part of cuda-ts/bindings", () => {
    const pkg = JSON.parse(readFileSync(resolve(root, "package.json"), "utf8")) as { exports: Record<string, unknown> };
    const deno = JSON.parse(readFileSync(resolve(root, "deno.json"), "utf8")) as { exports: Record<string, string> };
    const index = readFileSync(resolve(root, "src/bindings/index.ts"), "utf8");
    for (const { entry } of bindings) {
      expect(pkg.exports[`./bindings/${entry}`], entry).toBeDefined();
      expect(pkg.exports[`./bindings/cuda-13.0/${entry}`], entry).toBeDefined();
      expect(deno.exports[`./bindings/${entry}`]).toBe(`./src/bindings/${entry}.ts`);
      expect(index).not.toContain(`./${entry}.ts`);
    }
  });
});
