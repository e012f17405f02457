/**
 * `eig` and `eigvals` on a real GPU against NumPy 2.4's `numpy.linalg.eig` / `eigvals` (the expected values below are
 * NumPy's, computed once with python3 and written here as literals, each under the NumPy call that gave it): a real
 * matrix with a complex-conjugate pair (complex results, geev's packed vectors unpacked), a real matrix whose
 * eigenvalues are all real (real results), a complex matrix, a batch where one complex pair makes the whole result
 * complex (NumPy's rule), float32, integers, views, empty stacks; every eigenvector checked by a·v = w·v and unit
 * norm, and against NumPy's up to the phase LAPACK leaves free. Eigenvalues are matched to NumPy's irrespective of
 * order (geev does not sort; cuSOLVER's order need not be LAPACK's). Then the errors: NaN and infinity refused (as
 * NumPy's LinAlgError), half precision, non-square matrices. Skips without a GPU.
 */
import { describe, expect, it } from "vitest";
import { ArgumentError, DeviceArray, DTypeError, ShapeMismatchError, type Stream } from "../../../src/index.ts";
import { eig, eigvals } from "../../../src/array-linalg.ts";
import { gpu, skipNote } from "../../support/gpu.ts";
import { nums, onGpuStream } from "../../support/gpu-arrays.ts";

/** A complex number as [re, im]. */
type Cx = readonly [number, number];

/** Interleaved (re, im) values as complex numbers; real values get imaginary part 0. */
const complexes = (h: readonly number[], complex: boolean): Cx[] => (complex ? Array.from({ length: h.length / 2 }, (_, k) => [h[2 * k]!, h[2 * k + 1]!] as const) : h.map((x) => [x, 0] as const));
const mul = (a: Cx, b: Cx): Cx => [a[0] * b[0] - a[1] * b[1], a[0] * b[1] + a[1] * b[0]];
const abs = (a: Cx): number => Math.hypot(a[0], a[1]);
const sub = (a: Cx, b: Cx): Cx => [a[0] - b[0], a[1] - b[1]];

/** For each expected eigenvalue, the index of the closest actual one not taken yet (the two lists as multisets). */
function matchEigenvalues(actual: readonly Cx[], expected: readonly Cx[], tol: number, what: string): number[] {
  expect(actual.length, `${what}: count`).toBe(expected.length);
  const taken = new Set<number>();
  return expected.map((e, j) => {
    let best = -1;
    for (let k = 0; k < actual.length; k++) if (!taken.has(k) && (best < 0 || abs(sub(actual[k]!, e)) < abs(sub(actual[best]!, e)))) best = k;
    expect(abs(sub(actual[best]!, e)), `${what}: eigenvalue ${j} (${e[0]} + ${e[1]}i), closest ${actual[best]}`).toBeLessThanOrEqual(tol * (1 + abs(e)));
    taken.add(best);
    return best;
  });
}

/** Column `j` of a row-major n×n complex matrix. */
const column = (m: readonly Cx[], n: number, j: number): Cx[] => Array.from({ length: n }, (_, i) => m[i * n + j]!);

/**
 * Checks one matrix's eigen-decomposition: a·v_j = w_j·v_j, |v_j| = 1, and each vector equal to NumPy's for the
 * matched eigenvalue up to a unit factor (|⟨expected, actual⟩| = 1; both unit norm, eigenvalues simple).
 */
