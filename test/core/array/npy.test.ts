/**
 * `.npy` files without a GPU: the headers written are NumPy's byte for byte, NumPy's files' headers are read
 * (C and Fortran order, big-endian, 0-d, empty), and malformed or unsupported bytes and paths are refused with what
 * is wrong, before anything reaches the GPU. Fixtures: test/fixtures/arrays/npy-files.json (NumPy 2's np.save).
 */
import { describe, expect, it } from "vitest";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { ArgumentError } from "../../../src/errors/base.ts";
import { DTypeError, NotFoundError } from "../../../src/index.ts";
import { fromNpy, load, save, toNpy } from "../../../src/array.ts";
import { npyHeader, readNpyHeader } from "../../../src/core/array/npy.ts";
import { fakeArray } from "../../support/fake-arrays.ts";
import fixture from "../../fixtures/arrays/npy-files.json" with { type: "json" };

const bytesOf = (b64: string): Uint8Array => Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
const npy = (name: keyof typeof fixture.arrays): Uint8Array => bytesOf(fixture.arrays[name]);
/** A .npy made of a header text as given (version 1.0), and `data`. */
function handMade(header: string, data: Uint8Array = new Uint8Array(0), version = 1): Uint8Array {
  const prefix = version === 1 ? 10 : 12;
  const out = new Uint8Array(prefix + header.length + data.length);
  out.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, version, 0]);
  const view = new DataView(out.buffer);
  if (version === 1) view.setUint16(8, header.length, true);
  else view.setUint32(8, header.length, true);
  for (let i = 0; i < header.length; i++) out[prefix + i] = header.charCodeAt(i);
  out.set(data, prefix + header.length);
  return out;
}

