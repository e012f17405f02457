/**
 * Which generated tables a process loads: the driver's and NVML's older tables only where the installed driver may
 * need them (src/bindings/tables/older-tables.ts), decided from the kernel module's version and the variables that
 * point the driver binding elsewhere.
 */
import { describe, expect, it } from "vitest";
import { decideOlderTables, FIRST_BRANCH_OF_NEWEST, kernelModuleBranch, olderTables, TableNotLoadedError } from "../../src/bindings/tables/older-tables.ts";
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
    if (!olderTables.load && olderTables.reason !== "CUDA_TS_TABLES=newest") expect(olderTables.kernelBranch).toBeGreaterThanOrEqual(FIRST_BRANCH_OF_NEWEST);
    expect(olderTables.reason.length).toBeGreaterThan(0);
  });

  it("decides from the variables first, then the kernel module's version file", () => {
    const text = (branch: string): Uint8Array => new TextEncoder().encode(`NVRM version: NVIDIA UNIX x86_64 Kernel Module  ${branch}  Release Build\n`);
    const env = (vars: Record<string, string>) => (name: string): string | undefined => vars[name];
    const decide = (vars: Record<string, string>, file: Uint8Array | undefined) => decideOlderTables(env(vars), () => file);
    expect(decide({}, text("580.95.05"))).toMatchObject({ load: false, kernelBranch: 580 });
    expect(decide({}, text("570.124.06"))).toMatchObject({ load: true, kernelBranch: 570 });
    expect(decide({}, undefined)).toMatchObject({ load: true, reason: expect.stringContaining("could not be read") });
    expect(decide({}, new TextEncoder().encode("garbage"))).toMatchObject({ load: true, reason: expect.stringContaining("names no kernel module version") });
    // CUDA_TS_TABLES=newest: where /proc says nothing (a container, WSL), only the newest table.
    expect(decide({ CUDA_TS_TABLES: "newest" }, undefined)).toEqual({ load: false, reason: "CUDA_TS_TABLES=newest" });
    expect(decide({ CUDA_TS_TABLES: "newest" }, text("535.54.03"))).toEqual({ load: false, reason: "CUDA_TS_TABLES=newest" });
    // A variable that points the binding at another table or library wins over "newest"; "all" over everything.
    expect(decide({ CUDA_TS_TABLES: "newest", CUDA_TS_DRIVER_TABLE: "12.4" }, undefined)).toEqual({ load: true, reason: "CUDA_TS_DRIVER_TABLE is set" });
    expect(decide({ CUDA_TS_TABLES: "all" }, text("580.95.05"))).toEqual({ load: true, reason: "CUDA_TS_TABLES=all" });
    expect(decide({ CUDA_TS_CUDA_MAJOR: "12" }, text("580.95.05"))).toEqual({ load: true, reason: "CUDA_TS_CUDA_MAJOR is set" });
  });

  it("an unloaded table asked for is a typed error that says how to get it", () => {
    const e = new TableNotLoadedError("driver", "12.4");
    expect(e.name).toBe("TableNotLoadedError");
    expect(e.message).toContain("CUDA_TS_TABLES=all");
    expect(e.message).toContain("cuda-ts/bindings/cuda-12.4/driver");
  });
});
