/**
 * NumPy 2's unique functions without a GPU: what they refuse before a stream is needed.
 */
import { describe, expect, it } from "vitest";
import { ArrayLayoutError, DeviceArray } from "../../../src/index.ts";
import { uniqueAll, uniqueCounts, uniqueInverse, uniqueValues } from "../../../src/array.ts";
import { fakeArray } from "../../support/fake-arrays.ts";

describe("NumPy 2's unique functions", () => {
  it("take a DeviceArray and options { stream? }, and need a stream", () => {
    for (const [name, f] of [["uniqueValues", uniqueValues], ["uniqueCounts", uniqueCounts], ["uniqueInverse", uniqueInverse], ["uniqueAll", uniqueAll]] as const) {
      expect(() => f([1, 2] as unknown as DeviceArray), name).toThrow(TypeError);
      expect(() => f(fakeArray([3], "float32"), 5 as never), name).toThrow(`${name} takes options { stream? }`);
      expect(() => f(fakeArray([3], "float32")), name).toThrow("needs a stream");
      const closed = fakeArray([3], "float32");
      closed.close();
      expect(() => f(closed), name).toThrow(ArrayLayoutError);
    }
  });
});
