/**
 * What the launchers clusters use tell a process about its job, read from their environment variables: cuda-ts's own
 * (`cuda-ts run`), torchrun and the Kubernetes operators that set its variables, Open MPI's `mpirun`, MPICH's Hydra,
 * Slurm's `srun`, and a bare PMIx launcher (`prterun`). {@link readLauncherWorld} is pure (it takes the variables),
 * so that every launcher's reading is tested without the launcher; world.ts calls it with the process's own.
 *
 * The order, first match wins (a launcher started by another sets its own variables over those it inherited: torchrun
 * started by `srun` on each node sees `SLURM_PROCID` = the node, `RANK` = its rank):
 *
 * 1. cuda-ts: `CUDA_TS_RANK`, `CUDA_TS_WORLD_SIZE`, ...
 * 2. torchrun / Kubernetes: `RANK`, `WORLD_SIZE`, `LOCAL_RANK`, `LOCAL_WORLD_SIZE`, `GROUP_RANK` or `NODE_RANK`,
 *    `GROUP_WORLD_SIZE`, `MASTER_ADDR`, `MASTER_PORT`
 * 3. Open MPI: `OMPI_COMM_WORLD_RANK`, `_SIZE`, `_LOCAL_RANK`, `_LOCAL_SIZE`, `_NODE_RANK`
 * 4. MPICH / Hydra: `PMI_RANK`, `PMI_SIZE`, `MPI_LOCALRANKID`, `MPI_LOCALNRANKS`
 * 5. Slurm (inside a job step, `SLURM_STEP_ID`): `SLURM_PROCID`, `SLURM_STEP_NUM_TASKS` / `SLURM_NTASKS`,
 *    `SLURM_LOCALID`, `SLURM_NODEID`, `SLURM_STEP_NUM_NODES` / `SLURM_NNODES`, `SLURM_STEP_TASKS_PER_NODE` /
 *    `SLURM_TASKS_PER_NODE` (`2(x3),1`), `SLURM_JOB_ID`, `SLURM_STEP_NODELIST` (`node[01-04,07]`)
 * 6. PMIx alone: `PMIX_RANK`, `PMIX_NAMESPACE` (the size and the rest come from PMIx itself)
 * 7. none: a world of one.
 *
 * Where a launcher that serves PMIx (Slurm with `--mpi=pmix`, Open MPI) also set `PMIX_RANK`, it must agree with the
 * launcher's rank.
 *
 * @module
 */
import { LauncherEnvironmentError } from "./errors.ts";

/** Which launcher started the process. */
export type Launcher = "cuda-ts" | "slurm" | "openmpi" | "pmix" | "mpich" | "torchrun" | "none";

/** A process's place in its job as its launcher's variables say it (world.ts makes a `World` of it). */
export interface LauncherWorld {
  readonly launcher: Launcher;
  readonly rank: number;
  readonly size: number;
  readonly localRank: number;
  readonly localSize: number;
  readonly nodeRank: number;
  readonly nodes: number;
  /** The job's identity as the launcher names it (Slurm's job and step, the PMIx namespace), if it does. */
  readonly jobId: string | undefined;
  /** The hosts of the job, in node order, where the launcher lists them (Slurm's step node list). */
  readonly hosts: readonly string[] | undefined;
  /** `MASTER_ADDR:MASTER_PORT` where set (torchrun's rendezvous; honoured under every launcher). */
  readonly master: { readonly host: string; readonly port: number } | undefined;
  /** The PMIx namespace and rank where the launcher serves PMIx (`PMIX_NAMESPACE`, `PMIX_RANK`). */
  readonly pmix: { readonly namespace: string; readonly rank: number } | undefined;
  /** The launcher's variables that were read, with their values (for messages). */
  readonly variables: Readonly<Record<string, string>>;
}

/** Reads one environment variable (undefined: unset). */
export type EnvironmentReader = (name: string) => string | undefined;

