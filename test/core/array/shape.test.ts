/**
 * Shape operations without a GPU: the views (reshape, transpose, swapaxes, moveaxis, squeeze, expandDims, ravel,
 * broadcastTo, atleast1d/2d/3d, flip, fliplr, flipud, rot90, split) over a stand-in buffer, their layouts and offsets, what a concatenation
 * plans (shape, promoted dtype, offsets), the shifts a roll makes along each axis, the conversion bodies, and every
 * typed error.
 */
import { describe, expect, it } from "vitest";
import { ArgumentError, ArrayLayoutError, AxisError, BroadcastError, Buffer, DeviceArray, ShapeMismatchError, dtypes, type MemoryResource } from "../../../src/index.ts";
import {
  arraySplit,
  atleast1d,
  atleast2d,
  atleast3d,
  broadcastArrays,
  broadcastTo,
  concatenate,
  diagonal,
  expandDims,
  columnStack,
  dstack,
  flip,
  fliplr,
  flipud,
  moveaxis,
  rollaxis,
  ravel,
  repeat,
  reshape,
  roll,
  rot90,
  split,
  squeeze,
  swapaxes,
  tile,
  transpose,
  matrixTranspose,
  unstack,
} from "../../../src/array.ts";
import { concatenatePlan, rollShifts } from "../../../src/core/array/ops/shape.ts";

const BASE = 0x7f00_0000_0000n;
const hostResource: MemoryResource = {
  allocate: () => {
    throw new Error("not used");
  },
  deallocate: () => undefined,
  isDeviceAccessible: true,
  isHostAccessible: true,
  deviceId: -1,
};

function arr(shape: number[], dtype: "float32" | "int32" | "int8" | "float64" | "uint8" | "float16" = "float32"): DeviceArray {
  return DeviceArray.fromBuffer(Buffer.fromHandle(BASE, 1 << 16, { memoryResource: hostResource }), { dtype, shape });
}

