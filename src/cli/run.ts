/**
 * `cuda-ts run`: starts the ranks of a multi-process job, as `torchrun` does for PyTorch.
 *
 *     cuda-ts run -n N [--nnodes M --node-rank R --master HOST:PORT] [--timeout SECONDS] script.ts [args...]
 *
 * - Starts N processes of the running runtime (Bun, or Deno with this process's own permissions) running
 *   `script.ts`, each with its rank, the world size, its local rank (the GPU it should use) and its node in the
 *   environment (`CUDA_TS_RANK`, ..., see src/core/distributed/world.ts), and the address and secret of the job's
 *   rendezvous store (src/core/distributed/rendezvous.ts), through which rank 0 hands out what the others need
 *   (an NCCL unique id). Across nodes, NCCL's own transports carry the data; the store only introduces the ranks.
 * - Node 0's launcher runs the store, on loopback for one node, on `--master HOST:PORT` for several. Every node's
 *   launcher needs the same secret then, in `CUDA_TS_RENDEZVOUS_SECRET` (64 hex digits: `openssl rand -hex 32`), so
 *   that nobody else who reaches the port can join the job.
 * - When a rank fails (exit status other than 0, or a signal), the launcher stops the others (SIGTERM, then SIGKILL
 *   after a grace period), says which rank failed and how, and exits with that rank's status. Ctrl-C stops them all.
 *   `--timeout` bounds the whole job. Nothing the launcher started is left running when it exits.
 * - Each line a rank prints is prefixed with `[rank R]` when there is more than one rank (`--no-prefix` turns it off).
 *
 * @module
 */
import type { ChildProcess } from "node:child_process";
import type * as NodeChildProcess from "node:child_process";
import type { Readable } from "node:stream";
import { environmentVariables, grantedPermissionFlags, isFile, nodeBuiltin, runtimeExecutable, runtimeName } from "../host.ts";
import { RENDEZVOUS_ADDR_ENV, RENDEZVOUS_SECRET_ENV, RendezvousServer } from "../core/distributed/rendezvous.ts";
import { WORLD_ENV } from "../core/distributed/world.ts";
import { RendezvousError } from "../core/distributed/errors.ts";
import { ArgumentError } from "../errors/base.ts";

/** The usage line of `cuda-ts run`. */
export const RUN_USAGE =
  "usage: cuda-ts run -n N [--nnodes M --node-rank R --master HOST:PORT] [--timeout SECONDS] [--grace SECONDS] [--no-prefix] script.ts [args...]";

/** What `cuda-ts run` was asked to do. */
export interface RunPlan {
  /** Ranks on this node. */
  readonly perNode: number;
  /** Nodes in the job. */
  readonly nodes: number;
  /** This node's rank. */
  readonly nodeRank: number;
  /** The store's address; port 0 picks a free one (one node only). */
  readonly master: { readonly host: string; readonly port: number };
  /** The whole job's time limit in seconds, or undefined for none. */
  readonly timeoutS: number | undefined;
  /** Seconds between SIGTERM and SIGKILL when stopping ranks. */
  readonly graceS: number;
  /** Whether rank output lines get a `[rank R]` prefix. */
  readonly prefix: boolean;
  /** The script and its arguments. */
  readonly script: string;
  readonly scriptArgs: readonly string[];
}

/** A `cuda-ts run` command line that cannot be run; the message says what was wrong and how to write it. */
export class RunUsageError extends ArgumentError {
  constructor(message: string) {
    super(`cuda-ts run: ${message}\n${RUN_USAGE}`);
    this.name = "RunUsageError";
  }
}

function count(flag: string, text: string | undefined, min: number): number {
  if (text === undefined || !/^\d+$/.test(text) || Number(text) < min || !Number.isSafeInteger(Number(text))) {
    throw new RunUsageError(`${flag} takes an integer ≥ ${min}, not ${text === undefined ? "nothing" : JSON.stringify(text)}`);
  }
  return Number(text);
}

function seconds(flag: string, text: string | undefined): number {
  const n = Number(text);
  if (text === undefined || text.trim() === "" || !Number.isFinite(n) || n <= 0) {
    throw new RunUsageError(`${flag} takes a positive number of seconds, not ${text === undefined ? "nothing" : JSON.stringify(text)}`);
  }
  return n;
}

function hostPort(text: string | undefined): { host: string; port: number } {
  const m = text === undefined ? null : /^(\[[0-9a-fA-F:.]+\]|[^:\s]+):(\d{1,5})$/.exec(text);
  const port = m === null ? Number.NaN : Number(m[2]);
  if (m === null || !(port >= 1 && port <= 65535)) {
    throw new RunUsageError(`--master takes HOST:PORT with a port from 1 to 65535 (for example 10.0.0.1:29500), not ${text === undefined ? "nothing" : JSON.stringify(text)}`);
  }
  return { host: m[1]!.replace(/^\[(.*)\]$/, "$1"), port };
}

