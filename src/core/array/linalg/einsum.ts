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
import { AxisError, BroadcastError, ShapeMismatchError } from "../errors.ts";
import { normalizeAxis } from "../broadcast.ts";
import { elementCount } from "../layout.ts";
import { ArgumentError } from "../../../errors/base.ts";
import { describeValue } from "../../../errors/describe.ts";

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

const show = (shape: readonly number[]): string => `[${shape.join(", ")}]`;
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
      throw new ShapeMismatchError(`${action}: term ${k} ("${terms[k]}") names ${named} axes but operand ${k} has ${ndim} (shape ${show(shapes[k]!)}); ${fix}`);
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
      throw new ShapeMismatchError(`${action}: axis ${d} of a (shape ${show(aShape)}) has extent ${aShape[d]} but axis ${e} of b (shape ${show(bShape)}) has ${bShape[e]}; the summed axes must have equal extents`);
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
          `${action}: label '${l}' names axes ${first} and ${d} of operand ${k} (shape ${show(shape)}), of extents ${shape[first]} and ${extent}; a label repeated within an operand takes a diagonal, whose axes must have one extent`,
        );
      }
      const seen = where.get(l);
      if (seen === undefined || (seen.extent === 1 && extent !== 1)) where.set(l, { operand: k, axis: d, extent });
      else if (extent !== seen.extent && extent !== 1) {
        const them = `operand ${seen.operand} (shape ${show(shapes[seen.operand]!)})`;
        const us = `operand ${k} (shape ${show(shape)})`;
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