describe("views", () => {
  it("reshape is a view when the strides allow, and refuses a copy without a stream", () => {
    const a = arr([2, 3, 4]);
    const r = reshape(a, [6, -1]);
    expect(r.shape).toEqual([6, 4]);
    expect(r.strides).toEqual([4, 1]);
    expect(r.base).toBe(a);
    expect(reshape(a, 24).shape).toEqual([24]);
    const t = a.transpose(); // [4, 3, 2], strides [1, 4, 12]
    expect(() => reshape(t, [24])).toThrow("needs a stream");
    expect(() => reshape(a, [5, 5])).toThrow(ShapeMismatchError);
    expect(() => reshape(a, [5, 5])).toThrow("[2, 3, 4] has 24 elements; [5, 5] has 25");
  });

  it("transpose, swapaxes and moveaxis permute strides (negative axes count from the end)", () => {
    const a = arr([2, 3, 4]);
    expect(transpose(a).shape).toEqual([4, 3, 2]);
    expect(transpose(a, [-1, 0, 1]).strides).toEqual([1, 12, 4]);
    expect(() => transpose(a, [0, 0, 1])).toThrow(AxisError);
    expect(() => transpose(a, [0, 1])).toThrow(AxisError);
    expect(() => transpose(a, [0, 1, 3])).toThrow("axis 3 is out of range for an array of 3 axes (from -3 to 2)");
    const s = swapaxes(a, 0, -1);
    expect(s.shape).toEqual([4, 3, 2]);
    expect(s.strides).toEqual([1, 4, 12]);
    expect(a.swapaxes(1, 2).shape).toEqual([2, 4, 3]);
    expect(moveaxis(a, 0, -1).shape).toEqual([3, 4, 2]);
    expect(moveaxis(a, -1, 0).strides).toEqual([1, 12, 4]);
    expect(moveaxis(a, [0, 1], [-1, -2]).shape).toEqual([4, 3, 2]);
    expect(() => moveaxis(a, [0, 1], [0])).toThrow(AxisError);
    expect(() => moveaxis(a, [0, 0], [1, 2])).toThrow("named twice");
    // rollaxis: NumPy's shapes (np.rollaxis(np.zeros((2, 3, 4, 5)), axis, start)).
    const b = arr([2, 3, 4, 5]);
    const rolled: [number, number, number[]][] = [[3, 1, [2, 5, 3, 4]], [2, 0, [4, 2, 3, 5]], [1, 4, [2, 4, 5, 3]], [0, -1, [3, 4, 2, 5]], [-1, -4, [5, 2, 3, 4]], [2, 2, [2, 3, 4, 5]], [2, 3, [2, 3, 4, 5]]];
    for (const [axis, start, shape] of rolled) expect(rollaxis(b, axis, start).shape, `${axis}, ${start}`).toEqual(shape);
    expect(rollaxis(b, 3).strides).toEqual([1, 60, 20, 5]);
    expect(() => rollaxis(b, 0, 5)).toThrow(/start must be from -4 to 4/);
    expect(() => rollaxis(b, 0, -5)).toThrow(AxisError);
    expect(() => rollaxis(b, 4, 0)).toThrow(AxisError);
  });

  it("matrixTranspose swaps the last two axes; unstack gives views along an axis", () => {
    const a = arr([2, 3, 4]);
    const t = matrixTranspose(a);
    expect(t.shape).toEqual([2, 4, 3]);
    expect(t.strides).toEqual([12, 1, 4]);
    expect(() => matrixTranspose(arr([3]))).toThrow(ShapeMismatchError);
    expect(() => matrixTranspose(arr([3]))).toThrow("needs an array of at least 2 axes");
    const rows = unstack(a);
    expect(rows.map((r) => r.shape)).toEqual([[3, 4], [3, 4]]);
    expect(rows.map((r) => r.byteOffset)).toEqual([0, 48]);
    const cols = unstack(a, { axis: -1 });
    expect(cols).toHaveLength(4);
    expect(cols[3]!.shape).toEqual([2, 3]);
    expect(cols[3]!.strides).toEqual([12, 4]);
    expect(cols[3]!.byteOffset).toBe(12);
    const back = unstack(flip(arr([3])));
    expect(back.map((x) => x.shape)).toEqual([[], [], []]);
    expect(back.map((x) => x.byteOffset)).toEqual([8, 4, 0]);
    expect(unstack(arr([0, 2]))).toEqual([]);
    const empty = DeviceArray.fromBuffer(Buffer.fromHandle(BASE, 0, { memoryResource: hostResource }), { dtype: "float32", shape: [3, 0] });
    expect(unstack(empty).map((x) => [x.shape, x.byteOffset])).toEqual([[[0], 0], [[0], 0], [[0], 0]]);
    expect(() => unstack(arr([2]), { axis: 1 })).toThrow(AxisError);
    expect(() => unstack(DeviceArray.fromBuffer(Buffer.fromHandle(BASE, 4, { memoryResource: hostResource }), { dtype: "float32", shape: [] }))).toThrow("a 0-d array has no axis");
  });

  it("squeeze and expandDims", () => {
    const a = arr([1, 3, 1, 4]);
    expect(squeeze(a).shape).toEqual([3, 4]);
    expect(a.squeeze(0).shape).toEqual([3, 1, 4]);
    expect(squeeze(a, [0, -2]).shape).toEqual([3, 4]);
    expect(() => squeeze(a, 1)).toThrow(AxisError);
    expect(() => squeeze(a, 1)).toThrow("axis 1 of shape [1, 3, 1, 4] has extent 3, not 1");
    const b = arr([3, 4]);
    expect(expandDims(b, 0).shape).toEqual([1, 3, 4]);
    expect(expandDims(b, -1).shape).toEqual([3, 4, 1]);
    expect(b.expandDims([0, 2]).shape).toEqual([1, 3, 1, 4]);
    // NumPy's expand_dims strides (a reshape's): np.expand_dims(np.zeros((3, 4)), 1).strides is (32, 32, 8).
    expect(expandDims(b, 1).strides).toEqual([4, 4, 1]);
    expect(expandDims(b.slice([null, null, -1], [null, null, 2]), [0, 3]).strides).toEqual([-12, -4, 2, 2]);
    expect(() => expandDims(b, 3)).toThrow(AxisError);
  });

  it("ravel is a view of a contiguous array", () => {
    const a = arr([3, 4]);
    const r = ravel(a);
    expect(r.shape).toEqual([12]);
    expect(r.base).toBe(a);
    expect(a.ravel().shape).toEqual([12]);
    expect(() => ravel(a.T)).toThrow("needs a stream");
  });

  it("broadcastTo gives stride 0 on the broadcast axes; broadcastArrays to the common shape", () => {
    const row = arr([1, 3]);
    const b = broadcastTo(row, [4, 3]);
    expect(b.shape).toEqual([4, 3]);
    expect(b.strides).toEqual([0, 1]);
    expect(broadcastTo(arr([3]), [2, 4, 3]).strides).toEqual([0, 0, 1]);
    expect(row.broadcastTo([5, 3]).shape).toEqual([5, 3]);
    expect(() => broadcastTo(arr([2, 3]), [4, 3])).toThrow(BroadcastError);
    expect(() => broadcastTo(arr([2, 3]), [4, 3])).toThrow("[2, 3] to [4, 3]");
    const [x, y] = broadcastArrays([arr([3, 1]), arr([4])]);
    expect(x!.shape).toEqual([3, 4]);
    expect(x!.strides).toEqual([1, 0]);
    expect(y!.strides).toEqual([0, 1]);
    expect(() => broadcastArrays([arr([3]), arr([4])])).toThrow(BroadcastError);
  });

  it("a view that repeats its elements is read-only: writing it would race (NumPy's broadcast_to is read-only too)", () => {
    const row = arr([1, 3]);
    const b = broadcastTo(row, [4, 3]);
    expect(b.readOnly).toBe(true);
    expect(row.readOnly).toBe(false);
    // An axis of one element with stride 0 repeats nothing.
    expect(broadcastTo(arr([3]), [1, 3]).readOnly).toBe(false);
    // A view of it that no longer repeats is writable again.
    expect(b.slice(0).readOnly).toBe(false);
    expect(() => b.fill(1)).toThrow(ArgumentError);
    expect(() => b.fill(1)).toThrow(/DeviceArray.fill: the float32 array of shape \[4, 3\] repeats its elements \(stride 0 along axis 0: a broadcast view\)/);
    expect(() => b.copyFrom(arr([4, 3]))).toThrow(/repeats its elements/);
    const [, y] = broadcastArrays([arr([3, 1]), arr([4])]);
    expect(y!.readOnly).toBe(true);
  });

  it("atleast1d, atleast2d, atleast3d", () => {
    const s = arr([]);
    expect(atleast1d(s).shape).toEqual([1]);
    expect(atleast2d(s).shape).toEqual([1, 1]);
    expect(atleast3d(s).shape).toEqual([1, 1, 1]);
    const v = arr([5]);
    expect(atleast1d(v)).toBe(v);
    expect(atleast2d(v).shape).toEqual([1, 5]);
    expect(atleast3d(v).shape).toEqual([1, 5, 1]);
    expect(atleast3d(arr([2, 5])).shape).toEqual([2, 5, 1]);
  });

  it("flip makes negative strides starting at the last element", () => {
    const a = arr([3, 4]);
    const f = flip(a);
    expect(f.strides).toEqual([-4, -1]);
    expect(f.byteOffset).toBe(11 * 4);
    const g = flip(a, { axis: 1 });
    expect(g.strides).toEqual([4, -1]);
    expect(g.byteOffset).toBe(3 * 4);
    expect(() => flip(a, { axis: 2 })).toThrow(AxisError);
  });

  it("fliplr and flipud reverse axis 1 and axis 0; fewer axes are an ArgumentError", () => {
    const a = arr([3, 4]);
    const lr = fliplr(a);
    expect([lr.shape, lr.strides, lr.byteOffset, lr.base]).toEqual([[3, 4], [4, -1], 3 * 4, a]);
    const ud = flipud(a);
    expect([ud.strides, ud.byteOffset]).toEqual([[-4, 1], 8 * 4]);
    const v = flipud(arr([5]));
    expect([v.strides, v.byteOffset]).toEqual([[-1], 4 * 4]);
    const c = fliplr(arr([2, 3, 4])); // a 3-d array: the second axis only
    expect([c.strides, c.byteOffset]).toEqual([[12, -4, 1], 8 * 4]);
    expect(() => fliplr(arr([5]))).toThrow(ArgumentError);
    expect(() => fliplr(arr([5]))).toThrow("at least 2 axes");
    expect(() => flipud(arr([]))).toThrow("got a 0-d array");
    expect(() => fliplr(5 as unknown as DeviceArray)).toThrow(TypeError);
  });

  it("rot90 is NumPy's view: shapes, strides and first elements (values from NumPy's)", () => {
    const a = arr([2, 3]); // float32: offsets in elements times 4
    const layout = (v: DeviceArray): [number[], number[], number] => [[...v.shape], [...v.strides], v.byteOffset / 4];
    expect(layout(rot90(a))).toEqual([[3, 2], [-1, 3], 2]);
    expect(layout(rot90(a, 2))).toEqual([[2, 3], [-3, -1], 5]);
    expect(layout(rot90(a, 3))).toEqual([[3, 2], [1, -3], 3]);
    expect(layout(rot90(a, -1))).toEqual([[3, 2], [1, -3], 3]);
    expect(layout(rot90(a, 5))).toEqual([[3, 2], [-1, 3], 2]);
    const same = rot90(a, 4);
    expect([same !== a, same.base, layout(same)]).toEqual([true, a, [[2, 3], [3, 1], 0]]);
    expect(layout(rot90(a, 1, [1, 0]))).toEqual([[3, 2], [1, -3], 3]); // the other way round
    const b = arr([2, 3, 4]);
    expect(layout(rot90(b, 1, [1, 2]))).toEqual([[2, 4, 3], [12, -1, 4], 3]);
    expect(layout(rot90(b, 3, [2, 0]))).toEqual([[4, 3, 2], [-1, 4, 12], 3]);
    expect(layout(rot90(b, 2, [-1, 0]))).toEqual([[2, 3, 4], [-12, 4, -1], 15]);
    expect(rot90(arr([0, 3])).shape).toEqual([3, 0]);
  });

  it("rot90 refuses equal axes (ArgumentError), axes out of range (AxisError), a fractional k", () => {
    const a = arr([2, 3]);
    expect(() => rot90(a, 1, [0, 0])).toThrow(ArgumentError);
    expect(() => rot90(a, 1, [1, -1])).toThrow("name axis 1 twice");
    expect(() => rot90(a, 1, [0, 2])).toThrow(AxisError);
    expect(() => rot90(arr([4]))).toThrow(AxisError);
    expect(() => rot90(a, 1, [0, 1, 2] as unknown as [number, number])).toThrow("list of two axes");
    expect(() => rot90(a, 1.5)).toThrow(ArgumentError);
    expect(() => rot90(a, 1.5)).toThrow("k (the number of quarter turns) is an integer");
  });

  it("split and arraySplit make views", () => {
    const a = arr([6, 4]);
    const parts = split(a, 3);
    expect(parts.map((p) => p.shape)).toEqual([
      [2, 4],
      [2, 4],
      [2, 4],
    ]);
    expect(parts.map((p) => p.byteOffset)).toEqual([0, 32, 64]);
    const cols = split(a, [1, 3], { axis: 1 });
    expect(cols.map((p) => p.shape)).toEqual([
      [6, 1],
      [6, 2],
      [6, 1],
    ]);
    expect(() => split(a, 4)).toThrow(ShapeMismatchError);
    expect(() => split(a, 4)).toThrow("arraySplit");
    expect(arraySplit(a, 4).map((p) => p.shape[0])).toEqual([2, 2, 1, 1]);
    expect(split(a, [2, 10]).map((p) => p.shape[0])).toEqual([2, 4, 0]);
    expect(() => split(a, 2, { axis: 2 })).toThrow(AxisError);
  });
});

