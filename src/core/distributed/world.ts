/**
 * The world of a multi-process job: which rank this process is, how many there are, which GPU is its own, and the
 * rendezvous through which ranks meet before they build a communicator.
 *
 * `cuda-ts run -n N script.ts` (src/cli/run.ts) starts N processes of the running runtime and gives each, through
 * the environment, its rank and the address and secret of the job's rendezvous store (src/core/rendezvous.ts),
 * as `torchrun` does for PyTorch. The launchers clusters use (Slurm's `srun`, Open MPI's `mpirun`, MPICH's Hydra,
 * torchrun and the Kubernetes operators that set its variables) are read as well (src/core/distributed/launchers.ts
 * has the variables and their order). A script reads them with {@link world}; run on its own it is a world of one.
 *
 * How the ranks meet ({@link joinWorld}):
 *
 * - under `cuda-ts run`, at the launcher's store;
 * - where the launcher serves PMIx (`srun --mpi=pmix`, `mpirun`), through PMIx (src/core/distributed/pmix-meeting.ts):
 *   no port, no secret;
 * - otherwise rank 0 serves a rendezvous store at `MASTER_ADDR:MASTER_PORT` (under Slurm without them: on the
 *   step's first host, at a port derived from the job and step ids) and the others connect to it, each proving
 *   the job's secret (`CUDA_TS_RENDEZVOUS_SECRET`, which `srun --export` and `mpirun -x` carry to every rank).
 *
 * ```ts
 * const w = world();                       // { rank, size, localRank, ... }
 * const device = new Device(w.localRank);  // one GPU per local rank
 * await using meeting = await joinWorld(); // waits until every rank is there (or says which is missing)
 * const id = await meeting.share("nccl-id", () => makeUniqueId()); // rank 0 makes it, every rank gets it
 * ```
 *
 * @module
 */
import { getEnv } from "../../host.ts";
import { describeValue } from "../../errors/describe.ts";
import { LauncherEnvironmentError, RankMissingError, RendezvousError } from "./errors.ts";
import { RENDEZVOUS_ADDR_ENV, RENDEZVOUS_SECRET_ENV, RendezvousClient, RendezvousServer } from "./rendezvous.ts";
import { checkInternal, type Internal, INTERNAL } from "../base/internal.ts";
import { type Launcher, type LauncherWorld, rankDevice, readLauncherWorld } from "./launchers.ts";
import { PmixMeeting, PmixSession } from "./pmix-meeting.ts";

export type { Launcher } from "./launchers.ts";
export { expandHostList, expandTasksPerNode, LAUNCHER_VARIABLES } from "./launchers.ts";

/** The environment variables the launcher sets in every rank it starts. */
export const WORLD_ENV = {
  /** This process's rank in the job, 0 to size-1. */
  rank: "CUDA_TS_RANK",
  /** How many ranks the job has, over all nodes. */
  size: "CUDA_TS_WORLD_SIZE",
  /** This process's rank on its node (its GPU's ordinal, one GPU per local rank). */
  localRank: "CUDA_TS_LOCAL_RANK",
  /** How many ranks run on this node. */
  localSize: "CUDA_TS_LOCAL_WORLD_SIZE",
  /** This node's rank, 0 to nodes-1. */
  nodeRank: "CUDA_TS_NODE_RANK",
  /** How many nodes the job has. */
  nodes: "CUDA_TS_NNODES",
} as const;

