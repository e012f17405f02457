/**
 * Scans without a GPU: dtypes, plans (which kernel for which layout), the scratch layout, the generated source, and a
 * simulation on the CPU of the single-pass tile kernel: the in-tile arrangement (warps, runs of `vec` elements per
 * lane, warp scans, the warps' totals) and the decoupled look-back between tiles under random interleavings of the
 * blocks, each compared with a sequential running sum.
 */
import { describe, expect, it } from "vitest";
import { AxisError, Buffer, DTypeError, DeviceArray, ShapeMismatchError, dtypes, type DType, type MemoryResource } from "../../../src/index.ts";
import { cumprod, cumsum, cumulativeProd, cumulativeSum, nancumprod, nancumsum } from "../../../src/array.ts";
import { scanDTypes, scanPlan, scanScratchLayout, SCAN_TILES_MIN_LENGTH } from "../../../src/core/array/ops/scan.ts";
import { SCAN_LINES_BYTES, scanAccumulateName, scanLinesLayout, scanOutputAlign, scanSource, scanTileShape, scanTuning } from "../../../src/core/array/ops/scan-source.ts";

/** Threads per block of the tile kernel. */
const TILE_BLOCK = scanTuning.tileBlock;
const BASE = 0x7f00_0000_0000n;
const hostResource: MemoryResource = {
  allocate: () => {
    throw new Error("not used");
  },
  deallocate: () => undefined,
  isDeviceAccessible: true,
  isHostAccessible: true,
  deviceId: -1,
};
function arr(shape: number[], dtype: "float32" | "int32" = "float32"): DeviceArray {
  return DeviceArray.fromBuffer(Buffer.fromHandle(BASE, 1 << 16, { memoryResource: hostResource }), { dtype, shape });
}

describe("scan dtypes", () => {
  it("follow sum's: int64 for bool and signed, uint64 for unsigned, floats keep theirs (halves accumulate in float32)", () => {
    const out = (d: DType, r?: DType): [string, string] => {
      const x = scanDTypes("sum", d, r);
      return [x.out.name, x.accumulate.name];
    };
    expect(out(dtypes.bool)).toEqual(["int64", "int64"]);
    expect(out(dtypes.int8)).toEqual(["int64", "int64"]);
    expect(out(dtypes.uint16)).toEqual(["uint64", "uint64"]);
    expect(out(dtypes.float16)).toEqual(["float16", "float32"]);
    expect(out(dtypes.bfloat16)).toEqual(["bfloat16", "float32"]);
    expect(out(dtypes.float32)).toEqual(["float32", "float32"]);
    expect(out(dtypes.complex64)).toEqual(["complex64", "complex64"]);
    expect(out(dtypes.int32, dtypes.int8)).toEqual(["int8", "int32"]);
    expect(out(dtypes.int32, dtypes.uint16)).toEqual(["uint16", "uint32"]);
    expect(out(dtypes.float32, dtypes.bool)).toEqual(["bool", "int32"]);
    expect(() => scanDTypes("sum", dtypes.complex64, dtypes.float32)).toThrow(DTypeError);
    expect(scanAccumulateName(dtypes.float64)).toBe("float64");
  });
});

