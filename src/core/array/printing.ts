/**
 * Arrays as text, as NumPy prints them: `array2string` (what `print(a)` shows) and `arrayRepr` (what `repr(a)` shows:
 * `array([1. , 2.5], dtype=float32)`). Floats are written as NumPy writes them: the shortest digits that identify
 * each value in its own precision (float32 values as float32's), at most `precision` digits after the point
 * (rounded half to even from the exact binary value), aligned on the point, switching to scientific notation when
 * the values span more than three decimal orders of magnitude or reach 1e8; arrays of more than `threshold` elements
 * are summarised with `...`, and lines wrap at `maxLineWidth`.
 *
 * ```ts
 * console.log(await array2string(x));   // [[0.   0.25 0.5 ]
 *                                      //  [0.75 1.   1.25]]
 * console.log(await arrayRepr(y));      // array([1, 2, 3], dtype=int32)
 * ```
 *
 * @module
 */
import { DeviceArray, type ArrayOperationOptions } from "./device-array.ts";
import { decodeBFloat16, decodeHalf, encodeBFloat16, encodeHalf, type DType, type HostArray } from "./dtype.ts";
import { concatenate } from "./ops/shape.ts";
import { ArgumentError } from "../../errors/base.ts";
import { describeValue } from "../../errors/describe.ts";

/** How {@link array2string} and {@link arrayRepr} write an array (NumPy's print options, with NumPy's defaults). */
export interface PrintOptions extends ArrayOperationOptions {
  /** Digits after the point at most (default 8; NumPy's `precision`). */
  readonly precision?: number;
  /** Arrays of more elements than this are summarised with `...` (default 1000). */
  readonly threshold?: number;
  /** Elements shown at each end of a summarised axis (default 3). */
  readonly edgeitems?: number;
  /** Characters per line before elements wrap (default 75; NumPy's `max_line_width`, `linewidth`). */
  readonly maxLineWidth?: number;
  /** Whether very small values print as zero instead of switching to scientific notation (default false). */
  readonly suppressSmall?: boolean;
  /** Between elements (default `" "` in `array2string`, `", "` in `arrayRepr`). */
  readonly separator?: string;
  /** `"-"`: a sign on negative values only (default); `"+"`: on positive ones too; `" "`: a space before positive values. */
  readonly sign?: "-" | "+" | " ";
  /**
   * NumPy's `floatmode`: `"maxprec"` (default: the shortest digits, at most `precision`), `"fixed"` (always
   * `precision` digits), `"unique"` (the shortest digits, however many), `"maxprec_equal"` (as many digits for every
   * element as the longest needs, at most `precision`).
   */
  readonly floatmode?: "maxprec" | "fixed" | "unique" | "maxprec_equal";
}

interface Settings {
  precision: number;
  threshold: number;
  edgeitems: number;
  linewidth: number;
  suppressSmall: boolean;
  separator: string;
  sign: "-" | "+" | " ";
  floatmode: "maxprec" | "fixed" | "unique" | "maxprec_equal";
}

type FloatKind = "float16" | "bfloat16" | "float32" | "float64";

/** NumPy's `finfo(dtype).precision`: the decimal digits each float holds (ml_dtypes' for bfloat16). */
const DECIMAL_DIGITS: Readonly<Record<FloatKind, number>> = { float16: 3, bfloat16: 2, float32: 6, float64: 15 };

// ---- digits of one float ----

const bits64 = new DataView(new ArrayBuffer(8));

/** `x` (finite, > 0) as m·2^e exactly. */
function binaryParts(x: number): { m: bigint; e: number } {
  bits64.setFloat64(0, x);
  const b = bits64.getBigUint64(0);
  const exponent = Number((b >> 52n) & 0x7ffn);
  const fraction = b & 0xfffffffffffffn;
  if (exponent === 0) return { m: fraction, e: -1074 };
  return { m: fraction | (1n << 52n), e: exponent - 1075 };
}

