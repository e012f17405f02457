/**
 * NumPy's `cross`, `kron`, `inner` and `linalg.matrix_power` over DeviceArrays, composed of operations that exist
 * already: elementwise `mul`, `sub` and `neg` over component views (`cross`), one broadcast `mul` over interleaved
 * views (`kron`), `tensordot` (`inner`) and `matmul`/`inv` (`matrixPower`). The shapes are worked out on the host
 * before anything is queued ({@link crossPlan}, {@link kronPlan}: exported for tests, no GPU needed).
 *
 * ```ts
 * const n = cross(u, v);                 // [..., 3] × [..., 3] → [..., 3]
 * const k = kron(a, b);                  // [2, 2] ⊗ [3, 3] → [6, 6]
 * const g = inner(x, y);                 // [m, d] · [n, d] → [m, n]
 * const p = matrixPower(a, 5);           // a·a·a·a·a by repeated squaring
 * ```
 *
 * @module
 */
import { DeviceArray, type ArrayOperationOptions } from "../device-array.ts";
import type { DType } from "../dtype.ts";
import { DTypeError, ShapeMismatchError } from "../errors.ts";
import { broadcastShapes, normalizeAxis, showShape } from "../broadcast.ts";
import { contiguousStrides } from "../layout.ts";
import { operationType } from "../promotion.ts";
import { mul, sub } from "../ops/arithmetic.ts";
import { neg } from "../ops/math.ts";
import { diagonal, moveaxis, ownedView, viewWith } from "../ops/shape.ts";
import { tensordot } from "./einsum.ts";
import { inv, matmul } from "./linalg.ts";
import { matmulRoute, solverDtype } from "./plan.ts";
import { describeValue } from "../../../errors/describe.ts";
import { callStream, checkOperand, checkOptions } from "./arguments.ts";

/** Options of {@link cross}: which axis of each operand holds the vectors, and where the result's go. */
export interface CrossOptions extends ArrayOperationOptions {
  /** The axis of `a` that holds its vectors (default -1). */
  readonly axisa?: number;
  /** The axis of `b` that holds its vectors (default -1). */
  readonly axisb?: number;
  /** The axis of the result that holds its vectors (default -1); not used when both operands have 2 components. */
  readonly axisc?: number;
  /** One axis for all three: overrides `axisa`, `axisb` and `axisc`. */
  readonly axis?: number;
}

// ---- cross ----

/** @internal {@link cross}'s shapes, worked out on the host. */
export interface CrossPlan {
  /** a's and b's vector axes (non-negative). */
  readonly axisa: number;
  readonly axisb: number;
  /** The number of components of a's and b's vectors (2 or 3). */
  readonly na: 2 | 3;
  readonly nb: 2 | 3;
  /** The result's vector axis (non-negative); undefined when both operands have 2 components (a scalar per pair). */
  readonly axisc: number | undefined;
  /** The broadcast shape of the operands' other axes. */
  readonly batch: readonly number[];
  /** The result's shape: `batch` with 3 inserted at `axisc`, or `batch` alone. */
  readonly shape: readonly number[];
}

/**
 * @internal The shapes of `cross(a, b, options)` as NumPy works them out: the vector axes normalised (AxisError),
 * vectors of 2 or 3 components (ShapeMismatchError), the other axes broadcast (BroadcastError); `axis` overrides the
 * three others.
 */