/** Where this process stands in its job. */
export interface World {
  /** This process's rank, 0 to `size - 1`. */
  readonly rank: number;
  /** The number of ranks, over all nodes. */
  readonly size: number;
  /** The rank on this node. */
  readonly localRank: number;
  /** The number of ranks on this node. */
  readonly localSize: number;
  /** This node's rank. */
  readonly nodeRank: number;
  /** The number of nodes. */
  readonly nodes: number;
  /** Whether a launcher started this process; false for a script run on its own (a world of one). */
  readonly launched: boolean;
  /** The launcher whose variables were read (`"none"`: a script run on its own). */
  readonly launcher: Launcher;
  /**
   * This rank's GPU as the process numbers its devices: the local rank, which indexes the devices
   * `CUDA_VISIBLE_DEVICES` makes visible; 0 where it makes one visible (Slurm's `--gpus-per-task=1`).
   */
  readonly device: number;
  /** How many devices `CUDA_VISIBLE_DEVICES` makes visible; undefined where it is unset (all). */
  readonly visibleDevices: number | undefined;
  /** The job as its launcher names it (Slurm's `job.step`, the PMIx namespace, torchrun's run id), if it does. */
  readonly jobId: string | undefined;
  /** The job's hosts in node order, where the launcher lists them (Slurm's step node list, expanded). */
  readonly hosts: readonly string[] | undefined;
  /** `MASTER_ADDR` and `MASTER_PORT`, where set: where rank 0 serves the rendezvous store. */
  readonly master: { readonly host: string; readonly port: number } | undefined;
}

function deviceFields(localRank: number): Pick<World, "device" | "visibleDevices"> {
  const d = rankDevice(localRank, getEnv("CUDA_VISIBLE_DEVICES"));
  return { device: d.device, visibleDevices: d.visible };
}

function alone(): World {
  return Object.freeze({ rank: 0, size: 1, localRank: 0, localSize: 1, nodeRank: 0, nodes: 1, launched: false, launcher: "none", ...deviceFields(0), jobId: undefined, hosts: undefined, master: undefined });
}

function readCount(name: string, min: number): number {
  const text = getEnv(name);
  const n = text === undefined ? Number.NaN : Number(text);
  if (text === undefined || !/^\d+$/.test(text) || !Number.isSafeInteger(n) || n < min) {
    throw new RendezvousError(
      `${name} is ${text === undefined ? "not set (or not readable: Deno needs --allow-env)" : JSON.stringify(text)}, expected an integer ≥ ${min}: ` +
        "it is set by the launcher (`cuda-ts run -n N script.ts`); do not set the CUDA_TS_RANK variables by hand",
    );
  }
  return n;
}

function fromLauncher(l: LauncherWorld): World {
  return Object.freeze({
    rank: l.rank,
    size: l.size,
    localRank: l.localRank,
    localSize: l.localSize,
    nodeRank: l.nodeRank,
    nodes: l.nodes,
    launched: true,
    launcher: l.launcher,
    ...deviceFields(l.localRank),
    jobId: l.jobId,
    hosts: l.hosts,
    master: l.master,
  });
}

/**
 * This process's place in its job, read from its launcher's variables: `cuda-ts run`'s ({@link WORLD_ENV}), then
 * torchrun's and Kubernetes' (`RANK`, `WORLD_SIZE`, ...), Open MPI's (`OMPI_COMM_WORLD_*`), MPICH's (`PMI_RANK`,
 * ...), Slurm's (`SLURM_PROCID`, ... inside a job step); `launcher` says which. Without any (a script run on its
 * own) it is a world of one: rank 0 of 1, `launcher: "none"`. Variables that are partial or disagree (a rank not
 * below the size, a node list that does not parse, ...) are a {@link LauncherEnvironmentError} naming them; for
 * `cuda-ts run`'s own, a {@link RendezvousError}. Where only PMIx's variables are set (`prterun`), the size comes
 * from PMIx itself: read it from `(await joinWorld()).world`.
 */