/** round-half-even(num / den) for positive BigInts. */
function divideRoundingEven(num: bigint, den: bigint): bigint {
  const q = num / den;
  const r2 = (num % den) * 2n;
  if (r2 > den || (r2 === den && (q & 1n) === 1n)) return q + 1n;
  return q;
}

/** The exact value of `x` (finite, > 0) times 10^k as a ratio of integers, for any integer k. */
function scaledExactly(x: number, k: number): { num: bigint; den: bigint } {
  const { m, e } = binaryParts(x);
  let num = m;
  let den = 1n;
  if (e >= 0) num <<= BigInt(e);
  else den <<= BigInt(-e);
  if (k >= 0) num *= 10n ** BigInt(k);
  else den *= 10n ** BigInt(-k);
  return { num, den };
}

/** round-half-even(x · 10^k) of the exact value of `x` (finite, > 0), for any integer k. */
function scaledRounded(x: number, k: number): bigint {
  const { num, den } = scaledExactly(x, k);
  return divideRoundingEven(num, den);
}

/** Whether the exact value of `x` (finite, > 0) is at least 10^p. */
function atLeastPowerOfTen(x: number, p: number): boolean {
  const { num, den } = scaledExactly(x, -p);
  return num >= den;
}

/** floor(log10(x)) exactly, for finite x > 0. */
function decimalExponent(x: number): number {
  let e = Number(x.toExponential().split("e")[1]);
  while (!atLeastPowerOfTen(x, e)) e--;
  while (atLeastPowerOfTen(x, e + 1)) e++;
  return e;
}

function roundTo(kind: FloatKind, v: number): number {
  switch (kind) {
    case "float64":
      return v;
    case "float32":
      return Math.fround(v);
    case "float16":
      return decodeHalf(encodeHalf(v));
    case "bfloat16":
      return decodeBFloat16(encodeBFloat16(v));
  }
}

/**
 * The shortest significant digits that read back (rounded to `kind`) as `x` (finite, > 0), and the decimal exponent
 * of the first: x ≈ d.ddd × 10^exp.
 */
function shortest(x: number, kind: FloatKind): { digits: string; exp: number } {
  if (kind !== "float64") {
    // Dragon4's choice: the first digit count at which the digits rounded down or up read back; where both do, the
    // nearer (half to even). Where only one does, that one, though the other is nearer: next to a power of two the
    // floats below are twice as close as those above, so float16 0.015625 prints 0.01563, not 0.015625.
    const exp = decimalExponent(x);
    for (let p = 1; p <= 9; p++) {
      const { down, up, upNearer } = neighbours(x, exp, p);
      const downFits = readsBack(down, p, kind, x);
      const upFits = readsBack(up, p, kind, x);
      if (downFits && upFits) return upNearer ? up : down;
      if (downFits) return down;
      if (upFits) return up;
    }
  }
  // JavaScript's shortest round-trip digits of a double, the closest to x, ties to even (Number::toString).
  const [mantissa, exponent] = x.toExponential().split("e") as [string, string];
  return { digits: mantissa.replace(".", ""), exp: Number(exponent) };
}

/** Whether `p` digits read (as a double, then rounded to `kind`) as `x`. */
function readsBack(c: { digits: string; exp: number }, p: number, kind: FloatKind, x: number): boolean {
  return roundTo(kind, Number(`${c.digits}e${c.exp - p + 1}`)) === x;
}

/**
 * `p` significant digits of `x` (finite, > 0, of decimal exponent `exp`) rounded down and rounded up from its exact
 * value, and whether the rounded-up digits are the nearer (half to even): x ≈ d.ddd × 10^exp.
 */
