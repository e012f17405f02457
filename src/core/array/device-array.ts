/**
 * `DeviceArray`: a typed, shaped view of device memory (cuda.core's StridedMemoryView, cudarc's CudaSlice<T>, in
 * the shape a script writer reaches for): dtype, shape, strides in elements, a byte offset, and the Buffer it lives
 * in (and so its device and memory resource).
 *
 * ```ts
 * using x = DeviceArray.from(new Float32Array([1, 2, 3, 4, 5, 6]), { stream, shape: [2, 3] });
 * const col = x.slice(null, 1);            // x[:, 1], a view
 * const t = x.T;                            // a transposed view
 * const host = await t.toTypedArray({ stream }); // Float32Array [1, 4, 2, 5, 3, 6]
 * launch(stream, config, kernel, x, u64(x.size)); // an array is its first element's device address
 * ```
 *
 * Views (`slice`, `subarray`, `reshape`, `transpose`, `view`) share memory and keep their parent alive; closing the
 * array that allocated the memory frees it, after which every view over it throws ClosedError. Every check (shapes,
 * dtypes, closed memory, views outside their buffer, contiguity) happens before anything reaches the GPU.
 *
 * @module
 */
import { CUDA_MEMCPY2D_st, CUmemorytype, type CUdeviceptr } from "../../bindings/driver.ts";
import { ffi } from "../../ffi/index.ts";
import type { NativePointer } from "../../ffi/types.ts";
import type { Device } from "../device.ts";
import { addressKey, driver } from "../base/driver-state.ts";
import { describeValue } from "../../errors/describe.ts";
import { refuseWrongDevice } from "../base/wrong-device.ts";
import { argumentsChanged } from "../base/epoch.ts";
import { ArrayLayoutError, DTypeError, ShapeMismatchError } from "./errors.ts";
import { ArgumentError } from "../../errors/base.ts";
import { ClosedError } from "../base/errors.ts";
import { adoptIntoScope, closedError, scopeDepth } from "../memory/scope.ts";
import { kDescribeArgument, kElementKind, kWriteAddress } from "../launch/pointer-argument.ts";
import { ArrayMethods } from "./methods.ts";
import { INTERNAL, checkInternal, type Internal } from "../base/internal.ts";
import type { ScalarKind } from "../launch/mangling.ts";
import { Buffer } from "../memory/buffer.ts";
import type { MemoryResource } from "../memory/resource.ts";
import { Stream, keepAliveOn } from "../stream.ts";
import { OPTIONAL_STREAM, takeStream, takeStreamOption } from "../base/stream-arg.ts";
import { allocateHostArray, checkHostArray, type DefaultDTypeOf, dtypeOf, dtypeOfHostArray, encodeBFloat16, encodeHalf, type DType, type DTypeName, type HostArray, type HostArrayOf } from "./dtype.ts";
import {
  checkInside,
  checkShape,
  coalesce,
  contiguousStrides,
  elementCount,
  isContiguous,
  reshapeLayout,
  sameShape,
  sliceLayout,
  transposeLayout,
  viewLayout,
  type Layout,
  type SliceSpec,
} from "./layout.ts";
import { stridedCopy, stridedFill } from "./device-code.ts";
import type { AxisSpec } from "./broadcast.ts";
import { provideGlobalArrayFactory } from "../program/object-code.ts";

/** Options of operations ordered on a stream. */
export interface ArrayStreamOptions {
  /** The stream the operation is ordered on. */
  readonly stream: Stream;
}

/** Options of `toTypedArray`: the stream (default: the array's), and optionally where to put the elements. */
export interface ToTypedArrayOptions<T extends HostArray = HostArray> extends ArrayOperationOptions {
  /**
   * A typed array of the dtype's host type and exactly the array's element count to copy into (pinned memory, say
   * `pinnedBuffer.asTypedArray(Float32Array)`, for full bandwidth); default: a new one.
   */
  readonly out?: T;
}

/** Options of `copy`: the stream (default: the array's) and the memory resource (default: the stream's device's). */
export interface ArrayCopyOptions extends ArrayOperationOptions {
  /** The memory resource to allocate from (default: the stream's device's `memoryResource`). */
  readonly memoryResource?: MemoryResource;
}

/** Options of the allocating factories (`empty`, `zeros`, `full`, `from`). */
export interface ArrayAllocateOptions extends ArrayStreamOptions {
  /** The memory resource to allocate from (default: the stream's device's `memoryResource`). */
  readonly memoryResource?: MemoryResource;
}

/** Options of `DeviceArray.from`. */
export interface ArrayFromOptions<N extends DTypeName = DTypeName> extends ArrayAllocateOptions {
  /** The dtype (default: the typed array's own: Float32Array → float32, Uint16Array → uint16, ...). */
  readonly dtype?: N | DType<N>;
  /** The shape (default: one axis of every element). */
  readonly shape?: number | readonly number[];
}

