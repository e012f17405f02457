/**
 * An exact reference for rounding a double onto a narrower binary float (binary16, bfloat16): the double is split
 * into an integer mantissa and a power of two with BigInt, and rounded once, to nearest with ties to even, by
 * integer arithmetic. Also the inputs that test rounding hardest: every tie between two neighbouring values of the
 * format, and the doubles just above and below each tie.
 */

/** A binary floating-point format: `p` fraction bits, exponents `emin..emax` for normal numbers. */
export interface FloatFormat {
  readonly p: number;
  readonly emin: number;
  readonly emax: number;
  readonly nanBits: number;
}

/** IEEE 754 binary16. */
export const BINARY16: FloatFormat = { p: 10, emin: -14, emax: 15, nanBits: 0x7e00 };
/** bfloat16 (float32's exponent, 7 fraction bits). */
export const BFLOAT16: FloatFormat = { p: 7, emin: -126, emax: 127, nanBits: 0x7fc0 };

const view = new DataView(new ArrayBuffer(8));

/** The bits of `x` rounded once onto `f` (ties to even), computed exactly. */
export function referenceBits(x: number, f: FloatFormat): number {
  if (Number.isNaN(x)) return f.nanBits;
  view.setFloat64(0, x);
  const sign = view.getUint8(0) & 0x80 ? 0x8000 : 0;
  const infBits = (f.emax - f.emin + 2) << f.p;
  const biased = (view.getUint16(0) >>> 4) & 0x7ff;
  if (biased === 0x7ff) return sign | infBits;
  const frac = view.getBigUint64(0) & ((1n << 52n) - 1n);
  if (biased === 0 && frac === 0n) return sign;
  // |x| = m · 2^k exactly
  const m = biased === 0 ? frac : frac | (1n << 52n);
  const k = (biased === 0 ? 1 : biased) - 1075;
  const e = m.toString(2).length - 1 + k; // floor(log2 |x|)
  const q = Math.max(e, f.emin) - f.p; // the format's spacing near |x| is 2^q
  let n: bigint;
  if (k >= q) n = m << BigInt(k - q);
  else {
    const s = BigInt(q - k);
    n = m >> s;
    const rem = m - (n << s);
    const half = 1n << (s - 1n);
    if (rem > half || (rem === half && (n & 1n) === 1n)) n += 1n;
  }
  // n · 2^q, encoded: in the lowest binade (q = emin - p) the bits are n itself; above it, each binade adds 2^p.
  const bits = BigInt(Math.max(e, f.emin) - f.emin) * (1n << BigInt(f.p)) + n;
  return sign | Number(bits >= BigInt(infBits) ? BigInt(infBits) : bits);
}

/** The value of non-negative finite bits of `f`. */
export function valueOf(bits: number, f: FloatFormat): number {
  const exp = bits >>> f.p;
  const frac = bits & ((1 << f.p) - 1);
  return exp === 0 ? frac * 2 ** (f.emin - f.p) : (frac + 2 ** f.p) * 2 ** (exp - 1 + f.emin - f.p);
}

function nextUp(x: number): number {
  view.setFloat64(0, x);
  view.setBigUint64(0, view.getBigUint64(0) + 1n);
  return view.getFloat64(0);
}

function nextDown(x: number): number {
  view.setFloat64(0, x);
  view.setBigUint64(0, view.getBigUint64(0) - 1n);
  return view.getFloat64(0);
}

/**
 * Every tie of `f` (the midpoint of each pair of neighbouring non-negative finite values, and the midpoint between
 * the largest finite value and the next power of two, which rounds to infinity), each with the doubles just
 * below and above it and a value a little further off (2^-30 of the spacing). Positive and negative.
 */
export function tieCases(f: FloatFormat): number[] {
  const out: number[] = [];
  const last = ((f.emax - f.emin + 2) << f.p) - 1; // the largest finite bits
  for (let b = 0; b <= last; b++) {
    const lo = valueOf(b, f);
    const hi = b === last ? 2 ** (f.emax + 1) : valueOf(b + 1, f);
    const mid = (lo + hi) / 2;
    const off = (hi - lo) * 2 ** -30;
    for (const v of [mid, nextUp(mid), nextDown(mid), mid + off, mid - off]) out.push(v, -v);
  }
  return out;
}
