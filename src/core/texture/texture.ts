/**
 * Texture and surface objects: `TextureObject.create(resource, options)` over a CudaArray, a MipmappedArray, linear
 * memory (`{ linear: deviceArray }`) or pitched 2D memory (`{ pitch2D: deviceArray }`), with address, filter and
 * read modes, normalised coordinates, sRGB, anisotropy, mipmap settings and a border colour by name;
 * `SurfaceObject.create(array)` over a CudaArray made with `surfaceLoadStore: true`.
 *
 * Both are passed to kernels by value through `launch` (a `cudaTextureObject_t` / `cudaSurfaceObject_t`
 * parameter: 8 bytes). A texture over a closed array, or an array closed under a texture, is a ClosedError; an
 * option that is not one of the choices is a TextureError, before the driver sees it.
 *
 * @module
 */
import {
  CUDA_RESOURCE_DESC_st,
  CUDA_RESOURCE_VIEW_DESC_st,
  CUDA_TEXTURE_DESC_st,
  CU_TRSF_DISABLE_TRILINEAR_OPTIMIZATION,
  CU_TRSF_NORMALIZED_COORDINATES,
  CU_TRSF_READ_AS_INTEGER,
  CU_TRSF_SEAMLESS_CUBEMAP,
  CU_TRSF_SRGB,
  CUaddress_mode,
  CUfilter_mode,
  CUresourcetype,
  type CUdeviceptr,
  type CUsurfObject,
  type CUtexObject,
} from "../../bindings/driver.ts";
import { DeviceArray } from "../array/device-array.ts";
import type { DType } from "../array/dtype.ts";
import type { Context } from "../context.ts";
import { driver, withCurrentContext } from "../base/driver-state.ts";
import { describeValue } from "../../errors/describe.ts";
import { trackLazily, untrack } from "../base/lifetime.ts";
import { ByValueArgument, kArgumentSize, kDescribeArgument, kWriteValue } from "../launch/by-value-argument.ts";
import { ArrayLayoutError } from "../array/errors.ts";
import { ClosedError } from "../base/errors.ts";
import { TextureError } from "./errors.ts";
import { arrayFormat, arrayInternals, checkChannels, CudaArray, MipmappedArray, mipmappedDependents, type ArrayChannels } from "./array.ts";

/** How coordinates outside the texture are read. */
export type AddressMode = "wrap" | "clamp" | "mirror" | "border";
/** How texels are filtered. */
export type FilterMode = "point" | "linear";
/** What an integer texel reads as: its own type, or a float normalised to [0, 1] ([-1, 1] when signed). */
export type ReadMode = "element-type" | "normalized-float";

const ADDRESS: Readonly<Record<AddressMode, number>> = {
  wrap: CUaddress_mode.CU_TR_ADDRESS_MODE_WRAP,
  clamp: CUaddress_mode.CU_TR_ADDRESS_MODE_CLAMP,
  mirror: CUaddress_mode.CU_TR_ADDRESS_MODE_MIRROR,
  border: CUaddress_mode.CU_TR_ADDRESS_MODE_BORDER,
};
const FILTER: Readonly<Record<FilterMode, number>> = { point: CUfilter_mode.CU_TR_FILTER_MODE_POINT, linear: CUfilter_mode.CU_TR_FILTER_MODE_LINEAR };
const READ: readonly ReadMode[] = ["element-type", "normalized-float"];

