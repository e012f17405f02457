/**
 * NumPy's `.npy` files for DeviceArrays: `save` and `load` a file, `toNpy` and `fromNpy` its bytes (for a server
 * that receives or sends them). The format is NumPy's own (format versions 1.0 to 3.0 read, 1.0 written unless the
 * header needs 2.0): a magic string, a header that is a Python dict literal `{'descr': '<f4', 'fortran_order':
 * False, 'shape': (3, 4), }`, then the elements in C (or Fortran) order. Files written here load in NumPy, CuPy and
 * PyTorch (`np.load`); NumPy's files load here.
 *
 * ```ts
 * import { load, save } from "cuda-ts/array";
 * save("weights.npy", w);                       // np.load("weights.npy") in Python
 * const x = load("samples.npy", { stream });     // from np.save("samples.npy", x)
 * ```
 *
 * @module
 */
import { DeviceArray, operationStream, type ArrayAllocateOptions, type ArrayOperationOptions } from "./device-array.ts";
import { allocateHostArray, dtypes, type DType } from "./dtype.ts";
import { isContiguous } from "./layout.ts";
import { DTypeError } from "./errors.ts";
import { ArgumentError, NotFoundError } from "../../errors/base.ts";
import { describeValue } from "../../errors/describe.ts";
import { fileInfo, readFileBytes, writeFileBytes } from "../../host.ts";

const MAGIC = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59]; // "\x93NUMPY"
/** NumPy's limit on a header it parses (`max_header_size`), against headers made to exhaust the parser. */
const MAX_HEADER = 10_000;
/** NumPy aligns the data to 64 bytes (`ARRAY_ALIGN`), so that a memory-mapped file's elements are aligned. */
const ALIGN = 64;

/** The `descr` of each dtype, little-endian (NumPy's `dtype.str`); bfloat16 has none in NumPy itself. */
const DESCR: Readonly<Record<string, string>> = {
  bool: "|b1",
  int8: "|i1",
  uint8: "|u1",
  int16: "<i2",
  uint16: "<u2",
  int32: "<i4",
  uint32: "<u4",
  int64: "<i8",
  uint64: "<u8",
  float16: "<f2",
  float32: "<f4",
  float64: "<f8",
  complex64: "<c8",
  complex128: "<c16",
};

/** The dtype of each type code and size (NumPy's `descr` without its byte order). */
const FROM_CODE: Readonly<Record<string, DType>> = {
  b1: dtypes.bool,
  i1: dtypes.int8,
  u1: dtypes.uint8,
  i2: dtypes.int16,
  u2: dtypes.uint16,
  i4: dtypes.int32,
  u4: dtypes.uint32,
  i8: dtypes.int64,
  u8: dtypes.uint64,
  f2: dtypes.float16,
  f4: dtypes.float32,
  f8: dtypes.float64,
  c8: dtypes.complex64,
  c16: dtypes.complex128,
};

/** NumPy's one-letter type codes (`dtype.char`; on 64-bit Linux `l`, `L`, `n`, `N`, `p` and `P` are the 64-bit integers). */
const FROM_LETTER: Readonly<Record<string, DType>> = {
  "?": dtypes.bool,
  b: dtypes.int8,
  B: dtypes.uint8,
  h: dtypes.int16,
  H: dtypes.uint16,
  i: dtypes.int32,
  I: dtypes.uint32,
  l: dtypes.int64,
  L: dtypes.uint64,
  q: dtypes.int64,
  Q: dtypes.uint64,
  n: dtypes.int64,
  N: dtypes.uint64,
  p: dtypes.int64,
  P: dtypes.uint64,
  e: dtypes.float16,
  f: dtypes.float32,
  d: dtypes.float64,
  F: dtypes.complex64,
  D: dtypes.complex128,
};

/**
 * The dtype names NumPy's `np.dtype` reads in a `descr` (no byte order before them): each dtype's own name and
 * NumPy's C-type aliases as they are on 64-bit Linux.
 */
