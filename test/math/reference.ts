/**
 * CPU references for the math objects' tests: a direct DFT over the last axes of interleaved complex data, dense
 * matrix products, and a deterministic pseudo-random source (no GPU needed; checked in test/math/fft.test.ts).
 */

/** A deterministic generator of floats in [-1, 1) (xorshift32), for test inputs. */
export function seeded(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 2 ** 31 - 1;
  };
}

/**
 * The direct DFT (sum over all points, in float64) of `batch` transforms of sizes `n` (row-major, interleaved
 * re/im), sign -1 forward and +1 inverse, unnormalised.
 */
export function dft(data: ArrayLike<number>, n: readonly number[], batch: number, sign: -1 | 1): Float64Array {
  const points = n.reduce((a, b) => a * b, 1);
  const out = new Float64Array(2 * points * batch);
  const rank = n.length;
  const idx = (flat: number): number[] => {
    const r: number[] = new Array<number>(rank);
    for (let d = rank - 1; d >= 0; d--) {
      r[d] = flat % n[d]!;
      flat = Math.floor(flat / n[d]!);
    }
    return r;
  };
  const coords = Array.from({ length: points }, (_, i) => idx(i));
  for (let b = 0; b < batch; b++) {
    const base = 2 * points * b;
    for (let k = 0; k < points; k++) {
      const kc = coords[k]!;
      let re = 0;
      let im = 0;
      for (let j = 0; j < points; j++) {
        const jc = coords[j]!;
        let phase = 0;
        for (let d = 0; d < rank; d++) phase += (kc[d]! * jc[d]!) / n[d]!;
        const a = sign * 2 * Math.PI * phase;
        const c = Math.cos(a);
        const s = Math.sin(a);
        const xr = data[base + 2 * j]!;
        const xi = data[base + 2 * j + 1]!;
        re += xr * c - xi * s;
        im += xr * s + xi * c;
      }
      out[base + 2 * k] = re;
      out[base + 2 * k + 1] = im;
    }
  }
  return out;
}

/** Real data as interleaved complex (imaginary parts 0). */
export function complexOf(real: ArrayLike<number>): Float64Array {
  const out = new Float64Array(2 * real.length);
  for (let i = 0; i < real.length; i++) out[2 * i] = real[i]!;
  return out;
}

/** The first n/2+1 points of the last axis of each transform (the r2c output layout) from a full complex result. */
export function halfSpectrum(full: ArrayLike<number>, n: readonly number[], batch: number): Float64Array {
  const last = n[n.length - 1]!;
  const half = Math.floor(last / 2) + 1;
  const rows = (n.slice(0, -1).reduce((a, b) => a * b, 1)) * batch;
  const out = new Float64Array(2 * rows * half);
  for (let r = 0; r < rows; r++) {
    for (let j = 0; j < half; j++) {
      out[2 * (r * half + j)] = full[2 * (r * last + j)]!;
      out[2 * (r * half + j) + 1] = full[2 * (r * last + j) + 1]!;
    }
  }
  return out;
}

/** The largest |a[i] - b[i]|. */
export function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) throw new RangeError(`lengths ${a.length} and ${b.length} differ`);
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i]! - b[i]!));
  return m;
}

/** The largest |a[i]|. */
export function maxAbs(a: ArrayLike<number>): number {
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i]!));
  return m;
}

/** Row-major a [m, k] times b [k, n], in float64. */
export function matmul(a: ArrayLike<number>, b: ArrayLike<number>, m: number, k: number, n: number): Float64Array {
  const c = new Float64Array(m * n);
  for (let i = 0; i < m; i++) for (let p = 0; p < k; p++) {
    const x = a[i * k + p]!;
    if (x === 0) continue;
    for (let j = 0; j < n; j++) c[i * n + j] = c[i * n + j]! + x * b[p * n + j]!;
  }
  return c;
}

/** The transpose of row-major a [m, n]. */
export function transpose(a: ArrayLike<number>, m: number, n: number): Float64Array {
  const t = new Float64Array(m * n);
  for (let i = 0; i < m; i++) for (let j = 0; j < n; j++) t[j * m + i] = a[i * n + j]!;
  return t;
}