/** Options of a texture object (defaults as CUDA's: clamp, point, element type, unnormalised coordinates). */
export interface TextureObjectOptions {
  /** One mode for every axis, or one per axis (x, y, z). Default "clamp". ("wrap"/"mirror" need normalised coordinates.) */
  readonly addressMode?: AddressMode | readonly AddressMode[];
  /** Default "point". "linear" needs a float read (a float format, or readMode "normalized-float"). */
  readonly filterMode?: FilterMode;
  /** Default "element-type". */
  readonly readMode?: ReadMode;
  /** Coordinates in [0, 1) instead of [0, extent). Default false. */
  readonly normalizedCoordinates?: boolean;
  /** Convert sRGB texels to linear on read. Default false. */
  readonly sRGB?: boolean;
  /** Maximum anisotropy, 1..16 (default 0: off). */
  readonly maxAnisotropy?: number;
  /** Filtering between mipmap levels. Default "point". */
  readonly mipmapFilterMode?: FilterMode;
  /** Added to the computed level of detail. */
  readonly mipmapLevelBias?: number;
  /** The lowest level of detail used. */
  readonly minMipmapLevelClamp?: number;
  /** The highest level of detail used. */
  readonly maxMipmapLevelClamp?: number;
  /** The colour read outside the texture with addressMode "border" (r, g, b, a). */
  readonly borderColor?: readonly [number, number, number, number];
  /** Seamless filtering across cubemap faces. Default false. */
  readonly seamlessCubemap?: boolean;
  /** Disable the trilinear optimisation. Default false. */
  readonly disableTrilinearOptimization?: boolean;
}

/** Linear memory as a 1D texture: a contiguous DeviceArray of `channels`-element texels (the dtype of one channel). */
export interface LinearResource {
  readonly linear: DeviceArray;
  /** Channels per texel (default 1): the array's entries are grouped in texels of this many. */
  readonly channels?: ArrayChannels;
}

/** Pitched 2D memory as a 2D texture: a DeviceArray [height, width × channels], rows contiguous, padded or not. */
export interface Pitch2DResource {
  readonly pitch2D: DeviceArray;
  /** Channels per texel (default 1). */
  readonly channels?: ArrayChannels;
}

/** What a texture reads. */
export type TextureResource = CudaArray | MipmappedArray | LinearResource | Pitch2DResource;

function bad(what: string): never {
  throw new TextureError(what);
}

function choice<K extends string>(values: readonly K[], v: unknown, option: string, fallback: NoInfer<K>): K {
  if (v === undefined) return fallback;
  if (typeof v !== "string" || !values.includes(v as K)) bad(`TextureObject: ${option} must be one of ${values.map((k) => JSON.stringify(k)).join(", ")}, not ${describeValue(v)}`);
  return v as K;
}

function flag(v: unknown, option: string): boolean {
  if (v === undefined) return false;
  if (typeof v !== "boolean") bad(`TextureObject: ${option} must be a boolean, not ${describeValue(v)}`);
  return v;
}

function finite(v: unknown, option: string): number {
  if (v === undefined) return 0;
  if (typeof v !== "number" || !Number.isFinite(v)) bad(`TextureObject: ${option} must be a finite number, not ${describeValue(v)}`);
  return v;
}