describe("joins", () => {
  it("plan the result's shape, promoted dtype and each input's offset", () => {
    const p = concatenatePlan([arr([2, 3]), arr([4, 3], "int32"), arr([1, 3], "int8")], 0, undefined);
    expect(p.shape).toEqual([7, 3]);
    expect(p.offsets).toEqual([0, 2, 6]);
    expect(p.dtype).toBe(dtypes.float64); // float32 with int32: float64
    expect(concatenatePlan([arr([2, 3], "int8"), arr([2, 5], "uint8")], -1, undefined).dtype).toBe(dtypes.int16);
    expect(concatenatePlan([arr([2, 3], "float16"), arr([2, 5], "int8")], 1, undefined).dtype).toBe(dtypes.float16);
  });

  it("refuse mismatched shapes (naming both), bad axes and empty lists before anything runs", () => {
    expect(() => concatenate([arr([2, 3]), arr([2, 4])])).toThrow(ShapeMismatchError);
    expect(() => concatenate([arr([2, 3]), arr([2, 4])])).toThrow("array 0 has shape [2, 3] but array 1 has shape [2, 4]");
    expect(() => concatenate([arr([2, 3]), arr([2])], { axis: 1 })).toThrow("array 1 has shape [2]");
    expect(() => concatenate([arr([2, 3])], { axis: 2 })).toThrow(AxisError);
    expect(() => concatenate([])).toThrow(ShapeMismatchError);
    expect(() => concatenate([arr([]), arr([])])).toThrow("0-d arrays");
    // Checks pass: the stream is what is missing (arrays over a caller's buffer have none).
    expect(() => concatenate([arr([2, 3]), arr([4, 3])])).toThrow("needs a stream");
  });

  it("columnStack makes 1-d arrays columns and dstack joins along a third axis, checked before anything runs", () => {
    // Checks pass: [2] becomes a [2, 1] column beside [2, 3]; [2] and [2, 3] become [1, 2, 1] and [2, 3, 1].
    expect(() => columnStack([arr([2]), arr([2, 3])])).toThrow("needs a stream");
    expect(() => columnStack([arr([]), arr([])])).toThrow("needs a stream"); // 0-d: [1, 1] each
    expect(() => dstack([arr([2, 3]), arr([2, 3, 2])])).toThrow("needs a stream");
    expect(() => columnStack([arr([2]), arr([3])])).toThrow("array 0 has shape [2, 1] but array 1 has shape [3, 1]");
    expect(() => dstack([arr([2]), arr([3])])).toThrow("array 0 has shape [1, 2, 1] but array 1 has shape [1, 3, 1]");
    expect(() => dstack([arr([2, 3]), arr([3, 3])])).toThrow(ShapeMismatchError);
    expect(() => columnStack([])).toThrow(ShapeMismatchError);
    expect(() => dstack([])).toThrow("give a non-empty list of arrays");
    expect(() => dstack([arr([2]), 3 as unknown as DeviceArray])).toThrow("dstack: array 1 takes a DeviceArray");
    expect(() => columnStack([arr([2, 3])], { out: 1 as unknown as DeviceArray })).toThrow(TypeError);
  });
});

