/**
 * copy and ascontiguousarray without a GPU: ascontiguousarray returns a contiguous array of the dtype asked for
 * itself (as NumPy's), a 0-d array as a one-element 1-d view, and everything else needs a stream (a copy); the
 * typed errors come first.
 */
import { describe, expect, it } from "vitest";
import { ArgumentError, DTypeError } from "../../../src/index.ts";
import { ascontiguousarray, copy } from "../../../src/array.ts";
import { fakeArray } from "../../support/fake-arrays.ts";

describe("ascontiguousarray", () => {
  it("is the array itself when it is contiguous and of the dtype asked for", () => {
    const x = fakeArray([2, 3], "int64");
    // np.ascontiguousarray(x) is x → True; np.ascontiguousarray(x, dtype=np.int64) is x → True
    expect(ascontiguousarray(x)).toBe(x);
    expect(ascontiguousarray(x, { dtype: "int64" })).toBe(x);
    // np.ascontiguousarray(x[:1]) is x[:1] → True (a contiguous view); size-1 axes may have any stride
    const row = x.slice([0, 1]);
    expect(ascontiguousarray(row)).toBe(row);
    const column = fakeArray([3, 1], "float32").T;
    expect(ascontiguousarray(column)).toBe(column);
    // A read-only (repeating) view is not contiguous: a copy, which needs a stream.
    expect(() => ascontiguousarray(fakeArray([3], "int64").broadcastTo([2, 3]))).toThrow("ascontiguousarray needs a stream");
  });

  it("gives a 0-d array one axis (NumPy's ndmin=1)", () => {
    // np.ascontiguousarray(np.array(3.0)).shape → (1,)
    const s = fakeArray([], "float64");
    const v = ascontiguousarray(s);
    expect([v.shape, v.base]).toEqual([[1], s]);
  });

  it("copies views that are not contiguous and converts other dtypes (on a stream)", () => {
    const x = fakeArray([2, 3], "int64");
    // np.ascontiguousarray(x.T), np.ascontiguousarray(x[:, :1]): copies
    expect(() => ascontiguousarray(x.T)).toThrow("ascontiguousarray needs a stream");
    expect(() => ascontiguousarray(x.slice(null, [0, 1]))).toThrow("ascontiguousarray needs a stream");
    expect(() => ascontiguousarray(x, { dtype: "float32" })).toThrow("ascontiguousarray needs a stream");
    expect(() => ascontiguousarray(x, { dtype: "float" as "float32" })).toThrow(DTypeError);
    expect(() => ascontiguousarray([1, 2] as never)).toThrow(TypeError);
    expect(() => ascontiguousarray(x, 3 as never)).toThrow(ArgumentError);
  });
});

describe("copy", () => {
  it("checks its arguments, then needs a stream", () => {
    expect(() => copy([1, 2] as never)).toThrow(TypeError);
    expect(() => copy(fakeArray([2], "int64"), "s" as never)).toThrow(ArgumentError);
    expect(() => copy(fakeArray([2], "int64"))).toThrow("copy needs a stream");
  });
});