describe("scan plans", () => {
  it("a contiguous run takes the tile kernel", () => {
    expect(scanPlan([1000], [1], [1], 0)).toEqual({ kind: "tiles", len: 1000, lineOffsets: [[0, 0]] });
    expect(scanPlan([1, 1000, 1], [1000, 1, 1], [1000, 1, 1], 1)).toEqual({ kind: "tiles", len: 1000, lineOffsets: [[0, 0]] });
    expect(scanPlan([0, 5], [5, 1], [5, 1], 1)).toEqual({ kind: "empty" });
  });

  it("a few long contiguous lines: one tile launch each, at each line's offset", () => {
    const n = SCAN_TILES_MIN_LENGTH;
    const p = scanPlan([3, n], [n, 1], [n, 1], 1);
    expect(p.kind).toBe("tiles");
    expect(p.kind === "tiles" && p.lineOffsets).toEqual([
      [0, 0],
      [n, n],
      [2 * n, 2 * n],
    ]);
  });

  it("many contiguous lines: a warp per line; short or strided axes: a thread per line", () => {
    const rows = scanPlan([100, 200], [200, 1], [200, 1], 1);
    expect(rows).toMatchObject({ kind: "rows", lines: 100, len: 200, shape: [100], stridesIn: [200], stridesOut: [200], axisIn: 1, axisOut: 1 });
    const cols = scanPlan([100, 200], [200, 1], [200, 1], 0);
    expect(cols).toMatchObject({ kind: "lines", lines: 200, len: 100, shape: [200], stridesIn: [1], stridesOut: [1], axisIn: 200, axisOut: 200 });
    const short = scanPlan([1000, 8], [8, 1], [8, 1], 1);
    expect(short).toMatchObject({ kind: "lines", chunks: 1, chunkLen: 8 });
    // The middle axis of a 3-d array: the other two merge only where they are neighbours (they are not here).
    const mid = scanPlan([2, 3, 4], [12, 4, 1], [12, 4, 1], 1);
    expect(mid).toMatchObject({ kind: "lines", lines: 8, len: 3, shape: [2, 4], stridesIn: [12, 1], axisIn: 4 });
    // A transposed input into a contiguous output.
    const t = scanPlan([4, 3], [1, 4], [3, 1], 1);
    expect(t).toMatchObject({ kind: "lines", shape: [4], stridesIn: [1], stridesOut: [3], axisIn: 4, axisOut: 1 });
  });

  it("too few lines to fill the device: each line cut into chunks of at least 64", () => {
    const p = scanPlan([16384, 1024], [1024, 1], [1024, 1], 0);
    expect(p).toMatchObject({ kind: "lines", lines: 1024, len: 16384, chunks: 256, chunkLen: 64 });
    const q = scanPlan([3000, 40], [40, 1], [40, 1], 0);
    expect(q).toMatchObject({ kind: "lines", lines: 40, chunks: 46, chunkLen: 66 });
    // The last chunk is shorter; every element is in one chunk.
    expect(q.kind === "lines" && (q.chunks - 1) * q.chunkLen < 3000 && q.chunks * q.chunkLen >= 3000).toBe(true);
    expect(scanPlan([3000, 40], [40, 1], [40, 1], 0, 40)).toMatchObject({ chunks: 1, chunkLen: 3000 });
    // Rows (contiguous along the axis) are never cut.
    expect(scanPlan([10, 5000], [5000, 1], [5000, 1], 1)).toMatchObject({ kind: "rows", chunks: 1 });
  });

  it("the line layout struct is extents, strides in, strides out, ndim, length, the axis strides", () => {
    const b = scanLinesLayout([5, 6], [6, 1], [60, 10], 7, 30, 1);
    expect(b.byteLength).toBe(SCAN_LINES_BYTES);
    const v = new BigInt64Array(b.buffer);
    expect([v[0], v[1], v[8], v[9], v[16], v[17], v[24], v[25], v[26], v[27]]).toEqual([5n, 6n, 6n, 1n, 60n, 10n, 2n, 7n, 30n, 1n]);
  });

  it("the scratch holds a counter, 8 bytes of status per tile, then 16-byte-aligned aggregates and inclusive prefixes", () => {
    const s = scanScratchLayout(10, dtypes.float32);
    expect(s).toEqual({ flagsAt: 16, aggregatesAt: 96, inclusivesAt: 144, bytes: 192, zeroWords: 24 });
    const d = scanScratchLayout(3, dtypes.float64);
    expect(d.aggregatesAt % 16).toBe(0);
    expect(d.inclusivesAt - d.aggregatesAt).toBe(32);
  });
});

