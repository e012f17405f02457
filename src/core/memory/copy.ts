/**
 * Copies between the memory of two devices, for `Buffer.copyTo` / `Buffer.copyFrom` when the buffers live on
 * different GPUs (or when the caller orders the copy with a second stream).
 *
 * Ordering: every stream the caller gives (`stream`, and `peerStream` when set) is ordered with the whole copy:
 * the copy starts after the work queued on each of them so far, and work queued on each of them afterwards
 * starts after the copy has finished (reading the source and writing the destination). Across devices this is
 * an event recorded on one device's stream that the other device's stream waits on (cuStreamWaitEvent takes an
 * event of another context), as cudarc does for its cross-context copies.
 *
 * Route (`via`):
 * - `"peer"`: one `cuMemcpyPeerAsync`, queued on the destination's stream when one was given (else on `stream`),
 *   after enabling peer access both ways (`Device.enablePeerAccess`). Throws PeerAccessError when the GPUs cannot.
 * - `"host"`: staged through pinned host memory in 4 MiB chunks, double-buffered: device-to-host on a stream of
 *   the source device, host-to-device on a stream of the destination device, each chunk's halves ordered by
 *   events. Where the caller gave no stream on one of the devices, an internal stream of that device does the work.
 *   The pinned staging memory (2 × 4 MiB per ordered pair of devices) is allocated on first use and kept for the
 *   life of the process.
 * - `"auto"` (the default): `"peer"` when `cuDeviceCanAccessPeer` allows it in both directions, else `"host"`.
 *
 * @module
 */
import { CU_MEMHOSTALLOC_PORTABLE, type CUdeviceptr } from "../../bindings/driver.ts";
import type { NativePointer } from "../../ffi/types.ts";
import type { Buffer, StreamArg } from "./buffer.ts";
import type { Device } from "../device.ts";
import { driver, withCurrentContext } from "../base/driver-state.ts";
import type { Event } from "../event.ts";
import { enablePeerAccess } from "./peer.ts";
import type { Stream } from "../stream.ts";
import { PeerAccessError } from "./errors.ts";
import { takeStream, type StreamSpec } from "../base/stream-arg.ts";

/** How a copy between two devices travels. */
export type CopyRoute = "auto" | "peer" | "host";

/** Options of `Buffer.copyTo` / `Buffer.copyFrom` between buffers. */
export interface CopyOptions extends StreamArg {
  /**
   * A second stream to order the copy with, typically one of the other device: the copy waits for the work
   * queued on it so far, and its later work waits for the copy.
   */
  readonly peerStream?: Stream;
  /** For buffers on different devices: how the bytes travel (default "auto"; see peer-copy.ts). */
  readonly via?: CopyRoute;
}

const PEER_STREAM: StreamSpec & { readonly optional: true } = Object.freeze({ name: "peerStream", optional: true });

/** The size of one staging chunk (bytes) and how many chunks are in flight. */
export const STAGING_CHUNK_BYTES = 4 * 2 ** 20;
const STAGING_SLOTS = 2;

/** The device of device memory; undefined for host-accessible memory (pinned, managed), which needs no routing. */
function deviceOf(b: Buffer): Device | undefined {
  return b.isHostAccessible ? undefined : b.device;
}

/** Whether a buffer-to-buffer copy needs this module: different devices, or a second stream to order with. */
export function needsOrderedCopy(src: Buffer, dst: Buffer, options: CopyOptions): boolean {
  if (options.peerStream !== undefined || (options.via !== undefined && options.via !== "auto")) return true;
  const s = deviceOf(src);
  const d = deviceOf(dst);
  return s !== undefined && d !== undefined && s.id !== d.id;
}

function checkRoute(via: unknown): CopyRoute {
  if (via === undefined) return "auto";
  if (via === "auto" || via === "peer" || via === "host") return via;
  throw new TypeError(`CopyOptions.via is "auto", "peer" or "host", not ${JSON.stringify(via)}`);
}

function unique(streams: readonly Stream[]): Stream[] {
  const out: Stream[] = [];
  for (const s of streams) if (!out.some((o) => o.equals(s))) out.push(s);
  return out;
}

/** Every working stream waits for the work queued so far on every given stream. */
function orderBefore(working: readonly Stream[], given: readonly Stream[]): void {
  for (const w of working) for (const g of given) if (!w.equals(g)) w.wait(g);
}

/** Every given stream's later work waits for everything the working streams queued. */
function orderAfter(working: readonly Stream[], given: readonly Stream[]): void {
  for (const g of given) for (const w of working) if (!w.equals(g)) g.wait(w);
}

const helpers = new Map<number, Stream>();

/** A stream of `device` for the half of a copy no given stream covers (created once, non-blocking). */
function helperStream(device: Device): Stream {
  let s = helpers.get(device.id);
  if (s === undefined || s.isClosed) {
    s = device.createStream({ nonBlocking: true });
    helpers.set(device.id, s);
  }
  return s;
}

/**
 * Copies `src` into `dst` (equal sizes, checked by the caller), ordered as described in this module's notes.
 * Both devices must have been made current once (their primary contexts).
 */
