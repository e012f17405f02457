/**
 * `einsum` and `tensordot` on a real GPU, against NumPy's results (the NumPy call beside each literal): products,
 * batches, broadcast batches under '...', traces, diagonals, transposes, sums, outer and inner products, chains of
 * three operands, contractions over two labels, int32 (which stays int32 and wraps), bool (OR over AND), float16,
 * complex64, zero-size axes, `out` (direct, transposed, strided, of another dtype, overlapping an operand), `dtype`,
 * and that the temporaries are freed. Small integer-valued data, so float results are exact. Skips without a GPU.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DTypeError, Device, DeviceArray, MemoryPoolResource, ShapeMismatchError, type DTypeName, type Stream } from "../../../src/index.ts";
import { einsum, tensordot } from "../../../src/array-linalg.ts";
import { decodeHalf, encodeHalf } from "../../../src/core/array/dtype.ts";
import { gpu, skipNote } from "../../support/gpu.ts";
import { nums } from "./math-host.ts";

describe.skipIf(!gpu.available)(`einsum and tensordot on a GPU${skipNote}`, () => {
  let dev: Device;
  let stream: Stream;

  beforeAll(() => {
    if (!gpu.available) return;
    dev = new Device(0);
    dev.setCurrent();
    stream = dev.createStream();
  });

  afterAll(() => {
    stream?.close();
  });

  const count = (shape: readonly number[]): number => shape.reduce((x, y) => x * y, 1);
  /** Operand k's values: `(np.arange(n) % m - (m - 1) // 2).reshape(shape)` with m = 7, 5, 3 for k = 0, 1, 2. */
  const data = (shape: readonly number[], k: number): number[] => {
    const m = [7, 5, 3][k]!;
    return Array.from({ length: count(shape) }, (_, i) => (i % m) - (m - 1) / 2);
  };
  /** `data(shape, k)` as an array of `dtype` (float16's bits encoded; bool: non-zero). */
  const arr = (shape: readonly number[], k: number, dtype: DTypeName = "float64"): DeviceArray => {
    const d = data(shape, k);
    if (dtype === "float16") return DeviceArray.from(Uint16Array.from(d, encodeHalf), { stream, shape: [...shape], dtype });
    if (dtype === "bool") return DeviceArray.from(Uint8Array.from(d, (x) => (x !== 0 ? 1 : 0)), { stream, shape: [...shape], dtype });
    const host = { float64: Float64Array, float32: Float32Array, int32: Int32Array, int8: Int8Array } as const;
    const make = host[dtype as keyof typeof host];
    if (make === undefined) throw new Error(`no test data for ${dtype}`);
    return DeviceArray.from(make.from(d), { stream, shape: [...shape] });
  };
  const from = (values: readonly number[], shape: readonly number[], dtype: "bool" | "int8" | "complex64"): DeviceArray => {
    if (dtype === "bool") return DeviceArray.from(Uint8Array.from(values), { stream, shape: [...shape], dtype });
    if (dtype === "int8") return DeviceArray.from(Int8Array.from(values), { stream, shape: [...shape] });
    return DeviceArray.from(Float32Array.from(values), { stream, shape: [...shape], dtype }); // interleaved re, im
  };
  // -0 read as 0: cuBLAS may give 0·(-3) = -0 where NumPy's printed 0 is +0; the sign of a zero is not what is tested.
  const host = (a: DeviceArray): number[] =>
    (a.dtype.name === "float16" ? Array.from(a.toTypedArraySync({ stream }) as Uint16Array, decodeHalf) : nums(a.toTypedArraySync({ stream }))).map((v) => (v === 0 ? 0 : v));

  describe("einsum", () => {
    it("multiplies matrices (ij,jk->ik), on the operands' stream, in their dtype", () => {
      using A = arr([2, 3], 0, "float32");
      using B = arr([3, 2], 1, "float32");
      using C = einsum("ij,jk->ik", A, B);
      expect(C.dtype.name).toBe("float32");
      expect(C.shape).toEqual([2, 2]);
      expect(C.stream).toBe(stream);
      expect(host(C)).toEqual([4, 3, 4, -3]); // np.einsum('ij,jk->ik', a, b)
      using implicit = einsum("ij,jk", A, B);
      expect(host(implicit)).toEqual([4, 3, 4, -3]);
      using swapped = einsum("ij,jk->ki", A, B);
      expect(host(swapped)).toEqual([4, 4, 3, -3]); // np.einsum('ij,jk->ki', a, b)
    });

    it("multiplies batches (bij,bjk->bik) and broadcasts batches under '...'", () => {
      using A = arr([2, 2, 3], 0);
      using B = arr([2, 3, 2], 1);
      using C = einsum("bij,bjk->bik", A, B);
      expect(C.shape).toEqual([2, 2, 2]);
      expect(host(C)).toEqual([4, 3, 4, -3, -2, -4, -1, -1]); // np.einsum('bij,bjk->bik', a, b)
      using P = arr([2, 1, 2, 3], 0);
      using Q = arr([3, 3, 2], 1);
      using R = einsum("...ij,...jk->...ik", P, Q);
      expect(R.shape).toEqual([2, 3, 2, 2]);
      // np.einsum('...ij,...jk->...ik', p, q) for p [2, 1, 2, 3], q [3, 3, 2]
      expect(host(R)).toEqual([4, 3, 4, -3, 3, -3, -3, 0, -3, 1, 0, -2, -10, -2, 4, -1, -2, -4, -1, -1, -4, 9, -1, -1]);
      // A label of extent 1 broadcasts: np.einsum('ij,jk->ik', p [2, 1], q [3, 4])
      using X = arr([2, 1], 0);
      using Y = arr([3, 4], 1);
      using Z = einsum("ij,jk->ik", X, Y);
      expect(host(Z)).toEqual([-3, 3, 9, 0, -2, 2, 6, 0]);
    });

    it("takes traces, diagonals, transposes and sums, each a new array", () => {
      using M = arr([3, 3], 0);
      using t = einsum("ii", M);
      expect(t.shape).toEqual([]);
      expect(host(t)).toEqual([-4]); // np.einsum('ii', m)
      using d = einsum("ii->i", M);
      expect(host(d)).toEqual([-3, 1, -2]); // np.einsum('ii->i', m)
      using A = arr([2, 3], 0);
      using T = einsum("ij->ji", A);
      expect(T.shape).toEqual([3, 2]);
      expect(host(T)).toEqual([-3, 0, -2, 1, -1, 2]); // np.einsum('ij->ji', a)
      // NumPy returns views for these; einsum returns new arrays: writing into them leaves the operand alone.
      expect(T.base).toBeUndefined();
      T.fill(99, { stream });
      d.fill(99, { stream });
      expect(host(A)).toEqual(data([2, 3], 0));
      expect(host(M)).toEqual(data([3, 3], 0));
      using s = einsum("ij->", A);
      expect(host(s)).toEqual([-3]); // np.einsum('ij->', a)
      using N = arr([2, 3, 2], 0);
      using iji = einsum("iji->j", N);
      expect(host(iji)).toEqual([-6, -2, 2]); // np.einsum('iji->j', a [2, 3, 2])
    });

    it("computes outer and inner products, chains of three operands and contractions over two labels", () => {
      using x = arr([2], 0);
      using y = arr([3], 1);
      using o = einsum("i,j->ij", x, y);
      expect(host(o)).toEqual([6, 3, 0, 4, 2, 0]); // np.einsum('i,j->ij', x, y)
      using u = arr([4], 0);
      using v = arr([4], 1);
      using inner = einsum("i,i", u, v);
      expect(inner.shape).toEqual([]);
      expect(host(inner)).toEqual([8]); // np.einsum('i,i', u, v)
      using A = arr([2, 3], 0);
      using B = arr([3, 2], 1);
      using C = arr([2, 2], 2);
      using chain = einsum("ij,jk,kl->il", A, B, C);
      expect(host(chain)).toEqual([-1, -3, -7, 3]); // np.einsum('ij,jk,kl->il', a, b, c)
      using P = arr([2, 3, 2], 0);
      using Q = arr([3, 2, 2], 1);
      using two = einsum("ijk,jkl->il", P, Q);
      expect(host(two)).toEqual([1, 3, -11, -3]); // np.einsum('ijk,jkl->il', p, q)
      using D = arr([2, 2, 3], 0);
      using diagThen = einsum("iij,jk->ik", D, B);
      expect(host(diagThen)).toEqual([4, 3, 4, -1]); // np.einsum('iij,jk->ik', d [2, 2, 3], b)
      using b1 = arr([2, 2], 0);
      using b2 = arr([2, 3], 1);
      using b3 = arr([2], 2);
      using batched = einsum("bi,bj,b->bij", b1, b2, b3);
      expect(host(batched)).toEqual([-6, -3, 0, -4, -2, 0, 0, 0, 0, 0, 0, 0]); // np.einsum('bi,bj,b->bij', ...)
      using three = DeviceArray.from(Float64Array.of(-3), { stream, shape: [] });
      using scalar = einsum(",i->i", three, y);
      expect(host(scalar)).toEqual([6, 3, 0]); // np.einsum(',i->i', -3., y)
    });

    it("keeps int32 as int32, wraps int8, computes bool as OR over AND, float16 as float16, complex64 as complex64", () => {
      using A = arr([2, 3], 0, "int32");
      using B = arr([3, 2], 1, "int32");
      using C = einsum("ij,jk->ik", A, B);
      expect(C.dtype.name).toBe("int32");
      expect(host(C)).toEqual([4, 3, 4, -3]); // np.einsum('ij,jk->ik', a.astype(int32), b.astype(int32))
      using rows = einsum("ij->i", A);
      expect(rows.dtype.name).toBe("int32");
      expect(host(rows)).toEqual([-6, 3]); // np.einsum('ij->i', a) (int32)
      using Ab = arr([2, 2, 3], 0, "int32");
      using Bb = arr([2, 3, 2], 1, "int32");
      using bat = einsum("bij,bjk->bik", Ab, Bb);
      expect(host(bat)).toEqual([4, 3, 4, -3, -2, -4, -1, -1]);
      using I8 = from([100, 100, 100], [3], "int8");
      using wrapped = einsum("i->", I8);
      expect(wrapped.dtype.name).toBe("int8");
      expect(host(wrapped)).toEqual([44]); // np.einsum('i->', np.array([100, 100, 100], np.int8)) == 44
      using I8a = from([100, 2, 3, 100], [2, 2], "int8");
      using I8b = from([100, 1, 1, 100], [2, 2], "int8");
      using I8c = einsum("ij,jk->ik", I8a, I8b);
      expect(host(I8c)).toEqual([18, 44, -112, 19]); // np.einsum('ij,jk->ik', ...) in int8

      using P = from([1, 0, 0, 0, 0, 1], [2, 3], "bool");
      using Q = from([0, 1, 0, 0, 1, 0], [3, 2], "bool");
      using PQ = einsum("ij,jk->ik", P, Q);
      expect(PQ.dtype.name).toBe("bool");
      expect(host(PQ)).toEqual([0, 1, 1, 0]); // np.einsum('ij,jk->ik', p, q) == [[False, True], [True, False]]
      using R = from([0, 0, 0, 0, 1, 0], [2, 3], "bool");
      using any = einsum("ij->i", R);
      expect(any.dtype.name).toBe("bool");
      expect(host(any)).toEqual([0, 1]); // np.einsum('ij->i', ...) == [False, True]
      using S = from([0, 1, 1, 0], [2, 2], "bool");
      using tr = einsum("ii", S);
      expect(host(tr)).toEqual([0]); // np.einsum('ii', [[False, True], [True, False]]) == False
      using counted = einsum("ij->", P, { dtype: "int64" });
      expect(counted.dtype.name).toBe("int64");
      expect(host(counted)).toEqual([2]); // np.einsum('ij->', p, dtype=np.int64) == 2

      using H = arr([2, 3], 0, "float16");
      using G = arr([3, 2], 1, "float16");
      using HG = einsum("ij,jk->ik", H, G);
      expect(HG.dtype.name).toBe("float16");
      expect(host(HG)).toEqual([4, 3, 4, -3]); // np.einsum('ij,jk->ik', h, g) (float16)
      using hs = einsum("ij->", H);
      expect(hs.dtype.name).toBe("float16");
      expect(host(hs)).toEqual([-3]); // np.einsum('ij->', h) (float16)
      using hs32 = einsum("ij->", H, { dtype: "float32" });
      expect(hs32.dtype.name).toBe("float32");
      expect(host(hs32)).toEqual([-3]); // np.einsum('ij->', h, dtype=np.float32)

      // c = [(-3-1j), (-2+0j), (-1+1j), -1j, (1+0j), (2+1j)] [2, 3]; d = [(-2+0j), (-1+1j), 0j, (1+1j), (2+0j), (-2+1j)] [3, 2]
      using Cx = from([-3, -1, -2, 0, -1, 1, 0, -1, 1, 0, 2, 1], [2, 3], "complex64");
      using Dx = from([-2, 0, -1, 1, 0, 0, 1, 1, 2, 0, -2, 1], [3, 2], "complex64");
      using CD = einsum("ij,jk->ik", Cx, Dx);
      expect(CD.dtype.name).toBe("complex64");
      expect(host(CD)).toEqual([4, 4, 3, -7, 4, 4, -3, 2]); // np.einsum('ij,jk->ik', c, d) == [4+4j, 3-7j, 4+4j, -3+2j]
      using CC = einsum("ij,ij", Cx, Cx);
      expect(host(CC)).toEqual([15, 8]); // np.einsum('ij,ij', c, c) == 15+8j (no conjugation)
      using Cs = einsum("ij->j", Cx);
      expect(host(Cs)).toEqual([-3, -2, -1, 0, 1, 2]); // np.einsum('ij->j', c) == [-3-2j, -1+0j, 1+2j]

      // Mixed dtypes promote first (NumPy 2): int32 with float32 is float64.
      using F = arr([3, 2], 1, "float32");
      using mixed = einsum("ij,jk->ik", A, F);
      expect(mixed.dtype.name).toBe("float64");
      expect(host(mixed)).toEqual([4, 3, 4, -3]);
    });

    it("handles zero-size axes: sums over nothing are 0, empty results are empty", () => {
      using A = DeviceArray.empty([2, 0], "float64", { stream });
      using B = DeviceArray.empty([0, 3], "float64", { stream });
      using C = einsum("ij,jk->ik", A, B);
      expect(C.shape).toEqual([2, 3]);
      expect(host(C)).toEqual([0, 0, 0, 0, 0, 0]); // np.einsum('ij,jk->ik', zeros((2, 0)), zeros((0, 3)))
      using rows = einsum("ij->i", A);
      expect(host(rows)).toEqual([0, 0]); // np.einsum('ij->i', zeros((2, 0)))
      using all = einsum("ij->", A);
      expect(host(all)).toEqual([0]);
      using E = DeviceArray.empty([0, 3], "float32", { stream });
      using F = arr([3, 2], 1, "float32");
      using EF = einsum("ij,jk->ik", E, F);
      expect(EF.shape).toEqual([0, 2]); // np.einsum('ij,jk->ik', zeros((0, 3)), f).shape == (0, 2)
      // An extent of 1 broadcasts against 0: np.einsum('ij,jk->ik', ones((2, 1)), zeros((0, 4))) == zeros((2, 4))
      using one = arr([2, 1], 0);
      using Bz = DeviceArray.empty([0, 4], "float64", { stream });
      using broadcastZero = einsum("ij,jk->ik", one, Bz);
      expect(host(broadcastZero)).toEqual(Array(8).fill(0));
      using Z = DeviceArray.empty([2, 0], "bool", { stream });
      using none = einsum("ij->i", Z);
      expect(host(none)).toEqual([0, 0]); // any over nothing is False
      using Zi = DeviceArray.empty([3, 0], "int32", { stream });
      using I = einsum("ij->i", Zi);
      expect(I.dtype.name).toBe("int32");
      expect(host(I)).toEqual([0, 0, 0]);
    });

    it("writes into out: directly, transposed, strided, converted, and when it overlaps an operand", () => {
      using A = arr([2, 3], 0, "float32");
      using B = arr([3, 2], 1, "float32");
      using out = DeviceArray.zeros([2, 2], "float32", { stream });
      expect(einsum("ij,jk->ik", A, B, { out })).toBe(out);
      expect(host(out)).toEqual([4, 3, 4, -3]);
      expect(einsum("ij,jk->ki", A, B, { out, stream })).toBe(out);
      expect(host(out)).toEqual([4, 4, 3, -3]);
      using wide = DeviceArray.zeros([2, 4], "float32", { stream });
      const view = wide.slice(null, [0, 4, 2]);
      expect(einsum("ij,jk->ik", A, B, { out: view })).toBe(view);
      expect(host(wide)).toEqual([4, 0, 3, 0, 4, 0, -3, 0]);
      // The out casts under "safe", as NumPy's einsum: float64 into a float32 out is refused before anything runs;
      // float32 and int32 into a float64 one are converted.
      using P = arr([2, 3], 0);
      using narrow = DeviceArray.zeros([3], "float32", { stream });
      expect(() => einsum("ij->j", P, { out: narrow })).toThrow(DTypeError);
      using P32 = arr([2, 3], 0, "float32");
      using widened = DeviceArray.zeros([3], "float64", { stream });
      einsum("ij->j", P32, { out: widened });
      expect(host(widened)).toEqual([-3, -1, 1]); // np.einsum('ij->j', a)
      using f64 = DeviceArray.zeros([2], "float64", { stream });
      using Pi = arr([2, 3], 0, "int32");
      einsum("ij->i", Pi, { out: f64 });
      expect(host(f64)).toEqual([-6, 3]);
      // An out that is an operand: read before written.
      using S = arr([3, 3], 0);
      einsum("ij->ji", S, { out: S });
      expect(host(S)).toEqual([-3, 0, 3, -2, 1, -3, -1, 2, -2]); // np.einsum('ij->ji', s)
      using X = arr([2, 2], 0);
      using Y = arr([2, 2], 1);
      einsum("ij,jk->ik", X, Y, { out: X });
      expect(host(X)).toEqual([6, 1, 2, 1]); // np.einsum('ij,jk->ik', x, y)
      using bad = DeviceArray.zeros([3, 3], "float32", { stream });
      expect(() => einsum("ij,jk->ik", A, B, { out: bad })).toThrow(ShapeMismatchError);
    });

    it("frees its temporaries: the pool's used memory comes back to where it was", () => {
      const pool = dev.memoryResource;
      expect(pool).toBeInstanceOf(MemoryPoolResource);
      if (!(pool instanceof MemoryPoolResource)) return;
      using A = arr([4, 5, 6, 2], 0, "float32");
      using B = arr([6, 5, 3], 1, "int32");
      using C = arr([3, 4], 2, "float32");
      // Three conversions to float64, a sum (n), a reshape that copies (B as [j, k, l]), two products and a
      // transposed copy at the end; warmed up once first (kernels, handles and their workspaces are cached).
      const run = (): DeviceArray => einsum("ijkn,kjl,lm->mi", A, B, C);
      run().close(stream);
      stream.sync();
      const before = pool.attributes.usedMemCurrent;
      const r = run();
      expect(r.shape).toEqual([4, 4]);
      r.close(stream);
      stream.sync();
      expect(pool.attributes.usedMemCurrent).toBeLessThanOrEqual(before);
    });
  });

  describe("tensordot", () => {
    it("sums a's last N axes with b's first N, and pairs of axis lists", () => {
      using A = arr([2, 3, 4], 0, "int32");
      using B = arr([3, 4, 5], 1, "int32");
      using C = tensordot(A, B);
      expect(C.dtype.name).toBe("int32");
      expect(C.shape).toEqual([2, 5]);
      expect(host(C)).toEqual([10, 5, 0, -5, -10, 2, 1, 0, -1, -2]); // np.tensordot(a, b)
      using P = arr([3, 4, 5], 0, "float32");
      using Q = arr([4, 3, 2], 1, "float32");
      using R = tensordot(P, Q, [[1, 0], [0, 1]]);
      expect(R.shape).toEqual([5, 2]);
      expect(host(R)).toEqual([13, 8, 11, -6, 2, 8, -7, -6, 5, -6]); // np.tensordot(p, q, [[1, 0], [0, 1]])
      using M = arr([2, 3], 0);
      using N = arr([3, 4], 1);
      using one = tensordot(M, N, 1);
      expect(host(one)).toEqual([1, 5, 4, -2, 4, 2, -5, -2]); // np.tensordot(m, n, 1)
      using x = arr([2], 0);
      using y = arr([3], 1);
      using outer = tensordot(x, y, 0);
      expect(host(outer)).toEqual([6, 3, 0, 4, 2, 0]); // np.tensordot(x, y, 0)
      using K = arr([3, 2], 1);
      using pair = tensordot(M, K, [0, 1]);
      expect(host(pair)).toEqual([6, 0, -6, 3, 1, -6, 0, 2, -6]); // np.tensordot(m, k, (0, 1))
      using out = DeviceArray.zeros([2, 2], "float64", { stream });
      expect(tensordot(M, K, [-1, 0], { out })).toBe(out);
      expect(host(out)).toEqual([4, 3, 4, -3]); // np.tensordot(m, k, (-1, 0))
    });
  });
});