describe("scan source", () => {
  it("has the three kernels, 16-byte packs and the look-back protocol", () => {
    const s = scanSource("sum", dtypes.float32, dtypes.float32, dtypes.float32, false);
    for (const k of ["_tiles(", "_rows(", "_lines("]) expect(s).toContain(`cuda_ts_scan_sum_float32_float32_float32${k}`);
    expect(s).toContain("#define CT_ITEMS 32");
    expect(s).toContain("#define CT_VEC 4");
    expect(s).toContain("struct __align__(16) ct_in_pack { TI e[CT_VEC]; };");
    // A 4-byte accumulation: flag and value in one 64-bit status word.
    expect(s).toContain("ld.relaxed.gpu.global.b64");
    expect(s).toContain("st.relaxed.gpu.global.b64");
    expect(s).toContain("        ct_publish(flags, tile, 1, tileTotal);");
    // An 8-byte one: a flag written with release after the value, read with acquire before it.
    const d = scanSource("sum", dtypes.float64, dtypes.float64, dtypes.float64, false);
    expect(d).toContain("ld.acquire.gpu.global.b32");
    expect(d).toContain("st.release.gpu.global.b32");
    expect(d).not.toContain("ct_publish");
    expect(s).toContain("atomicAdd(counter, 1u)");
    expect(s).toContain("__launch_bounds__(CT_TBLOCK, CT_MIN_BLOCKS)");
    // The stash is dynamic shared memory (the launch gives the tile's accumulators' bytes).
    expect(s).toContain("extern __shared__ __align__(16) unsigned char s_stash_raw[];");
    expect(s).toContain("s_stash[k * 32 + lane] = pk;");
    expect(s).toContain("#define CT_STREAMING 1");
    expect(s).toContain("return a + b;");
    // Balanced braces and parentheses: the generated C++ is at least well nested.
    const code = s.replace(/\/\/.*$/gm, "");
    const count = (c: string): number => code.split(c).length - 1;
    expect(count("{")).toBe(count("}"));
    expect(count("(")).toBe(count(")"));
  });

  it("converts halves through float, and narrow outputs from their accumulation", () => {
    const h = scanSource("prod", dtypes.float16, dtypes.float32, dtypes.float16, false);
    expect(h).toContain("#include <cuda_fp16.h>");
    expect(h).toContain("return (TA)((float)(x));");
    expect(h).toContain("return a * b;");
    expect(h).toContain("return (TA)(1);");
    const b = scanSource("sum", dtypes.int8, dtypes.int64, dtypes.int64, false);
    expect(b).toContain("#define CT_ITEMS 16");
    expect(b).toContain("#define CT_VEC 16");
    expect(b).toContain("struct __align__(16) ct_in_pack");
    expect(b).toContain("struct __align__(16) ct_out_pack");
    const c = scanSource("sum", dtypes.int8, dtypes.complex128, dtypes.complex128, false);
    expect(c).toContain("#define CT_ITEMS 8");
    expect(c).toContain("#define CT_VEC 8");
    expect(c).toContain("struct __align__(8) ct_in_pack");
    expect(scanOutputAlign(dtypes.float32, dtypes.float32, dtypes.float16)).toBe(8);
    expect(scanSource("sum", dtypes.float32, dtypes.int32, dtypes.bool, true)).toContain("return (a != (TA)0);");
  });

  it("tile shapes: 16-byte loads, 8 to 32 elements per thread", () => {
    expect(scanTileShape(dtypes.int8, dtypes.int32)).toMatchObject({ items: 32, vec: 16, tile: 32 * TILE_BLOCK });
    expect(scanTileShape(dtypes.float16, dtypes.float32)).toMatchObject({ items: 32, vec: 8, tile: 32 * TILE_BLOCK });
    expect(scanTileShape(dtypes.float32, dtypes.float32)).toMatchObject({ items: 32, vec: 4, tile: 32 * TILE_BLOCK });
    expect(scanTileShape(dtypes.float64, dtypes.float64)).toMatchObject({ items: 16, vec: 2, tile: 16 * TILE_BLOCK });
    expect(scanTileShape(dtypes.complex128, dtypes.complex128)).toMatchObject({ items: 8, vec: 1, tile: 8 * TILE_BLOCK });
    // Wide accumulators of narrow inputs: fewer items, so the tile's accumulators fit the shared-memory stash.
    expect(scanTileShape(dtypes.int32, dtypes.int64)).toMatchObject({ items: 16, vec: 4, tile: 16 * TILE_BLOCK });
    expect(scanTileShape(dtypes.float32, dtypes.float64)).toMatchObject({ items: 16, vec: 4, tile: 16 * TILE_BLOCK });
  });

  it("every input and accumulator pair keeps its tile within the stash's shared memory", () => {
    const inputs = Object.values(dtypes);
    const accumulators = [dtypes.int32, dtypes.uint32, dtypes.int64, dtypes.uint64, dtypes.float32, dtypes.float64, dtypes.complex64, dtypes.complex128];
    for (const input of inputs) {
      for (const acc of accumulators) {
        if (acc.itemsize < input.itemsize) continue;
        const { items, vec, tile } = scanTileShape(input, acc);
        const what = `${input.name} into ${acc.name}`;
        expect(tile * acc.itemsize, what).toBeLessThanOrEqual(scanTuning.stashBytes);
        expect(items % vec, what).toBe(0);
        expect(vec * input.itemsize, what).toBeLessThanOrEqual(16);
      }
    }
  });
});