export function crossPlan(a: readonly number[], b: readonly number[], options: { axisa?: unknown; axisb?: unknown; axisc?: unknown; axis?: unknown }, what = "cross"): CrossPlan {
  const axis = options.axis;
  const pick = (own: unknown): unknown => (axis !== undefined ? axis : own ?? -1);
  const axisa = normalizeAxis(pick(options.axisa), a.length, `${what}: axisa`);
  const axisb = normalizeAxis(pick(options.axisb), b.length, `${what}: axisb`);
  const na = a[axisa]!;
  const nb = b[axisb]!;
  if ((na !== 2 && na !== 3) || (nb !== 2 && nb !== 3)) {
    throw new ShapeMismatchError(
      `${what}: the vectors have ${na} (a, shape ${showShape(a)}, axis ${axisa}) and ${nb} (b, shape ${showShape(b)}, axis ${axisb}) components; a cross product takes vectors of 3 (or 2) components: pass axisa/axisb naming those axes`,
    );
  }
  const others = (s: readonly number[], d: number): number[] => s.filter((_, k) => k !== d);
  const batch = broadcastShapes([{ name: "a", shape: others(a, axisa) }, { name: "b", shape: others(b, axisb) }], what);
  if (na === 2 && nb === 2) return { axisa, axisb, na, nb, axisc: undefined, batch, shape: batch };
  const axisc = normalizeAxis(pick(options.axisc), batch.length + 1, `${what}: axisc`);
  const shape = [...batch.slice(0, axisc), 3, ...batch.slice(axisc)];
  return { axisa, axisb, na, nb, axisc, batch, shape };
}

/** Component `i` of the vectors along the last axis of `x`: a view without that axis. */
function component(x: DeviceArray, i: number): DeviceArray {
  const last = x.ndim - 1;
  return viewWith(x, x.shape.slice(0, last), x.strides.slice(0, last), x.byteOffset + i * x.strides[last]! * x.itemsize);
}

/**
 * NumPy's `cross`: the cross product of the vectors of `a` and `b`, which lie along `axisa` and `axisb` (default the
 * last axes; `axis` sets all three axes at once); the other axes broadcast. Vectors of 3 components give vectors of 3
 * along `axisc` (default the last axis); a vector of 2 components is one of 3 whose z is 0 (the product of a 2- and a
 * 3-vector is a 3-vector), and two 2-vectors give the z component alone, a scalar per pair (`[..., 2] × [..., 2] →
 * [...]`). NumPy 2 deprecates vectors of 2 components (a DeprecationWarning) but still computes them: so does this,
 * with NumPy 2's results, without a warning; prefer vectors of 3.
 *
 * The dtype is the operands' promoted one (NumPy's: int8 with uint8 is int16, and integer products wrap around in
 * it); bool is refused, as NumPy refuses its subtraction. Computed as NumPy computes it, component by component
 * (`c₀ = a₁b₂ - a₂b₁`, ...: elementwise `mul` and `sub` over views), into a new array; the result's vector axis is
 * a view of it where `axisc` is not last, as NumPy's. Does not wait for the stream.
 *
 * Errors, before anything is queued: TypeError for an operand that is not a DeviceArray, AxisError for an axis out of
 * range, ShapeMismatchError for vectors of other than 2 or 3 components, BroadcastError for other axes that do not
 * broadcast, DTypeError for bool operands.
 *
 * ```ts
 * const z = cross(x, y);                           // [1, 0, 0] × [0, 1, 0] = [0, 0, 1]
 * const n = cross(edges1, edges2);                 // [triangles, 3] each: one normal per triangle
 * const c = cross(a, b, { axisa: 0, axisb: 0 });   // a, b: [3, N] (vectors in columns) → [N, 3]
 * ```
 */
