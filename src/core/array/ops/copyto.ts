/**
 * `copyto`: values written into an existing array, as NumPy's `copyto` (CuPy's too): the source broadcast to the
 * destination's shape, converted under a casting rule, optionally only where a mask holds.
 *
 * ```ts
 * copyto(dst, src);                              // dst[...] = src, broadcast, "same_kind" casting
 * copyto(dst, 0, { where: dst.lt(0) });          // negative elements set to 0
 * copyto(f32, f64, { casting: "unsafe" });       // any conversion
 * ```
 *
 * @module
 */
import { DeviceArray, checkWritable, operationStream, type ArrayOperationOptions, type ArrayScalar } from "../device-array.ts";
import type { DType } from "../dtype.ts";
import { BroadcastError, DTypeError } from "../errors.ts";
import { operationType } from "../promotion.ts";
import { describeValue } from "../../../errors/describe.ts";
import { ArgumentError } from "../../../errors/base.ts";
import { ElementwiseKernel } from "../../kernels/elementwise.ts";
import { castExpression, castInto, castKernel } from "./cast.ts";
import { castScalar, scalarDType } from "./creation.ts";
import { cachedKernel, checkArrayArgument, checkOperand, scalarFor } from "./elementwise.ts";
import { mayShareMemory, sameElements } from "./overlap.ts";
import { CASTING_RULES as CASTING, castAllowed, type CastingRule } from "../dtype-info.ts";
import { broadcastTo, squeeze } from "./shape.ts";

/** Options of {@link copyto}: the casting rule, a mask, and the stream. */
export interface CopytoOptions extends ArrayOperationOptions {
  /** Which conversions of the source to the destination's dtype are allowed (default "same_kind", as NumPy's). */
  readonly casting?: CastingRule;
  /** A bool array (broadcast to the destination's shape) or a boolean: only where it holds is written (default true). */
  readonly where?: DeviceArray | boolean;
}

/** What NumPy's "equiv" takes a Python scalar as: its default dtype only (int64, float64, complex128, bool). */
const EQUIV_DTYPE: Readonly<Record<string, string>> = { b: "bool", i: "int64", f: "float64", c: "complex128" };

/**
 * A scalar source and the dtype it is passed to the kernel as. Under "safe" and "same_kind" a JavaScript scalar is
 * weak, as a Python scalar in NumPy 2: it takes the destination's dtype if its kind allows and it fits (5 into int8,
 * not 300 or 1.5). "no" is as weak but refuses a boolean into another dtype, and "equiv" takes a scalar only into its
 * default dtype (int64, float64, complex128, bool), as NumPy 2.4 does. "unsafe" converts anything on the device, as
 * arrays convert (`astype`'s rules: -1.5 into uint8 is 255, NaN into bool is true, `[0, 2]` into a real dtype 0).
 */
function scalarSource(value: ArrayScalar, to: DType, rule: CastingRule): { value: ArrayScalar; dtype: DType } {
  if (rule === "unsafe") {
    const from = scalarDType(value);
    return { value: scalarFor(value, from), dtype: from };
  }
  const kind = typeof value === "boolean" ? "b" : undefined;
  const refuse = (why: string): never => {
    throw new DTypeError(`copyto: the scalar ${describeValue(value)} cannot be written into dst (${to.name}) under "${rule}" casting (${why}); pass casting: "unsafe" to convert it anyway`);
  };
  if (rule === "no" && kind === "b" && to.kind !== "b") refuse("a boolean goes only into bool");
  if (rule === "equiv") {
    const own = EQUIV_DTYPE[scalarDType(value).kind]!;
    if (own !== to.name) refuse(`"equiv" takes a JavaScript scalar only into its own dtype, ${own}`);
  }
  const r = operationType([to, value], "copyto");
  if (r !== to) refuse(`it is ${r.kind === "c" ? "complex" : r.kind === "f" ? "a float" : "an integer"}`);
  return { value: castScalar(value, to), dtype: to };
}

/**
 * Writes `src` into `dst`, as NumPy's `copyto(dst, src, casting, where)`: `src` (an array or a scalar) broadcast to
 * `dst`'s shape (one way: `dst` does not grow; leading axes of extent 1 beyond `dst`'s are dropped), converted to `dst`'s dtype as `astype` converts, where the conversion
 * is allowed under `casting` (default "same_kind": int64 into int8 or float64 into float32 yes, float into integer or
 * int64 into uint8 not). With `where` (a bool array broadcast to `dst`'s shape) only the elements where it holds are
 * written. A source (or mask) that overlaps `dst` in another layout is copied first, so that every element reads the
 * source's value from before the call. Queued on the stream (of the options, else `dst`'s); returns nothing.
 *
 * @throws BroadcastError where `src` or `where` does not broadcast to `dst`'s shape; DTypeError for a conversion the
 * casting rule refuses, or a `where` that is not bool; ReadOnlyArrayError for a read-only `dst`.
 */
