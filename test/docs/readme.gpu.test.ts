/**
 * README.md's TypeScript blocks on a GPU, each run as written on this runtime with the Deno permissions README.md
 * gives, its `cuda-ts` imports pointed at the sources (test/docs/readme-blocks.ts): the quick start (the block after
 * `<!-- quick-start -->`) computes y = 2·x + 1 and prints y[0..3] = 1, 3, 5, 7; every other block (each is a complete
 * program) runs to its end. Skips where there is no GPU.
 */
import { spawnSync } from "node:child_process";
import { afterAll, describe, expect, it } from "vitest";
import { gpu, skipNote } from "../support/gpu.ts";
import { runtimeCommand } from "../support/runtime.ts";
import { readmeBlocks, root, scratchFolder, writeBlock, writeQuickStart } from "./readme-blocks.ts";

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

  it("runs every other block of README.md to its end (the arrays' block prints [2, 5] and 3·x)", () => {
    const { dir, remove } = scratchFolder("docs-readme-gpu-");
    scratch.push(remove);
    const others = readmeBlocks().filter((b) => !b.quickStart);
    expect(others.length).toBeGreaterThan(0);
    for (const block of others) {
      const cmd = runtimeCommand(writeBlock(dir, block, `block-line-${block.line}.ts`));
      const r = spawnSync(cmd[0]!, cmd.slice(1), { cwd: root, encoding: "utf8", timeout: 240_000 });
      expect(r.status, `README.md line ${block.line}:\n${r.stdout}\n${r.stderr}${r.error ?? ""}`).toBe(0);
      if (block.code.includes("ElementwiseKernel")) expect(r.stdout.replace(/\s+/g, " ")).toMatch(/\[ 2, 5 \].*\[ 3, 6, 9, 12, 15, 18 \]/);
    }
  });
});