function neighbours(x: number, exp: number, p: number): { down: { digits: string; exp: number }; up: { digits: string; exp: number }; upNearer: boolean } {
  const { num, den } = scaledExactly(x, p - 1 - exp);
  const q = num / den;
  const r2 = (num % den) * 2n;
  const upNearer = r2 > den || (r2 === den && (q & 1n) === 1n);
  const u = q + 1n;
  const up = u >= 10n ** BigInt(p) ? { digits: (u / 10n).toString(), exp: exp + 1 } : { digits: u.toString(), exp };
  return { down: { digits: q.toString(), exp }, up, upNearer };
}

/** `p` significant digits of `x` (finite, > 0), rounded half to even from its exact value: x ≈ d.ddd × 10^exp. */
function significant(x: number, p: number): { digits: string; exp: number } {
  let exp = decimalExponent(x);
  let n = scaledRounded(x, p - 1 - exp);
  if (n >= 10n ** BigInt(p)) {
    exp += 1;
    n = scaledRounded(x, p - 1 - exp);
  }
  return { digits: n.toString(), exp };
}

type Trim = "k" | "." | "0" | "-";

interface DigitOptions {
  precision: number | undefined;
  unique: boolean;
  trim: Trim;
  minDigits: number;
  sign: boolean;
  padLeft: number;
  padRight: number;
}

function finish(negative: boolean, intPart: string, frac: string, o: DigitOptions, unique: boolean): [string, string] {
  // Digits made to be unique have no trailing zeros (their generation stops); fixed ones keep theirs unless trimmed.
  if (unique || o.trim !== "k") {
    let end = frac.length;
    while (end > o.minDigits && frac[end - 1] === "0") end--;
    frac = frac.slice(0, end);
  }
  if (frac.length < o.minDigits) frac = frac.padEnd(o.minDigits, "0");
  let body = frac === "" ? (o.trim === "0" ? `${intPart}.0` : o.trim === "-" ? intPart : `${intPart}.`) : `${intPart}.${frac}`;
  const signed = negative ? "-" : o.sign ? "+" : "";
  body = signed + body;
  return [body, frac];
}

/** NumPy's `dragon4_positional` (fractional precision), with its padding. */
function positional(x: number, kind: FloatKind, o: DigitOptions): string {
  const negative = x < 0 || Object.is(x, -0);
  const ax = Math.abs(x);
  let intPart = "0";
  let frac = "";
  const unique = o.unique;
  if (ax !== 0) {
    let cut = !o.unique;
    let k = o.precision ?? 0;
    if (o.unique) {
      const { digits, exp } = shortest(ax, kind);
      const point = exp + 1;
      const padded = point <= 0 ? "0".repeat(1 - point) + digits : digits.length < point ? digits.padEnd(point, "0") : digits;
      const at = point <= 0 ? 1 : point;
      intPart = padded.slice(0, at);
      frac = padded.slice(at);
      if (o.precision !== undefined && frac.length > o.precision) cut = true;
      // Fewer digits than minDigits: more of the exact value's digits, the last rounded (Dragon4's min_digits).
      else if (frac.length < o.minDigits) {
        cut = true;
        k = o.minDigits;
      }
    }
    if (cut) {
      const s = scaledRounded(ax, k).toString().padStart(k + 1, "0");
      intPart = s.slice(0, s.length - k);
      frac = s.slice(s.length - k);
    }
  } else if (!o.unique) {
    frac = "0".repeat(o.precision ?? 0);
  }
  const [body, digitsAfter] = finish(negative, intPart, frac, o, unique);
  const point = body.indexOf(".");
  const left = point < 0 ? body.length : point;
  let out = " ".repeat(Math.max(0, o.padLeft - left)) + body;
  if (point >= 0) out += " ".repeat(Math.max(0, o.padRight - digitsAfter.length));
  return out;
}

