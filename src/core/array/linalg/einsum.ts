/**
 * NumPy's `einsum` and `tensordot` over DeviceArrays, built on `matmul` and the view operations.
 *
 * The plan is worked out on the host before anything is queued ({@link einsumPlan}, {@link tensordotPlan}: exported
 * for tests, no GPU needed): each axis of each operand gets a label; each operand is prepared on its own (diagonals
 * for labels it repeats, views; then a sum over the labels that neither another operand nor the output has); then
 * the operands are contracted pairwise, left to right, each pair as one `matmul`: the running result permuted to
 * [batch, left, contracted] and reshaped to [b, m, k], the next operand to [batch, contracted, right] and [b, k, n],
 * where batch are the labels both have that are still needed (by the output or a later operand), contracted those
 * both have that are not, left and right those only one has. Labels of extent 1 in one operand and n in another
 * broadcast (a stride-0 view). The last product is permuted to the output's order and copied unless it is already
 * in that order.
 *
 * @module
 */
import { DeviceArray, type ArrayOperationOptions } from "../device-array.ts";
import { dtypeOf, type DType } from "../dtype.ts";
import { AxisError, BroadcastError, DTypeError, ShapeMismatchError } from "../errors.ts";
import { normalizeAxis, showShape } from "../broadcast.ts";
import { contiguousStrides, elementCount } from "../layout.ts";
import { canCastSafely, operationType } from "../promotion.ts";
import type { DTypeArgument } from "../options.ts";
import { broadcastTo, diagonal, reshape, viewWith } from "../ops/shape.ts";
import { castInto } from "../ops/cast.ts";
import { checkOutArray } from "../ops/elementwise.ts";
import { mayShareMemory } from "../ops/overlap.ts";
import { any } from "../ops/statistics.ts";
import { sum } from "../reductions.ts";
import { matmul } from "./linalg.ts";
import type { Stream } from "../../stream.ts";
import { ArgumentError } from "../../../errors/base.ts";
import { describeValue } from "../../../errors/describe.ts";
import { callStream, checkOperand } from "./arguments.ts";

/** Options of `tensordot`: the stream, and where to write the result. */
export interface TensordotOptions extends ArrayOperationOptions {
  /**
   * The array the result is written into: the result's shape, a dtype the result converts to under NumPy's
   * "same_kind" casting (float64 into float32, not float into an integer); default: a new array.
   */
  readonly out?: DeviceArray;
}

/** Options of `einsum`: the stream, where to write the result, and the dtype it is computed in. */
export interface EinsumOptions extends ArrayOperationOptions {
  /**
   * The array the result is written into: the result's shape, a dtype the result converts to under NumPy's "safe"
   * casting, einsum's default (float32 into float64, not float64 into float32); default: a new array.
   */
  readonly out?: DeviceArray;
  /**
   * The dtype the operands are converted to and the sum is computed in (default: the operands' promoted dtype). Every
   * operand must convert to it safely (NumPy's default "safe" casting: int32 to float64, not float64 to float32):
   * `{ dtype: "float32" }` sums float16 operands in float32, `{ dtype: "int64" }` counts over bool operands.
   */
  readonly dtype?: DTypeArgument;
}

// ---- the plan (host only) ----

/** @internal How one operand is prepared before the contractions. */
export interface OperandPreparation {
  /** Pairs of axes whose diagonal is taken, in turn (each diagonal's axis goes last, where `diagonal` puts it). */
  readonly diagonals: readonly (readonly [number, number])[];
  /** The axes then summed (after the diagonals): labels that neither another operand nor the output has. */
  readonly summed: readonly number[];
  /** The operand's labels after both. */
  readonly labels: readonly string[];
  /** Its shape after both. */
  readonly shape: readonly number[];
}

