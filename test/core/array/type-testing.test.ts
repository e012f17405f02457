/**
 * Array type testing and broadcastShapes without a GPU: iscomplexobj and isrealobj read only the dtype,
 * broadcastShapes only shapes (NumPy 2.4's `broadcast_shapes`), and iscomplex and isreal check their argument
 * before they need a stream.
 */
import { describe, expect, it } from "vitest";
import { BroadcastError, ShapeMismatchError, dtypes } from "../../../src/index.ts";
import { broadcastShapes, iscomplex, iscomplexobj, isreal, isrealobj, realIfClose } from "../../../src/array.ts";
import { fakeArray } from "../../support/fake-arrays.ts";

describe("iscomplexobj and isrealobj", () => {
  it("read the dtype of an array, a dtype or a name", () => {
    expect(iscomplexobj(fakeArray([2], "complex64"))).toBe(true);
    expect(iscomplexobj(fakeArray([2], "float64"))).toBe(false);
    expect(isrealobj(fakeArray([2], "complex128"))).toBe(false);
    expect(isrealobj(fakeArray([2], "bool"))).toBe(true);
    expect(iscomplexobj(dtypes.complex128)).toBe(true);
    expect(iscomplexobj("complex64")).toBe(true);
    expect(isrealobj("bfloat16")).toBe(true);
    expect(() => iscomplexobj("complex32" as never)).toThrow(TypeError);
    expect(() => isrealobj(3 as never)).toThrow(TypeError);
  });
});

describe("iscomplex and isreal", () => {
  it("take a DeviceArray and options, then need a stream", () => {
    expect(() => iscomplex(fakeArray([2], "complex64"))).toThrow(/needs a stream/);
    expect(() => isreal(fakeArray([2], "float32"))).toThrow(/needs a stream/);
    expect(() => iscomplex([1, 2] as never)).toThrow(TypeError);
    expect(() => isreal(fakeArray([2], "float32"), 3 as never)).toThrow();
  });
});

describe("realIfClose", () => {
  it("returns a real array itself, checks tol, then needs a stream for a complex one", async () => {
    const x = fakeArray([3], "float32");
    await expect(realIfClose(x)).resolves.toBe(x);
    await expect(realIfClose(x, { tol: -1 })).rejects.toThrow(/tol is a non-negative number/);
    await expect(realIfClose(fakeArray([3], "complex64"))).rejects.toThrow(/needs a stream/);
    await expect(realIfClose([1] as never)).rejects.toThrow(TypeError);
  });
});

describe("broadcastShapes", () => {
  it("as NumPy's broadcast_shapes", () => {
    // np.broadcast_shapes((5,), (2, 1), ()) → (2, 5); np.broadcast_shapes() → ()
    expect(broadcastShapes([5], [2, 1], [])).toEqual([2, 5]);
    expect(broadcastShapes()).toEqual([]);
    expect(broadcastShapes(3, [4, 1])).toEqual([4, 3]);
    expect(broadcastShapes([0, 1], [1, 7])).toEqual([0, 7]);
    expect(() => broadcastShapes([2, 3], [4])).toThrow(BroadcastError);
    expect(() => broadcastShapes([2, 3], [4])).toThrow("broadcastShapes: shape 1 has shape [4] but shape 0 has shape [2, 3]: they do not broadcast");
    expect(() => broadcastShapes([2, -1])).toThrow(ShapeMismatchError);
  });
});