/** NumPy's `dragon4_scientific`, with its padding and exponent digits. */
function scientific(x: number, kind: FloatKind, o: DigitOptions, expDigits: number): string {
  const negative = x < 0 || Object.is(x, -0);
  const ax = Math.abs(x);
  let digits = "0";
  let exp = 0;
  if (ax !== 0) {
    if (o.unique) {
      ({ digits, exp } = shortest(ax, kind));
      if (o.precision !== undefined && digits.length - 1 > o.precision) ({ digits, exp } = significant(ax, o.precision + 1));
      else if (digits.length - 1 < o.minDigits) ({ digits, exp } = significant(ax, o.minDigits + 1));
    } else {
      ({ digits, exp } = significant(ax, (o.precision ?? 0) + 1));
    }
  } else if (!o.unique) {
    digits = "0".repeat((o.precision ?? 0) + 1);
  }
  const [body] = finish(negative, digits.slice(0, 1), digits.slice(1), o, o.unique);
  const point = body.indexOf(".");
  const left = point < 0 ? body.length : point;
  const e = String(Math.abs(exp)).padStart(Math.max(expDigits, 2), "0");
  return " ".repeat(Math.max(0, o.padLeft - left)) + body + "e" + (exp < 0 ? "-" : "+") + e;
}

// ---- formats of a whole array (NumPy's FloatingFormat, IntegerFormat, BoolFormat, ComplexFloatingFormat) ----

type Format = (j: number) => string;

class FloatFormat {
  private precision: number | undefined;
  private unique = true;
  private trim: Trim = ".";
  private minDigits = 0;
  private padLeft = 0;
  private padRight = 0;
  private expSize = -1;
  private expFormat = false;

  constructor(
    values: readonly number[],
    private readonly kind: FloatKind,
    private readonly s: Settings,
    private readonly sign: "-" | "+" | " ",
  ) {
    this.precision = s.floatmode === "unique" ? undefined : s.precision;
    const finite = values.filter((v) => Number.isFinite(v));
    const nonZero = finite.filter((v) => v !== 0).map((v) => Math.abs(v));
    if (nonZero.length > 0) {
      let max = -Infinity;
      let min = Infinity;
      for (const v of nonZero) {
        if (v > max) max = v;
        if (v < min) min = v;
      }
      // NumPy's cut-off is 10^min(8, decimal digits of the dtype) (finfo's precision: 1e3 for float16, 1e6 for
      // float32), compared in the array's dtype, as are its other constants (weak Python floats).
      const big = roundTo(kind, 10 ** Math.min(8, DECIMAL_DIGITS[kind]));
      const small = roundTo(kind, 0.0001);
      if (max >= big || (!s.suppressSmall && (min < small || roundTo(kind, max / min) > 1000))) this.expFormat = true;
    }
    const digitOptions = (trim: Trim, unique: boolean): DigitOptions => ({ precision: this.precision, unique, trim, minDigits: 0, sign: sign === "+", padLeft: 0, padRight: 0 });
    if (finite.length === 0) {
      this.padLeft = 0;
      this.padRight = 0;
      this.trim = ".";
      this.expSize = -1;
      this.unique = true;
      this.minDigits = 0;
    } else if (this.expFormat) {
      const [trim, unique]: [Trim, boolean] = s.floatmode === "fixed" ? ["k", false] : [".", true];
      const strs = finite.map((v) => scientific(v, kind, digitOptions(trim, unique), -1));
      const parts = strs.map((t) => {
        const [mantissa, exponent] = t.split("e") as [string, string];
        const [int, frac] = mantissa.split(".") as [string, string];
        return { int, frac, exponent };
      });
      this.expSize = Math.max(...parts.map((p) => p.exponent.length)) - 1;
      this.trim = "k";
      this.precision = Math.max(...parts.map((p) => p.frac.length));
      this.minDigits = this.precision;
      this.unique = unique;
      this.padLeft = Math.max(...parts.map((p) => p.int.length));
      this.padRight = this.expSize + 2 + this.precision;
    } else {
      const [trim, unique]: [Trim, boolean] = s.floatmode === "fixed" ? ["k", false] : [".", true];
      const strs = finite.map((v) => positional(v, kind, digitOptions(trim, unique)));
      const parts = strs.map((t) => t.split(".") as [string, string]);
      this.padLeft = Math.max(...parts.map((p) => p[0].length));
      this.padRight = Math.max(...parts.map((p) => p[1].length));
      this.expSize = -1;
      this.unique = unique;
      if (s.floatmode === "fixed" || s.floatmode === "maxprec_equal") {
        this.precision = this.minDigits = this.padRight;
        this.trim = "k";
      } else {
        this.trim = ".";
        this.minDigits = 0;
      }
    }
    if (sign === " " && !finite.some((v) => v < 0 || Object.is(v, -0))) this.padLeft += 1;
    if (values.length !== finite.length) {
      const negInf = sign !== "-" || values.some((v) => v === -Infinity);
      const offset = this.padRight + 1;
      this.padLeft = Math.max(this.padLeft, 3 - offset, 3 + (negInf ? 1 : 0) - offset);
    }
  }

