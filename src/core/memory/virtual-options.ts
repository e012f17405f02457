/**
 * Options of `VirtualMemoryResource` and the size arithmetic of virtual memory (pure: no driver calls).
 *
 * @module
 */
import {
  CUmemAccess_flags,
  CUmemAllocationGranularity_flags,
  CUmemAllocationHandleType,
  CUmemAllocationType,
  CUmemLocationType,
} from "../../bindings/driver.ts";
import { byteCount } from "./options.ts";

/** Access a location gets to a virtual memory allocation. */
export type VirtualMemoryAccess = "read-write" | "read" | "none";

/** Options of `new VirtualMemoryResource(device, options)` (cuda.core's VirtualMemoryResourceOptions, camelCased). */
export interface VirtualMemoryResourceOptions {
  /** "pinned" (default) or "managed" physical memory. */
  readonly allocationType?: "pinned" | "managed";
  /** Where the physical memory lives: "device" (default), "host", "host-numa" (node `numaId`), "host-numa-current". */
  readonly locationType?: "device" | "host" | "host-numa" | "host-numa-current";
  /** The host NUMA node of a "host-numa" location (default 0). */
  readonly numaId?: number;
  /** An exportable handle type for the physical memory: "none" (default), "posix-fd", "fabric". */
  readonly handleType?: "none" | "posix-fd" | "fabric";
  /** Round sizes to the "recommended" (default) or "minimum" granularity. */
  readonly granularity?: "recommended" | "minimum";
  /** Ask for GPUDirect RDMA-capable memory. */
  readonly gpuDirectRdma?: boolean;
  /** A virtual address to try to reserve at (0 or absent: the driver picks). */
  readonly addressHint?: number | bigint;
  /** Alignment of the reserved address range, a power of two (0 or absent: the granularity). */
  readonly addressAlignment?: number | bigint;
  /** Other devices (or ordinals) granted `peerAccess`. */
  readonly peers?: readonly (number | { readonly id: number })[];
  /** Access of the owning location (the device, or the host for host locations). Default "read-write". */
  readonly selfAccess?: VirtualMemoryAccess;
  /** Access of `peers` (and of the device, for host locations). Default "read-write". */
  readonly peerAccess?: VirtualMemoryAccess;
}

/** The options in the driver's numbers. */
export interface ResolvedVirtualOptions {
  readonly allocationType: CUmemAllocationType;
  readonly locationType: CUmemLocationType;
  readonly location: "device" | "host" | "host-numa" | "host-numa-current";
  readonly numaId: number;
  readonly handleType: CUmemAllocationHandleType;
  readonly granularityFlag: CUmemAllocationGranularity_flags;
  readonly gpuDirectRdma: boolean;
  readonly addressHint: bigint;
  readonly addressAlignment: bigint;
  readonly peers: readonly number[];
  readonly selfAccess: CUmemAccess_flags;
  readonly peerAccess: CUmemAccess_flags;
}

function pick<K extends string, V>(table: Readonly<Record<K, V>>, value: unknown, name: string, fallback: K): V {
  if (value === undefined) return table[fallback];
  if (typeof value === "string" && Object.hasOwn(table, value)) return table[value as K];
  throw new RangeError(`VirtualMemoryResource option ${name} is one of ${Object.keys(table).map((k) => JSON.stringify(k)).join(", ")}, not ${JSON.stringify(value)}`);
}

const ALLOCATION = { pinned: CUmemAllocationType.CU_MEM_ALLOCATION_TYPE_PINNED, managed: CUmemAllocationType.CU_MEM_ALLOCATION_TYPE_MANAGED } as const;
const LOCATION = {
  device: CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE,
  host: CUmemLocationType.CU_MEM_LOCATION_TYPE_HOST,
  "host-numa": CUmemLocationType.CU_MEM_LOCATION_TYPE_HOST_NUMA,
  "host-numa-current": CUmemLocationType.CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT,
} as const;
const HANDLE = {
  none: CUmemAllocationHandleType.CU_MEM_HANDLE_TYPE_NONE,
  "posix-fd": CUmemAllocationHandleType.CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR,
  fabric: CUmemAllocationHandleType.CU_MEM_HANDLE_TYPE_FABRIC,
} as const;
const GRANULARITY = {
  recommended: CUmemAllocationGranularity_flags.CU_MEM_ALLOC_GRANULARITY_RECOMMENDED,
  minimum: CUmemAllocationGranularity_flags.CU_MEM_ALLOC_GRANULARITY_MINIMUM,
} as const;
const ACCESS = {
  "read-write": CUmemAccess_flags.CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
  read: CUmemAccess_flags.CU_MEM_ACCESS_FLAGS_PROT_READ,
  none: CUmemAccess_flags.CU_MEM_ACCESS_FLAGS_PROT_NONE,
} as const;

