/**
 * Views that own their memory (an operation's result handed out in another layout): the array that allocated the
 * memory gives it up, so closing that array, or a scope that adopted it ending, leaves the view working; closing the
 * view frees the memory once.
 */
import { describe, expect, it } from "vitest";
import { ArrayLayoutError, Buffer, DeviceArray, dtypes, scope, type MemoryResource } from "../../../src/index.ts";
import { ownedView, viewWith } from "../../../src/core/array/ops/shape.ts";
import { INTERNAL } from "../../../src/core/base/internal.ts";

/** An array that owns (a stand-in of) device memory, as an operation's result does, and a count of the frees. */
function owningArray(shape: number[]): { array: DeviceArray; frees: () => number } {
  let frees = 0;
  const resource: MemoryResource = {
    allocate: () => {
      throw new Error("not used");
    },
    deallocate: () => {
      frees++;
    },
    isDeviceAccessible: true,
    isHostAccessible: false,
    deviceId: -1,
  };
  const size = shape.reduce((p, n) => p * n, 1);
  const buffer = Buffer.fromHandle(0x7f00_0000_0000n, size * 8, { memoryResource: resource });
  const array = new DeviceArray(INTERNAL, buffer, dtypes.int64, shape, [...shape.keys()].map((d) => shape.slice(d + 1).reduce((p, n) => p * n, 1)), 0, undefined, true);
  return { array, frees: () => frees };
}

describe("owned views", () => {
  it("take the memory over: closing the array that allocated it leaves the view working", () => {
    const { array, frees } = owningArray([6]);
    const view = ownedView(array, viewWith(array, [2, 3], [3, 1]));
    expect(array.isClosed).toBe(true);
    array.close();
    expect([view.isClosed, view.buffer.isClosed, view.base, view.shape]).toEqual([false, false, undefined, [2, 3]]);
    view.close();
    view.close();
    expect([view.isClosed, frees()]).toEqual([true, 1]);
  });

  it("outlive the scope that made them (the scope closes the dropped array, not the memory)", () => {
    let made: { array: DeviceArray; frees: () => number } | undefined;
    const view = scope(() => {
      made = owningArray([3]);
      return ownedView(made.array, viewWith(made.array, [3, 1], [1, 1]));
    });
    expect([view.isClosed, view.buffer.isClosed, made!.frees()]).toEqual([false, false, 0]);
    view.close();
    expect(made!.frees()).toBe(1);
  });

  it("are made only from an open array that owns its memory", () => {
    const { array } = owningArray([4]);
    const plain = viewWith(array, [2, 2], [2, 1]);
    expect(() => ownedView(plain, plain)).toThrow(ArrayLayoutError);
    array.close();
    expect(() => ownedView(array, array)).toThrow(ArrayLayoutError);
  });
});
