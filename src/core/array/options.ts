/**
 * The options of the operations on arrays (`cuda-ts/array` and the DeviceArray methods). Every one takes an optional
 * `stream`: left out, the operation runs on the stream of its first array operand (`a.stream`, the stream that array
 * was made on).
 *
 * @module
 */
import type { ArrayOperationOptions, DeviceArray, ReduceOptions } from "./device-array.ts";
import type { DType, DTypeName } from "./dtype.ts";
import type { MemoryResource } from "../memory/resource.ts";

export type { ArrayOperationOptions, ReduceOptions } from "./device-array.ts";

/** A dtype by name or object. */
export type DTypeArgument<N extends DTypeName = DTypeName> = N | DType<N>;

/** Options of an elementwise operation: the stream, and where to write the result. */
export interface ElementwiseOptions extends ArrayOperationOptions {
  /**
   * The array the result is written into (its shape must be the broadcast shape, its dtype one the result converts
   * to under NumPy's "same_kind" rule: see `canCastSameKind`); default: a new array on the stream's device. It may
   * be an operand (in place).
   */
  readonly out?: DeviceArray;
}

/** Options of `astype`. */
export interface AstypeOptions extends ArrayOperationOptions {
  /** Whether a new array is made even when the dtype is already `dtype` (default true; false returns the array itself then). */
  readonly copy?: boolean;
}

/** Options of the allocating functions (`zeros`, `arange`, `eye`, ...): the stream is required where no array gives one. */
export interface CreationOptions<N extends DTypeName = DTypeName> extends ArrayOperationOptions {
  /** The dtype (each function says its default). */
  readonly dtype?: DTypeArgument<N>;
  /** The memory resource to allocate from (default: the stream's device's `memoryResource`). */
  readonly memoryResource?: MemoryResource;
}

/** Options of `sum`, `prod` and `mean` (and `nansum`, `nanprod`, `nanmean`): a reduction's, and the dtype it computes in. */
export interface SumOptions extends ReduceOptions {
  /**
   * The result's dtype, which the elements are converted to and accumulated in (float16 and bfloat16 accumulate in
   * float32): `sum(x, { dtype: "float64" })` sums float32 in double, `sum(flags, { dtype: "int32" })` counts into
   * int32. Default: NumPy's (int64 for bool and signed integers, uint64 for unsigned, the dtype for floats; `mean`
   * float64 for integers). A complex array needs a complex dtype; bool is refused (`any` and `all` reduce to bool).
   */
  readonly dtype?: DTypeArgument;
}

/** Options of `var` and `std`: the reduction's options and the delta degrees of freedom. */
export interface VarianceOptions extends ReduceOptions {
  /** The divisor is `count - ddof` (default 0: the population variance; 1: the sample variance). */
  readonly ddof?: number;
}

/** Options of `argmin` and `argmax`: one axis or none (the flat index over every element). */
export interface ArgReduceOptions extends ArrayOperationOptions {
  /** The axis (negative counts from the end); default: the index into the flattened array. */
  readonly axis?: number;
  /** Whether the reduced axis stays, with extent 1 (default false). */
  readonly keepdims?: boolean;
}

/** Options of `cumsum` and `cumprod`. */
export interface ScanOptions extends ArrayOperationOptions {
  /** The axis scanned (negative counts from the end); default: the flattened array (a 1-d result). */
  readonly axis?: number;
  /** The result's dtype (default: as `sum`: int64 for bool and signed integers, uint64 for unsigned, the dtype otherwise). */
  readonly dtype?: DTypeArgument;
  /** The array the result is written into. */
  readonly out?: DeviceArray;
}

/** Options of `sort` and `argsort`. */
export interface SortOptions extends ArrayOperationOptions {
  /** The axis sorted along (default -1, the last); null sorts the flattened array. */
  readonly axis?: number | null;
}

/** Which insertion point `searchsorted` gives among equal elements: before them ("left") or after them ("right"). */
export type SearchSide = "left" | "right";

/** Options of `searchsorted`: the side, a sorter, the stream and where to write the result. */
export interface SearchSortedOptions extends ElementwiseOptions {
  /** Where among equal elements a value goes: before them ("left", the default: the first i with a[i] >= v) or after them ("right": the first i with a[i] > v). */
  readonly side?: SearchSide;
  /** Integer indices that sort `a` (as `argsort(a)` gives), for an `a` that is not sorted itself: one per element, 1-d. */
  readonly sorter?: DeviceArray;
}

/** Options of `take`. */
export interface TakeOptions extends ArrayOperationOptions {
  /** The axis indexed (default: the flattened array). */
  readonly axis?: number;
  /**
   * What an index outside the axis does: "raise" (default: checked on the device, an IndexError at the next
   * synchronisation of the call's stream), "wrap" (modulo the extent) or "clip" (to the nearest end).
   */
  readonly mode?: "raise" | "wrap" | "clip";
  /** The array the result is written into. */
  readonly out?: DeviceArray;
}

/** Options of `diagonal` and `trace`. */
export interface DiagonalViewOptions {
  /** Which diagonal: 0 the main one, positive above it, negative below it (default 0). */
  readonly offset?: number;
  /** The first of the two axes the diagonals run over (default 0; negative counts from the end). */
  readonly axis1?: number;
  /** The second of the two axes (default 1). */
  readonly axis2?: number;
}

/** Options of `trace`: the diagonals summed (as `diagonal`'s) and the stream. */
export interface TraceOptions extends DiagonalViewOptions, ArrayOperationOptions {}