/** @internal One contraction of the running result (the left operand) with the next operand, as one matmul. */
export interface PairContraction {
  /** Labels both have that the output or a later operand needs: matmul's batch. */
  readonly batch: readonly string[];
  /** Labels only the left operand has: the rows. */
  readonly left: readonly string[];
  /** Labels both have that nothing later needs: summed by the product. */
  readonly contracted: readonly string[];
  /** Labels only the right operand has: the columns. */
  readonly right: readonly string[];
  /** The left operand's axes in the order [batch, left, contracted], its shape there, and the matrix shape [b, m, k]. */
  readonly leftAxes: readonly number[];
  readonly leftShape: readonly number[];
  readonly leftMatrix: readonly number[];
  /** The right operand's axes in the order [batch, contracted, right], its shape there, and the matrix shape [b, k, n]. */
  readonly rightAxes: readonly number[];
  readonly rightShape: readonly number[];
  readonly rightMatrix: readonly number[];
  /** The product's matrix shape [b, m, n] ([m, n] without batch labels, as the operands' are 2-d then). */
  readonly productMatrix: readonly number[];
  /** The product's labels ([batch, left, right]) and shape; a shared label of extent 1 on one side takes the other's. */
  readonly labels: readonly string[];
  readonly shape: readonly number[];
}

/** @internal What `einsum` (and `tensordot`) computes, worked out on the host. */
export interface EinsumPlan {
  /** Each operand's labels, one per axis: letters, and "...0", "...1", ... for the axes under '...' (right-aligned). */
  readonly inputs: readonly (readonly string[])[];
  /** The result's labels, in order. */
  readonly output: readonly string[];
  /** Each label's extent (the broadcast one where an operand has 1). */
  readonly sizes: Readonly<Record<string, number>>;
  /** The result's shape. */
  readonly shape: readonly number[];
  /** How each operand is prepared. */
  readonly operands: readonly OperandPreparation[];
  /** The pairwise contractions, left to right (none for one operand). */
  readonly contractions: readonly PairContraction[];
  /** The axes of the last product (or of the one prepared operand) in the output's order. */
  readonly outputAxes: readonly number[];
}

const ELLIPSIS = "...";
const ellipsisLabel = (d: number): string => `${ELLIPSIS}${d}`;
const isLetter = (c: string): boolean => (c >= "a" && c <= "z") || (c >= "A" && c <= "Z");

/** One term of the subscripts: its letters, and where its '...' stands among them (undefined: none). */
interface Term {
  readonly letters: string[];
  readonly ellipsisAt: number | undefined;
}

/** Reads one term (spaces already removed); `what` names it in errors ("term 0", "the output"). */
function readTerm(term: string, what: string, subscripts: string, action: string): Term {
  const letters: string[] = [];
  let ellipsisAt: number | undefined;
  for (let i = 0; i < term.length; i++) {
    const c = term[i]!;
    if (isLetter(c)) letters.push(c);
    else if (c === "." && term.startsWith(ELLIPSIS, i)) {
      if (ellipsisAt !== undefined) throw new ArgumentError(`${action}: ${what} of "${subscripts}" has '...' twice; one '...' per term stands for all its broadcast axes`);
      ellipsisAt = letters.length;
      i += 2;
    } else {
      const hint = c === "." ? "a '.' is part of '...'" : c === "-" || c === ">" ? "'->' comes once, before the output" : "labels are the letters a-z and A-Z";
      throw new ArgumentError(
        `${action}: ${what} of "${subscripts}" holds ${JSON.stringify(c)}, which is not a label; ${hint} (',' separates the operands' terms, '->' comes before the output, '...' stands for broadcast axes)`,
      );
    }
  }
  return { letters, ellipsisAt };
}

/**
 * @internal The plan of `einsum(subscripts, ...operands)` for operands of `shapes` (see the module's description):
 * NumPy's subscripts (letters; '...' for broadcast axes, right-aligned across operands; an explicit output after '->'
 * or the implicit one: the axes under '...', then the labels that occur once, in alphabetical order, uppercase
 * first), checked against the shapes. Throws what `einsum` throws for them (TypeError, ArgumentError,
 * ShapeMismatchError, BroadcastError).
 *
 * ```ts
 * einsumPlan("ij,jk", [[2, 3], [3, 4]]).output;        // ["i", "k"]
 * einsumPlan("...ij->...j", [[5, 2, 3]]).shape;        // [5, 3]
 * ```
 */
