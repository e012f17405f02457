/**
 * `einsum` and `tensordot` on the CPU: the subscripts read as NumPy reads them (implicit output order, '...'
 * right-aligned, spaces, 0-d operands), the plan (diagonals, sums, the pairwise contractions and their matrix shapes,
 * extents of 1 that broadcast), the plan carried out on host arrays against NumPy's results, and every error, each
 * thrown before a stream is needed (arrays over fake memory: nothing is allocated, read or launched).
 */
import { describe, expect, it } from "vitest";
import * as linalg from "../../../src/array-linalg.ts";
import { einsum, tensordot } from "../../../src/array-linalg.ts";
import { einsumPlan, tensordotPlan, type EinsumPlan } from "../../../src/core/array/linalg/einsum.ts";
import { ArgumentError, AxisError, BroadcastError, ClosedError, DTypeError, DeviceMismatchError, ShapeMismatchError, type DTypeName } from "../../../src/index.ts";
import { fakeArray } from "../../support/fake-arrays.ts";

// ---- host arrays: what the plan does on the GPU (views, sums, matmuls), done with plain numbers ----

interface HostView {
  readonly shape: readonly number[];
  readonly strides: readonly number[];
  readonly offset: number;
  readonly data: readonly number[];
}

const rowMajor = (shape: readonly number[]): number[] => {
  const s: number[] = [];
  let step = 1;
  for (let d = shape.length - 1; d >= 0; d--) {
    s[d] = step;
    step *= shape[d]!;
  }
  return s;
};
const count = (shape: readonly number[]): number => shape.reduce((x, y) => x * y, 1);
const contiguous = (shape: readonly number[], data: readonly number[]): HostView => ({ shape, strides: rowMajor(shape), offset: 0, data });

/** Every index of `shape`, row-major. */
function* indices(shape: readonly number[]): Generator<number[]> {
  if (count(shape) === 0) return;
  const idx = shape.map(() => 0);
  for (;;) {
    yield [...idx];
    let d = shape.length - 1;
    while (d >= 0 && ++idx[d]! === shape[d]) idx[d--] = 0;
    if (d < 0) return;
  }
}

const at = (v: HostView, idx: readonly number[]): number => v.data[v.offset + idx.reduce((s, i, d) => s + i * v.strides[d]!, 0)]!;
const read = (v: HostView): number[] => [...indices(v.shape)].map((idx) => at(v, idx));
const permute = (v: HostView, axes: readonly number[]): HostView => ({ ...v, shape: axes.map((d) => v.shape[d]!), strides: axes.map((d) => v.strides[d]!) });

/** `diagonal(v, { axis1: p, axis2: q })`: the other axes, then the diagonal's. */
const diagonalOf = (v: HostView, p: number, q: number): HostView => {
  const keep = v.shape.map((_, d) => d).filter((d) => d !== p && d !== q);
  return { ...v, shape: [...keep.map((d) => v.shape[d]!), v.shape[p]!], strides: [...keep.map((d) => v.strides[d]!), v.strides[p]! + v.strides[q]!] };
};

const sumOver = (v: HostView, axes: readonly number[]): HostView => {
  const shape = v.shape.filter((_, d) => !axes.includes(d));
  const out = new Array<number>(count(shape)).fill(0);
  const strides = rowMajor(shape);
  for (const idx of indices(v.shape)) out[idx.filter((_, d) => !axes.includes(d)).reduce((s, i, d) => s + i * strides[d]!, 0)]! += at(v, idx);
  return contiguous(shape, out);
};

/** [b, m, k] · [b, k, n] (or 2-d), contiguous. */
const matmulOf = (a: HostView, b: HostView, shape: readonly number[]): number[] => {
  const [bt, m, k, n] = a.shape.length === 3 ? [a.shape[0]!, a.shape[1]!, a.shape[2]!, b.shape[2]!] : [1, a.shape[0]!, a.shape[1]!, b.shape[1]!];
  const x = read(a);
  const y = read(b);
  const out = new Array<number>(count(shape)).fill(0);
  for (let q = 0; q < bt; q++) for (let i = 0; i < m; i++) for (let j = 0; j < n; j++) for (let p = 0; p < k; p++) out[(q * m + i) * n + j]! += x[(q * m + i) * k + p]! * y[(q * k + p) * n + j]!;
  return out;
};

