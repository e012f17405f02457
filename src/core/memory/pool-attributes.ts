/**
 * Memory pool attributes (`CUmemPool_attribute`) by cuda.core's names, camelCased: the reuse flags and the release
 * threshold are readable and settable; the current/high byte counts are readable, and the two high watermarks can
 * be reset to 0 (the only value the driver accepts for them).
 *
 * @module
 */
import { CUmemPool_attribute, type CUmemoryPool } from "../../bindings/driver.ts";
import { Scratch } from "../../ffi/index.ts";
import { driver } from "../base/driver-state.ts";
import { checkInternal, type Internal } from "../base/internal.ts";

/** How an attribute may be changed. */
export type PoolAttributeAccess = "read-write" | "read-only" | "reset-only";

/** One pool attribute: its driver enum, value type and access. */
export interface PoolAttributeInfo {
  readonly attribute: CUmemPool_attribute;
  /** "bool": the driver's int; "bytes": the driver's cuuint64_t. */
  readonly kind: "bool" | "bytes";
  readonly access: PoolAttributeAccess;
}

/** Every pool attribute by name. */
export const POOL_ATTRIBUTES = Object.freeze({
  reuseFollowEventDependencies: { attribute: CUmemPool_attribute.CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES, kind: "bool", access: "read-write" },
  reuseAllowOpportunistic: { attribute: CUmemPool_attribute.CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC, kind: "bool", access: "read-write" },
  reuseAllowInternalDependencies: { attribute: CUmemPool_attribute.CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES, kind: "bool", access: "read-write" },
  releaseThreshold: { attribute: CUmemPool_attribute.CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, kind: "bytes", access: "read-write" },
  reservedMemCurrent: { attribute: CUmemPool_attribute.CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT, kind: "bytes", access: "read-only" },
  reservedMemHigh: { attribute: CUmemPool_attribute.CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH, kind: "bytes", access: "reset-only" },
  usedMemCurrent: { attribute: CUmemPool_attribute.CU_MEMPOOL_ATTR_USED_MEM_CURRENT, kind: "bytes", access: "read-only" },
  usedMemHigh: { attribute: CUmemPool_attribute.CU_MEMPOOL_ATTR_USED_MEM_HIGH, kind: "bytes", access: "reset-only" },
} as const satisfies Record<string, PoolAttributeInfo>);

/** A pool attribute's name. */
export type PoolAttributeName = keyof typeof POOL_ATTRIBUTES;

/** The value type of each attribute: booleans for the reuse flags, bigint byte counts for the rest. */
export type PoolAttributeValue<N extends PoolAttributeName> = (typeof POOL_ATTRIBUTES)[N]["kind"] extends "bool" ? boolean : bigint;

/** A snapshot of every attribute. */
export type PoolAttributeValues = { -readonly [N in PoolAttributeName]: PoolAttributeValue<N> };

/** The largest cuuint64_t: a release threshold that never releases. */
export const ULLONG_MAX = 0xffff_ffff_ffff_ffffn;

/** The info of an attribute name, or a RangeError listing the names. */
export function poolAttributeInfo(name: string): PoolAttributeInfo {
  if (!Object.hasOwn(POOL_ATTRIBUTES, name)) {
    throw new RangeError(`no memory pool attribute is called ${JSON.stringify(name)}; the attributes are ${Object.keys(POOL_ATTRIBUTES).join(", ")}`);
  }
  return POOL_ATTRIBUTES[name as PoolAttributeName];
}

/**
 * Writes an attribute value in the driver's representation into `out` (8 bytes, little-endian), after checking the
 * value and the attribute's access.
 */
export function encodePoolAttribute(name: PoolAttributeName, value: boolean | bigint | number, out: DataView): void {
  const info = poolAttributeInfo(name);
  if (info.access === "read-only") throw new TypeError(`the memory pool attribute ${name} is read-only`);
  if (info.kind === "bool") {
    if (typeof value !== "boolean") throw new TypeError(`the memory pool attribute ${name} is a boolean, not ${typeof value}`);
    out.setBigUint64(0, 0n, true);
    out.setInt32(0, value ? 1 : 0, true);
    return;
  }
  if (typeof value === "boolean") throw new TypeError(`the memory pool attribute ${name} is a byte count (a bigint or an integer), not a boolean`);
  if (typeof value === "number" && !Number.isSafeInteger(value)) throw new RangeError(`the memory pool attribute ${name} is a whole number of bytes, not ${value}`);
  const v = BigInt(value);
  if (v < 0n || v > ULLONG_MAX) throw new RangeError(`the memory pool attribute ${name} is between 0 and 2^64-1 bytes, not ${v}`);
  if (info.access === "reset-only" && v !== 0n) {
    throw new RangeError(`the memory pool attribute ${name} can only be reset to 0 (the driver's rule for high watermarks), not set to ${v}`);
  }
  out.setBigUint64(0, v, true);
}

