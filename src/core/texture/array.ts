/**
 * CUDA arrays: opaque, texture-friendly memory (`cuArray3DCreate`): 1D, 2D or 3D, layered (1D or 2D layers),
 * cubemaps (six square faces, optionally layered), with a channel format from a dtype and a channel count, and
 * surface load/store allowed on request. Copies go to and from DeviceArrays and host TypedArrays
 * (`cuMemcpy3DAsync`). Mipmapped arrays (`cuMipmappedArrayCreate`) hold a chain of levels, each a CudaArray.
 *
 * Arrays are made in the current context (or the one given); `close()` destroys the array, after closing the
 * textures and surfaces made over it (using them afterwards is a ClosedError, not undefined behaviour).
 *
 * @module
 */
import {
  CUDA_ARRAY3D_DESCRIPTOR_st,
  CUDA_MEMCPY3D_st,
  CUarray_format,
  CUmemorytype,
  CUDA_ARRAY3D_CUBEMAP,
  CUDA_ARRAY3D_LAYERED,
  CUDA_ARRAY3D_SURFACE_LDST,
  CUDA_ARRAY3D_TEXTURE_GATHER,
  type CUarray,
  type CUdeviceptr,
  type CUmipmappedArray,
} from "../../bindings/driver.ts";
import { ffi } from "../../ffi/index.ts";
import { DeviceArray } from "../array/device-array.ts";
import { allocateHostArray, checkHostArray, dtypeOf, type DType, type HostArray } from "../array/dtype.ts";
import { Context } from "../context.ts";
import { driver, withCurrentContext } from "../base/driver-state.ts";
import { describeValue } from "../../errors/describe.ts";
import { trackLazily, untrack } from "../base/lifetime.ts";
import { ArrayLayoutError, DTypeError } from "../array/errors.ts";
import { ClosedError, NoContextError } from "../base/errors.ts";
import { TextureError } from "./errors.ts";
import type { Stream } from "../stream.ts";
import { takeStreamOption } from "../base/stream-arg.ts";
import { checkInternal, type Internal, INTERNAL } from "../base/internal.ts";

/** The element types a CUDA array holds (one channel). */
export type ArrayDType = "uint8" | "int8" | "uint16" | "int16" | "uint32" | "int32" | "float16" | "float32";

/** Channels per element: 1, 2 or 4. */
export type ArrayChannels = 1 | 2 | 4;

const FORMATS: Readonly<Record<ArrayDType, number>> = {
  uint8: CUarray_format.CU_AD_FORMAT_UNSIGNED_INT8,
  int8: CUarray_format.CU_AD_FORMAT_SIGNED_INT8,
  uint16: CUarray_format.CU_AD_FORMAT_UNSIGNED_INT16,
  int16: CUarray_format.CU_AD_FORMAT_SIGNED_INT16,
  uint32: CUarray_format.CU_AD_FORMAT_UNSIGNED_INT32,
  int32: CUarray_format.CU_AD_FORMAT_SIGNED_INT32,
  float16: CUarray_format.CU_AD_FORMAT_HALF,
  float32: CUarray_format.CU_AD_FORMAT_FLOAT,
};

/** @internal The driver's channel format of a dtype (TextureError for one a CUDA array cannot hold). */
export function arrayFormat(dtype: unknown, what: string): number {
  const name = typeof dtype === "string" ? dtype : (dtype as DType | undefined)?.name;
  if (typeof name !== "string" || !Object.prototype.hasOwnProperty.call(FORMATS, name)) {
    throw new TextureError(`${what}: the channel dtype must be one of ${Object.keys(FORMATS).map((k) => JSON.stringify(k)).join(", ")}, not ${describeValue(name ?? dtype)}`);
  }
  return FORMATS[name as ArrayDType];
}

/** @internal Checks a channel count (1, 2 or 4). */
export function checkChannels(channels: unknown, what: string): ArrayChannels {
  if (channels === undefined) return 1;
  if (channels !== 1 && channels !== 2 && channels !== 4) throw new TextureError(`${what}: channels must be 1, 2 or 4, not ${describeValue(channels)}`);
  return channels;
}

