/**
 * Jobs under the real launchers, without `cuda-ts run`: a one-node Slurm cluster (test/distributed/slurm-cluster.ts,
 * started once for the file) runs test/distributed/fixtures/launcher-rank.ts under `srun -O -n 4 --mpi=pmix` (ranks
 * meet through PMIx) and `srun -O -n 4 --mpi=none` (rank 0 serves the rendezvous store), Open MPI under
 * `mpirun --allow-run-as-root --oversubscribe -n 4`, and torchrun's variables by starting the processes here. Every
 * rank agrees on world(), a value rank 0 shares reaches all, barriers hold; a rank that exits early makes the others
 * fail within the timeout naming it; a rank with another secret is refused (torchrun's ranks meet at the same store
 * as Slurm's without PMIx, whose failures are tested once). A launcher that is missing skips its tests, saying why
 * (CI installs them all).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { join, resolve } from "node:path";
import { runtimeCommand } from "../support/runtime.ts";
import { findExecutable, type SlurmCluster, slurmUnavailable, startSlurmCluster } from "./slurm-cluster.ts";
import { loadPmix } from "../../src/core/distributed/pmix-meeting.ts";

const here = import.meta.dirname ?? new URL(".", import.meta.url).pathname;
const root = resolve(here, "../..");
const RANK_SCRIPT = join(here, "fixtures/launcher-rank.ts");
const RANKS = 4;
/** The meeting's timeout in the failure cases: short, so that the test is. */
const SHORT_TIMEOUT_MS = "2500";

interface Line {
  readonly kind: "RESULT" | "ERROR" | "EXITED";
  readonly rank: number;
  readonly [field: string]: unknown;
}

interface Job {
  readonly code: number | null;
  readonly lines: Line[];
  readonly output: string;
  readonly ms: number;
}

/** Runs a command to its end (at most `limitMs`), collecting the rank script's lines. */
function runJob(cmd: readonly string[], env: Record<string, string | undefined>, limitMs = 40_000): Promise<Job> {
  const t0 = Date.now();
  return new Promise((done) => {
    const merged: Record<string, string> = {};
    for (const [k, v] of Object.entries({ ...process.env, ...env })) if (v !== undefined) merged[k] = v;
    const child = spawn(cmd[0]!, cmd.slice(1), { cwd: root, env: merged });
    let output = "";
    child.stdout.on("data", (b: Buffer) => (output += b.toString()));
    child.stderr.on("data", (b: Buffer) => (output += b.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), limitMs);
    child.on("close", (code) => {
      clearTimeout(timer);
      const lines: Line[] = [];
      for (const m of output.matchAll(/^(RESULT|ERROR|EXITED) (\{.*\})$/gm)) lines.push({ kind: m[1] as Line["kind"], ...(JSON.parse(m[2]!) as { rank: number }) });
      done({ code, lines, output, ms: Date.now() - t0 });
    });
  });
}

const rankCommand = (): string[] => runtimeCommand(RANK_SCRIPT, ["-A"]);

function expectAgreement(job: Job, launcher: string, via: string): void {
  const results = job.lines.filter((l) => l.kind === "RESULT");
  expect(results.length, job.output).toBe(RANKS);
  expect(results.map((r) => r.rank).sort()).toEqual([0, 1, 2, 3]);
  for (const r of results) {
    expect(r, job.output).toMatchObject({ launcher, via, size: RANKS, localRank: r.rank, localSize: RANKS, nodeRank: 0, nodes: 1, device: r.rank, second: "again" });
    expect(r.shared).toBe(`hello from rank 0 of ${RANKS} (${launcher})`);
  }
  expect(job.code, job.output).toBe(0);
}

/** The others' errors when `missing` exits at once: each a RankMissingError naming it, within the timeout. */
function expectMissingNamed(job: Job, missing: number): void {
  expect(job.lines.some((l) => l.kind === "EXITED" && l.rank === missing), job.output).toBe(true);
  const errors = job.lines.filter((l) => l.kind === "ERROR");
  expect(errors.length, job.output).toBe(RANKS - 1);
  for (const e of errors) {
    expect(e, job.output).toMatchObject({ name: "RankMissingError", missing });
    expect(e.message).toContain(`rank ${missing} of ${RANKS}`);
  }
  expect(job.ms).toBeLessThan(Number(SHORT_TIMEOUT_MS) + 15_000);
}

const secret = (): string => randomBytes(32).toString("hex");

const slurmSkip = slurmUnavailable();
let pmixSkip: string | undefined;
try {
  const m = await loadPmix();
  m.pmix.load();
} catch (e) {
  pmixSkip = `libpmix.so.2 not found (Debian: apt-get install libpmix-dev): ${(e as Error).message.split("\n")[0]}`;
}

