/**
 * The world of a multi-process job: which rank this process is, how many there are, which GPU is its own, and the
 * rendezvous through which ranks meet before they build a communicator.
 *
 * `cuda-ts run -n N script.ts` (src/cli/run.ts) starts N processes of the running runtime and gives each, through
 * the environment, its rank and the address and secret of the job's rendezvous store (src/core/rendezvous.ts),
 * as `torchrun` does for PyTorch. A script reads them with {@link world}; run on its own it is a world of one.
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
import { RendezvousError } from "./errors.ts";
import { RENDEZVOUS_ADDR_ENV, RendezvousClient } from "./rendezvous.ts";
import { checkInternal, type Internal, INTERNAL } from "../base/internal.ts";

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
  /** The rank on this node: the ordinal of this rank's GPU. */
  readonly localRank: number;
  /** The number of ranks on this node. */
  readonly localSize: number;
  /** This node's rank. */
  readonly nodeRank: number;
  /** The number of nodes. */
  readonly nodes: number;
  /** Whether a launcher started this process (`cuda-ts run`); false for a script run on its own (a world of one). */
  readonly launched: boolean;
}

const ALONE: World = Object.freeze({ rank: 0, size: 1, localRank: 0, localSize: 1, nodeRank: 0, nodes: 1, launched: false });

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

/**
 * This process's place in its job, read from the variables the launcher sets ({@link WORLD_ENV}). Without them (a
 * script run on its own) it is a world of one: rank 0 of 1, `launched: false`. Inconsistent values (a rank not
 * below the size, ...) are a {@link RendezvousError}.
 */
export function world(): World {
  if (getEnv(WORLD_ENV.rank) === undefined && getEnv(WORLD_ENV.size) === undefined) return ALONE;
  const w: World = {
    rank: readCount(WORLD_ENV.rank, 0),
    size: readCount(WORLD_ENV.size, 1),
    localRank: readCount(WORLD_ENV.localRank, 0),
    localSize: readCount(WORLD_ENV.localSize, 1),
    nodeRank: readCount(WORLD_ENV.nodeRank, 0),
    nodes: readCount(WORLD_ENV.nodes, 1),
    launched: true,
  };
  if (w.rank >= w.size || w.localRank >= w.localSize || w.nodeRank >= w.nodes || w.localSize > w.size) {
    throw new RendezvousError(
      `the launcher's variables disagree: rank ${w.rank} of ${w.size}, local rank ${w.localRank} of ${w.localSize}, node ${w.nodeRank} of ${w.nodes}: ` +
        "start the script through `cuda-ts run`, which sets them together",
    );
  }
  return Object.freeze(w);
}

/** Options of {@link joinWorld}. */
export interface JoinOptions {
  /** How long to wait for every rank, in milliseconds. Default: `CUDA_TS_RENDEZVOUS_TIMEOUT_MS`, else 60 000. */
  readonly timeoutMs?: number;
  /** The world to join. Default: {@link world}(). */
  readonly world?: World;
}

const KEY_PREFIX = "world/";

function defaultTimeout(): number {
  const text = getEnv("CUDA_TS_RENDEZVOUS_TIMEOUT_MS");
  if (text === undefined) return 60_000;
  const n = Number(text);
  if (!(Number.isFinite(n) && n > 0)) throw new RangeError(`CUDA_TS_RENDEZVOUS_TIMEOUT_MS is a positive number of milliseconds, not ${JSON.stringify(text)}`);
  return n;
}

/**
 * The ranks of a job, met: every rank has connected to the rendezvous store. Values are shared through it with
 * {@link Meeting.share}. Close it (or `await using`) when the communicator is built.
 */
export class Meeting {
  readonly #client: RendezvousClient | undefined;
  readonly #timeoutMs: number;
  readonly #values = new Map<string, string>();
  /** The world that met. */
  readonly world: World;

  /** Reserved to cuda-ts (the token is not exported): use {@link joinWorld}. */
  constructor(token: Internal, world: World, client: RendezvousClient | undefined, timeoutMs: number) {
    checkInternal(token, "Meeting", "joinWorld");
    this.world = world;
    this.#client = client;
    this.#timeoutMs = timeoutMs;
  }

