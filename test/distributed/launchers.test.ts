/**
 * The launchers' variables as world() reads them (src/core/distributed/launchers.ts), without the launchers: Slurm's
 * host lists and tasks per node, each launcher's set, the order between them, partial and contradictory sets, and
 * the rank's GPU under CUDA_VISIBLE_DEVICES. test/distributed/launchers-real.test.ts runs the real launchers.
 */
import { describe, expect, it } from "vitest";
import { expandHostList, expandTasksPerNode, type LauncherWorld, rankDevice, readLauncherWorld } from "../../src/core/distributed/launchers.ts";
import { LauncherEnvironmentError } from "../../src/core/distributed/errors.ts";
import { joinWorld, slurmRendezvousPort, type World } from "../../src/core/distributed/world.ts";
import { RendezvousError } from "../../src/core/distributed/errors.ts";

const read = (vars: Record<string, string>): LauncherWorld | undefined => readLauncherWorld((n) => vars[n]);

function refused(vars: Record<string, string>): LauncherEnvironmentError {
  try {
    read(vars);
  } catch (e) {
    expect(e).toBeInstanceOf(LauncherEnvironmentError);
    return e as LauncherEnvironmentError;
  }
  throw new Error(`accepted ${JSON.stringify(vars)}`);
}

const slurmStep = {
  SLURM_PROCID: "5",
  SLURM_NTASKS: "7",
  SLURM_STEP_NUM_TASKS: "7",
  SLURM_LOCALID: "1",
  SLURM_NODEID: "2",
  SLURM_NNODES: "4",
  SLURM_STEP_NUM_NODES: "4",
  SLURM_STEP_TASKS_PER_NODE: "2(x3),1",
  SLURM_TASKS_PER_NODE: "2(x3),1",
  SLURM_JOB_ID: "4242",
  SLURM_STEP_ID: "0",
  SLURM_STEP_NODELIST: "node[01-03],gpu7",
};

describe("Slurm's lists", () => {
  it("expands host lists with ranges, padding, several groups and plain names", () => {
    expect(expandHostList("node[01-04,07]")).toEqual(["node01", "node02", "node03", "node04", "node07"]);
    expect(expandHostList("a,b[8-10],c")).toEqual(["a", "b8", "b9", "b10", "c"]);
    expect(expandHostList("r[1-2]n[1-2]")).toEqual(["r1n1", "r1n2", "r2n1", "r2n2"]);
    expect(expandHostList("vm")).toEqual(["vm"]);
    expect(expandHostList("gpu-[098-101].ib")).toEqual(["gpu-098.ib", "gpu-099.ib", "gpu-100.ib", "gpu-101.ib"]);
  });

  it("refuses a host list that does not parse, naming it", () => {
    for (const bad of ["", "node[01-", "node]1[", "node[1-x]", "node[5-2]", "a,,b", "node[[1]]", "bad host"]) {
      const e = (() => {
        try {
          expandHostList(bad);
        } catch (x) {
          return x;
        }
        return undefined;
      })();
      expect(e, bad).toBeInstanceOf(LauncherEnvironmentError);
      expect((e as Error).message).toContain("SLURM_STEP_NODELIST");
    }
  });

  it("expands tasks per node and refuses what does not parse", () => {
    expect(expandTasksPerNode("2(x3),1")).toEqual([2, 2, 2, 1]);
    expect(expandTasksPerNode("4")).toEqual([4]);
    expect(() => expandTasksPerNode("2(x)")).toThrow(LauncherEnvironmentError);
    expect(() => expandTasksPerNode("0")).toThrow(/expected counts such as 4 or 2\(x3\),1/);
  });
});

