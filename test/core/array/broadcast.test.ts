/**
 * Broadcasting and axes without a GPU: the shape operands broadcast to, the strides a broadcast operand is read
 * with, merging the axes several layouts walk as one, a reduction's axes and the shape it leaves, and the typed
 * errors (BroadcastError naming both shapes and the axis, AxisError).
 */
import { describe, expect, it } from "vitest";
import { AxisError, BroadcastError, ShapeMismatchError } from "../../../src/index.ts";
import { broadcastShapes, broadcastStrides, coalesceAxes, normalizeAxes, reducedShape } from "../../../src/core/array/broadcast.ts";

const ops = (...shapes: number[][]) => shapes.map((shape, k) => ({ name: `a${k}`, shape }));

describe("broadcast shapes", () => {
  it("follow NumPy's rules", () => {
    expect(broadcastShapes(ops([3, 1], [1, 4]), "k")).toEqual([3, 4]);
    expect(broadcastShapes(ops([3, 4], [4]), "k")).toEqual([3, 4]);
    expect(broadcastShapes(ops([], [2, 3]), "k")).toEqual([2, 3]);
    expect(broadcastShapes(ops([5, 1, 3], [4, 1], [1]), "k")).toEqual([5, 4, 3]);
    expect(broadcastShapes(ops([2, 0], [1, 1]), "k")).toEqual([2, 0]);
    expect(broadcastShapes(ops([0], [1]), "k")).toEqual([0]);
    expect(broadcastShapes(ops([]), "k")).toEqual([]);
    expect(broadcastShapes([], "k")).toEqual([]);
  });

  it("refuse shapes that do not broadcast, naming both operands, their shapes and the axes", () => {
    const bad = () => broadcastShapes([{ name: "x", shape: [3, 4] }, { name: "y", shape: [2, 4] }], "add");
    expect(bad).toThrow(BroadcastError);
    expect(bad).toThrow(ShapeMismatchError);
    expect(bad).toThrow("add: y has shape [2, 4] but x has shape [3, 4]: they do not broadcast (axis 0 of y has extent 2, axis 0 of x has 3");
    // Aligned at the last axis: axis 0 of a shorter shape is a later axis of the longer one.
    expect(() => broadcastShapes([{ name: "x", shape: [2, 3, 4] }, { name: "b", shape: [5] }], "k")).toThrow(/axis 0 of b has extent 5, axis 2 of x has 4/);
    expect(() => broadcastShapes(ops([0], [2]), "k")).toThrow(BroadcastError);
  });

  it("give a broadcast operand stride 0 on the axes it lacks or has extent 1", () => {
    expect(broadcastStrides([3, 1], [1, 1], [3, 4])).toEqual([1, 0]);
    expect(broadcastStrides([1, 4], [4, 1], [3, 4])).toEqual([0, 1]);
    expect(broadcastStrides([4], [1], [2, 3, 4])).toEqual([0, 0, 1]);
    expect(broadcastStrides([], [], [2, 2])).toEqual([0, 0]);
    // A transposed view keeps its strides; a stepped slice too.
    expect(broadcastStrides([3, 4], [1, 3], [3, 4])).toEqual([1, 3]);
    expect(broadcastStrides([4], [-2], [2, 4])).toEqual([0, -2]);
    expect(() => broadcastStrides([3], [1], [4])).toThrow(BroadcastError);
    expect(() => broadcastStrides([1, 3], [3, 1], [3])).toThrow(/more axes/);
  });

  it("merge the axes every layout walks as one, and drop extents of 1", () => {
    // Contiguous [2, 3, 4] with a contiguous partner: one axis.
    expect(coalesceAxes([2, 3, 4], [[12, 4, 1], [12, 4, 1]])).toEqual({ shape: [24], strides: [[1], [1]] });
    // A row broadcast along the first axis cannot merge with its rows.
    expect(coalesceAxes([3, 4], [[4, 1], [0, 1]])).toEqual({ shape: [3, 4], strides: [[4, 1], [0, 1]] });
    // Broadcast along both leading axes: they merge (0 = 0 × 3).
    expect(coalesceAxes([2, 3, 4], [[0, 0, 1], [12, 4, 1]])).toEqual({ shape: [6, 4], strides: [[0, 1], [4, 1]] });
    expect(coalesceAxes([1, 5, 1], [[7, 2, 9]])).toEqual({ shape: [5], strides: [[2]] });
    expect(coalesceAxes([1, 1], [[1, 1]])).toEqual({ shape: [], strides: [[]] });
    // A transpose does not merge.
    expect(coalesceAxes([3, 4], [[1, 3]])).toEqual({ shape: [3, 4], strides: [[1, 3]] });
  });
});

describe("axes", () => {
  it("normalise: negative from the end, sorted, undefined for all", () => {
    expect(normalizeAxes(undefined, 3, "sum")).toEqual([0, 1, 2]);
    expect(normalizeAxes(-1, 3, "sum")).toEqual([2]);
    expect(normalizeAxes([2, 0], 3, "sum")).toEqual([0, 2]);
    expect(normalizeAxes([-1, -3], 3, "sum")).toEqual([0, 2]);
    expect(normalizeAxes([], 2, "sum")).toEqual([]);
    expect(normalizeAxes(undefined, 0, "sum")).toEqual([]);
  });

  it("refuse axes out of range, named twice or not integers", () => {
    expect(() => normalizeAxes(2, 2, "sum")).toThrow(AxisError);
    expect(() => normalizeAxes(2, 2, "sum")).toThrow("sum: axis 2 is out of range for an array of 2 axes (from -2 to 1)");
    expect(() => normalizeAxes(-3, 2, "sum")).toThrow(AxisError);
    expect(() => normalizeAxes(0, 0, "max")).toThrow(/axis 0 is out of range for an array of 0 axes/);
    expect(() => normalizeAxes([0, -2], 2, "sum")).toThrow(/axis 0 is named twice/);
    expect(() => normalizeAxes(0.5, 2, "sum")).toThrow(/an axis is an integer/);
    expect(() => normalizeAxes("0" as never, 2, "sum")).toThrow(/axis is a number or a list/);
  });

  it("leave the shape without the reduced axes, or with extent 1 there", () => {
    expect(reducedShape([3, 4], [0], false)).toEqual([4]);
    expect(reducedShape([3, 4], [1], true)).toEqual([3, 1]);
    expect(reducedShape([3, 4], [0, 1], false)).toEqual([]);
    expect(reducedShape([3, 4], [0, 1], true)).toEqual([1, 1]);
    expect(reducedShape([2, 3, 4], [1], false)).toEqual([2, 4]);
    expect(reducedShape([2, 3, 4], [], true)).toEqual([2, 3, 4]);
  });
});
