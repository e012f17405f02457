/**
 * The types of `profile()` (activity.ts), apart so that importing cuda-ts does not load the CUPTI tables.
 *
 * @module
 */
import type { Pointer } from "../../ffi/index.ts";

/** What `profile()` can collect. */
export type ActivityKind = "kernel" | "memcpy" | "memset";

/** Options of {@link profile}. */
export interface ProfileOptions {
  /** What to collect (default: all three). */
  readonly kinds?: readonly ActivityKind[];
  /**
   * Wait for the current context's work (`cuCtxSynchronize`) before collecting (default true): records of work
   * still running have no end time yet. Pass false when the function waited for all its work itself (then
   * profile() makes no driver call of its own).
   */
  readonly synchronize?: boolean;
  /** Bytes of each activity buffer handed to CUPTI (default 8 MiB; at least 64 KiB). */
  readonly bufferBytes?: number;
}

/** A kernel that ran (`CUpti_ActivityKernel*`, kind CONCURRENT_KERNEL). */
export interface KernelActivity {
  /** The kernel's name as the module has it (mangled for C++ kernels). */
  readonly name: string;
  /** Blocks per grid, x y z. */
  readonly grid: readonly [number, number, number];
  /** Threads per block, x y z. */
  readonly block: readonly [number, number, number];
  /** Start on the GPU, CUPTI timestamp (ns). */
  readonly start: bigint;
  /** End on the GPU, CUPTI timestamp (ns). */
  readonly end: bigint;
  /** `end - start`, in ns. */
  readonly duration: number;
  /** CUPTI's id of the stream (`streamIdOf(stream)` gives a Stream's). */
  readonly streamId: number;
  readonly contextId: number;
  readonly deviceId: number;
  /** Links the kernel to the API call that launched it. */
  readonly correlationId: number;
  readonly registersPerThread: number;
  readonly staticSharedMemory: number;
  readonly dynamicSharedMemory: number;
}

/** The direction of a copy, from `CUpti_ActivityMemcpyKind`. */
export type MemcpyDirection = "HtoD" | "DtoH" | "HtoA" | "AtoH" | "AtoA" | "AtoD" | "DtoA" | "DtoD" | "HtoH" | "PtoP" | "unknown";

/** A memory copy that ran (`CUpti_ActivityMemcpy*`). */
export interface MemcpyActivity {
  readonly kind: MemcpyDirection;
  readonly bytes: number;
  readonly start: bigint;
  readonly end: bigint;
  /** ns. */
  readonly duration: number;
  readonly streamId: number;
  readonly contextId: number;
  readonly deviceId: number;
  readonly correlationId: number;
}

/** A memset that ran (`CUpti_ActivityMemset*`). */
export interface MemsetActivity {
  /** The value set (as CUPTI reports it). */
  readonly value: number;
  readonly bytes: number;
  readonly start: bigint;
  readonly end: bigint;
  /** ns. */
  readonly duration: number;
  readonly streamId: number;
  readonly contextId: number;
  readonly deviceId: number;
  readonly correlationId: number;
}

/** What {@link profile} returns. */
export interface ProfileResult<T> {
  /** What the function returned. */
  readonly result: T;
  /** Kernels, in the order CUPTI delivered them (sort by `start` for the GPU's order). */
  readonly kernels: readonly KernelActivity[];
  readonly memcpys: readonly MemcpyActivity[];
  readonly memsets: readonly MemsetActivity[];
  /** Records CUPTI had to drop (its buffers were full); 0 when nothing was lost. */
  readonly dropped: number;
  /** CUPTI's clock when profiling began and ended (ns). */
  readonly begin: bigint;
  readonly end: bigint;
  /** The records of one stream (by CUPTI's id of it, `cuptiGetStreamIdEx`). */
  forStream(stream: StreamLike): StreamActivity;
}

/** One stream's share of a {@link ProfileResult}. */
export interface StreamActivity {
  /** CUPTI's id of the stream. */
  readonly streamId: number;
  readonly kernels: readonly KernelActivity[];
  readonly memcpys: readonly MemcpyActivity[];
  readonly memsets: readonly MemsetActivity[];
}

/** A stream with its context: a core `Stream`. */
export interface StreamLike {
  readonly handle: Pointer;
  readonly context: { readonly handle: Pointer };
}

