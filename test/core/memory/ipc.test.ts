/**
 * File-descriptor passing for IPC without a GPU: Unix socket addresses, SCM_RIGHTS between this process and a
 * child of the same runtime (in both directions), allocation-handle messages, timeouts and closed objects. The
 * descriptors are memfds standing in for a pool's exported handle.
 */
import { describe, expect, it } from "vitest";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { ffi } from "../../../src/ffi/index.ts";
import { ClosedError, IpcTimeoutError } from "../../../src/core/errors.ts";
import { IPCAllocationHandle } from "../../../src/core/memory/ipc.ts";
import { MessageBlock, socketAddress } from "../../../src/ffi/libc-socket.ts";
import { IpcChannel, IpcListener } from "../../../src/core/memory/ipc-socket.ts";
import { runScript } from "./spawn.ts";
import { INTERNAL } from "../../../src/core/base/internal.ts";

const here = import.meta.dirname ?? new URL(".", import.meta.url).pathname;
const libc = ffi.openLibrary("libc.so.6");
const memfdCreate = libc.bind("memfd_create", { parameters: ["pointer", "u32"], result: "i32" } as const)!;
const write = libc.bind("write", { parameters: ["i32", "pointer", "u64"], result: "i64" } as const)!;
const pread = libc.bind("pread", { parameters: ["i32", "pointer", "u64", "i64"], result: "i64" } as const)!;
const close = libc.bind("close", { parameters: ["i32"], result: "i32" } as const)!;

function memfd(text: string): number {
  const fd = memfdCreate(ffi.pointerOf(ffi.cstring("cuda-ts-test")), 1 /* MFD_CLOEXEC */);
  const enc = new TextEncoder().encode(text);
  const bytes = new Uint8Array(new ArrayBuffer(enc.length));
  bytes.set(enc);
  write(fd, ffi.pointerOf(bytes), BigInt(bytes.length));
  return fd;
}

function readFd(fd: number): string {
  const buf = new Uint8Array(new ArrayBuffer(256));
  const n = Number(pread(fd, ffi.pointerOf(buf), 256n, 0n));
  return new TextDecoder().decode(buf.subarray(0, Math.max(n, 0)));
}

describe("Unix socket addresses", () => {
  it("encode the abstract namespace and filesystem paths", () => {
    const a = socketAddress("@abc");
    expect(a.length).toBe(2 + 1 + 3);
    expect([...a.bytes.subarray(0, 6)]).toEqual([1, 0, 0, 97, 98, 99]);
    const p = socketAddress("/tmp/s");
    expect(p.length).toBe(2 + 6 + 1);
    expect(new TextDecoder().decode(p.bytes.subarray(2, 8))).toBe("/tmp/s");
    expect(() => socketAddress(`@${"x".repeat(108)}`)).toThrow(/holds 1 to 107 bytes/);
    expect(() => socketAddress("")).toThrow(TypeError);
  });

  it("lay out SCM_RIGHTS control data", () => {
    const m = new MessageBlock(4, 2);
    m.setFds([7, 9]);
    const c = MessageBlock.MSGHDR + MessageBlock.IOVEC;
    expect(Number(m.dv.getBigUint64(c, true))).toBe(16 + 8); // CMSG_LEN(2 * sizeof(int))
    expect(m.dv.getInt32(c + 8, true)).toBe(1); // SOL_SOCKET
    expect(m.dv.getInt32(c + 12, true)).toBe(1); // SCM_RIGHTS
    expect(m.receivedFds()).toEqual([7, 9]);
  });
});

describe("passing file descriptors", () => {
  it("moves descriptors to a child process and back (SCM_RIGHTS)", async () => {
    using listener = IpcListener.listen();
    const child = runScript(resolve(here, "ipc-child.ts"), [listener.address], 60_000);
    using ch = await listener.accept({ timeoutMs: 30_000 });
    const fd = memfd("hello through a descriptor");
    const shared = memfd("an allocation handle stand-in");
    using handle = new IPCAllocationHandle(INTERNAL, shared, "0123abcd-4567-89ef-0123-456789abcdef");
    ch.send(new TextEncoder().encode("meta"), [fd]);
    close(fd);
    ch.sendAllocationHandle(handle);
    const reply = await ch.receive({ timeoutMs: 30_000 });
    ch.send(new Uint8Array([1]));
    const r = await child;
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(JSON.parse(new TextDecoder().decode(reply.data))).toEqual({
      data: "meta",
      text: "hello through a descriptor",
      uuid: "0123abcd-4567-89ef-0123-456789abcdef",
      viaHandle: "an allocation handle stand-in",
    });
    expect(reply.fds).toHaveLength(1);
    expect(readFd(reply.fds[0]!)).toBe("from the child");
    close(reply.fds[0]!);
    expect(handle.isClosed).toBe(false); // sending duplicates; the sender keeps its descriptor
  }, 90_000);

  it("works within one process and on a filesystem path", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cuda-ts-ipc-"));
    const path = join(dir, "sock");
    const listener = IpcListener.listen(path);
    expect(existsSync(path)).toBe(true);
    const [a, b] = await Promise.all([IpcChannel.connect(path, { timeoutMs: 5000 }), listener.accept({ timeoutMs: 5000 })]);
    a.send(new Uint8Array([1, 2, 3]));
    const m = await b.receive({ timeoutMs: 5000 });
    expect([...m.data]).toEqual([1, 2, 3]);
    expect(m.fds).toEqual([]);
    const fd = memfd("x");
    b.sendAllocationHandle(new IPCAllocationHandle(INTERNAL, fd, "00000000-0000-4000-8000-000000000001"));
    const h = await a.receiveAllocationHandle({ timeoutMs: 5000 });
    expect(h.uuid).toBe("00000000-0000-4000-8000-000000000001");
    expect(h.fd).not.toBe(fd);
    expect(readFd(h.fd)).toBe("x");
    h.close();
    h.close();
    expect(() => h.fd).toThrow(ClosedError);
    close(fd);
    a.close();
    await expect(b.receive({ timeoutMs: 5000 })).rejects.toThrow(/closed the connection/);
    b.close();
    listener.close();
    expect(existsSync(path)).toBe(false);
    expect(() => a.send(new Uint8Array(1))).toThrow(ClosedError);
  });

  it("times out with what to check, and rejects a plain message as a handle", async () => {
    await expect(IpcChannel.connect(`@cuda-ts-nobody-${crypto.randomUUID()}`, { timeoutMs: 50 })).rejects.toThrow(IpcTimeoutError);
    using listener = IpcListener.listen();
    await expect(listener.accept({ timeoutMs: 30 })).rejects.toThrow(/timed out after 30 ms: check that the other process is running/);
    const [a, b] = await Promise.all([IpcChannel.connect(listener.address), listener.accept()]);
    await expect(b.receive({ timeoutMs: 30 })).rejects.toThrow(IpcTimeoutError);
    a.send(new Uint8Array(24));
    await expect(b.receiveAllocationHandle({ timeoutMs: 1000 })).rejects.toThrow(/carries one file descriptor, this one carried 0/);
    a.close();
    b.close();
  });
});
