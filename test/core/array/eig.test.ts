/**
 * `eig` and `eigvals` without a GPU: every argument check comes before anything is queued (not an array, a closed
 * one, fewer than two axes, matrices that are not square, half precision), arrays that pass them reach the stream
 * lookup (host-reachable fake memory has no stream), and the kernel that unpacks geev's real eigenvectors into
 * complex ones generates balanced source that compiles with nvcc where this machine has it.
 */
import { describe, expect, it } from "vitest";
import { ClosedError, DTypeError, ShapeMismatchError, dtypes, type DType, type DTypeName } from "../../../src/index.ts";
import * as linalg from "../../../src/array-linalg.ts";
import { eig, eigvals } from "../../../src/array-linalg.ts";
import { GEEV_VECTORS } from "../../../src/core/array/linalg/eig.ts";
import { elementwiseSource } from "../../../src/core/kernels/elementwise.ts";
import { parseParams, type Binding } from "../../../src/core/kernels/params.ts";
import { fakeArray } from "../../support/fake-arrays.ts";
import { nvccPresent, nvccProblems } from "../../support/nvcc.ts";

const NEEDS_STREAM = /needs a stream/;

/** The source of GEEV_VECTORS for a real dtype R and its complex C (as the builder makes it; `n` a scalar). */
function vectorsSource(real: DTypeName, complex: DTypeName): string {
  const params = [...parseParams(GEEV_VECTORS.inParams, false, "in"), ...parseParams(GEEV_VECTORS.outParams, true, "out")];
  const types = new Map<string, DType>([
    ["R", dtypes[real]],
    ["C", dtypes[complex]],
  ]);
  const dts = params.map((p) => (p.placeholder ? types.get(p.type)! : dtypes[p.type as DTypeName]));
  const binding = { types, dtypes: dts, scalar: params.map((p) => p.name === "n"), shape: [4], key: "" } as unknown as Binding;
  return elementwiseSource(GEEV_VECTORS.name, params, binding, GEEV_VECTORS.body);
}

describe("eig and eigvals: checks", () => {
  it("are exported by cuda-ts/array/linalg", () => {
    expect(typeof linalg.eig).toBe("function");
    expect(typeof linalg.eigvals).toBe("function");
  });

  it("refuse what is not an open DeviceArray", () => {
    expect(() => eig([[1, 2], [3, 4]] as never)).toThrow(/eig: a is a DeviceArray, not/);
    expect(() => eigvals(null as never)).toThrow(TypeError);
    const closed = fakeArray([2, 2], "float64");
    closed.close();
    expect(() => eig(closed)).toThrow(ClosedError);
    expect(() => eigvals(closed)).toThrow(ClosedError);
  });

  it("refuse fewer than two axes and matrices that are not square (ShapeMismatchError, as the other decompositions)", () => {
    expect(() => eig(fakeArray([4], "float64"))).toThrow(ShapeMismatchError);
    expect(() => eig(fakeArray([], "float64"))).toThrow(/eig: a must be a matrix or a stack of them \(\[\.\.\., m, n\]\), not shape \[\]/);
    expect(() => eigvals(fakeArray([3], "complex64"))).toThrow(/eigvals: a must be a matrix/);
    expect(() => eig(fakeArray([2, 3], "float64"))).toThrow(/eig: a must be square \(\[\.\.\., n, n\]\), not shape \[2, 3\]/);
    expect(() => eigvals(fakeArray([5, 3, 4], "float32"))).toThrow(ShapeMismatchError);
    expect(() => eig(fakeArray([0, 2], "float64"))).toThrow(/must be square/);
  });

  it("refuse half precision before looking for a stream (DTypeError: cast to float32), as the other decompositions", () => {
    expect(() => eig(fakeArray([2, 2], "float16"))).toThrow(DTypeError);
    expect(() => eigvals(fakeArray([3, 2, 2], "bfloat16"))).toThrow(/float32/);
  });

  it("get past the checks with square stacks of every other dtype, empty ones included (fake memory has no stream)", () => {
    for (const d of ["float32", "float64", "complex64", "complex128", "int32", "int64", "uint8", "bool"] as const) {
      expect(() => eig(fakeArray([3, 3], d)), d).toThrow(NEEDS_STREAM);
      expect(() => eigvals(fakeArray([2, 4, 4], d)), d).toThrow(NEEDS_STREAM);
    }
    expect(() => eig(fakeArray([0, 0], "float64"))).toThrow(NEEDS_STREAM);
    expect(() => eig(fakeArray([2, 0, 0], "float64"))).toThrow(NEEDS_STREAM);
    expect(() => eigvals(fakeArray([0, 3, 3], "float64"))).toThrow(NEEDS_STREAM);
    expect(() => eig(fakeArray([1, 1], "float64"))).toThrow(NEEDS_STREAM);
    // A transposed view is a matrix like another.
    expect(() => eig(fakeArray([2, 3, 3], "float64").transpose(0, 2, 1))).toThrow(NEEDS_STREAM);
  });

  it("take their options as an object", () => {
    expect(() => eig(fakeArray([2, 2], "float64"), 3 as never)).toThrow(/eig takes its options as an object/);
    expect(() => eigvals(fakeArray([2, 2], "float64"), "s" as never)).toThrow(/eigvals takes its options as an object/);
  });
});

describe("the kernel unpacking geev's real eigenvectors", () => {
  it("reads a pair's columns as LAPACK packs them: (re, im) from the first, the conjugate for the second", () => {
    expect(GEEV_VECTORS.inParams).toBe("raw R vr, raw C w, int64 n");
    expect(GEEV_VECTORS.outParams).toBe("C v");
    // Column-major n×n per matrix: element (row, col) of matrix b at b·n² + col·n + row.
    expect(GEEV_VECTORS.body).toContain("const R* m = vr + b * nn;");
    expect(GEEV_VECTORS.body).toContain("v = C(m[col * n + row], m[(col + 1) * n + row])");
    expect(GEEV_VECTORS.body).toContain("v = C(m[(col - 1) * n + row], -m[col * n + row])");
    expect(GEEV_VECTORS.body).toContain("v = C(m[col * n + row], R(0))");
  });

  it("generates balanced source for float32 → complex64 and float64 → complex128", () => {
    for (const [r, c] of [["float32", "complex64"], ["float64", "complex128"]] as const) {
      const src = vectorsSource(r, c);
      expect(src).toContain(`extern "C" __global__ void ${GEEV_VECTORS.name}(`);
      expect(src).toContain(`typedef ${dtypes[c].ctype} C;`);
      expect(src).toContain(`typedef ${dtypes[r].ctype} R;`);
      expect(src.split("{").length).toBe(src.split("}").length);
      expect(src.split("(").length).toBe(src.split(")").length);
      expect(src).toContain(GEEV_VECTORS.body);
    }
  });

  it.skipIf(!nvccPresent)(`compiles with nvcc${nvccPresent ? "" : " [skipped: no nvcc here]"}`, () => {
    expect(nvccProblems({ geev_vectors_f32: vectorsSource("float32", "complex64"), geev_vectors_f64: vectorsSource("float64", "complex128") }, { ptx: true, warnings: false })).toEqual([]);
  }, 300_000);
});