export function einsumPlan(subscripts: unknown, shapes: readonly (readonly number[])[], action = "einsum"): EinsumPlan {
  if (typeof subscripts !== "string") throw new TypeError(`${action}: the subscripts are a string such as "ij,jk->ik", not ${describeValue(subscripts)}`);
  if (shapes.length === 0) throw new ArgumentError(`${action}: no operands came for "${subscripts}"; pass one array per term after the subscripts`);
  const text = subscripts.replace(/\s/g, "");
  const arrow = text.indexOf("->");
  const lhs = arrow < 0 ? text : text.slice(0, arrow);
  const rhs = arrow < 0 ? undefined : text.slice(arrow + 2);
  const terms = lhs.split(",");
  if (terms.length !== shapes.length) {
    throw new ArgumentError(`${action}: "${subscripts}" has ${terms.length} term${terms.length === 1 ? "" : "s"} but ${shapes.length} operand${shapes.length === 1 ? "" : "s"} came; pass one operand per term`);
  }
  const read = terms.map((t, k) => readTerm(t, `term ${k}`, subscripts, action));
  // The axes under '...' of each operand, and how many the broadcast has.
  const covered = read.map((t, k) => {
    const ndim = shapes[k]!.length;
    const named = t.letters.length;
    if (named > ndim || (t.ellipsisAt === undefined && named < ndim)) {
      const fix = named > ndim ? "give one label per axis" : "give one label per axis, or '...' for the axes not named";
      throw new ShapeMismatchError(`${action}: term ${k} ("${terms[k]}") names ${named} axes but operand ${k} has ${ndim} (shape ${showShape(shapes[k]!)}); ${fix}`);
    }
    return ndim - named;
  });
  const broadcastRank = Math.max(0, ...covered);
  const ellipsisLabels = (count: number): string[] => Array.from({ length: count }, (_, j) => ellipsisLabel(broadcastRank - count + j));
  const inputs = read.map((t, k) => {
    if (t.ellipsisAt === undefined) return t.letters;
    return [...t.letters.slice(0, t.ellipsisAt), ...ellipsisLabels(covered[k]!), ...t.letters.slice(t.ellipsisAt)];
  });
  let output: string[];
  if (rhs === undefined) {
    const counts = new Map<string, number>();
    for (const t of read) for (const l of t.letters) counts.set(l, (counts.get(l) ?? 0) + 1);
    const once = [...counts].filter(([, n]) => n === 1).map(([l]) => l);
    output = [...ellipsisLabels(broadcastRank), ...once.sort()];
  } else {
    const out = readTerm(rhs, "the output", subscripts, action);
    const named = new Set(read.flatMap((t) => t.letters));
    out.letters.forEach((l, i) => {
      if (!named.has(l)) throw new ArgumentError(`${action}: the output of "${subscripts}" names '${l}', which no operand's term has; name only labels of the inputs`);
      if (out.letters.indexOf(l) !== i) throw new ArgumentError(`${action}: the output of "${subscripts}" names '${l}' twice; a label appears in the output at most once (a diagonal is 'ii->i')`);
    });
    if (out.ellipsisAt === undefined && broadcastRank > 0) {
      throw new ArgumentError(`${action}: the operands have ${broadcastRank} broadcast axes under '...' but the output of "${subscripts}" has no '...'; put '...' in the output to keep them (e.g. '...ij->...i')`);
    }
    output = out.ellipsisAt === undefined ? out.letters : [...out.letters.slice(0, out.ellipsisAt), ...ellipsisLabels(broadcastRank), ...out.letters.slice(out.ellipsisAt)];
  }
  return labelPlan(inputs, output, shapes, action);
}

/**
 * @internal The plan of `tensordot(a, b, axes)` for `a` and `b` of these shapes: `axes` a count N (a's last N axes
 * with b's first N) or a pair of axis lists (or of single axes). The summed axes must have equal extents
 * (ShapeMismatchError); AxisError for axes out of range or named twice.
 *
 * ```ts
 * tensordotPlan([2, 3, 4], [3, 4, 5], 2).shape;        // [2, 5]
 * ```
 */
