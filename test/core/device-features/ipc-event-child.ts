/**
 * The importing process of the event IPC test in objects.gpu.test.ts: connects to the address in argv, opens the
 * exporter's event from its descriptor, makes a stream wait on it and synchronises it, and reports back.
 *
 *   <runtime> ipc-event-child.ts @address
 */
import { Device, Event } from "../../../src/index.ts";
import { IPCEventDescriptor, IpcChannel } from "../../../src/distributed.ts";

const address = process.argv[process.argv.length - 1]!;
const dev = new Device(0);
dev.setCurrent();
using stream = dev.createStream();
using ch = await IpcChannel.connect(address, { timeoutMs: 30_000 });
const descriptor = IPCEventDescriptor.fromBytes((await ch.receive({ timeoutMs: 30_000 })).data);
const event = Event.fromIpcDescriptor(descriptor, dev.context);
stream.wait(event);
event.sync();
stream.sync();
const report = { ipc: event.isIpcEnabled, timing: event.isTimingEnabled, done: event.isDone };
event.close();
ch.send(new TextEncoder().encode(JSON.stringify(report)));
await ch.receive({ timeoutMs: 30_000 }); // the exporter's goodbye: it has read the report