/** Options of a CUDA array. */
export interface CudaArrayOptions {
  /** The type of one channel. */
  readonly dtype: ArrayDType;
  /** Channels per element (default 1). */
  readonly channels?: ArrayChannels;
  /** Width in elements (a cubemap's face size). */
  readonly width: number;
  /** Height in elements (omit or 0 for a 1D array). */
  readonly height?: number;
  /** Depth in elements (omit or 0 for 1D and 2D arrays). Not with `layers` or `cubemap`. */
  readonly depth?: number;
  /** A layered array of this many layers (1D layers without height, 2D layers with it). */
  readonly layers?: number;
  /** A cubemap: six `width` × `width` faces (× `layers` with layers). */
  readonly cubemap?: boolean;
  /** Allow surface objects over the array (CUDA_ARRAY3D_SURFACE_LDST). */
  readonly surfaceLoadStore?: boolean;
  /** Allow texture gather (2D arrays only). */
  readonly textureGather?: boolean;
  /** The context to make the array in (default: the current one). */
  readonly context?: Context;
}

/** The resolved shape of an array: the driver's Width/Height/Depth and what they mean. */
export interface ArrayExtent {
  readonly width: number;
  readonly height: number;
  /** The driver's Depth: depth, layers, 6 faces (× layers). */
  readonly depth: number;
  readonly layered: boolean;
  readonly cubemap: boolean;
}

function extent(name: string, v: unknown, what: string, min: number): number {
  if (v === undefined) return 0;
  if (typeof v !== "number" || !Number.isInteger(v) || v < min || v > 2 ** 31) throw new TextureError(`${what}: ${name} must be an integer ≥ ${min}, not ${describeValue(v)}`);
  return v;
}

/** @internal Resolves and checks an array's options into the driver's descriptor. */
export function arrayDescriptor(options: CudaArrayOptions, what: string): { desc: CUDA_ARRAY3D_DESCRIPTOR_st; dtype: DType; channels: ArrayChannels; extent: ArrayExtent; flags: number } {
  if (options === null || typeof options !== "object") throw new TextureError(`${what} takes an options object { dtype, width, ... }, not ${describeValue(options)}`);
  const format = arrayFormat(options.dtype, what);
  const channels = checkChannels(options.channels, what);
  const width = extent("width", options.width, what, 1);
  if (options.width === undefined) throw new TextureError(`${what}: width is required (an integer ≥ 1)`);
  let height = extent("height", options.height, what, 0);
  let depth = extent("depth", options.depth, what, 0);
  const layers = extent("layers", options.layers, what, 1);
  const cubemap = options.cubemap ?? false;
  if (typeof cubemap !== "boolean") throw new TextureError(`${what}: cubemap must be a boolean, not ${describeValue(cubemap)}`);
  let flags = 0;
  if (depth > 0 && height === 0) throw new TextureError(`${what}: a 3D array needs a height as well as a depth`);
  if (layers > 0) {
    if (depth > 0) throw new TextureError(`${what}: a layered array has layers instead of a depth; give one of them`);
    flags |= CUDA_ARRAY3D_LAYERED;
  }
  if (cubemap) {
    if (depth > 0) throw new TextureError(`${what}: a cubemap has six faces instead of a depth; omit depth`);
    if (height !== 0 && height !== width) throw new TextureError(`${what}: a cubemap's faces are square: height must equal width (${width}), not ${height}`);
    height = width;
    depth = 6 * (layers > 0 ? layers : 1);
    flags |= CUDA_ARRAY3D_CUBEMAP;
  } else if (layers > 0) depth = layers;
  if (options.surfaceLoadStore === true) flags |= CUDA_ARRAY3D_SURFACE_LDST;
  if (options.textureGather === true) {
    if (height === 0 || depth !== 0) throw new TextureError(`${what}: texture gather needs a 2D array (width and height, no depth or layers)`);
    flags |= CUDA_ARRAY3D_TEXTURE_GATHER;
  }
  const desc = new CUDA_ARRAY3D_DESCRIPTOR_st();
  desc.Width = width;
  desc.Height = height;
  desc.Depth = depth;
  desc.Format = format as never;
  desc.NumChannels = channels;
  desc.Flags = flags;
  return { desc, dtype: dtypeOf(options.dtype), channels, extent: { width, height, depth, layered: layers > 0, cubemap }, flags };
}

