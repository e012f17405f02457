/**
 * `unique`'s options without a GPU: the typed errors that come before any stream is used (an argument that is not an
 * array, options that are not booleans), and the result types that follow the options (checked by the compiler).
 */
import { describe, expect, it } from "vitest";
import { Buffer, DeviceArray, type DTypeName, type MemoryResource } from "../../../src/index.ts";
import { unique } from "../../../src/array.ts";

/** A resource of fake memory: host-reachable (no device), or on device `deviceId`. */
function resource(deviceId: number): MemoryResource {
  return {
    allocate: () => {
      throw new Error("not used");
    },
    deallocate: () => undefined,
    isDeviceAccessible: true,
    isHostAccessible: deviceId < 0,
    deviceId,
  };
}
function arr(shape: number[], dtype: DTypeName = "float32", deviceId = -1): DeviceArray {
  return DeviceArray.fromBuffer(Buffer.fromHandle(0x7f00_0000_0000n, 1 << 16, { memoryResource: resource(deviceId) }), { dtype, shape });
}

describe("unique's options, before any stream is used", () => {
  it("takes returnIndex, returnInverse and returnCounts as booleans", () => {
    expect(() => unique(arr([4]), { returnIndex: 1 as unknown as boolean })).toThrow(TypeError);
    expect(() => unique(arr([4]), { returnIndex: 1 as unknown as boolean })).toThrow("unique: returnIndex is a boolean, not 1");
    expect(() => unique(arr([4]), { returnInverse: "yes" as unknown as boolean })).toThrow('unique: returnInverse is a boolean, not "yes"');
    expect(() => unique(arr([4]), { returnCounts: 0 as unknown as boolean })).toThrow("unique: returnCounts is a boolean, not 0");
    expect(() => unique(arr([4]), 3 as unknown as object)).toThrow("unique takes its options as an object ({ returnIndex?, returnInverse?, returnCounts?, stream? }), not 3");
    expect(() => unique([1, 2] as unknown as DeviceArray, { returnCounts: true })).toThrow("unique takes a DeviceArray");
  });

  it("gets as far as the stream with good options (fake arrays have none)", () => {
    expect(() => unique(arr([4]))).toThrow("needs a stream");
    expect(() => unique(arr([2, 3], "int32"), { returnIndex: true, returnInverse: true, returnCounts: true })).toThrow("needs a stream");
    expect(() => unique(arr([0]), { returnIndex: false, returnInverse: false, returnCounts: false })).toThrow("needs a stream");
  });

  it("types the result by the options (checked by the compiler, not run)", () => {
    const typed = (x: DeviceArray): void => {
      const plain: DeviceArray = unique(x);
      const none: DeviceArray = unique(x, { returnCounts: false });
      const r = unique(x, { returnIndex: true, returnCounts: true });
      const values: DeviceArray = r.values;
      const indices: DeviceArray<"int64"> = r.indices;
      const counts: DeviceArray<"int64"> = r.counts;
      // @ts-expect-error: the inverse was not asked for
      const inverse: DeviceArray<"int64"> = r.inverse;
      const all = unique(x, { returnIndex: true, returnInverse: true, returnCounts: true });
      const allInverse: DeviceArray<"int64"> = all.inverse;
      const flag = Math.random() < 0.5;
      const maybe = unique(x, { returnInverse: true, returnCounts: flag });
      const maybeCounts: DeviceArray<"int64"> | undefined = maybe.counts;
      // @ts-expect-error: counts may be absent
      const sureCounts: DeviceArray<"int64"> = maybe.counts;
      const options: { returnIndex?: boolean } = {};
      // @ts-expect-error: an array or an object, by the options' values
      const unknown: DeviceArray = unique(x, options);
      void [plain, none, values, indices, counts, inverse, allInverse, maybeCounts, sureCounts, unknown];
    };
    expect(typeof typed).toBe("function");
  });
});