const FROM_NAME: Readonly<Record<string, DType>> = {
  ...Object.fromEntries(Object.keys(DESCR).map((n) => [n, dtypes[n as keyof typeof dtypes]])),
  bool_: dtypes.bool,
  byte: dtypes.int8,
  ubyte: dtypes.uint8,
  short: dtypes.int16,
  ushort: dtypes.uint16,
  intc: dtypes.int32,
  uintc: dtypes.uint32,
  int: dtypes.int64,
  int_: dtypes.int64,
  long: dtypes.int64,
  longlong: dtypes.int64,
  intp: dtypes.int64,
  uint: dtypes.uint64,
  ulong: dtypes.uint64,
  ulonglong: dtypes.uint64,
  uintp: dtypes.uint64,
  half: dtypes.float16,
  single: dtypes.float32,
  float: dtypes.float64,
  double: dtypes.float64,
  csingle: dtypes.complex64,
  complex: dtypes.complex128,
  cdouble: dtypes.complex128,
};

/** @internal What a `.npy` header says: the dtype, whether its bytes are big-endian, the order, the shape. */
export interface NpyHeader {
  readonly dtype: DType;
  readonly bigEndian: boolean;
  readonly fortranOrder: boolean;
  readonly shape: readonly number[];
  /** Where the elements start, in bytes from the file's start. */
  readonly dataOffset: number;
}

/** A shape as Python writes a tuple: (3,), (2, 3), (). */
function tuple(shape: readonly number[]): string {
  return shape.length === 1 ? `(${shape[0]},)` : `(${shape.join(", ")})`;
}

function malformed(what: string, detail: string): ArgumentError {
  return new ArgumentError(`${what}: not a well-formed .npy file: ${detail}; write it with NumPy's np.save (or save/toNpy here)`);
}

/**
 * The `.npy` bytes of `a`: NumPy's header (format 1.0, or 2.0 for a header past 65,535 bytes) and the elements in C
 * order, little-endian, or in Fortran order (`fortran_order: True`) where `a` is packed column-major and not
 * row-major (a transposed view), as `np.save` writes them. Reads the array back (any layout; another view is packed
 * first) and waits for the stream.
 * DTypeError for bfloat16, which NumPy has no dtype for (convert it first: `a.astype("float32")`).
 */
export function toNpy(a: DeviceArray, options?: ArrayOperationOptions): Uint8Array {
  const action = "toNpy";
  return encode(a, options, action);
}

function encode(a: DeviceArray, options: ArrayOperationOptions | undefined, action: string): Uint8Array {
  if (!(a instanceof DeviceArray)) throw new TypeError(`${action}: a is a DeviceArray, not ${describeValue(a)}`);
  const descr = DESCR[a.dtype.name];
  if (descr === undefined) {
    throw new DTypeError(`${action}: NumPy has no ${a.dtype.name} dtype to read a .npy of it back into; convert it first (a.astype("float32"))`);
  }
  const stream = operationStream(action, options, [a]);
  // As np.save: an array packed in column-major order (a transposed view) is written as it lies, fortran_order True.
  const fortran = !a.isContiguous && isContiguous([...a.shape].reverse(), [...a.strides].reverse());
  let host: ArrayLike<unknown> & ArrayBufferView;
  if (fortran) {
    const t = a.T;
    try {
      host = t.toTypedArraySync({ stream });
    } finally {
      t.close();
    }
  } else {
    host = a.toTypedArraySync({ stream });
  }
  const header = npyHeader(descr, a.shape, fortran);
  const data = new Uint8Array(host.buffer, host.byteOffset, host.byteLength);
  const out = new Uint8Array(header.length + data.byteLength);
  out.set(header, 0);
  out.set(data, header.length);
  return out;
}

/**
 * @internal The header NumPy's `np.save` writes for an array of `descr` and `shape` (C order, or Fortran order), byte for byte: the
 * magic, format 1.0 (2.0 past 65,535 bytes), the dict with NumPy's spare spaces for the first axis to grow
 * (`GROWTH_AXIS_MAX_DIGITS`), padded with spaces and a newline to a multiple of 64 bytes.
 */
