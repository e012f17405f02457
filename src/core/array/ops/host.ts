/**
 * Reading arrays back to the host as JavaScript values, as NumPy's `item` and `tolist`: numbers, bigints for 64-bit
 * integers, booleans for bool, `[re, im]` for complex, float16 and bfloat16 decoded to numbers.
 *
 * ```ts
 * const total = await x.sum().item();         // one number (a bigint for an int64 sum)
 * console.log(await x.toList());              // [[1, 2], [3, 4]]
 * ```
 *
 * Both copy on the array's stream (or `options.stream`) and resolve once the stream has done the copy, without
 * blocking the thread; strided views are packed on the device first.
 *
 * @module
 */
import { DeviceArray, type ArrayOperationOptions, type ArrayScalar } from "../device-array.ts";
import { decodeBFloat16, decodeHalf, type DType, type HostArray } from "../dtype.ts";
import { ShapeMismatchError } from "../errors.ts";
import { describeValue } from "../../../errors/describe.ts";
import { provideArrayMethods } from "../methods.ts";

/** A nested list of elements, as `toList` gives it (a scalar for a 0-d array). */
export type NestedList = ArrayScalar | NestedList[];

/** Element `j` of host data of `dtype` as a JavaScript value (exported for tests). */
export function decodeElement(dtype: DType, host: HostArray, j: number): ArrayScalar {
  switch (dtype.name) {
    case "bool":
      return host[j] !== 0;
    case "float16":
      return decodeHalf(host[j] as number);
    case "bfloat16":
      return decodeBFloat16(host[j] as number);
    case "complex64":
    case "complex128":
      return [host[2 * j] as number, host[2 * j + 1] as number];
    default:
      return host[j] as number | bigint;
  }
}

/** Host data of `dtype` and `shape` (row-major) as nested lists (exported for tests; a scalar for shape []). */
export function nestHost(dtype: DType, host: HostArray, shape: readonly number[]): NestedList {
  if (shape.length === 0) return decodeElement(dtype, host, 0);
  let j = 0;
  const build = (axis: number): NestedList[] => {
    const n = shape[axis]!;
    const out: NestedList[] = new Array<NestedList>(n);
    if (axis === shape.length - 1) for (let t = 0; t < n; t++) out[t] = decodeElement(dtype, host, j++);
    else for (let t = 0; t < n; t++) out[t] = build(axis + 1);
    return out;
  };
  return build(0);
}

function checkArray(a: unknown, what: string): DeviceArray {
  if (!(a instanceof DeviceArray)) throw new TypeError(`${what} takes a DeviceArray, not ${describeValue(a)}`);
  return a;
}

/**
 * The one element of `a` (of any shape holding exactly one element), read to the host: a number, a bigint for
 * int64/uint64, a boolean for bool, `[re, im]` for complex. ShapeMismatchError for any other size.
 */
export async function item(a: DeviceArray, options?: ArrayOperationOptions): Promise<ArrayScalar> {
  checkArray(a, "item");
  if (a.size !== 1) {
    throw new ShapeMismatchError(`item: the array has ${a.size} elements (shape [${a.shape.join(", ")}]); item reads an array of exactly one element: index or reduce it first, or use toList`);
  }
  const host = await a.toTypedArray(options);
  return decodeElement(a.dtype, host, 0);
}

/**
 * The elements of `a` as nested JavaScript arrays, as NumPy's `tolist` (a scalar for a 0-d array): numbers, bigints
 * for int64/uint64, booleans, `[re, im]` for complex, float16 and bfloat16 decoded.
 */
export async function toList(a: DeviceArray, options?: ArrayOperationOptions): Promise<NestedList> {
  checkArray(a, "toList");
  const host = await a.toTypedArray(options);
  return nestHost(a.dtype, host, a.shape);
}

provideArrayMethods({
  item: (self, options) => item(self, options),
  toList: (self, options) => toList(self, options) as Promise<unknown[] | ArrayScalar>,
});