/** Where a copy's other side is: a DeviceArray or a host TypedArray. */
export type ArrayCopyPeer = DeviceArray | HostArray;

/** Options of a copy to or from a CUDA array. */
export interface ArrayCopyOptions {
  /** The stream the copy is ordered on. */
  readonly stream: Stream;
}

let arrayParts: (a: CudaArray) => { readonly context: Context; dependents: Set<{ close(): void }> };

/**
 * A CUDA array: opaque memory laid out for textures and surfaces. Make one with {@link CudaArray.create}; copy
 * into it with `copyFrom` and out with `copyTo` / `toTypedArray`; bind it with `TextureObject.create(array, ...)`
 * or `SurfaceObject.create(array)`.
 */
export class CudaArray {
  /** The type of one channel. */
  readonly dtype: DType;
  /** Channels per element. */
  readonly channels: ArrayChannels;
  /** Width, height and the driver's depth (layers or faces for layered and cubemap arrays). */
  readonly extent: ArrayExtent;
  /** Whether surfaces may be made over it. */
  readonly surfaceLoadStore: boolean;
  readonly #context: Context;
  #handle: CUarray;
  #closed = false;
  /** A level of a mipmapped array: destroyed with it, not by close(). */
  readonly #owner: MipmappedArray | undefined;
  /** Textures and surfaces over this array: closed before it. */
  readonly #dependents = new Set<{ close(): void }>();

