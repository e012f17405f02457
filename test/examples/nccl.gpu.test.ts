/**
 * The NCCL examples run with this runtime, check their own results and exit 0 with their OK line:
 * nccl_all_reduce.ts (every GPU of one process) on its own, and nccl_multi_process.ts through the launcher
 * (`cuda-ts run -n 1` on one GPU; `-n <GPUs>` where there are several). Skips where there is no GPU.
 */
import { spawnSync } from "node:child_process";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { Device } from "../../src/index.ts";
import { gpu, skipNote } from "../support/gpu.ts";
import { isBun, runExample, runtimeExecutable } from "../support/runtime.ts";

const root = resolve(import.meta.dirname ?? new URL(".", import.meta.url).pathname, "../..");

/** `cuda-ts run -n N examples/nccl_multi_process.ts` with the running runtime (Deno: the launcher's permissions). */
function launch(n: number): { status: number | null; stdout: string; stderr: string } {
  const cli = join(root, "src/cli/cuda-ts.ts");
  const perms = ["--allow-read", "--allow-env", "--allow-run", "--allow-net", "--allow-ffi", "--allow-sys", "--allow-write"];
  const args = ["run", "-n", String(n), "--timeout", "180", join(root, "examples/nccl_multi_process.ts")];
  const cmd = isBun ? [runtimeExecutable(), cli, ...args] : [runtimeExecutable(), "run", ...perms, cli, ...args];
  const r = spawnSync(cmd[0]!, cmd.slice(1), { cwd: root, encoding: "utf8", timeout: 240_000, maxBuffer: 64 * 2 ** 20 });
  return { status: r.status, stdout: r.stdout ?? "", stderr: `${r.stderr ?? ""}${r.error ? String(r.error) : ""}` };
}

const gpus = gpu.available ? Device.count : 0;

describe.skipIf(!gpu.available)(`examples: NCCL${skipNote}`, () => {
  it("nccl_all_reduce.ts: every GPU one rank, grouped collectives checked, exits 0", () => {
    const r = runExample("nccl_all_reduce.ts");
    expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^nccl_all_reduce: ${gpus} rank\\(s\\), allReduce\\(sum\\) of 65536 float32 \\(×${(gpus * (gpus + 1)) / 2}\\), allGather of int32, broadcast of float64 OK$`, "m"));
  });

  it("nccl_multi_process.ts through `cuda-ts run -n 1`: one rank meets itself, checks, exits 0", () => {
    const r = launch(1);
    expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
    expect(r.stdout).toMatch(/^nccl_multi_process: rank 0 of 1 \(local rank 0, GPU 0\): allReduce, allGather and a send\/recv ring OK$/m);
  });

  it.skipIf(gpus < 2)(`nccl_multi_process.ts through \`cuda-ts run -n ${Math.max(gpus, 2)}\`${gpus < 2 ? ` [skipped: needs 2 GPUs, this machine has ${gpus}]` : ""}`, () => {
    const r = launch(gpus);
    expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
    for (let k = 0; k < gpus; k++) expect(r.stdout).toContain(`nccl_multi_process: rank ${k} of ${gpus} (local rank ${k}, GPU ${k})`);
  });
});
