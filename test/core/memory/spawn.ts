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

/** Starts `script`; the promise settles when it exits (or is killed after `timeoutMs`). */
export function runScript(script: string, args: readonly string[] = [], timeoutMs = 120_000): Promise<ChildResult> {
  const c = runtimeCommand(script, args);
  return new Promise((resolve, reject) => {
    const child = spawn(c.command, c.args, { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout!.on("data", (d: unknown) => (stdout += String(d)));
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