export function world(): World {
  if (getEnv(WORLD_ENV.rank) !== undefined || getEnv(WORLD_ENV.size) !== undefined) {
    const rank = readCount(WORLD_ENV.rank, 0);
    const size = readCount(WORLD_ENV.size, 1);
    const localRank = readCount(WORLD_ENV.localRank, 0);
    const localSize = readCount(WORLD_ENV.localSize, 1);
    const nodeRank = readCount(WORLD_ENV.nodeRank, 0);
    const nodes = readCount(WORLD_ENV.nodes, 1);
    if (rank >= size || localRank >= localSize || nodeRank >= nodes || localSize > size) {
      throw new RendezvousError(
        `the launcher's variables disagree: rank ${rank} of ${size}, local rank ${localRank} of ${localSize}, node ${nodeRank} of ${nodes}: ` +
          "start the script through `cuda-ts run`, which sets them together",
      );
    }
    return Object.freeze({ rank, size, localRank, localSize, nodeRank, nodes, launched: true, launcher: "cuda-ts", ...deviceFields(localRank), jobId: undefined, hosts: undefined, master: undefined });
  }
  const l = readLauncherWorld(getEnv);
  if (l === undefined) return alone();
  if (l.launcher === "pmix") {
    throw new LauncherEnvironmentError(
      "pmix",
      l.variables,
      "only PMIx's variables are set, so the job's size comes from PMIx itself: read the world from `(await joinWorld()).world` (or start the job with srun or mpirun, which set the size too)",
    );
  }
  return fromLauncher(l);
}

/** How the ranks of a job meet. */
export type MeetingPath = "alone" | "cuda-ts" | "pmix" | "store";

/** The variable that chooses how ranks meet where the launcher leaves a choice: `pmix` or `store` (default: auto). */
export const RENDEZVOUS_VIA_ENV = "CUDA_TS_RENDEZVOUS_VIA";

/** Options of {@link joinWorld}. */
export interface JoinOptions {
  /** How long to wait for every rank, in milliseconds. Default: `CUDA_TS_RENDEZVOUS_TIMEOUT_MS`, else 60 000. */
  readonly timeoutMs?: number;
  /** The world to join. Default: {@link world}(). */
  readonly world?: World;
  /**
   * How the ranks meet: `"pmix"` (through the launcher's PMIx), `"store"` (the rendezvous store rank 0 serves at
   * `MASTER_ADDR:MASTER_PORT`), or `"auto"`: PMIx where the launcher serves it, the store otherwise. Default:
   * `CUDA_TS_RENDEZVOUS_VIA`, else `"auto"`. Under `cuda-ts run` the ranks always meet at its store.
   */
  readonly via?: "auto" | "pmix" | "store";
}

const KEY_PREFIX = "world/";

function defaultTimeout(): number {
  const text = getEnv("CUDA_TS_RENDEZVOUS_TIMEOUT_MS");
  if (text === undefined) return 60_000;
  const n = Number(text);
  if (!(Number.isFinite(n) && n > 0)) throw new RangeError(`CUDA_TS_RENDEZVOUS_TIMEOUT_MS is a positive number of milliseconds, not ${JSON.stringify(text)}`);
  return n;
}

/** How a meeting moves values: the rendezvous store or PMIx. */
interface Transport {
  exchange(key: string, value: string | undefined, timeoutMs: number): Promise<string>;
  barrier(timeoutMs: number): Promise<void>;
  close(): void;
}

class StoreTransport implements Transport {
  #barriers = 0;
  constructor(
    readonly client: RendezvousClient,
    readonly server: RendezvousServer | undefined,
    readonly world: World,
  ) {}

  async exchange(key: string, value: string | undefined, timeoutMs: number): Promise<string> {
    if (value !== undefined) {
      await this.client.set(`${KEY_PREFIX}value/${key}`, value);
      return value;
    }
    return await this.client.get(`${KEY_PREFIX}value/${key}`, { timeoutMs });
  }

  async barrier(timeoutMs: number): Promise<void> {
    const g = this.#barriers++;
    const w = this.world;
    const base = `${KEY_PREFIX}barrier/${g}/`;
    if (w.rank === 0) {
      const deadline = Date.now() + timeoutMs;
      for (let r = 1; r < w.size; r++) {
        try {
          await this.client.get(`${base}${r}`, { timeoutMs: Math.max(1, deadline - Date.now()) });
        } catch (e) {
          throw new RankMissingError(r, w.size, `rank ${r} of ${w.size} did not reach barrier ${g} within ${timeoutMs} ms (rank 0 waited for it; ranks after it were not checked): did it exit early or fail? (${e instanceof Error ? e.message : String(e)})`, { cause: e });
        }
      }
      await this.client.set(`${base}done`, "1");
      return;
    }
    await this.client.set(`${base}${w.rank}`, "1");
    try {
      await this.client.get(`${base}done`, { timeoutMs });
    } catch (e) {
      throw new RendezvousError(`barrier ${g} did not open within ${timeoutMs} ms (rank ${w.rank} of ${w.size} waited): a rank did not reach it (rank 0's error names it), or rank 0 ended`, { cause: e });
    }
  }