/** @internal Builds the driver's texture descriptor from the options (TextureError on a bad one). `integer`: the texels are integers. */
export function textureDescriptor(options: TextureObjectOptions, integer: boolean): CUDA_TEXTURE_DESC_st {
  if (options === null || typeof options !== "object") bad(`TextureObject takes an options object, not ${describeValue(options)}`);
  const modes = options.addressMode === undefined ? ["clamp"] : typeof options.addressMode === "string" ? [options.addressMode] : options.addressMode;
  if (!Array.isArray(modes) || modes.length < 1 || modes.length > 3) bad(`TextureObject: addressMode must be a mode or 1 to 3 modes (x, y, z), not ${describeValue(options.addressMode)}`);
  const addresses = (modes as unknown[]).map((m) => ADDRESS[choice(Object.keys(ADDRESS) as AddressMode[], m, "addressMode", "clamp")]);
  while (addresses.length < 3) addresses.push(addresses[addresses.length - 1]!);
  const filter = choice(Object.keys(FILTER) as FilterMode[], options.filterMode, "filterMode", "point");
  const read = choice(READ, options.readMode, "readMode", "element-type");
  const normalized = flag(options.normalizedCoordinates, "normalizedCoordinates");
  if (!normalized && (modes as unknown[]).some((m) => m === "wrap" || m === "mirror")) {
    bad(`TextureObject: addressMode "wrap" and "mirror" need normalizedCoordinates: true (CUDA clamps unnormalised coordinates)`);
  }
  if (integer && read === "element-type" && filter === "linear") {
    bad(`TextureObject: filterMode "linear" needs floating-point reads; integer texels read as their own type cannot be filtered: use readMode "normalized-float" or filterMode "point"`);
  }
  const anisotropy = options.maxAnisotropy ?? 0;
  if (!Number.isInteger(anisotropy) || anisotropy < 0 || anisotropy > 16) bad(`TextureObject: maxAnisotropy must be an integer 0..16, not ${describeValue(anisotropy)}`);
  const mipFilter = choice(Object.keys(FILTER) as FilterMode[], options.mipmapFilterMode, "mipmapFilterMode", "point");
  const d = new CUDA_TEXTURE_DESC_st();
  d.addressMode.set(addresses);
  d.filterMode = FILTER[filter] as never;
  d.flags =
    (integer && read === "element-type" ? CU_TRSF_READ_AS_INTEGER : 0) |
    (normalized ? CU_TRSF_NORMALIZED_COORDINATES : 0) |
    (flag(options.sRGB, "sRGB") ? CU_TRSF_SRGB : 0) |
    (flag(options.seamlessCubemap, "seamlessCubemap") ? CU_TRSF_SEAMLESS_CUBEMAP : 0) |
    (flag(options.disableTrilinearOptimization, "disableTrilinearOptimization") ? CU_TRSF_DISABLE_TRILINEAR_OPTIMIZATION : 0);
  d.maxAnisotropy = anisotropy;
  d.mipmapFilterMode = FILTER[mipFilter] as never;
  d.mipmapLevelBias = finite(options.mipmapLevelBias, "mipmapLevelBias");
  d.minMipmapLevelClamp = finite(options.minMipmapLevelClamp, "minMipmapLevelClamp");
  d.maxMipmapLevelClamp = finite(options.maxMipmapLevelClamp, "maxMipmapLevelClamp");
  if (options.borderColor !== undefined) {
    const b = options.borderColor;
    if (!Array.isArray(b) || b.length !== 4 || b.some((x) => typeof x !== "number" || !Number.isFinite(x))) bad(`TextureObject: borderColor must be 4 finite numbers [r, g, b, a], not ${describeValue(b)}`);
    d.borderColor.set(b);
  }
  return d;
}

/** What a resource resolves to: its descriptor, what it keeps alive, and where dependents register. */
interface Resolved {
  readonly desc: CUDA_RESOURCE_DESC_st;
  readonly dtype: DType;
  readonly context: Context;
  readonly keep: unknown;
  readonly dependents: Set<{ close(): void }> | undefined;
  readonly closed: () => boolean;
}

function isInteger(dtype: DType): boolean {
  return dtype.kind === "i" || dtype.kind === "u";
}

