/**
 * Options of the pool resources, checked before anything reaches the driver (pure: no driver calls).
 *
 * @module
 */
import { describeValue } from "../../errors/describe.ts";

/** Options of a new device memory pool (`new DeviceMemoryResource(device, options)`). */
export interface DeviceMemoryResourceOptions {
  /** Allow sharing the pool and its buffers with other processes (POSIX file descriptor handles; Linux). */
  readonly ipcEnabled?: boolean;
  /** The most bytes the pool may reserve (0 or absent: the driver's default). */
  readonly maxSize?: number | bigint;
  /** Reserved bytes the pool keeps at a synchronisation before returning memory to the system (default: the driver's, 0). */
  readonly releaseThreshold?: number | bigint;
}

/** Options of `new PinnedMemoryResource(options)`. */
export interface PinnedMemoryResourceOptions {
  /** Allow sharing the pool with other processes (then the pool lives on a host NUMA node: `numaId`, default 0). */
  readonly ipcEnabled?: boolean;
  /** The most bytes the pool may reserve (0 or absent: the driver's default). */
  readonly maxSize?: number | bigint;
  /** Place the memory on this host NUMA node (CU_MEM_LOCATION_TYPE_HOST_NUMA) instead of anywhere on the host. */
  readonly numaId?: number;
  /** Reserved bytes kept at a synchronisation before returning memory to the system. */
  readonly releaseThreshold?: number | bigint;
  /** Devices (or ordinals) that may access the memory; default every device. */
  readonly accessibleBy?: readonly (number | { readonly id: number })[];
}

/** Options of `new ManagedMemoryResource(options)`. */
export interface ManagedMemoryResourceOptions {
  /**
   * Where the memory prefers to live: a device ordinal (or Device), `"host"`, or `{ type: "host-numa", id }`.
   * Absent: no preference (the driver decides).
   */
  readonly preferredLocation?: number | "host" | { readonly id: number; readonly type?: "device" | "host-numa" };
  /** Reserved bytes kept at a synchronisation before returning memory to the system (pools only). */
  readonly releaseThreshold?: number | bigint;
  /**
   * Allocate from a managed pool (true, the default, where the driver has them: CUDA 13) or with
   * `cuMemAllocManaged` (false). The 13.0 driver refuses `cuMemAdvise` on pool memory (CUDA_ERROR_NOT_SUPPORTED);
   * pass `pool: false` where advice matters. Prefetching works with both.
   */
  readonly pool?: boolean;
}

/** A checked byte count as a bigint. */
export function byteCount(value: unknown, what: string): bigint {
  if (typeof value === "bigint") {
    if (value < 0n || value > 0xffff_ffff_ffff_ffffn) throw new RangeError(`${what} is between 0 and 2^64-1 bytes, not ${value}`);
    return value;
  }
  if (typeof value === "number" && Number.isSafeInteger(value) && value >= 0) return BigInt(value);
  throw new RangeError(`${what} is a non-negative whole number of bytes (a number or a bigint), not ${describeValue(value)}`);
}

function checkKeys(options: object, allowed: readonly string[], what: string): void {
  for (const k of Object.keys(options)) {
    if (!allowed.includes(k)) throw new TypeError(`${what} has no option ${JSON.stringify(k)}; the options are ${allowed.join(", ")}`);
  }
}

function checkObject(options: unknown, what: string): asserts options is object {
  if (typeof options !== "object" || options === null || Array.isArray(options)) {
    throw new TypeError(`${what} are an object of options, not ${describeValue(options)}`);
  }
}

function checkBool(v: unknown, what: string): boolean {
  if (v === undefined) return false;
  if (typeof v !== "boolean") throw new TypeError(`${what} is a boolean, not ${describeValue(v)}`);
  return v;
}

/** Checked device pool options. */
export interface ResolvedDevicePoolOptions {
  readonly ipcEnabled: boolean;
  readonly maxSize: bigint;
  readonly releaseThreshold: bigint | undefined;
}

/** Checks `DeviceMemoryResourceOptions`. */
export function resolveDevicePoolOptions(options: DeviceMemoryResourceOptions): ResolvedDevicePoolOptions {
  const what = "DeviceMemoryResource options";
  checkObject(options, what);
  checkKeys(options, ["ipcEnabled", "maxSize", "releaseThreshold"], what);
  return {
    ipcEnabled: checkBool(options.ipcEnabled, "ipcEnabled"),
    maxSize: options.maxSize === undefined ? 0n : byteCount(options.maxSize, "maxSize"),
    releaseThreshold: options.releaseThreshold === undefined ? undefined : byteCount(options.releaseThreshold, "releaseThreshold"),
  };
}

