/**
 * The window functions without a GPU: their arguments checked before a stream is needed, and their generated
 * kernels compiling with nvcc where this machine has it.
 */
import { describe, expect, it } from "vitest";
import { dtypes, type DTypeName } from "../../../src/index.ts";
import { ArgumentError } from "../../../src/errors/base.ts";
import { bartlett, blackman, hamming, hanning, kaiser } from "../../../src/array.ts";
import { kernelCache } from "../../../src/core/array/ops/elementwise.ts";
import { bundleKernels, nvccPresent, nvccProblems } from "../../support/nvcc.ts";

const NEEDS_STREAM = /needs a stream/;

describe("window functions: checks", () => {
  it("take an integer number of points, kaiser a number beta, and options with the stream", () => {
    for (const f of [bartlett, blackman, hamming, hanning]) {
      expect(() => f(5, {})).toThrow(NEEDS_STREAM);
      expect(() => f(-3, {})).toThrow(NEEDS_STREAM);
      expect(() => f(2.5, {})).toThrow(ArgumentError);
      expect(() => f("5" as never, {})).toThrow(ArgumentError);
      expect(() => f(5, undefined as never)).toThrow(TypeError);
    }
    expect(() => kaiser(5, 8.6, {})).toThrow(NEEDS_STREAM);
    expect(() => kaiser(5, Number.NaN, {})).toThrow(NEEDS_STREAM);
    expect(() => kaiser(5, "2" as never, {})).toThrow(ArgumentError);
  });
});

describe.skipIf(!nvccPresent)(`window kernels compile with nvcc${nvccPresent ? "" : " [skipped: no nvcc here]"}`, () => {
  it("all five", () => {
    for (const f of [bartlett, blackman, hamming, hanning]) expect(() => f(5, {})).toThrow(NEEDS_STREAM);
    expect(() => kaiser(5, 1, {})).toThrow(NEEDS_STREAM);
    const sources: string[] = [];
    for (const [key, k] of kernelCache()) {
      if (!key.startsWith("window|")) continue;
      const types = k.params.map((p) => dtypes[p.type as DTypeName]);
      sources.push(k.source({ types: new Map(), dtypes: types, scalar: k.params.map((p) => !p.output), shape: [1], key: "" }));
    }
    expect(sources.length).toBe(5);
    expect(nvccProblems({ windows: bundleKernels(sources) }, { ptx: true, warnings: false })).toEqual([]);
  }, 300_000);
});
