/**
 * The importing process of the IPC test in memory.test.ts: connects to the address in argv, maps the exporter's
 * pool from the received allocation handle, opens the shared buffer from its descriptor, checks the bytes the
 * exporter wrote, overwrites them with 0x5a, and reports back.
 *
 *   <runtime> memory-ipc-child.ts device|pinned @address
 */
import { Buffer, Device, DeviceMemoryResource, PinnedMemoryResource } from "../../../src/index.ts";
import { IPCBufferDescriptor, IpcChannel } from "../../../src/distributed.ts";

const [kind, address] = process.argv.slice(-2) as [string, string];
const dev = new Device(0);
dev.setCurrent();
using stream = dev.createStream();
using ch = await IpcChannel.connect(address, { timeoutMs: 30_000 });
const handle = await ch.receiveAllocationHandle({ timeoutMs: 30_000 });
const mr = kind === "pinned" ? PinnedMemoryResource.fromAllocationHandle(handle) : DeviceMemoryResource.fromAllocationHandle(dev, handle);
const descriptor = IPCBufferDescriptor.fromBytes((await ch.receive({ timeoutMs: 30_000 })).data);
const buffer = Buffer.fromIpcDescriptor(mr, descriptor, { stream });
const seen = new Uint8Array(buffer.size);
buffer.copyTo(seen, { stream });
stream.sync();
let wrong = 0;
for (let i = 0; i < seen.length; i++) if (seen[i] !== (i * 7 + 3) % 251) wrong++;
buffer.fill(0x5a, { stream });
stream.sync();
buffer.close(stream);
stream.sync();
const report = { size: buffer.size, wrong, mapped: mr.isMapped, uuid: mr.uuid, handleClosed: handle.isClosed };
ch.send(new TextEncoder().encode(JSON.stringify(report)));
await ch.receive({ timeoutMs: 30_000 }); // the exporter's goodbye: it has read the report
mr.close();
