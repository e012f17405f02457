/**
 * The dtype table (sizes, C types, host arrays, CUDA Array Interface typestrs, DLPack codes), element encodings
 * (float16 and bfloat16 bits rounded to nearest even, 64-bit integers, complex pairs) and their typed errors. No GPU.
 */
import { describe, expect, it } from "vitest";
import {
  DTYPE_NAMES,
  DTypeError,
  decodeBFloat16,
  decodeHalf,
  dtypeOf,
  dtypeOfHostArray,
  dtypes,
  encodeBFloat16,
  encodeElement,
  encodeHalf,
} from "../../../src/index.ts";
import { DLDataTypeCode, dtypeFromDLPack, dtypeFromTypestr } from "../../../src/interop.ts";
import { checkHostArray } from "../../../src/core/array/dtype.ts";

describe("dtypes", () => {
  it("has the fifteen dtypes with their sizes, kinds, kernel scalars, typestrs and DLPack codes", () => {
    expect(DTYPE_NAMES).toEqual(["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "float16", "bfloat16", "float32", "float64", "complex64", "complex128"]);
    const rows = DTYPE_NAMES.map((n) => {
      const d = dtypes[n];
      return [n, d.itemsize, d.kind, d.scalar, d.typestr, d.dlpack.code, d.dlpack.bits, d.hostArray.name, d.lanes];
    });
    expect(rows).toEqual([
      ["bool", 1, "b", "bool", "|b1", 6, 8, "Uint8Array", 1],
      ["int8", 1, "i", "i8", "|i1", 0, 8, "Int8Array", 1],
      ["uint8", 1, "u", "u8", "|u1", 1, 8, "Uint8Array", 1],
      ["int16", 2, "i", "i16", "<i2", 0, 16, "Int16Array", 1],
      ["uint16", 2, "u", "u16", "<u2", 1, 16, "Uint16Array", 1],
      ["int32", 4, "i", "i32", "<i4", 0, 32, "Int32Array", 1],
      ["uint32", 4, "u", "u32", "<u4", 1, 32, "Uint32Array", 1],
      ["int64", 8, "i", "i64", "<i8", 0, 64, "BigInt64Array", 1],
      ["uint64", 8, "u", "u64", "<u8", 1, 64, "BigUint64Array", 1],
      ["float16", 2, "f", "f16", "<f2", 2, 16, "Uint16Array", 1],
      ["bfloat16", 2, "f", "bf16", "<V2", 4, 16, "Uint16Array", 1],
      ["float32", 4, "f", "f32", "<f4", 2, 32, "Float32Array", 1],
      ["float64", 8, "f", "f64", "<f8", 2, 64, "Float64Array", 1],
      ["complex64", 8, "c", "complex64", "<c8", 5, 64, "Float32Array", 2],
      ["complex128", 16, "c", "complex128", "<c16", 5, 128, "Float64Array", 2],
    ]);
    expect(DLDataTypeCode.kDLBfloat).toBe(4);
    expect(dtypes.float16.ctype).toBe("__half");
    expect(dtypes.bfloat16.ctype).toBe("__nv_bfloat16");
    expect(dtypes.int64.ctype).toBe("long long");
  });

  it("dtypeOf takes a name or a dtype and refuses anything else with DTypeError", () => {
    expect(dtypeOf("float32")).toBe(dtypes.float32);
    expect(dtypeOf(dtypes.int8)).toBe(dtypes.int8);
    expect(() => dtypeOf("float" as never)).toThrow(DTypeError);
    expect(() => dtypeOf("float" as never)).toThrow(/expected a dtype \(one of bool, int8/);
    expect(() => dtypeOf({ ...dtypes.float32 } as never)).toThrow(DTypeError);
  });

  it("maps typed arrays to their default dtype, and checks a host array against a dtype", () => {
    expect(dtypeOfHostArray(new Float32Array(1)).name).toBe("float32");
    expect(dtypeOfHostArray(new BigInt64Array(1)).name).toBe("int64");
    expect(dtypeOfHostArray(new Uint16Array(1)).name).toBe("uint16");
    expect(dtypeOfHostArray(new Uint8ClampedArray(1)).name).toBe("uint8");
    expect(() => dtypeOfHostArray([1, 2])).toThrow(/expected a typed array .* for float16\/bfloat16 pass their bits in a Uint16Array/);
    expect(() => checkHostArray(new Float64Array(1), dtypes.float32, "x")).toThrow(/x: a float32 array is held in a Float32Array on the host/);
    expect(checkHostArray(new Uint16Array(2), dtypes.bfloat16, "x")).toBeInstanceOf(Uint16Array);
    expect(checkHostArray(new Float32Array(2), dtypes.complex64, "x")).toBeInstanceOf(Float32Array);
  });

  it("reads dtypes from DLPack codes and CUDA Array Interface typestrs", () => {
    expect(dtypeFromDLPack(2, 32, 1)).toBe(dtypes.float32);
    expect(dtypeFromDLPack(4, 16, 1)).toBe(dtypes.bfloat16);
    expect(dtypeFromDLPack(5, 128, 1)).toBe(dtypes.complex128);
    expect(dtypeFromDLPack(6, 8, 1)).toBe(dtypes.bool);
    expect(() => dtypeFromDLPack(2, 32, 4)).toThrow(/vector types \(lanes 4\)/);
    expect(() => dtypeFromDLPack(2, 24, 1)).toThrow(DTypeError);
    expect(dtypeFromTypestr("<f4")).toBe(dtypes.float32);
    expect(dtypeFromTypestr("=i8")).toBe(dtypes.int64);
    expect(dtypeFromTypestr("|u1")).toBe(dtypes.uint8);
    expect(dtypeFromTypestr("<u1")).toBe(dtypes.uint8);
    expect(() => dtypeFromTypestr(">f4")).toThrow(/big-endian/);
  });
});

describe("half and bfloat16 encodings", () => {
  it("encode and decode float16 exactly where representable, rounding to nearest even", () => {
    expect(encodeHalf(1)).toBe(0x3c00);
    expect(encodeHalf(-2)).toBe(0xc000);
    expect(encodeHalf(65504)).toBe(0x7bff);
    expect(encodeHalf(65520)).toBe(0x7c00); // rounds up to infinity
    expect(encodeHalf(2 ** -24)).toBe(0x0001); // smallest subnormal
    expect(encodeHalf(1 + 2 ** -11)).toBe(0x3c00); // a tie: to even
    expect(encodeHalf(1 + 3 * 2 ** -11)).toBe(0x3c02);
    expect(encodeHalf(NaN)).toBe(0x7e00);
    for (const bits of [0x0000, 0x0001, 0x03ff, 0x0400, 0x3c00, 0x3555, 0x7bff, 0xfbff, 0x8001]) expect(encodeHalf(decodeHalf(bits))).toBe(bits);
    expect(decodeHalf(0x7c00)).toBe(Infinity);
    expect(decodeHalf(0xfc00)).toBe(-Infinity);
    expect(decodeHalf(0x7e00)).toBeNaN();
    expect(decodeHalf(0x3555)).toBeCloseTo(1 / 3, 3);
  });

  it("encode and decode bfloat16 (the top half of a float32)", () => {
    expect(encodeBFloat16(1)).toBe(0x3f80);
    expect(encodeBFloat16(-0.5)).toBe(0xbf00);
    expect(encodeBFloat16(3.0e38)).toBe(0x7f62);
    expect(decodeBFloat16(0x3f80)).toBe(1);
    expect(decodeBFloat16(0x4049)).toBe(3.140625);
    for (const bits of [0x0001, 0x3f80, 0x4049, 0x7f7f, 0xff7f, 0x8000]) expect(encodeBFloat16(decodeBFloat16(bits))).toBe(bits);
    expect(encodeBFloat16(1 + 2 ** -8)).toBe(0x3f80); // a tie: to even
    expect(encodeBFloat16(1 + 3 * 2 ** -8)).toBe(0x3f82);
  });
});

describe("encodeElement", () => {
  const bytes = (u: Uint8Array) => [...u];
  it("writes one element's little-endian bytes for every dtype", () => {
    expect(bytes(encodeElement(dtypes.float32, 1))).toEqual([0, 0, 0x80, 0x3f]);
    expect(bytes(encodeElement(dtypes.float16, 1))).toEqual([0x00, 0x3c]);
    expect(bytes(encodeElement(dtypes.bfloat16, 1))).toEqual([0x80, 0x3f]);
    expect(bytes(encodeElement(dtypes.int16, -1))).toEqual([0xff, 0xff]);
    expect(bytes(encodeElement(dtypes.uint32, 4294967295))).toEqual([0xff, 0xff, 0xff, 0xff]);
    expect(bytes(encodeElement(dtypes.int64, -2n))).toEqual([0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]);
    expect(bytes(encodeElement(dtypes.uint64, 5))).toEqual([5, 0, 0, 0, 0, 0, 0, 0]);
    expect(bytes(encodeElement(dtypes.bool, true))).toEqual([1]);
    expect(new Float32Array(encodeElement(dtypes.complex64, [1.5, -2]).buffer)).toEqual(Float32Array.of(1.5, -2));
    expect(new Float64Array(encodeElement(dtypes.complex128, 3).buffer)).toEqual(Float64Array.of(3, 0));
  });

  it("refuses values outside the dtype with DTypeError saying the range", () => {
    expect(() => encodeElement(dtypes.int8, 128)).toThrow(/a int8 element is an integer from -128 to 127, got 128/);
    expect(() => encodeElement(dtypes.uint8, -1)).toThrow(DTypeError);
    expect(() => encodeElement(dtypes.int32, 1.5)).toThrow(DTypeError);
    expect(() => encodeElement(dtypes.uint64, -1n)).toThrow(/uint64 range/);
    expect(() => encodeElement(dtypes.int64, 2 ** 60)).toThrow(/a bigint/);
    expect(() => encodeElement(dtypes.float32, "1" as never)).toThrow(/a float32 element is a number/);
    expect(() => encodeElement(dtypes.complex64, [1] as never)).toThrow(/a number or \[re, im\]/);
  });
});
