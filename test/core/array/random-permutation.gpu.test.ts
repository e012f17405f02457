/**
 * `permutation`, `shuffle` and `choice` of `cuda-ts/array/random` on a real GPU: a permutation of n holds 0..n-1 once
 * each (n = 0, 1, 1000, 10⁶); an array's permutation and shuffle keep its rows (or columns) whole and their multiset;
 * choice with replacement stays in range with near-uniform counts, without replacement gives distinct values, with
 * weights p never draws a weight-0 entry and draws the others in proportion (p unnormalised too); draws from arrays;
 * the same seed gives the same results; the module-level functions. Skips without a GPU.
 */
import { describe, expect, it } from "vitest";
import { DeviceArray, type Stream } from "../../../src/index.ts";
import { choice, defaultRng, permutation, seed, shuffle } from "../../../src/array-random.ts";
import { gpu, skipNote } from "../../support/gpu.ts";
import { onGpuStream } from "../../support/gpu-arrays.ts";
import { numbers as ints, readAndClose } from "../../support/arrays.ts";

/** Whether `xs` holds each of 0..n-1 once. */
function isPermutation(xs: readonly number[], n: number): boolean {
  if (xs.length !== n) return false;
  const seen = new Uint8Array(n);
  for (const x of xs) {
    if (!Number.isInteger(x) || x < 0 || x >= n || seen[x] === 1) return false;
    seen[x] = 1;
  }
  return true;
}

/** The rows of a row-major [rows, cols] list. */
function rowsOf(xs: readonly number[], cols: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < xs.length; i += cols) out.push(xs.slice(i, i + cols).join(","));
  return out;
}