/** The plan carried out step by step as `einsum` does it on the GPU: the result's elements, row-major. */
function runOnHost(plan: EinsumPlan, operands: readonly HostView[]): number[] {
  const prepared = operands.map((a, k) => {
    const prep = plan.operands[k]!;
    let x = a;
    for (const [p, q] of prep.diagonals) x = diagonalOf(x, p, q);
    if (prep.summed.length > 0) x = sumOver(x, prep.summed);
    expect(x.shape, `operand ${k} prepared`).toEqual(prep.shape);
    return x;
  });
  const asMatrix = (x: HostView, axes: readonly number[], shape: readonly number[], matrix: readonly number[]): HostView => {
    const t = permute(x, axes);
    // broadcastTo: stride 0 where an extent of 1 meets a larger one.
    const b: HostView = { ...t, shape, strides: t.strides.map((s, d) => (t.shape[d] === shape[d] ? s : (expect(t.shape[d]).toBe(1), 0))) };
    return contiguous(matrix, read(b));
  };
  let current = prepared[0]!;
  plan.contractions.forEach((step, j) => {
    const a = asMatrix(current, step.leftAxes, step.leftShape, step.leftMatrix);
    const b = asMatrix(prepared[j + 1]!, step.rightAxes, step.rightShape, step.rightMatrix);
    current = contiguous(step.shape, matmulOf(a, b, step.productMatrix));
  });
  const result = permute(current, plan.outputAxes);
  expect(result.shape).toEqual(plan.shape);
  return read(result);
}

/** Operand k's values: `(np.arange(n) % m - (m - 1) // 2).reshape(shape)` with m = 7, 5, 3 for operands 0, 1, 2. */
const values = (shape: readonly number[], k: number): HostView => {
  const m = [7, 5, 3][k]!;
  return contiguous(shape, Array.from({ length: count(shape) }, (_, i) => (i % m) - (m - 1) / 2));
};

const fakes = (shapes: readonly (readonly number[])[], dtype: DTypeName = "float32") => shapes.map((s) => fakeArray(s, dtype));

describe("einsum's subscripts", () => {
  const plan = (s: string, ...shapes: number[][]): EinsumPlan => einsumPlan(s, shapes);

  it("orders an implicit output as NumPy: the labels that occur once, sorted by character code (uppercase first)", () => {
    expect(plan("ij,jk", [2, 3], [3, 4]).output).toEqual(["i", "k"]);
    expect(plan("ba", [2, 3]).output).toEqual(["a", "b"]); // np.einsum('ba', ones((2, 3))).shape == (3, 2)
    expect(plan("ba", [2, 3]).shape).toEqual([3, 2]);
    expect(plan("Ba", [2, 3]).output).toEqual(["B", "a"]); // np.einsum('Ba', ones((2, 3))).shape == (2, 3)
    expect(plan("aB", [2, 3]).output).toEqual(["B", "a"]); // np.einsum('aB', ones((2, 3))).shape == (3, 2)
    expect(plan("aB", [2, 3]).shape).toEqual([3, 2]);
    expect(plan("ii", [3, 3]).output).toEqual([]); // the trace
    expect(plan("ij,kj,k", [2, 3], [2, 3], [2]).output).toEqual(["i"]);
    expect(plan("i,i", [4], [4]).shape).toEqual([]);
  });

  it("reads explicit outputs, spaces, 0-d operands and empty outputs", () => {
    expect(plan("ij->ji", [2, 3]).shape).toEqual([3, 2]);
    expect(plan(" i j -> j i ", [2, 3]).output).toEqual(["j", "i"]);
    expect(plan("ij->", [2, 3]).shape).toEqual([]);
    expect(plan(",i->i", [], [3]).inputs).toEqual([[], ["i"]]); // np.einsum(',i->i', 3., ones(3)).shape == (3,)
    expect(plan("ij->i...", [2, 3]).shape).toEqual([2]); // np.einsum('ij->i...', ones((2, 3))).shape == (2,)
    expect(plan("ij->...", [2, 3]).shape).toEqual([]); // np.einsum('ij->...', ones((2, 3))) == 6.0
  });

  it("labels the axes under '...' right-aligned across operands, broadcast, and first in an implicit output", () => {
    const p = plan("...ij,...jk->...ik", [2, 1, 3, 4], [5, 4, 2]);
    expect(p.inputs).toEqual([
      ["...0", "...1", "i", "j"],
      ["...1", "j", "k"],
    ]);
    expect(p.output).toEqual(["...0", "...1", "i", "k"]);
    expect(p.shape).toEqual([2, 5, 3, 2]);
    // np.einsum('...i,...i', ones((4, 1, 3)), ones((5, 3))).shape == (4, 5)
    expect(plan("...i,...i", [4, 1, 3], [5, 3]).shape).toEqual([4, 5]);
    // np.einsum('i...,j', ones((3, 2)), ones(4)).shape == (2, 3, 4)
    const q = plan("i...,j", [3, 2], [4]);
    expect(q.output).toEqual(["...0", "i", "j"]);
    expect(q.shape).toEqual([2, 3, 4]);
    // np.einsum('i...,i...->...', ones((3, 2)), ones((3, 1))).shape == (2,)
    expect(plan("i...,i...->...", [3, 2], [3, 1]).shape).toEqual([2]);
    // A '...' that covers no axes.
    expect(plan("...ij->j", [2, 3]).shape).toEqual([3]);
  });

  it("broadcasts a label of extent 1 against its extent in another operand", () => {
    // np.einsum('ij,jk->ik', ones((2, 1)), ones((3, 4))).shape == (2, 4)
    const p = plan("ij,jk->ik", [2, 1], [3, 4]);
    expect(p.sizes).toEqual({ i: 2, j: 3, k: 4 });
    expect(p.contractions[0]!.leftShape).toEqual([2, 3]);
    expect(plan("ij,ij->ij", [2, 1], [1, 3]).shape).toEqual([2, 3]);
    expect(plan("ij,jk->ik", [2, 3], [1, 4]).shape).toEqual([2, 4]);
  });
});

