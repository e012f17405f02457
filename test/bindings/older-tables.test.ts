/**
 * Which generated tables a process loads: the driver's and NVML's older tables only where the installed driver may
 * need them (src/bindings/tables/older-tables.ts), decided from the kernel module's version and the variables that
 * point the driver binding elsewhere.
 */
import { describe, expect, it } from "vitest";
import { FIRST_BRANCH_OF_NEWEST, kernelModuleBranch, olderTables, TableNotLoadedError } from "../../src/bindings/tables/older-tables.ts";
import { carriedVersions, generatedTables } from "../../src/bindings/tables/driver.ts";
import * as nvmlTables from "../../src/bindings/tables/nvml.ts";

describe("older tables", () => {
  it("reads the branch of the proprietary and of the open kernel module", () => {
    expect(kernelModuleBranch("NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.95.05  Tue Sep 23 09:13:25 UTC 2025\nGCC version:  gcc version 12.2.0\n")).toBe(580);
    expect(kernelModuleBranch("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  570.124.06  Release Build  (dvs-builder@U16-I3-B03-4-3)\n")).toBe(570);
    expect(kernelModuleBranch("NVRM version: NVIDIA UNIX Open Kernel Module for aarch64  535.54.03  Release Build\n")).toBe(535);
    expect(kernelModuleBranch("no driver here")).toBeUndefined();
  });

  it("loads the older tables exactly when the decision says so, and always names every carried version", () => {
    expect(carriedVersions).toEqual(["13.0", "12.4"]);
    expect(generatedTables.map((t) => t.library.ctkVersion)).toEqual(olderTables.load ? ["13.0", "12.4"] : ["13.0"]);
    expect(nvmlTables.generatedTables.map((t) => t.library.ctkVersion)).toEqual(olderTables.load ? ["13.0", "12.4"] : ["13.0"]);
    if (!olderTables.load) expect(olderTables.kernelBranch).toBeGreaterThanOrEqual(FIRST_BRANCH_OF_NEWEST);
    expect(olderTables.reason.length).toBeGreaterThan(0);
  });

  it("an unloaded table asked for is a typed error that says how to get it", () => {
    const e = new TableNotLoadedError("driver", "12.4");
    expect(e.name).toBe("TableNotLoadedError");
    expect(e.message).toContain("CUDA_TS_TABLES=all");
    expect(e.message).toContain("cuda-ts/bindings/cuda-12.4/driver");
  });
});
