/**
 * indices and ix (NumPy's ix_) without a GPU: the views ix makes of integer sequences (no stream, nothing queued),
 * and every typed error that comes before a stream is needed.
 */
import { describe, expect, it } from "vitest";
import { DTypeError, ShapeMismatchError } from "../../../src/index.ts";
import { indices, ix } from "../../../src/array.ts";
import { fakeArray } from "../../support/fake-arrays.ts";

describe("indices", () => {
  it("checks its arguments before a stream is needed", () => {
    // np.indices(3) → TypeError: 'int' object is not iterable
    expect(() => indices(3 as unknown as number[], {} as never)).toThrow(TypeError);
    expect(() => indices(3 as unknown as number[], {} as never)).toThrow("indices: dimensions is a list of extents");
    // np.indices((2, -1)) → ValueError: negative dimensions are not allowed
    expect(() => indices([2, -1], {} as never)).toThrow(ShapeMismatchError);
    // np.indices((2, 3), dtype=bool) → TypeError: arange() is only supported for booleans when the result has at most length 2.
    expect(() => indices([2, 3], { dtype: "bool" } as never)).toThrow(DTypeError);
    expect(() => indices([2, 3], { dtype: "bool" } as never)).toThrow("indices: a bool grid counts only to 1 (False, True), but axis 1 has extent 3");
    expect(() => indices([2], { dtype: "int" as "int64" } as never)).toThrow(DTypeError);
    expect(() => indices([2], { sparse: 1 as unknown as boolean } as never)).toThrow("indices: sparse is a boolean");
    expect(() => indices([2], null as never)).toThrow(TypeError);
    // Everything checked: only the stream is missing (np.indices((1, 2), dtype=bool) is fine).
    expect(() => indices([1, 2], { dtype: "bool" } as never)).toThrow("indices needs a stream");
    expect(() => indices([], {} as never)).toThrow("indices needs a stream");
  });
});

describe("ix", () => {
  it("views each integer sequence along its own axis, without a stream", () => {
    const rows = fakeArray([2], "int32");
    const cols = fakeArray([5], "int64");
    // np.ix_(int32 [1, 3], [2, 5]) → int32 (2, 1) and int64 (1, 2)
    const [r, c] = ix(rows, cols);
    expect([r!.dtype.name, r!.shape, r!.strides, r!.base]).toEqual(["int32", [2, 1], [1, 0], rows]);
    expect([c!.dtype.name, c!.shape, c!.strides, c!.base]).toEqual(["int64", [1, 5], [0, 1], cols]);
    // A strided view keeps its stride; three sequences give three axes each.
    const every2 = fakeArray([6], "int16").slice([null, null, 2]);
    const [a, b, d] = ix(fakeArray([4], "uint8"), every2, fakeArray([0], "int64"));
    expect([a!.shape, b!.shape, b!.strides, d!.shape]).toEqual([[4, 1, 1], [1, 3, 1], [0, 2, 0], [1, 1, 0]]);
    // Any other dtype is taken as NumPy's ix_ takes it (an open mesh of coordinates): np.ix_(float32 [0.5, 1.5]) → (2,)
    const [f] = ix(fakeArray([2], "float32"));
    expect([f!.dtype.name, f!.shape]).toEqual(["float32", [2]]);
    expect(ix()).toEqual([]);
    // A trailing options object is not a sequence.
    expect(ix(rows, {}).map((x) => x.shape)).toEqual([[2]]);
  });

  it("checks every sequence before a stream is needed", () => {
    // np.ix_([[0, 1]]) → ValueError: Cross index must be 1 dimensional
    expect(() => ix(fakeArray([1, 2], "int64"))).toThrow(ShapeMismatchError);
    expect(() => ix(fakeArray([2], "int64"), fakeArray([1, 2], "int64"))).toThrow("ix: sequence 1 has shape [1, 2]; each sequence is 1-d");
    expect(() => ix(fakeArray([], "int64"))).toThrow(ShapeMismatchError);
    expect(() => ix([0, 1] as unknown as never)).toThrow(TypeError);
    expect(() => ix(fakeArray([2], "int64"), 3 as unknown as never)).toThrow("ix: sequence 1 is a 1-d DeviceArray");
    // A mask needs nonzero, which needs a stream.
    expect(() => ix(fakeArray([3], "bool"), fakeArray([2], "int64"))).toThrow("ix needs a stream");
  });
});
