/**
 * Times a full regeneration of every library for the installed CUDA Toolkit (parse, emit, write), on this
 * machine: `npm run bench:generate [-- --include DIR ...]`. Writes into a temporary folder, never generated/.
 * Prints each run's wall time and the median. The target: under 3 s on a 2-core machine.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { run } from "../generator/run.ts";

const includes: string[] = [];
for (let i = 0; i < Deno.args.length; i++) if (Deno.args[i] === "--include") includes.push(Deno.args[++i]!);
const runs = Number(Deno.env.get("RUNS") ?? 5);
const cudaHome = Deno.env.get("CUDA_HOME") || Deno.env.get("CUDA_PATH") || "/usr/local/cuda";
const times: number[] = [];
for (let r = 0; r < runs; r++) {
  const out = mkdtempSync(join(tmpdir(), "cuda-ts-bench-gen-"));
  const t0 = performance.now();
  const code = run({
    manifest: "headers-manifest.json",
    includes,
    cudaHome,
    out,
    ctkVersion: undefined,
    libraries: [],
    check: false,
    emitIr: undefined,
    recordHashes: false,
    log: () => {},
  });
  const dt = (performance.now() - t0) / 1000;
  rmSync(out, { recursive: true, force: true });
  if (code !== 0) throw new Error(`generation failed with ${code}`);
  times.push(dt);
  console.log(`run ${r + 1}: ${dt.toFixed(2)} s`);
}
times.sort((a, b) => a - b);
console.log(`median of ${runs}: ${times[Math.floor(runs / 2)]!.toFixed(2)} s (in-process; add ~0.1–0.2 s for Deno's start)`);