/** Checked pinned pool options. */
export interface ResolvedPinnedOptions {
  readonly ipcEnabled: boolean;
  readonly maxSize: bigint;
  /** "host" (any NUMA node) or "host-numa" (one node: `numaId`). */
  readonly location: "host" | "host-numa";
  readonly numaId: number;
  readonly releaseThreshold: bigint | undefined;
  /** Device ordinals to grant access, or undefined for every device. */
  readonly accessibleBy: readonly number[] | undefined;
}

/** Checks `PinnedMemoryResourceOptions` (an IPC-enabled pool needs a NUMA location: numaId, default 0). */
export function resolvePinnedOptions(options: PinnedMemoryResourceOptions = {}): ResolvedPinnedOptions {
  const what = "PinnedMemoryResource options";
  checkObject(options, what);
  checkKeys(options, ["ipcEnabled", "maxSize", "numaId", "releaseThreshold", "accessibleBy"], what);
  const ipcEnabled = checkBool(options.ipcEnabled, "ipcEnabled");
  const numa = options.numaId;
  if (numa !== undefined && (typeof numa !== "number" || !Number.isInteger(numa) || numa < 0)) {
    throw new RangeError(`numaId is a host NUMA node number (an integer ≥ 0), not ${describeValue(numa)}`);
  }
  let accessibleBy: number[] | undefined;
  if (options.accessibleBy !== undefined) {
    if (!Array.isArray(options.accessibleBy)) throw new TypeError(`accessibleBy is an array of Devices or device ordinals, not ${describeValue(options.accessibleBy)}`);
    accessibleBy = options.accessibleBy.map((d: unknown) => {
      const id = typeof d === "number" ? d : typeof d === "object" && d !== null ? (d as { id?: unknown }).id : undefined;
      if (typeof id !== "number" || !Number.isInteger(id) || id < 0) throw new RangeError(`accessibleBy holds Devices or device ordinals, not ${describeValue(d)}`);
      return id;
    });
  }
  const location = numa !== undefined || ipcEnabled ? "host-numa" : "host";
  return {
    ipcEnabled,
    maxSize: options.maxSize === undefined ? 0n : byteCount(options.maxSize, "maxSize"),
    location,
    numaId: location === "host-numa" ? (numa ?? 0) : -1,
    releaseThreshold: options.releaseThreshold === undefined ? undefined : byteCount(options.releaseThreshold, "releaseThreshold"),
    accessibleBy,
  };
}

/** Checked managed options. */
export interface ResolvedManagedOptions {
  /** The preferred location, or "none". */
  readonly preferred: { readonly type: "none" | "device" | "host" | "host-numa"; readonly id: number };
  readonly releaseThreshold: bigint | undefined;
  /** Whether to try a managed pool. */
  readonly pool: boolean;
}

/** Checks `ManagedMemoryResourceOptions`. */
export function resolveManagedOptions(options: ManagedMemoryResourceOptions = {}): ResolvedManagedOptions {
  const what = "ManagedMemoryResource options";
  checkObject(options, what);
  checkKeys(options, ["preferredLocation", "releaseThreshold", "pool"], what);
  const p = options.preferredLocation;
  let preferred: ResolvedManagedOptions["preferred"];
  const bad = (): never => {
    throw new RangeError(`preferredLocation is a device ordinal or Device, "host", or { type: "host-numa", id }, not ${describeValue(p)}`);
  };
  if (p === undefined) preferred = { type: "none", id: -1 };
  else if (p === "host") preferred = { type: "host", id: -1 };
  else if (typeof p === "number") preferred = Number.isInteger(p) && p >= 0 ? { type: "device", id: p } : bad();
  else if (typeof p === "object" && p !== null) {
    const id = (p as { id?: unknown }).id;
    const type = (p as { type?: unknown }).type ?? "device";
    if ((type !== "device" && type !== "host-numa") || typeof id !== "number" || !Number.isInteger(id) || id < 0) bad();
    preferred = { type: type as "device" | "host-numa", id: id as number };
  } else preferred = bad();
  return {
    preferred,
    releaseThreshold: options.releaseThreshold === undefined ? undefined : byteCount(options.releaseThreshold, "releaseThreshold"),
    pool: options.pool === undefined ? true : checkBool(options.pool, "pool"),
  };
}