/** Options of `DeviceArray.fromBuffer`. */
export interface ArrayOverBufferOptions<N extends DTypeName = DTypeName> {
  readonly dtype: N | DType<N>;
  /** The shape (default: as many elements as fit after `byteOffset`, on one axis). */
  readonly shape?: number | readonly number[];
  /** Strides in elements (default: row-major contiguous). */
  readonly strides?: readonly number[];
  /** Where element [0, ...] is, in bytes from the buffer's start (default 0). */
  readonly byteOffset?: number;
  /** The stream the array's operations run on when they are given none (default: none; each call then needs one). */
  readonly stream?: Stream;
  /**
   * Whether the memory may only be read (default false): cuda-ts's operations then refuse to write the array or its
   * views (an `out`, `copyFrom`, `fill`, `put`, ...), and it re-exports as read-only (DLPack's flag, the CUDA Array
   * Interface's `data[1]`). Raw kernel launches and the math library objects are not checked.
   */
  readonly readOnly?: boolean;
}

/**
 * Options of an operation on arrays: the stream it runs on (default: the stream of its first array operand, the one
 * that array was made on).
 */
export interface ArrayOperationOptions {
  /** The stream the operation is ordered on (default: the first array operand's {@link DeviceArray.stream}). */
  readonly stream?: Stream;
}

/** Options of the reductions (`sum`, `prod`, `min`, `max`, `mean`): the stream, the axes, whether to keep them. */
export interface ReduceOptions extends ArrayOperationOptions {
  /** The axes reduced: one, several, negative counting from the end (default: every axis, a 0-d result). */
  readonly axis?: AxisSpec;
  /** Whether the reduced axes stay, with extent 1 (default false). */
  readonly keepdims?: boolean;
  /**
   * The array the result is written into: the result's shape (the reduced axes dropped, or of extent 1 under
   * `keepdims`) and a dtype the result converts to under NumPy's "same_kind" rule (see `canCastSameKind`); default:
   * a new array. It may share memory with the input (written through a temporary then).
   */
  readonly out?: DeviceArray;
}

/** The standard reductions. */
export type ReductionName = "sum" | "prod" | "min" | "max" | "mean";

/**
 * @internal Checks run after a read to the host has synchronised with its stream (`toTypedArray`, `item`): device-side
 * checks of earlier operations on that stream (out-of-range indices) report through them, as typed errors.
 */
export type AfterReadCheck = (stream: Stream) => void;

const afterReadChecks: AfterReadCheck[] = [];

/** @internal Registers a check run after every synchronised read to the host (see {@link AfterReadCheck}). */
export function provideAfterReadCheck(check: AfterReadCheck): void {
  afterReadChecks.push(check);
}

/** @internal Runs the after-read checks of `stream` (the stream has synchronised). */
export function runAfterReadChecks(stream: Stream): void {
  for (const check of afterReadChecks) check(stream);
}

/** A value `fill`/`full` writes: a number (a bigint for 64-bit integers), a boolean, or [re, im] for complex dtypes. */
export type ArrayScalar = number | bigint | boolean | readonly [number, number];

/** The bytes of one element of `dtype` holding `value`. */
export function encodeElement(dtype: DType, value: ArrayScalar): Uint8Array {
  const bytes = new Uint8Array(dtype.itemsize);
  const dv = new DataView(bytes.buffer);
  const bad = (expected: string): never => {
    throw new DTypeError(`a ${dtype.name} element is ${expected}, got ${describeValue(value)}`);
  };
  if (dtype.kind === "c") {
    const pair = typeof value === "number" ? [value, 0] : Array.isArray(value) && value.length === 2 ? value : bad("a number or [re, im]");
    const [re, im] = pair as [number, number];
    if (typeof re !== "number" || typeof im !== "number") bad("a number or [re, im] of numbers");
    if (dtype.itemsize === 8) {
      dv.setFloat32(0, re, true);
      dv.setFloat32(4, im, true);
    } else {
      dv.setFloat64(0, re, true);
      dv.setFloat64(8, im, true);
    }
    return bytes;
  }
  if (dtype.name === "bool") {
    if (typeof value !== "boolean" && typeof value !== "number") bad("a boolean (or 0/1)");
    dv.setUint8(0, value ? 1 : 0);
    return bytes;
  }
  if (dtype.name === "int64" || dtype.name === "uint64") {
    if (typeof value === "number" && Number.isSafeInteger(value)) value = BigInt(value);
    if (typeof value !== "bigint") bad("an integer (a bigint, or a safe-integer number)");
    const v = value as bigint;
    if (dtype.name === "int64" ? BigInt.asIntN(64, v) !== v : BigInt.asUintN(64, v) !== v) bad(`in the ${dtype.name} range`);
    if (dtype.name === "int64") dv.setBigInt64(0, v, true);
    else dv.setBigUint64(0, v, true);
    return bytes;
  }
  if (typeof value !== "number") return bad("a number");
  if (dtype.kind === "f") {
    if (dtype.name === "float16") dv.setUint16(0, encodeHalf(value), true);
    else if (dtype.name === "bfloat16") dv.setUint16(0, encodeBFloat16(value), true);
    else if (dtype.name === "float32") dv.setFloat32(0, value, true);
    else dv.setFloat64(0, value, true);
    return bytes;
  }
  const bits = dtype.itemsize * 8;
  const [lo, hi] = dtype.kind === "i" ? [-(2 ** (bits - 1)), 2 ** (bits - 1) - 1] : [0, 2 ** bits - 1];
  if (!Number.isInteger(value) || value < lo || value > hi) bad(`an integer from ${lo} to ${hi}`);
  if (dtype.itemsize === 1) dv.setUint8(0, value & 0xff);
  else if (dtype.itemsize === 2) dv.setUint16(0, value & 0xffff, true);
  else dv.setUint32(0, value >>> 0, true);
  return bytes;
}