/** The variables each launcher sets, by what they mean. */
export const LAUNCHER_VARIABLES = {
  torchrun: ["RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "GROUP_RANK", "NODE_RANK", "GROUP_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT"],
  openmpi: ["OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE", "OMPI_COMM_WORLD_NODE_RANK"],
  mpich: ["PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID", "MPI_LOCALNRANKS"],
  slurm: [
    "SLURM_PROCID",
    "SLURM_STEP_NUM_TASKS",
    "SLURM_NTASKS",
    "SLURM_LOCALID",
    "SLURM_NODEID",
    "SLURM_STEP_NUM_NODES",
    "SLURM_NNODES",
    "SLURM_STEP_TASKS_PER_NODE",
    "SLURM_TASKS_PER_NODE",
    "SLURM_JOB_ID",
    "SLURM_STEP_ID",
    "SLURM_STEP_NODELIST",
    "SLURM_NODELIST",
  ],
  pmix: ["PMIX_RANK", "PMIX_NAMESPACE"],
} as const;

class Reading {
  readonly seen: Record<string, string> = {};
  constructor(
    readonly launcher: Launcher,
    readonly env: EnvironmentReader,
    readonly fix: string,
  ) {}

  text(name: string): string | undefined {
    const v = this.env(name);
    if (v !== undefined) this.seen[name] = v;
    return v;
  }

  fail(what: string): never {
    throw new LauncherEnvironmentError(this.launcher, this.seen, `${what}. ${this.fix}`);
  }

  /** An integer ≥ min, or undefined when unset. */
  optional(name: string, min: number): number | undefined {
    const t = this.text(name);
    if (t === undefined) return undefined;
    if (!/^\s*\d+\s*$/.test(t) || !Number.isSafeInteger(Number(t)) || Number(t) < min) this.fail(`${name} is ${JSON.stringify(t)}, expected an integer ≥ ${min}`);
    return Number(t);
  }

  required(name: string, min: number, because: string): number {
    const v = this.optional(name, min);
    if (v === undefined) this.fail(`${name} is not set, but ${because}`);
    return v;
  }

  /** The first of `names` that is set. */
  either(names: readonly string[], min: number, because: string): number {
    for (const n of names) {
      const v = this.optional(n, min);
      if (v !== undefined) return v;
    }
    return this.fail(`none of ${names.join(", ")} is set, but ${because}`);
  }

  check(ok: boolean, what: string): void {
    if (!ok) this.fail(what);
  }
}

/**
 * Expands a Slurm host list: `node[01-04,07],gpu5` → node01, node02, node03, node04, node07, gpu5. Ranges keep their
 * zero padding; several bracket groups in one name (`r[1-2]n[1-2]`) multiply out. A list that does not parse is a
 * {@link LauncherEnvironmentError} naming it.
 */
export function expandHostList(list: string, variable = "SLURM_STEP_NODELIST"): string[] {
  const bad = (why: string): never => {
    throw new LauncherEnvironmentError("slurm", { [variable]: list }, `${variable} is ${JSON.stringify(list)}, which is not a Slurm host list (${why}): expected names such as node[01-04,07],gpu5. Run under srun, which sets it`);
  };
  if (typeof list !== "string" || list.trim() === "") bad("it is empty");
  // Split at commas outside brackets.
  const names: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i <= list.length; i++) {
    const c = list[i];
    if (c === "[") {
      if (++depth > 1) bad("nested brackets");
    } else if (c === "]") {
      if (--depth < 0) bad("a ] without its [");
    } else if ((c === "," && depth === 0) || i === list.length) {
      if (depth !== 0) bad("a [ without its ]");
      const part = list.slice(start, i).trim();
      if (part === "") bad("an empty name");
      names.push(part);
      start = i + 1;
    }
  }
  const expand = (name: string): string[] => {
    const open = name.indexOf("[");
    if (open < 0) {
      if (!/^[\w.-]+$/.test(name)) bad(`${JSON.stringify(name)} is not a host name`);
      return [name];
    }
    const close = name.indexOf("]", open);
    const prefix = name.slice(0, open);
    const ranges = name.slice(open + 1, close);
    if (prefix !== "" && !/^[\w.-]+$/.test(prefix)) bad(`${JSON.stringify(prefix)} is not a host name`);
    const values: string[] = [];
    for (const r of ranges.split(",")) {
      const rm = /^\s*(\d+)(?:-(\d+))?\s*$/.exec(r);
      if (rm === null) return bad(`${JSON.stringify(r)} in [${ranges}] is not a number or a range a-b`);
      const lo = rm[1]!;
      const a = Number(lo);
      const b = rm[2] === undefined ? a : Number(rm[2]);
      if (b < a) bad(`the range ${lo}-${rm[2]} runs backwards`);
      if (b - a > 100_000) bad(`the range ${lo}-${rm[2]} is too long`);
      for (let v = a; v <= b; v++) values.push(String(v).padStart(lo.length, "0"));
    }
    const rest = name.slice(close + 1);
    const tails = rest === "" ? [""] : expand(rest);
    return values.flatMap((v) => tails.map((t) => prefix + v + t));
  };
  const out = names.flatMap(expand);
  return out;
}