  format(x: number): string {
    if (!Number.isFinite(x)) {
      const text = Number.isNaN(x) ? (this.sign === "+" ? "+nan" : "nan") : (x < 0 ? "-" : this.sign === "+" ? "+" : "") + "inf";
      return " ".repeat(Math.max(0, this.padLeft + this.padRight + 1 - text.length)) + text;
    }
    const o: DigitOptions = { precision: this.precision, unique: this.unique, trim: this.trim, minDigits: this.minDigits, sign: this.sign === "+", padLeft: this.padLeft, padRight: this.padRight };
    return this.expFormat ? scientific(x, this.kind, o, this.expSize) : positional(x, this.kind, o);
  }
}

function floatKind(dtype: DType): FloatKind {
  switch (dtype.name) {
    case "float16":
    case "bfloat16":
    case "float32":
    case "float64":
      return dtype.name;
    case "complex64":
      return "float32";
    default:
      return "float64";
  }
}

/** The format of each element of host data (row-major) of `dtype`, built from all of it (NumPy's `_get_format_function`). */
function formatOf(dtype: DType, host: HostArray, count: number, zeroD: boolean, s: Settings): Format {
  switch (dtype.name) {
    case "bool": {
      const trueText = zeroD ? "True" : " True";
      return (j) => (host[j] !== 0 ? trueText : "False");
    }
    case "float16":
    case "bfloat16": {
      const decode = dtype.name === "float16" ? decodeHalf : decodeBFloat16;
      const values = Array.from({ length: count }, (_, j) => decode(host[j] as number));
      const f = new FloatFormat(values, dtype.name, s, s.sign);
      return (j) => f.format(values[j]!);
    }
    case "float32":
    case "float64": {
      const values = Array.from({ length: count }, (_, j) => host[j] as number);
      const f = new FloatFormat(values, dtype.name, s, s.sign);
      return (j) => f.format(values[j]!);
    }
    case "complex64":
    case "complex128": {
      const kind = floatKind(dtype);
      const re = Array.from({ length: count }, (_, j) => host[2 * j] as number);
      const im = Array.from({ length: count }, (_, j) => host[2 * j + 1] as number);
      const real = new FloatFormat(re, kind, s, s.sign);
      const imag = new FloatFormat(im, kind, s, "+");
      return (j) => {
        const r = real.format(re[j]!);
        const i = imag.format(im[j]!);
        const end = i.trimEnd().length;
        return r + i.slice(0, end) + "j" + i.slice(end);
      };
    }
    default: {
      // Integers: right-aligned to the widest of the largest (with its sign under "+" or " ") and the smallest.
      let max: number | bigint = host[0] as number | bigint;
      let min = max;
      for (let j = 1; j < count; j++) {
        const v = host[j] as number | bigint;
        if (v > max) max = v;
        if (v < min) min = v;
      }
      let sign = s.sign;
      if (sign === " " && min < 0) sign = "-";
      let width = 0;
      if (count > 0) {
        width = String(max).length + (max >= 0 && (sign === "+" || sign === " ") ? 1 : 0);
        width = Math.max(width, String(min).length);
      }
      return (j) => {
        const v = host[j] as number | bigint;
        const text = v >= 0 && sign !== "-" ? sign + String(v) : String(v);
        return text.padStart(width, " ");
      };
    }
  }
}

