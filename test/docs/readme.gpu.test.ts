/**
 * README.md's quick start (the ```ts block after `<!-- quick-start -->`) on a GPU: run as written, on this runtime
 * with the Deno permissions README.md gives, it computes y = 2·x + 1 and prints y[0..3] = 1, 3, 5, 7. Its `cuda-ts`
 * import is pointed at the sources (test/docs/readme-blocks.ts). Skips where there is no GPU.
 */
import { spawnSync } from "node:child_process";
import { afterAll, describe, expect, it } from "vitest";
import { gpu, skipNote } from "../support/gpu.ts";
import { runtimeCommand } from "../support/runtime.ts";
import { root, scratchFolder, writeQuickStart } from "./readme-blocks.ts";

describe.skipIf(!gpu.available)(`README.md's quick start on the GPU${skipNote}`, () => {
  const scratch: Array<() => void> = [];
  afterAll(() => scratch.forEach((remove) => remove()));

  it("compiles saxpy with NVRTC, launches it, copies y back and prints 1, 3, 5, 7", () => {
    const { dir, remove } = scratchFolder("docs-readme-gpu-");
    scratch.push(remove);
    const cmd = runtimeCommand(writeQuickStart(dir));
    const r = spawnSync(cmd[0]!, cmd.slice(1), { cwd: root, encoding: "utf8", timeout: 240_000 });
    expect(r.status, `${r.stdout}\n${r.stderr}${r.error ?? ""}`).toBe(0);
    expect(r.stdout).toMatch(/^.+: y\[0\.\.3\] = 1, 3, 5, 7$/m);
  });
});