export function copyto(dst: DeviceArray, src: DeviceArray | ArrayScalar, options?: CopytoOptions): void {
  const what = "copyto";
  checkArrayArgument(dst, what, "dst");
  checkWritable(dst, `${what}: dst`);
  checkOperand(src, what, "src");
  if (src instanceof DeviceArray) checkArrayArgument(src, what, "src");
  if (options !== undefined && (options === null || typeof options !== "object" || Array.isArray(options))) {
    throw new TypeError(`${what} takes options { casting?, where?, stream? }, got ${describeValue(options)}`);
  }
  const rule = options?.casting ?? "same_kind";
  if (!CASTING.includes(rule)) throw new ArgumentError(`${what}: casting is one of ${CASTING.map((c) => `"${c}"`).join(", ")}, got ${describeValue(rule)}`);
  const where = options?.where ?? true;
  if (typeof where !== "boolean") {
    checkArrayArgument(where, what, "where");
    if (where.dtype.kind !== "b") throw new DTypeError(`${what}: where is a bool array, got ${where.dtype.name} (NumPy refuses other dtypes too); compare it first (x.ne(0))`);
  }
  let scalar: { value: ArrayScalar; dtype: DType } | undefined;
  if (src instanceof DeviceArray) {
    if (!castAllowed(src.dtype, dst.dtype, rule)) {
      throw new DTypeError(`${what}: cannot write ${src.dtype.name} into dst (${dst.dtype.name}) under "${rule}" casting; pass casting: "unsafe" to convert anyway, or convert the source first (astype)`);
    }
  } else scalar = scalarSource(src, dst.dtype, rule);
  const source = src instanceof DeviceArray ? broadcastInto(src, dst, "src") : undefined;
  const mask = typeof where === "boolean" ? undefined : broadcastInto(where, dst, "where");
  const stream = operationStream(what, options, [dst, src, typeof where === "boolean" ? undefined : where]);
  if (where === false || dst.size === 0) return;
  const temporaries: DeviceArray[] = [];
  // A copy of what overlaps dst in another layout: every element then reads the value from before the call.
  const apart = (x: DeviceArray): DeviceArray => {
    if (!mayShareMemory(x, dst) || sameElements(x, dst)) return x;
    const t = x.copy({ stream });
    temporaries.push(t);
    return t;
  };
  try {
    if (mask !== undefined) {
      const m = apart(mask);
      if (scalar !== undefined) maskedKernel(mask.dtype, scalar.dtype, dst.dtype).launch(stream, m, scalar.value, dst);
      else maskedKernel(mask.dtype, source!.dtype, dst.dtype).launch(stream, m, apart(source!), dst);
    } else if (scalar !== undefined) {
      if (scalar.dtype === dst.dtype) dst.fill(scalar.value, { stream });
      else castKernel(scalar.dtype, dst.dtype).launch(stream, scalar.value, dst);
    } else if (source!.dtype === dst.dtype) {
      if (!sameElements(source!, dst)) dst.copyFrom(apart(source!), { stream });
    } else castInto(stream, source!, dst); // the elementwise builder stages an overlapping source itself
  } finally {
    for (const t of temporaries) t.close(stream);
  }
}

/**
 * `x` as a view of `dst`'s shape (BroadcastError naming `name` where it does not broadcast to it). A source's leading
 * axes of extent 1 beyond `dst`'s rank are dropped first, as NumPy drops them (a mask's are not).
 */
function broadcastInto(x: DeviceArray, dst: DeviceArray, name: string): DeviceArray {
  try {
    const extra = x.ndim - dst.ndim;
    if (name === "src" && extra > 0 && x.shape.slice(0, extra).every((e) => e === 1)) return broadcastTo(squeeze(x, [...Array(extra).keys()]), dst.shape);
    return broadcastTo(x, dst.shape);
  } catch (e) {
    if (!(e instanceof BroadcastError)) throw e;
    throw new BroadcastError(`copyto: ${name} has shape [${x.shape.join(", ")}], which does not broadcast to dst's shape [${dst.shape.join(", ")}] (dst does not grow); pass a ${name} of a shape that does`);
  }
}

/** @internal The kernel writing `s` (an array or a scalar, converted) into `d` where `m` holds. */
export function maskedKernel(mask: DType, from: DType, to: DType): ElementwiseKernel {
  return cachedKernel(`copyto|${mask.name}|${from.name}|${to.name}`, () => {
    // The destination is read and written in place, element for element: an unmasked element keeps its value.
    return new ElementwiseKernel(`${mask.name} m, ${from.name} s`, `${to.name} d`, `if (m) d = ${castExpression("s", from, to)};`, `cuda_ts_copyto_${from.name}_${to.name}`);
  });
}