describe("repetitions", () => {
  it("refuse bad counts and axes before the stream", () => {
    const a = arr([2, 3]);
    expect(() => repeat(a, -1)).toThrow(ShapeMismatchError);
    expect(() => repeat(a, [1, 2] as unknown as number)).toThrow("one count for every element");
    expect(() => repeat(a, 2, { axis: 2 })).toThrow(AxisError);
    expect(() => tile(a, [2, -1])).toThrow(ShapeMismatchError);
    expect(() => tile(a, 2)).toThrow("needs a stream");
  });
});

describe("roll", () => {
  it("pairs shifts with axes (a single one broadcast, repeated axes adding up), modulo each extent", () => {
    const shifts = (shape: number[], shift: number | number[], axis?: number | number[]): [number, number][] => [...rollShifts(shape, shift, axis)];
    // np.roll(a, shift, axis) of a of shape `shape` moves each axis by these amounts.
    expect(shifts([5], -1)).toEqual([[0, 4]]);
    expect(shifts([5], [2, 4])).toEqual([[0, 1]]); // flattened: the shifts add up
    expect(shifts([3, 4], [1, -1], [0, 1])).toEqual([[0, 1], [1, 3]]);
    expect(shifts([3, 4], 2, [0, -1])).toEqual([[0, 2], [1, 2]]);
    expect(shifts([3, 4], [1, 2], 1)).toEqual([[1, 3]]);
    expect(shifts([3, 4], [1, 5], [0, 0])).toEqual([[0, 0]]);
    expect(shifts([3, 0], 7, 1)).toEqual([[1, 0]]);
    expect(shifts([3, 4], [], 0)).toEqual([]);
  });

  it("refuses bad shifts and axes before the stream", () => {
    const a = arr([3, 4]);
    expect(() => roll({} as DeviceArray, 1)).toThrow(TypeError);
    expect(() => roll(a, 1.5)).toThrow(/shift is an integer or a list of integers, got 1.5/);
    expect(() => roll(a, [1, NaN], { axis: [0, 1] })).toThrow(ArgumentError);
    expect(() => roll(a, "1" as unknown as number)).toThrow(ArgumentError);
    expect(() => roll(a, 1, { axis: 2 })).toThrow(AxisError);
    expect(() => roll(a, 1, { axis: "0" as unknown as number })).toThrow(AxisError);
    expect(() => roll(a, [1, 2], { axis: [0, 1, 0] })).toThrow(/2 shifts for 3 axes/);
    expect(() => roll(arr([]), 1, { axis: 0 })).toThrow(AxisError);
    expect(() => roll(a, 1, 5 as unknown as undefined)).toThrow(/takes options/);
    // The checks pass; the array has no stream to queue on.
    expect(() => roll(a, [1, -1], { axis: [0, 1] })).toThrow(/needs a stream/);
    expect(() => roll(arr([]), 3)).toThrow(/needs a stream/);
  });
});

