/**
 * The other user's process in test/core/memory/ipc-peer.test.ts (run under setpriv with another uid). It plays
 * the thief: `connect <address>` connects to the test's listener accepting any listener, then waits for a message
 * or a descriptor; `listen <address>` listens with a squatted name accepting anyone, and waits for what the test's
 * process sends. Either way it prints, as JSON, what it got.
 */
import { IpcChannel, IpcListener } from "../../../src/core/memory/ipc-socket.ts";

const [mode, address] = process.argv.slice(-2) as [string, string];
const result: { mode: string; connected: boolean; bytes: number; fds: number; error?: string } = { mode, connected: false, bytes: 0, fds: 0 };
try {
  if (mode === "probe") {
    // Only shows that this runtime can run a script as this user.
  } else if (mode === "connect") {
    using ch = await IpcChannel.connect(address, { timeoutMs: 20_000, allowPeer: () => true });
    result.connected = true;
    const m = await ch.receive({ timeoutMs: 20_000 });
    result.bytes = m.data.length;
    result.fds = m.fds.length;
  } else {
    using listener = IpcListener.listen(address, { allowPeer: () => true });
    console.log("listening");
    using ch = await listener.accept({ timeoutMs: 20_000 });
    result.connected = true;
    const m = await ch.receive({ timeoutMs: 20_000 });
    result.bytes = m.data.length;
    result.fds = m.fds.length;
  }
} catch (e) {
  result.error = e instanceof Error ? e.name : String(e);
}
console.log(JSON.stringify(result));
