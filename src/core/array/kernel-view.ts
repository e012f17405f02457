/**
 * Arrays into hand-written kernels as records: `arrayView(a)` passes a DeviceArray to `launch` by value as the
 * `cuda_ts::Array<T, N>` that `#include <cuda_ts/array.h>` declares (array-header.ts), so a kernel indexes any view
 * (transposed, sliced with steps, reversed, broadcast) by its indices:
 *
 * ```ts
 * const src = `#include <cuda_ts/array.h>
 * extern "C" __global__ void colsum(cuda_ts::Array<const float, 2> a, float* out) {
 *   long long j = blockIdx.x * blockDim.x + threadIdx.x;
 *   if (j >= a.shape(1)) return;
 *   float s = 0;
 *   for (long long i = 0; i < a.shape(0); i++) s += a(i, j);
 *   out[j] = s;
 * }`;
 * launch(stream, config, kernel, arrayView(m.T), out);
 * ```
 *
 * The record (little-endian, 8-byte aligned; 16 + 16·N bytes) is CuPy's `CArray<T, N>`:
 *
 * | bytes          | field                 |
 * | -------------- | --------------------- |
 * | 0              | `T* data` (element [0, ...]) |
 * | 8              | `int64 size` (elements) |
 * | 16 + 8·d       | `int64 shape[d]`      |
 * | 16 + 8·(N + d) | `int64 strides[d]`, in bytes |
 *
 * A DeviceArray passed bare is still the address of its first element (a `T*` parameter).
 *
 * @module
 */
import { ByValueArgument, kArgumentSize, kCheckParameter, kDescribeArgument, kWriteValue } from "../launch/by-value-argument.ts";
import type { ParamType } from "../launch/mangling.ts";
import { describeValue } from "../../errors/describe.ts";
import { DeviceArray } from "./device-array.ts";
import { broadcastStrides } from "./broadcast.ts";
import { ArrayLayoutError } from "./errors.ts";
import { ClosedError } from "../base/errors.ts";
import { checkInternal, INTERNAL, type Internal } from "../base/internal.ts";

/** The byte size of a `cuda_ts::Array<T, ndim>` record: 16 + 16·ndim. */
export function arrayViewSize(ndim: number): number {
  return 16 + 16 * ndim;
}

/** Options of {@link arrayView}. */
export interface ArrayViewOptions {
  /**
   * Pass the array as if broadcast to this shape (NumPy's rules: stride 0 on the axes it is broadcast along, and on
   * leading axes it lacks), without making a view first.
   */
  readonly broadcastTo?: readonly number[];
}

/**
 * A DeviceArray as a kernel argument passed by value: the `cuda_ts::Array<T, N>` record of `#include
 * <cuda_ts/array.h>` (N = `ndim`, T the dtype's C type: see the dtype's `ctype`). Launch checks the parameter's size
 * (16 + 16·N bytes) and, for C++ kernels with mangled names, its element type and rank. The pointer is read at each
 * launch, so a closed array fails there with ClosedError.
 */
export class ArrayView extends ByValueArgument {
  /** The array passed. */
  readonly array: DeviceArray;
  /** The shape the kernel sees (the array's, or the broadcast one). */
  readonly shape: readonly number[];
  /** The strides the kernel sees, in bytes. */
  readonly byteStrides: readonly number[];
  /** size, shape and strides as written after the pointer. */
  readonly #tail: BigInt64Array;
  readonly #size: number;

  /** Reserved to cuda-ts (the token is not exported): use `arrayView(array)`. */
  constructor(token: Internal, array: DeviceArray, shape: readonly number[], byteStrides: readonly number[]) {
    super();
    checkInternal(token, "ArrayView", "arrayView(array)");
    this.array = array;
    this.shape = Object.freeze([...shape]);
    this.byteStrides = Object.freeze([...byteStrides]);
    const nd = shape.length;
    this.#size = arrayViewSize(nd);
    const tail = new BigInt64Array(1 + 2 * nd);
    tail[0] = BigInt(shape.reduce((a, b) => a * b, 1));
    for (let d = 0; d < nd; d++) {
      tail[1 + d] = BigInt(shape[d]!);
      tail[1 + nd + d] = BigInt(byteStrides[d]!);
    }
    this.#tail = tail;
  }

  /** The number of axes (N in `cuda_ts::Array<T, N>`). */
  get ndim(): number {
    return this.shape.length;
  }

  /** The record's size in bytes (16 + 16·ndim). */
  get byteLength(): number {
    return this.#size;
  }

  /** The C++ parameter type a kernel declares for it (`cuda_ts::Array<float, 2>`). */
  get parameterType(): string {
    return `cuda_ts::Array<${this.array.dtype.ctype}, ${this.ndim}>`;
  }