  close(): void {
    this.client.close();
    // Rank 0's own store stays up until the other ranks have read what they need and disconnected.
    void this.server?.closeWhenIdle(60_000);
  }
}

class PmixTransport implements Transport {
  constructor(readonly meeting: PmixMeeting) {}
  exchange(key: string, value: string | undefined, timeoutMs: number): Promise<string> {
    return Promise.resolve(this.meeting.exchange(key, value, timeoutMs));
  }
  barrier(timeoutMs: number): Promise<void> {
    this.meeting.barrier(timeoutMs);
    return Promise.resolve();
  }
  close(): void {
    this.meeting.close();
  }
}

/**
 * The ranks of a job, met: every rank has come to the meeting (the rendezvous store, or PMIx). Values are shared
 * with {@link Meeting.share}, ranks wait for each other with {@link Meeting.barrier}. Close it (or `await using`)
 * when the communicator is built.
 */
export class Meeting {
  readonly #transport: Transport | undefined;
  readonly #timeoutMs: number;
  readonly #values = new Map<string, string>();
  /** The world that met. */
  readonly world: World;
  /** How the ranks met: `"alone"` (a world of one), `"cuda-ts"` (its launcher's store), `"pmix"`, or `"store"`. */
  readonly via: MeetingPath;

  /** Reserved to cuda-ts (the token is not exported): use {@link joinWorld}. */
  constructor(token: Internal, world: World, transport: Transport | undefined, timeoutMs: number, via: MeetingPath = transport === undefined ? "alone" : "cuda-ts") {
    checkInternal(token, "Meeting", "joinWorld");
    this.world = world;
    this.#transport = transport;
    this.#timeoutMs = timeoutMs;
    this.via = via;
  }

  /**
   * A string value all ranks agree on: rank 0 computes it with `make` and publishes it under `key`; the other ranks
   * wait for it (at most the meeting's timeout). Every rank calls `share` with the same keys in the same order (through
   * PMIx it is a collective step). In a world of one, `make()` is simply called.
   */
  async share(key: string, make: () => string | Promise<string>): Promise<string> {
    if (typeof key !== "string" || key.length === 0) throw new TypeError(`Meeting.share: key is a non-empty string, not ${describeValue(key)}`);
    if (typeof make !== "function") throw new TypeError(`Meeting.share: make is a function returning the value, not ${describeValue(make)}`);
    const known = this.#values.get(key);
    if (known !== undefined) return known;
    let value: string;
    if (this.#transport === undefined) {
      value = await make();
    } else if (this.world.rank === 0) {
      value = await make();
      if (typeof value !== "string") throw new TypeError(`Meeting.share: make() returns a string (encode bytes as base64), not ${describeValue(value)}`);
      await this.#transport.exchange(key, value, this.#timeoutMs);
    } else {
      value = await this.#transport.exchange(key, undefined, this.#timeoutMs);
    }
    this.#values.set(key, value);
    return value;
  }

  /**
   * Waits until every rank has reached this barrier (at most the meeting's timeout: a rank that does not come is a
   * {@link RankMissingError} naming it on rank 0, a {@link RendezvousError} elsewhere). Every rank calls it the same
   * number of times. In a world of one it returns at once.
   */
  async barrier(): Promise<void> {
    await this.#transport?.barrier(this.#timeoutMs);
  }

  /** Leaves the meeting (disconnects from the store, or finalises PMIx). Closing twice is harmless. */
  close(): void {
    this.#transport?.close();
  }

