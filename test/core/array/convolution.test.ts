/**
 * `convolve` and `correlate` without a GPU: their plans (which input is windowed, where the windows start, which way
 * they run, which outputs reach the padding) run on the host over plain numbers against NumPy 2.4's results for
 * every mode, both orders of lengths, complex inputs and an infinity in the shorter input; and every error that
 * comes before a stream is needed.
 */
import { describe, expect, it } from "vitest";
import { ArgumentError, DeviceArray, DeviceMismatchError, ShapeMismatchError, type DTypeName } from "../../../src/index.ts";
import { convolve, correlate } from "../../../src/array.ts";
import { CONVOLUTION_CHUNK_ELEMENTS, convolutionPlan, type ConvolveMode } from "../../../src/core/array/ops/convolution.ts";
import { fakeArray } from "../../support/fake-arrays.ts";

type C = readonly [number, number];
const cmul = (x: C, y: C): C => [x[0] * y[0] - x[1] * y[1], x[0] * y[1] + x[1] * y[0]];
const conjugate = (x: C): C => [x[0], -x[1]];

/**
 * What the device computes for a plan, on the host: the windowed input padded with m - 1 zeros each side, each
 * output the sum of a window times the kernel, the products that fall on the padding replaced by zeros in the rows of
 * `plan.edges` (and only there: other rows must not reach the padding).
 */
function simulate(kind: "convolve" | "correlate", a: readonly C[], v: readonly C[], mode: ConvolveMode): C[] {
  const plan = convolutionPlan(kind, a.length, v.length, mode);
  const long = plan.windowed === "a" ? a : v;
  const short = plan.windowed === "a" ? v : a;
  const { n, m } = plan;
  const padded: (C | undefined)[] = [...Array<undefined>(m - 1), ...long.map((x) => (plan.conjugate === plan.windowed ? conjugate(x) : x)), ...Array<undefined>(m - 1)];
  let kernel = plan.flipKernel ? [...short].reverse() : [...short];
  if (plan.conjugate !== undefined && plan.conjugate !== plan.windowed) kernel = kernel.map(conjugate);
  expect(padded.length).toBe(n + 2 * (m - 1));
  const out: C[] = [];
  for (let r = 0; r < plan.length; r++) {
    const at = plan.start + plan.step * r;
    const edge = plan.edges.some(([e0, e1]) => r >= e0 && r < e1);
    let acc: C = [0, 0];
    for (let j = 0; j < m; j++) {
      const x = padded[at + j];
      if (x === undefined && !edge) throw new Error(`row ${r} reaches the padding but is not an edge row`);
      const p = x === undefined ? ([0, 0] as C) : cmul(x, kernel[j]!);
      acc = [acc[0] + p[0], acc[1] + p[1]];
    }
    out.push(acc);
  }
  return out;
}

const real = (xs: readonly number[]): C[] => xs.map((x) => [x, 0]);

