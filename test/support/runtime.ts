import { spawnSync } from "node:child_process";
import { join, resolve } from "node:path";

/**
 * Running a script with the runtime the tests run on (Bun or Deno), by that runtime's own executable: on the GPU
 * machine node_modules/.bin holds neither.
 */

/** Whether the tests run on Bun. */
export const isBun: boolean = (globalThis as { Bun?: unknown }).Bun !== undefined;

/**
 * Why a test that reads the sources (ts-morph, the modules' exports) skips under Deno's vitest: it would find the
 * same under either runtime, so it runs once, under Bun's. `""` under Bun.
 */
export const onceUnderBun: string = isBun ? "" : " [skipped: it reads the sources, the same under either runtime: it runs once, under Bun's vitest]";

/** The running runtime's executable. */
export function runtimeExecutable(): string {
  return isBun ? process.execPath : (globalThis as unknown as { Deno: { execPath(): string } }).Deno.execPath();
}

/**
 * The command line that runs `file` with the running runtime: `bun file` or `deno run <permissions> file`
 * (default: --allow-ffi --allow-env --allow-read, what the examples document).
 */
export function runtimeCommand(file: string, denoPermissions: string[] = ["--allow-ffi", "--allow-env", "--allow-read"], args: string[] = []): string[] {
  return isBun ? [runtimeExecutable(), file, ...args] : [runtimeExecutable(), "run", ...denoPermissions, file, ...args];
}

const root = resolve(import.meta.dirname ?? new URL(".", import.meta.url).pathname, "../..");

/** Runs examples/<name> with the running runtime (and the permissions the examples document). */
export function runExample(name: string, args: readonly string[] = []): { status: number | null; stdout: string; stderr: string } {
  const cmd = [...runtimeCommand(join(root, "examples", name)), ...args];
  const r = spawnSync(cmd[0]!, cmd.slice(1), { cwd: root, encoding: "utf8", timeout: 240_000, maxBuffer: 64 * 2 ** 20 });
  return { status: r.status, stdout: r.stdout ?? "", stderr: `${r.stderr ?? ""}${r.error ? String(r.error) : ""}` };
}