describe("scan errors before the stream", () => {
  it("axes, dtypes and out shapes", () => {
    const a = arr([3, 4]);
    expect(() => cumsum(a, { axis: 2 })).toThrow(AxisError);
    expect(() => a.cumsum({ axis: -3 })).toThrow("axis -3 is out of range");
    expect(() => cumprod(a, { out: arr([3, 4]) })).toThrow(ShapeMismatchError);
    expect(() => cumprod(a, { out: arr([3, 4]) })).toThrow("out has shape [3, 4] but the result has shape [12]");
    expect(() => cumsum(a, { dtype: "int32", out: arr([12]) })).toThrow(DTypeError);
    expect(() => cumsum(a)).toThrow("needs a stream");
  });

  it("cumulativeSum and cumulativeProd need an axis past 1-d and check includeInitial's out", () => {
    const a = arr([3, 4]);
    expect(() => cumulativeSum(a)).toThrow(AxisError);
    expect(() => cumulativeSum(a)).toThrow("cumulativeSum: give axis for an array of 2 axes (shape [3, 4])");
    expect(() => cumulativeProd(a, { axis: 2 })).toThrow("cumulativeProd: axis 2 is out of range");
    expect(() => cumulativeSum(a, { axis: 1, includeInitial: 1 as never })).toThrow("includeInitial is a boolean");
    expect(() => cumulativeSum(a, { axis: 1, includeInitial: true, out: arr([3, 4]) })).toThrow(
      "cumulativeSum: out has shape [3, 4] but the result (with the initial 0) has shape [3, 5]",
    );
    expect(() => cumulativeSum(a, { axis: 1, out: arr([3, 5]) })).toThrow("cumulativeSum: out has shape [3, 5] but the result has shape [3, 4]");
    expect(() => cumulativeSum(arr([4]))).toThrow("cumulativeSum needs a stream");
    expect(() => cumulativeProd(a, { axis: 0, includeInitial: true })).toThrow("cumulativeProd needs a stream");
  });

  it("nancumsum and nancumprod check as cumsum and cumprod, under their own names", () => {
    const a = arr([3, 4]);
    expect(() => nancumsum(a, { axis: 2 })).toThrow(AxisError);
    expect(() => nancumsum(a, { axis: 2 })).toThrow("nancumsum: axis 2 is out of range");
    expect(() => nancumprod(a, { out: arr([3, 4]) })).toThrow("nancumprod: out has shape [3, 4] but the result has shape [12]");
    expect(() => nancumsum(a, { dtype: "int32", out: arr([12]) })).toThrow(DTypeError);
    expect(() => nancumsum([1, 2] as never)).toThrow("nancumsum takes a DeviceArray");
    expect(() => nancumprod(a, 3 as never)).toThrow(TypeError);
    // Past the checks (float and integer arrays alike): the stream is what is missing.
    expect(() => nancumsum(a, { axis: -1 })).toThrow("nancumsum needs a stream");
    expect(() => nancumprod(arr([5], "int32"))).toThrow("needs a stream");
  });
});