function checkDecomposition(a: readonly Cx[], w: readonly Cx[], v: readonly Cx[], wNp: readonly Cx[], vNp: readonly Cx[], n: number, tol: number, what: string): void {
  const perm = matchEigenvalues(w, wNp, tol, what);
  const scale = Math.max(1, ...a.map(abs));
  for (let j = 0; j < n; j++) {
    const x = column(v, n, j);
    expect(Math.hypot(...x.map(abs)), `${what}: |v_${j}|`).toBeCloseTo(1, tol < 1e-8 ? 10 : 5);
    for (let i = 0; i < n; i++) {
      let ax: Cx = [0, 0];
      for (let k = 0; k < n; k++) {
        const p = mul(a[i * n + k]!, x[k]!);
        ax = [ax[0] + p[0], ax[1] + p[1]];
      }
      expect(abs(sub(ax, mul(w[j]!, x[i]!))), `${what}: (a·v - w·v)[${i}] of eigenvector ${j}`).toBeLessThanOrEqual(tol * scale * n);
    }
  }
  perm.forEach((k, j) => {
    const e = column(vNp, n, j);
    const g = column(v, n, k);
    let dot: Cx = [0, 0];
    for (let i = 0; i < n; i++) {
      const p = mul([e[i]![0], -e[i]![1]], g[i]!);
      dot = [dot[0] + p[0], dot[1] + p[1]];
    }
    expect(abs(dot), `${what}: eigenvector of eigenvalue ${j} against NumPy's (|⟨e, v⟩|)`).toBeCloseTo(1, tol < 1e-8 ? 9 : 4);
  });
}

// The matrices (row-major).
const A = [1, 2, -3, 7, 4, -2, 4, 2, 1]; // one real eigenvalue and a complex-conjugate pair
const B = [4, 1, 2, 0, 3, 1, 1, 0, 2]; // non-symmetric, three real eigenvalues
const BT = [4, 0, 1, 1, 3, 0, 2, 1, 2]; // B.T
// C = [[2+1j, -1, 1+2j], [2+1j, -3+1j, 2+3j], [1+2j, -1+2j, 1j]], interleaved
const C = [2, 1, -1, 0, 1, 2, 2, 1, -3, 1, 2, 3, 1, 2, -1, 2, 0, 1];

// np.linalg.eig(A).eigenvalues (complex128)
const A_W = [-0.9209318607732451, 0.0, 3.4604659303866243, 2.3235494833250705, 3.4604659303866243, -2.3235494833250705];
// np.linalg.eig(A).eigenvectors (complex128)
const A_V = [
  0.5184757471307634, 0.0, 0.10329383582548911, 0.18614915769781815, 0.10329383582548911, -0.18614915769781815, -0.8265582541543764, 0.0, 0.7610735713361504, 0.0, 0.7610735713361504, -0.0,
  -0.2190533088690188, 0.0, 0.5668409859983004, -0.2326739997828758, 0.5668409859983004, 0.2326739997828758,
];
// np.linalg.eig(B).eigenvalues (float64)
const B_W = [4.8793852415718195, 1.4679111137620455, 2.652703644666139];
// np.linalg.eig(B).eigenvectors (float64)
const B_V = [-0.930579675082307, -0.40700082411021005, 0.20938838461224352, -0.17196417336637032, -0.4992604208614394, -0.9237114413807986, -0.3231869295038535, 0.7649113421402955, 0.32080161697173937];
// np.linalg.eig(B.T).eigenvalues (float64)
const BT_W = [4.879385241571821, 1.467911113762046, 2.652703644666138];
// np.linalg.eig(B.T).eigenvectors (float64)
const BT_V = [-0.6973363381896486, -0.3571999003351751, 0.3000681208758002, -0.3710449155205841, 0.23314567682315107, -0.8640117187159652, -0.6132272842157095, 0.9044618978040013, -0.4042806856078461];
// np.linalg.eig(C).eigenvalues (complex128)
const C_W = [0.14352264734971376, 3.8031280083348307, 0.22290962783311644, 0.853652046653618, -1.3664322751828306, -1.6567800549884493];
// np.linalg.eig(C).eigenvectors (complex128)
const C_V = [
  0.32815047988924684, -0.19876690935585306, -0.13052587746025435, -0.5747485374944769, -0.3263437188832263, -0.012400819846105277, 0.6670345490389847, 0.0, 0.47399022515785416, 0.2031841788964468,
  -0.35516341878035407, 0.5122387133090203, 0.6385415678423618, 0.01177093111677266, 0.6218332331599637, 0.0, 0.7105043584386941, 0.0,
];
// np.linalg.eig(np.array([[0., -1], [1, 0]])) (complex128): eigenvalues, eigenvectors
const R_W = [0.0, 1.0, 0.0, -1.0];
const R_V = [0.7071067811865475, 0.0, 0.7071067811865475, -0.0, 0.0, -0.7071067811865475, 0.0, 0.7071067811865475];
// np.linalg.eig(A.astype(np.float32)).eigenvalues (complex64)
const A32_W = [-0.920931875705719, 0.0, 3.460465908050537, 2.323549509048462, 3.460465908050537, -2.323549509048462];
// np.linalg.eig(B.astype(np.float32)).eigenvalues (float32)
const B32_W = [4.879385471343994, 1.4679111242294312, 2.6527037620544434];
// np.linalg.eig(np.array([[2, 1], [1, 2]], dtype=np.int32)) (float64): eigenvalues, eigenvectors
const I_W = [3.0, 1.0];
const I_V = [0.7071067811865475, -0.7071067811865475, 0.7071067811865475, 0.7071067811865475];
// np.linalg.eigvals(np.stack([B, A])) (complex128, shape [2, 3]): one pair anywhere makes the whole batch complex
const BA_W = [4.8793852415718195, 0.0, 1.4679111137620455, 0.0, 2.652703644666139, 0.0, -0.9209318607732451, 0.0, 3.4604659303866243, 2.3235494833250705, 3.4604659303866243, -2.3235494833250705];