// ---- layout (NumPy's _formatArray) ----

function extendLine(s: string, line: string, word: string, width: number, nextLinePrefix: string): [string, string] {
  let wrap = line.length + word.length > width;
  if (line.length <= nextLinePrefix.length) wrap = false;
  if (wrap) {
    s += line.trimEnd() + "\n";
    line = nextLinePrefix;
  }
  return [s, line + word];
}

function extendLinePretty(s: string, line: string, word: string, width: number, nextLinePrefix: string): [string, string] {
  const words = word.split("\n");
  if (words.length === 1) return extendLine(s, line, word, width, nextLinePrefix);
  const longest = Math.max(...words.map((w) => w.length));
  let indent: string;
  if (line.length + longest > width && line.length > nextLinePrefix.length) {
    s += line.trimEnd() + "\n";
    line = nextLinePrefix + words[0]!;
    indent = nextLinePrefix;
  } else {
    indent = " ".repeat(line.length);
    line += words[0]!;
  }
  for (const w of words.slice(1)) {
    s += line.trimEnd() + "\n";
    line = indent + w;
  }
  line += " ".repeat(longest - words[words.length - 1]!.length);
  return [s, line];
}

/**
 * @internal Host data as NumPy's `array2string` writes it. `host` holds the elements shown, row-major, of shape
 * `shown`; `shape` is the array's own (an axis longer than `2 · edgeitems` with `summary` shows its edges only, the
 * shown data holding `edgeitems` from each end).
 */
export function formatHost(dtype: DType, host: HostArray, shown: readonly number[], shape: readonly number[], summary: boolean, s: Settings, prefix = "", suffix = ""): string {
  let count = 1;
  for (const n of shown) count *= n;
  if (count === 0) return "[]";
  const format = formatOf(dtype, host, count, shape.length === 0, s);
  const width = s.linewidth - suffix.length;
  const nextLinePrefix = " " + " ".repeat(prefix.length);
  const strides: number[] = new Array<number>(shown.length).fill(1);
  for (let d = shown.length - 2; d >= 0; d--) strides[d] = strides[d + 1]! * shown[d + 1]!;
  const separator = s.separator;
  const recurse = (axis: number, offset: number, hanging: string, currentWidth: number): string => {
    if (axis === shape.length) return format(offset);
    const nextHanging = hanging + " ";
    const nextWidth = currentWidth - 1;
    const length = shape[axis]!;
    const showSummary = summary && 2 * s.edgeitems < length;
    const shownLength = shown[axis]!;
    const leading = showSummary ? s.edgeitems : 0;
    const trailing = showSummary ? s.edgeitems : shownLength;
    const at = (i: number): number => offset + i * strides[axis]!;
    const left = shape.length - axis;
    let out = "";
    if (left === 1) {
      const elementWidth = currentWidth - Math.max(separator.trimEnd().length, 1);
      let line = hanging;
      for (let i = 0; i < leading; i++) {
        [out, line] = extendLinePretty(out, line, recurse(axis + 1, at(i), nextHanging, nextWidth), elementWidth, hanging);
        line += separator;
      }
      if (showSummary) {
        [out, line] = extendLine(out, line, "...", elementWidth, hanging);
        line += separator;
      }
      for (let i = trailing; i > 1; i--) {
        [out, line] = extendLinePretty(out, line, recurse(axis + 1, at(shownLength - i), nextHanging, nextWidth), elementWidth, hanging);
        line += separator;
      }
      [out, line] = extendLinePretty(out, line, recurse(axis + 1, at(shownLength - 1), nextHanging, nextWidth), elementWidth, hanging);
      out += line;
    } else {
      const lineSeparator = separator.trimEnd() + "\n".repeat(left - 1);
      for (let i = 0; i < leading; i++) out += hanging + recurse(axis + 1, at(i), nextHanging, nextWidth) + lineSeparator;
      if (showSummary) out += hanging + "..." + lineSeparator;
      for (let i = trailing; i > 1; i--) out += hanging + recurse(axis + 1, at(shownLength - i), nextHanging, nextWidth) + lineSeparator;
      out += hanging + recurse(axis + 1, at(shownLength - 1), nextHanging, nextWidth);
    }
    return "[" + out.slice(hanging.length) + "]";
  };
  return recurse(0, 0, nextLinePrefix, width);
}