  /** The record's bytes now (what launch writes), for inspection and for APIs that take raw struct bytes. */
  toBytes(): Uint8Array {
    const out = new Uint8Array(this.#size);
    this[kWriteValue](new DataView(out.buffer), 0);
    return out;
  }

  get [kArgumentSize](): number {
    return this.#size;
  }

  [kWriteValue](dv: DataView, offset: number): void {
    if (this.array.isClosed) throw new ClosedError("the DeviceArray behind this arrayView", "pass it to a kernel");
    // A size-0 array may sit at any address: the kernel reads none of it.
    dv.setBigUint64(offset, this.array.address, true);
    const t = this.#tail;
    for (let k = 0; k < t.length; k++) dv.setBigInt64(offset + 8 + 8 * k, t[k]!, true);
  }

  [kDescribeArgument](): string {
    return `arrayView of a ${this.array.dtype.name} array of shape [${this.shape.join(", ")}] (a ${this.parameterType}, ${this.#size} bytes)`;
  }

  override [kCheckParameter](size: number, type: ParamType | undefined): string | undefined {
    if (type !== undefined && type.kind === "array") {
      if (type.ndim !== undefined && type.ndim !== this.ndim) {
        return `the parameter is a cuda_ts::Array of rank ${type.ndim} but ${this[kDescribeArgument]()} has ${this.ndim} axes; pass an array of that rank (reshape, or arrayView(a, { broadcastTo }))`;
      }
      if (type.element !== undefined && type.element !== this.array.dtype.scalar) {
        return `the parameter is a cuda_ts::Array of ${type.element} elements but ${this[kDescribeArgument]()} holds ${this.array.dtype.scalar}; pass an array of that dtype (or array.view(dtype) to reinterpret the bytes)`;
      }
    } else if (type !== undefined && type.kind !== "class") {
      const what = type.kind === "pointer" ? "a pointer" : `a ${type.scalar} value`;
      return `the parameter is ${what}, not a cuda_ts::Array, but ${this[kDescribeArgument]()} was passed; pass the DeviceArray itself for a pointer parameter, or declare the parameter ${this.parameterType}`;
    }
    if (size !== this.#size) {
      const rank = (size - 16) / 16;
      const hint =
        size === 8
          ? `; an 8-byte parameter is a pointer: pass the DeviceArray itself, or declare the parameter ${this.parameterType}`
          : Number.isInteger(rank) && rank >= 0
            ? `, the size of a cuda_ts::Array of rank ${rank}: pass an array with ${rank} axes, or declare the parameter ${this.parameterType}`
            : `; declare the parameter ${this.parameterType} (#include <cuda_ts/array.h>)`;
      return `${this[kDescribeArgument]()} is ${this.#size} bytes but the parameter is ${size} bytes${hint}`;
    }
    return undefined;
  }

  override toString(): string {
    return `ArrayView(${this.array.dtype.name}, shape=[${this.shape.join(", ")}], byteStrides=[${this.byteStrides.join(", ")}])`;
  }
}

/**
 * `array` as a `cuda_ts::Array<T, N>` kernel argument (see the module documentation): pointer, size, shape and byte
 * strides by value, for a kernel that includes `<cuda_ts/array.h>`. With `{ broadcastTo: shape }` the kernel sees
 * the array broadcast to `shape`.
 *
 * ```ts
 * launch(stream, config, kernel, arrayView(a), arrayView(bias, { broadcastTo: a.shape }), out);
 * ```
 */
export function arrayView(array: DeviceArray, options: ArrayViewOptions = {}): ArrayView {
  if (!(array instanceof DeviceArray)) throw new TypeError(`arrayView takes a DeviceArray, not ${describeValue(array)}`);
  if (array.isClosed) throw new ClosedError("this DeviceArray", "pass it to a kernel");
  if (options === null || typeof options !== "object") throw new TypeError(`arrayView: options must be an object, not ${describeValue(options)}`);
  let shape = array.shape;
  let strides = array.strides;
  if (options.broadcastTo !== undefined) {
    const to = options.broadcastTo;
    if (!Array.isArray(to) || to.some((n) => !Number.isSafeInteger(n) || n < 0)) {
      throw new ArrayLayoutError(`arrayView: broadcastTo must be a shape (non-negative integers), got ${describeValue(to)}`);
    }
    strides = broadcastStrides(array.shape, array.strides, to);
    shape = to;
  }
  const itemsize = array.dtype.itemsize;
  return new ArrayView(INTERNAL, array, shape, strides.map((s) => s * itemsize));
}