/** @internal Resolves a texture resource into the driver's resource descriptor (TextureError / ClosedError on bad input). */
export function resourceDescriptor(resource: TextureResource, what: string): Resolved {
  const desc = new CUDA_RESOURCE_DESC_st();
  if (resource instanceof CudaArray) {
    if (resource.isClosed) throw new ClosedError(resource.toString(), `make a ${what} over it`);
    desc.resType = CUresourcetype.CU_RESOURCE_TYPE_ARRAY as never;
    desc.res.array.hArray = resource.handle;
    const inner = arrayInternals(resource);
    return { desc, dtype: resource.dtype, context: inner.context, keep: resource, dependents: inner.dependents, closed: () => resource.isClosed };
  }
  if (resource instanceof MipmappedArray) {
    if (resource.isClosed) throw new ClosedError("this MipmappedArray", `make a ${what} over it`);
    desc.resType = CUresourcetype.CU_RESOURCE_TYPE_MIPMAPPED_ARRAY as never;
    desc.res.mipmap.hMipmappedArray = resource.handle;
    return { desc, dtype: resource.dtype, context: resource.context, keep: resource, dependents: mipmappedDependents(resource), closed: () => resource.isClosed };
  }
  if (resource !== null && typeof resource === "object" && ("linear" in resource || "pitch2D" in resource)) {
    const linear = "linear" in resource;
    const a = linear ? resource.linear : (resource as Pitch2DResource).pitch2D;
    if (!(a instanceof DeviceArray)) bad(`${what}: { ${linear ? "linear" : "pitch2D"} } takes a DeviceArray, not ${describeValue(a)}`);
    if (a.isClosed) throw new ClosedError(`this DeviceArray (${a.dtype.name} [${a.shape.join(", ")}])`, `make a ${what} over it`);
    const format = arrayFormat(a.dtype, what);
    const channels = checkChannels(resource.channels, what);
    const dev = a.device;
    const align = dev.properties.textureAlignment;
    if (a.address % BigInt(align) !== 0n) bad(`${what}: the memory's address 0x${a.address.toString(16)} is not a multiple of the device's texture alignment (${align} bytes)`);
    if (linear) {
      if (!a.isContiguous) throw new ArrayLayoutError(`${what}: { linear } needs a contiguous DeviceArray; its byte strides are [${a.byteStrides.join(", ")}]: copy() it first`);
      if (a.size % channels !== 0) bad(`${what}: ${a.size} entries do not make whole texels of ${channels} channels`);
      desc.resType = CUresourcetype.CU_RESOURCE_TYPE_LINEAR as never;
      desc.res.linear.devPtr = a.address as CUdeviceptr;
      desc.res.linear.format = format as never;
      desc.res.linear.numChannels = channels;
      desc.res.linear.sizeInBytes = a.nbytes;
    } else {
      const bs = a.byteStrides;
      if (a.ndim !== 2 || bs[1] !== a.itemsize) {
        throw new ArrayLayoutError(`${what}: { pitch2D } needs a 2D DeviceArray [height, width × channels] with contiguous rows; got shape [${a.shape.join(", ")}], byte strides [${bs.join(", ")}]`);
      }
      if (a.shape[1]! % channels !== 0) bad(`${what}: a row of ${a.shape[1]} entries does not make whole texels of ${channels} channels`);
      const pitchAlign = dev.properties.texturePitchAlignment;
      if (bs[0]! % pitchAlign !== 0) {
        bad(`${what}: the row pitch ${bs[0]} bytes is not a multiple of the device's texture pitch alignment (${pitchAlign} bytes): pad the rows (allocate [height, paddedRow] and slice the columns)`);
      }
      desc.resType = CUresourcetype.CU_RESOURCE_TYPE_PITCH2D as never;
      const p = desc.res.pitch2D;
      p.devPtr = a.address as CUdeviceptr;
      p.format = format as never;
      p.numChannels = channels;
      p.width = a.shape[1]! / channels;
      p.height = a.shape[0]!;
      p.pitchInBytes = bs[0]!;
    }
    return { desc, dtype: a.dtype, context: dev.context, keep: a, dependents: undefined, closed: () => a.isClosed };
  }
  bad(`${what} takes a CudaArray, a MipmappedArray, { linear: deviceArray } or { pitch2D: deviceArray }, not ${describeValue(resource)}`);
}

/**
 * A texture object (`cuTexObjectCreate`): read-only, filtered access to a CUDA array, mipmapped array, or linear or
 * pitched memory. Pass it to a kernel's `cudaTextureObject_t` parameter; it keeps its resource alive, and closing the
 * resource's array closes it.
 */
export class TextureObject extends ByValueArgument {
  #handle: CUtexObject;
  #closed = false;
  readonly #resolved: Resolved;
  /** The resource it reads. */
  readonly resource: TextureResource;

  private constructor(handle: CUtexObject, resource: TextureResource, resolved: Resolved) {
    super();
    this.#handle = handle;
    this.resource = resource;
    this.#resolved = resolved;
    resolved.dependents?.add(this);
    trackLazily(this, "TextureObject", (t: TextureObject) => {
      const h = t.#handle;
      const ctx = t.#resolved.context;
      const keep = t.#resolved.keep;
      return () => {
        void keep;
        withCurrentContext(ctx.handle, () => driver.cuTexObjectDestroy(h));
      };
    });
  }

  /** Makes a texture object over `resource` (TextureError / ClosedError before the driver on bad input). */
  static create(resource: TextureResource, options: TextureObjectOptions = {}): TextureObject {
    const r = resourceDescriptor(resource, "TextureObject");
    const tex = textureDescriptor(options, isInteger(r.dtype));
    const handle = withCurrentContext(r.context.handle, () => driver.cuTexObjectCreate(r.desc, tex, null as never));
    return new TextureObject(handle, resource, r);
  }

