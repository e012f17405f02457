/**
 * Peer access between GPUs: letting one device's kernels and copies use another device's memory directly (over
 * NVLink or PCIe). `Device.canAccessPeer(peer)` says whether the hardware allows it; `Device.enablePeerAccess(peer)`
 * turns it on.
 *
 * Turning it on does two things, both idempotent:
 * - `cuCtxEnablePeerAccess` from this device's primary context to the peer's (memory from cuMemAlloc);
 * - where the peer has memory pools, `cuMemPoolSetAccess` read-write for this device on the peer's current pool
 *   (what its default memory resource allocates from) and on its memory resource's own `pool` when it has one:
 *   pool allocations do not follow context peer access. A pool created later needs its own access grant.
 *
 * Enabling maps memory between the devices and may wait for work in flight on them: do it once, up front (the
 * first peer-to-peer copy between two devices does it otherwise), not in a loop that should stay asynchronous.
 *
 * @module
 */
import { CUmemAccess_flags, CUmemAccessDesc_st, CUmemLocationType, CUresult, type CUmemoryPool } from "../../bindings/driver.ts";
import { ffi } from "../../ffi/index.ts";
import type { Device } from "../device.ts";
import { driver } from "../base/driver-state.ts";
import { PeerAccessError } from "./errors.ts";

const enabled = new Set<string>();

function key(device: Device, peer: Device): string {
  return `${device.id}->${peer.id}`;
}

/**
 * Lets `device`'s kernels and copies use `peer`'s memory directly. Both devices must have been made current once
 * (`setCurrent()`, for their primary contexts). Nothing to do for one device and the same one; harmless when
 * already on (CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED is not an error). Throws {@link PeerAccessError} when
 * `device.canAccessPeer(peer)` is false.
 */
export function enablePeerAccess(device: Device, peer: Device): void {
  if (device.id === peer.id) return;
  const k = key(device, peer);
  if (enabled.has(k)) return;
  if (!device.canAccessPeer(peer)) {
    throw new PeerAccessError(
      device.id,
      peer.id,
      `device ${device.id} (${device.name}) cannot access device ${peer.id}'s memory directly (cuDeviceCanAccessPeer gives 0): ` +
        "copy between them instead (Buffer.copyTo stages such copies through pinned host memory)",
    );
  }
  const peerContext = peer.context;
  device.withContext(() => {
    try {
      driver.cuCtxEnablePeerAccess(peerContext.handle, 0);
    } catch (e) {
      if ((e as { code?: number }).code !== CUresult.CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED) throw e;
    }
  });
  for (const pool of peerPools(peer)) grantPoolAccess(pool, device.id);
  enabled.add(k);
}

/**
 * The pools `peer`'s buffers come from: its current memory pool (what its default memory resource allocates from)
 * and, when its memory resource exposes one as `pool`, that pool. None where the device has no memory pools.
 */
function peerPools(peer: Device): CUmemoryPool[] {
  if (!peer.properties.memoryPoolsSupported) return [];
  const pools = [driver.cuDeviceGetMemPool(peer.id)];
  const own = (peer.memoryResource as { readonly pool?: unknown }).pool;
  if (own !== undefined && own !== null && !pools.some((p) => ffi.samePointer(p, own as CUmemoryPool))) pools.push(own as CUmemoryPool);
  return pools;
}

/** Gives device `deviceId` read-write access to a memory pool's allocations. */
function grantPoolAccess(pool: CUmemoryPool, deviceId: number): void {
  const desc = new CUmemAccessDesc_st();
  const location = desc.location;
  location.type = CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE;
  location.id = deviceId;
  desc.flags = CUmemAccess_flags.CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  driver.cuMemPoolSetAccess(pool, desc, 1);
}
