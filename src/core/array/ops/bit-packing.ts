/**
 * Bits packed into bytes and back, as NumPy's (and CuPy's) `packbits` and `unpackbits`: eight truth values of an
 * axis become one uint8 (the first in the high bit for `bitorder` "big", in the low bit for "little"), and each
 * uint8 becomes eight 0/1 bytes again.
 *
 * ```ts
 * const mask = gt(x, 0, { stream });                     // bool [1000]
 * const bits = packbits(mask, { stream });               // uint8 [125], an eighth of the memory
 * const back = unpackbits(bits, { count: 1000, stream }); // uint8 0/1 [1000]
 * ```
 *
 * Each is one kernel over its result, reading the source as a contiguous block (a strided source is copied first).
 *
 * @module
 */
import { DeviceArray, operationStream, type ArrayOperationOptions } from "../device-array.ts";
import { ArgumentError } from "../../../errors/base.ts";
import { describeValue } from "../../../errors/describe.ts";
import { DTypeError } from "../errors.ts";
import { normalizeAxis } from "../broadcast.ts";
import type { DType } from "../dtype.ts";
import { ElementwiseKernel } from "../../kernels/elementwise.ts";
import { cachedKernel, checkArrayArgument, checkOneDevice } from "./elementwise.ts";
import { ascontiguousarray } from "./creation.ts";
import { reshape } from "./shape.ts";

/** Which end of a byte takes the first of its eight bits. */
export type BitOrder = "big" | "little";

/** Options of `packbits`. */
export interface PackbitsOptions extends ArrayOperationOptions {
  /** The axis to pack along (default: the flattened array, giving a 1-d result). */
  readonly axis?: number;
  /** "big" (default): the first element in the byte's high bit; "little": in its low bit. */
  readonly bitorder?: BitOrder;
}

/** Options of `unpackbits`. */
export interface UnpackbitsOptions extends PackbitsOptions {
  /**
   * How many bits to keep along the axis (default: all, eight per byte): fewer drop the last bits, more add zeros
   * after them, a negative count drops that many from the end.
   */
  readonly count?: number;
}

function bitOrder(options: PackbitsOptions | undefined, what: string): BitOrder {
  const order = options?.bitorder ?? "big";
  if (order !== "big" && order !== "little") throw new ArgumentError(`${what}: bitorder is "big" or "little", got ${describeValue(order)}`);
  return order;
}

/** The source as a contiguous block and its extents [outer, along, inner] about the axis (the flattened array when none). */
function blocks(a: DeviceArray, axis: number | undefined): { outer: number; along: number; inner: number } {
  if (axis === undefined) return { outer: 1, along: a.size, inner: 1 };
  const prod = (xs: readonly number[]): number => xs.reduce((p, x) => p * x, 1);
  return { outer: prod(a.shape.slice(0, axis)), along: a.shape[axis]!, inner: prod(a.shape.slice(axis + 1)) };
}

/**
 * The packing kernel of a source dtype and bit order (exported for tests: no GPU needed): `raw T a, int64 along,
 * int64 bytes, int64 inner` in, `uint8 z` out, one byte of the result per element.
 */
export function packbitsKernel(dtype: DType, order: BitOrder): ElementwiseKernel {
  return cachedKernel(`packbits|${dtype.name}|${order}`, () => {
    const shift = order === "big" ? "7 - b" : "b";
    const body = [
      "const long long o = (long long)i / (bytes * inner); const long long r = (long long)i - o * bytes * inner;",
      "const long long j = r / inner; const long long k = r - j * inner;",
      "const long long first = j * 8; const int m = along - first < 8 ? (int)(along - first) : 8;",
      "const long long base = (o * along + first) * inner + k;",
      "unsigned int v = 0;",
      `for (int b = 0; b < m; b++) v |= (unsigned int)(a[base + b * inner] != (${dtype.ctype})0) << (${shift});`,
      "z = (unsigned char)v;",
    ].join(" ");
    return new ElementwiseKernel(`raw ${dtype.name} a, int64 along, int64 bytes, int64 inner`, "uint8 z", body, `cuda_ts_packbits_${dtype.name}_${order}`);
  });
}

/**
 * The unpacking kernel of a bit order (exported for tests: no GPU needed): `raw uint8 a, int64 along, int64 count,
 * int64 inner` in, `uint8 z` out, one bit (0 or 1) of the result per element.
 */
export function unpackbitsKernel(order: BitOrder): ElementwiseKernel {
  return cachedKernel(`unpackbits|${order}`, () => {
    const shift = order === "big" ? "7 - (int)(j & 7)" : "(int)(j & 7)";
    const body = [
      "const long long o = (long long)i / (count * inner); const long long r = (long long)i - o * count * inner;",
      "const long long j = r / inner; const long long k = r - j * inner;",
      `z = j < along * 8 ? (unsigned char)((a[(o * along + (j >> 3)) * inner + k] >> (${shift})) & 1) : (unsigned char)0;`,
    ].join(" ");
    return new ElementwiseKernel("raw uint8 a, int64 along, int64 count, int64 inner", "uint8 z", body, `cuda_ts_unpackbits_${order}`);
  });
}

/** A 0-d array packed or unpacked along an axis counts as 1-d, as in NumPy (`packbits(np.array(5), axis=0)` is `[128]`). */
function atLeast1d(a: DeviceArray, options: PackbitsOptions | undefined): DeviceArray {
  return a.ndim === 0 && options?.axis !== undefined ? reshape(a, [1]) : a;
}