export function npyHeader(descr: string, shape: readonly number[], fortranOrder = false): Uint8Array {
  let dict = `{'descr': '${descr}', 'fortran_order': ${fortranOrder ? "True" : "False"}, 'shape': ${tuple(shape)}, }`;
  if (shape.length > 0) dict += " ".repeat(Math.max(0, 21 - String(shape[0]).length));
  // Magic (6), version (2), header length (2 in 1.0, 4 in 2.0), the dict, then 1 to 64 spaces (NumPy pads a header
  // that already ends on the boundary by a whole 64) and "\n".
  const padded = (prefix: number): number => prefix + dict.length + 1 + (ALIGN - ((prefix + dict.length + 1) % ALIGN));
  let prefix = 10;
  let total = padded(prefix);
  if (total - prefix > 0xffff) {
    prefix = 12;
    total = padded(prefix);
  }
  dict = dict.padEnd(total - prefix - 1, " ") + "\n";
  const out = new Uint8Array(total);
  out.set(MAGIC, 0);
  out[6] = prefix === 10 ? 1 : 2;
  const view = new DataView(out.buffer);
  if (prefix === 10) view.setUint16(8, total - prefix, true);
  else view.setUint32(8, total - prefix, true);
  for (let i = 0; i < dict.length; i++) out[prefix + i] = dict.charCodeAt(i);
  return out;
}

/**
 * Reads a `.npy` header: NumPy's format versions 1.0, 2.0 and 3.0, a dict of exactly `descr`, `fortran_order` and
 * `shape`, a dtype cuda-ts has (no object arrays, records or strings). ArgumentError naming what is wrong otherwise.
 * @internal
 */
