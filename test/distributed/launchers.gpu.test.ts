/**
 * Communicator.fromWorld() on a real GPU without `cuda-ts run`: examples/multi_node_all_reduce.ts started as torchrun
 * (or a Kubernetes manifest) starts ranks, with RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, MASTER_ADDR,
 * MASTER_PORT and the job's secret: one rank, and two ranks (on two GPUs, or both on GPU 0 through
 * CUDA_VISIBLE_DEVICES where the machine has one: NCCL runs two ranks on one GPU only from 2.22 on, so that case
 * reports NCCL's error rather than failing). The ranks meet at the store rank 0 serves and all-reduce. Slurm and MPI
 * are not installed on the GPU machine: their paths are tested on the CPU (launchers-real.test.ts). Skips without a
 * GPU.
 */
import { describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { join, resolve } from "node:path";
import { Device } from "../../src/index.ts";
import { gpu, skipNote } from "../support/gpu.ts";
import { runtimeCommand } from "../support/runtime.ts";

const root = resolve(import.meta.dirname ?? new URL(".", import.meta.url).pathname, "../..");
const EXAMPLE = join(root, "examples/multi_node_all_reduce.ts");

function run(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((done) => {
    const cmd = runtimeCommand(EXAMPLE, ["-A"]);
    const child = spawn(cmd[0]!, cmd.slice(1), { cwd: root, env: { ...process.env, ...env } });
    let output = "";
    child.stdout.on("data", (b: Buffer) => (output += b.toString()));
    child.stderr.on("data", (b: Buffer) => (output += b.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), 120_000);
    child.on("close", (code) => {
      clearTimeout(timer);
      done({ code, output });
    });
  });
}

function torchrun(size: number, visible: (rank: number) => string | undefined): Promise<{ code: number | null; output: string }[]> {
  const port = String(20000 + Math.floor(Math.random() * 10000));
  const secret = randomBytes(32).toString("hex");
  return Promise.all(
    Array.from({ length: size }, (_, rank) => {
      const v = visible(rank);
      return run({
        RANK: String(rank),
        WORLD_SIZE: String(size),
        LOCAL_RANK: String(rank),
        LOCAL_WORLD_SIZE: String(size),
        MASTER_ADDR: "127.0.0.1",
        MASTER_PORT: port,
        CUDA_TS_RENDEZVOUS_SECRET: secret,
        CUDA_TS_RENDEZVOUS_TIMEOUT_MS: "60000",
        ...(v !== undefined ? { CUDA_VISIBLE_DEVICES: v } : {}),
      });
    }),
  );
}

describe.skipIf(!gpu.available)(`Communicator.fromWorld under torchrun's variables${skipNote}`, () => {
  it("one rank all-reduces", async () => {
    const [r] = await torchrun(1, () => undefined);
    expect(r!.output).toContain("rank 0 of 1 (launcher torchrun");
    expect(r!.code, r!.output).toBe(0);
  }, 180_000);

  it("two ranks meet at rank 0's store and all-reduce", async () => {
    const gpus = Device.count;
    // Two GPUs: the local rank picks its own; one GPU: each rank sees GPU 0 as its only device.
    const rs = await torchrun(2, () => (gpus >= 2 ? undefined : "0"));
    const out = rs.map((r) => r.output).join("\n");
    if (gpus < 2 && rs.some((r) => r.code !== 0) && /NCCLError|ncclInvalidUsage|Duplicate GPU/.test(out)) {
      console.log(`two ranks on one GPU: NCCL refused it (${out.split("\n").find((l) => /NCCL/.test(l))})`);
      return;
    }
    for (let rank = 0; rank < 2; rank++) expect(out).toContain(`rank ${rank} of 2 (launcher torchrun`);
    for (const r of rs) expect(r.code, out).toBe(0);
  }, 180_000);
});
