/**
 * Who may connect over IPC (no GPU needed): peer credentials checked on both ends, a refused peer disconnected
 * before anything is sent (and accept() waiting on), one-time tokens with a deadline per connection, and socket
 * files no other user can redirect or replace. The two-user tests run the other side as another user through
 * test/support/two-users.ts (root and setpriv, as on CI, where they must run); elsewhere they are skipped with the
 * reason.
 */
import { describe, expect, it } from "vitest";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { ffi } from "../../../src/ffi/index.ts";
import { InsecurePathError, IpcDisconnectedError, IpcPeerRefusedError, IpcTimeoutError } from "../../../src/core/errors.ts";
import { IpcChannel, IpcListener } from "../../../src/core/memory/ipc-socket.ts";
import { decodeTokenMessage, encodeTokenMessage } from "../../../src/core/memory/ipc.ts";
import { currentUid } from "../../../src/ffi/libc-socket.ts";
import type { ChildResult } from "./spawn.ts";
import { otherUser, requireTwoUsers, twoUsersUnavailable } from "../../support/two-users.ts";

const here = import.meta.dirname ?? new URL(".", import.meta.url).pathname;
const child = path.resolve(here, "ipc-foreign-child.ts");
const libc = ffi.openLibrary("libc.so.6");
const memfdCreate = libc.bind("memfd_create", { parameters: ["pointer", "u32"], result: "i32" } as const)!;
const closeFd = libc.bind("close", { parameters: ["i32"], result: "i32" } as const)!;
const skipNote = (why: string | undefined): string => (why === undefined ? "" : ` [skipped: ${why}]`);
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

const parse = (r: ChildResult): { connected: boolean; bytes: number; fds: number; error?: string } => JSON.parse(r.stdout.trim().split("\n").at(-1) ?? "{}");