// ---- a CPU model of the tile kernel ----

/** The tile kernel's arithmetic for one tile, as the source writes it: each thread's runs, warp scans, warps' totals. */
function scanTile(values: readonly number[], tile: number, n: number, items: number, vec: number, exclusive: boolean): { local: Map<number, number>; total: number } {
  const K = items / vec;
  const warps = TILE_BLOCK / 32;
  const local = new Map<number, number>();
  const warpTotals: number[] = [];
  const perWarp: { idx: number; pre: number; inc: number[] }[][] = [];
  for (let w = 0; w < warps; w++) {
    const warpBase = tile * TILE_BLOCK * items + w * 32 * items;
    const v: number[][][] = []; // [lane][k][j] inclusive within the run
    for (let lane = 0; lane < 32; lane++) {
      v.push([]);
      for (let k = 0; k < K; k++) {
        const run: number[] = [];
        for (let j = 0; j < vec; j++) {
          const idx = warpBase + (k * 32 + lane) * vec + j;
          run.push((idx < n ? values[idx]! : 0) + (j > 0 ? run[j - 1]! : 0));
        }
        v[lane]!.push(run);
      }
    }
    const runPrefix: number[][] = v.map(() => []);
    let carry = 0;
    for (let k = 0; k < K; k++) {
      // Inclusive warp scan of the runs' totals, then each lane's exclusive prefix.
      let acc = 0;
      const scanned = v.map((lane) => (acc += lane[k]![vec - 1]!));
      for (let lane = 0; lane < 32; lane++) runPrefix[lane]![k] = lane === 0 ? carry : carry + scanned[lane - 1]!;
      carry += scanned[31]!;
    }
    warpTotals.push(carry);
    const entries: { idx: number; pre: number; inc: number[] }[] = [];
    for (let lane = 0; lane < 32; lane++) for (let k = 0; k < K; k++) entries.push({ idx: warpBase + (k * 32 + lane) * vec, pre: runPrefix[lane]![k]!, inc: v[lane]![k]! });
    perWarp.push(entries);
  }
  let warpPrefix = 0;
  for (let w = 0; w < warps; w++) {
    for (const e of perWarp[w]!) {
      for (let j = 0; j < vec; j++) {
        const idx = e.idx + j;
        if (idx >= n) continue;
        const pre = warpPrefix + e.pre;
        local.set(idx, exclusive ? (j === 0 ? pre : pre + e.inc[j - 1]!) : pre + e.inc[j]!);
      }
    }
    warpPrefix += warpTotals[w]!;
  }
  return { local, total: warpTotals.reduce((a, b) => a + b, 0) };
}

/** A small deterministic generator (the schedules must be reproducible). */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/**
 * The decoupled look-back across tiles with blocks interleaved at random: each block in turn takes a tile from the
 * counter, publishes its aggregate, looks back a window of `window` predecessors at a time (spinning while any flag is
 * 0), stops at the nearest inclusive prefix, publishes its own. Returns each tile's exclusive prefix.
 */