export function tensordotPlan(aShape: readonly number[], bShape: readonly number[], axes: unknown, action = "tensordot"): EinsumPlan {
  let aAxes: number[];
  let bAxes: number[];
  if (typeof axes === "number") {
    if (!Number.isSafeInteger(axes) || axes < 0 || axes > aShape.length || axes > bShape.length) {
      throw new AxisError(`${action}: axes = ${axes} sums a's last ${axes} axes with b's first ${axes}, but a has ${aShape.length} axes and b ${bShape.length}; pass a count from 0 to ${Math.min(aShape.length, bShape.length)}`);
    }
    aAxes = Array.from({ length: axes }, (_, i) => aShape.length - axes + i);
    bAxes = Array.from({ length: axes }, (_, i) => i);
  } else {
    if (!Array.isArray(axes) || axes.length !== 2) throw new TypeError(`${action}: axes is a count or a pair [a's axes, b's axes], not ${describeValue(axes)}`);
    const list = (x: unknown, shape: readonly number[], name: string): number[] => {
      const l = typeof x === "number" ? [x] : Array.isArray(x) ? [...(x as unknown[])] : undefined;
      if (l === undefined) throw new TypeError(`${action}: ${name}'s axes are a number or a list of numbers, not ${describeValue(x)}`);
      const out = l.map((d) => normalizeAxis(d, shape.length, `${action}: ${name}'s axes`));
      if (new Set(out).size !== out.length) throw new AxisError(`${action}: ${name}'s axes [${l.join(", ")}] name an axis twice; name each summed axis once`);
      return out;
    };
    aAxes = list(axes[0], aShape, "a");
    bAxes = list(axes[1], bShape, "b");
    if (aAxes.length !== bAxes.length) throw new AxisError(`${action}: ${aAxes.length} axes of a are paired with ${bAxes.length} of b; name as many of each`);
  }
  aAxes.forEach((d, i) => {
    const e = bAxes[i]!;
    if (aShape[d] !== bShape[e]) {
      throw new ShapeMismatchError(`${action}: axis ${d} of a (shape ${showShape(aShape)}) has extent ${aShape[d]} but axis ${e} of b (shape ${showShape(bShape)}) has ${bShape[e]}; the summed axes must have equal extents`);
    }
  });
  const summed = (axesOf: number[], d: number): number => axesOf.indexOf(d);
  const aLabels = aShape.map((_, d) => (summed(aAxes, d) >= 0 ? `k${summed(aAxes, d)}` : `a${d}`));
  const bLabels = bShape.map((_, d) => (summed(bAxes, d) >= 0 ? `k${summed(bAxes, d)}` : `b${d}`));
  const output = [...aLabels.filter((l) => l.startsWith("a")), ...bLabels.filter((l) => l.startsWith("b"))];
  return labelPlan([aLabels, bLabels], output, [aShape, bShape], action);
}

/** The plan for labelled operands and output (labels checked to be the inputs', each once in the output). */
function labelPlan(inputs: readonly (readonly string[])[], output: readonly string[], shapes: readonly (readonly number[])[], action: string): EinsumPlan {
  const sizes = labelSizes(inputs, shapes, action);
  const operands = inputs.map((labels, k) => {
    const needed = new Set([...output, ...inputs.flatMap((other, j) => (j === k ? [] : other))]);
    return prepareOperand(labels, shapes[k]!, needed);
  });
  const contractions: PairContraction[] = [];
  let current: { labels: readonly string[]; shape: readonly number[] } = operands[0]!;
  for (let k = 1; k < operands.length; k++) {
    const kept = new Set([...output, ...operands.slice(k + 1).flatMap((o) => o.labels)]);
    const step = pairContraction(current, operands[k]!, kept);
    contractions.push(step);
    current = step;
  }
  return {
    inputs,
    output,
    sizes,
    shape: output.map((l) => sizes[l]!),
    operands,
    contractions,
    outputAxes: output.map((l) => current.labels.indexOf(l)),
  };
}