function hostPointer(a: HostArray): NativePointer | null {
  return a.byteLength === 0 ? null : ffi.pointerOf(a);
}

function checkStream(options: unknown, action: string): Stream {
  return takeStreamOption(options as { stream?: Stream } | undefined, action);
}

/**
 * @internal The stream an operation on arrays runs on: `options.stream` where given, else the stream of the first
 * array among `operands` that has one (the one it was made on). Where another array operand was made on another open
 * stream, the chosen stream first waits for the work queued there, so the operation reads what that work wrote.
 */
export function operationStream(action: string, options: ArrayOperationOptions | undefined, operands: readonly unknown[]): Stream {
  let s: Stream | undefined;
  if (options !== undefined && options !== null && options.stream !== undefined) s = takeStreamOption(options, action);
  else {
    if (options !== undefined && (options === null || typeof options !== "object")) {
      throw new ArgumentError(`${action} takes its options as an object ({ stream?, ... }), not ${describeValue(options)}`);
    }
    for (const o of operands) {
      if (o instanceof DeviceArray && o.stream !== undefined) {
        s = o.stream;
        break;
      }
    }
    if (s === undefined) {
      throw new ArgumentError(`${action} needs a stream: none of its arrays was made on one (arrays over a caller's memory have none); pass { stream }`);
    }
    if (s.isClosed) {
      throw new ClosedError("the stream its array was made on", `run ${action} on it; pass { stream } with an open stream`);
    }
  }
  for (const o of operands) {
    if (o instanceof DeviceArray && o.stream !== undefined && o.stream !== s && !o.stream.isClosed && !o.stream.equals(s)) s.wait(o.stream);
  }
  return s;
}

/**
 * @internal The device address of `a`'s element [0, ...] as a number, kept after the first read (hot paths compare
 * and align addresses in number arithmetic). The caller checks that `a` is open.
 */
export let addressOf: (a: DeviceArray) => number;

/**
 * @internal Hands the memory `owner` allocated over to `heir`, a new array over the same buffer that owns it: `owner`
 * is closed without freeing anything, so closing it later (a scope's end, a `close()`) leaves `heir` working, and
 * closing `heir` frees the memory. `owner` must own its buffer and `heir` must not.
 */
export let transferOwnership: <N extends DTypeName>(owner: DeviceArray<N>, heir: (owns: true) => DeviceArray<N>) => DeviceArray<N>;

/**
 * Refuses to write a read-only array (see {@link DeviceArray.readOnly}): an ArgumentError naming `what` (the operation
 * and the argument, e.g. "add: out") and what to do.
 */
export function checkWritable(a: DeviceArray, what: string): void {
  if (!a.readOnly) return;
  const repeated = a.shape.findIndex((n, d) => n > 1 && a.strides[d] === 0);
  if (repeated >= 0) {
    throw new ArgumentError(
      `${what}: the ${a.dtype.name} array of shape [${a.shape.join(", ")}] repeats its elements (stride 0 along axis ${repeated}: a broadcast view), so writing it would write each element from several threads at once; write into a new array (a.copy(), or leave out the out) instead`,
    );
  }
  throw new ArgumentError(
    `${what}: the ${a.dtype.name} array of shape [${a.shape.join(", ")}] is read-only (its memory was lent read-only: a read-only DLPack tensor or CUDA Array Interface, or fromBuffer's readOnly); write into a copy instead (a.copy())`,
  );
}

function checkNotClosed(a: DeviceArray, action: string): void {
  if (a.isClosed) throw closedError(a, `this DeviceArray (${a.dtype.name} [${a.shape.join(", ")}])`, action);
}

/** A typed, shaped view of device memory. */
export class DeviceArray<N extends DTypeName = DTypeName> extends ArrayMethods {
  /** The element type. */
  readonly dtype: DType<N>;
  /** The extents of each axis. */
  readonly shape: readonly number[];
  /** The step between neighbours along each axis, in elements (may be negative or 0). */
  readonly strides: readonly number[];
  /** Where element [0, ...] is, in bytes from the start of `buffer`. */
  readonly byteOffset: number;
  /** The memory. */
  readonly buffer: Buffer;
  /** The array this one is a view of (kept alive by this one), or undefined. */
  readonly base: DeviceArray | undefined;
  /**
   * The stream this array was made on (views share their base's), where operations on it run when they are given
   * none: `a.add(b).sum()` runs on `a.stream`. Undefined for arrays over a caller's memory made without one
   * (`fromBuffer`, DLPack without a stream): pass `{ stream }` to their operations.
   */
  readonly stream: Stream | undefined;
  /** Whether closing this array closes its buffer (it allocated it). */
  readonly #ownsBuffer: boolean;
  #closed = false;
  readonly #size: number;
  readonly #contiguous: boolean;
  /** The address of element [0, ...] as a number (device addresses fit 53 bits), read on first use; -1 before. */
  #addressNumber = -1;
  /** Read-only: set by fromBuffer's `readOnly` (before any view exists), copied from the base into each view. */
  #readOnly: boolean;
  /** Whether some axis of more than one element has stride 0 (a broadcast view): its elements share memory. */
  readonly #repeats: boolean;

