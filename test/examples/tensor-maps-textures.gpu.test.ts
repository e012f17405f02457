/**
 * The tensor-map and texture examples (tma_tensor_map, texture_sample, simple_cubemap_texture) run with this
 * runtime, check their own results and exit 0 with their OK line. Skips where there is no GPU.
 */
import { describe, expect, it } from "vitest";
import { gpu, skipNote } from "../support/gpu.ts";
import { runExample } from "../support/runtime.ts";

describe.skipIf(!gpu.available)(`examples: tensor maps, textures, cubemaps${skipNote}`, () => {
  const cases: [string, RegExp][] = [
    ["tma_tensor_map.ts", /^tma_tensor_map: (\d+ × \d+ tiles of 32 × 32 float32 loaded and stored by the TMA over a 1000 × 1000 array \(edges clipped\), and again after replaceAddress, on .+ OK|.*the TMA needs 9\.0 or newer \(skipped\))$/m],
    ["texture_sample.ts", /^texture_sample: a 64 × 48 float32 CUDA array read through point, linear and border textures and written through a surface on .+ OK$/m],
    ["simple_cubemap_texture.ts", /^simple_cubemap_texture: a 64 × 64 float cubemap \(6 faces\) sampled at every texel centre and negated on .+ OK$/m],
  ];
  for (const [file, line] of cases) {
    it(`${file} checks its results and exits 0`, () => {
      const r = runExample(file);
      expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
      expect(r.stdout).toMatch(line);
    });
  }
});
