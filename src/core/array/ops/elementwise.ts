/**
 * The machinery of the elementwise operations of `cuda-ts/array` (the operations themselves are in arithmetic.ts,
 * math.ts and cast.ts): which dtype an operation computes in and returns, the checks every call makes before
 * anything reaches the stream, and one {@link ElementwiseKernel} per operation and dtype signature, made on first use
 * and kept in a module-level map.
 *
 * Dtypes follow NumPy's ufunc type resolution: the operands' dtypes (and weak JavaScript scalars) are promoted with
 * `resultType`, then the first of the operation's loops (NumPy's `ufunc.types`, in its order) that the promoted
 * dtype casts to safely is the one computed in: `sqrt` of int8 computes in float16 (`e->e`), of int32 in float64;
 * `floorDiv` of bools in int8. bfloat16 takes float16's loop where there is one (a bfloat16 result). float16 and
 * bfloat16 compute in float32 and round the result back. True division of bool and integers gives float64.
 *
 * @module
 */
import { DeviceArray, checkWritable, memoryDevice, operationStream, type ArrayScalar } from "../device-array.ts";
import { dtypes, type DType, type DTypeName } from "../dtype.ts";
import { ArrayLayoutError, BroadcastError, DTypeError } from "../errors.ts";
import { broadcastShapes } from "../broadcast.ts";
import { sameShape } from "../layout.ts";
import { canCastSafely, canCastSameKind, realOf, operationType } from "../promotion.ts";
import type { ElementwiseOptions } from "../options.ts";
import type { ArrayOperand } from "../methods.ts";
import { describeValue } from "../../../errors/describe.ts";
import { ElementwiseKernel } from "../../kernels/elementwise.ts";
import type { Stream } from "../../stream.ts";
import { refuseWrongDevice } from "../../base/wrong-device.ts";
import { ROUNDING_PREAMBLE, fromWorking, toWorking, workingDType, workingType } from "./cast.ts";

/** NumPy's one-letter dtype codes (those of `ufunc.types`), bool to complex128. */
export const DTYPE_CODES: Readonly<Record<string, DTypeName>> = Object.freeze({
  "?": "bool",
  b: "int8",
  B: "uint8",
  h: "int16",
  H: "uint16",
  i: "int32",
  I: "uint32",
  q: "int64",
  Q: "uint64",
  e: "float16",
  f: "float32",
  d: "float64",
  F: "complex64",
  D: "complex128",
});

/** Loops of NumPy's ufuncs, as the codes of their (homogeneous) input dtypes, in NumPy's order. */
export const LOOPS = Object.freeze({
  all: "?bBhHiIqQefdFD",
  numeric: "bBhHiIqQefdFD",
  real: "?bBhHiIqQefd",
  realNumeric: "bBhHiIqQefd",
  inexact: "efdFD",
  float: "efd",
  integerBool: "?bBhHiIqQ",
  integer: "bBhHiIqQ",
});

/** How an operation's result dtype follows from the dtype it computes in: that dtype, bool, its real part, or uint8 (a count of bits). */
export type ResultRule = "same" | "bool" | "real" | "uint8";

/** What an operation's code is generated from: the operands in the working type, and the dtypes. */
export interface CodeContext {
  /** The operands' expressions, in the working type of the compute dtype. */
  readonly a: string;
  readonly b: string;
  /** The dtype computed in (the loop's). */
  readonly c: DType;
  /** Its working C++ type (float for float16 and bfloat16). */
  readonly w: string;
}

/** One elementwise operation: its loops, result rule and code. */
export interface OpSpec {
  /** The function's name (errors, kernel names). */
  readonly name: string;
  /** The loops (see {@link LOOPS}). */
  readonly loops: string;
  readonly result: ResultRule;
  /** The C++ expression of the result, in the result's working type. */
  readonly code: (x: CodeContext) => string;
  /** Device functions the code calls (a function: those for the compute dtype; code naming `cuda::std` only where it is complex, whose header declares it). */
  readonly preamble?: string | ((c: DType) => string);
  /** The dtype computed in, where NumPy's resolver is not the loop search (true division, logical operations). */
  readonly compute?: (promoted: DType) => DType | undefined;
  /** Refuses a promoted dtype NumPy refuses although a loop would take it (bool for `sub`, `neg`), or says why one has no loop. */
  readonly refuse?: (promoted: DType) => string | undefined;
}