describe("the plans of convolve and correlate give NumPy's values", () => {
  it("for real inputs, every mode, either input longer", () => {
    const a = real([1, 2, 3]);
    const v = real([0, 1, 0.5]);
    // np.convolve([1, 2, 3], [0, 1, 0.5], mode) → full [0, 1, 2.5, 4, 1.5], same [1, 2.5, 4], valid [2.5]
    expect(simulate("convolve", a, v, "full")).toEqual(real([0, 1, 2.5, 4, 1.5]));
    expect(simulate("convolve", a, v, "same")).toEqual(real([1, 2.5, 4]));
    expect(simulate("convolve", a, v, "valid")).toEqual(real([2.5]));
    // np.correlate([1, 2, 3], [0, 1, 0.5], mode) → full [0.5, 2, 3.5, 3, 0], same [2, 3.5, 3], valid [3.5]
    expect(simulate("correlate", a, v, "full")).toEqual(real([0.5, 2, 3.5, 3, 0]));
    expect(simulate("correlate", a, v, "same")).toEqual(real([2, 3.5, 3]));
    expect(simulate("correlate", a, v, "valid")).toEqual(real([3.5]));
    const s = real([1, 2]);
    const l = real([1, 2, 3, 4, 5]);
    // np.convolve([1, 2], [1, 2, 3, 4, 5], mode) → full [1, 4, 7, 10, 13, 10], same [1, 4, 7, 10, 13], valid [4, 7, 10, 13]
    expect(simulate("convolve", s, l, "full")).toEqual(real([1, 4, 7, 10, 13, 10]));
    expect(simulate("convolve", s, l, "same")).toEqual(real([1, 4, 7, 10, 13]));
    expect(simulate("convolve", s, l, "valid")).toEqual(real([4, 7, 10, 13]));
    // np.correlate([1, 2], [1, 2, 3, 4, 5], mode) → full [5, 14, 11, 8, 5, 2], same [14, 11, 8, 5, 2], valid [14, 11, 8, 5]
    expect(simulate("correlate", s, l, "full")).toEqual(real([5, 14, 11, 8, 5, 2]));
    expect(simulate("correlate", s, l, "same")).toEqual(real([14, 11, 8, 5, 2]));
    expect(simulate("correlate", s, l, "valid")).toEqual(real([14, 11, 8, 5]));
    const e = real([1, 2, 3, 4]);
    const w = real([1, 10]);
    // np.convolve([1, 2, 3, 4], [1, 10], "same") → [1, 12, 23, 34]; np.correlate(..., "same") → [10, 21, 32, 43]
    expect(simulate("convolve", e, w, "same")).toEqual(real([1, 12, 23, 34]));
    expect(simulate("correlate", e, w, "same")).toEqual(real([10, 21, 32, 43]));
    // np.correlate([1, 2, 3, 4], [1, 10], "full") → [10, 21, 32, 43, 4]
    expect(simulate("correlate", e, w, "full")).toEqual(real([10, 21, 32, 43, 4]));
  });

  it("for complex inputs: correlate conjugates v, convolve nothing", () => {
    const a: C[] = [[1, 1], [2, 0], [3, -1]];
    const v: C[] = [[0, 1], [2, 0]];
    // np.correlate([1+1j, 2, 3-1j], [1j, 2]) → [5-1j, 6-4j]
    expect(simulate("correlate", a, v, "valid")).toEqual([[5, -1], [6, -4]]);
    // np.convolve([1+1j, 2, 3-1j], [1j, 2]) → [-1+1j, 2+4j, 5+3j, 6-2j]
    expect(simulate("convolve", a, v, "full")).toEqual([[-1, 1], [2, 4], [5, 3], [6, -2]]);
    const s: C[] = [[0, 0], [1, 0], [0, 0.5]];
    const l: C[] = [[1, 1], [2, 0], [3, -1], [0, 1]];
    // np.correlate([0, 1, 0.5j], [1+1j, 2, 3-1j, 1j], mode): v longer
    // full → [0, -1j, 3.5+1j, 1.5+1.5j, 1, 0.5+0.5j], same → [-1j, 3.5+1j, 1.5+1.5j, 1], valid → [3.5+1j, 1.5+1.5j]
    const eq = (got: C[], want: C[]): void => expect(got.map(([re, im]) => [re + 0, im + 0])).toEqual(want);
    eq(simulate("correlate", s, l, "full"), [[0, 0], [0, -1], [3.5, 1], [1.5, 1.5], [1, 0], [0.5, 0.5]]);
    eq(simulate("correlate", s, l, "same"), [[0, -1], [3.5, 1], [1.5, 1.5], [1, 0]]);
    eq(simulate("correlate", s, l, "valid"), [[3.5, 1], [1.5, 1.5]]);
  });

  it("keeps an infinity in the shorter input off the padding", () => {
    // np.convolve([1., 2, 3], [np.inf, 1]) → [inf, inf, inf, 3]; mode "same" → [inf, inf, inf]
    expect(simulate("convolve", real([1, 2, 3]), real([Infinity, 1]), "full").map((c) => c[0])).toEqual([Infinity, Infinity, Infinity, 3]);
    expect(simulate("convolve", real([1, 2, 3]), real([Infinity, 1]), "same").map((c) => c[0])).toEqual([Infinity, Infinity, Infinity]);
    // np.correlate([1., 2, 3], [np.nan, 1], "same") → [1, nan, nan]
    expect(simulate("correlate", real([1, 2, 3]), real([NaN, 1]), "same").map((c) => c[0])).toEqual([1, NaN, NaN]);
  });

  it("for every pair of lengths up to 7, against a direct sum", () => {
    // The definitions: convolve c[k] = sum_i a[i] v[k - i]; correlate c[k] = sum_i a[i + k - (nv - 1)] conj(v[i]),
    // k over every overlap; "same" starts at (min - 1) // 2 (correlate with v longer: na // 2), "valid" at min - 1.
    for (let na = 1; na <= 7; na++) {
      for (let nv = 1; nv <= 7; nv++) {
        const a: C[] = Array.from({ length: na }, (_, i) => [i + 1, (i % 3) - 1]);
        const v: C[] = Array.from({ length: nv }, (_, i) => [2 * i - 3, i % 2]);
        const fullConv: C[] = [];
        const fullCorr: C[] = [];
        for (let k = 0; k < na + nv - 1; k++) {
          let c: C = [0, 0];
          let d: C = [0, 0];
          for (let i = 0; i < na; i++) {
            if (k - i >= 0 && k - i < nv) c = [c[0] + cmul(a[i]!, v[k - i]!)[0], c[1] + cmul(a[i]!, v[k - i]!)[1]];
            const j = i - k + nv - 1;
            if (j >= 0 && j < nv) d = [d[0] + cmul(a[i]!, conjugate(v[j]!))[0], d[1] + cmul(a[i]!, conjugate(v[j]!))[1]];
          }
          fullConv.push(c);
          fullCorr.push(d);
        }
        const lo = Math.min(na, nv);
        const hi = Math.max(na, nv);
        const window = (full: C[], start: number, len: number): C[] => full.slice(start, start + len);
        expect(simulate("convolve", a, v, "full")).toEqual(fullConv);
        expect(simulate("convolve", a, v, "same")).toEqual(window(fullConv, Math.floor((lo - 1) / 2), hi));
        expect(simulate("convolve", a, v, "valid")).toEqual(window(fullConv, lo - 1, hi - lo + 1));
        expect(simulate("correlate", a, v, "full")).toEqual(fullCorr);
        expect(simulate("correlate", a, v, "same")).toEqual(window(fullCorr, nv > na ? Math.floor(na / 2) : Math.floor((nv - 1) / 2), hi));
        expect(simulate("correlate", a, v, "valid")).toEqual(window(fullCorr, lo - 1, hi - lo + 1));
      }
    }
  });

  it("names the rows that reach the padding, and bounds the products", () => {
    expect(convolutionPlan("convolve", 5, 3, "full")).toEqual({ windowed: "a", n: 5, m: 3, start: 0, step: 1, length: 7, flipKernel: true, conjugate: undefined, edges: [[0, 2], [5, 7]] });
    expect(convolutionPlan("correlate", 2, 5, "same")).toEqual({ windowed: "v", n: 5, m: 2, start: 4, step: -1, length: 5, flipKernel: false, conjugate: "v", edges: [[4, 5]] });
    expect(convolutionPlan("correlate", 5, 2, "valid").edges).toEqual([]);
    expect(CONVOLUTION_CHUNK_ELEMENTS).toBe(1 << 22);
  });
});