export function cross(a: DeviceArray, b: DeviceArray, options?: CrossOptions): DeviceArray {
  const what = "cross";
  checkOperand(a, "a", what);
  checkOperand(b, "b", what);
  const o = checkOptions(options, what, "axisa?, axisb?, axisc?, axis?, stream?");
  const plan = crossPlan(a.shape, b.shape, o, what);
  const dtype = operationType([a, b], what);
  if (dtype.kind === "b") throw new DTypeError(`${what}: the operands are bool, and a cross product subtracts (NumPy refuses bool subtraction too); convert them first, e.g. a.astype("int8")`);
  const stream = callStream(what, options, [a, b], ["a", "b"]);
  const out = DeviceArray.empty(plan.shape, dtype, { stream });
  // An empty batch has nothing to compute, and its arrays no components to view (an empty buffer has no offset 8).
  if (out.size === 0) return out;
  const x = moveaxis(a, plan.axisa, -1);
  const y = moveaxis(b, plan.axisb, -1);
  const [a0, a1, a2] = [0, 1, 2].map((i) => (i < plan.na ? component(x, i) : undefined));
  const [b0, b1, b2] = [0, 1, 2].map((i) => (i < plan.nb ? component(y, i) : undefined));
  let term: DeviceArray | undefined;
  try {
    const op = { stream };
    // out's vectors along its last axis (a view); two 2-vectors: out itself holds the z components.
    const c = plan.axisc === undefined ? undefined : moveaxis(out, plan.axisc, -1);
    const cz = c === undefined ? out : component(c, 2);
    term = DeviceArray.empty(plan.batch, dtype, op);
    // z = a₀b₁ - a₁b₀ in every case.
    mul(a0!, b1!, { ...op, out: cz });
    mul(a1!, b0!, { ...op, out: term });
    sub(cz, term, { ...op, out: cz });
    if (c === undefined) return out;
    const c0 = component(c, 0);
    const c1 = component(c, 1);
    if (a2 !== undefined && b2 !== undefined) {
      // x = a₁b₂ - a₂b₁, y = a₂b₀ - a₀b₂
      mul(a1!, b2, { ...op, out: c0 });
      mul(a2, b1!, { ...op, out: term });
      sub(c0, term, { ...op, out: c0 });
      mul(a2, b0!, { ...op, out: c1 });
      mul(a0!, b2, { ...op, out: term });
      sub(c1, term, { ...op, out: c1 });
    } else if (b2 !== undefined) {
      // a is a 2-vector (a₂ = 0): x = a₁b₂, y = -a₀b₂
      mul(a1!, b2, { ...op, out: c0 });
      mul(a0!, b2, { ...op, out: c1 });
      neg(c1, { ...op, out: c1 });
    } else {
      // b is a 2-vector (b₂ = 0): x = -a₂b₁, y = a₂b₀
      mul(a2!, b1!, { ...op, out: c0 });
      neg(c0, { ...op, out: c0 });
      mul(a2!, b0!, { ...op, out: c1 });
    }
    return out;
  } catch (e) {
    out.close(stream);
    throw e;
  } finally {
    term?.close(stream);
  }
}

// ---- kron ----

/** @internal {@link kron}'s shapes: the operands' views (extents and which axes are new) and the result's shape. */
export interface KronPlan {
  /** a's view: its axes interleaved with new axes of extent 1, `[a₀, 1, a₁, 1, ...]` (leading 1s where b has more axes). */
  readonly aView: readonly number[];
  /** b's view: `[1, b₀, 1, b₁, ...]` (leading 1s where a has more axes). */
  readonly bView: readonly number[];
  /** The product's shape before it is reshaped: `[a₀, b₀, a₁, b₁, ...]`. */
  readonly product: readonly number[];
  /** The result's shape: `[a₀·b₀, a₁·b₁, ...]`. */
  readonly shape: readonly number[];
}

/** @internal NumPy's `kron` shapes for operands of at least one axis: the shorter shape padded with leading 1s. */
export function kronPlan(a: readonly number[], b: readonly number[]): KronPlan {
  const nd = Math.max(a.length, b.length);
  const pa = [...new Array<number>(nd - a.length).fill(1), ...a];
  const pb = [...new Array<number>(nd - b.length).fill(1), ...b];
  return {
    aView: pa.flatMap((n) => [n, 1]),
    bView: pb.flatMap((n) => [1, n]),
    product: pa.flatMap((n, d) => [n, pb[d]!]),
    shape: pa.map((n, d) => n * pb[d]!),
  };
}

/** `x` seen in `shape`: its own axes where `shape` has them (the last `x.ndim` non-new positions), new axes of extent 1 elsewhere. */
function interleaved(x: DeviceArray, shape: readonly number[], own: (d: number) => boolean): DeviceArray {
  const pad = shape.length / 2 - x.ndim;
  const strides = shape.map((_, d) => {
    if (!own(d)) return 0;
    const axis = Math.floor(d / 2) - pad;
    return axis < 0 ? 0 : x.strides[axis]!;
  });
  return viewWith(x, shape, strides);
}