const loopCache = new Map<string, DType | null>();

/**
 * The dtype `spec` computes in for operands promoted to `promoted` (DTypeError where none): NumPy's loop search, the
 * first loop every one of `inputs` casts to safely (the arrays' dtypes, and `promoted` where a weak scalar raised the
 * kind: `arctan2` of int8 and uint8 arrays computes in float16, as NumPy, though they promote to int16); bfloat16
 * takes float16's loop as bfloat16.
 */
export function computeDType(spec: OpSpec, promoted: DType, inputs: readonly DType[] = [promoted]): DType {
  let key = `${spec.name}|${promoted.name}`;
  for (const d of inputs) key += `|${d.name}`;
  let c = loopCache.get(key);
  if (c === undefined) {
    const refused = spec.refuse?.(promoted) !== undefined;
    c = refused ? null : ((spec.compute !== undefined ? spec.compute(promoted) : searchLoop(spec.loops, inputs)) ?? null);
    loopCache.set(key, c);
  }
  if (c === null) {
    const why = spec.refuse?.(promoted);
    const kinds = [...new Set([...spec.loops].map((ch) => DTYPE_CODES[ch]!))].join(", ");
    throw new DTypeError(`${spec.name}: ${why ?? `not supported for ${promoted.name} operands`} (it computes in ${kinds}${spec.loops.includes("e") ? ", bfloat16" : ""}); convert with astype first`);
  }
  return c;
}

/** The first of `loops` every one of `inputs` casts to safely (float16's loop also serves as bfloat16's), or undefined. */
export function searchLoop(loops: string, inputs: readonly DType[]): DType | undefined {
  for (const ch of loops) {
    const t = dtypes[DTYPE_CODES[ch]!];
    if (inputs.every((d) => canCastSafely(d, t))) return t;
    if (ch === "e" && inputs.every((d) => canCastSafely(d, dtypes.bfloat16))) return dtypes.bfloat16;
  }
  return undefined;
}

/**
 * What the loop search sees for operands promoted to `promoted`: the arrays' dtypes, and `promoted` too where a weak
 * scalar is among the operands.
 */
export function loopInputs(operands: readonly (ArrayOperand | DType)[], promoted: DType): DType[] {
  const list: DType[] = [];
  let weak = false;
  for (const o of operands) {
    if (o instanceof DeviceArray) list.push(o.dtype);
    else if (typeof o === "object" && o !== null && !Array.isArray(o) && "kind" in o) list.push(o as DType);
    else weak = true;
  }
  if (weak || list.length === 0) list.push(promoted);
  return list;
}

/** The result dtype of `spec` computing in `c`. */
export function resultDType(spec: OpSpec, c: DType): DType {
  return spec.result === "bool" ? dtypes.bool : spec.result === "real" ? realOf(c) : spec.result === "uint8" ? dtypes.uint8 : c;
}

const isScalarValue = (v: unknown): v is ArrayScalar =>
  typeof v === "number" || typeof v === "bigint" || typeof v === "boolean" || (Array.isArray(v) && v.length === 2 && typeof v[0] === "number" && typeof v[1] === "number");

/** Checks one operand: an open DeviceArray or a scalar. */
export function checkOperand(x: unknown, what: string, name: string): ArrayOperand {
  if (x instanceof DeviceArray) return x;
  if (isScalarValue(x)) return x;
  throw new TypeError(`${what}: ${name} is a DeviceArray or a scalar (a number, a bigint, a boolean or [re, im]), got ${describeValue(x)}`);
}

/** Checks an array argument named `name` of `what`: a DeviceArray that is still open. */
export function checkArrayArgument(x: unknown, what: string, name: string): DeviceArray {
  if (!(x instanceof DeviceArray)) throw new TypeError(`${what}: ${name} is a DeviceArray, not ${describeValue(x)}`);
  if (x.isClosed) throw new ArrayLayoutError(`${what}: ${name} (${x.dtype.name} [${x.shape.join(", ")}]) was closed`);
  return x;
}

/** A scalar as the value `encodeElement` takes for dtype `d` (booleans and bigints converted; weak scalars fit). */
export function scalarFor(v: ArrayScalar, d: DType): ArrayScalar {
  if (d.kind === "c") return Array.isArray(v) ? v : [Number(v), 0];
  const re = Array.isArray(v) ? v[0]! : v;
  if (d.kind === "b") return Array.isArray(v) ? v[0] !== 0 || v[1] !== 0 : re !== 0 && re !== false && re !== 0n;
  if (d.name === "int64" || d.name === "uint64") return typeof re === "bigint" ? re : BigInt(Number(re));
  return typeof re === "bigint" ? Number(re) : Number(re);
}