/** Each label's extent: equal wherever it occurs, or 1 (which broadcasts); one extent within an operand (a diagonal). */
function labelSizes(inputs: readonly (readonly string[])[], shapes: readonly (readonly number[])[], action: string): Record<string, number> {
  const where = new Map<string, { operand: number; axis: number; extent: number }>();
  inputs.forEach((labels, k) => {
    const shape = shapes[k]!;
    labels.forEach((l, d) => {
      const extent = shape[d]!;
      const first = labels.indexOf(l);
      if (first < d && shape[first] !== extent) {
        throw new ShapeMismatchError(
          `${action}: label '${l}' names axes ${first} and ${d} of operand ${k} (shape ${showShape(shape)}), of extents ${shape[first]} and ${extent}; a label repeated within an operand takes a diagonal, whose axes must have one extent`,
        );
      }
      const seen = where.get(l);
      if (seen === undefined || (seen.extent === 1 && extent !== 1)) where.set(l, { operand: k, axis: d, extent });
      else if (extent !== seen.extent && extent !== 1) {
        const them = `operand ${seen.operand} (shape ${showShape(shapes[seen.operand]!)})`;
        const us = `operand ${k} (shape ${showShape(shape)})`;
        if (l.startsWith(ELLIPSIS)) {
          throw new BroadcastError(`${action}: the axes under '...' do not broadcast: axis ${seen.axis} of ${them} has extent ${seen.extent} and axis ${d} of ${us} ${extent}; they must be equal or 1`);
        }
        throw new ShapeMismatchError(`${action}: label '${l}' has extent ${seen.extent} in ${them} but ${extent} in ${us}; a label's extents must be equal (or 1, which broadcasts)`);
      }
    });
  });
  return Object.fromEntries([...where].map(([l, w]) => [l, w.extent]));
}

/** The diagonals of the labels an operand repeats, then the sum over the labels not `needed`. */
function prepareOperand(inputLabels: readonly string[], inputShape: readonly number[], needed: ReadonlySet<string>): OperandPreparation {
  let labels = [...inputLabels];
  let shape = [...inputShape];
  const diagonals: [number, number][] = [];
  for (;;) {
    const p = labels.findIndex((l, d) => labels.indexOf(l, d + 1) >= 0);
    if (p < 0) break;
    const q = labels.indexOf(labels[p]!, p + 1);
    diagonals.push([p, q]);
    const keep = (_: unknown, d: number): boolean => d !== p && d !== q;
    labels = [...labels.filter(keep), labels[p]!];
    shape = [...shape.filter(keep), shape[p]!];
  }
  const summed = labels.flatMap((l, d) => (needed.has(l) ? [] : [d]));
  return { diagonals, summed, labels: labels.filter((l) => needed.has(l)), shape: shape.filter((_, d) => !summed.includes(d)) };
}

/** The contraction of `a` with `b` keeping the labels in `kept` (see {@link PairContraction}). */
function pairContraction(a: { labels: readonly string[]; shape: readonly number[] }, b: { labels: readonly string[]; shape: readonly number[] }, kept: ReadonlySet<string>): PairContraction {
  const inB = (l: string): boolean => b.labels.includes(l);
  const batch = a.labels.filter((l) => inB(l) && kept.has(l));
  const contracted = a.labels.filter((l) => inB(l) && !kept.has(l));
  const left = a.labels.filter((l) => !inB(l));
  const right = b.labels.filter((l) => !a.labels.includes(l));
  const extentIn = (x: { labels: readonly string[]; shape: readonly number[] }, l: string): number => {
    const d = x.labels.indexOf(l);
    return d < 0 ? 1 : x.shape[d]!;
  };
  // A shared label broadcasts: an extent of 1 takes the other's (which may be 0).
  const extent = (l: string): number => (extentIn(a, l) === 1 ? extentIn(b, l) : extentIn(a, l));
  const [bt, m, k, n] = [batch, left, contracted, right].map((ls) => elementCount(ls.map(extent))) as [number, number, number, number];
  const matrix = (rows: number, cols: number): number[] => (batch.length > 0 ? [bt, rows, cols] : [rows, cols]);
  const leftOrder = [...batch, ...left, ...contracted];
  const rightOrder = [...batch, ...contracted, ...right];
  const labels = [...batch, ...left, ...right];
  return {
    batch,
    left,
    contracted,
    right,
    leftAxes: leftOrder.map((l) => a.labels.indexOf(l)),
    leftShape: leftOrder.map(extent),
    leftMatrix: matrix(m, k),
    rightAxes: rightOrder.map((l) => b.labels.indexOf(l)),
    rightShape: rightOrder.map(extent),
    rightMatrix: matrix(k, n),
    productMatrix: matrix(m, n),
    labels,
    shape: labels.map(extent),
  };
}

