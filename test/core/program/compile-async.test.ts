/**
 * Program.compileAsync without a GPU: the real compile worker (loaded from src/ as it would be from dist/), its
 * answers equal to the synchronous compile's (bytes, or the same typed error), the cache looked up on the calling
 * thread, the argument checks, cancellation, and the options crossing to the worker unchanged. NVVM compiles for
 * real where libNVVM is present (skipped otherwise); NVRTC and the linker run in compile-async.gpu.test.ts.
 */
import { afterAll, describe, expect, it } from "vitest";
import { NVVMError } from "../../../src/bindings/errors.ts";
import { nvvm } from "../../../src/bindings/nvvm.ts";
import { ClosedError } from "../../../src/core/errors.ts";
import { closeCompileWorkers, compileWorkerUrl, configureCompileWorkers } from "../../../src/core/program/compile-async.ts";
import { runCompileJob, type CompileRequest, type CompileResult } from "../../../src/core/program/compile-job.ts";
import { InMemoryProgramCache, makeProgramCacheKey } from "../../../src/core/program/cache.ts";
import { ObjectCode } from "../../../src/core/program/object-code.ts";
import { ProgramOptions } from "../../../src/core/program/options.ts";
import { Program } from "../../../src/core/program/program.ts";
import { WorkerPool } from "../../../src/core/worker/pool.ts";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

function loads(load: () => unknown): boolean {
  try {
    load();
    return true;
  } catch {
    return false;
  }
}
const nvvmPresent = loads(() => nvvm.nvvmVersion());
const skipNote = (skip: boolean, why: string): string => (skip ? ` [skipped: ${why}]` : "");

function nvvmIr(kernel = "scale", broken = false): string {
  const [major, minor, debugMajor, debugMinor] = nvvm.nvvmIRVersion();
  return `target triple = "nvptx64-unknown-cuda"
target datalayout = "e-p:64:64:64-i1:8:8-i8:8:8-i16:16:16-i32:32:32-i64:64:64-i128:128:128-f32:32:32-f64:64:64-v16:16:16-v32:32:32-v64:64:64-v128:128:128-n16:32:64"

define void @${kernel}(float* %data) {
entry:
  %x = load float, float* %data, align 4
  %y = fmul float %x, ${broken ? "%undefined_value" : "2.0"}
  store float %y, float* %data, align 4
  ret void
}

!nvvm.annotations = !{!0}
!0 = !{void (float*)* @${kernel}, !"kernel", i32 1}

!nvvmir.version = !{!1}
!1 = !{i32 ${major}, i32 ${minor}, i32 ${debugMajor}, i32 ${debugMinor}}
`;
}

const PTX_SOURCE = ".version 8.0\n.target sm_90\n.address_size 64\n";

afterAll(() => closeCompileWorkers());

describe("the compile worker", () => {
  it("sits beside compile-async (so dist/src/core/program/compile-worker.js ships beside compile-async.js)", () => {
    expect(compileWorkerUrl.href.endsWith("/src/core/program/compile-worker.ts")).toBe(true);
    expect(existsSync(fileURLToPath(compileWorkerUrl.href))).toBe(true);
  });

  it("answers a request as the calling thread would: the same bytes, or the same error class and message", async () => {
    const pool = new WorkerPool<CompileRequest, CompileResult>(compileWorkerUrl, { size: 1 });
    try {
      const request: CompileRequest = nvvmPresent
        ? { code: nvvmIr(), codeType: "nvvm", options: { arch: "compute_90" }, target: "ptx", nameExpressions: [] }
        : { code: "__global__ void k() {}", codeType: "c++", options: { arch: "sm_90" }, target: "ptx", nameExpressions: [] };
      let here: CompileResult | Error;
      try {
        here = runCompileJob(request).result;
      } catch (e) {
        here = e as Error;
      }
      const there = await pool.run(request).catch((e: unknown) => e as Error);
      if (here instanceof Error) {
        expect(there).toBeInstanceOf(here.constructor);
        expect((there as Error).message).toBe(here.message);
      } else {
        expect(there).not.toBeInstanceOf(Error);
        const r = there as CompileResult;
        expect(r.format).toBe(here.format);
        expect(r.code).toEqual(here.code);
        expect(r.code.buffer.byteLength).toBe(r.code.byteLength);
      }
    } finally {
      pool.close();
    }
  });
});

describe("ProgramOptions crossing to a worker", () => {
  it("rebuild to the same options from their structured clone", () => {
    const options = new ProgramOptions({
      name: "k",
      arch: "sm_90",
      std: "c++17",
      defineMacro: ["A", ["B", "2"]],
      includePath: ["/x"],
      maxRegisterCount: 32,
      debug: true,
      lineinfo: true,
      ftz: true,
    });
    const copy = new ProgramOptions(structuredClone({ ...options }));
    expect({ ...copy }).toEqual({ ...options });
    expect(copy.asFlags("nvrtc", "cubin")).toEqual(options.asFlags("nvrtc", "cubin"));
  });
});

