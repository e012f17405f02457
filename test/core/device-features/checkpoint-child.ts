/**
 * The process the checkpoint test checkpoints: fills device memory with a pattern, prints "ready <pid>", waits
 * until the file named in argv exists (the test has locked, checkpointed, restored and unlocked it meanwhile, or
 * found checkpointing unsupported), then checks the pattern survived and prints "survived <wrong elements>".
 *
 *   <runtime> checkpoint-child.ts <marker file>
 */
import { existsSync } from "node:fs";
import { Device, DeviceArray } from "../../../src/index.ts";

const marker = process.argv[process.argv.length - 1]!;
const dev = new Device(0);
dev.setCurrent();
using stream = dev.createStream();
const n = 1 << 20;
using a = DeviceArray.from(Int32Array.from({ length: n }, (_, i) => i * 3 + 1), { stream });
stream.sync();
console.log(`ready ${process.pid}`);
const until = Date.now() + 120_000;
while (!existsSync(marker) && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
const back = await a.toTypedArray({ stream });
let wrong = 0;
for (let i = 0; i < n; i++) if (back[i] !== i * 3 + 1) wrong++;
console.log(`survived ${wrong}`);