  /** The CUtexObject handle (ClosedError after close(), or once its array was closed). */
  get handle(): CUtexObject {
    if (this.isClosed) throw new ClosedError("this TextureObject", "use its handle");
    return this.#handle;
  }

  /** Whether it (or the array it reads) was closed. */
  get isClosed(): boolean {
    return this.#closed || this.#resolved.closed();
  }

  get [kArgumentSize](): number {
    return 8;
  }
  [kWriteValue](dv: DataView, offset: number): void {
    dv.setBigUint64(offset, BigInt(this.handle), true);
  }
  [kDescribeArgument](): string {
    return "a TextureObject (cudaTextureObject_t)";
  }

  /** Destroys the texture object. Closing twice is harmless. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#resolved.dependents?.delete(this);
    untrack(this);
    const ctx = this.#resolved.context;
    if (!ctx.isClosed) withCurrentContext(ctx.handle, () => driver.cuTexObjectDestroy(this.#handle));
  }

  [Symbol.dispose](): void {
    this.close();
  }
}

/**
 * A surface object (`cuSurfObjectCreate`): read-write access to a CudaArray made with `surfaceLoadStore: true`.
 * Pass it to a kernel's `cudaSurfaceObject_t` parameter.
 */
export class SurfaceObject extends ByValueArgument {
  #handle: CUsurfObject;
  #closed = false;
  readonly #resolved: Resolved;
  /** The array it reads and writes. */
  readonly array: CudaArray;

  private constructor(handle: CUsurfObject, array: CudaArray, resolved: Resolved) {
    super();
    this.#handle = handle;
    this.array = array;
    this.#resolved = resolved;
    resolved.dependents?.add(this);
    trackLazily(this, "SurfaceObject", (s: SurfaceObject) => {
      const h = s.#handle;
      const ctx = s.#resolved.context;
      const keep = s.array;
      return () => {
        void keep;
        withCurrentContext(ctx.handle, () => driver.cuSurfObjectDestroy(h));
      };
    });
  }

  /** Makes a surface object over a CUDA array made with `surfaceLoadStore: true`. */
  static create(array: CudaArray): SurfaceObject {
    if (!(array instanceof CudaArray)) bad(`SurfaceObject takes a CudaArray, not ${describeValue(array)}`);
    const r = resourceDescriptor(array, "SurfaceObject");
    if (!array.surfaceLoadStore) bad(`SurfaceObject: ${array.toString()} was not made for surfaces: create it with { surfaceLoadStore: true }`);
    const handle = withCurrentContext(r.context.handle, () => driver.cuSurfObjectCreate(r.desc));
    return new SurfaceObject(handle, array, r);
  }

  /** The CUsurfObject handle (ClosedError after close(), or once its array was closed). */
  get handle(): CUsurfObject {
    if (this.isClosed) throw new ClosedError("this SurfaceObject", "use its handle");
    return this.#handle;
  }

  /** Whether it (or its array) was closed. */
  get isClosed(): boolean {
    return this.#closed || this.array.isClosed;
  }

  get [kArgumentSize](): number {
    return 8;
  }
  [kWriteValue](dv: DataView, offset: number): void {
    dv.setBigUint64(offset, BigInt(this.handle), true);
  }
  [kDescribeArgument](): string {
    return "a SurfaceObject (cudaSurfaceObject_t)";
  }

  /** Destroys the surface object. Closing twice is harmless. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#resolved.dependents?.delete(this);
    untrack(this);
    const ctx = this.#resolved.context;
    if (!ctx.isClosed) withCurrentContext(ctx.handle, () => driver.cuSurfObjectDestroy(this.#handle));
  }

  [Symbol.dispose](): void {
    this.close();
  }
}

/** @internal For tests: the resource-view descriptor type exists (views are not exposed yet). */
export type ResourceViewDescriptor = CUDA_RESOURCE_VIEW_DESC_st;
