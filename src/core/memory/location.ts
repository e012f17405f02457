/**
 * Memory locations (`CUmemLocation`: a device, the host, a host NUMA node) and managed-memory advice, as plain
 * values checked here before they reach the driver. `CUmemLocation` is 8 bytes (type, id) and travels by value to
 * `cuMemPrefetchAsync` and `cuMemAdvise`.
 *
 * @module
 */
import { CUmem_advise, CUmemLocation_st, CUmemLocationType } from "../../bindings/driver.ts";
import { describeValue } from "../../errors/describe.ts";

/** The kinds of memory location. */
export type MemoryLocationType = "device" | "host" | "host-numa" | "host-numa-current";

/**
 * A memory location: a Device (or anything with a numeric `id`, such as a Device), a device ordinal, `"host"`,
 * `"host-numa-current"`, or an explicit `{ type, id }` (`id` is a device ordinal for "device", a NUMA node for
 * "host-numa", and ignored for "host" and "host-numa-current").
 */
export type MemoryLocation =
  | number
  | "host"
  | "host-numa-current"
  | { readonly id: number; readonly type?: undefined }
  | { readonly type: MemoryLocationType; readonly id?: number };

const LOCATION_TYPES: Readonly<Record<MemoryLocationType, CUmemLocationType>> = {
  device: CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE,
  host: CUmemLocationType.CU_MEM_LOCATION_TYPE_HOST,
  "host-numa": CUmemLocationType.CU_MEM_LOCATION_TYPE_HOST_NUMA,
  "host-numa-current": CUmemLocationType.CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT,
};

/** A location resolved to the driver's numbers. */
export interface ResolvedLocation {
  readonly type: MemoryLocationType;
  /** The driver's CUmemLocationType. */
  readonly cuType: CUmemLocationType;
  /** The id the driver gets (-1 where it is ignored). */
  readonly id: number;
}

function nonNegativeId(id: unknown, what: string, expected: string): number {
  if (typeof id !== "number" || !Number.isInteger(id) || id < 0 || id > 0x7fffffff) {
    throw new RangeError(`${what}: ${expected} must be a non-negative integer, not ${describeValue(id)}`);
  }
  return id;
}

/**
 * Resolves a {@link MemoryLocation}.
 *
 * @param what - names the call in error messages ("prefetch", "advise").
 * @throws RangeError or TypeError saying which forms are accepted.
 */
export function resolveLocation(location: MemoryLocation, what: string): ResolvedLocation {
  if (typeof location === "number") {
    return { type: "device", cuType: LOCATION_TYPES.device, id: nonNegativeId(location, what, "a device ordinal") };
  }
  if (location === "host") return { type: "host", cuType: LOCATION_TYPES.host, id: -1 };
  if (location === "host-numa-current") return { type: "host-numa-current", cuType: LOCATION_TYPES["host-numa-current"], id: -1 };
  if (typeof location === "object" && location !== null) {
    const type = (location as { type?: unknown }).type;
    const id = (location as { id?: unknown }).id;
    if (type === undefined) return { type: "device", cuType: LOCATION_TYPES.device, id: nonNegativeId(id, what, "a Device's id") };
    if (typeof type === "string" && Object.hasOwn(LOCATION_TYPES, type)) {
      const t = type as MemoryLocationType;
      if (t === "device") return { type: t, cuType: LOCATION_TYPES[t], id: nonNegativeId(id, what, "a device location's id (the device ordinal)") };
      if (t === "host-numa") return { type: t, cuType: LOCATION_TYPES[t], id: nonNegativeId(id, what, "a host-numa location's id (the NUMA node)") };
      return { type: t, cuType: LOCATION_TYPES[t], id: -1 };
    }
    throw new RangeError(`${what}: a location type is one of ${Object.keys(LOCATION_TYPES).map((k) => JSON.stringify(k)).join(", ")}, not ${describeValue(type)}`);
  }
  throw new TypeError(
    `${what}: a location is a Device, a device ordinal, "host", "host-numa-current" or { type, id }, not ${describeValue(location)}`,
  );
}

/** The 8 bytes of a CUmemLocation for a location (passed by value). */
export function locationRecord(location: MemoryLocation | ResolvedLocation, what: string): CUmemLocation_st {
  const r = isResolved(location) ? location : resolveLocation(location, what);
  const rec = new CUmemLocation_st();
  rec.type = r.cuType;
  rec.id = r.id;
  return rec;
}

function isResolved(v: unknown): v is ResolvedLocation {
  return typeof v === "object" && v !== null && "cuType" in v;
}

/** Advice for a managed range (cuMemAdvise), in cuda.core's words. */
export type ManagedAdvice =
  | "read-mostly"
  | "unset-read-mostly"
  | "preferred-location"
  | "unset-preferred-location"
  | "accessed-by"
  | "unset-accessed-by";

const ADVICE: Readonly<Record<ManagedAdvice, { readonly value: CUmem_advise; readonly needsLocation: boolean }>> = {
  "read-mostly": { value: CUmem_advise.CU_MEM_ADVISE_SET_READ_MOSTLY, needsLocation: false },
  "unset-read-mostly": { value: CUmem_advise.CU_MEM_ADVISE_UNSET_READ_MOSTLY, needsLocation: false },
  "preferred-location": { value: CUmem_advise.CU_MEM_ADVISE_SET_PREFERRED_LOCATION, needsLocation: true },
  "unset-preferred-location": { value: CUmem_advise.CU_MEM_ADVISE_UNSET_PREFERRED_LOCATION, needsLocation: false },
  "accessed-by": { value: CUmem_advise.CU_MEM_ADVISE_SET_ACCESSED_BY, needsLocation: true },
  "unset-accessed-by": { value: CUmem_advise.CU_MEM_ADVISE_UNSET_ACCESSED_BY, needsLocation: true },
};

/** The advice names. */
export const MANAGED_ADVICE: readonly ManagedAdvice[] = Object.keys(ADVICE) as ManagedAdvice[];

/**
 * Resolves advice and its location: the CUmem_advise value and the location record. Advice that ignores the
 * location ("read-mostly", "unset-read-mostly", "unset-preferred-location") gets a host location when none is given.
 */
export function resolveAdvice(advice: ManagedAdvice, location: MemoryLocation | undefined): { advice: CUmem_advise; location: CUmemLocation_st } {
  if (typeof advice !== "string" || !Object.hasOwn(ADVICE, advice)) {
    throw new RangeError(`advise: advice is one of ${MANAGED_ADVICE.map((a) => JSON.stringify(a)).join(", ")}, not ${describeValue(advice)}`);
  }
  const a = ADVICE[advice];
  if (location === undefined) {
    if (a.needsLocation) throw new TypeError(`advise(${JSON.stringify(advice)}) needs a location: a Device, a device ordinal, "host" or { type, id }`);
    return { advice: a.value, location: locationRecord("host", "advise") };
  }
  return { advice: a.value, location: locationRecord(location, "advise") };
}