  [Symbol.dispose](): void {
    this.close();
  }

  [Symbol.asyncDispose](): Promise<void> {
    this.close();
    return Promise.resolve();
  }
}

/** The port rank 0 serves the store on under Slurm without MASTER_PORT: from the job and step ids (20000 to 31999). */
export function slurmRendezvousPort(jobId: string): number {
  const [job, step] = jobId.split(".").map((x) => Number(x)) as [number, number | undefined];
  const j = Number.isSafeInteger(job) ? job : 0;
  const s = step !== undefined && Number.isSafeInteger(step) ? step : 0;
  return 20000 + ((j * 131 + s * 7919) % 12000);
}

function bindHostFor(host: string): string {
  if (host === "localhost" || /^127\./.test(host)) return "127.0.0.1";
  if (host === "::1") return "::1";
  return host.includes(":") ? "::" : "0.0.0.0";
}

function secretAdvice(where: string): string {
  return (
    `set ${RENDEZVOUS_SECRET_ENV} to the same 64 hex digits on every rank before starting the job: \`export ${RENDEZVOUS_SECRET_ENV}=$(openssl rand -hex 32)\`; ` +
    `srun passes the environment on (or \`srun --export=ALL,${RENDEZVOUS_SECRET_ENV}\`), mpirun needs \`-x ${RENDEZVOUS_SECRET_ENV}\`, ` +
    `a Kubernetes manifest sets it from a Secret (env: - name: ${RENDEZVOUS_SECRET_ENV}, valueFrom: secretKeyRef). ${where}`
  );
}

/** Where rank 0 serves the store, and the secret. */
function storePlan(w: World): { host: string; port: number; secret: string } {
  let host: string;
  let port: number;
  if (w.master !== undefined) {
    host = w.master.host;
    port = w.master.port;
  } else if (w.launcher === "slurm" && w.hosts !== undefined && w.hosts.length > 0 && w.jobId !== undefined) {
    host = w.hosts[0]!;
    port = slurmRendezvousPort(w.jobId);
  } else {
    throw new RendezvousError(
      `this is rank ${w.rank} of ${w.size} (launcher ${w.launcher}) and its ranks meet at a rendezvous store that rank 0 serves, but MASTER_ADDR is not set: ` +
        "set MASTER_ADDR to rank 0's host and MASTER_PORT to a free port there (such as 29500) on every rank" +
        (w.launcher === "openmpi" || w.launcher === "slurm" ? ", or let the ranks meet through PMIx (srun --mpi=pmix, mpirun with PMIx)" : ""),
    );
  }
  const secret = getEnv(RENDEZVOUS_SECRET_ENV);
  if (secret === undefined || secret === "") {
    throw new RendezvousError(
      `this is rank ${w.rank} of ${w.size} (launcher ${w.launcher}, ${w.nodes} node${w.nodes === 1 ? "" : "s"}) and its ranks meet at a rendezvous store that rank 0 serves at ${host}:${port}, ` +
        `which admits only processes that hold the job's secret, but ${RENDEZVOUS_SECRET_ENV} is not set: ` +
        secretAdvice(""),
    );
  }
  return { host, port, secret };
}

function jobIdentity(w: World): string {
  return JSON.stringify({ launcher: w.launcher, job: w.jobId ?? null, size: w.size, nodes: w.nodes });
}