// ---- the computation ----

/** The out, checked before anything is queued: a writable DeviceArray of the result's shape and a dtype the result converts to under `casting`. */
function checkResultOut(out: unknown, shape: readonly number[], dtype: DType, action: string, casting: "same_kind" | "safe"): DeviceArray | undefined {
  if (out !== undefined) checkOperand(out, "out", action);
  return checkOutArray(out, shape, dtype, action, (got) => new ShapeMismatchError(`${action}: out has shape ${got} but the result has ${showShape(shape)}; pass an out of that shape`), casting);
}

/**
 * Computes `plan` over `operands` (checked) in `dtype` on `stream`, into `out` or a new array. Every temporary is
 * closed on `stream` when the call returns or throws.
 */
function compute(plan: EinsumPlan, operands: readonly DeviceArray[], dtype: DType, out: DeviceArray | undefined, stream: Stream): DeviceArray {
  const temps: DeviceArray[] = [];
  let result: DeviceArray | undefined;
  try {
    const prepared = operands.map((a, k) => prepare(a, plan.operands[k]!, dtype, stream, temps));
    const inOrder = plan.outputAxes.every((d, i) => d === i);
    let current = prepared[0]!;
    let wroteOut = false;
    plan.contractions.forEach((step, j) => {
      // The last product goes straight into an out that can take it as it lies.
      const direct = j === plan.contractions.length - 1 && inOrder && out !== undefined && out.dtype === dtype && out.isContiguous;
      if (direct) wroteOut = true;
      const product = direct ? out : DeviceArray.empty(step.shape, dtype, { stream });
      if (!direct) temps.push(product);
      const a = asMatrix(current, step.leftAxes, step.leftShape, step.leftMatrix, stream, temps);
      const b = asMatrix(prepared[j + 1]!, step.rightAxes, step.rightShape, step.rightMatrix, stream, temps);
      matmul(a, b, { stream, out: viewWith(product, step.productMatrix, contiguousStrides(step.productMatrix)) });
      current = product;
    });
    // (Not `current === out`: one operand that is the out itself, einsum("ij->ji", s, { out: s }), is transposed below.)
    if (wroteOut) return (result = out!);
    const owned = temps.includes(current);
    const ordered = current.transpose(plan.outputAxes);
    if (out !== undefined) {
      // An operand's own view (one operand, no sum, no conversion) that overlaps out is read through a copy.
      let source = ordered;
      if (!owned && mayShareMemory(out, ordered)) temps.push((source = ordered.copy({ stream })));
      if (out.size > 0) castInto(stream, source, out);
      return (result = out);
    }
    // Never a view of an operand: an operand's own view is copied, as is a temporary not in the output's order.
    return (result = owned && inOrder ? current : ordered.copy({ stream }));
  } finally {
    for (const t of temps) if (t !== result) t.close(stream);
  }
}

