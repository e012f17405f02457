/**
 * Array type testing, as NumPy's functions of these names: `iscomplex` and `isreal` (per element: whether the
 * imaginary part is non-zero), `iscomplexobj` and `isrealobj` (whether the dtype is complex, whatever the values).
 *
 * ```ts
 * iscomplex(z);          // bool per element: imag(z) != 0 (all false for a real dtype)
 * isreal(z);             // imag(z) == 0 (all true for a real dtype)
 * iscomplexobj(z);       // true for complex64 and complex128, even where every imaginary part is 0
 * ```
 *
 * @module
 */
import { DeviceArray, operationStream, type ArrayOperationOptions } from "../device-array.ts";
import { dtypeOf, type DType, type DTypeName } from "../dtype.ts";
import { describeValue } from "../../../errors/describe.ts";
import { eq, ne } from "./arithmetic.ts";
import { checkArrayArgument } from "./elementwise.ts";
import { imag } from "./math.ts";

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