  static {
    addressOf = (a) => {
      if (a.#addressNumber < 0) a.#addressNumber = Number(a.address);
      return a.#addressNumber;
    };
    transferOwnership = (owner, heir) => {
      if (!owner.#ownsBuffer || owner.#closed) throw new ArrayLayoutError("an array that does not own its open memory has none to hand over");
      const a = heir(true);
      owner.#closed = true;
      return a;
    };
  }

  /**
   * Reserved to cuda-ts (the token is not exported): use the factories (`from`, `empty`, `zeros`, `full`,
   * `fromBuffer`) or a view method.
   */
  constructor(
    token: Internal,
    buffer: Buffer,
    dtype: DType<N>,
    shape: readonly number[],
    strides: readonly number[],
    byteOffset: number,
    base: DeviceArray | undefined,
    ownsBuffer: boolean,
    stream: Stream | undefined = base?.stream,
  ) {
    super();
    checkInternal(token, "DeviceArray", "DeviceArray.empty, zeros, full, from or fromBuffer");
    if (!(buffer instanceof Buffer)) throw new TypeError(`a DeviceArray lives in a Buffer, not ${describeValue(buffer)}`);
    if (strides.length !== shape.length) {
      throw new ArrayLayoutError(`strides [${strides.join(", ")}] do not match shape [${shape.join(", ")}]: one stride per axis`);
    }
    for (const s of strides) if (!Number.isSafeInteger(s)) throw new ArrayLayoutError(`strides are integers (in elements), got [${strides.join(", ")}]`);
    checkInside(shape, strides, byteOffset, dtype.itemsize, buffer.size, `a ${dtype.name} array over a ${buffer.size}-byte buffer`);
    this.buffer = buffer;
    this.dtype = dtype;
    this.shape = Object.freeze([...shape]);
    this.strides = Object.freeze([...strides]);
    this.byteOffset = byteOffset;
    this.base = base;
    this.#readOnly = base !== undefined && base.#readOnly;
    this.stream = stream;
    this.#ownsBuffer = ownsBuffer;
    this.#size = elementCount(shape);
    this.#contiguous = isContiguous(shape, strides);
    // A contiguous array repeats nothing: only strided views are looked at.
    this.#repeats = !this.#contiguous && shape.some((n, d) => n > 1 && strides[d] === 0);
    if (scopeDepth !== 0) adoptIntoScope(this);
  }

  // ---- factories ----

  /** An uninitialised array of `shape`, allocated on the stream's device (or from `memoryResource`). */
  static empty<N extends DTypeName>(shape: number | readonly number[], dtype: N | DType<N>, options: ArrayAllocateOptions): DeviceArray<N> {
    const dt = dtypeOf(dtype);
    const sh = checkShape(shape);
    const stream = checkStream(options, "DeviceArray.empty");
    const bytes = elementCount(sh) * dt.itemsize;
    const mr = options.memoryResource ?? stream.device.memoryResource;
    const buffer = mr.allocate(bytes, { stream });
    return new DeviceArray(INTERNAL, buffer, dt, sh, contiguousStrides(sh), 0, undefined, true, stream);
  }

  /** An array of `shape` filled with zeros. */
  static zeros<N extends DTypeName>(shape: number | readonly number[], dtype: N | DType<N>, options: ArrayAllocateOptions): DeviceArray<N> {
    const a = DeviceArray.empty(shape, dtype, options);
    if (a.buffer.size > 0) a.buffer.fill(0, { stream: options.stream });
    return a;
  }

  /** An array of `shape` with every element `value` (a number, a bigint for 64-bit integers, [re, im] for complex). */
  static full<N extends DTypeName>(shape: number | readonly number[], value: ArrayScalar, dtype: N | DType<N>, options: ArrayAllocateOptions): DeviceArray<N> {
    const dt = dtypeOf(dtype);
    const bytes = encodeElement(dt, value); // checked before allocating
    const a = DeviceArray.empty(shape, dt, options);
    a.#fillBytes(bytes, options.stream);
    return a;
  }

  /**
   * An array with a copy of `data` (a typed array), copied on `options.stream`: the copy is queued, and `data` is
   * kept alive until the stream has done it. Float16/bfloat16 come as their bits in a Uint16Array with `{ dtype }`,
   * complex as interleaved (re, im) pairs.
   */
  static from<T extends HostArray, N extends DTypeName = DefaultDTypeOf<T>>(data: T, options: ArrayFromOptions<N>): DeviceArray<N> {
    const stream = checkStream(options, "DeviceArray.from");
    const dt = (options.dtype === undefined ? dtypeOfHostArray(data) : dtypeOf(options.dtype)) as DType<N>;
    checkHostArray(data, dt, "DeviceArray.from");
    if (data.length % dt.lanes !== 0) throw new ShapeMismatchError(`DeviceArray.from: ${data.length} entries are not whole ${dt.name} elements (${dt.lanes} entries each)`);
    const n = data.length / dt.lanes;
    const shape = options.shape === undefined ? [n] : checkShape(options.shape, "DeviceArray.from: shape");
    if (elementCount(shape) !== n) throw new ShapeMismatchError(`DeviceArray.from: shape [${shape.join(", ")}] holds ${elementCount(shape)} elements but the data has ${n}`);
    const a = DeviceArray.empty(shape, dt, options);
    if (n > 0) copyHostToDevice(a.buffer, a.byteOffset, data, a.nbytes, stream);
    return a;
  }

  /**
   * An array over existing memory (a Buffer, perhaps foreign: `Buffer.fromHandle(ptr, size, { owner })`), without
   * copying. The buffer stays the caller's: closing the array does not close it. The layout must lie inside it.
   */
  static fromBuffer<N extends DTypeName>(buffer: Buffer, options: ArrayOverBufferOptions<N>): DeviceArray<N> {
    if (!(buffer instanceof Buffer)) throw new TypeError(`DeviceArray.fromBuffer takes a Buffer, not ${describeValue(buffer)}`);
    if (options === null || typeof options !== "object") throw new TypeError("DeviceArray.fromBuffer takes options { dtype, shape?, strides?, byteOffset? }");
    const dt = dtypeOf(options.dtype);
    const byteOffset = options.byteOffset ?? 0;
    if (!Number.isSafeInteger(byteOffset) || byteOffset < 0) throw new ArrayLayoutError(`DeviceArray.fromBuffer: byteOffset must be a non-negative integer, got ${String(byteOffset)}`);
    const shape = options.shape === undefined ? [Math.floor((buffer.size - byteOffset) / dt.itemsize)] : checkShape(options.shape);
    const strides = options.strides === undefined ? contiguousStrides(shape) : [...options.strides];
    const stream = options.stream === undefined ? undefined : takeStreamOption(options, "DeviceArray.fromBuffer");
    const a = new DeviceArray(INTERNAL, buffer, dt, shape, strides, byteOffset, undefined, false, stream);
    a.#readOnly = options.readOnly === true;
    return a;
  }

  // ---- properties ----

  /**
   * Whether this array may only be read: made so (`fromBuffer`'s `readOnly`, a read-only DLPack tensor or CUDA Array
   * Interface), a view of such an array, or a view that repeats its elements (stride 0 along an axis of more than one
   * element: `broadcastTo`, `broadcastArrays`), whose writes would race, as NumPy's `broadcast_to` is read-only.
   * Writing it through cuda-ts throws an ArgumentError; `copy()` gives a writable copy.
   */
  get readOnly(): boolean {
    return this.#readOnly || this.#repeats;
  }

  /** The number of elements. */
  get size(): number {
    return this.#size;
  }
  /** The number of axes. */
  get ndim(): number {
    return this.shape.length;
  }
  /** Bytes per element. */
  get itemsize(): number {
    return this.dtype.itemsize;
  }
  /** Bytes of the elements (size × itemsize; a strided view spans more of its buffer). */
  get nbytes(): number {
    return this.#size * this.dtype.itemsize;
  }
  /** Whether the elements are row-major and packed (then one memcpy moves them). */
  get isContiguous(): boolean {
    return this.#contiguous;
  }
  /** The device the memory is on. */
  get device(): Device {
    return this.buffer.device;
  }
  /** Whether this array, one it views, or its buffer was closed. */
  get isClosed(): boolean {
    return this.#closed || this.buffer.isClosed || (this.base?.isClosed ?? false);
  }
  /** The device address of element [0, ...] (ClosedError when closed). */
  get address(): bigint {
    checkNotClosed(this, "use its memory");
    return BigInt(this.buffer.handle) + BigInt(this.byteOffset);
  }
  /** The strides in bytes. */
  get byteStrides(): number[] {
    return this.strides.map((s) => s * this.dtype.itemsize);
  }
  /** The transpose (axes reversed), a view. */
  get T(): DeviceArray<N> {
    return this.transpose();
  }

  get [kElementKind](): ScalarKind {
    return this.dtype.scalar;
  }
  [kWriteAddress](dv: DataView, offset: number): void {
    dv.setBigUint64(offset, this.address, true);
  }
  [kDescribeArgument](): string {
    return `a ${this.dtype.name} DeviceArray of shape [${this.shape.join(", ")}]`;
  }

  // ---- views ----

  #layout(): Layout {
    return { shape: this.shape, strides: this.strides, offset: 0 };
  }

  #viewOf<M extends DTypeName>(layout: Layout, dtype: DType<M> = this.dtype as unknown as DType<M>, byteOffset = this.byteOffset + layout.offset * this.dtype.itemsize): DeviceArray<M> {
    checkNotClosed(this, "make a view of it");
    return new DeviceArray<M>(INTERNAL, this.buffer, dtype, layout.shape, layout.strides, byteOffset, this, false);
  }