  /**
   * A string value all ranks agree on: rank 0 computes it with `make` and publishes it under `key`; the other ranks
   * wait for it (at most the meeting's timeout). In a world of one, `make()` is simply called.
   */
  async share(key: string, make: () => string | Promise<string>): Promise<string> {
    if (typeof key !== "string" || key.length === 0) throw new TypeError(`Meeting.share: key is a non-empty string, not ${describeValue(key)}`);
    if (typeof make !== "function") throw new TypeError(`Meeting.share: make is a function returning the value, not ${describeValue(make)}`);
    const known = this.#values.get(key);
    if (known !== undefined) return known;
    let value: string;
    if (this.#client === undefined) {
      value = await make();
    } else if (this.world.rank === 0) {
      value = await make();
      if (typeof value !== "string") throw new TypeError(`Meeting.share: make() returns a string (encode bytes as base64), not ${describeValue(value)}`);
      await this.#client.set(`${KEY_PREFIX}value/${key}`, value);
    } else {
      value = await this.#client.get(`${KEY_PREFIX}value/${key}`, { timeoutMs: this.#timeoutMs });
    }
    this.#values.set(key, value);
    return value;
  }

  /** Disconnects from the rendezvous store. Closing twice is harmless. */
  close(): void {
    this.#client?.close();
  }

  [Symbol.dispose](): void {
    this.close();
  }

  [Symbol.asyncDispose](): Promise<void> {
    this.close();
    return Promise.resolve();
  }
}

/**
 * Connects to the job's rendezvous store and waits until every rank has done so. A rank that does not come within
 * the timeout is a {@link RendezvousError} naming it (and what to check: is the launcher running on its node?), so
 * that no rank hangs in a collective's initialisation waiting for a process that never started. In a world of one
 * it returns at once.
 */
export async function joinWorld(options: JoinOptions = {}): Promise<Meeting> {
  if (typeof options !== "object" || options === null) throw new TypeError(`joinWorld: options are an object, not ${describeValue(options)}`);
  const w = options.world ?? world();
  const timeoutMs = options.timeoutMs ?? defaultTimeout();
  if (!(typeof timeoutMs === "number" && timeoutMs > 0)) throw new RangeError(`joinWorld: timeoutMs is a positive number of milliseconds, not ${describeValue(timeoutMs)}`);
  if (w.size === 1) return new Meeting(INTERNAL, w, undefined, timeoutMs);
  if (getEnv(RENDEZVOUS_ADDR_ENV) === undefined) {
    throw new RendezvousError(`this is rank ${w.rank} of ${w.size} but ${RENDEZVOUS_ADDR_ENV} is not set: start the job with \`cuda-ts run -n N script.ts\``);
  }
  const client = await RendezvousClient.fromEnvironment({ timeoutMs });
  const deadline = Date.now() + timeoutMs;
  try {
    await client.set(`${KEY_PREFIX}joined/${w.rank}`, String(w.nodeRank));
    for (let r = 0; r < w.size; r++) {
      if (r === w.rank) continue;
      const left = Math.max(1, deadline - Date.now());
      try {
        await client.get(`${KEY_PREFIX}joined/${r}`, { timeoutMs: left });
      } catch (e) {
        const perNode = w.localSize;
        throw new RendezvousError(
          `rank ${r} of ${w.size} never joined the job within ${timeoutMs} ms (rank ${w.rank} waited for it${r + 1 < w.size ? "; ranks after it were not checked" : ""}): ` +
            `is the launcher running on node ${Math.floor(r / perNode)} (\`cuda-ts run --node-rank ${Math.floor(r / perNode)} ...\`), and did that rank start? ` +
            `(${e instanceof Error ? e.message : String(e)})`,
        );
      }
    }
  } catch (e) {
    client.close();
    throw e;
  }
  return new Meeting(INTERNAL, w, client, timeoutMs);
}