async function connectToStore(w: World, timeoutMs: number): Promise<{ client: RendezvousClient; server: RendezvousServer | undefined }> {
  const plan = storePlan(w);
  let server: RendezvousServer | undefined;
  if (w.rank === 0) {
    try {
      server = await RendezvousServer.start({ host: bindHostFor(plan.host), port: plan.port, secret: plan.secret });
    } catch (e) {
      if (e instanceof TypeError) throw new RendezvousError(`${RENDEZVOUS_SECRET_ENV} is not a secret: ${e.message}. ${secretAdvice("")}`, { cause: e });
      throw e;
    }
  }
  let client: RendezvousClient;
  try {
    client = await RendezvousClient.connect({ host: w.rank === 0 ? (server!.host === "0.0.0.0" || server!.host === "::" ? "127.0.0.1" : server!.host) : plan.host, port: plan.port, secret: plan.secret, timeoutMs, waitForServer: true });
  } catch (e) {
    await server?.close();
    if (e instanceof TypeError) throw new RendezvousError(`${RENDEZVOUS_SECRET_ENV} is not a secret: ${e.message}. ${secretAdvice("")}`, { cause: e });
    if (e instanceof RendezvousError && /^nothing listened/.test(e.message)) {
      throw new RankMissingError(0, w.size, `rank 0 of ${w.size} serves the rendezvous store at ${plan.host}:${plan.port}, but ${e.message.replace(/^nothing/, "nothing")}: did rank 0 start, and is ${plan.host} its host (MASTER_ADDR)?`, { cause: e });
    }
    if (e instanceof RendezvousError && /refused this client|could not prove/.test(e.message)) {
      throw new RendezvousError(`rank ${w.rank} is not part of the job served at ${plan.host}:${plan.port}: ${e.message} Every rank needs the job's own ${RENDEZVOUS_SECRET_ENV}`, { cause: e });
    }
    throw e;
  }
  try {
    const identity = jobIdentity(w);
    if (w.rank === 0) await client.set(`${KEY_PREFIX}job`, identity);
    else {
      const theirs = await client.get(`${KEY_PREFIX}job`, { timeoutMs });
      if (theirs !== identity) {
        throw new RendezvousError(
          `the rendezvous store at ${plan.host}:${plan.port} belongs to another job (${theirs}; this rank's: ${identity}): this process is not part of that job. ` +
            "Check MASTER_ADDR and MASTER_PORT, and give each job its own secret",
        );
      }
    }
  } catch (e) {
    client.close();
    await server?.close();
    throw e;
  }
  return { client, server };
}

async function meetAtStore(w: World, client: RendezvousClient, timeoutMs: number, nodeHint: (r: number) => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const mark = `${w.nodeRank}:${Math.random().toString(36).slice(2)}`;
  await client.set(`${KEY_PREFIX}joined/${w.rank}`, mark);
  for (let r = 0; r < w.size; r++) {
    if (r === w.rank) continue;
    const left = Math.max(1, deadline - Date.now());
    try {
      await client.get(`${KEY_PREFIX}joined/${r}`, { timeoutMs: left });
    } catch (e) {
      throw new RankMissingError(
        r,
        w.size,
        `rank ${r} of ${w.size} never joined the job within ${timeoutMs} ms (rank ${w.rank} waited for it${r + 1 < w.size ? "; ranks after it were not checked" : ""}): ` +
          `${nodeHint(r)} (${e instanceof Error ? e.message : String(e)})`,
        { cause: e },
      );
    }
  }
  const mine = await client.get(`${KEY_PREFIX}joined/${w.rank}`, { timeoutMs: Math.max(1, deadline - Date.now()) });
  if (mine !== mark) {
    throw new RendezvousError(`another process joined the job as rank ${w.rank} too: two processes were given the same rank (check the launcher's variables; is a second job using the same MASTER_ADDR:MASTER_PORT and secret?)`);
  }
}

function viaOption(options: JoinOptions): "auto" | "pmix" | "store" {
  const v = options.via ?? getEnv(RENDEZVOUS_VIA_ENV) ?? "auto";
  if (v !== "auto" && v !== "pmix" && v !== "store") {
    throw new RangeError(`joinWorld: via is "auto", "pmix" or "store" (${options.via !== undefined ? "the via option" : RENDEZVOUS_VIA_ENV}), not ${describeValue(v)}`);
  }
  return v;
}