  /**
   * A view of a part: one spec per leading axis, each an index (the axis is dropped), `[start, stop, step]` (any may
   * be null or left out; negative values count from the end, as in Python), `{ start, stop, step }`, or null (all).
   * `a.slice(null, [0, null, 2])` is `a[:, ::2]`.
   */
  slice(...specs: SliceSpec[]): DeviceArray<N> {
    return this.#viewOf(sliceLayout(this.#layout(), specs));
  }

  /** Elements `begin` to `end` (exclusive) along the first axis, a view (as TypedArray.subarray). */
  subarray(begin?: number, end?: number): DeviceArray<N> {
    if (this.ndim === 0) throw new ArrayLayoutError("subarray: a 0-d array has no axis to take a part of");
    return this.slice([begin ?? null, end ?? null]);
  }

  /** The same elements in another shape (one extent may be -1), a view: ArrayLayoutError when the strides do not allow it (copy() first). */
  reshape(...shape: number[] | [readonly number[]]): DeviceArray<N> {
    const requested = shape.length === 1 && Array.isArray(shape[0]) ? [...(shape[0] as readonly number[])] : (shape as number[]);
    const layout = reshapeLayout(this.#layout(), requested);
    if (layout === undefined) {
      throw new ArrayLayoutError(
        `reshape: a view of shape [${this.shape.join(", ")}] with strides [${this.strides.join(", ")}] cannot be seen as [${requested.join(", ")}] without copying; call copy({ stream }) first`,
      );
    }
    return this.#viewOf(layout);
  }

  /** The axes permuted (default: reversed), a view. */
  transpose(...axes: number[] | [readonly number[]]): DeviceArray<N> {
    const list = axes.length === 0 ? undefined : axes.length === 1 && Array.isArray(axes[0]) ? [...(axes[0] as readonly number[])] : (axes as number[]);
    return this.#viewOf(transposeLayout(this.#layout(), list));
  }

  /** The same bytes as another dtype, a view (the last axis scales when the sizes differ; it must be contiguous then). */
  view<M extends DTypeName>(dtype: M | DType<M>): DeviceArray<M> {
    const dt = dtypeOf(dtype);
    const v = viewLayout(this.#layout(), this.byteOffset, this.dtype.itemsize, dt.itemsize);
    return this.#viewOf({ shape: v.shape, strides: v.strides, offset: 0 }, dt, v.byteOffset);
  }

  // ---- copies ----

  /** A contiguous copy of this array in new memory (from the same resource's device), on `stream`. */
  copy(options?: ArrayCopyOptions): DeviceArray<N> {
    const stream = operationStream("DeviceArray.copy", options, [this]);
    checkNotClosed(this, "copy it");
    const out = DeviceArray.empty(this.shape, this.dtype, { stream, ...(options?.memoryResource !== undefined ? { memoryResource: options.memoryResource } : {}) });
    out.copyFrom(this, { stream });
    return out;
  }

  /**
   * Copies `src` (an array of the same shape and dtype, any strides, or a typed array of the same element count for
   * a contiguous destination) into this array, ordered on `stream`: one memcpy when both are contiguous, a 2D
   * memcpy when rows are, a generated strided-copy kernel otherwise.
   */
  copyFrom(src: DeviceArray | HostArray, options?: ArrayOperationOptions): void {
    checkWritable(this, "DeviceArray.copyFrom");
    const stream = operationStream("DeviceArray.copyFrom", options, [this, src]);
    checkNotClosed(this, "copy into it");
    if (!(src instanceof DeviceArray)) {
      checkHostArray(src, this.dtype, "DeviceArray.copyFrom");
      if (src.length !== this.#size * this.dtype.lanes) {
        throw new ShapeMismatchError(`DeviceArray.copyFrom: the typed array holds ${src.length / this.dtype.lanes} ${this.dtype.name} elements; this array has ${this.#size} (shape [${this.shape.join(", ")}])`);
      }
      if (!this.isContiguous) throw new ArrayLayoutError(`DeviceArray.copyFrom: copying host data needs a contiguous destination; this view has strides [${this.strides.join(", ")}]: copy into a contiguous array, then copy that into the view`);
      if (this.#size > 0) copyHostToDevice(this.buffer, this.byteOffset, src, this.nbytes, stream);
      return;
    }
    copyBetween(src, this, stream, "DeviceArray.copyFrom");
  }

  /** Copies this array into `dst` (same shape and dtype, any strides), ordered on `stream`. */
  copyTo(dst: DeviceArray, options?: ArrayOperationOptions): void {
    if (!(dst instanceof DeviceArray)) throw new TypeError(`DeviceArray.copyTo takes a DeviceArray (for host memory use toTypedArray), not ${describeValue(dst)}`);
    checkWritable(dst, "DeviceArray.copyTo: dst");
    const stream = operationStream("DeviceArray.copyTo", options, [this, dst]);
    copyBetween(this, dst, stream, "DeviceArray.copyTo");
  }

  /** Sets every element to `value`, ordered on `stream` (memset where the element width allows, else a fill kernel). */
  fill(value: ArrayScalar, options?: ArrayOperationOptions): void {
    checkWritable(this, "DeviceArray.fill");
    const stream = operationStream("DeviceArray.fill", options, [this]);
    checkNotClosed(this, "fill it");
    this.#fillBytes(encodeElement(this.dtype, value), stream);
  }

  #fillBytes(bytes: Uint8Array, stream: Stream): void {
    if (this.#size === 0) return;
    const w = this.dtype.itemsize;
    const ptr = this.address as CUdeviceptr;
    if (this.isContiguous && w <= 4) {
      const dv = new DataView(bytes.buffer);
      if (w === 1) driver.cuMemsetD8Async(ptr, dv.getUint8(0), this.#size, stream.handle);
      else if (w === 2) driver.cuMemsetD16Async(ptr, dv.getUint16(0, true), this.#size, stream.handle);
      else driver.cuMemsetD32Async(ptr, dv.getUint32(0, true), this.#size, stream.handle);
      return;
    }
    const c = coalesce(this.shape, this.strides, this.strides);
    stridedFill(stream, w, this.address, bytes, c.shape, c.a, this.#size);
  }

  /**
   * The elements, row-major, in a new typed array of the dtype's host type (Float32Array for float32, Uint16Array
   * bits for float16, interleaved pairs for complex), copied on `stream`; resolves once the stream has done the copy
   * (without blocking the thread, as `stream.done()`). Strided views are packed on the device first.
   */
  async toTypedArray(options?: ToTypedArrayOptions<HostArrayOf[N]>): Promise<HostArrayOf[N]> {
    const stream = operationStream("DeviceArray.toTypedArray", options, [this]);
    const host = this.#queueToHost(stream, options?.out, "DeviceArray.toTypedArray");
    await stream.done();
    if (afterReadChecks.length !== 0) runAfterReadChecks(stream);
    return host;
  }

  /** As {@link DeviceArray.toTypedArray}, blocking the thread until the copy is done (`stream.sync()`). */
  toTypedArraySync(options?: ToTypedArrayOptions<HostArrayOf[N]>): HostArrayOf[N] {
    const stream = operationStream("DeviceArray.toTypedArraySync", options, [this]);
    const host = this.#queueToHost(stream, options?.out, "DeviceArray.toTypedArraySync");
    stream.sync();
    if (afterReadChecks.length !== 0) runAfterReadChecks(stream);
    return host;
  }

  #queueToHost(stream: Stream, out: HostArray | undefined, action: string): HostArrayOf[N] {
    checkNotClosed(this, "read it");
    if (out !== undefined) {
      checkHostArray(out, this.dtype, `${action}: out`);
      if (out.length !== this.#size * this.dtype.lanes) {
        throw new ShapeMismatchError(`${action}: out holds ${out.length / this.dtype.lanes} ${this.dtype.name} elements; this array has ${this.#size} (shape [${this.shape.join(", ")}])`);
      }
    }
    const host = (out ?? allocateHostArray(this.dtype, this.#size)) as HostArrayOf[N];
    if (this.#size === 0) return host;
    if (this.isContiguous) {
      copyDeviceToHost(host, this.buffer, this.byteOffset, this.nbytes, stream);
      return host;
    }
    const packed = this.copy({ stream });
    copyDeviceToHost(host, packed.buffer, 0, packed.nbytes, stream);
    packed.close(stream);
    return host;
  }

  // ---- interop ----

  /**
   * The CUDA Array Interface (v3) description of this array: `{ shape, typestr, data: [ptr, false], version: 3,
   * strides (bytes, or null when contiguous), descr, stream }`. `stream` is the stream a consumer must order its
   * work after (its handle's address; 1 for the legacy default stream, 2 for per-thread; absent: none).
   */
  cudaArrayInterface(stream?: Stream): CudaArrayInterface {
    checkNotClosed(this, "describe it");
    const desc: CudaArrayInterface = {
      shape: [...this.shape],
      typestr: this.dtype.typestr,
      // As CuPy and PyTorch describe them: a size-0 array has the address 0.
      data: [this.#size === 0 ? 0n : this.address, this.readOnly],
      version: 3,
      strides: this.isContiguous ? null : this.byteStrides,
      descr: [["", this.dtype.typestr]],
    };
    const s = takeStream(stream, "DeviceArray.cudaArrayInterface", OPTIONAL_STREAM);
    if (s !== undefined) {
      const a = addressKey(s.handle);
      // CAI v3: 0 is disallowed (ambiguous); the legacy default stream is 1.
      desc.stream = a === 0 ? 1 : a;
    }
    return desc;
  }

  // ---- lifetime ----

  /**
   * Closes the array: an array that allocated its memory frees it (ordered on `stream`, default the allocating
   * stream), which closes every view over it; a view or an array over a caller's buffer only stops working.
   */
  close(stream?: Stream): void {
    if (this.#closed) return;
    this.#closed = true;
    argumentsChanged();
    if (this.#ownsBuffer) this.buffer.close(stream);
  }

  [Symbol.dispose](): void {
    this.close();
  }

  override toString(): string {
    return `DeviceArray(${this.dtype.name}, shape=[${this.shape.join(", ")}], strides=[${this.strides.join(", ")}]${this.isClosed ? ", closed" : ""})`;
  }
}

/** The CUDA Array Interface (version 3) of a device array, as Numba and CuPy read `__cuda_array_interface__`. */
export interface CudaArrayInterface {
  shape: number[];
  typestr: string;
  /** [device address, read-only]. */
  data: [bigint, boolean];
  version: 3;
  /** Byte strides, or null for C-contiguous. */
  strides: number[] | null;
  descr: [string, string][];
  /** A stream address the consumer synchronises on (1 = legacy default, 2 = per-thread default), when given. */
  stream?: number;
}

function copyHostToDevice(buffer: Buffer, byteOffset: number, src: HostArray, bytes: number, stream: Stream): void {
  const dst = (BigInt(buffer.handle) + BigInt(byteOffset)) as CUdeviceptr;
  const p = hostPointer(src);
  if (buffer.isHostAccessible) driver.cuMemcpyAsync(dst, (p === null ? 0n : ffi.bigAddressOf(p)) as CUdeviceptr, bytes, stream.handle);
  else driver.cuMemcpyHtoDAsync(dst, p, bytes, stream.handle);
  keepAliveOn(stream, src);
}

function copyDeviceToHost(dst: HostArray, buffer: Buffer, byteOffset: number, bytes: number, stream: Stream): void {
  const src = (BigInt(buffer.handle) + BigInt(byteOffset)) as CUdeviceptr;
  const p = hostPointer(dst);
  if (buffer.isHostAccessible) driver.cuMemcpyAsync((p === null ? 0n : ffi.bigAddressOf(p)) as CUdeviceptr, src, bytes, stream.handle);
  else driver.cuMemcpyDtoHAsync(p, src, bytes, stream.handle);
  keepAliveOn(stream, dst);
}

/** @internal The device an array's memory is on, or -1 for host-accessible memory (pinned, managed), usable from any device. */
export function memoryDevice(a: DeviceArray): number {
  return a.buffer.isHostAccessible ? -1 : a.buffer.deviceId;
}

const MAX_PITCH = 2 ** 31 - 1;

/** A stream-ordered copy between two arrays of one shape and dtype (checked here). */
function copyBetween(src: DeviceArray, dst: DeviceArray, stream: Stream, action: string): void {
  if (!(src instanceof DeviceArray)) throw new TypeError(`${action} takes a DeviceArray or a typed array, not ${describeValue(src)}`);
  checkNotClosed(src, "copy from it");
  checkNotClosed(dst, "copy into it");
  if (src.dtype !== dst.dtype) {
    throw new DTypeError(`${action}: the source is ${src.dtype.name} but the destination is ${dst.dtype.name}; view or convert one of them first`);
  }
  if (!sameShape(src.shape, dst.shape)) {
    throw new ShapeMismatchError(`${action}: the source has shape [${src.shape.join(", ")}] but the destination has shape [${dst.shape.join(", ")}]`);
  }
  if (src.size === 0) return;
  const w = src.itemsize;
  if (src.isContiguous && dst.isContiguous) {
    driver.cuMemcpyAsync(dst.address as CUdeviceptr, src.address as CUdeviceptr, src.nbytes, stream.handle);
    return;
  }
  const c = coalesce(src.shape, src.strides, dst.strides);
  // Rows contiguous in both, rows apart by positive pitches: one 2D memcpy (any memory, any devices).
  if (c.shape.length === 2 && c.a[1] === 1 && c.b[1] === 1 && c.a[0]! > 0 && c.b[0]! > 0 && c.a[0]! * w <= MAX_PITCH && c.b[0]! * w <= MAX_PITCH) {
    copy2D(src.address, c.a[0]! * w, dst.address, c.b[0]! * w, c.shape[1]! * w, c.shape[0]!, stream);
    return;
  }
  const sd = memoryDevice(src);
  const dd = memoryDevice(dst);
  if (sd >= 0 && dd >= 0 && sd !== dd) {
    refuseWrongDevice(`${action}: the destination`, sd, dd, "a strided copy runs on one device, the source's: copy a contiguous array across instead");
  }
  if (sd >= 0 && sd !== stream.device.id) {
    refuseWrongDevice(`${action}: the stream`, sd, stream.device.id, `a strided copy runs on the arrays' device: pass a stream of device ${sd}`);
  }
  stridedCopy(stream, w, src.address, dst.address, c.shape, c.a, c.b, src.size);
}

function copy2D(src: bigint, srcPitch: number, dst: bigint, dstPitch: number, widthBytes: number, height: number, stream: Stream): void {
  const d = new CUDA_MEMCPY2D_st(); // zeroed: no offsets, no host or array operands
  d.srcMemoryType = CUmemorytype.CU_MEMORYTYPE_UNIFIED;
  d.srcDevice = src as CUdeviceptr;
  d.srcPitch = srcPitch;
  d.dstMemoryType = CUmemorytype.CU_MEMORYTYPE_UNIFIED;
  d.dstDevice = dst as CUdeviceptr;
  d.dstPitch = dstPitch;
  d.WidthInBytes = widthBytes;
  d.Height = height;
  driver.cuMemcpy2DAsync(d.$pointer(), stream.handle);
}

// ObjectCode.getGlobal hands out arrays through this link (the program layer sits below the arrays).
provideGlobalArrayFactory((buffer, options) => DeviceArray.fromBuffer(buffer, { dtype: options.dtype, ...(options.shape !== undefined ? { shape: options.shape } : {}) }));
