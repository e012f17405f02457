/**
 * The standard reductions of arrays, `sum`, `prod`, `min`, `max` and `mean`, as functions and as DeviceArray methods,
 * over every element or along axes, built on {@link ReductionKernel} (one kernel per reduction and dtype, compiled
 * on first use):
 *
 * ```ts
 * const colSums = sum(x, { stream, axis: 0 });            // or x.sum({ stream, axis: 0 })
 * const rowMax = x.max({ stream, axis: -1, keepdims: true });
 * ```
 *
 * Result dtypes follow NumPy: `sum` and `prod` of bool and signed integers give int64, of unsigned integers uint64,
 * of floats and complex their dtype (float16 and bfloat16 accumulate in float32); `min` and `max` keep the dtype (not
 * complex) and let NaN win; `mean` gives float64 for bool and integers, the dtype otherwise (the sum divided by the
 * count). Inputs may be any views.
 *
 * @module
 */
import { DeviceArray, operationStream, type ReduceOptions, type ReductionName } from "./device-array.ts";
import { provideArrayMethods } from "./methods.ts";
import { dtypeOf, dtypes, type DType, type DTypeName } from "./dtype.ts";
import { DTypeError, ShapeMismatchError } from "./errors.ts";
import { normalizeAxes, reducedShape } from "./broadcast.ts";
import { elementCount } from "./layout.ts";
import { describeValue } from "../../errors/describe.ts";
import { ReductionKernel } from "../kernels/reduction.ts";
import { ElementwiseKernel } from "../kernels/elementwise.ts";
import { diagonal } from "./ops/shape.ts";
import type { DTypeArgument, SumOptions, TraceOptions } from "./options.ts";
import type { Stream } from "../stream.ts";
import { castInto } from "./ops/cast.ts";
import { checkOneDevice, checkOutArray } from "./ops/elementwise.ts";

export type { ReduceOptions, ReductionName } from "./device-array.ts";

/** The dtypes of a reduction of `dtype`: the result's, and the one partial results are kept in. */
export function reductionDTypes(op: ReductionName, dtype: DType): { out: DType; accumulate: DType } {
  const half = dtype.name === "float16" || dtype.name === "bfloat16";
  switch (op) {
    case "sum":
    case "prod": {
      if (dtype.kind === "b" || dtype.kind === "i") return { out: dtypes.int64, accumulate: dtypes.int64 };
      if (dtype.kind === "u") return { out: dtypes.uint64, accumulate: dtypes.uint64 };
      return { out: dtype, accumulate: half ? dtypes.float32 : dtype };
    }
    case "min":
    case "max": {
      if (dtype.kind === "c") throw new DTypeError(`${op}: complex numbers are not ordered; reduce their real parts or magnitudes instead`);
      if (dtype.kind === "b") return { out: dtype, accumulate: dtypes.int32 };
      return { out: dtype, accumulate: half ? dtypes.float32 : dtype };
    }
    case "mean": {
      if (dtype.kind === "b" || dtype.kind === "i" || dtype.kind === "u") return { out: dtypes.float64, accumulate: dtypes.float64 };
      return { out: dtype, accumulate: half ? dtypes.float32 : dtype };
    }
  }
}

/**
 * The dtypes of `sum`, `prod` or `mean` of `input` computed in a `requested` dtype (`{ dtype }`): the result is
 * `requested`, accumulated in it (float16 and bfloat16 in float32). DTypeError for bool (a sum into bool is `any`)
 * and for a real dtype asked of a complex array (the imaginary parts would be dropped). Without `requested`,
 * {@link reductionDTypes}.
 */
