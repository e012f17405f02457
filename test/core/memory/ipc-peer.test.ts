/**
 * Who may connect over IPC (no GPU needed): peer credentials checked on both ends, a refused peer disconnected
 * before anything is sent, one-time tokens, and private socket files. The two-user tests run the other side as
 * another user (a throwaway account made with useradd, else uid 65534) through setpriv, which needs root, as on
 * CI; elsewhere they are skipped with the reason.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { ffi } from "../../../src/ffi/index.ts";
import { InsecurePathError, IpcPeerRefusedError } from "../../../src/core/errors.ts";
import { IpcChannel, IpcListener } from "../../../src/core/memory/ipc-socket.ts";
import { decodeTokenMessage, encodeTokenMessage } from "../../../src/core/memory/ipc.ts";
import { currentUid } from "../../../src/ffi/libc-socket.ts";
import { runScript, type ChildResult } from "./spawn.ts";

const here = import.meta.dirname ?? new URL(".", import.meta.url).pathname;
const child = path.resolve(here, "ipc-foreign-child.ts");
const libc = ffi.openLibrary("libc.so.6");
const memfdCreate = libc.bind("memfd_create", { parameters: ["pointer", "u32"], result: "i32" } as const)!;
const closeFd = libc.bind("close", { parameters: ["i32"], result: "i32" } as const)!;
const skipNote = (why: string | undefined): string => (why === undefined ? "" : ` [skipped: ${why}]`);

function which(cmd: string): boolean {
  try {
    execFileSync("sh", ["-c", `command -v ${cmd}`], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

/** Why the two-user tests cannot run here, or undefined. */
const twoUsersSkip: string | undefined =
  process.platform !== "linux" ? "Linux only" : currentUid() !== 0 ? "running as another user needs root (CI runs as root)" : !which("setpriv") ? "setpriv (util-linux) is not installed" : undefined;

let other = { uid: 65534, gid: 65534 };
let userName: string | undefined;
let scratch: string;
let probeFailure: string | undefined;

const asOther = (mode: string, address: string, onStdout?: (t: string) => void): Promise<ChildResult> =>
  runScript(child, [mode, address], 60_000, { asUser: other, env: { HOME: scratch, DENO_DIR: path.join(scratch, "deno"), XDG_CACHE_HOME: scratch }, ...(onStdout ? { onStdout } : {}) });

const parse = (r: ChildResult): { connected: boolean; bytes: number; fds: number; error?: string } => JSON.parse(r.stdout.trim().split("\n").at(-1) ?? "{}");

beforeAll(async () => {
  if (twoUsersSkip !== undefined) return;
  if (which("useradd")) {
    userName = `cudats${process.pid}`;
    try {
      execFileSync("useradd", ["--system", "--no-create-home", "--shell", "/usr/sbin/nologin", userName], { stdio: "ignore" });
      other = { uid: Number(execFileSync("id", ["-u", userName]).toString().trim()), gid: Number(execFileSync("id", ["-g", userName]).toString().trim()) };
    } catch {
      userName = undefined;
    }
  }
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), "cuda-ts-other-user-"));
  fs.chmodSync(scratch, 0o700);
  fs.chownSync(scratch, other.uid, other.gid);
  const probe = await asOther("probe", "-");
  if (probe.code !== 0 || parse(probe).error !== undefined) probeFailure = `the runtime cannot run the test script as uid ${other.uid}: ${probe.stderr.slice(0, 300)}`;
}, 120_000);

afterAll(() => {
  if (scratch !== undefined) fs.rmSync(scratch, { recursive: true, force: true });
  if (userName !== undefined) {
    try {
      execFileSync("userdel", [userName], { stdio: "ignore" });
    } catch {
      // Best effort.
    }
  }
});