async function joinThroughPmix(w: World | undefined, timeoutMs: number): Promise<Meeting> {
  const session = await PmixSession.acquire();
  let met: World;
  try {
    if (w === undefined || w.launcher === "pmix") {
      const f = session.facts();
      met = Object.freeze({ ...f, launched: true, launcher: "pmix", ...deviceFields(f.localRank), jobId: f.namespace, hosts: undefined, master: undefined });
    } else {
      met = w;
      if (session.rank !== w.rank) {
        throw new LauncherEnvironmentError(w.launcher, { PMIX_RANK: String(session.rank) }, `PMIx says this process is rank ${session.rank}, the launcher's variables say ${w.rank}: start the job with one launcher, not one inside another`);
      }
    }
  } catch (e) {
    session.release();
    throw e;
  }
  if (met.size === 1) {
    session.release();
    return new Meeting(INTERNAL, met, undefined, timeoutMs, "alone");
  }
  const meeting = PmixMeeting.join(session, met.rank, met.size, timeoutMs);
  return new Meeting(INTERNAL, met, new PmixTransport(meeting), timeoutMs, "pmix");
}

/**
 * Meets the job's other ranks and waits until every rank has come: under `cuda-ts run` at its store; where the
 * launcher serves PMIx (`srun --mpi=pmix`, `mpirun`), through PMIx; otherwise at the rendezvous store rank 0 serves
 * at `MASTER_ADDR:MASTER_PORT` (Slurm without them: on the step's first host, at a port derived from the job id),
 * admitting the ranks that prove `CUDA_TS_RENDEZVOUS_SECRET`. A rank that does not come within the timeout is a
 * {@link RankMissingError} naming it, so that no rank hangs in a collective's initialisation waiting for a process
 * that never started. In a world of one it returns at once.
 */
export async function joinWorld(options: JoinOptions = {}): Promise<Meeting> {
  if (typeof options !== "object" || options === null) throw new TypeError(`joinWorld: options are an object, not ${describeValue(options)}`);
  const timeoutMs = options.timeoutMs ?? defaultTimeout();
  if (!(typeof timeoutMs === "number" && timeoutMs > 0)) throw new RangeError(`joinWorld: timeoutMs is a positive number of milliseconds, not ${describeValue(timeoutMs)}`);
  const via = viaOption(options);
  let w: World | undefined = options.world;
  if (w === undefined) {
    const l = getEnv(WORLD_ENV.rank) === undefined && getEnv(WORLD_ENV.size) === undefined ? readLauncherWorld(getEnv) : undefined;
    if (l?.launcher === "pmix") return await joinThroughPmix(undefined, timeoutMs);
    w = world();
  }
  if (w.size === 1) return new Meeting(INTERNAL, w, undefined, timeoutMs, "alone");
  if (w.launcher === "cuda-ts") {
    if (getEnv(RENDEZVOUS_ADDR_ENV) === undefined) {
      throw new RendezvousError(`this is rank ${w.rank} of ${w.size} but ${RENDEZVOUS_ADDR_ENV} is not set: start the job with \`cuda-ts run -n N script.ts\``);
    }
    const client = await RendezvousClient.fromEnvironment({ timeoutMs });
    try {
      const perNode = w.localSize;
      await meetAtStore(w, client, timeoutMs, (r) => `is the launcher running on node ${Math.floor(r / perNode)} (\`cuda-ts run --node-rank ${Math.floor(r / perNode)} ...\`), and did that rank start?`);
    } catch (e) {
      client.close();
      throw e;
    }
    return new Meeting(INTERNAL, w, new StoreTransport(client, undefined, w), timeoutMs, "cuda-ts");
  }
  const pmixServed = w.launcher === "slurm" || w.launcher === "openmpi" ? getEnv("PMIX_RANK") !== undefined : false;
  if (via === "pmix" || (via === "auto" && pmixServed)) return await joinThroughPmix(w, timeoutMs);
  const { client, server } = await connectToStore(w, timeoutMs);
  try {
    await meetAtStore(w, client, timeoutMs, () => "did it start, and did it exit early or fail? The launcher's log names the task");
  } catch (e) {
    client.close();
    await server?.close();
    throw e;
  }
  return new Meeting(INTERNAL, w, new StoreTransport(client, server, w), timeoutMs, "store");
}
