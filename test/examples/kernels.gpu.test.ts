/**
 * The examples vector_add.ts and saxpy.ts run with this runtime, check their own results and exit 0 with their OK
 * line. Skips where there is no GPU.
 */
import { describe, expect, it } from "vitest";
import { gpu, skipNote } from "../support/gpu.ts";
import { runExample } from "../support/runtime.ts";

describe.skipIf(!gpu.available)(`examples: vector_add, saxpy${skipNote}`, () => {
  it("vector_add compiles, launches, checks every element and exits 0", () => {
    const r = runExample("vector_add.ts");
    expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
    expect(r.stdout).toMatch(/^vector_add: \d+ elements on .+ \(sm_\d+\) OK$/m);
  });

  it("saxpy runs in float and double, checks every element and exits 0", () => {
    const r = runExample("saxpy.ts");
    expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
    expect(r.stdout).toMatch(/^saxpy: float and double, \d+ elements each, on .+ OK$/m);
  });
});