describe("einsum's plan", () => {
  it("takes a diagonal for each repeated label and sums the labels no other operand nor the output has", () => {
    const trace = einsumPlan("ii", [[3, 3]]);
    expect(trace.operands[0]).toEqual({ diagonals: [[0, 1]], summed: [0], labels: [], shape: [] });
    const d = einsumPlan("iji->j", [[2, 3, 2]]);
    expect(d.operands[0]).toEqual({ diagonals: [[0, 2]], summed: [1], labels: ["j"], shape: [3] });
    const twice = einsumPlan("iijj->ij", [[2, 2, 3, 3]]);
    expect(twice.operands[0]!.diagonals).toEqual([
      [0, 1],
      [0, 1],
    ]);
    expect(twice.operands[0]!.labels).toEqual(["i", "j"]);
    // j is summed by the contraction, i and l belong to the output, m to operand 0 alone.
    const p = einsumPlan("ijm,jl->il", [
      [2, 3, 4],
      [3, 5],
    ]);
    expect(p.operands.map((o) => o.summed)).toEqual([[2], []]);
  });

  it("contracts left to right, batch labels first, as [b, m, k] · [b, k, n]", () => {
    const p = einsumPlan("ijk,jkl->il", [
      [2, 3, 4],
      [3, 4, 5],
    ]);
    const step = p.contractions[0]!;
    expect([step.batch, step.left, step.contracted, step.right]).toEqual([[], ["i"], ["j", "k"], ["l"]]);
    expect([step.leftMatrix, step.rightMatrix, step.productMatrix]).toEqual([
      [2, 12],
      [12, 5],
      [2, 5],
    ]);
    const b = einsumPlan("bij,bjk->bki", [
      [6, 2, 3],
      [6, 3, 4],
    ]);
    const s = b.contractions[0]!;
    expect([s.batch, s.left, s.contracted, s.right]).toEqual([["b"], ["i"], ["j"], ["k"]]);
    expect([s.leftMatrix, s.rightMatrix, s.shape]).toEqual([
      [6, 2, 3],
      [6, 3, 4],
      [6, 2, 4],
    ]);
    expect(b.outputAxes).toEqual([0, 2, 1]);
    // Three operands: k is kept by the first product because the third operand needs it.
    const chain = einsumPlan("ij,jk,kl->il", [
      [2, 3],
      [3, 4],
      [4, 5],
    ]);
    expect(chain.contractions.map((c) => c.labels)).toEqual([
      ["i", "k"],
      ["i", "l"],
    ]);
    const kept = einsumPlan("ij,ik,ij->ijk", [
      [2, 3],
      [2, 4],
      [2, 3],
    ]);
    expect(kept.contractions.map((c) => [c.batch, c.contracted])).toEqual([
      [["i"], []],
      [["i", "j"], []],
    ]);
  });

  // The plan carried out on host arrays, against np.einsum(subscripts, *ops) with ops from `values` (float64).
  const cases: [string, number[][], number[], number[]][] = [
    ["ij,jk->ik", [[2, 3], [3, 2]], [2, 2], [4, 3, 4, -3]],
    ["bij,bjk->bik", [[2, 2, 3], [2, 3, 2]], [2, 2, 2], [4, 3, 4, -3, -2, -4, -1, -1]],
    ["...ij,...jk->...ik", [[2, 1, 2, 3], [3, 3, 2]], [2, 3, 2, 2], [4, 3, 4, -3, 3, -3, -3, 0, -3, 1, 0, -2, -10, -2, 4, -1, -2, -4, -1, -1, -4, 9, -1, -1]],
    ["ii", [[3, 3]], [], [-4]],
    ["ii->i", [[3, 3]], [3], [-3, 1, -2]],
    ["ij->ji", [[2, 3]], [3, 2], [-3, 0, -2, 1, -1, 2]],
    ["ij->", [[2, 3]], [], [-3]],
    ["i,j->ij", [[2], [3]], [2, 3], [6, 3, 0, 4, 2, 0]],
    ["i,i", [[4], [4]], [], [8]],
    ["ij,jk,kl->il", [[2, 3], [3, 2], [2, 2]], [2, 2], [-1, -3, -7, 3]],
    ["ijk,jkl->il", [[2, 3, 2], [3, 2, 2]], [2, 2], [1, 3, -11, -3]],
    ["iij,jk->ik", [[2, 2, 3], [3, 2]], [2, 2], [4, 3, 4, -1]],
    ["ij,jk->ik", [[2, 1], [3, 4]], [2, 4], [-3, 3, 9, 0, -2, 2, 6, 0]],
    ["ij,ij->ij", [[2, 1], [1, 3]], [2, 3], [6, 3, 0, 4, 2, 0]],
    ["bi,bj,b->bij", [[2, 2], [2, 3], [2]], [2, 2, 3], [-6, -3, 0, -4, -2, 0, 0, 0, 0, 0, 0, 0]],
    ["ij,jk->ik", [[2, 0], [0, 3]], [2, 3], [0, 0, 0, 0, 0, 0]],
    ["ij,jk->ik", [[2, 1], [0, 4]], [2, 4], [0, 0, 0, 0, 0, 0, 0, 0]],
    ["ij,jk->ijk", [[2, 1], [0, 4]], [2, 0, 4], []],
    ["ij,ij->ij", [[2, 1], [2, 0]], [2, 0], []],
    ["ij->", [[2, 0]], [], [0]],
    ["ba", [[2, 3]], [3, 2], [-3, 0, -2, 1, -1, 2]],
    ["ij,kj,k", [[2, 3], [2, 3], [2]], [2], [-8, 1]],
    ["iji->j", [[2, 3, 2]], [3], [-6, -2, 2]],
    ["...i,...i", [[2, 1, 3], [4, 3]], [2, 4], [8, -5, 2, -1, -1, -2, 2, -4]],
    [",i->i", [[], [3]], [3], [6, 3, 0]],
  ];
  it.each(cases)("computes %s over %j as NumPy does", (subscripts, shapes, shape, expected) => {
    const p = einsumPlan(subscripts, shapes);
    expect(p.shape).toEqual(shape);
    expect(runOnHost(p, shapes.map(values))).toEqual(expected);
  });

  it("plans tensordot as one contraction, a's free axes then b's", () => {
    const a = [2, 3, 4];
    const b = [3, 4, 5];
    // np.tensordot(a, b) (axes=2), a and b from `values`
    const p = tensordotPlan(a, b, 2);
    expect(p.shape).toEqual([2, 5]);
    expect(p.contractions[0]!.leftMatrix).toEqual([2, 12]);
    expect(runOnHost(p, [values(a, 0), values(b, 1)])).toEqual([10, 5, 0, -5, -10, 2, 1, 0, -1, -2]);
    // np.tensordot(a, b, [[1, 0], [0, 1]]) for a [3, 4, 5], b [4, 3, 2]
    const q = tensordotPlan([3, 4, 5], [4, 3, 2], [[1, 0], [0, 1]]);
    expect(q.shape).toEqual([5, 2]);
    expect(runOnHost(q, [values([3, 4, 5], 0), values([4, 3, 2], 1)])).toEqual([13, 8, 11, -6, 2, 8, -7, -6, 5, -6]);
    // np.tensordot(a, b, 1) for [2, 3] and [3, 4]; axes=0 the outer product; a pair of single axes (0, 1), (-1, 0)
    expect(runOnHost(tensordotPlan([2, 3], [3, 4], 1), [values([2, 3], 0), values([3, 4], 1)])).toEqual([1, 5, 4, -2, 4, 2, -5, -2]);
    expect(runOnHost(tensordotPlan([2], [3], 0), [values([2], 0), values([3], 1)])).toEqual([6, 3, 0, 4, 2, 0]);
    expect(runOnHost(tensordotPlan([2, 3], [3, 2], [0, 1]), [values([2, 3], 0), values([3, 2], 1)])).toEqual([6, 0, -6, 3, 1, -6, 0, 2, -6]);
    expect(runOnHost(tensordotPlan([2, 3], [3, 2], [-1, 0]), [values([2, 3], 0), values([3, 2], 1)])).toEqual([4, 3, 4, -3]);
  });
});