/** An operand prepared (see {@link OperandPreparation}) and converted to `dtype`: a view of it, or a temporary. */
function prepare(a: DeviceArray, prep: OperandPreparation, dtype: DType, stream: Stream, temps: DeviceArray[]): DeviceArray {
  let x = a;
  for (const [p, q] of prep.diagonals) x = diagonal(x, { axis1: p, axis2: q });
  if (x.dtype !== dtype) {
    const converted = DeviceArray.empty(x.shape, dtype, { stream });
    temps.push(converted);
    if (x.size > 0) castInto(stream, x, converted);
    x = converted;
  }
  if (prep.summed.length > 0) {
    const reduced = DeviceArray.empty(prep.shape, dtype, { stream });
    temps.push(reduced);
    // A sum of bool is OR, as NumPy's einsum (and its matmul) computes it: `any`.
    if (x.size > 0) (dtype.kind === "b" ? any : sum)(x, { axis: prep.summed, out: reduced, stream });
    else if (reduced.size > 0) reduced.fill(0, { stream });
    x = reduced;
  }
  return x;
}

/** `x` permuted to `axes`, broadcast to `shape` and reshaped to `matrix`: a view, or a copy kept in `temps`. */
function asMatrix(x: DeviceArray, axes: readonly number[], shape: readonly number[], matrix: readonly number[], stream: Stream, temps: DeviceArray[]): DeviceArray {
  const view = broadcastTo(x.transpose(axes), shape);
  const m = reshape(view, matrix, { stream });
  if (m.buffer !== view.buffer) temps.push(m);
  return m;
}

/**
 * NumPy's `einsum` (its results with `optimize=False`): the sum of products of the operands' elements named by
 * `subscripts`, Einstein's summation convention. Each term, one per operand, gives a label (a letter, a-z or A-Z) to
 * each axis; the output after `->` names the result's axes; every label not in the output is summed over:
 *
 * - `"ij,jk->ik"` the matrix product, `"bij,bjk->bik"` a batch of them, `"i,i->"` (or `"i,i"`) the inner product,
 *   `"i,j->ij"` the outer one, `"ij->ji"` the transpose, `"ij->"` the sum, `"ij,jk,kl->il"` a chain of products.
 * - A label repeated within a term takes the diagonal: `"ii->i"` the diagonal, `"ii"` the trace.
 * - Without `->` the output is the labels that occur once, in alphabetical order (uppercase before lowercase):
 *   `"ij,jk"` is `"ij,jk->ik"`, `"ba"` the transpose.
 * - `...` stands for broadcast axes (right-aligned across operands, broadcast as NumPy's): `"...ij,...jk->...ik"`
 *   is `matmul`; without `->` they come first in the output.
 * - A label of extent 1 in one operand broadcasts against its extent in another. Spaces are ignored.
 *
 * The options come last, a plain object `{ stream?, out?, dtype? }`. Dtypes: the operands' promoted dtype (NumPy's:
 * int32 stays int32 and sums wrap around in it, bool stays bool with sums as OR and products as AND, float16 stays
 * float16), or `dtype`, which every operand must convert to safely. An `out` takes the result (converted under
 * "safe" casting, as NumPy's einsum: a float64 result into a float32 out is refused) and is returned.
 *
 * The result is always a new array (or `out`), never a view of an operand: where NumPy returns a view (`"ij->ji"`,
 * `"ii->i"`), this returns a copy, so that writing into the result leaves the operands alone.
 *
 * Computed as a sequence of matmuls (cuBLAS for float and complex dtypes, matmul's own kernel for bool and integers)
 * over views (diagonals, transposes, broadcasts) and sums, two operands at a time, left to right; see the module's
 * description. Temporaries are freed in stream order. Does not wait for the stream.
 *
 * Errors, before anything is queued: TypeError for subscripts that are not a string or an operand that is not a
 * DeviceArray; ArgumentError for a character that is not a label, a number of terms other than of operands, an output
 * label no input has or one named twice; ShapeMismatchError for a term whose labels do not fit its operand's axes,
 * a label with two extents (neither 1), or an out of another shape; BroadcastError for axes under `...` that do not
 * broadcast; DTypeError for a `dtype` an operand does not convert to safely or an out the result cannot be stored in;
 * DeviceMismatchError for operands on different devices.
 *
 * ```ts
 * const c = einsum("ij,jk->ik", a, b);                 // matmul(a, b)
 * const t = einsum("ii", m);                           // the trace, a 0-d array
 * const s = einsum("bhqd,bhkd->bhqk", q, k);           // attention scores, a batched product
 * einsum("i,j->ij", x, y, { out: table, stream });     // the outer product, into an out
 * ```
 */