describe("convolve and correlate refuse bad arguments before the stream", () => {
  const fake = (shape: number[], dtype: DTypeName = "float64", device = -1): DeviceArray => fakeArray(shape, dtype, device);
  it("as NumPy's errors", () => {
    expect(() => convolve([1] as unknown as DeviceArray, fake([2]))).toThrow(/a is a DeviceArray/);
    expect(() => correlate(fake([2]), 3 as unknown as DeviceArray)).toThrow(/v is a DeviceArray/);
    // np.convolve([], [1.]) → ValueError: a cannot be empty; np.convolve([1.], []) → ValueError: v cannot be empty
    expect(() => convolve(fake([0]), fake([1]))).toThrow(/a is empty/);
    expect(() => convolve(fake([1]), fake([0]))).toThrow(/v is empty/);
    expect(() => correlate(fake([0]), fake([1]))).toThrow(ShapeMismatchError);
    // np.convolve(np.ones((2, 2)), np.ones(2)) → ValueError: object too deep for desired array
    expect(() => convolve(fake([2, 2]), fake([2]))).toThrow(/a is a 1-d array, got shape \[2, 2\]/);
    expect(() => correlate(fake([2]), fake([1, 2]))).toThrow(ShapeMismatchError);
    // np.correlate(np.array(3.), [1., 2]) → ValueError: object of too small depth for desired array
    expect(() => correlate(fake([]), fake([2]))).toThrow(/a is a 1-d array, got shape \[\]/);
    // np.correlate([1, 2], [1], "bogus") → ValueError: mode must be one of 'valid', 'same', or 'full'
    expect(() => correlate(fake([2]), fake([1]), { mode: "bogus" as "full" })).toThrow(ArgumentError);
    expect(() => convolve(fake([2]), fake([1]), 7 as never)).toThrow(/takes options/);
    expect(() => convolve(fake([2], "float64", 0), fake([1], "float64", 1))).toThrow(DeviceMismatchError);
  });

  it("passes what NumPy takes on to the stream", () => {
    // np.convolve(np.array(3.), np.array([1., 2])) → [3, 6]: a 0-d input is one element
    expect(() => convolve(fake([]), fake([2]))).toThrow(/needs a stream/);
    expect(() => correlate(fake([3], "int8"), fake([5], "uint8"), { mode: "same" })).toThrow(/needs a stream/);
    expect(() => convolve(fake([3], "bool"), fake([2], "bool"), { mode: "valid" })).toThrow(/needs a stream/);
  });
});