describe("einsum's errors", () => {
  const plan = (s: unknown, ...shapes: number[][]): EinsumPlan => einsumPlan(s, shapes);

  it("refuses subscripts that are not a string, or hold what is not a label", () => {
    expect(() => plan(3, [2])).toThrow(TypeError);
    // np.einsum('i#j', ...): invalid subscript '#' in einstein sum subscripts string, subscripts must be letters
    expect(() => plan("i#j", [2, 3])).toThrow(ArgumentError);
    expect(() => plan("i#j", [2, 3])).toThrow(/term 0 of "i#j" holds "#", which is not a label; labels are the letters a-z and A-Z/);
    expect(() => plan("ij->i-", [2, 3])).toThrow(/the output of "ij->i-" holds "-"/);
    expect(() => plan("i->i->i", [3])).toThrow(/'->' comes once/);
    expect(() => plan("ij>", [2, 3])).toThrow(ArgumentError);
    expect(() => plan("i..j", [2, 3])).toThrow(/a '.' is part of '...'/);
    expect(() => plan("i...j...", [2, 3])).toThrow(/has '...' twice/);
    expect(() => plan("ij,jk->i,k", [2, 3], [3, 4])).toThrow(/holds ","/);
    expect(() => plan("ij", [2, 3])).not.toThrow();
    expect(() => plan("ij:", [2, 3])).toThrow(ArgumentError);
    expect(() => plan("ij1", [2, 3])).toThrow(ArgumentError);
  });

  it("refuses a number of terms other than of operands", () => {
    // more operands provided to einstein sum function than specified in the subscripts string
    expect(() => plan("ij", [2, 3], [2, 3])).toThrow(/"ij" has 1 term but 2 operands came; pass one operand per term/);
    expect(() => plan("ij,jk", [2, 3])).toThrow(/has 2 terms but 1 operand came/);
    expect(() => plan("ij")).toThrow(/no operands came/);
  });

  it("refuses a term with more labels than its operand has axes, or fewer without '...'", () => {
    // einstein sum subscripts string contains too many subscripts for operand 0
    expect(() => plan("ijk", [2, 3])).toThrow(ShapeMismatchError);
    expect(() => plan("ijk", [2, 3])).toThrow(/term 0 \("ijk"\) names 3 axes but operand 0 has 2 \(shape \[2, 3\]\); give one label per axis/);
    expect(() => plan("...ijk", [2, 3])).toThrow(ShapeMismatchError);
    // operand has more dimensions than subscripts given in einstein sum, but no '...' ellipsis provided
    expect(() => plan("i,ij", [2], [2, 3, 4])).toThrow(/term 1 \("ij"\) names 2 axes but operand 1 has 3 .* or '...' for the axes not named/);
  });

  it("refuses a label of two extents (neither 1), naming the label, both extents and both operands", () => {
    expect(() => plan("ij,jk", [2, 3], [4, 5])).toThrow(ShapeMismatchError);
    expect(() => plan("ij,jk", [2, 3], [4, 5])).toThrow(/label 'j' has extent 3 in operand 0 \(shape \[2, 3\]\) but 4 in operand 1 \(shape \[4, 5\]\)/);
    // dimensions in single operand for collapsing index 'i' don't match (2 != 3); also for 1 != 3
    expect(() => plan("ii->i", [2, 3])).toThrow(/label 'i' names axes 0 and 1 of operand 0 \(shape \[2, 3\]\), of extents 2 and 3/);
    expect(() => plan("ii->i", [1, 3])).toThrow(ShapeMismatchError);
    // operands could not be broadcast together with remapped shapes
    expect(() => plan("...i,...i", [2, 3], [4, 3])).toThrow(BroadcastError);
    expect(() => plan("...i,...i", [2, 3], [4, 3])).toThrow(/the axes under '...' do not broadcast: axis 0 of operand 0 \(shape \[2, 3\]\) has extent 2 and axis 0 of operand 1 \(shape \[4, 3\]\) 4/);
    expect(() => plan("ij,ij->ij", [2, 2], [1, 3])).toThrow(/label 'j' has extent 2 in operand 0/);
  });

  it("refuses output labels no input has, named twice, or an output without '...' for broadcast axes", () => {
    // einstein sum subscripts string included output subscript 'k' which never appeared in an input
    expect(() => plan("ij->k", [2, 3])).toThrow(/the output of "ij->k" names 'k', which no operand's term has/);
    // einstein sum subscripts string includes output subscript 'i' multiple times
    expect(() => plan("ij->ii", [2, 3])).toThrow(/names 'i' twice/);
    expect(() => plan("ij->i...i", [2, 3])).toThrow(ArgumentError);
    // output has more dimensions than subscripts given in einstein sum, but no '...' ellipsis provided
    expect(() => plan("...ij->j", [5, 2, 3])).toThrow(/the operands have 1 broadcast axes under '...' but the output of "...ij->j" has no '...'/);
    expect(() => plan("...ij->j", [1, 2, 3])).toThrow(ArgumentError);
  });

  it("refuses tensordot axes out of range, named twice, of unequal counts or of unequal extents", () => {
    expect(() => tensordotPlan([2, 3], [3, 4], 3)).toThrow(AxisError);
    expect(() => tensordotPlan([2, 3], [3, 4], -1)).toThrow(/pass a count from 0 to 2/);
    expect(() => tensordotPlan([2, 3], [3, 4], [[1], [2]])).toThrow(AxisError);
    expect(() => tensordotPlan([2, 3], [3, 3], [[1, 1], [0, 1]])).toThrow(/name an axis twice/);
    expect(() => tensordotPlan([2, 3], [3, 4], [[1, 0], [0]])).toThrow(/2 axes of a are paired with 1 of b/);
    expect(() => tensordotPlan([2, 3], [3, 4], "x")).toThrow(TypeError);
    expect(() => tensordotPlan([2, 3], [3, 4], [[1], "0"])).toThrow(TypeError);
    // shape-mismatch for sum
    expect(() => tensordotPlan([2, 3], [4, 3], 1)).toThrow(ShapeMismatchError);
    expect(() => tensordotPlan([2, 3], [4, 3], 1)).toThrow(/axis 1 of a \(shape \[2, 3\]\) has extent 3 but axis 0 of b \(shape \[4, 3\]\) has 4/);
    // tensordot does not broadcast extents of 1 (NumPy's does not either).
    expect(() => tensordotPlan([2, 1], [3, 4], 1)).toThrow(ShapeMismatchError);
  });
});

describe("einsum's and tensordot's arguments", () => {
  it("checks everything before a stream is needed", () => {
    const [a, b] = fakes([
      [2, 3],
      [3, 4],
    ]);
    // Past every check, the call needs a stream: arrays over fake memory have none.
    expect(() => einsum("ij,jk->ik", a!, b!)).toThrow(/einsum needs a stream/);
    expect(() => einsum("ij,jk", a!, b!, { out: fakeArray([2, 4], "float32") })).toThrow(/needs a stream/);
    expect(() => einsum("ij,jk", a!, b!, { dtype: "float64" })).toThrow(/needs a stream/);
    expect(() => tensordot(a!, b!, 1)).toThrow(/tensordot needs a stream/);
    // Each error comes first.
    expect(() => einsum(["ij"] as never, a!)).toThrow(/subscripts are a string/);
    expect(() => einsum("ij,jk", a!)).toThrow(ArgumentError);
    expect(() => tensordot(a!, b!, 1, { out: fakeArray([4, 2], "float32") })).toThrow(ShapeMismatchError);
    expect(() => tensordot(a!, b!, 3)).toThrow(AxisError);
    expect(() => einsum("ij,jk", a!, fakeArray([4, 5], "float32"))).toThrow(ShapeMismatchError);
    expect(() => einsum("ij,jk", a!, 3 as never)).toThrow(/einsum: operand 1 is a DeviceArray, not/);
    expect(() => einsum("ij,jk", [a!, b!] as never)).toThrow(/operands as separate arguments/);
    expect(() => einsum("ij,jk", a!, b!, { out: fakeArray([2, 3], "float32") })).toThrow(/einsum: out has shape \[2, 3\] but the result has \[2, 4\]/);
    expect(() => einsum("ij,jk", a!, b!, { out: fakeArray([2, 4], "int32") })).toThrow(DTypeError);
    expect(() => einsum("ij,jk", a!, b!, { out: fakeArray([2, 4], "int32") })).toThrow(/the result is float32 and cannot be stored in a int32 out under "safe"/);
    expect(() => einsum("ij,jk", a!, b!, { out: {} as never })).toThrow(TypeError);
    expect(() => einsum("ij,jk", a!, b!, { dtype: "float16" })).toThrow(/operand 0 is float32, which does not convert to float16 safely/);
    expect(() => einsum("ij,jk", a!, b!, { dtype: "nope" as never })).toThrow(DTypeError);
    // The promoted dtype (NumPy 2): int32 with float32 is float64, which a float32 out does not take under einsum's
    // "safe" casting (NumPy's default); a float64 one does, and tensordot's out casts under "same_kind".
    const i = fakeArray([2, 3], "int32");
    expect(() => einsum("ij,jk", i, b!, { out: fakeArray([2, 4], "float32") })).toThrow(/the result is float64 and cannot be stored in a float32 out under "safe"/);
    expect(() => einsum("ij,jk", i, b!, { out: fakeArray([2, 4], "float64") })).toThrow(/needs a stream/);
    expect(() => einsum("ij,jk", b!.transpose(), a!.transpose(), { out: fakeArray([4, 2], "float64") })).toThrow(/needs a stream/);
    expect(() => tensordot(i, b!, 1, { out: fakeArray([2, 4], "float32") })).toThrow(/needs a stream/);
    expect(() => einsum("ij,jk", i, fakeArray([3, 4], "int32"), { out: fakeArray([2, 4], "bool") })).toThrow(/the result is int32/);
    const gone = fakeArray([2, 3], "float32");
    gone.close();
    expect(() => einsum("ij", gone)).toThrow(ClosedError);
  });

  it("refuses operands on different devices (DeviceMismatchError)", () => {
    const a = fakeArray([2, 3], "float32", 0);
    const b = fakeArray([3, 4], "float32", 1);
    expect(() => einsum("ij,jk", a, b)).toThrow(DeviceMismatchError);
    expect(() => einsum("ij,jk", a, fakeArray([3, 4], "float32", 0), { out: fakeArray([2, 4], "float32", 1) })).toThrow(DeviceMismatchError);
    expect(() => tensordot(a, b, 1)).toThrow(DeviceMismatchError);
  });

  it("come from cuda-ts/array/linalg", () => {
    expect(typeof linalg.einsum).toBe("function");
    expect(typeof linalg.tensordot).toBe("function");
  });
});