/** A fresh directory of this user's (mode 0700) under the temporary directory, removed after `body`. */
async function inScratch(body: (dir: string) => Promise<void> | void): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cuda-ts-ipc-path-"));
  try {
    await body(dir);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe(`IPC between two users${skipNote(twoUsersUnavailable)}`, () => {
  const other = otherUser(child, ["probe", "-"]);
  const asOther = (mode: string, address: string, onStdout?: (t: string) => void): Promise<ChildResult> =>
    other.run(child, [mode, address], { ...(onStdout ? { onStdout } : {}) });

  it("a listener refuses another user's connection, which receives nothing; the same user then connects", async (ctx) => {
    requireTwoUsers(ctx, other);
    using listener = IpcListener.listen();
    const refused: IpcPeerRefusedError[] = [];
    const thief = asOther("connect", listener.address);
    const accepting = listener.accept({ timeoutMs: 45_000, onRefused: (e) => refused.push(e) });
    while (refused.length === 0) await sleep(20);
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

  it("a plain accept() survives another user's connection: it drops it and returns the same user's next one; allowUids admits that user on purpose", async (ctx) => {
    requireTwoUsers(ctx, other);
    {
      using listener = IpcListener.listen();
      let settled = false;
      const accepting = listener.accept({ timeoutMs: 45_000 }).finally(() => (settled = true));
      const thief = parse(await asOther("connect", listener.address));
      expect(thief).toEqual({ mode: "connect", connected: true, bytes: 0, fds: 0, error: "IpcDisconnectedError" }); // dropped by the running accept()
      expect(settled).toBe(false);
      using mine = await IpcChannel.connect(listener.address, { timeoutMs: 5000 });
      using ch = await accepting;
      expect(ch.peer.uid).toBe(currentUid());
      expect(mine.peer.pid).toBeGreaterThan(0);
    }
    using listener = IpcListener.listen(undefined, { allowUids: [other.uid] });
    const friend = asOther("connect", listener.address);
    using ch = await listener.accept({ timeoutMs: 45_000 });
    expect(ch.peer.uid).toBe(other.uid);
    ch.send(new Uint8Array([1, 2]));
    expect(parse(await friend)).toEqual({ mode: "connect", connected: true, bytes: 2, fds: 0 });
  }, 90_000);

  it("connect() refuses a listener of another user squatting the name, and sends it nothing", async (ctx) => {
    requireTwoUsers(ctx, other);
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

  it("refuses a socket path through another user's symbolic link, and makes nothing where it points", async (ctx) => {
    requireTwoUsers(ctx, other);
    await inScratch((mine) => {
      const link = path.join(os.tmpdir(), `cuda-ts-ipc-link-${crypto.randomUUID()}`);
      fs.symlinkSync(mine, link);
      try {
        fs.lchownSync(link, other.uid, other.gid);
        expect(() => IpcListener.listen(path.join(link, "s"))).toThrow(InsecurePathError);
        expect(() => IpcListener.listen(path.join(link, "s"))).toThrow(new RegExp(`${link}, on the way to the socket .* is a symbolic link owned by uid ${other.uid}`));
        expect(fs.readdirSync(mine)).toEqual([]);
        // The same link of this user's is followed (and the directory it points to checked).
        fs.lchownSync(link, currentUid(), process.getgid?.() ?? 0);
        const l = IpcListener.listen(path.join(link, "s"));
        expect(fs.statSync(path.join(mine, "s")).isSocket()).toBe(true);
        l.close();
        expect(fs.readdirSync(mine)).toEqual([]);
      } finally {
        fs.rmSync(link, { force: true });
      }
    });
  });

  it("refuses a socket path below a directory another user owns", async (ctx) => {
    requireTwoUsers(ctx, other);
    await inScratch((mine) => {
      const theirs = path.join(mine, "theirs");
      fs.mkdirSync(path.join(theirs, "mine"), { recursive: true, mode: 0o700 });
      fs.chownSync(theirs, other.uid, other.gid);
      expect(() => IpcListener.listen(path.join(theirs, "mine", "s"))).toThrow(/the directory .*theirs, on the way to the socket .* is owned by uid \d+, not this user/);
      expect(fs.readdirSync(path.join(theirs, "mine"))).toEqual([]);
    });
  });

  it("close() leaves alone a file of another user's that replaced the socket", async (ctx) => {
    requireTwoUsers(ctx, other);
    await inScratch((dir) => {
      const sock = path.join(dir, "s");
      const l = IpcListener.listen(sock);
      fs.unlinkSync(sock);
      fs.writeFileSync(sock, "precious");
      fs.chownSync(sock, other.uid, other.gid);
      l.close();
      expect(fs.readFileSync(sock, "utf8")).toBe("precious");
      expect(fs.statSync(sock).uid).toBe(other.uid);
    });
  });
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
    const refused: IpcPeerRefusedError[] = [];
    const e = await strict.accept({ timeoutMs: 300, onRefused: (x) => refused.push(x) }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(IpcTimeoutError); // a refusal never ends accept()
    expect(refused).toHaveLength(1);
    expect(refused[0]!.reason).toBe("predicate");
    await expect(c.receive({ timeoutMs: 5000 })).rejects.toThrow(/closed the connection/);
    c.close();
    await expect(IpcChannel.connect(listener.address, { allowPeer: () => false, timeoutMs: 5000 })).rejects.toThrow(IpcPeerRefusedError);
  });

  it("checks options before touching a socket", async () => {
    expect(() => IpcListener.listen(undefined, { allowUids: [-1] })).toThrow(/allowUids holds user ids/);
    expect(() => IpcListener.listen(undefined, { allowUids: [1], allowPeer: () => true })).toThrow(/not both/);
    expect(() => IpcListener.listen(undefined, { tokens: [] })).toThrow(/non-empty array/);
    expect(() => IpcListener.listen(undefined, { tokens: ["x".repeat(300)] })).toThrow(/at most 256 bytes/);
    expect(() => IpcListener.listen(undefined, { tokens: ["x"], handshakeTimeoutMs: -1 })).toThrow(/handshakeTimeoutMs is a non-negative number/);
    // @ts-expect-error a wrong type on purpose
    await expect(IpcChannel.connect("@x", { allowPeer: 3 })).rejects.toThrow(/allowPeer is a function/);
  });

  it("requires a one-time token when the listener has tokens: missing, wrong and reused tokens are refused", async () => {
    const t1 = IpcListener.newToken();
    const t2 = IpcListener.newToken();
    expect(t1).toMatch(/^[0-9a-f]{64}$/);
    expect(t1).not.toBe(t2);
    using listener = IpcListener.listen(undefined, { tokens: [t1, t2], handshakeTimeoutMs: 150 });
    const refusedReason = async (token: string | undefined): Promise<string> => {
      const refused: IpcPeerRefusedError[] = [];
      const [c, e] = await Promise.all([
        IpcChannel.connect(listener.address, token === undefined ? {} : { token }).catch((x: unknown) => x), // the listener may close it before the token is sent
        listener.accept({ timeoutMs: 500, onRefused: (x) => refused.push(x) }).catch((x: unknown) => x),
      ]);
      if (c instanceof IpcChannel) c.close();
      else expect(c).toBeInstanceOf(IpcDisconnectedError);
      if (!(e instanceof IpcTimeoutError) || refused.length !== 1) throw new Error(`expected one refusal and a timeout, got ${refused.length} and ${String(e)}`);
      return `${refused[0]!.reason}: ${refused[0]!.message}`;
    };
    expect(await refusedReason(undefined)).toMatch(/^token: .*it sent no token within 150 ms/);
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

  it("serves a good client while three silent connections wait for their token, each closed at its own deadline", async () => {
    const token = IpcListener.newToken();
    {
      using listener = IpcListener.listen(undefined, { tokens: [token] }); // the default deadline, 5 s
      const silent = await Promise.all([0, 1, 2].map(() => IpcChannel.connect(listener.address, { timeoutMs: 5000 })));
      const t0 = Date.now();
      const accepting = listener.accept({ timeoutMs: 10_000 });
      await sleep(50); // the silent ones are taken first
      using good = await IpcChannel.connect(listener.address, { token, timeoutMs: 5000 });
      using ch = await accepting;
      expect(Date.now() - t0).toBeLessThan(2000);
      good.send(new Uint8Array([9]));
      expect([...(await ch.receive({ timeoutMs: 2000 })).data]).toEqual([9]);
      silent.forEach((c) => c.close());
    }
    const t2 = IpcListener.newToken();
    using listener = IpcListener.listen(undefined, { tokens: [t2], handshakeTimeoutMs: 300 });
    const silent = await Promise.all([0, 1, 2].map(() => IpcChannel.connect(listener.address, { timeoutMs: 5000 })));
    const refused: IpcPeerRefusedError[] = [];
    const t0 = Date.now();
    const accepting = listener.accept({ timeoutMs: 10_000, onRefused: (e) => refused.push(e) });
    for (const c of silent) await expect(c.receive({ timeoutMs: 5000 })).rejects.toThrow(IpcDisconnectedError); // closed by the deadline
    expect(Date.now() - t0).toBeGreaterThanOrEqual(250);
    expect(Date.now() - t0).toBeLessThan(2000);
    expect(refused.map((e) => e.reason)).toEqual(["token", "token", "token"]);
    expect(refused[0]!.message).toMatch(/sent no token within 300 ms/);
    using good = await IpcChannel.connect(listener.address, { token: t2, timeoutMs: 5000 });
    using ch = await accepting;
    expect(ch.peer.pid).toBe(process.pid);
    silent.forEach((c) => c.close());
    expect(good.peer.pid).toBe(process.pid);
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

  it("refuse a symbolic link at the socket path, and make nothing where it points", async () => {
    await inScratch((dir) => {
      const target = path.join(dir, "target");
      const sock = path.join(dir, "s");
      fs.symlinkSync(target, sock);
      expect(() => IpcListener.listen(sock)).toThrow(InsecurePathError);
      expect(() => IpcListener.listen(sock)).toThrow(/the socket path .* is a symbolic link/);
      expect(fs.existsSync(target)).toBe(false);
      expect(fs.lstatSync(sock).isSymbolicLink()).toBe(true);
    });
  });

  it("are removed on close only while they are the socket the listener made", async () => {
    await inScratch(async (dir) => {
      const sock = path.join(dir, "s");
      const a = IpcListener.listen(sock);
      a.close();
      expect(fs.existsSync(sock)).toBe(false);
      const b = IpcListener.listen(sock);
      fs.unlinkSync(sock);
      using c = IpcListener.listen(sock); // a new socket at the same path
      b.close();
      expect(fs.lstatSync(sock).isSocket()).toBe(true);
      const [x, y] = await Promise.all([IpcChannel.connect(sock, { timeoutMs: 5000 }), c.accept({ timeoutMs: 5000 })]);
      x.close();
      y.close();
    });
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