describe.skipIf(!gpu.available)(`random permutations and choices on a GPU${skipNote}`, () => {
  let stream: Stream;
  onGpuStream((s) => (stream = s));

  const read = (x: DeviceArray): number[] => readAndClose(x, stream);

  it("permutation(n) holds 0..n-1 once each, int64, in a random order", () => {
    using g = defaultRng(11, { stream });
    for (const n of [0, 1, 1000, 1_000_000, 3n]) {
      const p = g.permutation(n);
      expect(p.dtype.name).toBe("int64");
      expect(p.shape).toEqual([Number(n)]);
      const xs = read(p);
      expect(isPermutation(xs, Number(n)), `n = ${n}`).toBe(true);
      if (n === 1000) expect(xs).not.toEqual([...Array(1000).keys()]);
    }
  });

  it("the same seed gives the same permutations and choices; the sequence moves on", () => {
    using g1 = defaultRng(5, { stream });
    using g2 = defaultRng(5, { stream });
    const a = read(g1.permutation(1000));
    expect(read(g2.permutation(1000))).toEqual(a);
    expect(read(g1.permutation(1000))).not.toEqual(a);
    read(g2.permutation(1000)); // g2 back in step with g1
    using p = DeviceArray.from(Float64Array.from([1, 2, 3, 4]), { stream });
    using x = DeviceArray.from(Float32Array.from([5, 6, 7, 8, 9]), { stream });
    const draws: ((g: typeof g1) => DeviceArray)[] = [(g) => g.choice(4, [100], { p }), (g) => g.choice(x, [3], { replace: false }), (g) => g.choice(1000, [50]), (g) => g.permutation(x)];
    for (const draw of draws) {
      const second = read(draw(g2));
      expect(second).toEqual(read(draw(g1)));
    }
  });

  it("permutation of an array reorders its slices along the axis, each kept whole", () => {
    using g = defaultRng(3, { stream });
    const host = Float32Array.from({ length: 40 * 3 }, (_, i) => i);
    using x = DeviceArray.from(host, { stream, shape: [40, 3] });
    const rows = g.permutation(x);
    expect(rows.shape).toEqual([40, 3]);
    const got = rowsOf(read(rows), 3);
    const want = rowsOf([...host], 3);
    expect([...got].sort()).toEqual([...want].sort());
    expect(got).not.toEqual(want);
    const cols = g.permutation(x, { axis: 1 });
    const c = read(cols);
    // Each row holds its own three values, in one column order shared by every row.
    const order = [0, 1, 2].map((j) => c[j]!);
    expect([...order].sort((p, q) => p - q)).toEqual([0, 1, 2]);
    for (let i = 0; i < 40; i++) expect(c.slice(3 * i, 3 * i + 3)).toEqual(order.map((j) => 3 * i + j));
    // A 1-d view with a step.
    const v = g.permutation(x.slice(null, 1));
    expect(read(v).sort((p, q) => p - q)).toEqual([...Array(40).keys()].map((i) => 3 * i + 1));
  });

  it("shuffle reorders in place, keeping the multiset (and rows whole)", () => {
    using g = defaultRng(8, { stream });
    const host = Int32Array.from({ length: 10_000 }, (_, i) => (i * 7919) % 1000);
    using x = DeviceArray.from(host, { stream });
    expect(g.shuffle(x)).toBeUndefined();
    const after = ints(x.toTypedArraySync({ stream }));
    expect(after).not.toEqual([...host]);
    expect([...after].sort((p, q) => p - q)).toEqual([...host].sort((p, q) => p - q));
    const m = Float64Array.from({ length: 50 * 4 }, (_, i) => i);
    using y = DeviceArray.from(m, { stream, shape: [50, 4] });
    g.shuffle(y);
    const rows = rowsOf(ints(y.toTypedArraySync({ stream })), 4);
    expect([...rows].sort()).toEqual(rowsOf([...m], 4).sort());
  });

  it("choice with replacement: in range, int64 of the size's shape, near-uniform counts", () => {
    using g = defaultRng(21, { stream });
    const k = g.choice(10, [200, 500]);
    expect(k.dtype.name).toBe("int64");
    expect(k.shape).toEqual([200, 500]);
    const counts = new Array<number>(10).fill(0);
    for (const x of read(k)) counts[x]! += 1;
    for (const c of counts) expect(Math.abs(c - 10_000)).toBeLessThan(600);
    const one = g.choice(7);
    expect(one.shape).toEqual([]);
    expect(read(one)[0]).toBeLessThan(7);
  });

  it("choice without replacement: distinct values; the whole population is a permutation", () => {
    using g = defaultRng(22, { stream });
    const s = read(g.choice(1000, [20, 10], { replace: false }));
    expect(new Set(s).size).toBe(200);
    for (const x of s) expect(x >= 0 && x < 1000).toBe(true);
    expect(isPermutation(read(g.choice(50, [50], { replace: false })), 50)).toBe(true);
    expect(read(g.choice(5, [0], { replace: false }))).toEqual([]);
    // Every value equally likely to be drawn: counts over many small samples.
    const counts = new Array<number>(8).fill(0);
    for (let t = 0; t < 400; t++) for (const x of read(g.choice(8, [3], { replace: false }))) counts[x]! += 1;
    for (const c of counts) expect(Math.abs(c - 150)).toBeLessThan(60);
  });

  it("choice with p: weight-0 entries never drawn, the others in proportion; p need not sum to 1", () => {
    using g = defaultRng(23, { stream });
    const N = 200_000;
    for (const [dtype, weights] of [
      ["float64", [0.5, 0, 0.25, 0, 0.25]],
      ["float32", [2, 0, 1, 0, 1]],
      ["float64", [0, 0, 3, 1, 0]],
    ] as const) {
      using p = DeviceArray.from(dtype === "float64" ? Float64Array.from(weights) : Float32Array.from(weights), { stream });
      const total = (weights as readonly number[]).reduce((s, w) => s + w, 0);
      const counts = new Array<number>(5).fill(0);
      for (const x of read(g.choice(5, [N], { p }))) counts[x]! += 1;
      weights.forEach((w, i) => {
        if (w === 0) expect(counts[i], `${dtype} [${weights.join(", ")}]: entry ${i}`).toBe(0);
        else expect(Math.abs(counts[i]! / N - w / total), `${dtype} [${weights.join(", ")}]: entry ${i}`).toBeLessThan(0.01);
      });
    }
    using only = DeviceArray.from(Float64Array.from([0, 1, 0]), { stream });
    expect(new Set(read(g.choice(3, [1000], { p: only })))).toEqual(new Set([1]));
  });

  it("choice from an array draws its entries (rows along axis 0, columns along axis 1)", () => {
    using g = defaultRng(24, { stream });
    using x = DeviceArray.from(Float64Array.from({ length: 30 }, (_, i) => i * 10), { stream, shape: [10, 3] });
    const rows = g.choice(x, [4], { replace: false });
    expect(rows.shape).toEqual([4, 3]);
    const got = rowsOf(read(rows), 3);
    expect(new Set(got).size).toBe(4);
    const all = new Set(rowsOf(ints(x.toTypedArraySync({ stream })), 3));
    for (const r of got) expect(all.has(r)).toBe(true);
    const cols = g.choice(x, [2, 2], { axis: 1 });
    expect(cols.shape).toEqual([10, 2, 2]);
    const c = read(cols);
    for (let i = 0; i < 10; i++) for (const v of c.slice(4 * i, 4 * i + 4)) expect([0, 10, 20].map((d) => 30 * i + d)).toContain(v);
    using v = DeviceArray.from(Int32Array.from([7, 8, 9]), { stream });
    using p = DeviceArray.from(Float32Array.from([0, 0, 1]), { stream });
    expect(read(g.choice(v, [5], { p }))).toEqual([9, 9, 9, 9, 9]);
  });

  it("module-level permutation, shuffle and choice draw from the device's default generator, reseeded by seed", () => {
    seed(99);
    const a = read(permutation(500, { stream }));
    const b = read(choice(10, [5], { stream, replace: false }));
    seed(99);
    expect(read(permutation(500, { stream }))).toEqual(a);
    expect(read(choice(10, [5], { stream, replace: false }))).toEqual(b);
    expect(isPermutation(a, 500)).toBe(true);
    expect(new Set(b).size).toBe(5);
    using x = DeviceArray.from(Int32Array.from([1, 2, 3, 4, 5, 6]), { stream });
    shuffle(x, { stream });
    expect(ints(x.toTypedArraySync({ stream })).sort((p, q) => p - q)).toEqual([1, 2, 3, 4, 5, 6]);
    seed();
  });
});