/**
 * NumPy's `kron`: the Kronecker product of `a` and `b`, the blocks `a[i, j] · b` laid out in `a`'s pattern. For
 * operands of one number of axes the result's extents are the products of theirs (`[2, 3] ⊗ [4, 5] → [8, 15]`); the
 * operand of fewer axes gets leading axes of extent 1 first, as NumPy's (`[2, 3] ⊗ [4] → [2, 12]`, `[2] ⊗ [3, 4] →
 * [3, 8]`); a 0-d operand multiplies the other elementwise. The dtype is the operands' promoted one (bool: AND, as
 * NumPy's `multiply`). One broadcast `mul` over interleaved views (`[a₀, 1, a₁, 1] · [1, b₀, 1, b₁]`), whose
 * contiguous result is reshaped without a copy. Does not wait for the stream.
 *
 * Errors, before anything is queued: TypeError for an operand that is not a DeviceArray.
 *
 * ```ts
 * const k = kron(eye2, block);               // [2, 2] ⊗ [3, 3] → [6, 6]: block on the diagonal
 * const r = kron(x, ones);                   // [n] ⊗ [m] → [n·m]: each element repeated m times
 * ```
 */
export function kron(a: DeviceArray, b: DeviceArray, options?: ArrayOperationOptions): DeviceArray {
  const what = "kron";
  checkOperand(a, "a", what);
  checkOperand(b, "b", what);
  checkOptions(options, what, "stream?");
  const stream = callStream(what, options, [a, b], ["a", "b"]);
  if (a.ndim === 0 || b.ndim === 0) return mul(a, b, { stream });
  const plan = kronPlan(a.shape, b.shape);
  const product = mul(interleaved(a, plan.aView, (d) => d % 2 === 0), interleaved(b, plan.bView, (d) => d % 2 === 1), { stream });
  // The product is a new contiguous array: its [a₀·b₀, a₁·b₁, ...] view owns its memory.
  return ownedView(product, viewWith(product, plan.shape, contiguousStrides(plan.shape)));
}

// ---- inner ----

/**
 * NumPy's `inner`: the sum of products over the last axes of `a` and `b`, `inner(a, b)[i..., j...] = Σₖ a[i..., k] ·
 * b[j..., k]`, shape `[...a.shape[:-1], ...b.shape[:-1]]`: for two vectors their inner product (a 0-d array), for
 * matrices `a · bᵀ`. No complex conjugate (use `vdot` for that). A 0-d operand multiplies the other elementwise, as
 * NumPy's. Dtypes as `matmul` (promoted; bool and integers included: integer sums wrap around, a bool sum is OR).
 * One `tensordot` over the last axes (one matmul over views, copies where they cannot be reshaped). Does not wait for
 * the stream.
 *
 * Errors, before anything is queued: TypeError for an operand that is not a DeviceArray, ShapeMismatchError for last
 * axes of different extents.
 *
 * ```ts
 * const s = inner(x, y);               // [3] · [3] → [], Σ xₖyₖ
 * const g = inner(a, b);               // [m, d] · [n, d] → [m, n], a · bᵀ
 * ```
 */
export function inner(a: DeviceArray, b: DeviceArray, options?: ArrayOperationOptions): DeviceArray {
  const what = "inner";
  checkOperand(a, "a", what);
  checkOperand(b, "b", what);
  checkOptions(options, what, "stream?");
  if (a.ndim === 0 || b.ndim === 0) return mul(a, b, { stream: callStream(what, options, [a, b], ["a", "b"]) });
  const k = a.shape[a.ndim - 1]!;
  if (b.shape[b.ndim - 1] !== k) {
    throw new ShapeMismatchError(`${what}: the last axes of a (shape ${showShape(a.shape)}) and b (shape ${showShape(b.shape)}) have extents ${k} and ${b.shape[b.ndim - 1]}; inner sums over them, so they must be equal`);
  }
  return tensordot(a, b, [a.ndim - 1, b.ndim - 1], options?.stream === undefined ? undefined : { stream: options.stream });
}

