/**
 * NumPy's and CuPy's long names in `cuda-ts/array` are the functions of the short names, so a ported script calls
 * the same code (and gets the same errors).
 */
import { describe, expect, it } from "vitest";
import * as ca from "../../../src/array.ts";

describe("NumPy's other names", () => {
  it("are the functions of the short names", () => {
    const pairs: [keyof typeof ca, keyof typeof ca][] = [
      ["subtract", "sub"],
      ["multiply", "mul"],
      ["divide", "div"],
      ["trueDivide", "div"],
      ["floorDivide", "floorDiv"],
      ["remainder", "mod"],
      ["power", "pow"],
      ["atan2", "arctan2"],
      ["equal", "eq"],
      ["notEqual", "ne"],
      ["less", "lt"],
      ["lessEqual", "le"],
      ["greater", "gt"],
      ["greaterEqual", "ge"],
      ["negative", "neg"],
      ["absolute", "abs"],
      ["arccos", "acos"],
      ["arcsin", "asin"],
      ["arctan", "atan"],
      ["arccosh", "acosh"],
      ["arcsinh", "asinh"],
      ["arctanh", "atanh"],
      ["conjugate", "conj"],
      ["radians", "deg2rad"],
      ["degrees", "rad2deg"],
      ["bitwiseNot", "invert"],
      ["around", "round"],
      ["fix", "trunc"],
      ["amax", "max"],
      ["amin", "min"],
      ["bitwiseLeftShift", "leftShift"],
      ["bitwiseRightShift", "rightShift"],
      ["bitwiseInvert", "invert"],
      ["concat", "concatenate"],
      ["permuteDims", "transpose"],
      ["putmask", "putMask"],
    ];
    for (const [long, short] of pairs) {
      expect(typeof ca[long], long).toBe("function");
      expect(ca[long], long).toBe(ca[short]);
    }
  });
});