export function copyOrdered(src: Buffer, dst: Buffer, options: CopyOptions): void {
  const route = checkRoute(options.via);
  const peerStream = takeStream(options.peerStream, "CopyOptions", PEER_STREAM);
  const given = unique(peerStream === undefined ? [options.stream] : [options.stream, peerStream]);
  if (src.size === 0) return;
  const srcDevice = deviceOf(src);
  const dstDevice = deviceOf(dst);
  if (srcDevice === undefined || dstDevice === undefined) {
    if (route !== "auto") throw new TypeError(`CopyOptions.via "${route}" is for copies between device memory; this copy involves host-accessible memory`);
    copyDirect(src, dst, given[0]!, given);
    return;
  }
  const onDevice = (d: Device) => given.find((s) => s.device.id === d.id);
  if (route === "host") {
    copyStaged(src, dst, srcDevice, dstDevice, onDevice(srcDevice) ?? helperStream(srcDevice), onDevice(dstDevice) ?? helperStream(dstDevice), given);
    return;
  }
  if (srcDevice.id !== dstDevice.id) {
    const peer = srcDevice.canAccessPeer(dstDevice) && dstDevice.canAccessPeer(srcDevice);
    if (!peer) {
      if (route === "peer") {
        throw new PeerAccessError(dstDevice.id, srcDevice.id, `devices ${srcDevice.id} and ${dstDevice.id} cannot access each other's memory: copy with { via: "host" } or "auto"`);
      }
      copyStaged(src, dst, srcDevice, dstDevice, onDevice(srcDevice) ?? helperStream(srcDevice), onDevice(dstDevice) ?? helperStream(dstDevice), given);
      return;
    }
    enablePeerAccess(dstDevice, srcDevice);
    enablePeerAccess(srcDevice, dstDevice);
  }
  copyDirect(src, dst, onDevice(dstDevice) ?? given[0]!, given);
}

/** One stream-ordered copy on `on`: cuMemcpyPeerAsync between devices, cuMemcpyAsync otherwise. */
function copyDirect(src: Buffer, dst: Buffer, on: Stream, given: readonly Stream[]): void {
  orderBefore([on], given);
  const s = deviceOf(src);
  const d = deviceOf(dst);
  withCurrentContext(on.context.handle, () => {
    if (s !== undefined && d !== undefined && s.id !== d.id) {
      driver.cuMemcpyPeerAsync(dst.handle, d.context.handle, src.handle, s.context.handle, src.size, on.handle);
    } else {
      driver.cuMemcpyAsync(dst.handle, src.handle, src.size, on.handle);
    }
  });
  orderAfter([on], given);
}

/** Pinned staging memory and its events for copies from one device to another. */
interface Staging {
  readonly host: NativePointer[];
  /** Recorded on the source side when a slot's device-to-host copy is queued (the source's context). */
  readonly filled: Event[];
  /** Recorded on the destination side when a slot's host-to-device copy is queued (the destination's context). */
  readonly drained: Event[];
}

const stagings = new Map<string, Staging>();

function staging(srcDevice: Device, dstDevice: Device): Staging {
  const k = `${srcDevice.id}->${dstDevice.id}`;
  let st = stagings.get(k);
  if (st === undefined) {
    const host = srcDevice.withContext(() =>
      Array.from({ length: STAGING_SLOTS }, () => driver.cuMemHostAlloc(STAGING_CHUNK_BYTES, CU_MEMHOSTALLOC_PORTABLE) as NativePointer),
    );
    st = {
      host,
      filled: Array.from({ length: STAGING_SLOTS }, () => srcDevice.createEvent({ timing: false })),
      drained: Array.from({ length: STAGING_SLOTS }, () => dstDevice.createEvent({ timing: false })),
    };
    stagings.set(k, st);
  }
  return st;
}

/** Copies through pinned host memory, chunk by chunk, two chunks in flight. */
function copyStaged(src: Buffer, dst: Buffer, srcDevice: Device, dstDevice: Device, onSrc: Stream, onDst: Stream, given: readonly Stream[]): void {
  const st = staging(srcDevice, dstDevice);
  const working = unique([onSrc, onDst]);
  orderBefore(working, given);
  const n = src.size;
  const srcBase = src.handle;
  const dstBase = dst.handle;
  for (let offset = 0, i = 0; offset < n; offset += STAGING_CHUNK_BYTES, i++) {
    const slot = i % STAGING_SLOTS;
    const len = Math.min(STAGING_CHUNK_BYTES, n - offset);
    const drained = st.drained[slot]!;
    const filled = st.filled[slot]!;
    // The slot's previous chunk must have left for the destination before this one overwrites it.
    if (drained.isRecorded) onSrc.wait(drained);
    withCurrentContext(onSrc.context.handle, () => driver.cuMemcpyDtoHAsync(st.host[slot]!, (srcBase + BigInt(offset)) as CUdeviceptr, len, onSrc.handle));
    onSrc.record(filled);
    onDst.wait(filled);
    withCurrentContext(onDst.context.handle, () => driver.cuMemcpyHtoDAsync((dstBase + BigInt(offset)) as CUdeviceptr, st.host[slot]!, len, onDst.handle));
    onDst.record(drained);
  }
  orderAfter(working, given);
}