/**
 * Expands Slurm's tasks per node: `2(x3),1` → [2, 2, 2, 1]. A list that does not parse is a
 * {@link LauncherEnvironmentError} naming it.
 */
export function expandTasksPerNode(text: string, variable = "SLURM_STEP_TASKS_PER_NODE"): number[] {
  const out: number[] = [];
  for (const part of String(text).split(",")) {
    const m = /^\s*(\d+)(?:\(x(\d+)\))?\s*$/.exec(part);
    if (m === null || Number(m[1]) < 1 || (m[2] !== undefined && Number(m[2]) < 1) || Number(m[2] ?? 1) > 1_000_000) {
      throw new LauncherEnvironmentError("slurm", { [variable]: text }, `${variable} is ${JSON.stringify(text)}, expected counts such as 4 or 2(x3),1. Run under srun, which sets it`);
    }
    for (let i = 0; i < Number(m[2] ?? 1); i++) out.push(Number(m[1]));
  }
  return out;
}

function master(r: Reading): { host: string; port: number } | undefined {
  const host = r.text("MASTER_ADDR");
  const portText = r.text("MASTER_PORT");
  if (host === undefined && portText === undefined) return undefined;
  if (host === undefined || host.trim() === "") return r.fail("MASTER_PORT is set without MASTER_ADDR: set MASTER_ADDR to rank 0's host (its name or address)");
  if (portText === undefined) return r.fail("MASTER_ADDR is set without MASTER_PORT: set MASTER_PORT to a free port on rank 0's host (such as 29500)");
  const port = Number(portText);
  if (!/^\d{1,5}$/.test(portText.trim()) || port < 1 || port > 65535) r.fail(`MASTER_PORT is ${JSON.stringify(portText)}, expected a port 1 to 65535`);
  return { host: host.trim().replace(/^\[(.*)\]$/, "$1"), port };
}

function pmixOf(r: Reading, rank: number | undefined): { namespace: string; rank: number } | undefined {
  const ns = r.text("PMIX_NAMESPACE");
  const pr = r.optional("PMIX_RANK", 0);
  if (ns === undefined && pr === undefined) return undefined;
  if (ns === undefined || pr === undefined) return r.fail(`PMIX_RANK and PMIX_NAMESPACE come together from a launcher that serves PMIx, but only ${ns === undefined ? "PMIX_RANK" : "PMIX_NAMESPACE"} is set`);
  if (rank !== undefined && pr !== rank) r.fail(`PMIX_RANK (${pr}) and the launcher's rank (${rank}) disagree`);
  return { namespace: ns, rank: pr };
}

