/**
 * linear_solve: dense linear systems with cuSOLVER. A general system by LU (getrf/getrs, through `solve`), a
 * symmetric positive definite one by Cholesky (potrf/potrs), several right-hand sides at once, and a singular matrix
 * refused with a typed error that names the zero pivot. Residuals are computed on the CPU.
 *
 *   bun examples/linear_solve.ts
 *   deno run --allow-ffi --allow-env --allow-read examples/linear_solve.ts
 */
import { Device, DeviceArray, SingularMatrixError } from "../src/index.ts";
import { Solver } from "../src/math.ts";

const dev = new Device(0);
dev.setCurrent();
using stream = dev.createStream();
using solver = await Solver.create({ stream });

const n = 500;
let state = 12345;
const random = (): number => {
  state = (state * 1103515245 + 12345) % 2147483648;
  return state / 2147483648 - 0.5;
};

/** max |A·x - b| / (max |A| · max |x| · n): the relative residual. */
function residual(a: Float64Array, x: ArrayLike<number>, b: Float64Array, k: number): number {
  let r = 0;
  let ax = 0;
  let xx = 0;
  for (const v of a) ax = Math.max(ax, Math.abs(v));
  for (let i = 0; i < x.length; i++) xx = Math.max(xx, Math.abs(x[i]!));
  for (let i = 0; i < n; i++) {
    for (let c = 0; c < k; c++) {
      let s = 0;
      for (let j = 0; j < n; j++) s += a[i * n + j]! * x[j * k + c]!;
      r = Math.max(r, Math.abs(s - b[i * k + c]!));
    }
  }
  return r / (ax * xx * n);
}

// A general system: random entries and a diagonal that keeps it well conditioned.
const a = Float64Array.from({ length: n * n }, random);
for (let i = 0; i < n; i++) a[i * n + i] = a[i * n + i]! + 10;
const b = Float64Array.from({ length: n }, random);
using A = DeviceArray.from(a, { stream, shape: [n, n] });
using B = DeviceArray.from(b, { stream });
using X = await solver.solve(A, B);
const luResidual = residual(a, await X.toTypedArray({ stream }), b, 1);
if (!(luResidual < 1e-14)) throw new Error(`LU residual ${luResidual}`);

// A symmetric positive definite system with 4 right-hand sides: S = A·Aᵀ/n + I.
const s = new Float64Array(n * n);
for (let i = 0; i < n; i++) {
  for (let j = 0; j <= i; j++) {
    let v = 0;
    for (let p = 0; p < n; p++) v += a[i * n + p]! * a[j * n + p]!;
    s[i * n + j] = s[j * n + i] = v / n + (i === j ? 1 : 0);
  }
}
const k = 4;
const rhs = Float64Array.from({ length: n * k }, random);
using S = DeviceArray.from(s, { stream, shape: [n, n] });
using R = DeviceArray.from(rhs, { stream, shape: [n, k] });
using Y = await solver.choleskySolve(S, R);
const cholResidual = residual(s, await Y.toTypedArray({ stream }), rhs, k);
if (!(cholResidual < 1e-14)) throw new Error(`Cholesky residual ${cholResidual}`);

// A singular matrix: the second row is twice the first (entries chosen so that elimination is exact).
const singular = new Float64Array([1, 2, 4, 2, 4, 8, 1, 1, 1]);
using Z = DeviceArray.from(singular, { stream, shape: [3, 3] });
using z = DeviceArray.from(new Float64Array([1, 2, 3]), { stream });
let pivot = 0;
try {
  (await solver.solve(Z, z)).close();
} catch (e) {
  if (!(e instanceof SingularMatrixError)) throw e;
  pivot = e.pivot;
}
if (pivot < 1 || pivot > 3) throw new Error("the singular matrix was not refused");

console.log(`linear_solve: LU and Cholesky solves of ${n}x${n} float64 systems (relative residuals ${luResidual.toExponential(1)} and ${cholResidual.toExponential(1)}), a singular matrix refused at pivot ${pivot} on ${dev.name} OK`);