export function sumDTypes(op: "sum" | "prod" | "mean", input: DType, requested: DType | undefined): { out: DType; accumulate: DType } {
  if (requested === undefined) return reductionDTypes(op, input);
  if (requested.kind === "b") throw new DTypeError(`${op}: dtype bool is not a sum's; use any() or all() for a bool reduction, or ask for an integer dtype`);
  if (input.kind === "c" && requested.kind !== "c") {
    throw new DTypeError(`${op}: a complex array's ${op} is complex; ${requested.name} would drop the imaginary parts (take .real first, or ask for a complex dtype)`);
  }
  const half = requested.name === "float16" || requested.name === "bfloat16";
  return { out: requested, accumulate: half ? dtypes.float32 : requested };
}

/** @internal The C++ expression of input element `x` (of `input`) converted to a reduction's accumulate type `_type_reduce`. */
export function toReduceType(input: DType): string {
  return input.name === "float16" || input.name === "bfloat16" ? "(_type_reduce)((float)(x))" : "(_type_reduce)(x)";
}

/** @internal The C++ literal of the largest (`high`) or lowest value of a real dtype. */
export function extreme(d: DType, high: boolean): string {
  switch (d.name) {
    case "float32":
      return high ? "__int_as_float(0x7f800000)" : "(-__int_as_float(0x7f800000))";
    case "float64":
      return high ? "__longlong_as_double(0x7ff0000000000000LL)" : "(-__longlong_as_double(0x7ff0000000000000LL))";
    case "int8":
      return high ? "127" : "(-128)";
    case "int16":
      return high ? "32767" : "(-32768)";
    case "int32":
      return high ? "2147483647" : "(-2147483647 - 1)";
    case "int64":
      return high ? "9223372036854775807LL" : "(-9223372036854775807LL - 1)";
    case "uint8":
      return high ? "255" : "0";
    case "uint16":
      return high ? "65535" : "0";
    case "uint32":
      return high ? "4294967295u" : "0u";
    case "uint64":
      return high ? "18446744073709551615ull" : "0ull";
    default:
      throw new DTypeError(`no extreme value for ${d.name}`);
  }
}

const kernels = new Map<string, ReductionKernel>();

/**
 * @internal The ReductionKernel of `op` for inputs of `dtype` (a kernel summing for `mean`), computing in `requested`
 * when given (`{ dtype }` of sum, prod and mean), made once. Exported for the parse test of the generated source.
 */
export function kernelFor(op: ReductionName, dtype: DType, requested?: DType): ReductionKernel {
  const key = requested === undefined ? `${op}|${dtype.name}` : `${op}|${dtype.name}|${requested.name}`;
  let k = kernels.get(key);
  if (k === undefined) {
    const { out, accumulate } = requested === undefined ? reductionDTypes(op, dtype) : sumDTypes(op as "sum" | "prod" | "mean", dtype, requested);
    // mean: sum into the accumulate type; the division follows (the sum divided by the count, as NumPy).
    const result = op === "mean" ? accumulate : out;
    const name = requested === undefined ? `cuda_ts_${op}_${dtype.name}` : `cuda_ts_${op}_${dtype.name}_as_${requested.name}`;
    const post = dtype.kind === "b" && (op === "min" || op === "max") ? "y = (a != 0)" : `y = (${result.ctype})(a)`;
    let reduce: string;
    let identity: string;
    if (op === "sum" || op === "mean") [reduce, identity] = ["a + b", "0"];
    else if (op === "prod") [reduce, identity] = ["a * b", "1"];
    else if (op === "max") [reduce, identity] = ["(a != a || a > b) ? a : b", dtype.kind === "b" ? "0" : extreme(accumulate, false)];
    else [reduce, identity] = ["(a != a || a < b) ? a : b", dtype.kind === "b" ? "1" : extreme(accumulate, true)];
    k = new ReductionKernel("T x", `${result.name} y`, requested === undefined ? "x" : toReduceType(dtype), reduce, post, identity, name, { reduceType: accumulate.name });
    kernels.set(key, k);
  }
  return k;
}

const divisions = new Map<string, ElementwiseKernel>();