function finish(r: Reading, w: Omit<LauncherWorld, "launcher" | "variables">): LauncherWorld {
  const d = `rank ${w.rank} of ${w.size}, local rank ${w.localRank} of ${w.localSize}, node ${w.nodeRank} of ${w.nodes}`;
  r.check(w.rank < w.size, `the rank is not below the size (${d})`);
  r.check(w.localRank < w.localSize, `the local rank is not below the ranks on this node (${d})`);
  r.check(w.localSize <= w.size, `more ranks on this node than in the job (${d})`);
  r.check(w.nodeRank < w.nodes, `the node's rank is not below the number of nodes (${d})`);
  r.check(w.nodes <= w.size, `more nodes than ranks (${d})`);
  return Object.freeze({ ...w, launcher: r.launcher, variables: Object.freeze({ ...r.seen }) });
}

function readTorchrun(env: EnvironmentReader): LauncherWorld {
  const r = new Reading("torchrun", env, "torchrun sets RANK, WORLD_SIZE, LOCAL_RANK and LOCAL_WORLD_SIZE together; a Kubernetes manifest sets at least RANK, WORLD_SIZE, MASTER_ADDR and MASTER_PORT");
  const size = r.required("WORLD_SIZE", 1, "RANK is set");
  const rank = r.required("RANK", 0, "WORLD_SIZE is set");
  const localRank = r.optional("LOCAL_RANK", 0);
  const localSizeSet = r.optional("LOCAL_WORLD_SIZE", 1);
  if (localRank !== undefined && localSizeSet === undefined && size > 1) r.fail("LOCAL_RANK is set without LOCAL_WORLD_SIZE: set both (the ranks on this node), or neither (one rank per node)");
  const localSize = localSizeSet ?? 1;
  const nodeRankSet = r.optional("GROUP_RANK", 0) ?? r.optional("NODE_RANK", 0);
  const groups = r.optional("GROUP_WORLD_SIZE", 1);
  const nodes = groups ?? Math.ceil(size / localSize);
  const nodeRank = nodeRankSet ?? Math.floor(rank / localSize);
  return finish(r, { rank, size, localRank: localRank ?? 0, localSize, nodeRank, nodes, jobId: r.text("TORCHELASTIC_RUN_ID"), hosts: undefined, master: master(r), pmix: undefined });
}

function readOpenMpi(env: EnvironmentReader): LauncherWorld {
  const r = new Reading("openmpi", env, "Open MPI's mpirun sets the OMPI_COMM_WORLD_* variables together: start the script with mpirun -n N");
  const size = r.required("OMPI_COMM_WORLD_SIZE", 1, "OMPI_COMM_WORLD_RANK is set");
  const rank = r.required("OMPI_COMM_WORLD_RANK", 0, "OMPI_COMM_WORLD_SIZE is set");
  const localRank = r.required("OMPI_COMM_WORLD_LOCAL_RANK", 0, "mpirun sets it with OMPI_COMM_WORLD_RANK");
  const localSize = r.required("OMPI_COMM_WORLD_LOCAL_SIZE", 1, "mpirun sets it with OMPI_COMM_WORLD_RANK");
  // OMPI_COMM_WORLD_NODE_RANK is the rank among the processes this node runs (all jobs), not the node's index:
  // it is read (and must be an integer), the node's index comes from the placement by node.
  r.optional("OMPI_COMM_WORLD_NODE_RANK", 0);
  const pmix = pmixOf(r, rank);
  const nodes = Math.ceil(size / localSize);
  return finish(r, { rank, size, localRank, localSize, nodeRank: Math.min(nodes - 1, Math.floor(rank / localSize)), nodes, jobId: pmix?.namespace, hosts: undefined, master: master(r), pmix });
}