function lookBack(totals: readonly number[], window: number, seed: number): number[] {
  const T = totals.length;
  const flags = new Array<number>(T).fill(0);
  const aggregates = new Array<number>(T).fill(NaN);
  const inclusives = new Array<number>(T).fill(NaN);
  const prefixes = new Array<number>(T).fill(NaN);
  let counter = 0;
  interface Block {
    tile: number;
    state: "start" | "publish" | "look" | "done";
    base: number;
    exclusive: number;
  }
  const blocks: Block[] = [];
  const random = rng(seed);
  let started = 0;
  let guard = 0;
  while (blocks.some((b) => b.state !== "done") || started < T) {
    if (++guard > 10_000_000) throw new Error("the look-back did not finish (a deadlock)");
    // Start a new block now and then (resident blocks are limited: at most 6 at once).
    const live = blocks.filter((b) => b.state !== "done").length;
    if (started < T && (live === 0 || (live < 6 && random() < 0.3))) {
      blocks.push({ tile: -1, state: "start", base: 0, exclusive: 0 });
      started++;
      continue;
    }
    const running = blocks.filter((b) => b.state !== "done");
    const b = running[Math.floor(random() * running.length)]!;
    if (b.state === "start") {
      b.tile = counter++;
      b.state = "publish";
    } else if (b.state === "publish") {
      if (b.tile === 0) {
        inclusives[0] = totals[0]!;
        flags[0] = 2;
        prefixes[0] = 0;
        b.state = "done";
      } else {
        aggregates[b.tile] = totals[b.tile]!;
        flags[b.tile] = 1;
        b.base = b.tile - 1;
        b.state = "look";
      }
    } else if (b.state === "look") {
      const f: number[] = [];
      for (let lane = 0; lane < window; lane++) {
        const p = b.base - lane;
        f.push(p >= 0 ? flags[p]! : 2);
      }
      if (f.some((x) => x === 0)) continue; // spin
      const doneLane = f.indexOf(2);
      const limit = doneLane >= 0 ? doneLane : window - 1;
      let sum = 0;
      for (let lane = 0; lane <= limit; lane++) {
        const p = b.base - lane;
        if (p < 0) continue;
        const v = f[lane] === 2 ? inclusives[p]! : aggregates[p]!;
        expect(Number.isNaN(v)).toBe(false);
        sum += v;
      }
      b.exclusive = sum + b.exclusive;
      if (doneLane >= 0) {
        inclusives[b.tile] = b.exclusive + totals[b.tile]!;
        flags[b.tile] = 2;
        prefixes[b.tile] = b.exclusive;
        b.state = "done";
      } else b.base -= window;
    }
  }
  return prefixes;
}

describe("the single-pass scan, simulated on the CPU", () => {
  it("the look-back gives every tile its exclusive prefix under random interleavings", () => {
    for (const [T, window, seed] of [
      [1, 32, 1],
      [2, 32, 2],
      [40, 32, 3],
      [300, 32, 4],
      [300, 4, 5],
      [77, 1, 6],
      [500, 32, 7],
    ] as const) {
      const totals = Array.from({ length: T }, (_, t) => ((t * 7919) % 13) - 4);
      const expected: number[] = [];
      let acc = 0;
      for (const x of totals) {
        expected.push(acc);
        acc += x;
      }
      expect(lookBack(totals, window, seed), `T=${T} window=${window}`).toEqual(expected);
    }
  });

  it("tiles with the look-back's prefixes give the running sum (inclusive and exclusive; full and partial tiles)", () => {
    for (const dtype of [dtypes.float32, dtypes.float64, dtypes.int8, dtypes.complex128]) {
      const { items, vec, tile } = scanTileShape(dtype, dtype);
      const n = 2 * tile + 1234;
      const values = Array.from({ length: n }, (_, i) => ((i * 31) % 11) - 5);
      for (const exclusive of [false, true]) {
        const tiles = Math.ceil(n / tile);
        const parts = Array.from({ length: tiles }, (_, t) => scanTile(values, t, n, items, vec, exclusive));
        const prefixes = lookBack(
          parts.map((p) => p.total),
          32,
          11,
        );
        const got = new Array<number>(n);
        parts.forEach((p, t) => p.local.forEach((v, idx) => (got[idx] = prefixes[t]! + v)));
        const expected: number[] = [];
        let acc = 0;
        for (const x of values) {
          if (exclusive) expected.push(acc);
          acc += x;
          if (!exclusive) expected.push(acc);
        }
        expect(got, `${dtype.name} exclusive=${exclusive}`).toEqual(expected);
      }
    }
  });
});
