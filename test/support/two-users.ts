/**
 * Tests that run part of themselves as another user: a throwaway account made with `useradd` (else uid 65534),
 * reached through `setpriv`, which needs root. CI runs as root, so there the two-user tests must run: where they
 * cannot (not root, no setpriv, the runtime cannot start as the other user), {@link twoUsersUnavailable} says why, and
 * on CI (`CI` set) a test calling {@link requireTwoUsers} fails with that reason instead of skipping.
 *
 * ```ts
 * const other = otherUser();            // in a describe: beforeAll/afterAll make and remove the account
 * it("...", async (ctx) => {
 *   requireTwoUsers(ctx);               // skips here without root, fails on CI
 *   const r = await other.run(childScript, ["mode"]);
 * });
 * ```
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll } from "vitest";
import { currentUid } from "../../src/ffi/libc-socket.ts";
import { runScript, type ChildResult } from "../core/memory/spawn.ts";

function which(cmd: string): boolean {
  try {
    execFileSync("sh", ["-c", `command -v ${cmd}`], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

/** Whether this run is CI's (where the two-user tests must run, not skip). */
export const onCi: boolean = process.env.CI !== undefined && process.env.CI !== "" && process.env.CI !== "false";

/** Why this machine cannot run a test as another user, or undefined where it can. */
export const twoUsersUnavailable: string | undefined =
  process.platform !== "linux" ? "Linux only" : currentUid() !== 0 ? "running as another user needs root (CI runs as root)" : !which("setpriv") ? "setpriv (util-linux) is not installed" : undefined;

/** The other user of a two-user test: its ids, a private scratch folder it owns, and a way to run a script as it. */
export interface OtherUser {
  readonly uid: number;
  readonly gid: number;
  /** A folder (mode 0700) the other user owns; removed after the tests. */
  readonly scratch: string;
  /** Why the other user could not be set up here (the runtime could not start as it), or undefined. */
  readonly failure: string | undefined;
  /** Runs `script` with `args` on this runtime as the other user. */
  run(script: string, args?: readonly string[], options?: { timeoutMs?: number; env?: Record<string, string>; onStdout?: (t: string) => void }): Promise<ChildResult>;
}

/**
 * The other user of the enclosing `describe`: registers a beforeAll that makes the account (and its scratch folder)
 * and checks that the runtime starts as it (`probeScript` with `probeArgs` must exit 0), and an afterAll that
 * removes them.
 */
export function otherUser(probeScript?: string, probeArgs: readonly string[] = []): OtherUser {
  let ids = { uid: 65534, gid: 65534 };
  let name: string | undefined;
  let scratch = "";
  let failure: string | undefined;
  const env = (): Record<string, string> => ({ HOME: scratch, DENO_DIR: path.join(scratch, "deno"), XDG_CACHE_HOME: scratch });
  const user: OtherUser = {
    get uid() {
      return ids.uid;
    },
    get gid() {
      return ids.gid;
    },
    get scratch() {
      return scratch;
    },
    get failure() {
      return failure;
    },
    run(script, args = [], options = {}) {
      return runScript(script, args, options.timeoutMs ?? 60_000, {
        asUser: ids,
        env: { ...env(), ...options.env },
        ...(options.onStdout ? { onStdout: options.onStdout } : {}),
      });
    },
  };
  beforeAll(async () => {
    if (twoUsersUnavailable !== undefined) return;
    if (which("useradd")) {
      name = `cudats${process.pid}${Math.floor(Math.random() * 1e6)}`;
      try {
        execFileSync("useradd", ["--system", "--no-create-home", "--shell", "/usr/sbin/nologin", name], { stdio: "ignore" });
        ids = { uid: Number(execFileSync("id", ["-u", name]).toString().trim()), gid: Number(execFileSync("id", ["-g", name]).toString().trim()) };
      } catch {
        name = undefined;
      }
    }
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), "cuda-ts-other-user-"));
    fs.chmodSync(scratch, 0o700);
    fs.chownSync(scratch, ids.uid, ids.gid);
    if (probeScript !== undefined) {
      const probe = await user.run(probeScript, probeArgs);
      if (probe.code !== 0) failure = `the runtime cannot run the test script as uid ${ids.uid}: ${probe.stderr.slice(0, 300)}`;
    }
  }, 120_000);
  afterAll(() => {
    if (scratch !== "") fs.rmSync(scratch, { recursive: true, force: true });
    if (name !== undefined) {
      try {
        execFileSync("userdel", [name], { stdio: "ignore" });
      } catch {
        // Best effort.
      }
    }
  });
  return user;
}

/**
 * Skips the running test where two users are unavailable (saying why), except on CI, where it fails: a two-user
 * test that cannot run there must not pass by skipping. `user` adds its own set-up failure.
 */
export function requireTwoUsers(ctx: { skip(note?: string): void; task?: { meta?: object } }, user?: OtherUser): void {
  const why = twoUsersUnavailable ?? user?.failure;
  if (why === undefined) {
    // Marked for test/support/skip-summary.ts, which lists the two-user tests that ran: CI's log shows they ran.
    if (ctx.task?.meta !== undefined) (ctx.task.meta as { twoUsers?: boolean }).twoUsers = true;
    return;
  }
  if (onCi) throw new Error(`the two-user test cannot run on CI: ${why}`);
  ctx.skip(why);
}
