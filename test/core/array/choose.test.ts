/**
 * choose without a GPU: every typed error that comes before a stream is needed (the index array's dtype, the
 * choices, broadcasting, out, the mode), as NumPy 2.4 refuses the same calls.
 */
import { describe, expect, it } from "vitest";
import { ArgumentError, BroadcastError, DTypeError, ShapeMismatchError } from "../../../src/index.ts";
import { choose } from "../../../src/array.ts";
import { fakeArray } from "../../support/fake-arrays.ts";

describe("choose's checks", () => {
  const k = fakeArray([4], "int64");
  const c = [fakeArray([4], "int64"), fakeArray([4], "int64")];

  it("the index array is an integer (or bool) array, not uint64", () => {
    // np.choose(np.array([0., 1.]), ...) → TypeError: Cannot cast array data from dtype('float64') to dtype('int64') according to the rule 'safe'
    expect(() => choose(fakeArray([4], "float32"), c)).toThrow(DTypeError);
    expect(() => choose(fakeArray([4], "float32"), c)).toThrow('choose: the index array is an integer array (its entries pick the choices), got float32; convert it with astype("int64")');
    // np.choose(np.array([0, 1], np.uint64), ...) → the same TypeError
    expect(() => choose(fakeArray([4], "uint64"), c)).toThrow("a uint64 index array does not convert safely to int64");
    expect(() => choose([0, 1] as never, c)).toThrow(TypeError);
    // bool and the narrower integers are taken: only the stream is missing.
    expect(() => choose(fakeArray([4], "bool"), c)).toThrow("choose needs a stream");
    expect(() => choose(fakeArray([4], "uint32"), c)).toThrow("choose needs a stream");
  });

  it("the choices: at least one, arrays or scalars that broadcast with the index array", () => {
    // np.choose(np.array([0, 1]), []) → ValueError: 0-length sequence.
    expect(() => choose(k, [])).toThrow(ArgumentError);
    expect(() => choose(k, [])).toThrow("choose: no choices; give at least one array or scalar to choose from");
    expect(() => choose(k, fakeArray([], "int64"))).toThrow("a 0-d choices array holds no list of choices");
    expect(() => choose(k, fakeArray([0, 4], "int64"))).toThrow("no choices");
    expect(() => choose(k, "ab" as never)).toThrow(TypeError);
    expect(() => choose(k, [c[0]!, "x" as never])).toThrow("choose: choice 1 is a DeviceArray or a scalar");
    // np.choose(np.array([[0], [1]]), [np.array([1, 2, 3]), np.array([4, 5])]) → ValueError: shape mismatch
    expect(() => choose(fakeArray([2, 1], "int64"), [fakeArray([3], "int64"), fakeArray([2], "int64")])).toThrow(BroadcastError);
    // np.choose([0, 1], [int8 array, 300]) wraps 300 into int8 (44); cuda-ts refuses it, as its other operations do.
    expect(() => choose(k, [fakeArray([4], "int8"), 300])).toThrow(DTypeError);
    // A choices array: its first axis counts the choices (views of its rows).
    expect(() => choose(fakeArray([2, 3], "int64"), fakeArray([2, 1, 3], "float32"))).toThrow("choose needs a stream");
    expect(() => choose(k, [1, 2.5])).toThrow("choose needs a stream");
  });

  it("out and the mode", () => {
    // np.choose([2, 3, 1, 0], c, out=np.zeros(3)) → TypeError: choose: invalid shape for output array.
    expect(() => choose(k, c, { out: fakeArray([3], "int64") })).toThrow(ShapeMismatchError);
    expect(() => choose(k, c, { out: fakeArray([1, 4], "int64") })).toThrow("choose: out has shape [1, 4] but the result has shape [4]");
    expect(() => choose(k, c, { out: [0] as never })).toThrow(TypeError);
    expect(() => choose(k, c, { out: fakeArray([1], "int64").broadcastTo([4]) })).toThrow("repeats its elements");
    expect(() => choose(k, c, { mode: "bad" as "wrap" })).toThrow(TypeError);
    expect(() => choose(k, c, 3 as never)).toThrow(TypeError);
    // out of any dtype is converted into (NumPy casts into it too).
    expect(() => choose(k, c, { out: fakeArray([4], "float32"), mode: "clip" })).toThrow("choose needs a stream");
  });
});