describe.skipIf(slurmSkip !== undefined)(`srun on a one-node Slurm cluster${slurmSkip !== undefined ? ` (skipped: ${slurmSkip})` : ""}`, () => {
  let cluster: SlurmCluster | undefined;
  let srun: string;

  beforeAll(async () => {
    const c = await startSlurmCluster();
    if (typeof c === "string") throw new Error(`the Slurm cluster did not start: ${c}`);
    cluster = c;
    srun = findExecutable("srun")!;
  }, 60_000);

  afterAll(async () => {
    await cluster?.stop();
  });

  const run = (mpi: string, env: Record<string, string | undefined>): Promise<Job> => runJob([srun, "-O", "-n", String(RANKS), `--mpi=${mpi}`, "--kill-on-bad-exit=0", ...rankCommand()], { ...cluster!.env, ...env });

  describe.skipIf(pmixSkip !== undefined)(`--mpi=pmix: the ranks meet through PMIx${pmixSkip !== undefined ? ` (skipped: ${pmixSkip})` : ""}`, () => {
    it("every rank agrees on world(), gets rank 0's value and passes the barriers", async () => {
      expectAgreement(await run("pmix", {}), "slurm", "pmix");
    });

    it("a rank that exits before the meeting is named by the others within the timeout", async () => {
      expectMissingNamed(await run("pmix", { CUDA_TS_TEST_EXIT_RANK: "1", CUDA_TS_RENDEZVOUS_TIMEOUT_MS: SHORT_TIMEOUT_MS }), 1);
    });
  });

  describe("--mpi=none: rank 0 serves the store on the step's first host", () => {
    it("every rank agrees on world(), gets rank 0's value and passes the barriers", async () => {
      expectAgreement(await run("none", { CUDA_TS_RENDEZVOUS_SECRET: secret() }), "slurm", "store");
    });

    it("a rank that exits before the meeting is named by the others within the timeout", async () => {
      expectMissingNamed(await run("none", { CUDA_TS_RENDEZVOUS_SECRET: secret(), CUDA_TS_TEST_EXIT_RANK: "1", CUDA_TS_RENDEZVOUS_TIMEOUT_MS: SHORT_TIMEOUT_MS }), 1);
    });

    it("a rank with another secret is refused, and the others name it", async () => {
      const job = await run("none", { CUDA_TS_RENDEZVOUS_SECRET: secret(), CUDA_TS_TEST_WRONG_SECRET_RANK: "2", CUDA_TS_RENDEZVOUS_TIMEOUT_MS: SHORT_TIMEOUT_MS });
      const errors = job.lines.filter((l) => l.kind === "ERROR");
      expect(errors.length, job.output).toBe(RANKS);
      const refused = errors.find((e) => e.rank === 2)!;
      expect(refused, job.output).toMatchObject({ name: "RendezvousError" });
      expect(refused.message).toMatch(/rank 2 is not part of the job served at localhost:\d+: the rendezvous server refused this client/);
      for (const e of errors.filter((x) => x.rank !== 2)) expect(e, job.output).toMatchObject({ name: "RankMissingError", missing: 2 });
    });
  });
});

const mpirun = findExecutable("mpirun");
const mpiSkip = mpirun === undefined ? "mpirun not installed (Debian: apt-get install openmpi-bin)" : pmixSkip;

describe.skipIf(mpiSkip !== undefined)(`mpirun: Open MPI's ranks meet through PMIx${mpiSkip !== undefined ? ` (skipped: ${mpiSkip})` : ""}`, () => {
  const run = (env: Record<string, string | undefined>): Promise<Job> =>
    runJob([mpirun!, "--allow-run-as-root", "--oversubscribe", "-n", String(RANKS), ...rankCommand()], env);

  it("every rank agrees on world(), gets rank 0's value and passes the barriers", async () => {
    expectAgreement(await run({}), "openmpi", "pmix");
  });

  it("a rank that exits before the meeting ends the job within the timeout, named", async () => {
    const job = await run({ CUDA_TS_TEST_EXIT_RANK: "1", CUDA_TS_RENDEZVOUS_TIMEOUT_MS: SHORT_TIMEOUT_MS });
    expect(job.code, job.output).not.toBe(0);
    // Open MPI ends the job itself when a rank exits while others use PMIx, naming it; a rank that got there first
    // names it too.
    const named = /process rank 1 /.test(job.output) || job.lines.some((l) => l.kind === "ERROR" && l.missing === 1);
    expect(named, job.output).toBe(true);
    expect(job.lines.some((l) => l.kind === "RESULT"), job.output).toBe(false);
    expect(job.ms).toBeLessThan(Number(SHORT_TIMEOUT_MS) + 15_000);
  });
});

describe("torchrun's variables: rank 0 serves the store at MASTER_ADDR:MASTER_PORT", () => {
  /** Starts the ranks as torchrun (or a Kubernetes manifest) would: RANK, WORLD_SIZE, LOCAL_*, MASTER_*. */
  const runTorch = async (env: Record<string, string | undefined>, per?: (rank: number) => Record<string, string | undefined>): Promise<Job[]> => {
    const port = 20000 + Math.floor(Math.random() * 10000);
    return await Promise.all(
      Array.from({ length: RANKS }, (_, rank) =>
        runJob(rankCommand(), {
          RANK: String(rank),
          WORLD_SIZE: String(RANKS),
          LOCAL_RANK: String(rank),
          LOCAL_WORLD_SIZE: String(RANKS),
          GROUP_RANK: "0",
          MASTER_ADDR: "127.0.0.1",
          MASTER_PORT: String(port),
          ...env,
          ...(per?.(rank) ?? {}),
        }),
      ),
    );
  };
  const merge = (jobs: Job[]): Job => ({ code: Math.max(...jobs.map((j) => j.code ?? 99)), lines: jobs.flatMap((j) => j.lines), output: jobs.map((j) => j.output).join("\n"), ms: Math.max(...jobs.map((j) => j.ms)) });

  it("every rank agrees on world(), gets rank 0's value and passes the barriers", async () => {
    expectAgreement(merge(await runTorch({ CUDA_TS_RENDEZVOUS_SECRET: secret() })), "torchrun", "store");
  });
});
