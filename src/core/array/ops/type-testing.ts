/**
 * Array type testing, as NumPy's functions of these names: `iscomplex` and `isreal` (per element: whether the
 * imaginary part is non-zero), `iscomplexobj` and `isrealobj` (whether the dtype is complex, whatever the values),
 * `realIfClose` (the real parts when the imaginary ones are negligible).
 *
 * ```ts
 * iscomplex(z);          // bool per element: imag(z) != 0 (all false for a real dtype)
 * isreal(z);             // imag(z) == 0 (all true for a real dtype)
 * iscomplexobj(z);       // true for complex64 and complex128, even where every imaginary part is 0
 * await realIfClose(z);  // z's real parts (a view) when every imaginary part is within 100 epsilons of 0
 * ```
 *
 * @module
 */
import { DeviceArray, operationStream, type ArrayOperationOptions } from "../device-array.ts";
import { dtypeOf, type DType, type DTypeName } from "../dtype.ts";
import { describeValue } from "../../../errors/describe.ts";
import { eq, lt, ne } from "./arithmetic.ts";
import { all } from "./statistics.ts";
import { finfo } from "../dtype-info.ts";
import { ArgumentError } from "../../../errors/base.ts";
import { checkArrayArgument } from "./elementwise.ts";
import { abs, imag, real } from "./math.ts";

/**
 * Whether each element has a non-zero imaginary part, as NumPy's `iscomplex`: a new bool array of `a`'s shape
 * (`imag(a) != 0` for complex dtypes, all false for the others).
 */
export function iscomplex(a: DeviceArray, options?: ArrayOperationOptions): DeviceArray<"bool"> {
  checkArrayArgument(a, "iscomplex", "the array");
  const stream = operationStream("iscomplex", options, [a]);
  if (a.dtype.kind !== "c") return DeviceArray.zeros(a.shape, "bool", { stream });
  return ne(imag(a), 0, { stream }) as DeviceArray<"bool">;
}

/**
 * Whether each element's imaginary part is zero, as NumPy's `isreal`: a new bool array of `a`'s shape (`imag(a) ==
 * 0` for complex dtypes, all true for the others; NaN parts are not zero).
 */
export function isreal(a: DeviceArray, options?: ArrayOperationOptions): DeviceArray<"bool"> {
  checkArrayArgument(a, "isreal", "the array");
  const stream = operationStream("isreal", options, [a]);
  if (a.dtype.kind !== "c") {
    const t = DeviceArray.empty(a.shape, "bool", { stream });
    t.fill(true, { stream });
    return t;
  }
  return eq(imag(a), 0, { stream }) as DeviceArray<"bool">;
}

/** The dtype of an array, a dtype or a dtype's name (TypeError for anything else). */
function dtypeArgument(x: DeviceArray | DType | DTypeName, what: string): DType {
  if (x instanceof DeviceArray) return x.dtype;
  try {
    return dtypeOf(x);
  } catch {
    throw new TypeError(`${what} takes a DeviceArray, a dtype or a dtype's name, not ${describeValue(x)}`);
  }
}

/** Whether `x` (an array, a dtype or its name) is of a complex dtype, as NumPy's `iscomplexobj`; the values are not read. */
export function iscomplexobj(x: DeviceArray | DType | DTypeName): boolean {
  return dtypeArgument(x, "iscomplexobj").kind === "c";
}

/** Whether `x` (an array, a dtype or its name) is of a dtype that is not complex, as NumPy's `isrealobj`. */
export function isrealobj(x: DeviceArray | DType | DTypeName): boolean {
  return dtypeArgument(x, "isrealobj").kind !== "c";
}

/** Options of {@link realIfClose}. */
export interface RealIfCloseOptions extends ArrayOperationOptions {
  /**
   * How small every imaginary part must be (default 100): above 1, in machine epsilons of the dtype (NumPy's rule:
   * 100 × float64's 2.2e-16 for complex128); at most 1, an absolute bound.
   */
  readonly tol?: number;
}

/**
 * `a`'s real parts when every imaginary part is smaller than `tol`, else `a` itself, as NumPy's `real_if_close`: a
 * real array is returned as it is; for a complex one the result is a view of its real parts (writing into it writes
 * `a`; closing `a` frees both) or `a`. Reads one boolean back, resolving once the stream has computed it.
 *
 * ```ts
 * const x = await realIfClose(ifft(fft(signal)));   // float64 again when the round trip left only rounding noise
 * ```
 */
export async function realIfClose(a: DeviceArray, options?: RealIfCloseOptions): Promise<DeviceArray> {
  const what = "realIfClose";
  checkArrayArgument(a, what, "the array");
  if (options !== undefined && (options === null || typeof options !== "object" || Array.isArray(options))) throw new TypeError(`${what} takes options { tol?, stream? }, got ${describeValue(options)}`);
  const given = options?.tol ?? 100;
  if (typeof given !== "number" || !(given >= 0)) throw new ArgumentError(`${what}: tol is a non-negative number (machine epsilons above 1, absolute at most 1), not ${describeValue(given)}`);
  if (a.dtype.kind !== "c") return a;
  const stream = operationStream(what, options, [a]);
  const tol = given > 1 ? finfo(a.dtype).eps * given : given;
  const magnitudes = abs(imag(a), { stream });
  let small: DeviceArray | undefined;
  let every: DeviceArray | undefined;
  try {
    small = lt(magnitudes, tol, { stream });
    every = all(small, { stream });
    const [ok] = await every.toTypedArray({ stream });
    return ok !== 0 ? real(a) : a;
  } finally {
    for (const t of [magnitudes, small, every]) t?.close(stream);
  }
}