describe("layout errors", () => {
  it("views stay inside their buffer", () => {
    // A broadcast view of a view at the end of its buffer stays inside (stride 0 reaches nothing new).
    const small = DeviceArray.fromBuffer(Buffer.fromHandle(BASE, 16, { memoryResource: hostResource }), { dtype: "float32", shape: [4] });
    expect(broadcastTo(small, [1000, 4]).shape).toEqual([1000, 4]);
    expect(() => DeviceArray.fromBuffer(Buffer.fromHandle(BASE, 16, { memoryResource: hostResource }), { dtype: "float32", shape: [5] })).toThrow(ArrayLayoutError);
  });
});

describe("diagonal", () => {
  it("is a view of the offset-th diagonal, stepping along both axes, the diagonal's axis last", () => {
    const a = arr([3, 4]); // strides [4, 1]
    const d = diagonal(a);
    expect([d.shape, d.strides, d.byteOffset, d.base]).toEqual([[3], [5], 0, a]);
    const up = diagonal(a, { offset: 1 });
    expect([up.shape, up.strides, up.byteOffset]).toEqual([[3], [5], 4]);
    const down = a.diagonal({ offset: -2 });
    expect([down.shape, down.strides, down.byteOffset]).toEqual([[1], [5], 32]);
    expect(diagonal(a, { offset: 4 }).shape).toEqual([0]);
    expect(diagonal(a, { offset: -3 }).shape).toEqual([0]);
    // A stack: each matrix's diagonal (axes 1 and 2), and the diagonals across axes 0 and 2.
    const s = arr([2, 3, 3]); // strides [9, 3, 1]
    const ds = diagonal(s, { axis1: 1, axis2: 2 });
    expect([ds.shape, ds.strides]).toEqual([[2, 3], [9, 4]]);
    const dx = diagonal(s, { axis1: -1, axis2: 0, offset: 1 });
    expect([dx.shape, dx.strides, dx.byteOffset]).toEqual([[3, 1], [3, 10], 9 * 4]);
    // A transposed view's diagonal is its base's.
    expect(diagonal(a.T).strides).toEqual([5]);
  });

  it("refuses fewer than 2 axes, one axis named twice and a fractional offset", () => {
    const a = arr([3, 4]);
    expect(() => diagonal(arr([5]))).toThrow(ShapeMismatchError);
    expect(() => diagonal(a, { axis1: 1, axis2: -1 })).toThrow(AxisError);
    expect(() => diagonal(a, { axis1: 2 })).toThrow(AxisError);
    expect(() => diagonal(a, { offset: 0.5 })).toThrow(/offset is an integer/);
  });
});