describe(`IPC between two users${skipNote(twoUsersSkip)}`, () => {
  it.skipIf(twoUsersSkip !== undefined)("a listener refuses another user's connection, which receives nothing; the same user then connects", async (ctx) => {
    if (probeFailure !== undefined) ctx.skip(probeFailure);
    using listener = IpcListener.listen();
    const refused: IpcPeerRefusedError[] = [];
    const thief = asOther("connect", listener.address);
    const accepting = listener.accept({ timeoutMs: 45_000, onRefused: (e) => refused.push(e) });
    while (refused.length === 0) await new Promise((r) => setTimeout(r, 20));
    using mine = await IpcChannel.connect(listener.address, { timeoutMs: 5000 });
    using ch = await accepting;
    expect(ch.peer.uid).toBe(currentUid());
    expect(mine.peer.uid).toBe(currentUid());
    const fd = memfdCreate(ffi.pointerOf(ffi.cstring("secret")), 1);
    ch.send(new Uint8Array([42]), [fd]);
    closeFd(fd);
    const m = await mine.receive({ timeoutMs: 5000 });
    expect(m.fds).toHaveLength(1);
    m.fds.forEach((f) => closeFd(f));
    const r = await thief;
    expect(refused[0]).toBeInstanceOf(IpcPeerRefusedError);
    expect(refused[0]!.uid).toBe(other.uid);
    expect(refused[0]!.reason).toBe("uid");
    expect(refused[0]!.message).toMatch(/another user .* nothing was sent.*allowUids/);
    expect(parse(r)).toEqual({ mode: "connect", connected: true, bytes: 0, fds: 0, error: "IpcDisconnectedError" });
  }, 90_000);

  it.skipIf(twoUsersSkip !== undefined)("accept() rejects with IpcPeerRefusedError without onRefused, and allowUids admits that user on purpose", async (ctx) => {
    if (probeFailure !== undefined) ctx.skip(probeFailure);
    {
      using listener = IpcListener.listen();
      const thief = asOther("connect", listener.address);
      const e = await listener.accept({ timeoutMs: 45_000 }).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(IpcPeerRefusedError);
      expect((e as IpcPeerRefusedError).uid).toBe(other.uid);
      expect(parse(await thief).fds).toBe(0);
    }
    using listener = IpcListener.listen(undefined, { allowUids: [other.uid] });
    const friend = asOther("connect", listener.address);
    using ch = await listener.accept({ timeoutMs: 45_000 });
    expect(ch.peer.uid).toBe(other.uid);
    ch.send(new Uint8Array([1, 2]));
    expect(parse(await friend)).toEqual({ mode: "connect", connected: true, bytes: 2, fds: 0 });
  }, 90_000);

  it.skipIf(twoUsersSkip !== undefined)("connect() refuses a listener of another user squatting the name, and sends it nothing", async (ctx) => {
    if (probeFailure !== undefined) ctx.skip(probeFailure);
    const address = `@cuda-ts-squat-${crypto.randomUUID()}`;
    let listening!: () => void;
    const ready = new Promise<void>((r) => (listening = r));
    const squatter = asOther("listen", address, (t) => t.includes("listening") && listening());
    await ready;
    const e = await IpcChannel.connect(address, { timeoutMs: 20_000, token: IpcListener.newToken() }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(IpcPeerRefusedError);
    expect((e as IpcPeerRefusedError).uid).toBe(other.uid);
    expect((e as IpcPeerRefusedError).message).toMatch(/the process listening on @cuda-ts-squat-.* is another user/);
    expect(parse(await squatter)).toEqual({ mode: "listen", connected: true, bytes: 0, fds: 0, error: "IpcDisconnectedError" });
  }, 90_000);
});

describe("IPC peer policy within one user", () => {
  it("exposes the peer's credentials, and allowPeer decides alone", async () => {
    using listener = IpcListener.listen(undefined, { allowPeer: (p) => p.pid === process.pid });
    const [a, b] = await Promise.all([IpcChannel.connect(listener.address), listener.accept()]);
    expect(b.peer).toEqual({ pid: process.pid, uid: currentUid(), gid: expect.any(Number) });
    a.close();
    b.close();
    using strict = IpcListener.listen(undefined, { allowPeer: () => false });
    const c = await IpcChannel.connect(strict.address);
    const e = await strict.accept({ timeoutMs: 5000 }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(IpcPeerRefusedError);
    expect((e as IpcPeerRefusedError).reason).toBe("predicate");
    await expect(c.receive({ timeoutMs: 5000 })).rejects.toThrow(/closed the connection/);
    c.close();
    await expect(IpcChannel.connect(listener.address, { allowPeer: () => false, timeoutMs: 5000 })).rejects.toThrow(IpcPeerRefusedError);
  });

  it("checks options before touching a socket", async () => {
    expect(() => IpcListener.listen(undefined, { allowUids: [-1] })).toThrow(/allowUids holds user ids/);
    expect(() => IpcListener.listen(undefined, { allowUids: [1], allowPeer: () => true })).toThrow(/not both/);
    expect(() => IpcListener.listen(undefined, { tokens: [] })).toThrow(/non-empty array/);
    expect(() => IpcListener.listen(undefined, { tokens: ["x".repeat(300)] })).toThrow(/at most 256 bytes/);
    // @ts-expect-error a wrong type on purpose
    await expect(IpcChannel.connect("@x", { allowPeer: 3 })).rejects.toThrow(/allowPeer is a function/);
  });

  it("requires a one-time token when the listener has tokens: missing, wrong and reused tokens are refused", async () => {
    const t1 = IpcListener.newToken();
    const t2 = IpcListener.newToken();
    expect(t1).toMatch(/^[0-9a-f]{64}$/);
    expect(t1).not.toBe(t2);
    using listener = IpcListener.listen(undefined, { tokens: [t1, t2] });
    const refusedReason = async (token: string | undefined): Promise<string> => {
      const [c, e] = await Promise.all([IpcChannel.connect(listener.address, token === undefined ? {} : { token }), listener.accept({ timeoutMs: 400 }).catch((x: unknown) => x)]);
      c.close();
      if (!(e instanceof IpcPeerRefusedError)) throw new Error(`expected a refusal, got ${String(e)}`);
      return `${e.reason}: ${e.message}`;
    };
    expect(await refusedReason(undefined)).toMatch(/^token: .*no valid token message came first/);
    expect(await refusedReason(IpcListener.newToken())).toMatch(/^token: .*not one of this listener's/);
    const [a, b] = await Promise.all([IpcChannel.connect(listener.address, { token: t1 }), listener.accept({ timeoutMs: 5000 })]);
    a.send(new Uint8Array([7]));
    expect([...(await b.receive({ timeoutMs: 5000 })).data]).toEqual([7]); // the token message is not seen by the caller
    a.close();
    b.close();
    expect(await refusedReason(t1)).toMatch(/^token: .*used already/);
    const [c, d] = await Promise.all([IpcChannel.connect(listener.address, { token: t2 }), listener.accept({ timeoutMs: 5000 })]);
    c.close();
    d.close();
    expect(await refusedReason(t2)).toMatch(/^token: .*every one-time token .* has been used/);
  });

  it("encodes token messages and refuses malformed ones with IPCFormatError", () => {
    expect(new TextDecoder().decode(decodeTokenMessage(encodeTokenMessage("abc")))).toBe("abc");
    expect(() => decodeTokenMessage(new Uint8Array(5))).toThrow(/token message is 13 to 268 bytes, not 5/);
    const m = encodeTokenMessage("abc");
    m[8] = 9;
    expect(() => decodeTokenMessage(m)).toThrow(/says 9 token bytes but holds 3/);
  });
});

describe("IPC socket files", () => {
  it("are made 0600 in a directory created 0700, and refused in a directory others can write", async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "cuda-ts-ipc-perm-"));
    try {
      const sock = path.join(root, "sub", "s");
      using l = IpcListener.listen(sock);
      expect(fs.statSync(path.join(root, "sub")).mode & 0o777).toBe(0o700);
      expect(fs.statSync(sock).mode & 0o777).toBe(0o600);
      const open = path.join(root, "open");
      fs.mkdirSync(open);
      fs.chmodSync(open, 0o777);
      expect(() => IpcListener.listen(path.join(open, "s"))).toThrow(InsecurePathError);
      expect(() => IpcListener.listen(path.join(open, "s"))).toThrow(/writable by group or others without the sticky bit/);
      expect(fs.existsSync(path.join(open, "s"))).toBe(false);
      l.close();
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  it("listenPrivate() makes a fresh 0700 directory, removed on close", async () => {
    const l = IpcListener.listenPrivate();
    const dir = path.dirname(l.address);
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
    expect(fs.statSync(l.address).mode & 0o777).toBe(0o600);
    const [a, b] = await Promise.all([IpcChannel.connect(l.address), l.accept()]);
    a.close();
    b.close();
    l.close();
    expect(fs.existsSync(dir)).toBe(false);
  });

  it("default names are random and unguessable", () => {
    using a = IpcListener.listen();
    using b = IpcListener.listen();
    expect(a.address).toMatch(/^@cuda-ts-[0-9a-f-]{36}$/);
    expect(a.address).not.toBe(b.address);
  });
});