/** `z = s / count`, from the accumulate type `S` to the result dtype. */
function divisionFor(accumulate: DType, out: DType): ElementwiseKernel {
  const key = `${accumulate.name}|${out.name}`;
  let k = divisions.get(key);
  if (k === undefined) {
    k = new ElementwiseKernel(`${accumulate.name} s, ${accumulate.name} count`, `${out.name} z`, `z = (${out.ctype})(s / count)`, `cuda_ts_mean_divide_${accumulate.name}_${out.name}`);
    divisions.set(key, k);
  }
  return k;
}

function checkArray(a: unknown, op: ReductionName): DeviceArray {
  if (!(a instanceof DeviceArray)) throw new TypeError(`${op} takes a DeviceArray, not ${describeValue(a)}`);
  return a;
}

function checkOptions(options: unknown, op: ReductionName): ReduceOptions {
  if (options === undefined) return {};
  if (options === null || typeof options !== "object") throw new TypeError(`${op} takes options { stream?, axis?, keepdims?, out? }, got ${describeValue(options)}`);
  return options as ReduceOptions;
}

/**
 * @internal Checks a reduction's `out` before anything is queued: a writable DeviceArray of the result's shape (`a`'s
 * shape without `axes`, with extent 1 there under `keepdims`) whose dtype `result` converts to under NumPy's
 * "same_kind" rule, on `a`'s device. The out, or undefined when none was given.
 */
export function checkReduceOut(out: unknown, a: DeviceArray, axes: readonly number[], keepdims: boolean, result: DType, what: string): DeviceArray | undefined {
  const shape = reducedShape(a.shape, axes, keepdims);
  const checked = checkOutArray(
    out,
    shape,
    result,
    what,
    (got) => new ShapeMismatchError(`${what}: out has shape ${got} but reducing [${a.shape.join(", ")}] over axes [${axes.join(", ")}]${keepdims ? " (keepdims)" : ""} gives [${shape.join(", ")}]; pass an out of that shape`),
  );
  if (checked !== undefined) checkOneDevice(what, [["a", a], ["out", checked]]);
  return checked;
}

/**
 * @internal Hands a reduction's `result` to the caller: without an `out`, the result itself; with one, the result
 * converted into it on `stream` and closed, and the out returned.
 */
export function deliverReduction(stream: Stream, result: DeviceArray, out: DeviceArray | undefined): DeviceArray {
  if (out === undefined || result === out) return result;
  try {
    castInto(stream, result, out);
  } finally {
    result.close(stream);
  }
  return out;
}

/** The reductions that take `{ dtype }`. */
const TAKE_DTYPE = new Set(["sum", "prod", "mean", "nansum", "nanprod", "nanmean"]);

/**
 * @internal The dtype `{ dtype }` asks reduction `what` for: undefined when none is given; a DTypeError for the
 * others than sum, prod, mean and their NaN-skipping forms (`min`, `max`, `ptp` keep the array's dtype).
 */
export function requestedDType(what: string, d: unknown): DType | undefined {
  if (d === undefined) return undefined;
  if (!TAKE_DTYPE.has(what)) throw new DTypeError(`${what} takes no dtype: its result has the array's; convert the result with astype`);
  return dtypeOf(d as DTypeArgument);
}

