/**
 * Run as another user by test/distributed/rendezvous-secure.test.ts: tries the rendezvous at 127.0.0.1:PORT without
 * its secret, by a client with a guessed secret and by a raw connection that records every byte the server sends,
 * then prints one JSON line: what happened, and the received bytes (hex) for the test to search.
 */
import * as net from "node:net";
import { RendezvousClient } from "../../src/core/distributed/rendezvous.ts";

const port = Number(process.argv[process.argv.length - 1]);
let joined = false;
let error = "";
try {
  using c = await RendezvousClient.connect({ host: "127.0.0.1", port, secret: "00".repeat(32), timeoutMs: 3000 });
  joined = true;
  await c.get("cuda-ts/comm/nccl-unique-id-of-the-world");
} catch (e) {
  error = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
}
const received: Buffer[] = [];
await new Promise<void>((resolve) => {
  const s = net.connect(port, "127.0.0.1");
  s.on("data", (d: Buffer) => {
    received.push(d);
    // Pretend to be a client: a wrong proof and a nonce, then a request, as bytes.
    s.write(Buffer.alloc(64, 1));
    s.write(Buffer.from('{"op":"get","key":"cuda-ts/comm/nccl-unique-id-of-the-world"}'));
  });
  s.on("error", () => resolve());
  s.on("close", () => resolve());
  setTimeout(() => {
    s.destroy();
    resolve();
  }, 3000);
});
console.log(JSON.stringify({ joined, error, received: Buffer.concat(received).toString("hex") }));