// ---- matrix power ----

/**
 * NumPy's `linalg.matrix_power`: each square matrix of `a` [..., n, n] raised to the integer power `n`. `n > 0`:
 * products by repeated squaring, in NumPy's order (`a·a` for 2, `(a·a)·a` for 3, then the binary digits of `n`
 * from the lowest), in `a`'s dtype (integers wrap around, bool is OR over AND, float16 stays float16); `n = 0`: the
 * identity in `a`'s dtype and shape (each matrix of a stack); `n < 0`: the power `-n` of `inv(a)`, computed as
 * `inv` does (float32 and complex64 stay, integers and bool become float64 as NumPy's `inv` makes them; float16 is
 * refused). `n = 1` returns a copy (NumPy returns `a` itself): the result never shares memory with `a`. Temporaries
 * are freed in stream order. `n < 0` waits for the stream (`inv` reads cuSOLVER's info: SingularMatrixError for a
 * singular matrix); otherwise the call does not wait.
 *
 * Errors, before anything is queued: TypeError for a non-array or an `n` that is not an integer (NumPy's "exponent
 * must be an integer"), ShapeMismatchError for an `a` that is not a stack of square matrices, DTypeError for a
 * negative `n` with float16 or bfloat16.
 *
 * ```ts
 * const a5 = matrixPower(a, 5);             // a·a·a·a·a: three products
 * const i = matrixPower(a, 0);              // the identity, a's dtype and shape
 * const ainv2 = matrixPower(a, -2);         // inv(a)·inv(a)
 * ```
 */
export function matrixPower(a: DeviceArray, n: number, options?: ArrayOperationOptions): DeviceArray {
  const what = "matrixPower";
  checkOperand(a, "a", what);
  checkOptions(options, what, "stream?");
  if (typeof n !== "number" || !Number.isSafeInteger(n)) throw new TypeError(`${what}: the exponent n is an integer, got ${describeValue(n)}`);
  if (a.ndim < 2 || a.shape[a.ndim - 1] !== a.shape[a.ndim - 2]) {
    throw new ShapeMismatchError(`${what}: a must be a square matrix or a stack of them ([..., n, n]), not shape ${showShape(a.shape)}`);
  }
  const dtype: DType = n < 0 ? solverDtype(a.dtype, what) : matmulRoute(a.dtype, what).dtype;
  const stream = callStream(what, options, [a], ["a"]);
  const op = { stream };
  if (n === 0) {
    const eye = DeviceArray.zeros(a.shape, dtype, op);
    try {
      diagonal(eye, { axis1: -2, axis2: -1 }).fill(dtype.kind === "b" ? true : 1, op);
      return eye;
    } catch (e) {
      eye.close(stream);
      throw e;
    }
  }
  // Every array made here; all but the result are closed when the call returns or throws.
  const made = new Set<DeviceArray>();
  const keep = (x: DeviceArray): DeviceArray => (made.add(x), x);
  let result: DeviceArray | undefined;
  try {
    const base = n < 0 ? keep(inv(a, op)) : a;
    let e = Math.abs(n);
    if (e === 1) result = base;
    else if (e === 2) result = keep(matmul(base, base, op));
    else if (e === 3) result = keep(matmul(keep(matmul(base, base, op)), base, op));
    else {
      let z: DeviceArray | undefined;
      let r: DeviceArray | undefined;
      while (e > 0) {
        z = z === undefined ? base : keep(matmul(z, z, op));
        if (e % 2 === 1) r = r === undefined ? z : keep(matmul(r, z, op));
        e = Math.floor(e / 2);
      }
      result = r!;
    }
    // A copy where the result is `a` itself (n = 1); otherwise it is one of ours.
    if (!made.has(result)) result = keep(result.copy(op));
    return result;
  } finally {
    for (const x of made) if (x !== result) x.close(stream);
  }
}
