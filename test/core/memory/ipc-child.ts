/**
 * The other process of test/core/memory/ipc.test.ts: connects to the address in argv, receives a file descriptor
 * (a memfd) and an allocation-handle message, reads the file through the received descriptor, and answers with
 * what it read plus a memfd of its own.
 */
import { IpcChannel } from "../../../src/core/memory/ipc-socket.ts";
import { ffi } from "../../../src/ffi/index.ts";

const libc = ffi.openLibrary("libc.so.6");
const pread = libc.bind("pread", { parameters: ["i32", "pointer", "u64", "i64"], result: "i64" } as const)!;
const write = libc.bind("write", { parameters: ["i32", "pointer", "u64"], result: "i64" } as const)!;
const memfdCreate = libc.bind("memfd_create", { parameters: ["pointer", "u32"], result: "i32" } as const)!;
const close = libc.bind("close", { parameters: ["i32"], result: "i32" } as const)!;

function readFd(fd: number): string {
  const buf = new Uint8Array(new ArrayBuffer(256));
  const n = Number(pread(fd, ffi.pointerOf(buf), 256n, 0n));
  return new TextDecoder().decode(buf.subarray(0, Math.max(n, 0)));
}

const address = process.argv[process.argv.length - 1]!;
using ch = await IpcChannel.connect(address, { timeoutMs: 20_000 });
const first = await ch.receive({ timeoutMs: 20_000 });
const text = first.fds.length === 1 ? readFd(first.fds[0]!) : `(${first.fds.length} fds)`;
first.fds.forEach((fd) => close(fd));
const handle = await ch.receiveAllocationHandle({ timeoutMs: 20_000 });
const viaHandle = readFd(handle.fd);
handle.close();

const mine = memfdCreate(ffi.pointerOf(ffi.cstring("child")), 1);
const reply = new TextEncoder().encode("from the child");
const bytes = new Uint8Array(new ArrayBuffer(reply.length));
bytes.set(reply);
write(mine, ffi.pointerOf(bytes), BigInt(bytes.length));
ch.send(new TextEncoder().encode(JSON.stringify({ data: new TextDecoder().decode(first.data), text, uuid: handle.uuid, viaHandle })), [mine]);
close(mine);
// Wait for the parent's goodbye so the reply is read before this end closes.
await ch.receive({ timeoutMs: 20_000 });