export function einsum(subscripts: string, ...args: [...operands: DeviceArray[], options: EinsumOptions] | DeviceArray[]): DeviceArray {
  const action = "einsum";
  if (typeof subscripts !== "string") throw new TypeError(`${action}: the subscripts are a string such as "ij,jk->ik", not ${describeValue(subscripts)}`);
  const last: unknown = args[args.length - 1];
  if (Array.isArray(last)) throw new TypeError(`${action} takes its operands as separate arguments (einsum("ij,jk", a, b)), not as a list`);
  const hasOptions = last !== undefined && last !== null && typeof last === "object" && !(last instanceof DeviceArray);
  const options = hasOptions ? (last as EinsumOptions) : undefined;
  const operands = (hasOptions ? args.slice(0, -1) : args).map((a, k) => checkOperand(a, `operand ${k}`, action));
  const plan = einsumPlan(subscripts, operands.map((a) => a.shape), action);
  let dtype: DType;
  if (options?.dtype !== undefined) {
    dtype = dtypeOf(options.dtype);
    operands.forEach((a, k) => {
      if (!canCastSafely(a.dtype, dtype)) {
        throw new DTypeError(`${action}: operand ${k} is ${a.dtype.name}, which does not convert to ${dtype.name} safely (NumPy's "safe" casting); pass a dtype every operand converts to, or astype the operand first`);
      }
    });
  } else {
    dtype = operationType(operands, action);
  }
  // NumPy's einsum casts under "safe" by default, its out included.
  const out = checkResultOut(options?.out, plan.shape, dtype, action, "safe");
  const stream = callStream(action, options, operands, operands.map((_, k) => `operand ${k}`), out);
  return compute(plan, operands, dtype, out, stream);
}

/**
 * NumPy's `tensordot`: the sum of products of `a` and `b` over pairs of axes, the result's axes a's other axes then
 * b's. `axes` a count N (default 2) sums a's last N axes with b's first N (`tensordot(a, b, 1)` is the matrix
 * product of matrices, 0 the outer product); a pair of lists `[[1, 0], [0, 1]]` pairs a's axis 1 with b's axis 0
 * and a's axis 0 with b's axis 1 (single numbers for one pair: `[1, 0]`; negative axes count from the end). Dtypes
 * as `matmul` (promoted; bool and integers included); computed as one matmul over transposed views (copied where
 * they cannot be reshaped), as {@link einsum} computes `"ijk,jkl->il"`. Returns a new array (or `out`, converted
 * under "same_kind" casting). Does not wait for the stream.
 *
 * Errors, before anything is queued: TypeError for an `axes` of another form, AxisError for axes out of range or
 * named twice (or a count above either array's number of axes), ShapeMismatchError for paired axes of different
 * extents or an out of another shape, DTypeError for an out the result cannot be stored in.
 *
 * ```ts
 * const c = tensordot(a, b);                         // a [2, 3, 4], b [3, 4, 5] → [2, 5]
 * const d = tensordot(a, b, [[1, 0], [0, 1]]);       // a [3, 4, 5], b [4, 3, 2] → [5, 2]
 * ```
 */
export function tensordot(a: DeviceArray, b: DeviceArray, axes: number | readonly [number | readonly number[], number | readonly number[]] = 2, options?: TensordotOptions): DeviceArray {
  const action = "tensordot";
  checkOperand(a, "a", action);
  checkOperand(b, "b", action);
  if (options !== undefined && (options === null || typeof options !== "object")) throw new TypeError(`${action} takes options { stream?, out? }, not ${describeValue(options)}`);
  const plan = tensordotPlan(a.shape, b.shape, axes, action);
  const dtype = operationType([a, b], action);
  const out = checkResultOut(options?.out, plan.shape, dtype, action, "same_kind");
  const stream = callStream(action, options, [a, b], ["a", "b"], out);
  return compute(plan, [a, b], dtype, out, stream);
}
