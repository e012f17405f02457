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
import { DELETE_MAX_RUNS, INSERT_MAX_POSITIONS, deletePlan, insertPlan, slicePositions, type DeletePlan, type InsertPlan } from "../../../src/core/array/ops/editing.ts";

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
    // Negative positions count from the end, as Python's slices: np.hsplit(np.arange(6), [-2]) → [0, 1, 2, 3], [4, 5]
    expect(hsplit(arr([6]), [-2]).map((p) => [p.shape, offsetOf(p)])).toEqual([
      [[4], 0],
      [[2], 4],
    ]);
    // np.vsplit(np.zeros((5, 2)), [1, -1]) → shapes (1, 2), (3, 2), (1, 2)
    expect(vsplit(arr([5, 2]), [1, -1]).map((p) => p.shape)).toEqual([
      [1, 2],
      [3, 2],
      [1, 2],
    ]);
    // Clamped and out of order: np.split(np.arange(6), [-9, 3, 2, 8]) → [], [0, 1, 2], [], [2, 3, 4, 5], []
    const parts = ca.split(arr([6]), [-9, 3, 2, 8]);
    expect(parts.map((p) => p.shape)).toEqual([[0], [3], [0], [4], [0]]);
    expect([offsetOf(parts[1]!), offsetOf(parts[3]!)]).toEqual([0, 2]);
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
  /** The source of each entry of the result along the axis (k < extent: the array's entry k; extent + j: value j). */
  const sources = (plan: InsertPlan, n: number): number[] => {
    if (plan.pieces !== undefined) return plan.pieces.flatMap((p) => Array.from({ length: p.to - p.from }, (_, k) => (p.kind === "array" ? 0 : n) + p.from + k));
    const { at, source } = plan.slots!;
    const total = n + at.length;
    return Array.from({ length: total }, (_, q) => (at.includes(q) ? source[at.indexOf(q)]! : q - at.filter((s) => s < q).length));
  };

  it("several positions: stable, in the order of the sorted positions (np.insert(arange(5), [1, 3, 1, -1], [10, 11, 12, 13]))", () => {
    // NumPy: [0, 10, 12, 1, 2, 11, 3, 13, 4]; the source 5 + j is value j.
    const p = insertPlan([5], 0, [1, 3, 1, -1], [4]);
    expect(sources(p, 5)).toEqual([0, 5, 7, 1, 2, 6, 3, 8, 4]);
    expect(p.pieces).toEqual([
      { kind: "array", from: 0, to: 1 },
      { kind: "values", from: 0, to: 1 },
      { kind: "values", from: 2, to: 3 },
      { kind: "array", from: 1, to: 3 },
      { kind: "values", from: 1, to: 2 },
      { kind: "array", from: 3, to: 4 },
      { kind: "values", from: 3, to: 4 },
      { kind: "array", from: 4, to: 5 },
    ]);
    expect(p.valuesShape).toEqual([4]);
    // An empty list: a copy (the source is the array's own order).
    expect(sources(insertPlan([3], 0, [], []), 3)).toEqual([0, 1, 2]);
    expect(insertPlan([0], 0, [], []).pieces).toEqual([{ kind: "array", from: 0, to: 0 }]);
    const q = insertPlan([2, 3], 1, [0, 2], [2, 1]);
    expect([q.axis, q.valuesShape, q.moveValues, sources(q, 3)]).toEqual([1, [2, 2], false, [3, 0, 1, 4, 2]]);
  });

  it("values with more axes drop leading axes of extent 1 for two or more positions, as NumPy's assignment", () => {
    // np.insert(np.arange(4), [1, 2], np.array([[100, 101]])) → [0, 100, 1, 101, 2, 3]
    const p = insertPlan([4], 0, [1, 2], [1, 2]);
    expect([p.valuesShape, sources(p, 4)]).toEqual([[2], [0, 4, 1, 5, 2, 3]]);
    // np.insert(m, [0, 3], np.array([[[7], [8]]]), axis=1) on (2, 3): values seen as (2, 1), broadcast to (2, 2)
    expect(insertPlan([2, 3], 1, [0, 3], [1, 2, 1]).valuesShape).toEqual([2, 2]);
    // One position does not drop them (NumPy refuses np.insert(np.arange(4), [1], np.array([[100, 101]])) too).
    expect(() => insertPlan([4], 0, [1], [1, 2])).toThrow(ShapeMismatchError);
    expect(() => insertPlan([4], 0, [1, 2], [2, 2])).toThrow(ShapeMismatchError);
  });

  it("more positions: where the values land, found on the device (np.insert(arange(20), positions, values))", () => {
    const positions = [19, 0, 7, 7, 20, 3, -1, 12, 5, 0];
    const p = insertPlan([20], 0, positions, [positions.length]);
    expect(p.pieces).toBeUndefined();
    // NumPy 2.4: np.insert(np.arange(20), [19, 0, 7, 7, 20, 3, -1, 12, 5, 0], np.arange(100, 110))
    const numpy = [101, 109, 0, 1, 2, 105, 3, 4, 108, 5, 6, 102, 103, 7, 8, 9, 10, 11, 107, 12, 13, 14, 15, 16, 17, 18, 100, 106, 19, 104];
    expect(sources(p, 20).map((s) => (s < 20 ? s : 100 + s - 20))).toEqual(numpy);
    expect(p.slots!.at).toEqual([...p.slots!.at].sort((x, y) => x - y));
    expect(insertPlan([20], 0, positions.slice(0, INSERT_MAX_POSITIONS), [INSERT_MAX_POSITIONS]).pieces).toBeDefined();
  });

  it("one position: a number turns values' first axis to the axis, a list of one does not (as NumPy)", () => {
    // np.insert(m, 1, [10, 20], axis=1) on [2, 3]: one column; np.insert(m, [1], [10, 20], axis=1): two columns.
    const one = { kind: "values", from: 0, to: 1 };
    expect(insertPlan([2, 3], 1, 1, [2])).toEqual({ axis: 1, valuesShape: [2, 1], moveValues: true, pieces: [{ kind: "array", from: 0, to: 1 }, one, { kind: "array", from: 1, to: 3 }] });
    expect(insertPlan([2, 3], 1, [1], [2])).toEqual({ axis: 1, valuesShape: [2, 2], moveValues: false, pieces: [{ kind: "array", from: 0, to: 1 }, { kind: "values", from: 0, to: 2 }, { kind: "array", from: 1, to: 3 }] });
    // A scalar: one entry; position -1 is before the last; the extent itself is the end.
    expect(sources(insertPlan([6], 0, -1, []), 6)).toEqual([0, 1, 2, 3, 4, 6, 5]);
    expect(sources(insertPlan([6], 0, 6, []), 6)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(insertPlan([6], 0, -6, []).pieces).toEqual([one, { kind: "array", from: 0, to: 6 }]);
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

  /** The positions a plan keeps, as deleteItems computes them (views joined, or p + count(steps ≤ p)). */
  const expand = (plan: DeletePlan): number[] => {
    if (plan.kind === "runs") return plan.runs.flatMap(([from, to]) => Array.from({ length: to - from }, (_, k) => from + k));
    const steps = plan.kind === "steps" ? plan.steps : Array.from({ length: plan.stepRange.count }, (_, j) => plan.stepRange.first + j * plan.stepRange.step);
    return Array.from({ length: plan.kept }, (_, p) => p + steps.filter((s) => s <= p).length);
  };

  it("numbers, lists (repeats allowed) and slices; positions out of range are IndexErrors", () => {
    // np.delete(arange(7), slice(-1, None, -2)) → [1, 3, 5]
    expect(expand(deletePlan({ start: -1, step: -2 }, 7, 0))).toEqual([1, 3, 5]);
    expect(deletePlan(1, 4, 0)).toEqual({ kind: "runs", kept: 3, runs: [[0, 1], [2, 4]] });
    // np.delete(k, [1, 1, -3], axis=0) on [3, 4]: row 2 left.
    expect(deletePlan([1, 1, -3], 3, 0)).toEqual({ kind: "runs", kept: 1, runs: [[2, 3]] });
    expect(deletePlan([], 3, 0)).toEqual({ kind: "runs", kept: 3, runs: [[0, 3]] });
    expect(deletePlan({}, 3, 0)).toEqual({ kind: "runs", kept: 0, runs: [] });
    expect(deletePlan({ start: 2, stop: 5 }, 9, 0)).toEqual({ kind: "runs", kept: 6, runs: [[0, 2], [5, 9]] });
    expect(deletePlan({ start: 5, stop: 2 }, 9, 0)).toEqual({ kind: "runs", kept: 9, runs: [[0, 9]] });
    expect(() => deletePlan(4, 4, 1)).toThrow(IndexError);
    expect(() => deletePlan(4, 4, 1)).toThrow("delete: index 4 is out of bounds for axis 1 with size 4");
    expect(() => deletePlan([-5], 4, 0)).toThrow("index -5 is out of bounds");
    expect(() => deletePlan("1" as unknown as number, 4, 0)).toThrow(TypeError);
    expect(() => deletePlan({ begin: 1 } as never, 4, 0)).toThrow("a slice is { start?, stop?, step? }, got the key begin");
    expect(() => deletePlan(arr([2]) as never, 4, 0)).toThrow("positions are JavaScript numbers (checked on the host), not a DeviceArray");
  });

  it("many runs: positions found on the device from the deleted ones, nothing the axis's size built on the host", () => {
    // np.delete(np.arange(100), slice(3, 90, 4)) → the kept positions NumPy gives
    const slice = deletePlan({ start: 3, stop: 90, step: 4 }, 100, 0);
    expect(slice).toEqual({ kind: "stepRange", kept: 78, stepRange: { first: 3, step: 3, count: 22 } });
    const numpy = [...Array(100).keys()].filter((k) => !(k >= 3 && k < 90 && (k - 3) % 4 === 0));
    expect(expand(slice)).toEqual(numpy);
    // A reversed slice names the same positions: np.delete(np.arange(100), slice(87, 2, -4))
    expect(deletePlan({ start: 87, stop: 2, step: -4 }, 100, 0)).toEqual(slice);
    // Scattered, unsorted, repeated positions: np.delete(np.arange(60), [59, 0, *range(5, 56, 3), 7, 7, -1])
    const list = [59, 0, ...Array.from({ length: 17 }, (_, k) => 5 + 3 * k), 7, 7, -1];
    const plan = deletePlan(list, 60, 0);
    expect(plan.kind).toBe("steps");
    const drop = new Set(list.map((v) => (v < 0 ? v + 60 : v)));
    expect(expand(plan)).toEqual([...Array(60).keys()].filter((k) => !drop.has(k)));
    expect(plan.kept).toBe(60 - drop.size);
    // Up to DELETE_MAX_RUNS runs are joined from views.
    expect(deletePlan(Array.from({ length: DELETE_MAX_RUNS - 1 }, (_, k) => 2 * k + 1), 40, 0).kind).toBe("runs");
    expect(deletePlan(Array.from({ length: DELETE_MAX_RUNS }, (_, k) => 2 * k + 1), 40, 0).kind).toBe("steps");
    // A slice of 10^9 positions is a range, not a list.
    expect(deletePlan({ step: 2 }, 2e9, 0)).toEqual({ kind: "stepRange", kept: 1e9, stepRange: { first: 0, step: 1, count: 1e9 } });
    expect(deletePlan({ start: 1 }, 2e9, 0)).toEqual({ kind: "runs", kept: 1, runs: [[0, 1]] });
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
