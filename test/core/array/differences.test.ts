/**
 * `diff`, `meshgrid` and the NaN-ignoring reductions without a GPU: the argument errors that come before anything is
 * queued, on arrays over a made-up device address.
 */
import { describe, expect, it } from "vitest";
import { ArgumentError, AxisError, Buffer, DeviceArray, ShapeMismatchError } from "../../../src/index.ts";
import { diff, meshgrid, nanmax, nanmean, nansum, ptp } from "../../../src/array.ts";

const arr = (shape: number[]): DeviceArray => DeviceArray.fromBuffer(Buffer.fromHandle(0x7f00_0000_0000n, 1 << 16, { owner: {} }), { dtype: "float32", shape });

describe("diff, meshgrid and the NaN-ignoring reductions refuse bad arguments", () => {
  it("diff", () => {
    expect(() => diff(arr([]))).toThrow(ShapeMismatchError);
    expect(() => diff(arr([4]), { n: -1 })).toThrow(ArgumentError);
    expect(() => diff(arr([4]), { n: 1.5 })).toThrow(/n is a non-negative integer/);
    expect(() => diff(arr([4]), { axis: 1 })).toThrow(AxisError);
    expect(() => diff([1, 2] as unknown as DeviceArray)).toThrow(TypeError);
  });

  it("meshgrid", () => {
    expect(meshgrid([])).toEqual([]);
    expect(() => meshgrid([arr([3]), 5 as unknown as DeviceArray])).toThrow(/input 1 is a DeviceArray/);
    expect(() => meshgrid([arr([3])], { indexing: "yx" as "xy" })).toThrow(/indexing is "xy" or "ij"/);
  });

  it("the reductions", () => {
    for (const f of [nansum, nanmean, nanmax, ptp]) expect(() => f({} as DeviceArray)).toThrow(TypeError);
    expect(() => nansum(arr([3]), 3 as unknown as undefined)).toThrow(/takes options/);
  });
});
