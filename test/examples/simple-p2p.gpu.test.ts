/**
 * The example simple_p2p.ts (a port of the CUDA sample simpleP2P) runs with this runtime: on two GPUs that reach each
 * other's memory it measures peer copies and runs a kernel across them, checking every element; on one GPU it says
 * it needs two and exits 0 (this test then checks that line, and says why it checks no more).
 */
import { runExample } from "../support/runtime.ts";
import { describe, expect, it } from "vitest";
import { Device } from "../../src/index.ts";
import { gpu, skipNote } from "../support/gpu.ts";

describe.skipIf(!gpu.available)(`examples: simple_p2p${skipNote}`, () => {
  const count = gpu.available ? Device.count : 0;
  it.skipIf(count < 2)(`peer copies and a kernel reading and writing the peer's memory${count < 2 ? ` [skipped: needs two GPUs, this machine has ${count}]` : ""}`, () => {
    const r = runExample("simple_p2p.ts", ["16"]);
    expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
    expect(r.stdout).toMatch(/^simple_p2p: 16 MiB peer copies at [\d.]+ GB\/s and a kernel on GPU \d+ reading and writing GPU \d+'s memory OK$|cannot access each other's memory \(skipped\)$/m);
  });
  it.skipIf(count >= 2)("with one GPU: says it needs two and exits 0", () => {
    const r = runExample("simple_p2p.ts", ["16"]);
    expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
    expect(r.stdout).toContain("simple_p2p: needs two GPUs, this machine has 1 (skipped)");
  });
});
