/**
 * The operations of `cuda-ts/array` as DeviceArray methods, for scripts that chain them:
 *
 * ```ts
 * const c = a.mul(b).add(1).sum({ axis: 0 });     // on a.stream, the stream a was made on
 * const mask = x.gt(0);                            // a bool array
 * const y = x.astype("float16");
 * ```
 *
 * The methods live on this base class of DeviceArray; their implementations are in the operation modules
 * (src/core/array/ops/), which register them when the package root loads, so the object layer below them (the
 * arrays, the kernel builders) does not import them.
 *
 * @module
 */
import { PointerArgument } from "../launch/pointer-argument.ts";
import type { ArrayScalar, DeviceArray } from "./device-array.ts";
import type { DTypeName } from "./dtype.ts";
import type { AxisSpec } from "./broadcast.ts";
import type {
  ArgReduceOptions,
  ArrayOperationOptions,
  AstypeOptions,
  DiagonalViewOptions,
  DTypeArgument,
  ElementwiseOptions,
  ReduceOptions,
  ScanOptions,
  SearchSortedOptions,
  SortOptions,
  SumOptions,
  TakeOptions,
  TraceOptions,
  VarianceOptions,
} from "./options.ts";

/** An operand of an elementwise operation: an array, or a scalar broadcast to every element. */
export type ArrayOperand = DeviceArray | ArrayScalar;

/** The binary arithmetic operations (functions of `cuda-ts/array` and DeviceArray methods). */
export type ArithmeticName = "add" | "sub" | "mul" | "div" | "floorDiv" | "mod" | "pow" | "maximum" | "minimum";

/** The comparisons, each giving a bool array. */
export type ComparisonName = "eq" | "ne" | "lt" | "le" | "gt" | "ge";

/** What each method's implementation takes: the array, then the method's own arguments. */
type Implementation<F> = F extends (...args: infer P) => infer R ? (self: DeviceArray, ...args: P) => R : never;

/** @internal The implementations of the methods, by name, as the operation modules register them. */
export type ArrayMethodTable = { [K in Exclude<keyof ArrayMethods, keyof PointerArgument>]: Implementation<ArrayMethods[K]> };

const table: Partial<ArrayMethodTable> = {};

/** @internal Registers implementations of DeviceArray methods (called by the operation modules as they load). */
export function provideArrayMethods(implementations: Partial<ArrayMethodTable>): void {
  Object.assign(table, implementations);
}

function implementation<K extends keyof ArrayMethodTable>(name: K): ArrayMethodTable[K] {
  const f = table[name];
  if (f === undefined) throw new TypeError(`DeviceArray.${String(name)} is not loaded: import "cuda-ts" (the package root registers the array operations)`);
  return f as ArrayMethodTable[K];
}

/** The operation methods of {@link DeviceArray} (see `cuda-ts/array` for each one's rules: dtypes, broadcasting, errors). */
export abstract class ArrayMethods extends PointerArgument {
  // ---- arithmetic: NumPy's promotion rules, broadcasting, scalars as weak operands ----

  /** `this + other`, elementwise, broadcast. */
  add(other: ArrayOperand, options?: ElementwiseOptions): DeviceArray {
    return implementation("add")(this as unknown as DeviceArray, other, options);
  }
  /** `this - other`, elementwise, broadcast. */
  sub(other: ArrayOperand, options?: ElementwiseOptions): DeviceArray {
    return implementation("sub")(this as unknown as DeviceArray, other, options);
  }
  /** `this * other`, elementwise, broadcast. */
  mul(other: ArrayOperand, options?: ElementwiseOptions): DeviceArray {
    return implementation("mul")(this as unknown as DeviceArray, other, options);
  }
  /** `this / other` (true division: integers give float64), elementwise, broadcast. */
  div(other: ArrayOperand, options?: ElementwiseOptions): DeviceArray {
    return implementation("div")(this as unknown as DeviceArray, other, options);
  }
  /** `floor(this / other)` (Python's `//`), elementwise, broadcast. */
  floorDiv(other: ArrayOperand, options?: ElementwiseOptions): DeviceArray {
    return implementation("floorDiv")(this as unknown as DeviceArray, other, options);
  }
  /** The remainder with the divisor's sign (Python's `%`), elementwise, broadcast. */
  mod(other: ArrayOperand, options?: ElementwiseOptions): DeviceArray {
    return implementation("mod")(this as unknown as DeviceArray, other, options);
  }
  /** `this ** other`, elementwise, broadcast. */
  pow(other: ArrayOperand, options?: ElementwiseOptions): DeviceArray {
    return implementation("pow")(this as unknown as DeviceArray, other, options);
  }
  /** The greater of each pair (NaN wins), elementwise, broadcast. */
  maximum(other: ArrayOperand, options?: ElementwiseOptions): DeviceArray {
    return implementation("maximum")(this as unknown as DeviceArray, other, options);
  }
  /** The lesser of each pair (NaN wins), elementwise, broadcast. */
  minimum(other: ArrayOperand, options?: ElementwiseOptions): DeviceArray {
    return implementation("minimum")(this as unknown as DeviceArray, other, options);
  }
  /** `-this`, elementwise. */
  neg(options?: ElementwiseOptions): DeviceArray {
    return implementation("neg")(this as unknown as DeviceArray, options);
  }
  /** `|this|`, elementwise (complex: the magnitude, a real array). */
  abs(options?: ElementwiseOptions): DeviceArray {
    return implementation("abs")(this as unknown as DeviceArray, options);
  }
  /** Each element limited to `[low, high]` (either may be null: no limit). */
  clip(low: ArrayOperand | null, high: ArrayOperand | null, options?: ElementwiseOptions): DeviceArray {
    return implementation("clip")(this as unknown as DeviceArray, low, high, options);
  }

