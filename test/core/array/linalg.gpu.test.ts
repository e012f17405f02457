/**
 * `cuda-ts/array/linalg` on a real GPU, against host products and NumPy's results (test/fixtures/array-math): matmul
 * (dtypes, 1-d promotion, broadcast batches, transposed views, `out`), dot, vdot, outer; bool and integer products
 * (matmul's own kernel) against exact BigInt host products wrapped as NumPy wraps them; solve, inv, det, slogdet, cholesky,
 * qr, svd, eigh, eigvalsh, lstsq on small matrices, checked by their defining identities (a·x = b, q·r = a with
 * orthonormal q, u·diag(s)·vh = a, a·v = v·diag(w)), batched, real and complex; and the typed errors of singular and
 * indefinite matrices. Skips without a GPU.
 */
import { describe, expect, it } from "vitest";
import { ClosedError, DeviceArray, dtypes, DTypeError, ShapeMismatchError, type HostArray, type Stream } from "../../../src/index.ts";
import { cholesky, det, dot, eigh, eigvalsh, inv, lstsq, matmul, NotPositiveDefiniteError, outer, qr, SingularMatrixError, slogdet, solve, svd, vdot } from "../../../src/array-linalg.ts";
import { gpu, skipNote } from "../../support/gpu.ts";
import { onGpuStream } from "../../support/gpu-arrays.ts";
import { decodeBFloat16, decodeHalf, encodeBFloat16, encodeHalf } from "../../../src/core/array/dtype.ts";
import { expectClose, hostAdjoint, hostEye, hostMatmul, hostScaleColumns, nums, numpyFixture as F, values } from "./math-host.ts";