/** The shape the array operands broadcast to (BroadcastError naming both shapes otherwise). */
export function broadcastOf(operands: readonly ArrayOperand[], names: readonly string[], what: string): readonly number[] {
  // The common case first: every array of one shape.
  let first: DeviceArray | undefined;
  let same = true;
  for (const o of operands) {
    if (!(o instanceof DeviceArray)) continue;
    if (first === undefined) first = o;
    else if (!sameShape(o.shape, first.shape)) same = false;
  }
  if (same && first !== undefined) return first.shape;
  const shapes: { name: string; shape: readonly number[] }[] = [];
  operands.forEach((o, k) => {
    if (o instanceof DeviceArray) shapes.push({ name: names[k]!, shape: o.shape });
  });
  return broadcastShapes(shapes, what);
}

/**
 * @internal Checks an `out` for a result of `shape` and dtype `result`, for every operation that takes one: a
 * writable DeviceArray (TypeError, ReadOnlyArrayError), of exactly that shape (the error `shapeError` makes of the
 * out's shape), of a dtype the result converts to under `casting` (DTypeError). Undefined passes.
 */
export function checkOutArray(
  out: unknown,
  shape: readonly number[],
  result: DType,
  what: string,
  shapeError: (outShape: string) => Error,
  casting: "same_kind" | "safe" = "same_kind",
): DeviceArray | undefined {
  if (out === undefined) return undefined;
  if (!(out instanceof DeviceArray)) throw new TypeError(`${what}: out is a DeviceArray, not ${describeValue(out)}`);
  checkWritable(out, `${what}: out`);
  if (!sameShape(out.shape, shape)) throw shapeError(`[${out.shape.join(", ")}]`);
  if (!(casting === "safe" ? canCastSafely(result, out.dtype) : canCastSameKind(result, out.dtype))) {
    const rule = casting === "safe" ? "no value may be lost" : "a kind may not go down: complex to float, float to integer, signed to unsigned";
    throw new DTypeError(`${what}: the result is ${result.name} and cannot be stored in a ${out.dtype.name} out under "${casting}" casting (${rule}); pass an out of dtype ${result.name}, or convert the result with astype`);
  }
  return out;
}

/**
 * Checks `options.out` against the result: the broadcast shape exactly (BroadcastError), a dtype the result casts to
 * under NumPy's "same_kind" rule (DTypeError).
 */
export function checkOut(options: ElementwiseOptions | undefined, shape: readonly number[], result: DType, what: string): DeviceArray | undefined {
  if (options === undefined) return undefined;
  if (options === null || typeof options !== "object") throw new TypeError(`${what} takes its options as an object ({ stream?, out? }), not ${describeValue(options)}`);
  return checkOutArray(
    options.out,
    shape,
    result,
    what,
    (got) => new BroadcastError(`${what}: out has shape ${got} but the operands broadcast to [${shape.join(", ")}]; pass an out of that shape (an out is written whole, never broadcast)`),
  );
}

/**
 * Checks that the named arrays are on one device (and, given `stream`, on its device): DeviceMismatchError naming
 * the first that is not.
 */
export function checkOneDevice(what: string, arrays: readonly (readonly [string, DeviceArray | undefined])[], stream?: Stream): void {
  let first: { name: string; id: number } | undefined = stream === undefined ? undefined : { name: "the stream", id: stream.device.id };
  for (const [name, x] of arrays) {
    if (x === undefined) continue;
    const id = memoryDevice(x);
    if (id < 0) continue;
    if (first === undefined) first = { name, id };
    else if (id !== first.id) refuseWrongDevice(`${what}: ${name}`, first.id, id, `${first.name} is on device ${first.id}: copy ${name} to device ${first.id} first`);
  }
}

const kernels = new Map<string, ElementwiseKernel>();

/**
 * The kernel under `key` (op name and dtypes: a short string, the only work a cached call does), made by `make` the
 * first time.
 */
export function cachedKernel(key: string, make: () => ElementwiseKernel): ElementwiseKernel {
  let k = kernels.get(key);
  if (k === undefined) {
    k = make();
    kernels.set(key, k);
  }
  return k;
}