  // ---- comparisons: bool arrays ----

  /** `this == other`, a bool array. */
  eq(other: ArrayOperand, options?: ElementwiseOptions): DeviceArray<"bool"> {
    return implementation("eq")(this as unknown as DeviceArray, other, options);
  }
  /** `this != other`, a bool array. */
  ne(other: ArrayOperand, options?: ElementwiseOptions): DeviceArray<"bool"> {
    return implementation("ne")(this as unknown as DeviceArray, other, options);
  }
  /** `this < other`, a bool array. */
  lt(other: ArrayOperand, options?: ElementwiseOptions): DeviceArray<"bool"> {
    return implementation("lt")(this as unknown as DeviceArray, other, options);
  }
  /** `this <= other`, a bool array. */
  le(other: ArrayOperand, options?: ElementwiseOptions): DeviceArray<"bool"> {
    return implementation("le")(this as unknown as DeviceArray, other, options);
  }
  /** `this > other`, a bool array. */
  gt(other: ArrayOperand, options?: ElementwiseOptions): DeviceArray<"bool"> {
    return implementation("gt")(this as unknown as DeviceArray, other, options);
  }
  /** `this >= other`, a bool array. */
  ge(other: ArrayOperand, options?: ElementwiseOptions): DeviceArray<"bool"> {
    return implementation("ge")(this as unknown as DeviceArray, other, options);
  }

  // ---- conversion ----

  /** The elements converted to `dtype` (C casts; float to integer truncates toward zero), a new array. */
  astype<M extends DTypeName>(dtype: DTypeArgument<M>, options?: AstypeOptions): DeviceArray<M> {
    return implementation("astype")(this as unknown as DeviceArray, dtype, options) as DeviceArray<M>;
  }

  // ---- reductions ----

  /**
   * The sum of the elements over `axis` (default: all), a new array: integers and bool sum into int64 (unsigned into
   * uint64), floats and complex keep their dtype (float16 and bfloat16 accumulate in float32); `{ dtype }` asks for
   * another.
   */
  sum(options?: SumOptions): DeviceArray {
    return implementation("sum")(this as unknown as DeviceArray, options);
  }
  /** The product of the elements over `axis` (default: all); dtypes as {@link ArrayMethods.sum}. */
  prod(options?: SumOptions): DeviceArray {
    return implementation("prod")(this as unknown as DeviceArray, options);
  }
  /** The least element over `axis` (default: all), of this dtype; NaN wins; an empty reduction is refused. */
  min(options?: ReduceOptions): DeviceArray {
    return implementation("min")(this as unknown as DeviceArray, options);
  }
  /** The greatest element over `axis` (default: all), of this dtype; NaN wins; an empty reduction is refused. */
  max(options?: ReduceOptions): DeviceArray {
    return implementation("max")(this as unknown as DeviceArray, options);
  }
  /** The mean over `axis` (default: all): float64 for integers and bool, the dtype for floats and complex; `{ dtype }` asks for another. */
  mean(options?: SumOptions): DeviceArray {
    return implementation("mean")(this as unknown as DeviceArray, options);
  }
  /** The sum of the `offset`-th diagonal over `axis1` and `axis2` (see `trace` of `cuda-ts/array`). */
  trace(options?: TraceOptions): DeviceArray {
    return implementation("trace")(this as unknown as DeviceArray, options);
  }
  /** The `offset`-th diagonals over `axis1` and `axis2`, a view, their axis last (see `diagonal` of `cuda-ts/array`). */
  diagonal(options?: DiagonalViewOptions): DeviceArray {
    return implementation("diagonal")(this as unknown as DeviceArray, options);
  }

