/**
 * Splitting and editing without a GPU: hsplit, vsplit and dsplit (views over a stand-in buffer: their shapes,
 * strides and offsets), the plans of insert and delete (where each entry of the result comes from, as NumPy 2.4's
 * results), and every typed error that comes before a stream is needed.
 */
import { describe, expect, it } from "vitest";
import { ArgumentError, AxisError, BroadcastError, DTypeError, DeviceArray, IndexError, ShapeMismatchError } from "../../../src/index.ts";
import * as ca from "../../../src/array.ts";
import { fakeArray } from "../../support/fake-arrays.ts";
import { append, deleteItems, dsplit, hsplit, insert, vsplit } from "../../../src/array.ts";
import { insertPlan, keptPositions, slicePositions } from "../../../src/core/array/ops/editing.ts";

const BASE = 0x7f00_0000_0000n; // fakeArray's address

function arr(shape: number[], dtype: "float32" | "int32" | "int8" = "int32"): DeviceArray {
  return fakeArray(shape, dtype);
}

/** Element offsets of views of an int32 stand-in. */
const offsetOf = (v: DeviceArray): number => Number(v.address - BASE) / 4;

describe("hsplit, vsplit, dsplit", () => {
  it("hsplit splits axis 1 (axis 0 of a 1-d array) into views", () => {
    const x = arr([2, 3, 4]);
    const parts = hsplit(x, [1]);
    expect(parts.map((p) => p.shape)).toEqual([
      [2, 1, 4],
      [2, 2, 4],
    ]);
    expect(parts.map((p) => p.base)).toEqual([x, x]);
    expect(parts.map(offsetOf)).toEqual([0, 4]);
    expect(parts[1]!.strides).toEqual([12, 4, 1]);
    const v = hsplit(arr([6]), 3);
    expect(v.map((p) => [p.shape, offsetOf(p)])).toEqual([
      [[2], 0],
      [[2], 2],
      [[2], 4],
    ]);
  });

  it("vsplit splits axis 0, dsplit axis 2 (equal parts or positions, negative positions count from the end)", () => {
    const x = arr([2, 3, 4]);
    expect(vsplit(x, 2).map((p) => [p.shape, offsetOf(p)])).toEqual([
      [[1, 3, 4], 0],
      [[1, 3, 4], 12],
    ]);
    expect(dsplit(x, [1, 3]).map((p) => [p.shape, offsetOf(p)])).toEqual([
      [[2, 3, 1], 0],
      [[2, 3, 2], 1],
      [[2, 3, 1], 3],
    ]);
    // A view: the transpose's strides carry over.
    const t = x.transpose(); // [4, 3, 2], strides [1, 4, 12]
    expect(hsplit(t, 3).map((p) => [p.shape, p.strides, offsetOf(p)])).toEqual([
      [[4, 1, 2], [1, 4, 12], 0],
      [[4, 1, 2], [1, 4, 12], 4],
      [[4, 1, 2], [1, 4, 12], 8],
    ]);
  });

  it("too few axes are ArgumentErrors; sections that do not divide are ShapeMismatchErrors (as split)", () => {
    expect(() => hsplit(arr([]), 1)).toThrow(ArgumentError);
    expect(() => hsplit(arr([]), 1)).toThrow("hsplit: needs an array of at least 1 axis, got a 0-d array");
    expect(() => vsplit(arr([4]), 2)).toThrow("vsplit: needs an array of at least 2 axes, got shape [4]");
    expect(() => dsplit(arr([2, 4]), 2)).toThrow("dsplit: needs an array of at least 3 axes, got shape [2, 4]");
    expect(() => hsplit(arr([2, 3]), 2)).toThrow(ShapeMismatchError);
    expect(() => hsplit(arr([2, 3]), 2)).toThrow("which 2 sections do not divide");
    expect(() => hsplit([1, 2] as unknown as DeviceArray, 2)).toThrow(TypeError);
  });
});

