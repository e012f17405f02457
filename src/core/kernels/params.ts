/**
 * Parameter lists of the kernel builders, in CuPy's notation: `"T x, raw T y, float32 a"`. A type is a dtype name
 * (`float32`, `int64`, `bfloat16`, ...) or a placeholder (any other identifier, `T`), bound per call to the dtype of
 * the arrays passed for it. `raw` passes the whole array as a pointer (indexed by the body), not one element.
 *
 * Also: binding placeholders to the arguments of one call, and the C++ a parameter list becomes. No GPU here.
 *
 * @module
 */
import { DTypeError, ArrayLayoutError } from "../array/errors.ts";
import { describeValue } from "../../errors/describe.ts";
import { refuseWrongDevice } from "../base/wrong-device.ts";
import { DeviceArray, encodeElement, type ArrayScalar } from "../array/device-array.ts";
import { dtypes, DTYPE_NAMES, type DType, type DTypeName } from "../array/dtype.ts";
import { sameShape } from "../array/layout.ts";
import { broadcastShapes, type NamedShape } from "../array/broadcast.ts";
import { BroadcastError } from "../array/errors.ts";

/** One declared parameter. */
export interface KernelParam {
  readonly name: string;
  /** A dtype name, or a placeholder. */
  readonly type: string;
  /** Whether the type is a placeholder. */
  readonly placeholder: boolean;
  /** Whether the whole array is passed (a pointer), not one element. */
  readonly raw: boolean;
  /** Whether it is an output. */
  readonly output: boolean;
}

const IDENT = /^[A-Za-z_]\w*$/;
/** Names no parameter may have: the element index `i`, and C++ words. */
export const RESERVED: ReadonlySet<string> = new Set(["i", "raw", "const", "int", "float", "double", "char", "bool", "void", "auto", "return", "if", "for", "while"]);

/** What a reduction reserves too: its partial results `a` and `b`. */
export const REDUCTION_RESERVED: ReadonlySet<string> = new Set([...RESERVED, "a", "b"]);

/** Parses a parameter list ("T x, raw T y"); `what` names it in errors ("in_params"). */
export function parseParams(text: string, output: boolean, what: string, reserved: ReadonlySet<string> = RESERVED): KernelParam[] {
  if (typeof text !== "string") throw new TypeError(`${what}: expected a parameter list such as "T x, T y", got ${describeValue(text)}`);
  if (text.trim() === "") return [];
  return text.split(",").map((part) => {
    const words = part.trim().split(/\s+/);
    let raw = false;
    if (words[0] === "raw") {
      raw = true;
      words.shift();
    }
    if (words.length !== 2) throw new SyntaxError(`${what}: "${part.trim()}" is not "[raw] TYPE NAME" (for example "T x" or "raw float32 y")`);
    const [type, name] = words as [string, string];
    if (!IDENT.test(type)) throw new SyntaxError(`${what}: the type ${JSON.stringify(type)} is not a dtype name or an identifier`);
    if (!IDENT.test(name) || name.startsWith("_") || reserved.has(name)) {
      throw new SyntaxError(`${what}: ${JSON.stringify(name)} cannot name a parameter (an identifier, not starting with _, not one of ${[...reserved].join(", ")})`);
    }
    const placeholder = !(DTYPE_NAMES as readonly string[]).includes(type);
    return { name, type, placeholder, raw, output };
  });
}

/** Checks that names are unique across the lists. */
export function checkUnique(params: readonly KernelParam[]): void {
  const seen = new Set<string>();
  for (const p of params) {
    if (seen.has(p.name)) throw new SyntaxError(`parameter ${p.name} is declared twice`);
    seen.add(p.name);
  }
}

/** An argument of a builder call: an array, or a scalar broadcast to every element. */
export type BuilderArgument = DeviceArray | ArrayScalar;

/** What one call resolved: each parameter's dtype, which are scalars, the common shape. */
export interface Binding {
  readonly types: ReadonlyMap<string, DType>;
  /** Per parameter: its dtype. */
  readonly dtypes: readonly DType[];
  /** Per parameter: whether a scalar was passed (inputs only). */
  readonly scalar: readonly boolean[];
  /**
   * The shape the non-raw array arguments broadcast to (NumPy's rules; outputs must have it), undefined when no
   * non-raw array was passed or shapes were not compared.
   */
  readonly shape: readonly number[] | undefined;
  /** The signature: what distinguishes one instantiation from another. */
  readonly key: string;
}

function isScalar(v: unknown): v is ArrayScalar {
  return typeof v === "number" || typeof v === "bigint" || typeof v === "boolean" || (Array.isArray(v) && v.length === 2 && v.every((x) => typeof x === "number"));
}

/**
 * Binds the placeholders of `params` to the dtypes of `args` (outputs may be missing: `undefined`), checks dtypes
 * against declared ones, devices, raw arrays' contiguity, and (unless `compareShapes` is false) that the non-raw
 * arrays broadcast together, outputs having the broadcast shape (BroadcastError naming the parameters). Non-raw
 * arrays may be any views (strided, offset, negative or zero strides).
 */