/** Reduces `a` by `op` (see the module's description). */
function reduce(op: ReductionName, array: DeviceArray, opts: ReduceOptions | undefined): DeviceArray {
  const a = checkArray(array, op);
  const options = checkOptions(opts, op);
  // Every check before the stream is used: axes, dtypes, the out, empty reductions without an identity.
  const axes = normalizeAxes(options.axis, a.ndim, op);
  const keepdims = options.keepdims ?? false;
  if (typeof keepdims !== "boolean") throw new TypeError(`${op}: keepdims is a boolean, got ${describeValue(keepdims)}`);
  const reducedCount = elementCount(axes.map((d) => a.shape[d]!));
  const requested = requestedDType(op, (options as SumOptions).dtype);
  const { out, accumulate } = requested === undefined ? reductionDTypes(op, a.dtype) : sumDTypes(op as "sum" | "prod" | "mean", a.dtype, requested);
  const given = checkReduceOut(options.out, a, axes, keepdims, out, op);
  if (reducedCount === 0 && (op === "min" || op === "max")) {
    throw new ShapeMismatchError(`${op}: reducing [${a.shape.join(", ")}] over axes [${axes.join(", ")}] reduces zero elements, and ${op} has no identity; reduce a non-empty array`);
  }
  const stream = operationStream(op, options, given === undefined ? [a] : [a, given]);
  const call = { axis: axes, keepdims };
  const k = kernelFor(op, a.dtype, requested);
  if (op !== "mean") {
    // An out of the result's dtype is written by the kernel itself; another is converted into.
    if (given !== undefined && given.dtype === out) return k.launch(stream, a, given, call) as DeviceArray;
    return deliverReduction(stream, k.launch(stream, a, call) as DeviceArray, given);
  }
  const result = k.launch(stream, a, call) as DeviceArray;
  // The sum, divided by the count (a NaN for an empty reduction, as NumPy), into the out when one is given.
  const count = accumulate.kind === "c" ? ([reducedCount, 0] as const) : reducedCount;
  if (given === undefined && accumulate === out) {
    divisionFor(accumulate, out).launch(stream, result, count, result);
    return result;
  }
  try {
    return divisionFor(accumulate, given?.dtype ?? out).launch(stream, result, count, ...(given === undefined ? [] : [given])) as DeviceArray;
  } finally {
    result.close(stream);
  }
}

provideArrayMethods({
  trace: (self, options) => trace(self, options),
  sum: (self, options) => reduce("sum", self, options),
  prod: (self, options) => reduce("prod", self, options),
  min: (self, options) => reduce("min", self, options),
  max: (self, options) => reduce("max", self, options),
  mean: (self, options) => reduce("mean", self, options),
});

/** The sum of `a`'s elements over `axis` (default: all), on `stream` (also `a.sum(options)`). */
export function sum(a: DeviceArray, options?: SumOptions): DeviceArray {
  return reduce("sum", a, options);
}

/**
 * The sum of the `offset`-th diagonal over axes `axis1` and `axis2` (defaults 0, 0 and 1), as NumPy's `trace`: a
 * 0-d array for a 2-d `a`, one sum per matrix of a stack (the other axes). The sum of {@link diagonal}'s view, in
 * `sum`'s dtype (int64 for signed integers and bool, uint64 for unsigned ones, as NumPy's). Does not wait for the stream.
 */
export function trace(a: DeviceArray, options?: TraceOptions): DeviceArray {
  const d = diagonal(a, options);
  return reduce("sum", d, { axis: -1, ...(options?.stream !== undefined ? { stream: options.stream } : {}) });
}

/** The product of `a`'s elements over `axis` (default: all), on `stream` (also `a.prod(options)`). */
export function prod(a: DeviceArray, options?: SumOptions): DeviceArray {
  return reduce("prod", a, options);
}

/** The least of `a`'s elements over `axis` (default: all), on `stream` (also `a.min(options)`). */
export function min(a: DeviceArray, options?: ReduceOptions): DeviceArray {
  return reduce("min", a, options);
}

/** The greatest of `a`'s elements over `axis` (default: all), on `stream` (also `a.max(options)`). */
export function max(a: DeviceArray, options?: ReduceOptions): DeviceArray {
  return reduce("max", a, options);
}

/** The mean of `a`'s elements over `axis` (default: all), on `stream` (also `a.mean(options)`). */
export function mean(a: DeviceArray, options?: SumOptions): DeviceArray {
  return reduce("mean", a, options);
}

/** @internal For tests: the dtype names a reduction gives. */
export function reductionResultName(op: ReductionName, dtype: DTypeName): DTypeName {
  return reductionDTypes(op, dtypes[dtype]).out.name;
}
