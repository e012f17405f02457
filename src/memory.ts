/**
 * `cuda-ts/memory`: memory beyond the root's buffers and resources: managed buffers with prefetch and discard, and
 * batched copies.
 *
 * @module
 */
// The object layer this subject builds on (the root registers Device and DeviceArray with the layers below it).
import "./index.ts";
export {
  ManagedBuffer,
  prefetchBatch,
  discardBatch,
  discardPrefetchBatch,
  type ManagedBufferLike,
  type ManagedStreamOptions,
  type ReadLocation,
} from "./core/memory/managed-buffer.ts";
export { copyBatch, type BatchCopy, type BatchCopyEnd, type BatchCopyOptions, type ContiguousMemory, type SrcAccessOrder } from "./core/memory/batch-copy.ts";
