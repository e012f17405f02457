/**
 * NumPy's other names for functions of `cuda-ts/array`: the long names NumPy 1 and CuPy use (`multiply`, `arccos`,
 * `greater_equal`, ...) and NumPy 2's array-API names (`atan2`, `concat`, `permuteDims`, `bitwiseInvert`), each the
 * very function of the short name, so a script ported from NumPy or CuPy reads as it did.
 *
 * ```ts
 * ca.multiply(a, b);          // ca.mul(a, b)
 * ca.arccos(x);               // ca.acos(x)
 * ca.greaterEqual(a, 0);      // ca.ge(a, 0), also a.ge(0)
 * ```
 *
 * @module
 */
export {
  sub as subtract,
  mul as multiply,
  div as divide,
  div as trueDivide,
  floorDiv as floorDivide,
  mod as remainder,
  pow as power,
  arctan2 as atan2,
  eq as equal,
  ne as notEqual,
  lt as less,
  le as lessEqual,
  gt as greater,
  ge as greaterEqual,
  leftShift as bitwiseLeftShift,
  rightShift as bitwiseRightShift,
} from "./arithmetic.ts";
export {
  neg as negative,
  abs as absolute,
  acos as arccos,
  asin as arcsin,
  atan as arctan,
  acosh as arccosh,
  asinh as arcsinh,
  atanh as arctanh,
  conj as conjugate,
  deg2rad as radians,
  rad2deg as degrees,
  invert as bitwiseNot,
  invert as bitwiseInvert,
  round as around,
  trunc as fix,
} from "./math.ts";
export { max as amax, min as amin } from "../reductions.ts";
export { concatenate as concat, transpose as permuteDims } from "./shape.ts";
export { putMask as putmask } from "./indexing.ts";