// ---- the public functions ----

const FLOATMODES = ["maxprec", "fixed", "unique", "maxprec_equal"] as const;

function settings(options: PrintOptions | undefined, action: string, separator: string): Settings {
  if (options !== undefined && (typeof options !== "object" || options === null)) throw new TypeError(`${action}: options is an object, not ${describeValue(options)}`);
  const o = options ?? {};
  const count = (name: keyof PrintOptions, fallback: number, least: number): number => {
    const v = o[name] ?? fallback;
    if (typeof v !== "number" || !(Number.isSafeInteger(v) || v === Infinity) || v < least) {
      throw new ArgumentError(`${action}: ${name} is an integer from ${least}${name === "threshold" ? " (or Infinity, never summarise)" : ""}, not ${describeValue(v)}`);
    }
    return v;
  };
  const sep = o.separator ?? separator;
  if (typeof sep !== "string") throw new ArgumentError(`${action}: separator is a string, not ${describeValue(sep)}`);
  const sign = o.sign ?? "-";
  if (sign !== "-" && sign !== "+" && sign !== " ") throw new ArgumentError(`${action}: sign is "-", "+" or " ", not ${describeValue(sign)}`);
  const floatmode = o.floatmode ?? "maxprec";
  if (!(FLOATMODES as readonly string[]).includes(floatmode)) throw new ArgumentError(`${action}: floatmode is one of ${FLOATMODES.map((m) => `"${m}"`).join(", ")}, not ${describeValue(floatmode)}`);
  const suppressSmall = o.suppressSmall ?? false;
  if (typeof suppressSmall !== "boolean") throw new ArgumentError(`${action}: suppressSmall is a boolean, not ${describeValue(suppressSmall)}`);
  const precision = count("precision", 8, 0);
  if (precision > 100) throw new ArgumentError(`${action}: precision is at most 100 digits, not ${precision}`);
  return { precision, threshold: count("threshold", 1000, 0), edgeitems: count("edgeitems", 3, 1), linewidth: count("maxLineWidth", 75, 1), suppressSmall, separator: sep, sign, floatmode };
}

/** The elements shown (every one, or `edgeitems` from each end of each long axis when summarised), read back. */
async function shownElements(a: DeviceArray, s: Settings, options: PrintOptions | undefined): Promise<{ host: HostArray; shown: number[]; summary: boolean }> {
  const summary = a.size > s.threshold;
  let x = a;
  const made: DeviceArray[] = [];
  try {
    if (summary) {
      for (let axis = 0; axis < a.ndim; axis++) {
        const n = x.shape[axis]!;
        if (2 * s.edgeitems >= n) continue;
        const specs = (range: [number, number]) => Array.from({ length: axis + 1 }, (_, d) => (d === axis ? range : null));
        const parts = [x.slice(...specs([0, s.edgeitems])), x.slice(...specs([n - s.edgeitems, n]))];
        x = concatenate(parts, { axis, ...(options?.stream !== undefined ? { stream: options.stream } : {}) });
        made.push(x);
      }
    }
    const host = await x.toTypedArray(options?.stream !== undefined ? { stream: options.stream } : undefined);
    return { host, shown: [...x.shape], summary };
  } finally {
    for (const m of made) m.close();
  }
}