describe.skipIf(!gpu.available)(`eig and eigvals on a GPU${skipNote}`, () => {
  let stream: Stream;
  onGpuStream((s) => (stream = s));

  const f64 = (data: readonly number[], shape: readonly number[]): DeviceArray => DeviceArray.from(Float64Array.from(data), { stream, shape });
  const f32 = (data: readonly number[], shape: readonly number[]): DeviceArray => DeviceArray.from(Float32Array.from(data), { stream, shape });
  const c128 = (interleaved: readonly number[], shape: readonly number[]): DeviceArray => DeviceArray.from(Float64Array.from(interleaved), { stream, shape, dtype: "complex128" });
  const host = (a: DeviceArray): number[] => nums(a.toTypedArraySync({ stream }));
  const cx = (a: DeviceArray): Cx[] => complexes(host(a), a.dtype.kind === "c");

  it("a real matrix with a complex-conjugate pair: complex128 results, the packed vectors unpacked, NumPy's values", () => {
    using a = f64(A, [3, 3]);
    const { eigenvalues: w, eigenvectors: v } = eig(a);
    using _w = w;
    using _v = v;
    expect(w.dtype.name).toBe("complex128");
    expect(v.dtype.name).toBe("complex128");
    expect(w.shape).toEqual([3]);
    expect(v.shape).toEqual([3, 3]);
    expect(w.stream).toBe(stream);
    checkDecomposition(complexes(A, false), cx(w), cx(v), complexes(A_W, true), complexes(A_V, true), 3, 1e-12, "A");
    // The pair's vectors are conjugates of one another.
    const ws = cx(w);
    const vs = cx(v);
    const p = ws.findIndex((z) => z[1] > 0);
    const q = ws.findIndex((z) => z[1] < 0);
    expect(p).toBeGreaterThanOrEqual(0);
    expect(q).toBeGreaterThanOrEqual(0);
    for (let i = 0; i < 3; i++) {
      expect(vs[i * 3 + q]![0]).toBeCloseTo(vs[i * 3 + p]![0], 12);
      expect(vs[i * 3 + q]![1]).toBeCloseTo(-vs[i * 3 + p]![1], 12);
    }
    using e = eigvals(a);
    expect(e.dtype.name).toBe("complex128");
    matchEigenvalues(cx(e), complexes(A_W, true), 1e-12, "eigvals(A)");
    // The input is left as it was (geev overwrites a copy).
    expect(host(a)).toEqual(A);
  });

  it("a real matrix whose eigenvalues are all real: float64 eigenvalues and eigenvectors, as NumPy's", () => {
    using b = f64(B, [3, 3]);
    const { eigenvalues: w, eigenvectors: v } = eig(b);
    using _w = w;
    using _v = v;
    expect(w.dtype.name).toBe("float64");
    expect(v.dtype.name).toBe("float64");
    checkDecomposition(complexes(B, false), cx(w), cx(v), complexes(B_W, false), complexes(B_V, false), 3, 1e-12, "B");
    using e = eigvals(b);
    expect(e.dtype.name).toBe("float64");
    matchEigenvalues(cx(e), complexes(B_W, false), 1e-12, "eigvals(B)");
    // A transposed view: eig(B.T), as NumPy's.
    const t = eig(b.T);
    using _tw = t.eigenvalues;
    using _tv = t.eigenvectors;
    expect(t.eigenvalues.dtype.name).toBe("float64");
    checkDecomposition(complexes(BT, false), cx(t.eigenvalues), cx(t.eigenvectors), complexes(BT_W, false), complexes(BT_V, false), 3, 1e-12, "B.T");
  });

  it("a complex matrix: complex128 results as NumPy's; a real matrix with eigenvalues ±i", () => {
    using c = c128(C, [3, 3]);
    const { eigenvalues: w, eigenvectors: v } = eig(c);
    using _w = w;
    using _v = v;
    expect(w.dtype.name).toBe("complex128");
    expect(v.dtype.name).toBe("complex128");
    checkDecomposition(complexes(C, true), cx(w), cx(v), complexes(C_W, true), complexes(C_V, true), 3, 1e-12, "C");
    using e = eigvals(c);
    matchEigenvalues(cx(e), complexes(C_W, true), 1e-12, "eigvals(C)");
    using r = f64([0, -1, 1, 0], [2, 2]);
    const rot = eig(r);
    using _rw = rot.eigenvalues;
    using _rv = rot.eigenvectors;
    expect(rot.eigenvalues.dtype.name).toBe("complex128");
    checkDecomposition(complexes([0, -1, 1, 0], false), cx(rot.eigenvalues), cx(rot.eigenvectors), complexes(R_W, true), complexes(R_V, true), 2, 1e-12, "rotation");
  });

  it("a batch: complex when any matrix of it has a complex pair (NumPy's rule over the whole batch), real otherwise", () => {
    using ba = f64([...B, ...A], [2, 3, 3]);
    const { eigenvalues: w, eigenvectors: v } = eig(ba);
    using _w = w;
    using _v = v;
    expect(w.dtype.name).toBe("complex128");
    expect(w.shape).toEqual([2, 3]);
    expect(v.shape).toEqual([2, 3, 3]);
    const ws = cx(w);
    const vs = cx(v);
    checkDecomposition(complexes(B, false), ws.slice(0, 3), vs.slice(0, 9), complexes(B_W, false), complexes(B_V, false), 3, 1e-12, "batch: B");
    checkDecomposition(complexes(A, false), ws.slice(3), vs.slice(9), complexes(A_W, true), complexes(A_V, true), 3, 1e-12, "batch: A");
    // B's eigenvalues come as complex numbers of imaginary part 0.
    for (const z of ws.slice(0, 3)) expect(z[1]).toBe(0);
    using e = eigvals(ba);
    expect(e.dtype.name).toBe("complex128");
    const es = cx(e);
    const expected = complexes(BA_W, true);
    matchEigenvalues(es.slice(0, 3), expected.slice(0, 3), 1e-12, "eigvals batch: B");
    matchEigenvalues(es.slice(3), expected.slice(3), 1e-12, "eigvals batch: A");
    using bb = f64([...B, ...BT], [2, 3, 3]);
    const real = eig(bb);
    using _rw = real.eigenvalues;
    using _rv = real.eigenvectors;
    expect(real.eigenvalues.dtype.name).toBe("float64");
    expect(real.eigenvectors.dtype.name).toBe("float64");
    const rw = cx(real.eigenvalues);
    const rv = cx(real.eigenvectors);
    checkDecomposition(complexes(B, false), rw.slice(0, 3), rv.slice(0, 9), complexes(B_W, false), complexes(B_V, false), 3, 1e-12, "batch: B");
    checkDecomposition(complexes(BT, false), rw.slice(3), rv.slice(9), complexes(BT_W, false), complexes(BT_V, false), 3, 1e-12, "batch: B.T");
  });

  it("float32 computes in float32 (complex64 for a pair, float32 otherwise); integers in float64", () => {
    using a = f32(A, [3, 3]);
    const r = eig(a);
    using _w = r.eigenvalues;
    using _v = r.eigenvectors;
    expect(r.eigenvalues.dtype.name).toBe("complex64");
    expect(r.eigenvectors.dtype.name).toBe("complex64");
    checkDecomposition(complexes(A, false), cx(r.eigenvalues), cx(r.eigenvectors), complexes(A32_W, true), complexes(A_V, true), 3, 1e-5, "float32 A");
    using b = f32(B, [3, 3]);
    using e = eigvals(b);
    expect(e.dtype.name).toBe("float32");
    matchEigenvalues(cx(e), complexes(B32_W, false), 1e-5, "float32 B");
    using i = DeviceArray.from(Int32Array.from([2, 1, 1, 2]), { stream, shape: [2, 2] });
    const ri = eig(i);
    using _iw = ri.eigenvalues;
    using _iv = ri.eigenvectors;
    expect(ri.eigenvalues.dtype.name).toBe("float64");
    expect(ri.eigenvectors.dtype.name).toBe("float64");
    checkDecomposition(complexes([2, 1, 1, 2], false), cx(ri.eigenvalues), cx(ri.eigenvectors), complexes(I_W, false), complexes(I_V, false), 2, 1e-12, "int32");
  });

  it("1×1 and empty stacks: NumPy's shapes, float64", () => {
    using one = f64([5], [1, 1]);
    const r = eig(one);
    using _w = r.eigenvalues;
    using _v = r.eigenvectors;
    expect(host(r.eigenvalues)).toEqual([5]);
    expect(host(r.eigenvectors)).toEqual([1]);
    for (const shape of [[0, 0], [2, 0, 0], [0, 3, 3]]) {
      using z = DeviceArray.empty(shape, "float64", { stream });
      const e = eig(z);
      using _ew = e.eigenvalues;
      using _ev = e.eigenvectors;
      expect(e.eigenvalues.shape, `${shape}`).toEqual(shape.slice(0, -1));
      expect(e.eigenvectors.shape, `${shape}`).toEqual(shape);
      expect(e.eigenvalues.dtype.name).toBe("float64");
      using vals = eigvals(z);
      expect(vals.shape).toEqual(shape.slice(0, -1));
      expect(vals.dtype.name).toBe("float64");
    }
  });

  it("refuses NaN and infinity (NumPy's LinAlgError), half precision and matrices that are not square", () => {
    using n = f64([1, Number.NaN, 0, 1], [2, 2]);
    expect(() => eig(n)).toThrow(ArgumentError);
    expect(() => eigvals(n)).toThrow(/finite/);
    using inf = c128([1, 0, 0, Number.POSITIVE_INFINITY, 0, 0, 1, 0], [2, 2]);
    expect(() => eig(inf)).toThrow(/NaN or infinity/);
    using h = DeviceArray.zeros([2, 2], "float16", { stream });
    expect(() => eig(h)).toThrow(DTypeError);
    using rect = f64([1, 2, 3, 4, 5, 6], [2, 3]);
    expect(() => eigvals(rect)).toThrow(ShapeMismatchError);
  });
});