/** Reads an attribute value from the driver's representation (8 bytes, little-endian). */
export function decodePoolAttribute<N extends PoolAttributeName>(name: N, bytes: DataView): PoolAttributeValue<N> {
  const info = poolAttributeInfo(name);
  return (info.kind === "bool" ? bytes.getInt32(0, true) !== 0 : bytes.getBigUint64(0, true)) as PoolAttributeValue<N>;
}

const scratch = new Scratch(8);

/**
 * The attributes of one memory pool, read from the driver on every access (never cached: other code and the
 * pool's own allocations change them).
 */
export class MemoryPoolAttributes {
  readonly #pool: () => CUmemoryPool;

  /** Reserved to cuda-ts (the token is not exported): use a pool resource's `attributes`. */
  constructor(token: Internal, pool: () => CUmemoryPool) {
    checkInternal(token, "MemoryPoolAttributes", "a pool resource's attributes");
    this.#pool = pool;
  }

  /** Reads an attribute by name. */
  get<N extends PoolAttributeName>(name: N): PoolAttributeValue<N> {
    const info = poolAttributeInfo(name);
    scratch.u64[0] = 0n;
    driver.cuMemPoolGetAttribute(this.#pool(), info.attribute, scratch.pointer);
    return decodePoolAttribute(name, scratch.dv);
  }

  /** Sets an attribute by name (the reuse flags, the release threshold; the high watermarks only to 0). */
  set(name: PoolAttributeName, value: boolean | bigint | number): void {
    encodePoolAttribute(name, value, scratch.dv);
    driver.cuMemPoolSetAttribute(this.#pool(), POOL_ATTRIBUTES[name].attribute, scratch.pointer);
  }

  /** Allow reuse of memory freed on another stream when an event dependency orders the two. */
  get reuseFollowEventDependencies(): boolean {
    return this.get("reuseFollowEventDependencies");
  }
  set reuseFollowEventDependencies(v: boolean) {
    this.set("reuseFollowEventDependencies", v);
  }
  /** Allow reuse of completed frees without a dependency. */
  get reuseAllowOpportunistic(): boolean {
    return this.get("reuseAllowOpportunistic");
  }
  set reuseAllowOpportunistic(v: boolean) {
    this.set("reuseAllowOpportunistic", v);
  }
  /** Allow the driver to insert stream dependencies to reuse memory. */
  get reuseAllowInternalDependencies(): boolean {
    return this.get("reuseAllowInternalDependencies");
  }
  set reuseAllowInternalDependencies(v: boolean) {
    this.set("reuseAllowInternalDependencies", v);
  }
  /** Reserved bytes the pool keeps before returning memory to the system at a synchronisation. */
  get releaseThreshold(): bigint {
    return this.get("releaseThreshold");
  }
  set releaseThreshold(v: bigint | number) {
    this.set("releaseThreshold", v);
  }
  /** Bytes of backing memory the pool holds now. */
  get reservedMemCurrent(): bigint {
    return this.get("reservedMemCurrent");
  }
  /** The most backing memory held since the last reset; assign 0 (or 0n) to reset. */
  get reservedMemHigh(): bigint {
    return this.get("reservedMemHigh");
  }
  set reservedMemHigh(v: bigint | number) {
    this.set("reservedMemHigh", v);
  }
  /** Bytes allocated from the pool and not yet freed. */
  get usedMemCurrent(): bigint {
    return this.get("usedMemCurrent");
  }
  /** The most bytes in use since the last reset; assign 0 (or 0n) to reset. */
  get usedMemHigh(): bigint {
    return this.get("usedMemHigh");
  }
  set usedMemHigh(v: bigint | number) {
    this.set("usedMemHigh", v);
  }

  /** Every attribute, read now. */
  toObject(): PoolAttributeValues {
    const out: Partial<Record<PoolAttributeName, boolean | bigint>> = {};
    for (const name of Object.keys(POOL_ATTRIBUTES) as PoolAttributeName[]) out[name] = this.get(name);
    return out as PoolAttributeValues;
  }
}