/** Reads a `cuda-ts run` command line (the arguments after `run`). */
export function parseRunArgs(args: readonly string[]): RunPlan {
  let perNode: number | undefined;
  let nodes = 1;
  let nodeRank: number | undefined;
  let master: { host: string; port: number } | undefined;
  let timeoutS: number | undefined;
  let graceS = 5;
  let prefix = true;
  let i = 0;
  for (; i < args.length; i++) {
    const a = args[i]!;
    if (!a.startsWith("-")) break;
    const eq = a.indexOf("=");
    const flag = eq > 0 && a.startsWith("--") ? a.slice(0, eq) : a;
    const value = (): string | undefined => (eq > 0 && a.startsWith("--") ? a.slice(eq + 1) : args[++i]);
    switch (flag) {
      case "-n":
      case "--nproc-per-node":
        perNode = count(flag, value(), 1);
        break;
      case "--nnodes":
        nodes = count(flag, value(), 1);
        break;
      case "--node-rank":
        nodeRank = count(flag, value(), 0);
        break;
      case "--master":
        master = hostPort(value());
        break;
      case "--timeout":
        timeoutS = seconds(flag, value());
        break;
      case "--grace":
        graceS = seconds(flag, value());
        break;
      case "--no-prefix":
        prefix = false;
        break;
      case "--":
        i++;
        break;
      default:
        throw new RunUsageError(`unknown option ${JSON.stringify(a)}`);
    }
    if (flag === "--") break;
  }
  if (perNode === undefined) throw new RunUsageError("say how many ranks to start on this node with -n N");
  const script = args[i];
  if (script === undefined) throw new RunUsageError("name the script each rank runs (for example train.ts)");
  if (nodes > 1) {
    if (master === undefined) throw new RunUsageError(`a job of ${nodes} nodes needs --master HOST:PORT: the address node 0 listens on, the same on every node`);
    if (nodeRank === undefined) throw new RunUsageError(`a job of ${nodes} nodes needs --node-rank R (0 to ${nodes - 1}): which node this is`);
  }
  nodeRank ??= 0;
  if (nodeRank >= nodes) throw new RunUsageError(`--node-rank ${nodeRank} is not below --nnodes ${nodes}`);
  return {
    perNode,
    nodes,
    nodeRank,
    master: master ?? { host: "127.0.0.1", port: 0 },
    timeoutS,
    graceS,
    prefix,
    script,
    scriptArgs: args.slice(i + 1),
  };
}

/** How a rank ended. */
export interface RankExit {
  readonly rank: number;
  readonly code: number | null;
  readonly signal: string | null;
}

function describeExit(e: RankExit): string {
  return e.signal !== null ? `was killed by ${e.signal}` : `exited with status ${e.code}`;
}

function exitStatus(e: RankExit): number {
  if (e.code !== null) return e.code;
  const signals: Record<string, number> = { SIGHUP: 1, SIGINT: 2, SIGQUIT: 3, SIGABRT: 6, SIGKILL: 9, SIGSEGV: 11, SIGTERM: 15 };
  return 128 + (signals[e.signal ?? ""] ?? 0);
}

/** Copies a stream to `out` line by line with a prefix (a partial last line is flushed at the end). */
function prefixLines(from: Readable | null, out: { write(s: string): unknown }, prefix: string): void {
  if (from === null) return;
  let pending = "";
  from.setEncoding("utf8");
  from.on("data", (chunk: string) => {
    const lines = (pending + chunk).split("\n");
    pending = lines.pop()!;
    if (lines.length > 0) out.write(lines.map((l) => `${prefix}${l}\n`).join(""));
  });
  from.on("end", () => {
    if (pending !== "") out.write(`${prefix}${pending}\n`);
    pending = "";
  });
}

/**
 * Runs a job as `plan` says: starts the store (node 0) and this node's ranks, waits for them, stops the rest when
 * one fails. Returns the launcher's exit status: 0 when every rank exited with 0, else the first failure's status.
 */
