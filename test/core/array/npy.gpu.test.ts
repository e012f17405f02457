/**
 * `.npy` files on a real GPU: NumPy's files (test/fixtures/arrays/npy-files.json, NumPy 2's np.save) load with their
 * values (C and Fortran order, big-endian, 0-d, empty, float16, complex), arrays save to NumPy's exact bytes (a
 * transposed view in Fortran order, other views packed in C order), and save/load round-trip through a private file. Skips without a GPU.
 */
import { describe, expect, it } from "vitest";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { DeviceArray, type Stream } from "../../../src/index.ts";
import { fromNpy, load, save, toNpy } from "../../../src/array.ts";
import { gpu, skipNote } from "../../support/gpu.ts";
import { onGpuStream, readDecoded } from "../../support/gpu-arrays.ts";
import fixture from "../../fixtures/arrays/npy-files.json" with { type: "json" };

const bytesOf = (b64: string): Uint8Array => Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
const npy = (name: keyof typeof fixture.arrays): Uint8Array => bytesOf(fixture.arrays[name]);

describe.skipIf(!gpu.available)(`.npy files on a GPU${skipNote}`, () => {
  let stream: Stream;
  onGpuStream((s) => (stream = s));

  it("loads NumPy's files with their values", () => {
    expect(readDecoded(fromNpy(npy("f32_2x3"), { stream }), stream)).toEqual(["float32", [2, 3], [0, 0.25, 0.5, 0.75, 1, 1.25]]);
    const f = fromNpy(npy("i64_fortran"), { stream });
    expect(f.isContiguous).toBe(true);
    expect(readDecoded(f, stream)).toEqual(["int64", [2, 3], [0, 1, 2, 3, 4, 5]]);
    expect(readDecoded(fromNpy(npy("i32_big_endian"), { stream }), stream)).toEqual(["int32", [3], [1, -2, 300000]]);
    expect(readDecoded(fromNpy(npy("c64_big_endian"), { stream }), stream)).toEqual(["complex64", [2], [[1, 2], [-0, -3.5]]]); // NumPy's -3.5j is -0 - 3.5j
    expect(readDecoded(fromNpy(npy("bool_0d"), { stream }), stream)).toEqual(["bool", [], [true]]);
    expect(readDecoded(fromNpy(npy("u8_empty"), { stream }), stream)).toEqual(["uint8", [0, 4], []]);
    expect(readDecoded(fromNpy(npy("f16"), { stream }), stream)).toEqual(["float16", [3], [1.5, -2, 65504]]);
    expect(readDecoded(fromNpy(npy("c128"), { stream }), stream)).toEqual(["complex128", [2], [[1, 1], [2, -0.5]]]);
  });

  it("saves NumPy's exact bytes: transposed views in Fortran order, other views packed in C order", () => {
    for (const name of ["f32_2x3", "bool_0d", "u8_empty", "f16", "c128"] as const) {
      using a = fromNpy(npy(name), { stream });
      expect(toNpy(a), name).toEqual(npy(name));
    }
    // The Fortran-order file's array saved again: C order, NumPy's header for it.
    using f = fromNpy(npy("i64_fortran"), { stream });
    const again = toNpy(f);
    expect(again.length).toBe(128 + 48);
    expect(new TextDecoder().decode(again.subarray(10, 128))).toContain("'fortran_order': False, 'shape': (2, 3)");
    expect(Array.from(new BigInt64Array(again.slice(128).buffer))).toEqual([0n, 1n, 2n, 3n, 4n, 5n]);
    // A transposed view: as np.save, its elements as they lie, fortran_order True; loaded back, the same values.
    using x = fromNpy(npy("f32_2x3"), { stream });
    const t = toNpy(x.T, { stream });
    expect(t).toEqual(npy("f32_transposed"));
    expect(readDecoded(fromNpy(t, { stream }), stream)).toEqual(["float32", [3, 2], [0, 0.75, 0.25, 1, 0.5, 1.25]]);
    // Another view (a column slice): packed in C order.
    const c = toNpy(x.slice(null, [1, 3]), { stream });
    expect(new TextDecoder().decode(c.subarray(10, 128))).toContain("'fortran_order': False, 'shape': (2, 2)");
    expect(Array.from(new Float32Array(c.slice(128).buffer))).toEqual([0.25, 0.5, 1, 1.25]);
  });

  it("round-trips save and load through a file private to its owner", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cuda-ts-npy-"));
    try {
      using x = DeviceArray.from(Float64Array.from({ length: 12 }, (_, i) => i / 3), { stream, shape: [3, 4] });
      const file = save(path.join(dir, "x"), x.slice(null, [1, 3]));
      expect(file).toBe(path.join(dir, "x.npy"));
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
      expect(readDecoded(load(file, { stream }), stream)).toEqual(["float64", [3, 2], [1 / 3, 2 / 3, 5 / 3, 6 / 3, 9 / 3, 10 / 3]]);
      // Saving again overwrites, with the name kept as given when it ends in .npy.
      expect(save(file, x)).toBe(file);
      expect(readDecoded(load(file, { stream }), stream)[1]).toEqual([3, 4]);
    } finally {
      fs.rmSync(dir, { recursive: true });
    }
  });
});