export function readNpyHeader(bytes: Uint8Array, what = "fromNpy"): NpyHeader {
  if (!(bytes instanceof Uint8Array)) throw new TypeError(`${what}: bytes is a Uint8Array, not ${describeValue(bytes)}`);
  if (bytes.length < 8 || MAGIC.some((m, i) => bytes[i] !== m)) throw malformed(what, `it does not start with NumPy's magic "\\x93NUMPY"`);
  const major = bytes[6]!;
  const minor = bytes[7]!;
  if (major < 1 || major > 3 || minor !== 0) throw malformed(what, `format version ${major}.${minor} is not one NumPy writes (1.0, 2.0, 3.0)`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length < (major === 1 ? 10 : 12)) throw malformed(what, `it ends before its header's length (${bytes.length} bytes)`);
  const length = major === 1 ? view.getUint16(8, true) : view.getUint32(8, true);
  const start = major === 1 ? 10 : 12;
  if (length > MAX_HEADER) throw malformed(what, `its header is ${length} bytes, more than NumPy's limit of ${MAX_HEADER}`);
  if (start + length > bytes.length) throw malformed(what, `its header says ${length} bytes, but only ${bytes.length - start} follow`);
  const raw = bytes.subarray(start, start + length);
  // 1.0 and 2.0 headers are Latin-1, 3.0 UTF-8; a valid dict is ASCII either way.
  let text = "";
  for (const b of raw) {
    if (b > 0x7e || (b < 0x20 && (b < 0x09 || b > 0x0d))) throw malformed(what, `its header holds the byte 0x${b.toString(16).padStart(2, "0")}, where NumPy writes printable ASCII`);
    text += String.fromCharCode(b);
  }
  if (/['"]descr['"]\s*:\s*\[/.test(text)) {
    throw new DTypeError(`${what}: the .npy holds a record (structured) dtype, which cuda-ts has no counterpart of; save each field as its own array`);
  }
  const fields = parseDict(text, what, major < 3);
  const keys = [...fields.keys()].sort().join(", ");
  if (keys !== "descr, fortran_order, shape") throw malformed(what, `its header has the keys ${keys || "(none)"}, not descr, fortran_order and shape`);
  const descr = fields.get("descr");
  const fortranOrder = fields.get("fortran_order");
  const shape = fields.get("shape");
  if (typeof descr !== "string") throw malformed(what, `its descr is not a string: ${describeValue(descr)} (a record dtype, which cuda-ts does not hold)`);
  if (typeof fortranOrder !== "boolean") throw malformed(what, "its fortran_order is not True or False");
  if (!Array.isArray(shape)) throw malformed(what, "its shape is not a tuple of integers");
  // '<f4', also without a byte order ('f4': native) or with a padded size ('<f04'), a one-letter code ('<d', '?'), or
  // a dtype's name ('float32', 'double'), as np.dtype reads them.
  const match = Object.hasOwn(FROM_NAME, descr) ? null : /^([<>|=]?)([a-zA-Z?])(\d*)$/.exec(descr);
  const dtype = Object.hasOwn(FROM_NAME, descr) ? FROM_NAME[descr] : match === null ? undefined : match[3] === "" ? FROM_LETTER[match[2]!] : FROM_CODE[`${match[2]}${Number(match[3])}`];
  if (dtype === undefined) {
    const hint = descr.includes("O") ? "object arrays are pickles, which are not read (NumPy refuses them too without allow_pickle)" : descr.includes("V") ? "raw bytes (a void or extension dtype such as ml_dtypes' bfloat16): save it from NumPy as float32, or as uint16 and view it here" : "save it from NumPy as one of bool, int8 to uint64, float16, float32, float64, complex64, complex128";
    throw new DTypeError(`${what}: the .npy's dtype ${descr} is not one cuda-ts holds: ${hint}`);
  }
  const bigEndian = match?.[1] === ">" && dtype.itemsize / dtype.lanes > 1;
  let size = 1;
  for (const n of shape) size *= n;
  if (!Number.isSafeInteger(size * dtype.itemsize)) {
    throw new ArgumentError(`${what}: the .npy's shape ${tuple(shape)} of ${dtype.name} holds more bytes than can be addressed (2^53); the header is damaged or the array too large to load`);
  }
  return { dtype, bigEndian, fortranOrder, shape, dataOffset: start + length };
}

type DictValue = string | boolean | number[];

/** Parses the header's dict: string keys, values that are strings, True/False, or tuples of integers. */
function parseDict(text: string, what: string, pythonTwo: boolean): Map<string, DictValue> {
  let at = 0;
  const fail = (expected: string): never => {
    throw malformed(what, `its header ${JSON.stringify(text.length > 120 ? text.slice(0, 120) + "..." : text)} has ${at < text.length ? JSON.stringify(text[at]) : "its end"} at ${at}, where ${expected} was expected`);
  };
  const space = (): void => {
    while (at < text.length && /\s/.test(text[at]!)) at++;
  };
  const eat = (c: string): boolean => {
    space();
    if (text[at] === c) {
      at++;
      return true;
    }
    return false;
  };
  const str = (): string => {
    space();
    const quote = text[at];
    if (quote !== "'" && quote !== '"') return fail("a quoted string");
    const end = text.indexOf(quote, at + 1);
    if (end < 0) return fail("a closing quote");
    const s = text.slice(at + 1, end);
    if (s.includes("\\")) return fail("a string without escapes");
    at = end + 1;
    return s;
  };
  const value = (): DictValue => {
    space();
    const c = text[at];
    if (c === "'" || c === '"') return str();
    if (text.startsWith("True", at)) {
      at += 4;
      return true;
    }
    if (text.startsWith("False", at)) {
      at += 5;
      return false;
    }
    if (c === "(") {
      at++;
      const dims: number[] = [];
      for (;;) {
        if (eat(")")) return dims;
        space();
        // Python's integer literals as NumPy writes them: no leading zeros; Python 2's L suffix before format 3.0.
        const m = (pythonTwo ? /^(0|[1-9]\d*)L?/ : /^(0|[1-9]\d*)/).exec(text.slice(at, at + 24));
        if (m === null || /^\d/.test(text.slice(at + m[0].length, at + m[0].length + 1))) return fail("a dimension (a non-negative integer without leading zeros) or )");
        const n = Number(m[1]);
        if (!Number.isSafeInteger(n)) return fail("a dimension below 2^53");
        dims.push(n);
        at += m[0].length;
        // One dimension needs its comma: (3) is the integer 3 in Python, not a tuple.
        if (dims.length > 1 && eat(")")) return dims;
        if (!eat(",")) return fail(dims.length === 1 ? "a comma (a tuple of one dimension is written (n,))" : ", or )");
      }
    }
    return fail("a string, True, False or a tuple");
  };
  const out = new Map<string, DictValue>();
  if (!eat("{")) fail("{");
  for (;;) {
    if (eat("}")) break;
    const key = str();
    if (out.has(key)) fail(`a key other than ${key} again`);
    if (!eat(":")) fail(":");
    out.set(key, value());
    if (eat("}")) break;
    if (!eat(",")) fail(", or }");
  }
  space();
  if (at !== text.length) fail("nothing after the dict but spaces and a newline");
  return out;
}

/**
 * A DeviceArray of the `.npy` bytes `bytes` (NumPy's `np.load` of a file's contents, or `np.lib.format`'s): the
 * dtype, shape and elements the header and data give, C-contiguous (a Fortran-order file is reordered on the
 * device), big-endian data swapped. Bytes after the elements are not read, as `np.load` reads only the first of
 * several arrays saved into one file. ArgumentError for bytes that are not a well-formed `.npy` (saying what is
 * wrong), DTypeError for a dtype cuda-ts has no counterpart of (objects, records, strings, datetimes).
 */
export function fromNpy(bytes: Uint8Array, options: ArrayAllocateOptions): DeviceArray {
  return decode(bytes, options, "fromNpy");
}

function decode(bytes: Uint8Array, options: ArrayAllocateOptions, what: string): DeviceArray {
  if (options === null || typeof options !== "object") throw new TypeError(`${what}: options is { stream, memoryResource? }, not ${describeValue(options)}`);
  const header = readNpyHeader(bytes, what);
  const { dtype, shape, fortranOrder, bigEndian, dataOffset } = header;
  let size = 1;
  for (const n of shape) size *= n;
  const expected = size * dtype.itemsize;
  const got = bytes.length - dataOffset;
  // As np.load, bytes after the array are not read (a second array np.save appended to the same file, say).
  if (got < expected) {
    throw malformed(what, `its header says ${dtype.name} of shape ${tuple(shape)}, ${expected} bytes, but only ${got} bytes follow it (a file cut short?)`);
  }
  const host = allocateHostArray(dtype, size);
  const into = new Uint8Array(host.buffer, host.byteOffset, host.byteLength);
  into.set(bytes.subarray(dataOffset, dataOffset + expected));
  if (bigEndian) {
    const width = dtype.itemsize / dtype.lanes;
    for (let i = 0; i < into.length; i += width) into.subarray(i, i + width).reverse();
  }
  if (!fortranOrder || shape.length < 2) return DeviceArray.from(host, { ...options, dtype, shape: [...shape] });
  // Fortran order: the elements are those of the reversed shape in C order; transposing gives the array, copied
  // row-major so that the result owns its memory.
  const reversed = DeviceArray.from(host, { ...options, dtype, shape: [...shape].reverse() });
  try {
    return reversed.T.copy({ stream: options.stream, ...(options.memoryResource !== undefined ? { memoryResource: options.memoryResource } : {}) });
  } finally {
    reversed.close(options.stream);
  }
}

/**
 * Saves `a` to the `.npy` file `path` (NumPy's `np.save`): `.npy` is appended when the name does not end with it,
 * as NumPy does. A new file is created readable and writable by its owner only (mode 0600: other local users get
 * nothing; `chmod` it to share); an existing file is overwritten and keeps its mode. Reads the array back and waits
 * for the stream. Returns the path written. DTypeError for bfloat16 (NumPy has no such dtype); the file system's
 * error (a missing directory, no permission) as thrown.
 */
export function save(path: string, a: DeviceArray, options?: ArrayOperationOptions): string {
  const action = "save";
  if (typeof path !== "string" || path === "") throw new TypeError(`${action}: path is a file name, not ${describeValue(path)}`);
  const file = path.endsWith(".npy") ? path : `${path}.npy`;
  const bytes = encode(a, options, action);
  writeFileBytes(file, bytes);
  return file;
}

/**
 * Loads the `.npy` file `path` into a new DeviceArray (NumPy's `np.load` of a `.npy`; `.npz` archives are not
 * read): see {@link fromNpy} for what is accepted. NotFoundError when there is no readable file at `path`;
 * ArgumentError for a path that is not a regular file or bytes that are not a well-formed `.npy`.
 */
export function load(path: string, options: ArrayAllocateOptions): DeviceArray {
  const action = "load";
  if (typeof path !== "string" || path === "") throw new TypeError(`${action}: path is a file name, not ${describeValue(path)}`);
  const info = fileInfo(path);
  if (info === undefined) throw new NotFoundError(`${action}: there is no file at ${path} that this process may read; check the path (and, under Deno, --allow-read)`);
  if (!info.isFile) throw new ArgumentError(`${action}: ${path} is not a regular file; give the path of a .npy file`);
  const bytes = readFileBytes(path);
  if (bytes === undefined) throw new NotFoundError(`${action}: ${path} could not be read; check its permissions`);
  if (bytes.length >= 4 && bytes[0] === 0x50 && bytes[1] === 0x4b && bytes[2] === 0x03 && bytes[3] === 0x04) {
    throw new ArgumentError(`${action}: ${path} is a zip archive (NumPy's .npz from savez), which is not read; save each array with np.save instead`);
  }
  return decode(bytes, options, `${action}: ${path}`);
}