describe("each launcher's variables", () => {
  it("none: no launcher", () => {
    expect(read({})).toBeUndefined();
    expect(read({ SLURM_PROCID: "0", SLURM_NTASKS: "4" })).toBeUndefined(); // a batch script, not a step
  });

  it("Slurm: a step's task, its node's tasks, the hosts and the job", () => {
    const w = read(slurmStep)!;
    expect(w).toMatchObject({ launcher: "slurm", rank: 5, size: 7, localRank: 1, localSize: 2, nodeRank: 2, nodes: 4, jobId: "4242.0" });
    expect(w.hosts).toEqual(["node01", "node02", "node03", "gpu7"]);
    expect(read({ ...slurmStep, SLURM_PROCID: "6", SLURM_NODEID: "3", SLURM_LOCALID: "0" })).toMatchObject({ localSize: 1 });
    expect(read({ ...slurmStep, PMIX_RANK: "5", PMIX_NAMESPACE: "slurm.pmix.4242.0" })!.pmix).toEqual({ namespace: "slurm.pmix.4242.0", rank: 5 });
  });

  it("Slurm: partial and contradictory sets name the variables and their values", () => {
    expect(refused({ ...slurmStep, SLURM_PROCID: "7" }).message).toMatch(/SLURM_PROCID="7".*not below the size \(rank 7 of 7/);
    expect(refused({ ...slurmStep, SLURM_STEP_TASKS_PER_NODE: "2(x3)" }).message).toMatch(/lists 3 nodes .* but the step has 4/);
    expect(refused({ ...slurmStep, SLURM_STEP_TASKS_PER_NODE: "2(x4)" }).message).toMatch(/adds up to 8 tasks, but the step has 7/);
    expect(refused({ ...slurmStep, SLURM_STEP_NODELIST: "node[1-" }).message).toMatch(/SLURM_STEP_NODELIST="node\[1-".*not a Slurm host list/);
    expect(refused({ ...slurmStep, SLURM_STEP_NODELIST: "node[1-2]" }).message).toMatch(/names 2 hosts but the step has 4 nodes/);
    expect(refused({ ...slurmStep, SLURM_LOCALID: "2" }).message).toMatch(/local rank 2 of 2/);
    const { SLURM_NODEID: _, ...noNode } = slurmStep;
    expect(refused(noNode).message).toMatch(/SLURM_NODEID is not set/);
    expect(refused({ ...slurmStep, PMIX_RANK: "4", PMIX_NAMESPACE: "x" }).message).toMatch(/PMIX_RANK \(4\) and the launcher's rank \(5\) disagree/);
    expect(refused({ ...slurmStep, SLURM_PROCID: "five" }).message).toMatch(/SLURM_PROCID is "five", expected an integer/);
  });

  it("Open MPI: the world's variables, the node from the placement", () => {
    const vars = { OMPI_COMM_WORLD_RANK: "5", OMPI_COMM_WORLD_SIZE: "8", OMPI_COMM_WORLD_LOCAL_RANK: "1", OMPI_COMM_WORLD_LOCAL_SIZE: "4", OMPI_COMM_WORLD_NODE_RANK: "1" };
    expect(read(vars)).toMatchObject({ launcher: "openmpi", rank: 5, size: 8, localRank: 1, localSize: 4, nodeRank: 1, nodes: 2 });
    expect(refused({ ...vars, OMPI_COMM_WORLD_LOCAL_SIZE: undefined as unknown as string }).message).toMatch(/OMPI_COMM_WORLD_LOCAL_SIZE is not set/);
    expect(refused({ ...vars, PMIX_RANK: "3", PMIX_NAMESPACE: "1234" }).message).toMatch(/disagree/);
  });

  it("MPICH / Hydra", () => {
    expect(read({ PMI_RANK: "3", PMI_SIZE: "4", MPI_LOCALRANKID: "1", MPI_LOCALNRANKS: "2" })).toMatchObject({ launcher: "mpich", rank: 3, size: 4, localRank: 1, localSize: 2, nodeRank: 1, nodes: 2 });
    expect(refused({ PMI_RANK: "3" }).message).toMatch(/PMI_SIZE is not set/);
    expect(refused({ PMI_RANK: "4", PMI_SIZE: "4" }).message).toMatch(/rank 4 of 4/);
  });

  it("torchrun and Kubernetes: with and without the local variables, MASTER_ADDR and MASTER_PORT", () => {
    const t = { RANK: "3", WORLD_SIZE: "4", LOCAL_RANK: "1", LOCAL_WORLD_SIZE: "2", GROUP_RANK: "1", MASTER_ADDR: "head-0.svc", MASTER_PORT: "29500" };
    expect(read(t)).toMatchObject({ launcher: "torchrun", rank: 3, size: 4, localRank: 1, localSize: 2, nodeRank: 1, nodes: 2, master: { host: "head-0.svc", port: 29500 } });
    // A pod per rank (PyTorchJob without torchrun): no local variables.
    expect(read({ RANK: "2", WORLD_SIZE: "3", MASTER_ADDR: "m", MASTER_PORT: "1234" })).toMatchObject({ localRank: 0, localSize: 1, nodeRank: 2, nodes: 3 });
    expect(refused({ RANK: "1" }).message).toMatch(/WORLD_SIZE is not set/);
    expect(refused({ ...t, MASTER_PORT: undefined as unknown as string }).message).toMatch(/MASTER_ADDR is set without MASTER_PORT/);
    expect(refused({ ...t, MASTER_PORT: "99999" }).message).toMatch(/MASTER_PORT is "99999", expected a port/);
    expect(refused({ MASTER_ADDR: "x", MASTER_PORT: "1" }).message).toMatch(/RANK and WORLD_SIZE are not set/);
    expect(refused({ RANK: "0", WORLD_SIZE: "4", LOCAL_RANK: "0" }).message).toMatch(/LOCAL_RANK is set without LOCAL_WORLD_SIZE/);
  });

  it("the order: a launcher started by another reads as the inner one", () => {
    // torchrun started by srun on each node: SLURM_PROCID is the node, RANK the rank.
    expect(read({ ...slurmStep, RANK: "0", WORLD_SIZE: "8", LOCAL_RANK: "0", LOCAL_WORLD_SIZE: "2", MASTER_ADDR: "node01", MASTER_PORT: "29500" })!.launcher).toBe("torchrun");
    // mpirun inside a Slurm allocation: Open MPI's variables, not the daemon's step.
    expect(read({ ...slurmStep, OMPI_COMM_WORLD_RANK: "1", OMPI_COMM_WORLD_SIZE: "2", OMPI_COMM_WORLD_LOCAL_RANK: "1", OMPI_COMM_WORLD_LOCAL_SIZE: "2" })!.launcher).toBe("openmpi");
  });

  it("bare PMIx: rank and namespace only; a partial pair is refused", () => {
    expect(read({ PMIX_RANK: "2", PMIX_NAMESPACE: "prterun-x@1" })).toMatchObject({ launcher: "pmix", rank: 2, jobId: "prterun-x@1" });
    expect(refused({ PMIX_RANK: "2" }).message).toMatch(/only PMIX_RANK is set/);
  });
});

describe("the rank's GPU", () => {
  it("indexes the visible devices by the local rank; one visible device is device 0", () => {
    expect(rankDevice(3, undefined)).toEqual({ device: 3, visible: undefined });
    expect(rankDevice(3, "5")).toEqual({ device: 0, visible: 1 });
    expect(rankDevice(1, "4,5")).toEqual({ device: 1, visible: 2 });
    expect(rankDevice(1, "GPU-aaaa,GPU-bbbb")).toEqual({ device: 1, visible: 2 });
    expect(rankDevice(0, "2,-1,3")).toEqual({ device: 0, visible: 1 });
    expect(rankDevice(0, "")).toEqual({ device: 0, visible: 0 });
  });
});

describe("the Slurm store's port", () => {
  it("comes from the job and step ids, in 20000 to 31999", () => {
    expect(slurmRendezvousPort("4242.0")).toBe(slurmRendezvousPort("4242.0"));
    expect(slurmRendezvousPort("4242.0")).not.toBe(slurmRendezvousPort("4242.1"));
    for (const id of ["1", "1.0", "999999.3", "12.4294967294"]) {
      const p = slurmRendezvousPort(id);
      expect(p).toBeGreaterThanOrEqual(20000);
      expect(p).toBeLessThan(32000);
    }
  });
});

describe("joinWorld at a store rank 0 serves: refused before anything starts", () => {
  const base: World = { rank: 1, size: 4, localRank: 1, localSize: 4, nodeRank: 0, nodes: 1, launched: true, launcher: "slurm", device: 1, visibleDevices: undefined, jobId: "7.0", hosts: ["localhost"], master: undefined };
  const secretSet = (process.env.CUDA_TS_RENDEZVOUS_SECRET ?? "") !== "";

  it("without MASTER_ADDR, says to set it", async () => {
    await expect(joinWorld({ world: { ...base, launcher: "torchrun", hosts: undefined }, via: "store", timeoutMs: 1000 })).rejects.toThrow(/MASTER_ADDR is not set: set MASTER_ADDR to rank 0's host and MASTER_PORT/);
  });

  it.skipIf(secretSet)("without the secret, shows how to set it for srun, mpirun and Kubernetes", async () => {
    const e = await joinWorld({ world: base, via: "store", timeoutMs: 1000 }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(RendezvousError);
    const m = (e as Error).message;
    expect(m).toMatch(/rendezvous store that rank 0 serves at localhost:\d+/);
    expect(m).toContain("export CUDA_TS_RENDEZVOUS_SECRET=$(openssl rand -hex 32)");
    expect(m).toContain("srun --export=ALL,CUDA_TS_RENDEZVOUS_SECRET");
    expect(m).toContain("-x CUDA_TS_RENDEZVOUS_SECRET");
    expect(m).toContain("secretKeyRef");
  });

  it("refuses an unknown way to meet", async () => {
    await expect(joinWorld({ world: base, via: "carrier-pigeon" as never })).rejects.toThrow(/via is "auto", "pmix" or "store"/);
  });
});