function checkArray(a: unknown, action: string): DeviceArray {
  if (!(a instanceof DeviceArray)) throw new TypeError(`${action}: a is a DeviceArray, not ${describeValue(a)}`);
  return a;
}

/**
 * `a` as text, as NumPy's `array2string` (and `print(a)`) writes it: nested brackets, elements aligned, floats with
 * the shortest digits that identify them (at most `precision` after the point), scientific notation where the
 * values span more than three orders of magnitude, `...` in place of the middle of an array of more than
 * `threshold` elements (only the edges are read back), lines wrapped at `maxLineWidth`. Reads the array back on
 * its stream (or `options.stream`) without blocking the thread. A 0-d array gives its one element; an empty one `[]`.
 *
 * ```ts
 * console.log(await array2string(ca.linspace(0, 1, 5, { stream })));  // [0.   0.25 0.5  0.75 1.  ]
 * ```
 */
export async function array2string(a: DeviceArray, options?: PrintOptions): Promise<string> {
  const action = "array2string";
  checkArray(a, action);
  const s = settings(options, action, " ");
  if (a.size === 0) return "[]";
  const { host, shown, summary } = await shownElements(a, s, options);
  return formatHost(a.dtype, host, shown, a.shape, summary, s);
}

/** The dtypes NumPy's repr leaves out, as the default of their kind: float64, int64, complex128, bool. */
const IMPLIED = new Set(["float64", "int64", "complex128", "bool"]);

/**
 * @internal `repr` of host data: `array(` + the elements with `", "` between them + the dtype when it is not
 * implied by the elements (and the shape when it is not: an empty array, or a summarised one), as NumPy 2 writes them.
 */
export function reprHost(dtype: DType, host: HostArray, shown: readonly number[], shape: readonly number[], summary: boolean, s: Settings): string {
  const prefix = "array(";
  const size = shape.reduce((p, n) => p * n, 1);
  const body = size === 0 ? "[]" : formatHost(dtype, host, shown, shape, summary, s, prefix, ")");
  const extras: string[] = [];
  if ((size === 0 && !(shape.length === 1 && shape[0] === 0)) || summary) extras.push(`shape=(${shape.join(", ")}${shape.length === 1 ? "," : ""})`);
  if (!IMPLIED.has(dtype.name) || size === 0) extras.push(`dtype=${dtype.name}`);
  if (extras.length === 0) return `${prefix}${body})`;
  const text = `${prefix}${body},`;
  const extra = `${extras.join(", ")})`;
  const lastLine = text.length - (text.lastIndexOf("\n") + 1);
  const spacer = lastLine + extra.length + 1 > s.linewidth ? "\n" + " ".repeat(prefix.length) : " ";
  return text + spacer + extra;
}

/**
 * `a` as NumPy's `repr` writes it: `array([1. , 2.5], dtype=float32)`, elements separated by `", "`, the dtype
 * named unless it is the default of its kind (float64, int64, complex128, bool) and the shape named when the
 * elements do not show it (empty or summarised arrays). Reads back as {@link array2string} does.
 */
export async function arrayRepr(a: DeviceArray, options?: PrintOptions): Promise<string> {
  const action = "arrayRepr";
  checkArray(a, action);
  const s = settings(options, action, ", ");
  if (a.size === 0) return reprHost(a.dtype, new Uint8Array(0), a.shape, a.shape, false, s);
  const { host, shown, summary } = await shownElements(a, s, options);
  return reprHost(a.dtype, host, shown, a.shape, summary, s);
}

/** @internal The settings of `options` (for tests of the host formatting). */
export function printSettings(options?: PrintOptions, separator = " "): Settings {
  return settings(options, "printSettings", separator);
}
