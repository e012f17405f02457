/**
 * The window functions on a real GPU against NumPy 2.4 (`np.hanning(7)` and the others, values in the tests): odd
 * and even lengths, one point, none. Skips without a GPU.
 */
import { describe, expect, it } from "vitest";
import type { DeviceArray, Stream } from "../../../src/index.ts";
import { bartlett, blackman, hamming, hanning, kaiser } from "../../../src/array.ts";
import { gpu, skipNote } from "../../support/gpu.ts";
import { onGpuStream } from "../../support/gpu-arrays.ts";

/** NumPy 2.4's windows of 7 and 4 points. */
const NUMPY: Record<string, [number[], number[]]> = {
  bartlett: [[0, 0.33333333333333337, 0.6666666666666667, 1, 0.6666666666666667, 0.33333333333333337, 0], [0, 0.6666666666666667, 0.6666666666666667, 0]],
  blackman: [
    [-1.3877787807814457e-17, 0.13000000000000006, 0.6300000000000001, 0.9999999999999999, 0.6300000000000001, 0.13000000000000006, -1.3877787807814457e-17],
    [-1.3877787807814457e-17, 0.6300000000000001, 0.6300000000000001, -1.3877787807814457e-17],
  ],
  hamming: [[0.08000000000000002, 0.31000000000000016, 0.7700000000000001, 1, 0.7700000000000001, 0.31000000000000016, 0.08000000000000002], [0.08000000000000002, 0.7700000000000001, 0.7700000000000001, 0.08000000000000002]],
  hanning: [[0, 0.2500000000000001, 0.75, 1, 0.75, 0.2500000000000001, 0], [0, 0.75, 0.75, 0]],
};

function expectClose(a: DeviceArray, want: readonly number[]): void {
  expect(a.dtype.name).toBe("float64");
  const got = Array.from(a.toTypedArraySync() as Float64Array);
  expect(got.length).toBe(want.length);
  // CUDA's cos and cyl_bessel_i0 are within a few ulps of the host's.
  got.forEach((g, k) => expect(Math.abs(g - want[k]!), `element ${k}: ${g} against ${want[k]}`).toBeLessThan(1e-15));
}

describe.skipIf(!gpu.available)(`window functions on a GPU${skipNote}`, () => {
  let stream: Stream;
  onGpuStream((s) => (stream = s));

  it("NumPy's bartlett, blackman, hamming and hanning of 7 and 4 points; 1 point; none", () => {
    const fns = { bartlett, blackman, hamming, hanning };
    for (const [name, [seven, four]] of Object.entries(NUMPY)) {
      const f = fns[name as keyof typeof fns];
      using a = f(7, { stream });
      expectClose(a, seven);
      using b = f(4, { stream });
      expectClose(b, four);
      using one = f(1, { stream });
      expectClose(one, [1]);
      using none = f(0, { stream });
      expect(none.shape).toEqual([0]);
    }
  });

  it("kaiser: NumPy's kaiser(7, 8.6), kaiser(4, 0), kaiser(1, 5)", () => {
    using a = kaiser(7, 8.6, { stream });
    expectClose(a, [0.0013325139979024198, 0.13040194654166437, 0.6304119273359405, 1, 0.6304119273359405, 0.13040194654166437, 0.0013325139979024198]);
    using b = kaiser(4, 0, { stream });
    expectClose(b, [1, 1, 1, 1]);
    using c = kaiser(1, 5, { stream });
    expectClose(c, [1]);
  });
});