/** @internal For tests: the kernels made so far, by key. */
export function kernelCache(): ReadonlyMap<string, ElementwiseKernel> {
  return kernels;
}

/**
 * Launches `kernel` over `args` into `out` (or a new array), on `stream`. Where `out` shares memory with an input in
 * another layout (a transposed view of itself, say), the builder computes into a temporary and copies it.
 */
export function launchInto(kernel: ElementwiseKernel, stream: Stream, args: readonly ArrayOperand[], out: DeviceArray | undefined): DeviceArray {
  if (out === undefined) return kernel.launch(stream, ...args) as DeviceArray;
  kernel.launch(stream, ...args, out);
  return out;
}

/** The kernel's name: the op and the dtypes, an identifier. */
function kernelName(op: string, names: readonly string[]): string {
  return `cuda_ts_${op}_${names.join("_")}`;
}

/** What a resolved call computes: the compute dtype, the result dtype, each operand's dtype in the kernel. */
export interface Resolved {
  readonly c: DType;
  readonly r: DType;
}

/** The builder options of `spec`'s kernel computing in `c`: its preamble, if any. */
function optionsFor(spec: OpSpec, c: DType): { preamble: string } {
  const p = typeof spec.preamble === "function" ? spec.preamble(c) : spec.preamble;
  return { preamble: ROUNDING_PREAMBLE + (p ?? "") };
}

/** The kernel of a unary `spec` for input `ta`, computing in `c`, into `to`. */
export function unaryKernel(spec: OpSpec, ta: DType, c: DType, r: DType, to: DType): ElementwiseKernel {
  return cachedKernel(`${spec.name}|${ta.name}|${c.name}|${to.name}`, () => {
    const w = workingType(c);
    const a = toWorking("x", ta, c);
    const expr = spec.code({ a: "_ca", b: "", c, w });
    const body = `const ${w} _ca = ${a}; z = ${fromWorking(expr, r, to)}`;
    return new ElementwiseKernel(`${ta.name} x`, `${to.name} z`, body, kernelName(spec.name, [ta.name, c.name, to.name]), optionsFor(spec, c));
  });
}

/** The kernel of a binary `spec` for inputs `ta`, `tb`, computing in `c`, into `to`. */
export function binaryKernel(spec: OpSpec, ta: DType, tb: DType, c: DType, r: DType, to: DType): ElementwiseKernel {
  return cachedKernel(`${spec.name}|${ta.name}|${tb.name}|${c.name}|${to.name}`, () => {
    const w = workingType(c);
    const expr = spec.code({ a: "_ca", b: "_cb", c, w });
    const body = `const ${w} _ca = ${toWorking("x", ta, c)}; const ${w} _cb = ${toWorking("y", tb, c)}; z = ${fromWorking(expr, r, to)}`;
    return new ElementwiseKernel(`${ta.name} x, ${tb.name} y`, `${to.name} z`, body, kernelName(spec.name, [ta.name, tb.name, c.name, to.name]), optionsFor(spec, c));
  });
}

/** The working dtype of a result (float32 for the half types), for code that builds on another's result. */
export { workingDType };

/** The dtype an operand has in the kernel: an array's own, a scalar's the compute dtype's. */
const operandDType = (x: ArrayOperand, c: DType): DType => (x instanceof DeviceArray ? x.dtype : c);

/** An operand as the kernel takes it: an array, or a scalar converted for the compute dtype. */
const operandValue = (x: ArrayOperand, c: DType): ArrayOperand => (x instanceof DeviceArray ? x : scalarFor(x, c));

/**
 * Runs a binary operation: operands checked, dtypes resolved (see the module's description), shapes broadcast,
 * `out` checked, then one kernel launch on the operation's stream.
 */
