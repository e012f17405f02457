/**
 * A one-node Slurm cluster for tests, started as root: munged, slurmctld and slurmd with their configuration, key,
 * sockets, state and logs in a temporary folder, on free ports, with the node named `localhost` (so that the step's
 * node list resolves without the machine's own name). {@link startSlurmCluster} says why it cannot start instead of
 * starting (not root, a daemon missing); {@link SlurmCluster.stop} ends the daemons and removes the folder.
 *
 * @module
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";

/** A running cluster. */
export interface SlurmCluster {
  /** The variables srun needs (SLURM_CONF). */
  readonly env: Readonly<Record<string, string>>;
  /** The folder with the configuration, state and logs. */
  readonly dir: string;
  /** The daemons' logs, for a failing test's message. */
  logs(): string;
  /** Stops the daemons and removes the folder. */
  stop(): Promise<void>;
}

const SEARCH = [...(process.env.PATH ?? "").split(":"), "/usr/sbin", "/sbin", "/usr/bin", "/usr/local/sbin", "/usr/local/bin"];

/** The path of an executable on PATH or in the system folders, or undefined. */
export function findExecutable(name: string): string | undefined {
  for (const d of SEARCH) {
    if (d === "") continue;
    const p = join(d, name);
    if (existsSync(p)) return p;
  }
  return undefined;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const a = s.address();
      const port = typeof a === "object" && a !== null ? a.port : 0;
      s.close(() => resolve(port));
    });
  });
}

function isRoot(): boolean {
  return typeof process.getuid === "function" && process.getuid() === 0;
}

/** Why a Slurm cluster cannot start here, or undefined when it can. */
export function slurmUnavailable(): string | undefined {
  if (!isRoot()) return "not root (slurmd and munged run as root here)";
  const missing = ["munged", "slurmctld", "slurmd", "srun", "sinfo"].filter((n) => findExecutable(n) === undefined);
  if (missing.length > 0) return `${missing.join(", ")} not installed (Debian: apt-get install slurm-wlm munge)`;
  return undefined;
}

async function waitFor(check: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return check();
}

function stopChild(c: ChildProcess): Promise<void> {
  if (c.exitCode !== null || c.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const t = setTimeout(() => {
      c.kill("SIGKILL");
      resolve();
    }, 3000);
    c.once("exit", () => {
      clearTimeout(t);
      resolve();
    });
    c.kill("SIGTERM");
  });
}

/** Starts the cluster, or says why it cannot. */
export async function startSlurmCluster(): Promise<SlurmCluster | string> {
  const why = slurmUnavailable();
  if (why !== undefined) return why;
  const dir = mkdtempSync(join(tmpdir(), "cuda-ts-slurm-"));
  chmodSync(dir, 0o755); // munged wants its socket's folder reachable by all
  for (const d of ["state", "spool"]) mkdirSync(join(dir, d));
  const key = join(dir, "munge.key");
  writeFileSync(key, randomBytes(1024), { mode: 0o600 });
  const socket = join(dir, "munge.sock");
  const [ctldPort, dPort] = [await freePort(), await freePort()];
  const conf = join(dir, "slurm.conf");
  writeFileSync(
    conf,
    [
      "ClusterName=cudats",
      "SlurmctldHost=localhost(127.0.0.1)",
      "SlurmUser=root",
      "SlurmdUser=root",
      "AuthType=auth/munge",
      "CredType=cred/munge",
      `AuthInfo=socket=${socket}`,
      "MpiDefault=none",
      "ProctrackType=proctrack/linuxproc",
      "TaskPlugin=task/none",
      "JobAcctGatherType=jobacct_gather/none",
      "AccountingStorageType=accounting_storage/none",
      "SelectType=select/cons_tres",
      "SelectTypeParameters=CR_Core",
      "SchedulerType=sched/builtin",
      `SlurmctldPort=${ctldPort}`,
      `SlurmdPort=${dPort}`,
      `StateSaveLocation=${join(dir, "state")}`,
      `SlurmdSpoolDir=${join(dir, "spool")}`,
      `SlurmctldPidFile=${join(dir, "slurmctld.pid")}`,
      `SlurmdPidFile=${join(dir, "slurmd.pid")}`,
      `SlurmctldLogFile=${join(dir, "slurmctld.log")}`,
      `SlurmdLogFile=${join(dir, "slurmd.log")}`,
      "ReturnToService=2",
      "MessageTimeout=30",
      `NodeName=localhost NodeAddr=127.0.0.1 CPUs=${Math.max(1, cpus().length)} State=UNKNOWN`,
      "PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP",
      "",
    ].join("\n"),
  );
  const env = { SLURM_CONF: conf };
  const children: ChildProcess[] = [];
  const start = (cmd: string, args: string[]): ChildProcess => {
    const c = spawn(findExecutable(cmd)!, args, { stdio: "ignore", env: { ...process.env, ...env } });
    c.on("error", () => {});
    children.push(c);
    return c;
  };
  const logs = (): string =>
    ["munged.log", "slurmctld.log", "slurmd.log"]
      .map((f) => join(dir, f))
      .filter((f) => existsSync(f))
      .map((f) => `--- ${f}\n${readFileSync(f, "utf8").split("\n").slice(-15).join("\n")}`)
      .join("\n");
  const stop = async (): Promise<void> => {
    for (const c of children.reverse()) await stopChild(c);
    rmSync(dir, { recursive: true, force: true });
  };
  start("munged", ["-F", "-f", `--socket=${socket}`, `--key-file=${key}`, `--log-file=${join(dir, "munged.log")}`, `--pid-file=${join(dir, "munged.pid")}`, `--seed-file=${join(dir, "munged.seed")}`]);
  if (!(await waitFor(() => existsSync(socket), 10_000))) {
    const l = logs();
    await stop();
    return `munged did not start: ${l}`;
  }
  start("slurmctld", ["-D", "-f", conf]);
  start("slurmd", ["-D", "-f", conf, "-N", "localhost"]);
  const sinfo = findExecutable("sinfo")!;
  const idle = await waitFor(() => {
    const r = spawnSync(sinfo, ["-h", "-o", "%t"], { encoding: "utf8", env: { ...process.env, ...env } });
    return r.status === 0 && /^(idle|mix|alloc)/m.test(r.stdout);
  }, 20_000);
  if (!idle) {
    const l = logs();
    await stop();
    return `the Slurm node did not come up within 20 s: ${l}`;
  }
  return { env, dir, logs, stop };
}