describe("Program.compileAsync", () => {
  it("checks its arguments before dispatching, with compile()'s errors", async () => {
    const p = new Program(PTX_SOURCE, "ptx", { arch: "sm_90" });
    await expect(p.compileAsync("ltoir")).rejects.toThrow(/Program.compileAsync: the (DRIVER|NVJITLINK) backend compiles ptx to .*, not "ltoir"/);
    await expect(p.compileAsync("cubin", null as never)).rejects.toThrow(TypeError);
    await expect(p.compileAsync("cubin", { signal: "stop" as never })).rejects.toThrow(/signal must be an AbortSignal/);
    await expect(p.compileAsync("cubin", { signal: AbortSignal.abort(new Error("never mind")) })).rejects.toThrow("never mind");
    await expect(p.compileAsync("cubin", { logs: 3 as never })).rejects.toThrow(/logs must have a write/);
    p.close();
    await expect(p.compileAsync("cubin")).rejects.toThrow(ClosedError);
  });

  it.skipIf(!nvvmPresent)(`takes a cache hit on the calling thread without a worker${skipNote(!nvvmPresent, "no libNVVM")}`, async () => {
    const cache = new InMemoryProgramCache();
    const ir = nvvmIr();
    const p = new Program(ir, "nvvm", { arch: "compute_90" });
    const key = makeProgramCacheKey({ code: ir, codeType: "nvvm", options: p.options, target: "ptx", nameExpressions: [] });
    cache.set(key, { format: "ptx", code: new Uint8Array([1, 2, 3]), name: "cached", symbolMapping: { a: "b" } });
    configureCompileWorkers({ size: 1 }); // a fresh pool: a worker started here would be this test's
    const code = await p.compileAsync("ptx", { cache });
    expect(code).toBeInstanceOf(ObjectCode);
    expect([...code.code]).toEqual([1, 2, 3, 0]); // PTX: NUL-terminated
    expect(code.symbolMapping).toEqual({ a: "b" });
    expect(p.log).toBe("");
  });

  it("rejects with the error the synchronous compile throws (here or in the worker: no driver or no nvJitLink, or a link error)", async () => {
    let syncError: unknown;
    try {
      new Program("not ptx at all", "ptx", { arch: "sm_90" }).compile("cubin");
    } catch (e) {
      syncError = e;
    }
    const asyncError = await new Program("not ptx at all", "ptx", { arch: "sm_90" }).compileAsync("cubin").catch((e: unknown) => e);
    expect(syncError).toBeInstanceOf(Error);
    expect(asyncError).toBeInstanceOf((syncError as Error).constructor);
    expect((asyncError as Error).message).toBe((syncError as Error).message);
  });

  it.skipIf(!nvvmPresent)(`compiles NVVM IR to the same PTX as compile(), and fills the cache${skipNote(!nvvmPresent, "no libNVVM")}`, async () => {
    configureCompileWorkers({ size: 2 });
    const cache = new InMemoryProgramCache();
    using p = new Program(nvvmIr(), "nvvm", { arch: "compute_90", name: "scale.ll" });
    const sync = p.compile("ptx");
    const [a, b] = await Promise.all([p.compileAsync("ptx", { cache }), p.compileAsync("ptx")]);
    expect(a!.format).toBe("ptx");
    expect(a!.name).toBe("scale.ll");
    expect(a!.code).toEqual(sync.code);
    expect(b!.code).toEqual(sync.code);
    expect(cache.size).toBe(1);
  });

  it.skipIf(!nvvmPresent)(`rejects a bad NVVM program with an NVVMError carrying the log, also to logs and program.log${skipNote(!nvvmPresent, "no libNVVM")}`, async () => {
    using p = new Program(nvvmIr("scale", true), "nvvm", { arch: "compute_90" });
    const written: string[] = [];
    const e = await p.compileAsync("ptx", { logs: (t) => written.push(t) }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(NVVMError);
    expect((e as NVVMError).log).toMatch(/undefined_value/);
    expect(written.join("")).toMatch(/undefined_value/);
    expect(p.log).toMatch(/undefined_value/);
  });

  it.skipIf(!nvvmPresent)(`is cancelled by its signal${skipNote(!nvvmPresent, "no libNVVM")}`, async () => {
    configureCompileWorkers({ size: 1 });
    using p = new Program(nvvmIr(), "nvvm", { arch: "compute_90" });
    const controller = new AbortController();
    const first = p.compileAsync("ptx");
    const second = p.compileAsync("ptx", { signal: controller.signal });
    controller.abort(new Error("cancelled"));
    await expect(second).rejects.toThrow("cancelled");
    expect((await first).format).toBe("ptx");
  });
});