describe("insert's plan", () => {
  it("several positions: stable, in the order of the sorted positions (np.insert(arange(5), [1, 3, 1, -1], [10, 11, 12, 13]))", () => {
    // NumPy: [0, 10, 12, 1, 2, 11, 3, 13, 4]; the source 5 + j is value j.
    const p = insertPlan([5], 0, [1, 3, 1, -1], [4]);
    expect(p.source).toEqual([0, 5, 7, 1, 2, 6, 3, 8, 4]);
    expect(p.valuesShape).toEqual([4]);
    expect(p.at).toBeUndefined();
    // An empty list: a copy (the source is the array's own order).
    expect(insertPlan([3], 0, [], []).source).toEqual([0, 1, 2]);
    expect(insertPlan([2, 3], 1, [0, 2], [2, 1])).toEqual({ axis: 1, valuesShape: [2, 2], moveValues: false, source: [3, 0, 1, 4, 2] });
  });

  it("one position: a number turns values' first axis to the axis, a list of one does not (as NumPy)", () => {
    // np.insert(m, 1, [10, 20], axis=1) on [2, 3]: one column; np.insert(m, [1], [10, 20], axis=1): two columns.
    expect(insertPlan([2, 3], 1, 1, [2])).toEqual({ axis: 1, valuesShape: [2, 1], moveValues: true, at: 1 });
    expect(insertPlan([2, 3], 1, [1], [2])).toEqual({ axis: 1, valuesShape: [2, 2], moveValues: false, at: 1 });
    // A scalar: one entry; position -1 is before the last; the extent itself is the end.
    expect(insertPlan([6], 0, -1, []).at).toBe(5);
    expect(insertPlan([6], 0, 6, []).at).toBe(6);
    expect(insertPlan([6], 0, -6, []).at).toBe(0);
  });

  it("positions out of range are IndexErrors; values that do not broadcast, BroadcastErrors", () => {
    expect(() => insertPlan([5], 0, 6, [])).toThrow(IndexError);
    expect(() => insertPlan([5], 0, 6, [])).toThrow("insert: index 6 is out of bounds for axis 0 with size 5");
    expect(() => insertPlan([5], 0, [0, -6], [])).toThrow("index -6 is out of bounds");
    expect(() => insertPlan([5], 0, [1.5], [])).toThrow(TypeError);
    expect(() => insertPlan([5], 0, arr([2]) as never, [])).toThrow(TypeError);
    // np.insert(m.T, -1, [7, 8, 9], axis=0) on [3, 2]: ValueError (could not broadcast (1,3) into (1,2)).
    expect(() => insertPlan([3, 2], 0, -1, [3])).toThrow(BroadcastError);
    expect(() => insertPlan([3, 2], 0, -1, [3])).toThrow("insert: values (seen as shape [1, 3]) do not broadcast to the inserted block [1, 2]");
    expect(() => insertPlan([5], 0, [0, 1], [3])).toThrow(BroadcastError);
    expect(() => insertPlan([5], 0, 1, [1, 1])).toThrow(ShapeMismatchError);
  });

  it("insert checks before a stream is needed", () => {
    const m = arr([2, 3]);
    expect(() => insert(m, 7, 1, { axis: 0 })).toThrow(IndexError);
    expect(() => insert(m, 0, 1, { axis: 2 })).toThrow(AxisError);
    expect(() => insert(m, 0, "x" as unknown as number)).toThrow(TypeError);
    expect(() => insert(arr([3], "int8"), 0, 300)).toThrow(DTypeError);
    expect(() => insert(m, 1, 5)).toThrow("needs a stream");
  });
});

describe("delete's positions", () => {
  it("slices as Python's range(*slice.indices(n))", () => {
    expect(slicePositions({ start: 1, stop: 6, step: 2 }, 7)).toEqual([1, 3, 5]);
    expect(slicePositions({ start: -1, step: -2 }, 7)).toEqual([6, 4, 2, 0]);
    expect(slicePositions({}, 3)).toEqual([0, 1, 2]);
    expect(slicePositions({ start: 10, stop: -10, step: -3 }, 7)).toEqual([6, 3, 0]);
    expect(slicePositions({ start: 5, stop: 2 }, 7)).toEqual([]);
    expect(() => slicePositions({ step: 0 }, 3)).toThrow(ArgumentError);
    expect(() => slicePositions({ start: 0.5 }, 3)).toThrow(TypeError);
  });

  it("numbers, lists (repeats allowed) and slices; positions out of range are IndexErrors", () => {
    // np.delete(arange(7), slice(-1, None, -2)) → [1, 3, 5]
    expect(keptPositions({ start: -1, step: -2 }, 7, 0)).toEqual([1, 3, 5]);
    expect(keptPositions(1, 4, 0)).toEqual([0, 2, 3]);
    // np.delete(k, [1, 1, -3], axis=0) on [3, 4]: row 2 left.
    expect(keptPositions([1, 1, -3], 3, 0)).toEqual([2]);
    expect(keptPositions([], 3, 0)).toEqual([0, 1, 2]);
    expect(() => keptPositions(4, 4, 1)).toThrow(IndexError);
    expect(() => keptPositions(4, 4, 1)).toThrow("delete: index 4 is out of bounds for axis 1 with size 4");
    expect(() => keptPositions([-5], 4, 0)).toThrow("index -5 is out of bounds");
    expect(() => keptPositions("1" as unknown as number, 4, 0)).toThrow(TypeError);
    expect(() => keptPositions({ begin: 1 } as never, 4, 0)).toThrow("a slice is { start?, stop?, step? }, got the key begin");
    expect(() => keptPositions(arr([2]) as never, 4, 0)).toThrow("positions are JavaScript numbers (checked on the host), not a DeviceArray");
  });

  it("deleteItems is also exported as delete; errors come before a stream is needed", () => {
    expect(ca.delete).toBe(deleteItems);
    const m = arr([3, 4]);
    expect(() => deleteItems(m, 3, { axis: 0 })).toThrow(IndexError);
    expect(() => deleteItems(m, 0, { axis: -3 })).toThrow(AxisError);
    expect(() => deleteItems(m, 0, 1 as unknown as undefined)).toThrow(TypeError);
    expect(() => deleteItems(m, 11)).toThrow("needs a stream");
    expect(() => deleteItems(m, 12)).toThrow("index 12 is out of bounds for axis 0 with size 12");
  });
});

describe("append's checks", () => {
  it("shapes and axes before a stream is needed", () => {
    const m = arr([2, 3]);
    expect(() => append(m, arr([3]), { axis: 0 })).toThrow(ShapeMismatchError);
    expect(() => append(m, arr([2, 2]), { axis: 0 })).toThrow("every axis except the joined axis 0 must match");
    expect(() => append(m, 1, { axis: 0 })).toThrow("a scalar value has no axes but the array has 2");
    expect(() => append(m, arr([1, 3]), { axis: 2 })).toThrow(AxisError);
    expect(() => append(m, "x" as unknown as number)).toThrow(TypeError);
    expect(() => append(m, arr([1, 3]), { axis: 0 })).toThrow("needs a stream");
  });
});
