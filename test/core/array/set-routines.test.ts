/**
 * The set routines (`union1d`, `intersect1d`, `setdiff1d`, `setxor1d`) without a GPU: the typed errors that come
 * before any stream is used (arguments that are not arrays, closed arrays, options that are not an object, flags that
 * are not booleans, arrays on two devices), and the result types that follow intersect1d's `returnIndices` (checked by
 * the compiler). (The operations on data are in set-routines.gpu.test.ts.)
 */
import { describe, expect, it } from "vitest";
import { ArrayLayoutError, DeviceArray, DeviceMismatchError, type DTypeName } from "../../../src/index.ts";
import { fakeArray } from "../../support/fake-arrays.ts";
import { intersect1d, setdiff1d, setxor1d, union1d, type Intersect1dResult } from "../../../src/array.ts";

const arr = (shape: number[], dtype: DTypeName = "float32", deviceId = -1): DeviceArray => fakeArray(shape, dtype, deviceId);

/** The four routines by name, called with options of their own. */
const routines = {
  union1d: (a: DeviceArray, b: DeviceArray, options?: object): unknown => union1d(a, b, options),
  intersect1d: (a: DeviceArray, b: DeviceArray, options?: object): unknown => intersect1d(a, b, options),
  setdiff1d: (a: DeviceArray, b: DeviceArray, options?: object): unknown => setdiff1d(a, b, options),
  setxor1d: (a: DeviceArray, b: DeviceArray, options?: object): unknown => setxor1d(a, b, options),
} as const;

describe("the set routines' errors, before any stream is used", () => {
  it("take two DeviceArrays, open, naming the routine and what came", () => {
    for (const [name, f] of Object.entries(routines)) {
      expect(() => f([1, 2] as unknown as DeviceArray, arr([3])), name).toThrow(TypeError);
      expect(() => f([1, 2] as unknown as DeviceArray, arr([3])), name).toThrow(`${name}: a is a DeviceArray, not`);
      expect(() => f(arr([3]), 5 as unknown as DeviceArray), name).toThrow(`${name}: b is a DeviceArray, not 5`);
      expect(() => f(arr([3]), undefined as unknown as DeviceArray), name).toThrow(`${name}: b is a DeviceArray, not undefined`);
      const closed = arr([2], "int32");
      closed.close();
      expect(() => f(closed, arr([3])), name).toThrow(ArrayLayoutError);
      expect(() => f(arr([3]), closed), name).toThrow(`${name}: b (int32 [2]) was closed`);
    }
  });

  it("take their options as an object, listing the options each has", () => {
    expect(() => union1d(arr([3]), arr([3]), 1 as unknown as object)).toThrow(TypeError);
    expect(() => union1d(arr([3]), arr([3]), 1 as unknown as object)).toThrow("union1d takes its options as an object ({ stream? }), not 1");
    expect(() => intersect1d(arr([3]), arr([3]), "x" as unknown as object)).toThrow('intersect1d takes its options as an object ({ assumeUnique?, returnIndices?, stream? }), not "x"');
    expect(() => setdiff1d(arr([3]), arr([3]), null as unknown as object)).toThrow("setdiff1d takes its options as an object ({ assumeUnique?, stream? }), not null");
    expect(() => setxor1d(arr([3]), arr([3]), true as unknown as object)).toThrow("setxor1d takes its options as an object ({ assumeUnique?, stream? }), not true");
  });

  it("take assumeUnique and returnIndices as booleans", () => {
    for (const name of ["intersect1d", "setdiff1d", "setxor1d"] as const) {
      const f = routines[name];
      expect(() => f(arr([3]), arr([3]), { assumeUnique: 1 }), name).toThrow(TypeError);
      expect(() => f(arr([3]), arr([3]), { assumeUnique: 1 }), name).toThrow(`${name}: assumeUnique is a boolean, not 1`);
      expect(() => f(arr([3]), arr([3]), { assumeUnique: "yes" }), name).toThrow(`${name}: assumeUnique is a boolean, not "yes"`);
    }
    expect(() => intersect1d(arr([3]), arr([3]), { returnIndices: 0 as unknown as boolean })).toThrow(TypeError);
    expect(() => intersect1d(arr([3]), arr([3]), { returnIndices: 0 as unknown as boolean })).toThrow("intersect1d: returnIndices is a boolean, not 0");
  });

  it("refuse arrays on two devices, naming both", () => {
    for (const [name, f] of Object.entries(routines)) {
      const call = (): unknown => f(arr([4], "float32", 0), arr([2], "int32", 1));
      expect(call, name).toThrow(DeviceMismatchError);
      expect(call, name).toThrow(`${name}: b is on device 1, but device 0 is needed here; a is on device 0`);
    }
  });

  it("get as far as the stream with good arguments (fake arrays have none): any dtypes and shapes, empty too", () => {
    for (const [name, f] of Object.entries(routines)) {
      expect(() => f(arr([2, 3]), arr([4], "int64")), name).toThrow("needs a stream");
      expect(() => f(arr([2], "complex64"), arr([4], "uint8"), {}), name).toThrow("needs a stream");
      expect(() => f(arr([0]), arr([0, 2], "bool")), name).toThrow("needs a stream");
      expect(() => f(arr([], "int16"), arr([3], "float16")), name).toThrow("needs a stream");
    }
    expect(() => intersect1d(arr([3]), arr([3]), { assumeUnique: true, returnIndices: true })).toThrow("needs a stream");
    expect(() => setdiff1d(arr([3]), arr([3]), { assumeUnique: false })).toThrow("needs a stream");
    expect(() => setxor1d(arr([3]), arr([3]), { assumeUnique: true })).toThrow("needs a stream");
  });

  it("type intersect1d's result by returnIndices (checked by the compiler, not run)", () => {
    const typed = (a: DeviceArray, b: DeviceArray): void => {
      const plain: DeviceArray = intersect1d(a, b);
      const none: DeviceArray = intersect1d(a, b, { returnIndices: false, assumeUnique: true });
      const r: Intersect1dResult = intersect1d(a, b, { returnIndices: true });
      const values: DeviceArray = r.values;
      const indices1: DeviceArray<"int64"> = r.indices1;
      const indices2: DeviceArray<"int64"> = r.indices2;
      const flag = Math.random() < 0.5;
      // @ts-expect-error: an array or an object, by the flag's value
      const unknown: DeviceArray = intersect1d(a, b, { returnIndices: flag });
      const either: DeviceArray | Intersect1dResult = intersect1d(a, b, { returnIndices: flag });
      // @ts-expect-error: the values alone have no indices
      const missing: DeviceArray = intersect1d(a, b).indices1;
      const u: DeviceArray = union1d(a, b);
      const d: DeviceArray = setdiff1d(a, b, { assumeUnique: true });
      const x: DeviceArray = setxor1d(a, b, {});
      void [plain, none, values, indices1, indices2, unknown, either, missing, u, d, x];
    };
    expect(typeof typed).toBe("function");
  });
});
