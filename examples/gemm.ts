/**
 * gemm: matrix products through cuBLAS and cuBLASLt on typed device arrays, each checked against the CPU.
 *
 * - `Blas.gemm` in float32 and float64 on row-major arrays, and on a transposed view (cuBLAS reads it in place)
 * - the same float32 product with TF32 tensor cores (math mode "tf32"), a bfloat16 product accumulated in float32
 * - a strided batch of products
 * - `BlasLt.matmul`, a fused linear layer: y = relu(x·wᵀ + bias), planned once for its shape
 *
 * DeviceArrays are row-major; cuBLAS is column-major. `Blas` maps one onto the other without copies (C = A·B
 * row-major is Cᵀ = Bᵀ·Aᵀ column-major), so the arrays are used as they are.
 *
 *   bun examples/gemm.ts
 *   deno run --allow-ffi --allow-env --allow-read examples/gemm.ts
 */
import { Device, DeviceArray, encodeBFloat16 } from "../src/index.ts";
import { Blas, BlasLt } from "../src/math-blas.ts";

const dev = new Device(0);
dev.setCurrent();
using stream = dev.createStream();
using blas = new Blas({ stream });

const [m, n, k] = [123, 77, 200]; // deliberately not multiples of 8

/** Deterministic values in [-1, 1). */
function values(count: number, seed: number): Float64Array {
  let s = seed >>> 0;
  return Float64Array.from({ length: count }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 31 - 1;
  });
}

/** Row-major C = A·B on the CPU (float64). */
function cpuMatmul(a: ArrayLike<number>, b: ArrayLike<number>, rows: number, cols: number, inner: number): Float64Array {
  const c = new Float64Array(rows * cols);
  for (let i = 0; i < rows; i++) for (let l = 0; l < inner; l++) for (let j = 0; j < cols; j++) c[i * cols + j]! += a[i * inner + l]! * b[l * cols + j]!;
  return c;
}

/** The largest error relative to the largest |reference|. */
function relError(got: ArrayLike<number>, want: ArrayLike<number>): number {
  let err = 0;
  let scale = 0;
  for (let i = 0; i < want.length; i++) {
    err = Math.max(err, Math.abs(got[i]! - want[i]!));
    scale = Math.max(scale, Math.abs(want[i]!));
  }
  return err / Math.max(scale, 1);
}

function check(name: string, err: number, tol: number): void {
  console.log(`${name}: max relative error ${err.toExponential(2)} (tolerance ${tol})`);
  if (!(err <= tol)) throw new Error(`${name}: error ${err} above ${tol}`);
}

const av = values(m * k, 1);
const bv = values(k * n, 2);
const want = cpuMatmul(av, bv, m, n, k);

// float64 and float32, row-major.
{
  using a = DeviceArray.from(av, { stream, shape: [m, k] });
  using b = DeviceArray.from(bv, { stream, shape: [k, n] });
  using c = DeviceArray.empty([m, n], "float64", { stream });
  blas.gemm(a, b, c);
  check("float64 gemm", relError(await c.toTypedArray({ stream }), want), 1e-12);
}
using a32 = DeviceArray.from(Float32Array.from(av), { stream, shape: [m, k] });
using b32 = DeviceArray.from(Float32Array.from(bv), { stream, shape: [k, n] });
using c32 = DeviceArray.empty([m, n], "float32", { stream });
blas.gemm(a32, b32, c32);
check("float32 gemm", relError(await c32.toTypedArray({ stream }), want), 1e-5);

// A transposed view: Aᵀ of a [k, m] array is an [m, k] view with strides [1, m]; cuBLAS reads it with op T.
{
  const atv = new Float32Array(k * m);
  for (let i = 0; i < m; i++) for (let l = 0; l < k; l++) atv[l * m + i] = av[i * k + l]!;
  using at = DeviceArray.from(atv, { stream, shape: [k, m] });
  blas.gemm(at.T, b32, c32);
  check("float32 gemm of a transposed view", relError(await c32.toTypedArray({ stream }), want), 1e-5);
}

// TF32 tensor cores for float32 (10-bit mantissas in the products), and bfloat16 inputs accumulated in float32.
blas.mathMode = "tf32";
blas.gemm(a32, b32, c32);
check("float32 gemm, TF32 math mode", relError(await c32.toTypedArray({ stream }), want), 5e-3);
blas.mathMode = "default";
{
  using a16 = DeviceArray.from(Uint16Array.from(av, encodeBFloat16), { stream, dtype: "bfloat16", shape: [m, k] });
  using b16 = DeviceArray.from(Uint16Array.from(bv, encodeBFloat16), { stream, dtype: "bfloat16", shape: [k, n] });
  blas.gemmEx(a16, b16, c32);
  check("bfloat16 gemm into float32", relError(await c32.toTypedArray({ stream }), want), 2e-2);
}

// A strided batch: 8 products [m, k]·[k, n] in one call.
const batch = 8;
{
  const ab = values(batch * m * k, 3);
  using a = DeviceArray.from(ab, { stream, shape: [batch, m, k] });
  using b = DeviceArray.from(bv, { stream, shape: [k, n] }); // one B for every entry
  using c = DeviceArray.empty([batch, m, n], "float64", { stream });
  blas.gemmStridedBatched(a, b, c);
  const got = await c.toTypedArray({ stream });
  let err = 0;
  for (let t = 0; t < batch; t++) err = Math.max(err, relError(got.subarray(t * m * n, (t + 1) * m * n), cpuMatmul(ab.subarray(t * m * k, (t + 1) * m * k), bv, m, n, k)));
  check(`batched gemm (${batch} entries)`, err, 1e-12);
}

// cuBLASLt: a linear layer y = relu(x·wᵀ + bias), x [m, k], w [n, k], bias [n], in one fused call.
using lt = new BlasLt({ stream });
{
  const wv = values(n * k, 4);
  const biasv = values(n, 5);
  const x = a32;
  using w = DeviceArray.from(Float32Array.from(wv), { stream, shape: [n, k] });
  using bias = DeviceArray.from(Float32Array.from(biasv), { stream, shape: [n] });
  using y = DeviceArray.empty([m, n], "float32", { stream });
  lt.matmul(x, w.T, y, { bias, activation: "relu" });
  lt.matmul(x, w.T, y, { bias, activation: "relu" }); // the cached plan
  const wt = new Float64Array(k * n);
  for (let j = 0; j < n; j++) for (let l = 0; l < k; l++) wt[l * n + j] = wv[j * k + l]!;
  const ref = cpuMatmul(av, wt, m, n, k).map((v, i) => Math.max(0, v + biasv[i % n]!));
  check("BlasLt linear layer (bias + ReLU)", relError(await y.toTypedArray({ stream }), ref), 1e-5);
  if (lt.planCount !== 1) throw new Error(`BlasLt made ${lt.planCount} plans for one shape`);
}

console.log(`gemm: float64, float32, TF32, bfloat16, a transposed view, a batch of ${batch} and a fused BlasLt layer (${m}x${n}x${k}) on ${dev.name} OK`);
