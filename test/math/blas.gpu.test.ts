/**
 * `Blas` and `BlasLt` on a real GPU against CPU references (float64 on the CPU), on both runtimes.
 *
 * Tolerances, relative to the largest |reference| of the result (at least 1): float64 and complex128 1e-12, float32
 * and complex64 1e-5, float16 2e-3 (its output rounding is 2^-11), bfloat16 1.6e-2 (2^-8), TF32 products 5e-3
 * (10 fraction bits), float16 compute "16f" 3e-2 (it accumulates in float16 too). Inputs of float16/bfloat16 are small multiples of 1/4, exact in
 * both formats, so only the output and accumulation round. Skips without a GPU.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ArrayLayoutError,
  ClosedError,
  DTypeError,
  Device,
  DeviceArray,
  DeviceMismatchError,
  LaunchConfig,
  Program,
  ShapeMismatchError,
  decodeBFloat16,
  decodeHalf,
  encodeBFloat16,
  encodeHalf,
  type DTypeName,
  launch,
  u64,
  type HostArray,
  type Stream,
} from "../../src/index.ts";
import { Blas, BlasLt } from "../../src/math-blas.ts";
import { gpu, skipNote } from "../support/gpu.ts";

/** A kernel that runs `ns` nanoseconds of the GPU's global timer (keeps a stream busy for a set time). */
const SPIN = `
extern "C" __global__ void spin(unsigned long long ns, unsigned* out) {
  unsigned long long t0, t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  do { asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); } while (t - t0 < ns);
  if (threadIdx.x == 0) out[0] = 1;
}`;

type FloatName = "float16" | "bfloat16" | "float32" | "float64" | "complex64" | "complex128";

const TOL: Record<FloatName, number> = { float16: 2e-3, bfloat16: 1.6e-2, float32: 1e-5, float64: 1e-12, complex64: 1e-5, complex128: 1e-12 };
const isComplex = (d: DTypeName): boolean => d === "complex64" || d === "complex128";

/** Deterministic values: multiples of 1/4 in [-2, 2] (exact in every float dtype). */
function values(n: number, seed: number): number[] {
  let s = (seed * 2654435761) >>> 0;
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out.push(((s >>> 16) % 17) / 4 - 2);
  }
  return out;
}

/** Host typed array of a dtype from plain numbers (complex: interleaved re, im). */
function host(dtype: DTypeName, v: readonly number[]): HostArray {
  switch (dtype) {
    case "float16":
      return Uint16Array.from(v, encodeHalf);
    case "bfloat16":
      return Uint16Array.from(v, encodeBFloat16);
    case "float32":
    case "complex64":
      return Float32Array.from(v);
    case "int8":
      return Int8Array.from(v);
    case "int32":
      return Int32Array.from(v);
    default:
      return Float64Array.from(v);
  }
}

function numbers(dtype: DTypeName, h: HostArray): number[] {
  if (dtype === "float16") return Array.from(h as Uint16Array, decodeHalf);
  if (dtype === "bfloat16") return Array.from(h as Uint16Array, decodeBFloat16);
  return Array.from(h as ArrayLike<number>);
}

/** Row-major C[m,n] = A[m,k]·B[k,n] in float64 (complex: interleaved pairs). */
function matmulRef(a: readonly number[], b: readonly number[], m: number, n: number, k: number, complex: boolean): number[] {
  const out = new Array<number>(m * n * (complex ? 2 : 1)).fill(0);
  for (let i = 0; i < m; i++) {
    for (let j = 0; j < n; j++) {
      let re = 0;
      let im = 0;
      for (let l = 0; l < k; l++) {
        if (complex) {
          const [ar, ai, br, bi] = [a[2 * (i * k + l)]!, a[2 * (i * k + l) + 1]!, b[2 * (l * n + j)]!, b[2 * (l * n + j) + 1]!];
          re += ar * br - ai * bi;
          im += ar * bi + ai * br;
        } else re += a[i * k + l]! * b[l * n + j]!;
      }
      if (complex) {
        out[2 * (i * n + j)] = re;
        out[2 * (i * n + j) + 1] = im;
      } else out[i * n + j] = re;
    }
  }
  return out;
}

