/**
 * The example galleries: cuda_bindings' CUDA samples ported to cuda-ts (raw driver and NVRTC bindings
 * where the sample is about the driver API, the object layer elsewhere) and cuda_core's examples extended or turned
 * TypeScript-native. Each runs with this runtime, checks its own results and exits 0 with its OK line. Skips where
 * there is no GPU.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { gpu, skipNote } from "../support/gpu.ts";
import { isBun, runExample, runtimeCommand } from "../support/runtime.ts";

const root = resolve(import.meta.dirname ?? new URL(".", import.meta.url).pathname, "../..");

describe.skipIf(!gpu.available)(`examples: cuda_bindings' samples${skipNote}`, () => {
  const cases: [string, RegExp][] = [
    ["vector_add_drv.ts", /^vector_add_drv: 50000 floats added by \d+ blocks of 256 threads through the raw driver API on .+: OK$/m],
    ["jit_program.ts", /^jit_program: \d+ bytes of PTX JIT-compiled by the driver, saxpy over 16777216 floats \(largest error .+\) on .+: OK$/m],
    ["clock_nvrtc.ts", /^clock_nvrtc: 64 blocks of 256 threads reduced 512 floats to their minimum in [\d.]+ clocks per block on .+: OK$/m],
    ["simple_zero_copy.ts", /^simple_zero_copy: 1048576 floats added by the GPU in mapped host memory, no copies \(relative error .+\) on .+: OK$/m],
    ["system_wide_atomics.ts", /^system_wide_atomics: 10 system-scope atomics × 50 by 16384 GPU threads.* on .+: OK$/m],
    ["stream_ordered_allocation.ts", /^stream_ordered_allocation: a vector add with stream-ordered buffers, then 10 rounds reusing the pool's memory \(reserved \d+ → \d+ bytes, used high \d+\) in [\d.]+ ms on .+: OK$/m],
    ["vector_add_mmap.ts", /^vector_add_mmap: 50000 floats added in cuMemCreate\/cuMemMap memory \(\d+ bytes reserved per vector, backed by \d+ devices?\) on .+: OK$/m],
    [
      "simple_cuda_graphs.ts",
      isBun
        ? /^simple_cuda_graphs: a 4194304-float reduction as a manual graph and as a captured one, 3 launches each, on .+: OK$/m
        : /^simple_cuda_graphs: a 4194304-float reduction as a manual graph with a host node and as a captured one, 3 launches each, on .+: OK$/m,
    ],
    ["global_to_shmem_async_copy.ts", /^global_to_shmem_async_copy: (C\(256x256\) = A\(256x512\) B\(512x256\) by matrixMulAsyncCopy .* and matrixMulNaive .* on .+: OK|.*\(skipped\))$/m],
    ["conjugate_gradient_multi_block_cg.ts", /^conjugate_gradient_multi_block_cg: N = 1048576, \d+ iterations in one cooperative kernel of \d+ blocks .* on .+: OK$/m],
    ["iso_fd_modelling.ts", /^iso_fd_modelling: 40 steps of an 8th-order 3D stencil over 64x64x64 points \(peak .+, largest difference from the CPU .+\) on .+: OK$/m],
  ];
  for (const [file, line] of cases) {
    it(`${file} checks its results and exits 0`, () => {
      const r = runExample(file);
      expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
      expect(r.stdout).toMatch(line);
    });
  }
});

describe.skipIf(!gpu.available)(`examples: cuda_core's, extended or made TypeScript-native${skipNote}`, () => {
  it("memory_pool_resources.ts allocates scratch memory inside a captured graph (allocation and free nodes)", () => {
    const r = runExample("memory_pool_resources.ts");
    expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
    expect(r.stdout).toMatch(/^graph memory: \d+ nodes \((?=.*memAlloc)(?=.*memFree).*\), reserved high watermark \d+ bytes$/m);
    expect(r.stdout).toMatch(/^memory_pool_resources on .+: OK$/m);
  });

  it("foreign_interop.ts runs SAXPY over another library's memory and stream (pytorch_example made TypeScript-native)", () => {
    const r = runExample("foreign_interop.ts");
    expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
    expect(r.stdout).toMatch(
      /^foreign_interop: SAXPY over another library's memory and stream \(CUDA Array Interface, DLPack, Stream\.fromHandle\) in float \(64 elements on our stream\) and double \(128 elements on the library's stream\) on .+: OK$/m,
    );
  });

  it("plasma_ppm.ts renders the plasma into a DeviceArray and writes a PPM file (Deno: --allow-write)", () => {
    const dir = mkdtempSync(join(tmpdir(), "cuda-ts-plasma-"));
    try {
      const out = join(dir, "plasma.ppm");
      const cmd = runtimeCommand(join(root, "examples", "plasma_ppm.ts"), ["--allow-ffi", "--allow-env", "--allow-read", "--allow-write"], [out]);
      const r = spawnSync(cmd[0]!, cmd.slice(1), { cwd: root, encoding: "utf8", timeout: 240_000 });
      expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
      expect(r.stdout).toMatch(/^plasma_ppm: 30 frames of a 320x240 plasma rendered into a DeviceArray, the last written to .+ \(230415 bytes\) on .+: OK$/m);
      expect(existsSync(out) && statSync(out).size).toBe(230415);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