  static {
    arrayParts = (a) => ({ context: a.#context, dependents: a.#dependents });
  }

  /** Reserved to cuda-ts (the token is not exported): use {@link CudaArray.create} (or `MipmappedArray.level`). */
  constructor(token: Internal, handle: CUarray, context: Context, dtype: DType, channels: ArrayChannels, ext: ArrayExtent, flags: number, owner: MipmappedArray | undefined) {
    checkInternal(token, "CudaArray", "CudaArray.create");
    this.#handle = handle;
    this.#context = context;
    this.dtype = dtype;
    this.channels = channels;
    this.extent = Object.freeze({ ...ext });
    this.surfaceLoadStore = (flags & CUDA_ARRAY3D_SURFACE_LDST) !== 0;
    this.#owner = owner;
    if (owner === undefined) {
      trackLazily(this, "CudaArray", (a: CudaArray) => {
        const h = a.#handle;
        const ctx = a.#context;
        return () => withCurrentContext(ctx.handle, () => driver.cuArrayDestroy(h));
      });
    }
  }

  /** Makes a CUDA array (`cuArray3DCreate`) in the current context, or `options.context`. */
  static create(options: CudaArrayOptions): CudaArray {
    const { desc, dtype, channels, extent: ext, flags } = arrayDescriptor(options, "CudaArray.create");
    const context = contextOf(options.context, "CudaArray.create");
    const handle = withCurrentContext(context.handle, () => driver.cuArray3DCreate(desc));
    return new CudaArray(INTERNAL, handle, context, dtype, channels, ext, flags, undefined);
  }

  /** The CUarray handle (ClosedError after close()). */
  get handle(): CUarray {
    if (this.isClosed) throw new ClosedError(this.#what(), "use its handle");
    return this.#handle;
  }

  /** The context it lives in. */
  get context(): Context {
    return this.#context;
  }

  /** Whether it (or the mipmapped array it is a level of) was closed. */
  get isClosed(): boolean {
    return this.#closed || (this.#owner?.isClosed ?? false);
  }

  /** Bytes per element (all channels). */
  get elementSize(): number {
    return this.dtype.itemsize * this.channels;
  }

  /** Elements in the array (width × height × depth, each at least 1). */
  get size(): number {
    const e = this.extent;
    return e.width * Math.max(e.height, 1) * Math.max(e.depth, 1);
  }

  /** Host TypedArray entries the whole array holds (elements × channels). */
  get length(): number {
    return this.size * this.channels;
  }

  #what(): string {
    const e = this.extent;
    const dims = [e.width, e.height, e.depth].filter((d) => d > 0).join(" × ");
    return `this CudaArray (${this.dtype.name} × ${this.channels}, ${dims}${e.cubemap ? ", cubemap" : e.layered ? ", layered" : ""})`;
  }

  /** The copy descriptor for the whole array, with the array on one side. */
  #copy(peer: ArrayCopyPeer, toArray: boolean, action: string): { copy: CUDA_MEMCPY3D_st; keep: unknown } {
    if (this.isClosed) throw new ClosedError(this.#what(), action);
    const e = this.extent;
    const rowBytes = e.width * this.elementSize;
    const rows = Math.max(e.height, 1);
    const slices = Math.max(e.depth, 1);
    const c = new CUDA_MEMCPY3D_st();
    c.WidthInBytes = rowBytes;
    c.Height = rows;
    c.Depth = slices;
    let pitch = rowBytes;
    let memoryType: number;
    let host: HostArray | undefined;
    let device = 0n;
    if (peer instanceof DeviceArray) {
      if (peer.isClosed) throw new ClosedError(`the DeviceArray (${peer.dtype.name} [${peer.shape.join(", ")}])`, action);
      if (peer.dtype !== this.dtype) throw new DTypeError(`CudaArray.${action}: the DeviceArray holds ${peer.dtype.name} but the CUDA array's channels are ${this.dtype.name}`);
      pitch = devicePitch(peer, rowBytes, rows * slices, `CudaArray.${action}`);
      memoryType = CUmemorytype.CU_MEMORYTYPE_DEVICE;
      device = peer.address;
    } else {
      host = checkHostArray(peer, this.dtype, `CudaArray.${action}`);
      if (host.length !== this.length) {
        throw new TextureError(`CudaArray.${action}: the host array has ${host.length} entries but the CUDA array holds ${this.length} (${this.size} elements × ${this.channels} channels)`);
      }
      memoryType = CUmemorytype.CU_MEMORYTYPE_HOST;
    }
    const handle = this.#handle;
    if (toArray) {
      c.dstMemoryType = CUmemorytype.CU_MEMORYTYPE_ARRAY as never;
      c.dstArray = handle;
      c.srcMemoryType = memoryType as never;
      if (host !== undefined) c.srcHost = ffi.pointerOf(host);
      else c.srcDevice = device as CUdeviceptr;
      c.srcPitch = pitch;
      c.srcHeight = rows;
    } else {
      c.srcMemoryType = CUmemorytype.CU_MEMORYTYPE_ARRAY as never;
      c.srcArray = handle;
      c.dstMemoryType = memoryType as never;
      if (host !== undefined) c.dstHost = ffi.pointerOf(host);
      else c.dstDevice = device as CUdeviceptr;
      c.dstPitch = pitch;
      c.dstHeight = rows;
    }
    return { copy: c, keep: host };
  }

  /**
   * Copies a whole DeviceArray (same dtype, as many entries, rows contiguous: a contiguous array, or a 2D/3D array
   * whose rows are padded) or host TypedArray into the array, ordered on `options.stream`. A host source may be
   * reused as soon as this returns (the driver stages pageable memory).
   */
  copyFrom(src: ArrayCopyPeer, options: ArrayCopyOptions): void {
    const stream = takeStreamOption(options, "copyFrom", this);
    const { copy, keep } = this.#copy(src, true, "copyFrom");
    withCurrentContext(stream.context.handle, () => driver.cuMemcpy3DAsync(copy, stream.handle));
    void keep;
  }

  /**
   * Copies the whole array into a DeviceArray (ordered on the stream) or a host TypedArray (this waits for the
   * stream: the data is in the host array when it returns; await `toTypedArray` to wait without blocking).
   */
  copyTo(dst: ArrayCopyPeer, options: ArrayCopyOptions): void {
    const stream = takeStreamOption(options, "copyTo", this);
    const { copy, keep } = this.#copy(dst, false, "copyTo");
    withCurrentContext(stream.context.handle, () => driver.cuMemcpy3DAsync(copy, stream.handle));
    if (keep !== undefined) stream.sync();
  }

  /** The array's contents in a new host TypedArray (row-major, channels innermost), once the stream reaches the copy. */
  async toTypedArray(options: ArrayCopyOptions): Promise<HostArray> {
    const stream = takeStreamOption(options, "toTypedArray", this);
    const out = allocateHostArray(this.dtype, this.length);
    // Through a DeviceArray-free pinned-less path: copy into the host array after the stream has passed earlier work.
    await stream.done();
    const { copy } = this.#copy(out, false, "toTypedArray");
    withCurrentContext(stream.context.handle, () => driver.cuMemcpy3DAsync(copy, stream.handle));
    await stream.done();
    return out;
  }

  /** Destroys the array (closing the textures and surfaces over it first). A level of a mipmapped array is freed with it. Closing twice is harmless. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const d of [...this.#dependents]) d.close();
    this.#dependents.clear();
    if (this.#owner !== undefined) return;
    untrack(this);
    const ctx = this.#context;
    if (!ctx.isClosed) withCurrentContext(ctx.handle, () => driver.cuArrayDestroy(this.#handle));
  }

  [Symbol.dispose](): void {
    this.close();
  }

  toString(): string {
    return this.#what().replace(/^this /, "");
  }
}

/** The pitch of a DeviceArray holding `rows` rows of `rowBytes` (contiguous, or rows padded along one outer stride). */
function devicePitch(a: DeviceArray, rowBytes: number, rows: number, what: string): number {
  if (a.nbytes !== rowBytes * rows) {
    throw new TextureError(`${what}: the DeviceArray has ${a.nbytes} bytes of elements but the CUDA array holds ${rowBytes * rows} (${rows} rows of ${rowBytes} bytes)`);
  }
  if (a.isContiguous) return rowBytes;
  // A pitched 2D array: [rows, rowEntries] with the inner axis contiguous and the outer stride at least a row.
  const bs = a.byteStrides;
  if (a.ndim === 2 && bs[1] === a.itemsize && a.shape[1]! * a.itemsize === rowBytes && bs[0]! >= rowBytes) return bs[0]!;
  throw new ArrayLayoutError(`${what}: the DeviceArray's rows must be contiguous (a contiguous array, or a 2D array [rows, row] with padded rows); its byte strides are [${bs.join(", ")}]: copy() it first`);
}

function contextOf(context: Context | undefined, what: string): Context {
  if (context !== undefined) {
    if (!(context instanceof Context)) throw new TypeError(`${what}: options.context must be a Context, not ${describeValue(context)}`);
    return context;
  }
  const ctx = Context.current();
  if (ctx === undefined) throw new NoContextError(`${what} needs a current context: call device.setCurrent() first, or pass { context }`);
  return ctx;
}

/** @internal Textures over a mipmapped array (closed before it). */
export let mipmappedDependents: (m: MipmappedArray) => Set<{ close(): void }>;

/** @internal The context and dependents of an array (for textures and surfaces). */
export function arrayInternals(a: CudaArray): { readonly context: Context; dependents: Set<{ close(): void }> } {
  return arrayParts(a);
}

/** Options of a mipmapped array: those of a CUDA array plus the number of levels. */
export interface MipmappedArrayOptions extends CudaArrayOptions {
  /** Levels (1 .. 1 + log2 of the largest extent). */
  readonly levels: number;
}

/**
 * A mipmapped array (`cuMipmappedArrayCreate`): level 0 is `width` × `height` × `depth`, each next level halves
 * every extent (at least 1). `level(i)` gives a level as a CudaArray to copy into; it is freed with this array.
 */
export class MipmappedArray {
  /** The type of one channel. */
  readonly dtype: DType;
  /** Channels per element. */
  readonly channels: ArrayChannels;
  /** Level 0's extent. */
  readonly extent: ArrayExtent;
  /** The number of levels. */
  readonly levels: number;
  readonly #context: Context;
  readonly #flags: number;
  #handle: CUmipmappedArray;
  #closed = false;
  readonly #levels: (CudaArray | undefined)[] = [];
  readonly #dependents = new Set<{ close(): void }>();

  static {
    mipmappedDependents = (m) => m.#dependents;
  }

  private constructor(handle: CUmipmappedArray, context: Context, dtype: DType, channels: ArrayChannels, ext: ArrayExtent, flags: number, levels: number) {
    this.#handle = handle;
    this.#context = context;
    this.dtype = dtype;
    this.channels = channels;
    this.extent = Object.freeze({ ...ext });
    this.#flags = flags;
    this.levels = levels;
    trackLazily(this, "MipmappedArray", (m: MipmappedArray) => {
      const h = m.#handle;
      const ctx = m.#context;
      return () => withCurrentContext(ctx.handle, () => driver.cuMipmappedArrayDestroy(h));
    });
  }

  /** Makes a mipmapped array in the current context (or `options.context`). */
  static create(options: MipmappedArrayOptions): MipmappedArray {
    const { desc, dtype, channels, extent: ext, flags } = arrayDescriptor(options, "MipmappedArray.create");
    const largest = Math.max(ext.width, ext.height, ext.layered || ext.cubemap ? 0 : ext.depth);
    const max = 1 + Math.floor(Math.log2(largest));
    const levels = options.levels;
    if (typeof levels !== "number" || !Number.isInteger(levels) || levels < 1 || levels > max) {
      throw new TextureError(`MipmappedArray.create: levels must be an integer 1..${max} (1 + log2 of the largest extent ${largest}), not ${describeValue(levels)}`);
    }
    const context = contextOf(options.context, "MipmappedArray.create");
    const handle = withCurrentContext(context.handle, () => driver.cuMipmappedArrayCreate(desc, levels));
    return new MipmappedArray(handle, context, dtype, channels, ext, flags, levels);
  }

  /** The CUmipmappedArray handle (ClosedError after close()). */
  get handle(): CUmipmappedArray {
    if (this.#closed) throw new ClosedError("this MipmappedArray", "use its handle");
    return this.#handle;
  }

  /** The context it lives in. */
  get context(): Context {
    return this.#context;
  }

  /** Whether close() was called. */
  get isClosed(): boolean {
    return this.#closed;
  }

  /** The extent of level `i` (each extent halved i times, at least 1; layers and faces stay). */
  levelExtent(i: number): ArrayExtent {
    const e = this.extent;
    const half = (d: number): number => (d === 0 ? 0 : Math.max(1, Math.floor(d / 2 ** i)));
    return { ...e, width: half(e.width), height: half(e.height), depth: e.layered || e.cubemap ? e.depth : half(e.depth) };
  }

  /** Level `i` as a CudaArray (`cuMipmappedArrayGetLevel`), freed with this mipmapped array. */
  level(i: number): CudaArray {
    if (this.#closed) throw new ClosedError("this MipmappedArray", "get a level");
    if (!Number.isInteger(i) || i < 0 || i >= this.levels) throw new TextureError(`MipmappedArray.level: level must be an integer 0..${this.levels - 1}, not ${describeValue(i)}`);
    const existing = this.#levels[i];
    if (existing !== undefined) return existing;
    const h = withCurrentContext(this.#context.handle, () => driver.cuMipmappedArrayGetLevel(this.#handle, i));
    const a = new CudaArray(INTERNAL, h, this.#context, this.dtype, this.channels, this.levelExtent(i), this.#flags, this);
    this.#levels[i] = a;
    return a;
  }

  /** Destroys the mipmapped array and its levels (closing textures over them first). Closing twice is harmless. */
  close(): void {
    if (this.#closed) return;
    for (const d of [...this.#dependents]) d.close();
    this.#dependents.clear();
    for (const l of this.#levels) l?.close();
    this.#closed = true;
    untrack(this);
    const ctx = this.#context;
    if (!ctx.isClosed) withCurrentContext(ctx.handle, () => driver.cuMipmappedArrayDestroy(this.#handle));
  }

  [Symbol.dispose](): void {
    this.close();
  }
}