describe(".npy headers", () => {
  it("writes NumPy's header byte for byte", () => {
    for (const [key, b64] of Object.entries(fixture.headers)) {
      const [descr, shape] = JSON.parse(key) as [string, number[]];
      expect(npyHeader(descr, shape), key).toEqual(bytesOf(b64));
      expect(npyHeader(descr, shape).length % 64).toBe(0);
    }
  });

  it("reads NumPy's headers: dtype, shape, order, byte order, where the data starts", () => {
    const cases: [keyof typeof fixture.arrays, string, number[], boolean, boolean][] = [
      ["f32_2x3", "float32", [2, 3], false, false],
      ["i64_fortran", "int64", [2, 3], true, false],
      ["i32_big_endian", "int32", [3], false, true],
      ["c64_big_endian", "complex64", [2], false, true],
      ["bool_0d", "bool", [], false, false],
      ["u8_empty", "uint8", [0, 4], false, false],
      ["f16", "float16", [3], false, false],
      ["c128", "complex128", [2], false, false],
    ];
    for (const [name, dtype, shape, fortranOrder, bigEndian] of cases) {
      const h = readNpyHeader(npy(name));
      expect([h.dtype.name, h.shape, h.fortranOrder, h.bigEndian, h.dataOffset], name).toEqual([dtype, shape, fortranOrder, bigEndian, 128]);
    }
    // Other writers: double quotes, keys in another order, no trailing comma, format 2.0 and 3.0.
    const h = readNpyHeader(handMade(`{"shape": (4, 5), "fortran_order": False, "descr": "<u4"}\n`, new Uint8Array(80), 3));
    expect([h.dtype.name, h.shape, h.dataOffset]).toEqual(["uint32", [4, 5], 12 + 58]);
    expect(readNpyHeader(handMade(`{'descr': '>f8', 'fortran_order': True, 'shape': (2L, 1L), }\n`, new Uint8Array(16), 2)).shape).toEqual([2, 1]);
  });

  it("refuses bytes that are not a well-formed .npy, saying what is wrong", () => {
    expect(() => readNpyHeader(new TextEncoder().encode("PK\x03\x04 not numpy"))).toThrow(/does not start with NumPy's magic/);
    expect(() => readNpyHeader(handMade("{}", undefined, 4))).toThrow(/format version 4.0/);
    expect(() => readNpyHeader(new Uint8Array([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0]))).toThrow(/ends before its header's length \(8 bytes\)/);
    // Whitespace after the dict, as Python's literal reader takes it (a file written on Windows ends in \r\n).
    expect(readNpyHeader(handMade(`{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }\r\n`, new Uint8Array(8))).shape).toEqual([2]);
    const truncated = npy("f32_2x3").subarray(0, 60);
    expect(() => readNpyHeader(truncated)).toThrow(/header says 118 bytes, but only 50 follow/);
    expect(() => readNpyHeader(handMade(`{'descr': '<f4', 'fortran_order': False}`))).toThrow(/has the keys descr, fortran_order, not descr, fortran_order and shape/);
    expect(() => readNpyHeader(handMade(`{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}`))).toThrow(ArgumentError);
    expect(() => readNpyHeader(handMade(`{'descr': '<f4', 'fortran_order': False, 'shape': (2, -1), }`))).toThrow(/a dimension/);
    expect(() => readNpyHeader(handMade(`{'descr': '<f4', 'fortran_order': 0, 'shape': (2,), }`))).toThrow(/a string, True, False or a tuple/);
    expect(() => readNpyHeader(handMade(`{'descr': '<f4', 'fortran_order': False, 'shape': (2,), } trailing`))).toThrow(/nothing after the dict/);
    expect(() => readNpyHeader(handMade(`{'descr': '<f4\u00e9', 'fortran_order': False, 'shape': (2,), }`))).toThrow(/the byte 0xe9/);
    expect(() => readNpyHeader(handMade(`{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'descr': '<f4'}`))).toThrow(/again/);
    expect(() => readNpyHeader(handMade(`{'descr': '<f4', 'fortran_order': False, 'shape': (9007199254740993,), }`))).toThrow(/below 2\^53/);
    expect(() => readNpyHeader(handMade(`{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296), }`))).toThrow(/too large/);
    expect(() => readNpyHeader(handMade(" ".repeat(10_001)))).toThrow(/more than NumPy's limit of 10000/);
    // Data that does not match the header: refused before any stream is needed.
    const short = npy("f32_2x3").subarray(0, 150);
    expect(() => fromNpy(short, {} as never)).toThrow(/float32 of shape \(2, 3\), 24 bytes, but only 22 bytes follow it/);
    // Bytes after the array are not read, as np.load reads the first of several arrays saved into one file.
    const long = new Uint8Array(153);
    long.set(npy("f32_2x3"));
    expect(() => fromNpy(long, {} as never)).toThrow(/stream/);
    // Python's literals: (3) is an integer, not a tuple; no leading zeros; Python 2's L only before format 3.0.
    expect(() => readNpyHeader(handMade(`{'descr': '<f4', 'fortran_order': False, 'shape': (3), }`))).toThrow(/a tuple of one dimension is written \(n,\)/);
    expect(() => readNpyHeader(handMade(`{'descr': '<f4', 'fortran_order': False, 'shape': (03,), }`))).toThrow(/without leading zeros/);
    expect(() => readNpyHeader(handMade(`{'descr': '<f4', 'fortran_order': False, 'shape': (3L,), }`, undefined, 3))).toThrow(ArgumentError);
    expect(readNpyHeader(handMade(`{'descr': '<f4', 'fortran_order': False, 'shape': (3L,), }`)).shape).toEqual([3]);
    expect(() => fromNpy([1, 2] as never, {} as never)).toThrow(TypeError);
  });

  it("refuses dtypes cuda-ts has no counterpart of", () => {
    expect(() => readNpyHeader(npy("object"))).toThrow(DTypeError);
    expect(() => readNpyHeader(npy("object"))).toThrow(/pickles/);
    expect(() => readNpyHeader(npy("record"))).toThrow(/record \(structured\) dtype/);
    expect(() => readNpyHeader(handMade(`{'descr': '<U3', 'fortran_order': False, 'shape': (2,), }`))).toThrow(/dtype <U3 is not one cuda-ts holds/);
    expect(() => readNpyHeader(handMade(`{'descr': '<V2', 'fortran_order': False, 'shape': (2,), }`))).toThrow(/bfloat16/);
    // Other spellings NumPy reads: no byte order (native), one-letter codes.
    const spelled = (descr: string): string => readNpyHeader(handMade(`{'descr': '${descr}', 'fortran_order': False, 'shape': (2,), }`)).dtype.name;
    expect(["f4", "<d", "?", "|b", "B", "<h", "=i", "l", "Q", "e", "F", "D"].map(spelled)).toEqual(["float32", "float64", "bool", "int8", "uint8", "int16", "int32", "int64", "uint64", "float16", "complex64", "complex128"]);
    // np.dtype's names and 64-bit Linux aliases, the pointer-sized codes, a zero-padded size.
    expect(["float32", "bool", "int", "float", "double", "single", "half", "complex", "uintp", "longlong", "csingle"].map(spelled)).toEqual(["float32", "bool", "int64", "float64", "float64", "float32", "float16", "complex128", "uint64", "int64", "complex64"]);
    expect(["n", "<n", "N", "p", "P", "<f04", "<i008"].map(spelled)).toEqual(["int64", "int64", "uint64", "int64", "uint64", "float32", "int64"]);
    expect(() => spelled("<float32")).toThrow(/dtype <float32 is not one cuda-ts holds/);
    expect(() => toNpy(fakeArray([2], "bfloat16"))).toThrow(/NumPy has no bfloat16 dtype/);
    expect(() => save("/tmp/x.npy", fakeArray([2], "bfloat16"))).toThrow(DTypeError);
  });
});

describe(".npy files: paths", () => {
  it("says when there is no file, a directory, a zip archive or a malformed file", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cuda-ts-npy-"));
    try {
      expect(() => load(path.join(dir, "missing.npy"), {} as never)).toThrow(NotFoundError);
      expect(() => load(dir, {} as never)).toThrow(/is not a regular file/);
      fs.writeFileSync(path.join(dir, "a.npz"), new Uint8Array([0x50, 0x4b, 0x03, 0x04, 0, 0]));
      expect(() => load(path.join(dir, "a.npz"), {} as never)).toThrow(/zip archive \(NumPy's \.npz/);
      fs.writeFileSync(path.join(dir, "bad.npy"), "not an array");
      expect(() => load(path.join(dir, "bad.npy"), {} as never)).toThrow(/bad\.npy: not a well-formed \.npy file/);
      expect(() => load("" as never, {} as never)).toThrow(TypeError);
      expect(() => save(42 as never, fakeArray([2], "float32"))).toThrow(TypeError);
    } finally {
      fs.rmSync(dir, { recursive: true });
    }
  });
});