function readMpich(env: EnvironmentReader): LauncherWorld {
  const r = new Reading("mpich", env, "MPICH's Hydra (mpiexec) sets PMI_RANK, PMI_SIZE, MPI_LOCALRANKID and MPI_LOCALNRANKS together: start the script with mpiexec -n N");
  const size = r.required("PMI_SIZE", 1, "PMI_RANK is set");
  const rank = r.required("PMI_RANK", 0, "PMI_SIZE is set");
  const localRank = r.optional("MPI_LOCALRANKID", 0);
  const localSize = r.optional("MPI_LOCALNRANKS", 1);
  if ((localRank === undefined) !== (localSize === undefined)) r.fail("MPI_LOCALRANKID and MPI_LOCALNRANKS come together, but only one is set");
  const ls = localSize ?? 1;
  const nodes = Math.ceil(size / ls);
  return finish(r, { rank, size, localRank: localRank ?? 0, localSize: ls, nodeRank: Math.min(nodes - 1, Math.floor(rank / ls)), nodes, jobId: undefined, hosts: undefined, master: master(r), pmix: undefined });
}

function readSlurm(env: EnvironmentReader): LauncherWorld {
  const r = new Reading("slurm", env, "srun sets the SLURM_* variables of a job step together: start the script with srun -n N");
  const size = r.either(["SLURM_STEP_NUM_TASKS", "SLURM_NTASKS"], 1, "SLURM_PROCID is set");
  const ntasks = r.optional("SLURM_NTASKS", 1);
  const rank = r.required("SLURM_PROCID", 0, "a job step's task has its rank there");
  const localRank = r.required("SLURM_LOCALID", 0, "srun sets it with SLURM_PROCID");
  const nodeRank = r.required("SLURM_NODEID", 0, "srun sets it with SLURM_PROCID");
  const nodes = r.either(["SLURM_STEP_NUM_NODES", "SLURM_NNODES"], 1, "srun sets it with SLURM_PROCID");
  const tpnName = env("SLURM_STEP_TASKS_PER_NODE") !== undefined ? "SLURM_STEP_TASKS_PER_NODE" : "SLURM_TASKS_PER_NODE";
  const tpnText = r.text(tpnName);
  if (tpnText === undefined) return r.fail("neither SLURM_STEP_TASKS_PER_NODE nor SLURM_TASKS_PER_NODE is set, but srun sets them with SLURM_PROCID");
  let perNode: number[];
  try {
    perNode = expandTasksPerNode(tpnText, tpnName);
  } catch (e) {
    return r.fail((e as Error).message.replace(/^the launcher's variables .*? do not describe a job: /, "").replace(/\. Run under srun, which sets it$/, ""));
  }
  const listName = env("SLURM_STEP_NODELIST") !== undefined ? "SLURM_STEP_NODELIST" : "SLURM_NODELIST";
  const listText = r.text(listName);
  let hosts: string[] | undefined;
  if (listText !== undefined) {
    try {
      hosts = expandHostList(listText, listName);
    } catch (e) {
      return r.fail((e as Error).message.replace(/^the launcher's variables .*? do not describe a job: /, "").replace(/\. Run under srun, which sets it$/, ""));
    }
  }
  r.check(perNode.length === nodes, `${tpnName} lists ${perNode.length} node${perNode.length === 1 ? "" : "s"} (${tpnText}) but the step has ${nodes}`);
  const sum = perNode.reduce((a, b) => a + b, 0);
  r.check(sum === size, `${tpnName} (${tpnText}) adds up to ${sum} tasks, but the step has ${size}`);
  if (hosts !== undefined) r.check(hosts.length === nodes, `${listName} (${listText}) names ${hosts.length} host${hosts.length === 1 ? "" : "s"} but the step has ${nodes} nodes`);
  if (ntasks !== undefined && env("SLURM_STEP_NUM_TASKS") !== undefined) {
    // SLURM_NTASKS may be the allocation's (larger) in a step of part of it: only a larger step is wrong.
    r.check(ntasks >= size || ntasks === size, `SLURM_NTASKS (${ntasks}) is smaller than the step's SLURM_STEP_NUM_TASKS (${size})`);
  }
  r.check(nodeRank < nodes, `SLURM_NODEID (${nodeRank}) is not below the step's ${nodes} node${nodes === 1 ? "" : "s"}`);
  const localSize = perNode[nodeRank]!;
  const job = r.text("SLURM_JOB_ID") ?? r.text("SLURM_JOBID");
  const step = r.text("SLURM_STEP_ID") ?? r.text("SLURM_STEPID");
  const pmix = pmixOf(r, rank);
  return finish(r, { rank, size, localRank, localSize, nodeRank, nodes, jobId: job === undefined ? undefined : step === undefined ? job : `${job}.${step}`, hosts, master: master(r), pmix });
}

/**
 * The launcher of this process and its place in the job, from the launcher's variables (see the module's
 * documentation for the order). `undefined`: no launcher's variables at all (a world of one), or cuda-ts's own
 * (world.ts reads those). A partial or contradictory set is a {@link LauncherEnvironmentError} naming the variables
 * and their values. A bare PMIx launcher gives rank and namespace only (`size` 0): world.ts asks PMIx for the rest.
 */
export function readLauncherWorld(env: EnvironmentReader): LauncherWorld | undefined {
  if (env("RANK") !== undefined || env("WORLD_SIZE") !== undefined) return readTorchrun(env);
  if (env("OMPI_COMM_WORLD_RANK") !== undefined || env("OMPI_COMM_WORLD_SIZE") !== undefined) return readOpenMpi(env);
  if (env("PMI_RANK") !== undefined || env("PMI_SIZE") !== undefined) return readMpich(env);
  if (env("SLURM_PROCID") !== undefined && (env("SLURM_STEP_ID") !== undefined || env("SLURM_STEPID") !== undefined)) return readSlurm(env);
  if (env("PMIX_RANK") !== undefined || env("PMIX_NAMESPACE") !== undefined) {
    const r = new Reading("pmix", env, "a PMIx launcher (prterun, srun --mpi=pmix) sets PMIX_RANK and PMIX_NAMESPACE together");
    const pmix = pmixOf(r, undefined)!;
    return Object.freeze({ launcher: "pmix", rank: pmix.rank, size: 0, localRank: 0, localSize: 0, nodeRank: 0, nodes: 0, jobId: pmix.namespace, hosts: undefined, master: master(r), pmix, variables: Object.freeze({ ...r.seen }) });
  }
  if (env("MASTER_ADDR") !== undefined || env("MASTER_PORT") !== undefined || env("LOCAL_RANK") !== undefined) {
    const r = new Reading("torchrun", env, "a job started through torchrun's variables sets RANK and WORLD_SIZE with MASTER_ADDR and MASTER_PORT");
    for (const n of ["MASTER_ADDR", "MASTER_PORT", "LOCAL_RANK"]) r.text(n);
    r.fail("RANK and WORLD_SIZE are not set");
  }
  return undefined;
}

/**
 * The GPU ordinal of a local rank as the process sees its devices: with `CUDA_VISIBLE_DEVICES` listing one device
 * (Slurm's `--gpus-per-task=1`, `--gpu-bind=single`), device 0; otherwise the local rank, which indexes the visible
 * devices. `visible` is the number of devices `CUDA_VISIBLE_DEVICES` lists, undefined when it is unset.
 */
export function rankDevice(localRank: number, visibleDevices: string | undefined): { readonly device: number; readonly visible: number | undefined } {
  if (visibleDevices === undefined) return { device: localRank, visible: undefined };
  const list = visibleDevices.split(",").map((s) => s.trim()).filter((s) => s !== "");
  // CUDA stops at the first entry that is not a device (a negative number hides every later one).
  const stop = list.findIndex((s) => /^-\d+$/.test(s));
  const visible = stop < 0 ? list.length : stop;
  return { device: visible === 1 ? 0 : localRank, visible };
}