describe.skipIf(!gpu.available)(`array linalg on a GPU${skipNote}`, () => {
  let stream: Stream;
  onGpuStream((s) => (stream = s));

  const f64 = (data: readonly number[], shape: readonly number[]): DeviceArray => DeviceArray.from(Float64Array.from(data), { stream, shape });
  const f32 = (data: readonly number[], shape: readonly number[]): DeviceArray => DeviceArray.from(Float32Array.from(data), { stream, shape });
  const c128 = (interleaved: readonly number[], shape: readonly number[]): DeviceArray => DeviceArray.from(Float64Array.from(interleaved), { stream, shape, dtype: "complex128" });
  const host = (a: DeviceArray): number[] => nums(a.toTypedArraySync({ stream }));
  const seq = (n: number, f: (i: number) => number): number[] => Array.from({ length: n }, (_, i) => f(i));

  describe("matmul, dot, vdot, outer", () => {
    it("multiplies float32 matrices on the operands' stream", () => {
      const a = seq(6, (i) => i - 2);
      const b = seq(12, (i) => (i % 5) - 1);
      using A = f32(a, [2, 3]);
      using B = f32(b, [3, 4]);
      using C = matmul(A, B);
      expect(C.dtype.name).toBe("float32");
      expect(C.shape).toEqual([2, 4]);
      expect(C.stream).toBe(stream);
      expect(host(C)).toEqual(hostMatmul(a, b, 2, 3, 4));
    });

    it("writes an out that overlaps an operand through a temporary, as NumPy does (matmul(a, b, { out: a }))", () => {
      const a = seq(16, (i) => (i % 5) - 2);
      const b = seq(16, (i) => (i % 3) + 1);
      using A = f32(a, [4, 4]);
      using B = f32(b, [4, 4]);
      expect(matmul(A, B, { out: A })).toBe(A);
      expect(host(A)).toEqual(hostMatmul(a, b, 4, 4, 4));
      // The transpose of the operand itself, and an integer product into its own right operand.
      using S = f32(a, [4, 4]);
      matmul(S, S.T, { out: S });
      expect(host(S)).toEqual(hostMatmul(a, hostAdjoint(a, 4, 4), 4, 4, 4));
      using I = DeviceArray.from(Int32Array.from(a), { stream, shape: [4, 4] });
      using J = DeviceArray.from(Int32Array.from(b), { stream, shape: [4, 4] });
      matmul(I, J, { out: J });
      expect(host(J)).toEqual(hostMatmul(a, b, 4, 4, 4));
    });

    it("promotes 1-d operands and removes the added axes", () => {
      const v = [1, 2, 3];
      const m = seq(12, (i) => i);
      using V = f64(v, [3]);
      using M = f64(m, [3, 4]);
      using Mt = f64(hostAdjoint(m, 3, 4), [4, 3]);
      using vm = matmul(V, M);
      expect(vm.shape).toEqual([4]);
      expect(host(vm)).toEqual(hostMatmul(v, m, 1, 3, 4));
      using mv = matmul(Mt, V);
      expect(mv.shape).toEqual([4]);
      expect(host(mv)).toEqual(hostMatmul(hostAdjoint(m, 3, 4), v, 4, 3, 1));
      using vv = matmul(V, V);
      expect(vv.shape).toEqual([]);
      expect(host(vv)).toEqual([14]);
    });

    it("broadcasts batches ([2, 1, 3, 4] · [5, 4, 2] → [2, 5, 3, 2]) and reads transposed views without copies", () => {
      const a = seq(24, (i) => (i % 7) - 3);
      const b = seq(40, (i) => (i % 4) + 0.5);
      using A = f64(a, [2, 1, 3, 4]);
      using B = f64(b, [5, 4, 2]);
      using C = matmul(A, B);
      expect(C.shape).toEqual([2, 5, 3, 2]);
      const c = host(C);
      for (let i = 0; i < 2; i++) {
        for (let j = 0; j < 5; j++) {
          const expected = hostMatmul(a.slice(i * 12, i * 12 + 12), b.slice(j * 8, j * 8 + 8), 3, 4, 2);
          expect(c.slice((i * 5 + j) * 6, (i * 5 + j) * 6 + 6), `batch ${i}, ${j}`).toEqual(expected);
        }
      }
      // b's transpose as a view: [5, 2, 4] seen as [5, 4, 2].
      using Bt = f64(seq(40, (i) => i % 9), [5, 2, 4]);
      using D = matmul(A, Bt.transpose(0, 2, 1));
      const bt = host(Bt);
      const d = host(D);
      for (let j = 0; j < 5; j++) {
        const bj = hostAdjoint(bt.slice(j * 8, j * 8 + 8), 2, 4);
        expect(d.slice(j * 6, j * 6 + 6), `transposed batch ${j}`).toEqual(hostMatmul(a.slice(0, 12), bj, 3, 4, 2));
      }
      // Contiguous batches and a batch of transposed matrices go to cuBLAS as they lie (strided batches).
      const p = seq(24, (i) => (i % 5) - 2);
      const q = seq(40, (i) => (i % 6) - 3);
      using P = f64(p, [4, 3, 2]);
      using Q = f64(q, [4, 2, 5]);
      using Qt = f64(Array.from({ length: 4 }, (_, j) => hostAdjoint(q.slice(j * 10, j * 10 + 10), 2, 5)).flat(), [4, 5, 2]);
      using PQ = matmul(P, Q);
      using PQt = matmul(P, Qt.transpose(0, 2, 1));
      const expected = Array.from({ length: 4 }, (_, j) => hostMatmul(p.slice(j * 6, j * 6 + 6), q.slice(j * 10, j * 10 + 10), 3, 2, 5)).flat();
      expect(host(PQ)).toEqual(expected);
      expect(host(PQt)).toEqual(expected);
      // A view with steps along both axes is copied first.
      using S = f64(seq(36, (i) => i), [6, 6]);
      using E = matmul(S.slice([0, 6, 2], [0, 6, 2]), S.slice([0, 3], [0, 3]));
      const s = host(S);
      const stepped = [0, 2, 4].flatMap((r) => [0, 2, 4].map((c2) => s[r * 6 + c2]!));
      const block = [0, 1, 2].flatMap((r) => [0, 1, 2].map((c2) => s[r * 6 + c2]!));
      expect(host(E)).toEqual(hostMatmul(stepped, block, 3, 3, 3));
    });

    it("multiplies float16 (exact small integers), complex128, mixed float32·float64, and writes into out", () => {
      const a = seq(6, (i) => i - 3);
      const b = seq(6, (i) => 2 - i);
      using A = f32(a, [2, 3]);
      using B = f32(b, [3, 2]);
      using C64 = matmul(A, f64(b, [3, 2]));
      expect(C64.dtype.name).toBe("float64");
      expect(host(C64)).toEqual(hostMatmul(a, b, 2, 3, 2));
      const ca = seq(12, (i) => (i % 5) - 2);
      const cb = seq(12, (i) => (i % 3) + 1);
      using CA = c128(ca, [2, 3]);
      using CB = c128(cb, [3, 2]);
      using CC = matmul(CA, CB);
      expect(CC.dtype.name).toBe("complex128");
      expect(host(CC)).toEqual(hostMatmul(ca, cb, 2, 3, 2, true));
      using out = DeviceArray.zeros([2, 2], "float32", { stream });
      expect(matmul(A, B, { out })).toBe(out);
      expect(host(out)).toEqual(hostMatmul(a, b, 2, 3, 2));
      using out2 = DeviceArray.zeros([2, 4], "float32", { stream });
      matmul(A, B, { out: out2.slice(null, [0, 4, 2]) });
      expect(host(out2)).toEqual(hostMatmul(a, b, 2, 3, 2).flatMap((x) => [x, 0]));
    });

    it("multiplies float16 and bfloat16 arrays (computing in float32)", () => {
      for (const [dtype, encode, decode] of [
        ["float16", encodeHalf, decodeHalf],
        ["bfloat16", encodeBFloat16, decodeBFloat16],
      ] as const) {
        using A = DeviceArray.from(Uint16Array.from([1, 2, 3, 4], encode), { stream, shape: [2, 2], dtype });
        using B = DeviceArray.from(Uint16Array.from([5, 6, 7, 8], encode), { stream, shape: [2, 2], dtype });
        using C = matmul(A, B);
        expect(C.dtype.name).toBe(dtype);
        expect(Array.from(C.toTypedArraySync({ stream }) as Uint16Array, decode), dtype).toEqual([19, 22, 43, 50]);
      }
    });

    it("refuses an out of another dtype (DTypeError) and shapes that do not multiply (ShapeMismatchError)", () => {
      using I = DeviceArray.from(Int32Array.from([1, 2, 3, 4]), { stream, shape: [2, 2] });
      using wrongOut = DeviceArray.zeros([2, 2], "float32", { stream });
      expect(() => matmul(I, I, { out: wrongOut })).toThrow(/out is float32 but the product is int32/);
      expect(() => matmul(I, I, { out: wrongOut })).toThrow(DTypeError);
      using A = f32([1, 2, 3, 4, 5, 6], [2, 3]);
      expect(() => matmul(A, A)).toThrow(ShapeMismatchError);
      using out = DeviceArray.zeros([3, 3], "float32", { stream });
      using At = A.T.copy({ stream });
      expect(() => matmul(A, At, { out })).toThrow(ShapeMismatchError);
      const gone = f32([1, 2, 3, 4], [2, 2]);
      gone.close();
      expect(() => matmul(gone, gone)).toThrow(ClosedError);
      expect(() => solve(gone, gone)).toThrow(ClosedError);
    });

    it("dot sums over a's last axis and b's second-to-last; vdot conjugates; outer multiplies every pair", () => {
      const a = seq(24, (i) => (i % 5) - 2);
      const b = seq(40, (i) => (i % 3) - 1);
      using A = f64(a, [2, 3, 4]);
      using B = f64(b, [5, 4, 2]);
      using D = dot(A, B);
      expect(D.shape).toEqual([2, 3, 5, 2]);
      const d = host(D);
      for (let p = 0; p < 6; p++) {
        for (let q = 0; q < 5; q++) {
          for (let r = 0; r < 2; r++) {
            let s = 0;
            for (let k = 0; k < 4; k++) s += a[p * 4 + k]! * b[q * 8 + k * 2 + r]!;
            expect(d[(p * 5 + q) * 2 + r]).toBe(s);
          }
        }
      }
      using X = c128([1, 2, 3, -1], [2]);
      using Y = c128([0, 1, 2, 2], [2]);
      using V = vdot(X, Y);
      // conj(1+2i)(0+i) + conj(3−i)(2+2i) = (2 + i) + (4 + 8i)
      expect(host(V)).toEqual([6, 9]);
      using P = DeviceArray.from(Int32Array.from([1, 2, 3]), { stream });
      using Q = DeviceArray.from(Int32Array.from([10, 20]), { stream });
      using O = outer(P, Q);
      expect(O.dtype.name).toBe("int32");
      expect(host(O)).toEqual([10, 20, 20, 40, 30, 60]);
    });
  });

  describe("matmul, dot, vdot of bool and integers (matmul's own kernel)", () => {
    type IntName = "bool" | "int8" | "uint8" | "int16" | "uint16" | "int32" | "uint32" | "int64" | "uint64";
    /** A device array of an integer dtype (or bool) from numbers or bigints (64-bit dtypes keep every bit). */
    const ints = (dtype: IntName, data: readonly (number | bigint)[], shape: readonly number[]): DeviceArray => {
      const d = dtypes[dtype];
      const hostData = new d.hostArray(data.length) as unknown as (number | bigint)[];
      data.forEach((x, e) => (hostData[e] = d.itemsize === 8 ? BigInt(x) : Number(x)));
      return DeviceArray.from(hostData as unknown as HostArray, { stream, shape: [...shape], dtype });
    };
    /** The elements as bigints (exact for int64 and uint64). */
    const big = (a: DeviceArray): bigint[] => Array.from(a.toTypedArraySync({ stream }) as unknown as ArrayLike<number | bigint>, (x) => BigInt(x));
    /** `x` as a value of `dtype`: wrapped modulo 2^bits (two's complement for signed), 0 or 1 for bool. */
    const wrap = (x: bigint, dtype: IntName): bigint => {
      const d = dtypes[dtype];
      if (d.kind === "b") return x !== 0n ? 1n : 0n;
      return d.kind === "i" ? BigInt.asIntN(d.itemsize * 8, x) : BigInt.asUintN(d.itemsize * 8, x);
    };
    /** NumPy's integer matmul of row-major m×k and k×n matrices: the exact sum wrapped to `dtype`; OR over AND for bool. */
    const hostInt = (a: readonly (number | bigint)[], b: readonly (number | bigint)[], m: number, k: number, n: number, dtype: IntName): bigint[] => {
      const out: bigint[] = [];
      for (let i = 0; i < m; i++) {
        for (let j = 0; j < n; j++) {
          let s = 0n;
          for (let p = 0; p < k; p++) {
            const x = BigInt(a[i * k + p]!);
            const y = BigInt(b[p * n + j]!);
            s = dtype === "bool" ? s | (x !== 0n && y !== 0n ? 1n : 0n) : s + x * y;
          }
          out.push(wrap(s, dtype));
        }
      }
      return out;
    };
    /** Row-major transpose of an r×c matrix held as a flat list. */
    const transposed = <T>(x: readonly T[], r: number, c: number): T[] => Array.from({ length: r * c }, (_, e) => x[(e % r) * c + Math.floor(e / r)]!);

    it("multiplies int32 matrices exactly, across several 32×32 tiles and k steps", () => {
      for (const [m, k, n] of [[3, 5, 4], [70, 75, 40]] as const) {
        const a = seq(m * k, (i) => ((i * 37) % 201) - 100);
        const b = seq(k * n, (i) => ((i * 53) % 199) - 99);
        using A = ints("int32", a, [m, k]);
        using B = ints("int32", b, [k, n]);
        using C = matmul(A, B);
        expect(C.dtype.name).toBe("int32");
        expect(C.shape).toEqual([m, n]);
        expect(C.stream).toBe(stream);
        expect(big(C), `${m}×${k}·${k}×${n}`).toEqual(hostInt(a, b, m, k, n, "int32"));
      }
    });

    it("wraps int8 sums around as NumPy does (100·100 + 100·100 is 32 in int8)", () => {
      using A = ints("int8", [100, 100, -100, 50], [2, 2]);
      using B = ints("int8", [100, 1, 100, -1], [2, 2]);
      using C = matmul(A, B);
      expect(C.dtype.name).toBe("int8");
      // 20000 mod 256 = 32; 100 − 100 = 0; −10000 + 5000 = −5000 ≡ 120; −100 − 50 = −150 ≡ 106.
      expect(big(C)).toEqual([32n, 0n, 120n, 106n]);
      // Larger: every sum far beyond int8's range, several tiles.
      const [m, k, n] = [40, 70, 33];
      const a = seq(m * k, (i) => ((i * 91) % 256) - 128);
      const b = seq(k * n, (i) => ((i * 29) % 256) - 128);
      using A2 = ints("int8", a, [m, k]);
      using B2 = ints("int8", b, [k, n]);
      using C2 = matmul(A2, B2);
      expect(big(C2)).toEqual(hostInt(a, b, m, k, n, "int8"));
    });

    it("multiplies uint8 and uint16 (wrapping modulo 2^8 and 2^16), and promotes int8 with uint8 to int16", () => {
      const a = [200, 255, 3, 0, 17, 128];
      const b = [255, 1, 200, 2, 7, 255];
      using A = ints("uint8", a, [2, 3]);
      using B = ints("uint8", b, [3, 2]);
      using C = matmul(A, B);
      expect(C.dtype.name).toBe("uint8");
      expect(big(C)).toEqual(hostInt(a, b, 2, 3, 2, "uint8"));
      using A16 = ints("uint16", [65535, 65535], [1, 2]);
      using B16 = ints("uint16", [65535, 65535], [2, 1]);
      using C16 = matmul(A16, B16);
      expect(big(C16)).toEqual([2n]); // 2·65535² mod 2^16
      const s = [-128, 127, -1, 5, 0, -7];
      using S = ints("int8", s, [2, 3]);
      using M = matmul(S, B);
      expect(M.dtype.name).toBe("int16");
      expect(big(M)).toEqual(hostInt(s, b, 2, 3, 2, "int16"));
    });

    it("multiplies int64 and uint64 with values beyond 2^53 exactly, wrapping modulo 2^64", () => {
      const a = [(1n << 62n) + 1n, 3n, -(1n << 60n) - 7n, 9007199254740993n, 5n, -2n];
      const b = [4n, -1n, (1n << 55n) + 3n, 2n, -9007199254740995n, 1n];
      using A = ints("int64", a, [2, 3]);
      using B = ints("int64", b, [3, 2]);
      using C = matmul(A, B);
      expect(C.dtype.name).toBe("int64");
      expect(big(C)).toEqual(hostInt(a, b, 2, 3, 2, "int64"));
      // An int32 operand is promoted to int64 (its negative values sign-extended).
      using A32 = ints("int32", [-5, 7, 2147483647], [1, 3]);
      using C32 = matmul(A32, B);
      expect(C32.dtype.name).toBe("int64");
      expect(big(C32)).toEqual(hostInt([-5, 7, 2147483647], b, 1, 3, 2, "int64"));
      const u = [(1n << 64n) - 1n, 1n << 63n, 12345678901234567n];
      const v = [(1n << 64n) - 3n, 2n, 3n];
      using U = ints("uint64", u, [1, 3]);
      using V = ints("uint64", v, [3, 1]);
      using W = matmul(U, V);
      expect(W.dtype.name).toBe("uint64");
      expect(big(W)).toEqual(hostInt(u, v, 1, 3, 1, "uint64"));
    });

    it("multiplies bool matrices as OR over AND, and bool with int32 as 0 and 1", () => {
      const a = [1, 0, 0, 1, 0, 0, 0, 0, 1, 1, 1, 0];
      const b = [0, 1, 1, 0, 0, 0, 1, 1];
      using A = ints("bool", a, [3, 4]);
      using B = ints("bool", b, [4, 2]);
      using C = matmul(A, B);
      expect(C.dtype.name).toBe("bool");
      expect(big(C)).toEqual(hostInt(a, b, 3, 4, 2, "bool"));
      expect(big(C)).toEqual([1n, 1n, 0n, 0n, 1n, 1n]);
      const w = [3, -1, 4, 1, -5, 9, 2, -6];
      using Wt = ints("int32", w, [4, 2]);
      using D = matmul(A, Wt);
      expect(D.dtype.name).toBe("int32");
      expect(big(D)).toEqual(hostInt(a, w, 3, 4, 2, "int32"));
    });

    it("broadcasts batches ([2, 1, 3, 4] int32 · [5, 4, 2] int16 → int32 [2, 5, 3, 2]) and copies batches that do not collapse", () => {
      const a = seq(24, (i) => (i % 7) - 3);
      const b = seq(40, (i) => (i % 9) - 4);
      using A = ints("int32", a, [2, 1, 3, 4]);
      using B = ints("int16", b, [5, 4, 2]);
      using C = matmul(A, B);
      expect(C.dtype.name).toBe("int32");
      expect(C.shape).toEqual([2, 5, 3, 2]);
      // (Both operands are copied here: a varies along the outer batch axis, b along the inner one.)
      const c = big(C);
      for (let i = 0; i < 2; i++) {
        for (let j = 0; j < 5; j++) {
          const expected = hostInt(a.slice(i * 12, i * 12 + 12), b.slice(j * 8, j * 8 + 8), 3, 4, 2, "int32");
          expect(c.slice((i * 5 + j) * 6, (i * 5 + j) * 6 + 6), `batch ${i}, ${j}`).toEqual(expected);
        }
      }
      // One matrix for every entry (batch stride 0) against a contiguous batch (one stride): no copies.
      using A1 = ints("int32", a.slice(0, 12), [3, 4]);
      using C1 = matmul(A1, B);
      expect(C1.shape).toEqual([5, 3, 2]);
      expect(big(C1)).toEqual(seq(5, (j) => j).flatMap((j) => hostInt(a.slice(0, 12), b.slice(j * 8, j * 8 + 8), 3, 4, 2, "int32")));
      // A [2, 1, 3, 4] against B [2, 5, 4, 2]: A's batch broadcasts along one axis of two (copied), B's collapses.
      const b2 = seq(80, (i) => (i % 11) - 5);
      using B2 = ints("int32", b2, [2, 5, 4, 2]);
      using E = matmul(A, B2);
      expect(E.shape).toEqual([2, 5, 3, 2]);
      const e = big(E);
      for (let i = 0; i < 2; i++) {
        for (let j = 0; j < 5; j++) {
          const expected = hostInt(a.slice(i * 12, i * 12 + 12), b2.slice((i * 5 + j) * 8, (i * 5 + j) * 8 + 8), 3, 4, 2, "int32");
          expect(e.slice((i * 5 + j) * 6, (i * 5 + j) * 6 + 6), `batch ${i}, ${j} (copied)`).toEqual(expected);
        }
      }
      // 1-d operands: a row vector times a batch, a batch times a column vector, and a vector's dot with itself.
      const v = [2, -3, 5, 7];
      using Vec = ints("int32", v, [4]);
      using row = ints("int32", [1, 2, 3], [3]);
      using batchOf = ints("int32", seq(24, (i) => i - 12), [2, 3, 4]);
      using vB = matmul(row, batchOf);
      expect(vB.shape).toEqual([2, 4]);
      expect(big(vB)).toEqual([...hostInt([1, 2, 3], seq(12, (i) => i - 12), 1, 3, 4, "int32"), ...hostInt([1, 2, 3], seq(12, (i) => i), 1, 3, 4, "int32")]);
      using Av = matmul(A, Vec);
      expect(Av.shape).toEqual([2, 1, 3]);
      expect(big(Av)).toEqual([...hostInt(a.slice(0, 12), v, 3, 4, 1, "int32"), ...hostInt(a.slice(12), v, 3, 4, 1, "int32")]);
      using vv = matmul(Vec, Vec);
      expect(vv.shape).toEqual([]);
      expect(big(vv)).toEqual([87n]);
    });

    it("reads transposed, stepped and reversed views as they lie", () => {
      const a = seq(12, (i) => (i % 5) - 2);
      const b = seq(20, (i) => (i % 7) - 3);
      // a [4, 3] seen transposed as [3, 4].
      using A = ints("int32", a, [4, 3]);
      using B = ints("int32", b, [4, 5]);
      using C = matmul(A.T, B);
      expect(C.shape).toEqual([3, 5]);
      expect(big(C)).toEqual(hostInt(transposed(a, 4, 3), b, 3, 4, 5, "int32"));
      // A batch of transposed matrices: [3, 5, 4] seen as [3, 4, 5].
      const q = seq(60, (i) => (i % 13) - 6);
      using Q = ints("int64", q, [3, 5, 4]);
      using D = matmul(A.T, Q.transpose(0, 2, 1));
      expect(D.dtype.name).toBe("int64");
      expect(D.shape).toEqual([3, 3, 5]);
      const d = big(D);
      for (let z = 0; z < 3; z++) {
        const qz = transposed(q.slice(z * 20, z * 20 + 20), 5, 4);
        expect(d.slice(z * 15, z * 15 + 15), `batch ${z}`).toEqual(hostInt(transposed(a, 4, 3), qz, 3, 4, 5, "int64"));
      }
      // Steps along both axes, and rows reversed (a negative stride).
      const s = seq(36, (i) => i - 17);
      using S = ints("int16", s, [6, 6]);
      using E = matmul(S.slice([0, 6, 2], [0, 6, 2]), S.slice([null, null, -1]).slice([0, 3], [0, 3]));
      const stepped = [0, 2, 4].flatMap((r) => [0, 2, 4].map((c2) => s[r * 6 + c2]!));
      const reversed = [5, 4, 3].flatMap((r) => [0, 1, 2].map((c2) => s[r * 6 + c2]!));
      expect(E.dtype.name).toBe("int16");
      expect(big(E)).toEqual(hostInt(stepped, reversed, 3, 3, 3, "int16"));
    });

    it("writes into out, contiguous or a strided view, and gives zeros for k = 0 and nothing for empty shapes", () => {
      const a = seq(12, (i) => i - 6);
      const b = seq(16, (i) => 3 - i);
      using A = ints("int32", a, [3, 4]);
      using B = ints("int32", b, [4, 4]);
      const expected = hostInt(a, b, 3, 4, 4, "int32");
      using out = DeviceArray.zeros([3, 4], "int32", { stream });
      expect(matmul(A, B, { out })).toBe(out);
      expect(big(out)).toEqual(expected);
      using wide = DeviceArray.zeros([3, 8], "int32", { stream });
      const view = wide.slice(null, [0, 8, 2]);
      expect(matmul(A, B, { out: view })).toBe(view);
      expect(big(wide)).toEqual(expected.flatMap((x) => [x, 0n]));
      // k = 0: the sum over nothing is 0 (false for bool), even in an out that held other values.
      using K0a = DeviceArray.empty([3, 0], "int32", { stream });
      using K0b = DeviceArray.empty([0, 4], "int32", { stream });
      using Z = matmul(K0a, K0b);
      expect(Z.shape).toEqual([3, 4]);
      expect(big(Z)).toEqual(Array(12).fill(0n));
      using filled = ints("int32", seq(12, (i) => i + 1), [3, 4]);
      matmul(K0a, K0b, { out: filled });
      expect(big(filled)).toEqual(Array(12).fill(0n));
      using P0 = DeviceArray.empty([2, 0], "bool", { stream });
      using Q0 = DeviceArray.empty([0, 3], "bool", { stream });
      using Bz = matmul(P0, Q0);
      expect(Bz.dtype.name).toBe("bool");
      expect(big(Bz)).toEqual(Array(6).fill(0n));
      using E0 = DeviceArray.empty([0, 4], "int8", { stream });
      using F0 = ints("int8", seq(8, (i) => i), [4, 2]);
      using M0 = matmul(E0, F0);
      expect(M0.shape).toEqual([0, 2]);
      expect(M0.dtype.name).toBe("int8");
    });

    it("dot of N-d integer arrays sums a's last axis with b's second-to-last; vdot of integers", () => {
      const a = seq(24, (i) => (i % 5) - 2);
      const b = seq(40, (i) => (i % 3) - 1);
      using A = ints("int32", a, [2, 3, 4]);
      using B = ints("int32", b, [5, 4, 2]);
      using D = dot(A, B);
      expect(D.dtype.name).toBe("int32");
      expect(D.shape).toEqual([2, 3, 5, 2]);
      const d = big(D);
      for (let p = 0; p < 6; p++) {
        for (let q = 0; q < 5; q++) {
          for (let r = 0; r < 2; r++) {
            let s = 0n;
            for (let k = 0; k < 4; k++) s += BigInt(a[p * 4 + k]! * b[q * 8 + k * 2 + r]!);
            expect(d[(p * 5 + q) * 2 + r], `[${p}, ${q}, ${r}]`).toBe(s);
          }
        }
      }
      // N-d · 1-d, and dot of int8 wrapping as NumPy's.
      using v = ints("int32", [1, -2, 3, -4], [4]);
      using Dv = dot(A, v);
      expect(Dv.shape).toEqual([2, 3]);
      expect(big(Dv)).toEqual(hostInt(a, [1, -2, 3, -4], 6, 4, 1, "int32"));
      using X8 = ints("int8", [100, 100], [2]);
      using D8 = dot(X8, X8);
      expect(D8.dtype.name).toBe("int8");
      expect(big(D8)).toEqual([32n]);
      // vdot flattens: [2, 3] · [3, 2] as 6-vectors.
      const x = [1, -2, 3, 4, -5, 6];
      const y = [7, 8, -9, 10, 11, -12];
      using X = ints("int16", x, [2, 3]);
      using Y = ints("int16", y, [3, 2]);
      using V = vdot(X, Y);
      expect(V.dtype.name).toBe("int16");
      expect(V.shape).toEqual([]);
      expect(big(V)).toEqual([BigInt(x.reduce((s, xi, i) => s + xi * y[i]!, 0))]);
    });
  });

  describe("LU: solve, inv, det", () => {
    it("solves against NumPy (one and several right-hand sides) and a·x = b", () => {
      using G = f64(values(F.general!), [4, 4]);
      using b = f64(values(F.b!), [4]);
      using B = f64(values(F.B!), [4, 2]);
      using x = solve(G, b);
      expect(x.shape).toEqual([4]);
      expectClose(host(x), values(F.solve_b!), 1e-12, "solve b");
      using X = solve(G, B);
      expect(X.shape).toEqual([4, 2]);
      expectClose(host(X), values(F.solve_B!), 1e-12, "solve B");
      expectClose(hostMatmul(values(F.general!), host(X), 4, 4, 2), values(F.B!), 1e-12, "G·X");
    });

    it("solves a batch (a [2, 4, 4], b [4]) in float32, and a transposed view of a", () => {
      const g = values(F.general!);
      const s = values(F.spd!);
      using A = f32([...g, ...s], [2, 4, 4]);
      using b = f32(values(F.b!), [4]);
      using x = solve(A, b);
      expect(x.shape).toEqual([2, 4]);
      expect(x.dtype.name).toBe("float32");
      const xs = host(x);
      expectClose(hostMatmul(g, xs.slice(0, 4), 4, 4, 1), values(F.b!), 1e-4, "batch 0");
      expectClose(hostMatmul(s, xs.slice(4), 4, 4, 1), values(F.b!), 1e-4, "batch 1");
      using Gt = f64(hostAdjoint(g, 4, 4), [4, 4]);
      using b64 = f64(values(F.b!), [4]);
      using y = solve(Gt.T, b64);
      expectClose(host(y), values(F.solve_b!), 1e-12, "transposed view");
    });

    it("inverts (inv·a = I), batched, and gives NumPy's determinant (0 for a singular matrix)", () => {
      using G = f64(values(F.general!), [4, 4]);
      using Gi = inv(G);
      expectClose(host(Gi), values(F.inv!), 1e-12, "inv");
      expectClose(hostMatmul(host(Gi), values(F.general!), 4, 4, 4), hostEye(4), 1e-12, "inv·a");
      using d = det(G);
      expect(d.shape).toEqual([]);
      expectClose(host(d), [F.det as unknown as number], 1e-12, "det");
      using batch = f64([...values(F.general!), ...values(F.spd!), ...Array(16).fill(1)], [3, 4, 4]);
      using ds = det(batch);
      expect(ds.shape).toEqual([3]);
      const dv = host(ds);
      expectClose([dv[0]!], [F.det as unknown as number], 1e-12, "det 0");
      expect(Math.abs(dv[2]!)).toBeLessThan(1e-12);
      using H = c128(values(F.hermitian!), [3, 3]);
      using dh = det(H);
      expectClose(host(dh), values(F.hermitian_det!), 1e-12, "complex det");
    });

    it("gives the sign and log |det| (slogdet): det = sign·exp(logabsdet), past float64's range, batched, complex", () => {
      const d = F.det as unknown as number;
      using G = f64(values(F.general!), [4, 4]);
      const r = slogdet(G);
      using _s = r.sign;
      using _l = r.logabsdet;
      expect([r.sign.shape, r.logabsdet.shape, r.sign.dtype.name, r.logabsdet.dtype.name]).toEqual([[], [], "float64", "float64"]);
      expect(host(r.sign)).toEqual([Math.sign(d)]);
      expectClose(host(r.logabsdet), [Math.log(Math.abs(d))], 1e-12, "logabsdet");
      // 300·I of order 200: det = 300^200 overflows float64; its logarithm does not.
      using big = f64(hostEye(200).map((v) => 300 * v), [200, 200]);
      const rb = slogdet(big);
      using _bs = rb.sign;
      using _bl = rb.logabsdet;
      expect(host(rb.sign)).toEqual([1]);
      expectClose(host(rb.logabsdet), [200 * Math.log(300)], 1e-12, "log det of 300·I");
      // A singular matrix, then one whose only row interchange makes the determinant negative; float32.
      using pair = f32([1, 2, 2, 4, 0, 2, 3, 0], [2, 2, 2]);
      const rp = slogdet(pair);
      using _ps = rp.sign;
      using _pl = rp.logabsdet;
      expect([rp.sign.shape, rp.logabsdet.dtype.name]).toEqual([[2], "float32"]);
      expect(host(rp.sign)).toEqual([0, -1]);
      const lp = host(rp.logabsdet);
      expect(lp[0]).toBe(Number.NEGATIVE_INFINITY);
      expectClose([lp[1]!], [Math.log(6)], 1e-6, "log 6");
      // Complex: the sign is a unit complex number, the logarithm real.
      using H = c128(values(F.hermitian!), [3, 3]);
      const rh = slogdet(H);
      using _hs = rh.sign;
      using _hl = rh.logabsdet;
      expect([rh.sign.dtype.name, rh.logabsdet.dtype.name]).toEqual(["complex128", "float64"]);
      const [sr, si] = host(rh.sign) as [number, number];
      const la = host(rh.logabsdet)[0]!;
      expectClose([Math.hypot(sr, si)], [1], 1e-12, "|sign|");
      expectClose([sr * Math.exp(la), si * Math.exp(la)], values(F.hermitian_det!), 1e-12, "complex det from slogdet");
    });

    it("throws SingularMatrixError for a singular matrix (the call reads cuSOLVER's info)", () => {
      using S = f64([1, 2, 2, 4], [2, 2]);
      using b = f64([1, 1], [2]);
      expect(() => solve(S, b)).toThrow(SingularMatrixError);
      expect(() => inv(S)).toThrow(SingularMatrixError);
      using batch = f64([2, 0, 0, 2, 1, 2, 2, 4], [2, 2, 2]);
      expect(() => inv(batch)).toThrow(/matrix 1 of the batch/);
    });
  });

  describe("Cholesky, QR, SVD, eigh, lstsq", () => {
    it("factors A = L·Lᵀ (NumPy's lower L), the upper factor, complex Hermitian matrices, and refuses indefinite ones", () => {
      using A = f64(values(F.spd!), [4, 4]);
      using L = cholesky(A);
      expectClose(host(L), values(F.cholesky!), 1e-12, "cholesky");
      using U = cholesky(A, { upper: true });
      expectClose(host(U), hostAdjoint(values(F.cholesky!), 4, 4), 1e-12, "upper");
      using H = c128(values(F.hermitian!), [3, 3]);
      using LH = cholesky(H);
      expectClose(host(LH), values(F.hermitian_cholesky!), 1e-12, "complex cholesky");
      using N = f64([1, 2, 2, 1], [2, 2]);
      expect(() => cholesky(N)).toThrow(NotPositiveDefiniteError);
    });

    it("QR: reduced, complete and r-only, tall and wide, complex, batched; q has orthonormal columns and q·r = a", () => {
      const t = values(F.tall!); // 5×3
      using T = f64(t, [5, 3]);
      const { q, r } = qr(T);
      using _q = q;
      using _r = r;
      expect(q.shape).toEqual([5, 3]);
      expect(r.shape).toEqual([3, 3]);
      const qh = host(q);
      const rh = host(r);
      expectClose(hostMatmul(hostAdjoint(qh, 5, 3), qh, 3, 5, 3), hostEye(3), 1e-12, "qᵀq");
      expectClose(hostMatmul(qh, rh, 5, 3, 3), t, 1e-12, "q·r");
      for (let i = 0; i < 3; i++) for (let j = 0; j < i; j++) expect(rh[i * 3 + j]).toBe(0);
      const full = qr(T, { mode: "complete" });
      using _fq = full.q;
      using _fr = full.r;
      expect(full.q.shape).toEqual([5, 5]);
      expect(full.r.shape).toEqual([5, 3]);
      expectClose(hostMatmul(hostAdjoint(host(full.q), 5, 5), host(full.q), 5, 5, 5), hostEye(5), 1e-12, "complete qᵀq");
      expectClose(hostMatmul(host(full.q), host(full.r), 5, 5, 3), t, 1e-12, "complete q·r");
      using ronly = qr(T, { mode: "r" });
      expectClose(nums(ronly.toTypedArraySync({ stream })).map(Math.abs), rh.map(Math.abs), 1e-12, "mode r");
      // Wide, as a transposed view, and a batch of two.
      using W = qr(T.T).q;
      expect(W.shape).toEqual([3, 3]);
      using batch = f64([...t, ...t.map((x) => 2 * x)], [2, 5, 3]);
      const bq = qr(batch);
      using _bq = bq.q;
      using _br = bq.r;
      expect(bq.q.shape).toEqual([2, 5, 3]);
      const bqh = host(bq.q);
      const brh = host(bq.r);
      expectClose(hostMatmul(bqh.slice(15), brh.slice(9), 5, 3, 3), t.map((x) => 2 * x), 1e-12, "batch 1 q·r");
      // Complex.
      const c = seq(24, (i) => ((i * 7) % 11) - 5);
      using C = c128(c, [4, 3]);
      const cq = qr(C);
      using _cq = cq.q;
      using _cr = cq.r;
      const cqh = host(cq.q);
      expectClose(hostMatmul(hostAdjoint(cqh, 4, 3, true), cqh, 3, 4, 3, true), hostEye(3, true), 1e-12, "complex qᴴq");
      expectClose(hostMatmul(cqh, host(cq.r), 4, 3, 3, true), c, 1e-12, "complex q·r");
    });

    it("SVD: NumPy's singular values, u·diag(s)·vh = a for tall, wide, full, reduced and complex matrices", () => {
      const t = values(F.tall!);
      using T = f64(t, [5, 3]);
      using s = svd(T, { computeUv: false });
      expectClose(host(s), values(F.svd_tall_s!), 1e-12, "s");
      const check = (a: DeviceArray, m: number, n: number, full: boolean, complex: boolean, what: string): void => {
        const { u, s: sv, vh } = svd(a, { fullMatrices: full });
        try {
          const k = Math.min(m, n);
          const uc = full ? m : k;
          const vr = full ? n : k;
          expect(u.shape, what).toEqual([m, uc]);
          expect(vh.shape, what).toEqual([vr, n]);
          const uh = host(u);
          const vhh = host(vh);
          // Only the first k columns of u and rows of vh meet the singular values.
          const w = complex ? 2 : 1;
          const uk = Array.from({ length: m }, (_, i) => uh.slice(i * uc * w, (i * uc + k) * w)).flat();
          const us = hostScaleColumns(uk, host(sv), m, k, complex);
          expectClose(hostMatmul(us, vhh.slice(0, k * n * w), m, k, n, complex), host(a), 1e-10, `${what}: u·s·vh`);
          expectClose(hostMatmul(hostAdjoint(uh, m, uc, complex), uh, uc, m, uc, complex), hostEye(uc, complex), 1e-10, `${what}: uᴴu`);
        } finally {
          u.close();
          sv.close();
          vh.close();
        }
      };
      check(T, 5, 3, false, false, "tall reduced");
      check(T, 5, 3, true, false, "tall full");
      using Tt = T.T.copy({ stream });
      check(Tt, 3, 5, false, false, "wide reduced");
      check(Tt, 3, 5, true, false, "wide full");
      using C = c128(seq(24, (i) => ((i * 5) % 7) - 3), [3, 4]);
      check(C, 3, 4, false, true, "complex wide");
      using Ct = c128(seq(24, (i) => ((i * 5) % 7) - 3), [4, 3]);
      check(Ct, 4, 3, true, true, "complex tall full");
    });

    it("eigh: NumPy's eigenvalues and a·v = v·diag(w), real and complex, batched, from either triangle", () => {
      const a = values(F.spd!);
      using A = f64(a, [4, 4]);
      const { eigenvalues: w, eigenvectors: v } = eigh(A);
      using _w = w;
      using _v = v;
      expectClose(host(w), values(F.eigvalsh!), 1e-12, "w");
      expectClose(hostMatmul(a, host(v), 4, 4, 4), hostScaleColumns(host(v), host(w), 4, 4), 1e-12, "a·v");
      // The upper triangle alone: garbage below the diagonal is ignored.
      const upperOnly = a.map((x, i) => (Math.floor(i / 4) > i % 4 ? 99 : x));
      using AU = f64(upperOnly, [4, 4]);
      using wu = eigvalsh(AU, { uplo: "U" });
      expectClose(host(wu), values(F.eigvalsh!), 1e-12, "uplo U");
      const h = values(F.hermitian!);
      using H = c128(h, [3, 3]);
      const eh = eigh(H);
      using _hw = eh.eigenvalues;
      using _hv = eh.eigenvectors;
      expect(eh.eigenvalues.dtype.name).toBe("float64");
      expectClose(host(eh.eigenvalues), values(F.hermitian_eigvalsh!), 1e-12, "complex w");
      const hv = host(eh.eigenvectors);
      expectClose(hostMatmul(h, hv, 3, 3, 3, true), hostScaleColumns(hv, host(eh.eigenvalues), 3, 3, true), 1e-12, "complex a·v");
      using batch = f64([...a, ...a.map((x) => 3 * x)], [2, 4, 4]);
      using wb = eigvalsh(batch);
      expectClose(host(wb), [...values(F.eigvalsh!), ...values(F.eigvalsh!).map((x) => 3 * x)], 1e-12, "batch");
    });

    it("lstsq: NumPy's x, residuals, rank and singular values", () => {
      using T = f64(values(F.tall!), [5, 3]);
      using b = f64(values(F.lstsq_b!), [5]);
      const r = lstsq(T, b);
      using _x = r.x;
      using _res = r.residuals;
      using _s = r.singularValues;
      const ref = F.lstsq as unknown as { x: { data: number[] }; residuals: { data: number[] }; rank: number; sv: { data: number[] } };
      expect(r.x.shape).toEqual([3]);
      expectClose(host(r.x), ref.x.data, 1e-10, "x");
      expectClose(host(r.residuals), ref.residuals.data, 1e-10, "residuals");
      expect(r.rank).toBe(ref.rank);
      expectClose(host(r.singularValues), ref.sv.data, 1e-12, "sv");
      // A rank-deficient a: no residuals, the minimum-norm solution.
      using D = f64([1, 1, 2, 2, 3, 3], [3, 2]);
      using y = f64([1, 2, 3], [3, 1]);
      const rd = lstsq(D, y);
      using _dx = rd.x;
      using _dr = rd.residuals;
      using _ds = rd.singularValues;
      expect(rd.rank).toBe(1);
      expect(rd.residuals.shape).toEqual([0]);
      expectClose(host(rd.x), [0.5, 0.5], 1e-12, "minimum norm");
    });
  });
});
