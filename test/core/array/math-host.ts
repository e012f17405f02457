/**
 * Host references for the array math GPU tests (linalg, fft): matrices as row-major arrays of numbers, complex ones
 * as interleaved [re, im, ...] arrays (the layout `toTypedArraySync` returns), a DFT, and the NumPy fixture.
 */
import { readFileSync } from "node:fs";
import { expect } from "vitest";

/** A fixture entry: real data, or complex as separate real and imaginary parts. */
export interface FixtureArray {
  readonly shape: number[];
  readonly data?: number[];
  readonly re?: number[];
  readonly im?: number[];
}

/** test/fixtures/array-math/numpy.json (made by make-numpy.py beside it). */
export const numpyFixture = JSON.parse(readFileSync(new URL("../../fixtures/array-math/numpy.json", import.meta.url), "utf8")) as Record<string, FixtureArray & Record<string, unknown>>;

/** A fixture entry's values, interleaved for complex ones. */
export function values(f: FixtureArray): number[] {
  if (f.data !== undefined) return f.data;
  const out: number[] = [];
  f.re!.forEach((r, i) => out.push(r, f.im![i]!));
  return out;
}

/** Element-wise closeness with an absolute-plus-relative tolerance, naming the first index that differs. */
export function expectClose(actual: ArrayLike<number>, expected: ArrayLike<number>, tol: number, what = ""): void {
  expect(actual.length, `${what}: length`).toBe(expected.length);
  for (let i = 0; i < expected.length; i++) {
    const a = Number(actual[i]);
    const e = Number(expected[i]);
    if (!(Math.abs(a - e) <= tol * (1 + Math.abs(e)))) expect(a, `${what}: element ${i} (expected ${e})`).toBeCloseTo(e, 10);
  }
}

/** Row-major product of m×k and k×n matrices (complex when `complex`: interleaved). */
export function hostMatmul(a: ArrayLike<number>, b: ArrayLike<number>, m: number, k: number, n: number, complex = false): number[] {
  const w = complex ? 2 : 1;
  const out = new Array<number>(m * n * w).fill(0);
  for (let i = 0; i < m; i++) {
    for (let j = 0; j < n; j++) {
      let re = 0;
      let im = 0;
      for (let p = 0; p < k; p++) {
        if (complex) {
          const ar = a[2 * (i * k + p)]!;
          const ai = a[2 * (i * k + p) + 1]!;
          const br = b[2 * (p * n + j)]!;
          const bi = b[2 * (p * n + j) + 1]!;
          re += ar * br - ai * bi;
          im += ar * bi + ai * br;
        } else re += a[i * k + p]! * b[p * n + j]!;
      }
      if (complex) {
        out[2 * (i * n + j)] = re;
        out[2 * (i * n + j) + 1] = im;
      } else out[i * n + j] = re;
    }
  }
  return out;
}

/** The (conjugate, for complex) transpose of a row-major m×n matrix. */
export function hostAdjoint(a: ArrayLike<number>, m: number, n: number, complex = false): number[] {
  const w = complex ? 2 : 1;
  const out = new Array<number>(m * n * w);
  for (let i = 0; i < m; i++) {
    for (let j = 0; j < n; j++) {
      if (complex) {
        out[2 * (j * m + i)] = a[2 * (i * n + j)]!;
        out[2 * (j * m + i) + 1] = -a[2 * (i * n + j) + 1]!;
      } else out[j * m + i] = a[i * n + j]!;
    }
  }
  return out;
}

/** The identity n×n (interleaved for complex). */
export function hostEye(n: number, complex = false): number[] {
  const w = complex ? 2 : 1;
  const out = new Array<number>(n * n * w).fill(0);
  for (let i = 0; i < n; i++) out[(i * n + i) * w] = 1;
  return out;
}

/** A row-major matrix times diag(d) on the right (d real). */
export function hostScaleColumns(a: ArrayLike<number>, d: ArrayLike<number>, m: number, n: number, complex = false): number[] {
  const w = complex ? 2 : 1;
  return Array.from({ length: m * n * w }, (_, idx) => a[idx]! * d[Math.floor(idx / w) % n]!);
}

/** The DFT of interleaved complex x (n points) along one axis: sign −1 forward, +1 inverse (unnormalised). */
export function hostDft(x: ArrayLike<number>, n: number, sign: -1 | 1): number[] {
  const out = new Array<number>(2 * n).fill(0);
  for (let k = 0; k < n; k++) {
    let re = 0;
    let im = 0;
    for (let t = 0; t < n; t++) {
      const ang = (sign * 2 * Math.PI * k * t) / n;
      const c = Math.cos(ang);
      const s = Math.sin(ang);
      re += x[2 * t]! * c - x[2 * t + 1]! * s;
      im += x[2 * t]! * s + x[2 * t + 1]! * c;
    }
    out[2 * k] = re;
    out[2 * k + 1] = im;
  }
  return out;
}

/** Numbers of a typed array (bigints too). */
export const nums = (a: ArrayLike<number | bigint>): number[] => Array.from(a as ArrayLike<number>, (v) => Number(v));