export function bindArguments(
  kernelName: string,
  params: readonly KernelParam[],
  args: readonly (BuilderArgument | undefined)[],
  deviceId: number,
  fixed: ReadonlyMap<string, DType> = new Map(),
  compareShapes = true,
): Binding {
  const types = new Map<string, DType>(fixed);
  const boundBy = new Map<string, string>();
  const operands: NamedShape[] = [];
  const outputs: NamedShape[] = [];
  params.forEach((p, i) => {
    const a = args[i];
    if (a === undefined) {
      if (!p.output) throw new TypeError(`${kernelName}: input ${p.name} is missing`);
      return;
    }
    if (a instanceof DeviceArray) {
      if (a.isClosed) throw new ArrayLayoutError(`${kernelName}: the array passed for ${p.name} was closed`);
      if (p.placeholder) {
        const had = types.get(p.type);
        if (had !== undefined && had !== a.dtype) {
          throw new DTypeError(`${kernelName}: ${p.type} is ${had.name} (from ${boundBy.get(p.type) ?? "the declaration"}) but ${p.name} is a ${a.dtype.name} array`);
        }
        types.set(p.type, a.dtype);
        if (!boundBy.has(p.type)) boundBy.set(p.type, p.name);
      } else if (a.dtype.name !== p.type) {
        throw new DTypeError(`${kernelName}: ${p.name} is declared ${p.type} but a ${a.dtype.name} array was passed`);
      }
      if (p.raw && !a.isContiguous) {
        throw new ArrayLayoutError(`${kernelName}: raw ${p.name} must be contiguous but its strides are [${a.strides.join(", ")}] for shape [${a.shape.join(", ")}]; pass ${p.name}.copy({ stream })`);
      }
      const dev = a.buffer.isHostAccessible ? deviceId : a.buffer.device.id;
      if (dev !== deviceId) refuseWrongDevice(`${kernelName}: ${p.name}`, deviceId, dev, `the kernel runs on the stream's device: copy ${p.name} to device ${deviceId} first, or launch on a stream of device ${dev}`);
      if (!p.raw && compareShapes) {
        operands.push({ name: p.name, shape: a.shape });
        if (p.output) outputs.push({ name: p.name, shape: a.shape });
      }
      return;
    }
    if (p.output) throw new TypeError(`${kernelName}: output ${p.name} must be a DeviceArray (or left out to allocate one), not ${describeValue(a)}`);
    if (p.raw) throw new TypeError(`${kernelName}: raw parameter ${p.name} takes a DeviceArray, not ${describeValue(a)}`);
    if (!isScalar(a)) throw new TypeError(`${kernelName}: ${p.name} takes a DeviceArray or a scalar (number, bigint, boolean, [re, im]), not ${describeValue(a)}`);
  });
  const shape = operands.length === 0 ? undefined : broadcastShapes(operands, kernelName);
  for (const o of outputs) {
    if (!sameShape(o.shape, shape!)) {
      throw new BroadcastError(`${kernelName}: output ${o.name} has shape [${o.shape.join(", ")}] but the operands broadcast to [${shape!.join(", ")}]; an output is written whole, never broadcast`);
    }
  }
  const resolved = params.map((p) => {
    if (!p.placeholder) return dtypes[p.type as DTypeName];
    const t = types.get(p.type);
    if (t === undefined) {
      throw new DTypeError(`${kernelName}: the type ${p.type} of ${p.name} is bound by no array; pass an array for a parameter of type ${p.type}, or an output array`);
    }
    return t;
  });
  const scalar = params.map((_, i) => args[i] !== undefined && !(args[i] instanceof DeviceArray));
  // Check scalar values against their dtypes now (before anything is compiled or launched).
  params.forEach((p, i) => {
    if (scalar[i]) encodeElement(resolved[i]!, args[i] as ArrayScalar);
  });
  const key = params.map((p, i) => `${resolved[i]!.name}${scalar[i] ? "s" : p.raw ? "r" : "a"}`).join(",");
  return { types, dtypes: resolved, scalar, shape, key };
}

/** Whether any of the dtypes needs a header (float16, bfloat16, complex). */
export function headersFor(list: Iterable<DType>): { fp16: boolean; bf16: boolean; complex: boolean } {
  const out = { fp16: false, bf16: false, complex: false };
  for (const d of list) {
    if (d.name === "float16") out.fp16 = true;
    else if (d.name === "bfloat16") out.bf16 = true;
    else if (d.kind === "c") out.complex = true;
  }
  return out;
}

/** `typedef <ctype> <placeholder>;` lines for the placeholders of a binding (sorted, one each). */
export function typedefs(types: ReadonlyMap<string, DType>): string[] {
  return [...types.keys()].sort().map((k) => `typedef ${types.get(k)!.ctype} ${k};`);
}

/**
 * Whether a call takes the contiguous kernels (of a builder): every non-raw array argument (inputs and outputs) is contiguous and
 * has the call's full shape (scalars and raw arrays aside).
 */
export function contiguousCall(params: readonly KernelParam[], args: readonly (BuilderArgument | undefined)[], shape: readonly number[]): boolean {
  return params.every((p, k) => {
    const a = args[k];
    return !(a instanceof DeviceArray) || p.raw || (a.isContiguous && sameShape(a.shape, shape));
  });
}
