/**
 * What the library needs from the host process besides calling C: environment variables and file-system
 * queries, asked only where the runtime's permissions already allow (Deno is queried, never prompted).
 *
 * Everything here is synchronous and cheap; callers cache what they derive from it.
 *
 * @module
 */
import * as fs from "node:fs";

interface DenoPermissionsLike {
  querySync(desc: { name: string; variable?: string; path?: string }): { state: "granted" | "denied" | "prompt" };
}
interface DenoLike {
  permissions: DenoPermissionsLike;
  env: { get(name: string): string | undefined };
}

const deno = (globalThis as { Deno?: DenoLike }).Deno;

/** The JavaScript runtime this process runs on. */
export const runtimeName: "bun" | "deno" | "other" =
  (globalThis as { Bun?: unknown }).Bun !== undefined ? "bun" : deno !== undefined ? "deno" : "other";

function granted(desc: { name: string; variable?: string; path?: string }): boolean {
  if (deno === undefined) return true;
  try {
    return deno.permissions.querySync(desc).state === "granted";
  } catch {
    return false;
  }
}

/** Whether reading this environment variable is allowed without a prompt. */
export function canReadEnv(name: string): boolean {
  return granted({ name: "env", variable: name });
}

/** Whether reading this path is allowed without a prompt. */
export function canReadPath(path: string): boolean {
  return granted({ name: "read", path });
}

/**
 * Reads an environment variable. Returns `undefined` when it is unset, empty, or not readable under the
 * runtime's permissions (Deno without `--allow-env`); never prompts.
 */
export function getEnv(name: string): string | undefined {
  if (!canReadEnv(name)) return undefined;
  const value = deno !== undefined ? deno.env.get(name) : process.env[name];
  return value === undefined || value === "" ? undefined : value;
}

/** The permissions that were not granted when a lookup needed them (for error messages). */
export const deniedPermissions = new Set<string>();

function readable(path: string): boolean {
  if (canReadPath(path)) return true;
  deniedPermissions.add(`--allow-read=${path}`);
  return false;
}

/** Whether `path` exists (false when it does not or may not be read). */
export function pathExists(path: string): boolean {
  if (!readable(path)) return false;
  try {
    fs.statSync(path);
    return true;
  } catch {
    return false;
  }
}

/** Whether `path` is an existing directory (false when it may not be read). */
export function isDirectory(path: string): boolean {
  if (!readable(path)) return false;
  try {
    return fs.statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** Whether `path` is an existing regular file, following links (false when it may not be read). */
export function isFile(path: string): boolean {
  if (!readable(path)) return false;
  try {
    return fs.statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * Whether `path` is an executable regular file. Deno's `access(X_OK)` needs `--allow-sys` (it asks for the uid);
 * without it, any execute bit in the file's mode counts, so that `--allow-read` alone finds tools such as nvcc.
 */
export function isExecutable(path: string): boolean {
  if (!isFile(path)) return false;
  try {
    fs.accessSync(path, fs.constants.X_OK);
    return true;
  } catch (e) {
    if ((e as { name?: unknown }).name !== "NotCapable") return false;
    try {
      return (fs.statSync(path).mode & 0o111) !== 0;
    } catch {
      return false;
    }
  }
}

/** The entries of a directory, sorted; empty when it does not exist or may not be read. */
export function listDirectory(path: string): string[] {
  if (!readable(path)) return [];
  try {
    return fs.readdirSync(path).sort();
  } catch {
    return [];
  }
}

/** The canonical path (links resolved), or `undefined`. */
export function realPath(path: string): string | undefined {
  if (!readable(path)) return undefined;
  try {
    return fs.realpathSync(path);
  } catch {
    return undefined;
  }
}

/** Reads a whole file, or `undefined` when it is missing or may not be read. */
export function readFileBytes(path: string): Uint8Array | undefined {
  if (!readable(path)) return undefined;
  try {
    return new Uint8Array(fs.readFileSync(path));
  } catch {
    return undefined;
  }
}