  /** The variance over `axis` (default: all), `ddof` as NumPy; float64 for integers, the real dtype for complex. */
  var(options?: VarianceOptions): DeviceArray {
    return implementation("var")(this as unknown as DeviceArray, options);
  }
  /** The standard deviation over `axis` (default: all): the square root of {@link ArrayMethods.var}. */
  std(options?: VarianceOptions): DeviceArray {
    return implementation("std")(this as unknown as DeviceArray, options);
  }
  /** The index of the least element (the first one; NaN wins), flat or along `axis`: an int64 array. */
  argmin(options?: ArgReduceOptions): DeviceArray<"int64"> {
    return implementation("argmin")(this as unknown as DeviceArray, options);
  }
  /** The index of the greatest element (the first one; NaN wins), flat or along `axis`: an int64 array. */
  argmax(options?: ArgReduceOptions): DeviceArray<"int64"> {
    return implementation("argmax")(this as unknown as DeviceArray, options);
  }
  /** Whether any element over `axis` (default: all) is non-zero: a bool array. */
  any(options?: ReduceOptions): DeviceArray<"bool"> {
    return implementation("any")(this as unknown as DeviceArray, options);
  }
  /** Whether every element over `axis` (default: all) is non-zero: a bool array. */
  all(options?: ReduceOptions): DeviceArray<"bool"> {
    return implementation("all")(this as unknown as DeviceArray, options);
  }

  // ---- scans ----

  /** The running sum along `axis` (default: the flattened array). */
  cumsum(options?: ScanOptions): DeviceArray {
    return implementation("cumsum")(this as unknown as DeviceArray, options);
  }
  /** The running product along `axis` (default: the flattened array). */
  cumprod(options?: ScanOptions): DeviceArray {
    return implementation("cumprod")(this as unknown as DeviceArray, options);
  }

  // ---- sorting ----

  /** A sorted copy along `axis` (default the last; NaN last, as NumPy). */
  sort(options?: SortOptions): DeviceArray {
    return implementation("sort")(this as unknown as DeviceArray, options);
  }
  /** The indices that sort along `axis` (default the last; stable): an int64 array. */
  argsort(options?: SortOptions): DeviceArray<"int64"> {
    return implementation("argsort")(this as unknown as DeviceArray, options);
  }
  /**
   * Where each of `v` would be inserted into this sorted 1-d array to keep it sorted: an int64 array of `v`'s shape
   * (see `searchsorted` of `cuda-ts/array`).
   */
  searchsorted(v: ArrayOperand, options?: SearchSortedOptions): DeviceArray {
    return implementation("searchsorted")(this as unknown as DeviceArray, v, options);
  }

  // ---- indexing and shape ----

  /** The elements at `indices` (an integer array or a list of numbers), flat or along `axis`. */
  take(indices: DeviceArray | readonly number[], options?: TakeOptions): DeviceArray {
    return implementation("take")(this as unknown as DeviceArray, indices, options);
  }
  /** Writes `values` (repeated as needed, as NumPy's put; a scalar everywhere; converted to this dtype) at the flat `indices`, in place. */
  put(indices: DeviceArray | readonly number[], values: ArrayOperand, options?: Omit<TakeOptions, "axis" | "out">): void {
    implementation("put")(this as unknown as DeviceArray, indices, values, options);
  }
  /** A contiguous 1-d copy of the elements, row-major. */
  flatten(options?: ArrayOperationOptions): DeviceArray {
    return implementation("flatten")(this as unknown as DeviceArray, options);
  }
  /** The elements as one axis: a view where the strides allow, a contiguous copy otherwise. */
  ravel(options?: ArrayOperationOptions): DeviceArray {
    return implementation("ravel")(this as unknown as DeviceArray, options);
  }
  /** A view without the axes of extent 1 (`axis`: only those; AxisError when one is not 1). */
  squeeze(axis?: AxisSpec): DeviceArray {
    return implementation("squeeze")(this as unknown as DeviceArray, axis);
  }
  /** A view with a new axis of extent 1 at each of `axis`. */
  expandDims(axis: AxisSpec): DeviceArray {
    return implementation("expandDims")(this as unknown as DeviceArray, axis);
  }
  /** A view with two axes exchanged. */
  swapaxes(axis1: number, axis2: number): DeviceArray {
    return implementation("swapaxes")(this as unknown as DeviceArray, axis1, axis2);
  }
  /** A read view of this array broadcast to `shape` (stride 0 along the broadcast axes; do not write into it). */
  broadcastTo(shape: readonly number[]): DeviceArray {
    return implementation("broadcastTo")(this as unknown as DeviceArray, shape);
  }

  // ---- to the host ----

  /**
   * The one element of a size-1 array, read to the host (synchronises with the stream): a number (a bigint for
   * 64-bit integers, a boolean for bool, [re, im] for complex).
   */
  item(options?: ArrayOperationOptions): Promise<ArrayScalar> {
    return implementation("item")(this as unknown as DeviceArray, options);
  }
  /** The elements as nested JavaScript arrays (as NumPy's `tolist`), read to the host. */
  toList(options?: ArrayOperationOptions): Promise<unknown[] | ArrayScalar> {
    return implementation("toList")(this as unknown as DeviceArray, options);
  }
}