const KEYS = [
  "allocationType",
  "locationType",
  "numaId",
  "handleType",
  "granularity",
  "gpuDirectRdma",
  "addressHint",
  "addressAlignment",
  "peers",
  "selfAccess",
  "peerAccess",
];

/** Checks options and converts them to the driver's numbers. */
export function resolveVirtualOptions(options: VirtualMemoryResourceOptions = {}): ResolvedVirtualOptions {
  if (typeof options !== "object" || options === null || Array.isArray(options)) {
    throw new TypeError(`VirtualMemoryResource options are an object, not ${String(options)}`);
  }
  for (const k of Object.keys(options)) {
    if (!KEYS.includes(k)) throw new TypeError(`VirtualMemoryResource has no option ${JSON.stringify(k)}; the options are ${KEYS.join(", ")}`);
  }
  const location = (options.locationType ?? "device") as ResolvedVirtualOptions["location"];
  const locationType = pick(LOCATION, options.locationType, "locationType", "device");
  const numa = options.numaId;
  if (numa !== undefined && (typeof numa !== "number" || !Number.isInteger(numa) || numa < 0)) {
    throw new RangeError(`VirtualMemoryResource option numaId is a NUMA node number (an integer ≥ 0), not ${String(numa)}`);
  }
  if (numa !== undefined && location !== "host-numa") throw new TypeError(`numaId applies to locationType "host-numa", not ${JSON.stringify(location)}`);
  const alignment = options.addressAlignment === undefined ? 0n : byteCount(options.addressAlignment, "addressAlignment");
  if (alignment !== 0n && (alignment & (alignment - 1n)) !== 0n) throw new RangeError(`addressAlignment is a power of two (or 0 for the granularity), not ${alignment}`);
  const peers = (options.peers ?? []).map((p: unknown) => {
    const id = typeof p === "number" ? p : typeof p === "object" && p !== null ? (p as { id?: unknown }).id : undefined;
    if (typeof id !== "number" || !Number.isInteger(id) || id < 0) throw new RangeError(`peers holds Devices or device ordinals, not ${JSON.stringify(p)}`);
    return id;
  });
  if (options.gpuDirectRdma !== undefined && typeof options.gpuDirectRdma !== "boolean") throw new TypeError("gpuDirectRdma is a boolean");
  return {
    allocationType: pick(ALLOCATION, options.allocationType, "allocationType", "pinned"),
    locationType,
    location,
    numaId: location === "host-numa" ? (numa ?? 0) : -1,
    handleType: pick(HANDLE, options.handleType, "handleType", "none"),
    granularityFlag: pick(GRANULARITY, options.granularity, "granularity", "recommended"),
    gpuDirectRdma: options.gpuDirectRdma ?? false,
    addressHint: options.addressHint === undefined ? 0n : byteCount(options.addressHint, "addressHint"),
    addressAlignment: alignment,
    peers,
    selfAccess: pick(ACCESS, options.selfAccess, "selfAccess", "read-write"),
    peerAccess: pick(ACCESS, options.peerAccess, "peerAccess", "read-write"),
  };
}

/** Rounds `size` up to a multiple of `granularity` (a positive power of two or any positive integer). */
export function alignUp(size: bigint, granularity: bigint): bigint {
  if (granularity <= 0n) throw new RangeError(`a granularity is positive, not ${granularity}`);
  if (size < 0n) throw new RangeError(`a size is non-negative, not ${size}`);
  return ((size + granularity - 1n) / granularity) * granularity;
}

/**
 * How growing an allocation from `mapped` bytes (already a multiple of `granularity`) to `newSize` bytes works out:
 * the extra physical memory to map (0 when `newSize` fits what is mapped) and the new mapped total.
 */
export function growthPlan(mapped: bigint, newSize: bigint, granularity: bigint): { extra: bigint; total: bigint } {
  const total = alignUp(newSize, granularity);
  return total <= mapped ? { extra: 0n, total: mapped } : { extra: total - mapped, total };
}