function checkOptions(options: unknown, what: string, names: string): void {
  if (options !== undefined && (options === null || typeof options !== "object" || Array.isArray(options))) {
    throw new TypeError(`${what} takes options { ${names} }, got ${describeValue(options)}`);
  }
}

/** Launches `kernel` over a new uint8 array of `shape` reading `a` as a contiguous block; a copy of `a` first when it is strided. */
function launchOver(what: string, a: DeviceArray, shape: readonly number[], kernel: () => ElementwiseKernel, args: readonly number[], options: ArrayOperationOptions | undefined): DeviceArray<"uint8"> {
  const stream = operationStream(what, options, [a]);
  checkOneDevice(what, [["the array", a]], stream);
  const out = DeviceArray.empty(shape, "uint8", { stream });
  if (out.size === 0) return out;
  let source: DeviceArray | undefined;
  try {
    source = a.isContiguous ? a : ascontiguousarray(a, { stream });
    kernel().launch(stream, source, ...args, out);
  } catch (e) {
    out.close(stream);
    throw e;
  } finally {
    if (source !== undefined && source !== a) source.close(stream);
  }
  return out;
}

/**
 * The elements of `a` packed eight to a byte along `axis`, as NumPy's `packbits`: each element counts as a 1 bit when
 * it is non-zero (true), the axis becomes `ceil(n / 8)` bytes long, and a last byte that is not full is padded with 0
 * bits. Without `axis` the array is flattened (row-major) and the result is 1-d (a 0-d array with `axis` 0 or -1
 * counts as 1-d, as in NumPy). A new uint8 array; does not wait for the stream.
 *
 * ```ts
 * packbits(asarray([1, 0, 1, 1, 0, 0, 0, 1, 1], { dtype: "bool", stream }), { stream });  // [177, 128]
 * packbits(m, { axis: 1, bitorder: "little", stream });   // each row of m packed, first column in bit 0
 * ```
 *
 * @throws DTypeError when `a` is not of a bool or integer dtype (NumPy's TypeError).
 * @throws AxisError for an axis out of range; ArgumentError for a bitorder other than "big" or "little".
 */
export function packbits(a: DeviceArray, options?: PackbitsOptions): DeviceArray<"uint8"> {
  const what = "packbits";
  checkOptions(options, what, "axis?, bitorder?, stream?");
  const x = atLeast1d(checkArrayArgument(a, what, "the array"), options);
  if (x.dtype.kind !== "b" && x.dtype.kind !== "i" && x.dtype.kind !== "u") {
    throw new DTypeError(`${what}: the array is ${x.dtype.name}; packbits packs bool or integer arrays (non-zero is a 1 bit); compare first (ne(a, 0)) or convert it (astype("bool"))`);
  }
  const axis = options?.axis === undefined ? undefined : normalizeAxis(options.axis, x.ndim, what);
  const order = bitOrder(options, what);
  const { along, inner } = blocks(x, axis);
  const bytes = Math.ceil(along / 8);
  const shape = axis === undefined ? [bytes] : x.shape.map((e, d) => (d === axis ? bytes : e));
  return launchOver(what, x, shape, () => packbitsKernel(x.dtype, order), [along, bytes, inner], options);
}

/**
 * The bits of the bytes of `a` along `axis`, as NumPy's `unpackbits`: each uint8 becomes eight uint8 elements of 0
 * or 1 (its high bit first for `bitorder` "big", its low bit first for "little"), so the axis becomes eight times
 * longer, or `count` long. Without `axis` the array is flattened (row-major) and the result is 1-d. A new uint8
 * array; does not wait for the stream.
 *
 * ```ts
 * unpackbits(asarray([177, 128], { dtype: "uint8", stream }), { stream });            // [1,0,1,1,0,0,0,1, 1,0,0,0,0,0,0,0]
 * unpackbits(bits, { count: 9, stream });                                             // the first 9 of them
 * unpackbits(bytes2d, { axis: 1, bitorder: "little", stream });                       // each row's bits, bit 0 first
 * ```
 *
 * @throws DTypeError when `a` is not uint8 (NumPy's TypeError).
 * @throws AxisError for an axis out of range; ArgumentError for a count that is not an integer or drops more bits
 * than there are, or a bitorder other than "big" or "little".
 */
export function unpackbits(a: DeviceArray, options?: UnpackbitsOptions): DeviceArray<"uint8"> {
  const what = "unpackbits";
  checkOptions(options, what, "axis?, count?, bitorder?, stream?");
  const x = atLeast1d(checkArrayArgument(a, what, "the array"), options);
  if (x.dtype.name !== "uint8") {
    throw new DTypeError(`${what}: the array is ${x.dtype.name}; unpackbits unpacks uint8 arrays; convert it first (astype("uint8"), or view its bytes)`);
  }
  const axis = options?.axis === undefined ? undefined : normalizeAxis(options.axis, x.ndim, what);
  const order = bitOrder(options, what);
  const { along, inner } = blocks(x, axis);
  const bits = along * 8;
  let count = bits;
  if (options?.count !== undefined) {
    const c: unknown = options.count;
    if (typeof c !== "number" || !Number.isSafeInteger(c)) throw new ArgumentError(`${what}: count is an integer, got ${describeValue(c)}`);
    count = c < 0 ? bits + c : c;
    if (count < 0) throw new ArgumentError(`${what}: count ${c} drops more bits than the ${bits} there are along the axis; pass a count from ${-bits}`);
  }
  const shape = axis === undefined ? [count] : x.shape.map((e, d) => (d === axis ? count : e));
  return launchOver(what, x, shape, () => unpackbitsKernel(order), [along, count, inner], options);
}
