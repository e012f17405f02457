/**
 * sparse_matvec: a sparse matrix times a vector with cuSPARSE. The 5-point Laplacian of a square grid is built on the
 * CPU in CSR and COO form, moved to the GPU as DeviceArrays, and multiplied by a vector (SpMV) in both forms; the
 * products are checked against the stencil applied directly on the CPU.
 *
 *   bun examples/sparse_matvec.ts
 *   deno run --allow-ffi --allow-env --allow-read examples/sparse_matvec.ts
 */
import { Device, DeviceArray } from "../src/index.ts";
import { Sparse } from "../src/math.ts";

const dev = new Device(0);
dev.setCurrent();
using stream = dev.createStream();
using sparse = await Sparse.create({ stream });

const g = 128;
const n = g * g;
const offsets = [0];
const rows: number[] = [];
const cols: number[] = [];
const values: number[] = [];
for (let r = 0; r < g; r++) {
  for (let c = 0; c < g; c++) {
    const i = r * g + c;
    const put = (j: number, v: number): void => {
      rows.push(i);
      cols.push(j);
      values.push(v);
    };
    if (r > 0) put(i - g, -1);
    if (c > 0) put(i - 1, -1);
    put(i, 4);
    if (c < g - 1) put(i + 1, -1);
    if (r < g - 1) put(i + g, -1);
    offsets.push(values.length);
  }
}
const x = Float64Array.from({ length: n }, (_, i) => Math.sin(i * 0.37) + (i % 5));

using vals = DeviceArray.from(Float64Array.from(values), { stream });
using rowOffsets = DeviceArray.from(Int32Array.from(offsets), { stream });
using rowIndices = DeviceArray.from(Int32Array.from(rows), { stream });
using colIndices = DeviceArray.from(Int32Array.from(cols), { stream });
using X = DeviceArray.from(x, { stream });
using csr = sparse.csr({ shape: [n, n], rowOffsets, colIndices, values: vals });
using coo = sparse.coo({ shape: [n, n], rowIndices, colIndices, values: vals });
using y1 = sparse.spmv(csr, X);
using y2 = sparse.spmv(coo, X);
const a = await y1.toTypedArray({ stream });
const b = await y2.toTypedArray({ stream });

let maxError = 0;
for (let r = 0; r < g; r++) {
  for (let c = 0; c < g; c++) {
    const i = r * g + c;
    let want = 4 * x[i]!;
    if (r > 0) want -= x[i - g]!;
    if (c > 0) want -= x[i - 1]!;
    if (c < g - 1) want -= x[i + 1]!;
    if (r < g - 1) want -= x[i + g]!;
    maxError = Math.max(maxError, Math.abs(a[i]! - want), Math.abs(b[i]! - want));
  }
}
if (!(maxError < 1e-12)) throw new Error(`max error ${maxError}`);

console.log(`sparse_matvec: 5-point Laplacian of a ${g}x${g} grid (${n} rows, ${csr.nnz} non-zeros) in CSR and COO, SpMV matches the stencil on ${dev.name} OK`);
