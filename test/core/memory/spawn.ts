/**
 * Runs a TypeScript file in a child process of the current runtime (Bun: `process.execPath`; Deno: the same
 * binary with `run` and the permissions cuda-ts needs), for the IPC tests and the example runs.
 */
import { spawn } from "node:child_process";

/** Whether this process runs on Deno. */
export const onDeno: boolean = (globalThis as { Deno?: unknown }).Deno !== undefined;

/** The command line that runs `script` with `args` on this runtime. */
export function runtimeCommand(script: string, args: readonly string[] = []): { command: string; args: string[] } {
  const flags = ["run", "--allow-ffi", "--allow-env", "--allow-read"];
  return { command: process.execPath, args: onDeno ? [...flags, script, ...args] : [script, ...args] };
}

/** A child's result. */
export interface ChildResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** How to start a child: as another user (through `setpriv`, when this process is root), with extra environment. */
export interface SpawnOptions {
  /** Run as this uid and gid, with no supplementary groups (`setpriv --reuid --regid --clear-groups`). */
  readonly asUser?: { readonly uid: number; readonly gid: number };
  /** Variables added to the child's environment. */
  readonly env?: Readonly<Record<string, string>>;
  /** Called with each chunk of the child's stdout as it comes. */
  readonly onStdout?: (text: string) => void;
}

/** Starts `script`; the promise settles when it exits (or is killed after `timeoutMs`). */
export function runScript(script: string, args: readonly string[] = [], timeoutMs = 120_000, options: SpawnOptions = {}): Promise<ChildResult> {
  const r = runtimeCommand(script, args);
  const u = options.asUser;
  const c = u === undefined ? r : { command: "setpriv", args: [`--reuid=${u.uid}`, `--regid=${u.gid}`, "--clear-groups", "--", r.command, ...r.args] };
  return new Promise((resolve, reject) => {
    const env = options.env === undefined ? undefined : { ...process.env, ...options.env };
    const child = spawn(c.command, c.args, { stdio: ["ignore", "pipe", "pipe"], ...(env === undefined ? {} : { env }) });
    let stdout = "";
    let stderr = "";
    child.stdout!.on("data", (d: unknown) => {
      stdout += String(d);
      options.onStdout?.(String(d));
    });
    child.stderr!.on("data", (d: unknown) => (stderr += String(d)));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("error", (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
