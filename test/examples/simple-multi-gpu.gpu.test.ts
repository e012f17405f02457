/**
 * The example simple_multi_gpu.ts runs with this runtime (Bun: this executable; Deno: the deno of
 * node_modules/.bin), exits 0 and reports every GPU (on one GPU it runs there alone). Skips where there is no GPU.
 */
import { runExample } from "../support/runtime.ts";
import { describe, expect, it } from "vitest";
import { Device } from "../../src/index.ts";
import { gpu, skipNote } from "../support/gpu.ts";

describe.skipIf(!gpu.available)(`examples: simple_multi_gpu${skipNote}`, () => {
  it("launches on every GPU, gathers the results on the first, checks them and exits 0", () => {
    const r = runExample("simple_multi_gpu.ts");
    expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
    const devices = Device.all();
    for (const d of devices) {
      expect(r.stdout).toContain(`GPU ${d.id} (${d.name}, sm_${d.arch}): launched scale_add`);
      expect(r.stdout).toMatch(new RegExp(`GPU ${d.id} → GPU 0: copied (on the device|peer-to-peer|through host memory)`));
    }
    expect(r.stdout).toContain(`simple_multi_gpu: ${devices.length} GPU(s)`);
  });
});