/** Transposes a row-major [r, c] list (complex: pairs move together). */
function transposeList(v: readonly number[], r: number, c: number, lanes: number): number[] {
  const out = new Array<number>(v.length);
  for (let i = 0; i < r; i++) for (let j = 0; j < c; j++) for (let q = 0; q < lanes; q++) out[(j * r + i) * lanes + q] = v[(i * c + j) * lanes + q]!;
  return out;
}

function expectClose(got: readonly number[], want: readonly number[], tol: number, what: string): void {
  expect(got.length, what).toBe(want.length);
  let scale = 1;
  for (const w of want) scale = Math.max(scale, Math.abs(w));
  let worst = 0;
  let at = -1;
  for (let i = 0; i < want.length; i++) {
    const e = Math.abs(got[i]! - want[i]!);
    if (!(e <= worst)) {
      worst = e;
      at = i;
    }
  }
  expect(worst / scale, `${what}: worst error ${worst} at ${at} (got ${got[at]}, want ${want[at]}), scale ${scale}`).toBeLessThanOrEqual(tol);
}

describe.skipIf(!gpu.available)(`Blas and BlasLt on a GPU${skipNote}`, () => {
  let dev: Device;
  let stream: Stream;
  let blas: Blas;
  let lt: BlasLt;
  const live: DeviceArray[] = [];

  /** A device array of logical row-major values, laid out as asked: plain, as a transposed view, or as a slice of a larger array. */
  function arrayOf(dtype: DTypeName, v: readonly number[], shape: [number, number], layout: "plain" | "T" | "slice" = "plain"): DeviceArray {
    const [r, c] = shape;
    const lanes = isComplex(dtype) ? 2 : 1;
    let a: DeviceArray;
    if (layout === "plain") a = DeviceArray.from(host(dtype, v), { stream, dtype, shape });
    else if (layout === "T") {
      const base = DeviceArray.from(host(dtype, transposeList(v, r, c, lanes)), { stream, dtype, shape: [c, r] });
      live.push(base);
      a = base.T;
    } else {
      // Inside an (r + 3) x (c + 5) array of sentinels, at rows 1..r, columns 2..c+1.
      const big = new Array<number>((r + 3) * (c + 5) * lanes).fill(7);
      for (let i = 0; i < r; i++) for (let j = 0; j < c; j++) for (let q = 0; q < lanes; q++) big[((i + 1) * (c + 5) + j + 2) * lanes + q] = v[(i * c + j) * lanes + q]!;
      const base = DeviceArray.from(host(dtype, big), { stream, dtype, shape: [r + 3, c + 5] });
      live.push(base);
      a = base.slice([1, r + 1], [2, c + 2]);
    }
    live.push(a);
    return a;
  }

  async function read(a: DeviceArray): Promise<number[]> {
    return numbers(a.dtype.name, await a.toTypedArray({ stream }));
  }

  beforeAll(() => {
    dev = new Device(0);
    dev.setCurrent();
    stream = dev.createStream();
    blas = new Blas({ stream });
    lt = new BlasLt({ stream });
  });

  afterAll(() => {
    stream?.sync();
    for (const a of live) a.close();
    lt?.close();
    blas?.close();
    stream?.close();
  });

  const dtypeList: FloatName[] = ["float16", "bfloat16", "float32", "float64", "complex64", "complex128"];
  const sizes: [number, number, number][] = [
    [33, 17, 45],
    [64, 64, 64],
    [1, 7, 3],
    [100, 1, 9],
    [5, 130, 1],
  ];

  it.each(dtypeList)("gemm in %s matches the CPU at sizes that are not multiples of 8", async (dtype) => {
    const lanes = isComplex(dtype) ? 2 : 1;
    for (const [m, n, k] of sizes) {
      const av = values(m * k * lanes, m + k);
      const bv = values(k * n * lanes, n + 3);
      const a = arrayOf(dtype, av, [m, k]);
      const b = arrayOf(dtype, bv, [k, n]);
      const c = arrayOf(dtype, new Array<number>(m * n * lanes).fill(0), [m, n]);
      expect(blas.gemm(a, b, c)).toBe(c);
      expectClose(await read(c), matmulRef(av, bv, m, n, k, lanes === 2), TOL[dtype], `${dtype} ${m}x${n}x${k}`);
    }
  });

  it.each(dtypeList)("gemm in %s reads transposed and sliced views in place, and writes a transposed C", async (dtype) => {
    const lanes = isComplex(dtype) ? 2 : 1;
    const [m, n, k] = [19, 23, 29];
    const av = values(m * k * lanes, 1);
    const bv = values(k * n * lanes, 2);
    const want = matmulRef(av, bv, m, n, k, lanes === 2);
    const layouts = ["plain", "T", "slice"] as const;
    for (const la of layouts) {
      for (const lb of layouts) {
        for (const lc of ["plain", "T", "slice"] as const) {
          const c = arrayOf(dtype, new Array<number>(m * n * lanes).fill(0), [m, n], lc);
          blas.gemm(arrayOf(dtype, av, [m, k], la), arrayOf(dtype, bv, [k, n], lb), c);
          expectClose(await read(c), want, TOL[dtype], `${dtype} A ${la}, B ${lb}, C ${lc}`);
        }
      }
    }
  });

  it("takes alpha and beta (complex ones too) and keeps C's old values with beta", async () => {
    const [m, n, k] = [9, 11, 13];
    const av = values(m * k, 3);
    const bv = values(k * n, 4);
    const cv = values(m * n, 5);
    const c = arrayOf("float64", cv, [m, n]);
    blas.gemm(arrayOf("float64", av, [m, k]), arrayOf("float64", bv, [k, n]), c, { alpha: 2, beta: 0.5 });
    const ab = matmulRef(av, bv, m, n, k, false);
    expectClose(await read(c), ab.map((x, i) => 2 * x + 0.5 * cv[i]!), 1e-12, "alpha 2, beta 0.5");
    // Complex alpha = i: C = i·A·B.
    const ac = values(m * k * 2, 6);
    const bc = values(k * n * 2, 7);
    const cc = arrayOf("complex128", new Array<number>(m * n * 2).fill(0), [m, n]);
    blas.gemm(arrayOf("complex128", ac, [m, k]), arrayOf("complex128", bc, [k, n]), cc, { alpha: [0, 1] });
    const p = matmulRef(ac, bc, m, n, k, true);
    const times_i = p.map((_, i) => (i % 2 === 0 ? -p[i + 1]! : p[i - 1]!));
    expectClose(await read(cc), times_i, 1e-12, "alpha i");
    // Device scalars (pointer mode "device"): alpha = 3, beta = 0.
    const alpha = arrayOf("float64", [3], [1, 1]).reshape([1]);
    const beta = arrayOf("float64", [0], [1, 1]).reshape([1]);
    const c2 = arrayOf("float64", new Array<number>(m * n).fill(1), [m, n]);
    blas.gemm(arrayOf("float64", av, [m, k]), arrayOf("float64", bv, [k, n]), c2, { alpha, beta });
    expect(blas.pointerMode).toBe("device");
    expectClose(await read(c2), ab.map((x) => 3 * x), 1e-12, "device alpha 3");
  });

  it("computes in the compute type asked: 16f, TF32 (as compute type and as math mode), mixed precision in gemmEx", async () => {
    const [m, n, k] = [40, 24, 72];
    const av = values(m * k, 8).map((x) => x + 1 / 3); // not exact in TF32: the products round
    const bv = values(k * n, 9);
    const want = matmulRef(av, bv, m, n, k, false);
    const a32 = arrayOf("float32", av, [m, k]);
    const b32 = arrayOf("float32", bv, [k, n]);
    const c32 = arrayOf("float32", new Array<number>(m * n).fill(0), [m, n]);
    blas.gemm(a32, b32, c32, { compute: "32f-fast-tf32" });
    expectClose(await read(c32), want, 5e-3, "tf32 compute type");
    blas.mathMode = "tf32";
    expect(blas.mathMode).toBe("tf32");
    blas.gemm(a32, b32, c32);
    expectClose(await read(c32), want, 5e-3, "tf32 math mode");
    blas.mathMode = "pedantic";
    blas.gemm(a32, b32, c32);
    expectClose(await read(c32), want, 1e-5, "pedantic");
    blas.mathMode = "default";
    blas.reducedPrecisionReduction = false;
    expect(blas.reducedPrecisionReduction).toBe(false);
    blas.reducedPrecisionReduction = true;
    // float16 in 16f, and float16/bfloat16 into float32 C (gemmEx).
    const hv = values(m * k, 10);
    const want16 = matmulRef(hv, bv, m, n, k, false);
    const c16 = arrayOf("float16", new Array<number>(m * n).fill(0), [m, n]);
    blas.gemm(arrayOf("float16", hv, [m, k]), arrayOf("float16", bv, [k, n]), c16, { compute: "16f" });
    expectClose(await read(c16), want16, 3e-2, "float16, compute 16f");
    for (const dt of ["float16", "bfloat16"] as const) {
      const cf = arrayOf("float32", new Array<number>(m * n).fill(0), [m, n]);
      blas.gemmEx(arrayOf(dt, hv, [m, k]), arrayOf(dt, bv, [k, n]), cf);
      expectClose(await read(cf), want16, 1e-6, `${dt} into float32`);
    }
    // The emulation strategy is a handle setting (cuBLAS 12.9 and newer).
    blas.emulationStrategy = "eager";
    expect(blas.emulationStrategy).toBe("eager");
    blas.emulationStrategy = "default";
  });

  it("runs strided batches (an input shared by every entry too) and batches of separate arrays", async () => {
    const [batch, m, n, k] = [5, 12, 9, 17];
    for (const dtype of ["float32", "float16", "complex64"] as const) {
      const lanes = isComplex(dtype) ? 2 : 1;
      const av = values(batch * m * k * lanes, 11);
      const bv = values(batch * k * n * lanes, 12);
      const a = DeviceArray.from(host(dtype, av), { stream, dtype, shape: [batch, m, k] });
      const b = DeviceArray.from(host(dtype, bv), { stream, dtype, shape: [batch, k, n] });
      const c = DeviceArray.zeros([batch, m, n], dtype, { stream });
      live.push(a, b, c);
      blas.gemmStridedBatched(a, b, c);
      const got = await read(c);
      const per = m * n * lanes;
      for (let t = 0; t < batch; t++) {
        const want = matmulRef(av.slice(t * m * k * lanes, (t + 1) * m * k * lanes), bv.slice(t * k * n * lanes, (t + 1) * k * n * lanes), m, n, k, lanes === 2);
        expectClose(got.slice(t * per, (t + 1) * per), want, TOL[dtype], `${dtype} batch ${t}`);
      }
      // B shared: a 2-D B used for every entry.
      const b0 = b.subarray(0, 1).reshape([k, n]);
      live.push(b0);
      blas.gemmStridedBatched(a, b0, c);
      const shared = await read(c);
      for (let t = 0; t < batch; t++) {
        const want = matmulRef(av.slice(t * m * k * lanes, (t + 1) * m * k * lanes), bv.slice(0, k * n * lanes), m, n, k, lanes === 2);
        expectClose(shared.slice(t * per, (t + 1) * per), want, TOL[dtype], `${dtype} shared B, batch ${t}`);
      }
    }
    // gemmBatched: separate arrays.
    const as = [0, 1, 2].map((i) => arrayOf("float64", values(m * k, 20 + i), [m, k]));
    const bs = [0, 1, 2].map((i) => arrayOf("float64", values(k * n, 30 + i), [k, n], "T"));
    const cs = [0, 1, 2].map(() => arrayOf("float64", new Array<number>(m * n).fill(0), [m, n]));
    blas.gemmBatched(as, bs, cs);
    for (let i = 0; i < 3; i++) expectClose(await read(cs[i]!), matmulRef(values(m * k, 20 + i), values(k * n, 30 + i), m, n, k, false), 1e-12, `gemmBatched ${i}`);
  });

  it("matmul allocates C", async () => {
    const a = arrayOf("float32", values(6 * 4, 1), [6, 4]);
    const b = arrayOf("float32", values(4 * 5, 2), [4, 5]);
    const c = blas.matmul(a as DeviceArray<"float32">, b as DeviceArray<"float32">);
    live.push(c);
    expect(c.shape).toEqual([6, 5]);
    expectClose(await read(c), matmulRef(values(24, 1), values(20, 2), 6, 5, 4, false), 1e-5, "matmul");
  });

  it("gemv with row-major and transposed A and strided (also reversed) vectors, in every dtype it takes", async () => {
    const [m, n] = [37, 21];
    for (const dtype of ["float32", "float64", "complex64", "complex128"] as const) {
      const lanes = isComplex(dtype) ? 2 : 1;
      const av = values(m * n * lanes, 40);
      const xv = values(n * lanes, 41);
      const want = matmulRef(av, xv, m, 1, n, lanes === 2);
      for (const la of ["plain", "T"] as const) {
        const a = arrayOf(dtype, av, [m, n], la);
        // x as every other element of a 2n array; y reversed.
        const xs = new Array<number>(2 * n * lanes).fill(9);
        for (let i = 0; i < n; i++) for (let q = 0; q < lanes; q++) xs[2 * i * lanes + q] = xv[i * lanes + q]!;
        const xbig = DeviceArray.from(host(dtype, xs), { stream, dtype, shape: [2 * n] });
        const x = xbig.slice([0, null, 2]);
        const ybase = DeviceArray.zeros([m], dtype, { stream });
        const y = ybase.slice([null, null, -1]);
        live.push(xbig, x, ybase, y);
        blas.gemv(a, x, y);
        expectClose(await read(y), want, TOL[dtype], `gemv ${dtype} A ${la}`);
      }
    }
  });

  it("axpy, scal, dot (and dotc), nrm2, amax: host results, device results, reversed views", async () => {
    const n = 1000;
    const xv = values(n, 50);
    const yv = values(n, 51);
    for (const dtype of ["float16", "bfloat16", "float32", "float64"] as const) {
      const x = arrayOf(dtype, xv, [1, n]).reshape([n]);
      const y = arrayOf(dtype, yv, [1, n]).reshape([n]);
      live.push(x, y);
      const dot = blas.dot(x, y) as number;
      const dotRef = xv.reduce((s, v, i) => s + v * yv[i]!, 0);
      expect(Math.abs(dot - dotRef), `dot ${dtype}: ${dot} vs ${dotRef}`).toBeLessThanOrEqual(TOL[dtype] * Math.max(1, Math.abs(dotRef)) * 4);
      const nrm = blas.nrm2(x);
      const nrmRef = Math.sqrt(xv.reduce((s, v) => s + v * v, 0));
      expect(Math.abs(nrm - nrmRef), `nrm2 ${dtype}`).toBeLessThanOrEqual(TOL[dtype] * nrmRef * 4);
      blas.axpy(0.5, x, y); // y += x/2: exact in every dtype for these values
      expectClose(await read(y), yv.map((v, i) => v + 0.5 * xv[i]!), TOL[dtype], `axpy ${dtype}`);
      blas.scal(-2, y);
      expectClose(await read(y), yv.map((v, i) => -2 * (v + 0.5 * xv[i]!)), TOL[dtype], `scal ${dtype}`);
    }
    // amax: the first largest |x|; on a reversed view the index counts in the view's order.
    const av = values(n, 52);
    av[617] = 9;
    av[618] = -9;
    const x = arrayOf("float32", av, [1, n]).reshape([n]);
    live.push(x);
    expect(blas.amax(x)).toBe(617);
    const rev = x.slice([null, null, -1]);
    live.push(rev);
    const ri = blas.amax(rev);
    expect([n - 1 - 617, n - 1 - 618]).toContain(ri);
    expect(Math.abs(av[n - 1 - ri]!)).toBe(9);
    // nrm2 of a reversed, strided view is that of its elements.
    const every3 = x.slice([null, null, -3]);
    live.push(every3);
    const picked = Array.from({ length: every3.shape[0]! }, (_, i) => av[n - 1 - 3 * i]!);
    expect(blas.nrm2(every3)).toBeCloseTo(Math.sqrt(picked.reduce((s, v) => s + v * v, 0)), 3);
    // dot with a reversed y: x · reverse(y).
    const y = arrayOf("float64", yv, [1, n]).reshape([n]);
    const x64 = arrayOf("float64", xv, [1, n]).reshape([n]);
    const yr = y.slice([null, null, -1]);
    live.push(y, x64, yr);
    expect(blas.dot(x64, yr)).toBeCloseTo(xv.reduce((s, v, i) => s + v * yv[n - 1 - i]!, 0), 9);
    // Complex: dotu and dotc.
    const cx = values(2 * n, 53);
    const cy = values(2 * n, 54);
    const zx = DeviceArray.from(host("complex128", cx), { stream, dtype: "complex128", shape: [n] });
    const zy = DeviceArray.from(host("complex128", cy), { stream, dtype: "complex128", shape: [n] });
    live.push(zx, zy);
    let [ur, ui, cr, ci] = [0, 0, 0, 0];
    for (let i = 0; i < n; i++) {
      const [a, b, c, d] = [cx[2 * i]!, cx[2 * i + 1]!, cy[2 * i]!, cy[2 * i + 1]!];
      ur += a * c - b * d;
      ui += a * d + b * c;
      cr += a * c + b * d;
      ci += a * d - b * c;
    }
    const u = blas.dot(zx, zy) as [number, number];
    const cj = blas.dot(zx, zy, { conjugate: true }) as [number, number];
    expect(u[0]).toBeCloseTo(ur, 9);
    expect(u[1]).toBeCloseTo(ui, 9);
    expect(cj[0]).toBeCloseTo(cr, 9);
    expect(cj[1]).toBeCloseTo(ci, 9);
    // Results on the device (no wait): dot into a float64 scalar array, amax into int32 (cuBLAS's 1-based index).
    const out = DeviceArray.zeros([1], "float64", { stream });
    const idx = DeviceArray.zeros([1], "int32", { stream });
    live.push(out, idx);
    expect(blas.dot(x64, y, { out })).toBe(out);
    blas.amax(x, { out: idx });
    expect((await read(out))[0]).toBeCloseTo(xv.reduce((s, v, i) => s + v * yv[i]!, 0), 9);
    expect((await read(idx))[0]).toBe(618);
  });

  it("BlasLt: matmul with every epilogue, in float16, bfloat16 and float32, planned once per shape", async () => {
    const [m, n, k] = [24, 40, 56]; // y = act(x·wᵀ + bias): x [m, k], w [n, k]
    const xv = values(m * k, 60);
    const wv = values(n * k, 61);
    const bv = values(n, 62);
    const prod = matmulRef(xv, transposeList(wv, n, k, 1), m, n, k, false);
    const gelu = (v: number): number => 0.5 * v * (1 + Math.tanh(Math.sqrt(2 / Math.PI) * (v + 0.044715 * v ** 3)));
    const relu = (v: number): number => Math.max(0, v);
    const cases = [
      { bias: false, activation: undefined, f: (v: number) => v },
      { bias: false, activation: "relu", f: relu },
      { bias: false, activation: "gelu", f: gelu },
      { bias: true, activation: undefined, f: (v: number) => v },
      { bias: true, activation: "relu", f: relu },
      { bias: true, activation: "gelu", f: gelu },
    ] as const;
    for (const dtype of ["float16", "bfloat16", "float32"] as const) {
      const x = arrayOf(dtype, xv, [m, k]);
      const w = arrayOf(dtype, wv, [n, k]);
      const bias = arrayOf(dtype, bv, [1, n]).reshape([n]);
      live.push(bias);
      for (const c of cases) {
        const y = arrayOf(dtype, new Array<number>(m * n).fill(0), [m, n]);
        lt.matmul(x, w.T, y, { ...(c.bias ? { bias } : {}), ...(c.activation !== undefined ? { activation: c.activation } : {}) });
        const want = prod.map((v, i) => c.f(v + (c.bias ? bv[i % n]! : 0)));
        // GELU in float32 follows cuBLASLt's own approximation; allow its small difference.
        const tol = c.activation === "gelu" ? Math.max(TOL[dtype], 1e-3) : TOL[dtype];
        expectClose(await read(y), want, tol, `Lt ${dtype} bias ${c.bias} ${c.activation ?? "none"}`);
      }
    }
    const before = lt.planCount;
    const x = arrayOf("float32", xv, [m, k]);
    const w = arrayOf("float32", wv, [n, k]);
    const y = arrayOf("float32", new Array<number>(m * n).fill(0), [m, n]);
    const plan = lt.plan(x, w.T, y, { activation: "relu" });
    expect(plan.epilogue).toBe("relu");
    expect(plan.algorithmCount).toBeGreaterThan(0);
    lt.matmul(x, w.T, y, { activation: "relu" });
    lt.matmul(x, w.T, y, { activation: "relu" });
    expect(lt.planCount).toBe(before); // the same shape and epilogue: the cached plan
    expect(lt.plan(x, w.T, y, { activation: "relu" })).toBe(plan);
  });

  it("BlasLt: batches and alpha/beta", async () => {
    const [batch, m, n, k] = [3, 16, 8, 32];
    const av = values(batch * m * k, 70);
    const bv = values(batch * k * n, 71);
    const a = DeviceArray.from(host("float32", av), { stream, dtype: "float32", shape: [batch, m, k] });
    const b = DeviceArray.from(host("float32", bv), { stream, dtype: "float32", shape: [batch, k, n] });
    const c = DeviceArray.full([batch, m, n], 1, "float32", { stream });
    live.push(a, b, c);
    lt.matmul(a, b, c, { alpha: 2, beta: -1 });
    const got = await read(c);
    for (let t = 0; t < batch; t++) {
      const want = matmulRef(av.slice(t * m * k, (t + 1) * m * k), bv.slice(t * k * n, (t + 1) * k * n), m, n, k, false).map((v) => 2 * v - 1);
      expectClose(got.slice(t * m * n, (t + 1) * m * n), want, 1e-5, `Lt batch ${t}`);
    }
  });

  it("a workspace from a memory resource, another stream, a closed handle", async () => {
    const other = dev.createStream();
    const own = new Blas({ stream, workspace: { size: 4 << 20, memoryResource: dev.memoryResource } });
    expect(own.workspace?.size).toBe(4 << 20);
    own.stream = other;
    expect(own.stream).toBe(other);
    const av = values(20 * 30, 80);
    const bv = values(30 * 10, 81);
    const a = arrayOf("float32", av, [20, 30]);
    const b = arrayOf("float32", bv, [30, 10]);
    stream.sync();
    const c = DeviceArray.zeros([20, 10], "float32", { stream: other });
    own.gemm(a, b, c);
    expect(own.isClosed).toBe(false);
    other.sync();
    expectClose(Array.from(c.toTypedArraySync({ stream: other })), matmulRef(av, bv, 20, 10, 30, false), 1e-5, "on another stream");
    own.setWorkspace({ size: 0 });
    expect(own.workspace).toBeUndefined();
    own.close();
    expect(own.isClosed).toBe(true);
    expect(() => own.gemm(a, b, c)).toThrow(ClosedError);
    expect(() => own.handle).toThrow(ClosedError);
    own.close(); // twice is fine
    const ownLt = new BlasLt({ stream, workspace: { size: 1 << 20 } });
    ownLt.close();
    expect(() => ownLt.matmul(a, b, c)).toThrow(ClosedError);
    c.close();
    other.sync();
    other.close();
  });

  it("a stream switch with a workspace of its own orders the new stream after the old one's work", () => {
    // The old stream is kept busy by a 200 ms spin; work queued on the new stream after the switch must wait for it
    // (the handle's calls on the old stream may still be using the workspace), and must not without a workspace.
    const spin = new Program(SPIN, "c++", { arch: `sm_${dev.arch}` }).compile("cubin").getKernel("spin");
    const busy = dev.createStream();
    const next = dev.createStream();
    const flag = dev.allocate(4, { stream: busy });
    const cases: [string, { stream: Stream } & { close(): void }, boolean][] = [
      ["Blas with a workspace", new Blas({ stream: busy, workspace: { size: 1 << 20 } }), true],
      ["BlasLt (its workspace)", new BlasLt({ stream: busy, workspace: { size: 1 << 20 } }), true],
      ["BlasLt without a workspace", new BlasLt({ stream: busy, workspace: { size: 0 } }), false],
    ];
    for (const [what, handle, waits] of cases) {
      busy.sync();
      launch(busy, new LaunchConfig({ grid: 1, block: 32 }), spin, u64(200_000_000), flag);
      handle.stream = next;
      const mark = next.record();
      if (waits) expect(mark.isDone, what).toBe(false);
      mark.sync();
      // Waited: the spin is over when the mark completes. Did not: the mark completes while the spin still runs.
      expect(busy.query(), what).toBe(waits);
      mark.close();
      handle.stream = busy; // back: ordered after `next`, which is idle
      handle.close();
    }
    busy.sync();
    flag.close(busy);
    busy.close();
    next.close();
  });

  it("refuses bad input with typed errors before calling cuBLAS", () => {
    const a = arrayOf("float32", values(12, 1), [3, 4]);
    const b = arrayOf("float32", values(8, 2), [4, 2]);
    const c = arrayOf("float32", values(6, 3), [3, 2]);
    const d = arrayOf("float64", values(8, 2), [4, 2]);
    expect(() => blas.gemm(a, arrayOf("float32", values(10, 2), [5, 2]), c)).toThrow(ShapeMismatchError);
    expect(() => blas.gemm(a, b, arrayOf("float32", values(9, 3), [3, 3]))).toThrow(ShapeMismatchError);
    expect(() => blas.gemm(a, d as never, c)).toThrow(DTypeError);
    expect(() => blas.gemm(a, b, c, { compute: "64f" })).toThrow(DTypeError);
    const i32 = DeviceArray.zeros([3, 4], "int32", { stream });
    live.push(i32);
    expect(() => blas.gemm(i32, i32, i32)).toThrow(DTypeError);
    const big = DeviceArray.zeros([8, 8], "float32", { stream });
    live.push(big);
    expect(() => blas.gemm(big.slice([0, null, 2], [0, null, 2]), big.slice([0, 4], [0, 4]), big.slice([4, 8], [4, 8]))).toThrow(ArrayLayoutError);
    expect(() => blas.gemm(a, b, c, { alpha: [1, 2] })).toThrow(DTypeError);
    expect(() => blas.gemm(a, b, c, { alpha: 1, beta: c })).toThrow(TypeError);
    expect(() => blas.gemv(arrayOf("float16", values(12, 1), [3, 4]), DeviceArray.zeros([4], "float16", { stream }), DeviceArray.zeros([3], "float16", { stream }))).toThrow(/gemv takes float32/);
    expect(() => blas.amax(DeviceArray.zeros([4], "float16", { stream }))).toThrow(DTypeError);
    expect(() => blas.dot(DeviceArray.zeros([4], "float32", { stream }), DeviceArray.zeros([5], "float32", { stream }))).toThrow(ShapeMismatchError);
    expect(() => blas.dot(DeviceArray.zeros([4], "float32", { stream }), DeviceArray.zeros([4], "float32", { stream }), { out: DeviceArray.zeros([1], "float64", { stream }) })).toThrow(/out is a float64 DeviceArray but this call computes in float32/);
    const closed = DeviceArray.zeros([3, 4], "float32", { stream });
    closed.close();
    expect(() => blas.gemm(closed, b, c)).toThrow(ClosedError);
    expect(() => blas.gemm(new Float32Array(12) as never, b, c)).toThrow(/A must be a DeviceArray/);
    // BlasLt: a bias of the wrong length, dtype, or with a column-major C.
    const bias = DeviceArray.zeros([3], "float32", { stream });
    live.push(bias);
    expect(() => lt.matmul(a, b, c, { bias })).toThrow(/bias has shape \[3\]; expected \[2\]/);
    expect(() => lt.matmul(a, b, c, { bias: DeviceArray.zeros([2], "float16", { stream }) })).toThrow(DTypeError);
    expect(() => lt.matmul(a, b, arrayOf("float32", values(6, 3), [3, 2], "T"), { bias: DeviceArray.zeros([2], "float32", { stream }) })).toThrow(ArrayLayoutError);
    expect(() => lt.matmul(a, b, c, { activation: "tanh" as never })).toThrow(TypeError);
  });

  it.skipIf(!gpu.available || Device.count < 2)("refuses a stream or arrays of another device (needs 2 GPUs)", () => {
    const dev1 = new Device(1);
    const s1 = dev1.createStream();
    const x1 = DeviceArray.zeros([4, 4], "float32", { stream: s1 });
    expect(() => blas.setStream(s1)).toThrow(DeviceMismatchError);
    const x0 = DeviceArray.zeros([4, 4], "float32", { stream });
    expect(() => blas.gemm(x1, x0, x0)).toThrow(DeviceMismatchError);
    s1.sync();
    x1.close();
    x0.close();
    s1.close();
  });
});