export function applyBinary(spec: OpSpec, a: ArrayOperand, b: ArrayOperand, options: ElementwiseOptions | undefined): DeviceArray {
  const what = spec.name;
  if (a instanceof DeviceArray && b instanceof DeviceArray && a.dtype === b.dtype) {
    // The common call, two arrays of one dtype: its resolution and kernels looked up by objects, not strings.
    const same = sameDTypeCall(spec, a.dtype);
    if (same !== undefined) {
      const shape = broadcastOf([a, b], ["the first operand", "the second operand"], what);
      const out = checkOut(options, shape, same.r, what);
      const to = out === undefined ? same.r : out.dtype;
      let k = same.kernels.get(to);
      if (k === undefined) same.kernels.set(to, (k = binaryKernel(spec, a.dtype, a.dtype, same.c, same.r, to)));
      const stream = operationStream(what, options, [a, b, out]);
      return launchInto(k, stream, [a, b], out);
    }
  }
  checkOperand(a, what, "the first operand");
  checkOperand(b, what, "the second operand");
  const promoted = operationType([a, b], what);
  const c = computeDType(spec, promoted, loopInputs([a, b], promoted));
  const r = resultDType(spec, c);
  const shape = broadcastOf([a, b], ["the first operand", "the second operand"], what);
  const out = checkOut(options, shape, r, what);
  const k = binaryKernel(spec, operandDType(a, c), operandDType(b, c), c, r, out?.dtype ?? r);
  const stream = operationStream(what, options, [a, b, out]);
  return launchInto(k, stream, [operandValue(a, c), operandValue(b, c)], out);
}

/** What an operation on arrays of one dtype resolves to: compute and result dtypes, its kernels by out dtype. */
interface SameDTypeCall {
  readonly c: DType;
  readonly r: DType;
  /** Binary kernels (two arrays of the dtype) and unary kernels (one), by out dtype. */
  readonly kernels: Map<DType, ElementwiseKernel>;
  readonly unary: Map<DType, ElementwiseKernel>;
}

const sameDTypeCalls = new WeakMap<OpSpec, Map<DType, SameDTypeCall | null>>();

/** The resolution of `spec` on two arrays of dtype `d` (as {@link applyBinary} resolves it), or undefined where refused. */
function sameDTypeCall(spec: OpSpec, d: DType): SameDTypeCall | undefined {
  let byDType = sameDTypeCalls.get(spec);
  if (byDType === undefined) sameDTypeCalls.set(spec, (byDType = new Map()));
  let call = byDType.get(d);
  if (call === undefined) {
    try {
      const c = computeDType(spec, d, [d, d]);
      call = { c, r: resultDType(spec, c), kernels: new Map(), unary: new Map() };
    } catch (e) {
      if (!(e instanceof DTypeError)) throw e;
      call = null;
    }
    byDType.set(d, call);
  }
  return call ?? undefined;
}

/** Runs a unary operation (see {@link applyBinary}). */
export function applyUnary(spec: OpSpec, a: DeviceArray, options: ElementwiseOptions | undefined): DeviceArray {
  const what = spec.name;
  if (!(a instanceof DeviceArray)) throw new TypeError(`${what} takes a DeviceArray, not ${describeValue(a)}`);
  // Resolved once per dtype (the same resolution as two arrays of that dtype: the loop search sees the one dtype).
  const same = sameDTypeCall(spec, a.dtype);
  if (same === undefined) {
    computeDType(spec, a.dtype); // throws the DTypeError that says why
    throw new DTypeError(`${what}: not supported for ${a.dtype.name} arrays`);
  }
  const out = checkOut(options, a.shape, same.r, what);
  const to = out === undefined ? same.r : out.dtype;
  let k = same.unary.get(to);
  if (k === undefined) same.unary.set(to, (k = unaryKernel(spec, a.dtype, same.c, same.r, to)));
  const stream = operationStream(what, options, [a, out]);
  return launchInto(k, stream, [a], out);
}

/** @internal For tests and docs: the result dtype of a unary operation on `a`, or undefined where it is refused. */
export function unaryResultName(spec: OpSpec, a: DTypeName): DTypeName | undefined {
  try {
    return resultDType(spec, computeDType(spec, dtypes[a])).name;
  } catch (e) {
    if (e instanceof DTypeError) return undefined;
    throw e;
  }
}

/** @internal For tests and docs: the result dtype of a binary operation on operands of these dtypes (or scalars), or undefined where refused. */
export function binaryResultName(spec: OpSpec, a: DTypeName | ArrayScalar, b: DTypeName | ArrayScalar): DTypeName | undefined {
  const operand = (x: DTypeName | ArrayScalar): DType | ArrayScalar => (typeof x === "string" ? dtypes[x] : x);
  const operands = [operand(a), operand(b)];
  try {
    const promoted = operationType(operands, spec.name);
    return resultDType(spec, computeDType(spec, promoted, loopInputs(operands, promoted))).name;
  } catch (e) {
    if (e instanceof DTypeError) return undefined;
    throw e;
  }
}