export async function runJob(plan: RunPlan, io: { log(line: string): void } = { log: (l) => console.error(l) }): Promise<number> {
  if (!isFile(plan.script)) throw new RunUsageError(`the script ${JSON.stringify(plan.script)} is not a file (or not readable: Deno needs --allow-read)`);
  const env = environmentVariables();
  let secret = env[RENDEZVOUS_SECRET_ENV];
  if (plan.nodes > 1 && (secret === undefined || !/^[0-9a-fA-F]{64,}$/.test(secret))) {
    throw new RunUsageError(
      `a job of several nodes needs the same secret on every node: set ${RENDEZVOUS_SECRET_ENV} to 64 hex digits (for example \`export ${RENDEZVOUS_SECRET_ENV}=$(openssl rand -hex 32)\`) ` +
        `in each node's launcher environment${secret === undefined ? "" : `; it is now ${secret.length} characters that are not 64+ hex digits`}`,
    );
  }
  let server: RendezvousServer | undefined;
  if (plan.nodeRank === 0) {
    server = await RendezvousServer.start({
      host: plan.master.host,
      port: plan.master.port,
      ...(plan.nodes > 1 && secret !== undefined ? { secret } : {}),
      onRefused: (reason) => io.log(`cuda-ts run: the rendezvous store refused a client: ${reason}`),
    });
    secret = server.secret;
  }
  // The store's address as the ranks dial it: an IPv6 host in brackets; node 0's port as bound (0 picks one).
  const address = `${plan.master.host.includes(":") ? `[${plan.master.host}]` : plan.master.host}:${server?.port ?? plan.master.port}`;

  const size = plan.perNode * plan.nodes;
  const command = runtimeExecutable();
  const runtimeArgs = runtimeName === "deno" ? ["run", ...grantedPermissionFlags()] : [];
  const children: { rank: number; child: ChildProcess; exit?: RankExit }[] = [];
  let firstFailure: RankExit | undefined;
  let stopping = false;
  let killTimer: ReturnType<typeof setTimeout> | undefined;

  const stopAll = (why: string): void => {
    if (stopping) return;
    stopping = true;
    const running = children.filter((c) => c.exit === undefined);
    if (running.length > 0) io.log(`cuda-ts run: ${why}; stopping the ${running.length} rank${running.length === 1 ? "" : "s"} still running (${running.map((c) => c.rank).join(", ")})`);
    for (const c of running) c.child.kill("SIGTERM");
    killTimer = setTimeout(() => {
      for (const c of children) if (c.exit === undefined) c.child.kill("SIGKILL");
    }, plan.graceS * 1000);
  };

  const done = new Promise<void>((resolve) => {
    let left = plan.perNode;
    for (let local = 0; local < plan.perNode; local++) {
      const rank = plan.nodeRank * plan.perNode + local;
      const childEnv: Record<string, string> = {
        ...env,
        [WORLD_ENV.rank]: String(rank),
        [WORLD_ENV.size]: String(size),
        [WORLD_ENV.localRank]: String(local),
        [WORLD_ENV.localSize]: String(plan.perNode),
        [WORLD_ENV.nodeRank]: String(plan.nodeRank),
        [WORLD_ENV.nodes]: String(plan.nodes),
        [RENDEZVOUS_ADDR_ENV]: address,
        ...(secret !== undefined ? { [RENDEZVOUS_SECRET_ENV]: secret } : {}),
      };
      const child = (nodeBuiltin("node:child_process") as typeof NodeChildProcess).spawn(command, [...runtimeArgs, plan.script, ...plan.scriptArgs], {
        env: childEnv,
        stdio: plan.prefix && size > 1 ? ["inherit", "pipe", "pipe"] : "inherit",
      });
      const entry: { rank: number; child: ChildProcess; exit?: RankExit } = { rank, child };
      children.push(entry);
      if (plan.prefix && size > 1) {
        prefixLines(child.stdout, process.stdout, `[rank ${rank}] `);
        prefixLines(child.stderr, process.stderr, `[rank ${rank}] `);
      }
      let ended = false;
      const end = (code: number | null, signal: string | null): void => {
        if (ended) return;
        ended = true;
        entry.exit = { rank, code, signal };
        if ((code !== 0 || signal !== null) && firstFailure === undefined && !stopping) {
          firstFailure = entry.exit;
          stopAll(`rank ${rank} ${describeExit(entry.exit)}`);
        }
        if (--left === 0) resolve();
      };
      child.on("error", (e) => {
        io.log(`cuda-ts run: rank ${rank} could not start ${command}: ${e.message}`);
        end(127, null);
      });
      child.on("close", (code, signal) => end(code, signal));
    }
  });

  const onSignal = (signal: string): void => {
    if (firstFailure === undefined) firstFailure = { rank: -1, code: null, signal };
    stopAll(`the launcher got ${signal}`);
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  const jobTimer =
    plan.timeoutS === undefined
      ? undefined
      : setTimeout(() => {
          if (firstFailure === undefined) firstFailure = { rank: -1, code: 124, signal: null };
          stopAll(`the job ran past --timeout ${plan.timeoutS} s`);
        }, plan.timeoutS * 1000);
  try {
    await done;
  } finally {
    if (jobTimer !== undefined) clearTimeout(jobTimer);
    if (killTimer !== undefined) clearTimeout(killTimer);
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    await server?.close();
  }
  const failure: RankExit | undefined = firstFailure;
  if (failure === undefined) return 0;
  if (failure.rank >= 0) io.log(`cuda-ts run: rank ${failure.rank} ${describeExit(failure)}; the job failed`);
  return failure.rank >= 0 ? exitStatus(failure) || 1 : failure.code ?? exitStatus(failure);
}

/** `cuda-ts run ...`: parses, runs, and turns usage and rendezvous errors into one line and status 2. */
export async function runCommand(args: readonly string[]): Promise<number> {
  try {
    return await runJob(parseRunArgs(args));
  } catch (e) {
    if (e instanceof RunUsageError || e instanceof RendezvousError) {
      console.error(e instanceof RendezvousError ? `cuda-ts run: ${e.message}` : e.message);
      return 2;
    }
    throw e;
  }
}
