/**
 * strided_views: a typed device array, its views (a slice with a step, a negative step, a transpose, a reshape, a
 * dtype view), each read back and checked against the same view computed on the CPU; a strided copy (a transpose
 * made contiguous by the generated copy kernel) and a 2D block copied into another array (one 2D memcpy).
 *
 *   bun examples/strided_views.ts
 *   deno run --allow-ffi --allow-env --allow-read examples/strided_views.ts
 */
import { Device, DeviceArray } from "../src/index.ts";

const dev = new Device(0);
dev.setCurrent();
using stream = dev.createStream();

const rows = 64;
const cols = 48;
const data = Float32Array.from({ length: rows * cols }, (_, i) => i);
using a = DeviceArray.from(data, { stream, shape: [rows, cols], dtype: "float32" });

/** The elements of a view of `data` (shape, strides in elements, first element), row-major, on the CPU. */
function expected(shape: readonly number[], strides: readonly number[], first: number): number[] {
  const out: number[] = [];
  const walk = (axis: number, at: number): void => {
    if (axis === shape.length) out.push(data[at]!);
    else for (let i = 0; i < shape[axis]!; i++) walk(axis + 1, at + i * strides[axis]!);
  };
  walk(0, first);
  return out;
}

function check(name: string, view: DeviceArray<"float32">, got: ArrayLike<number>): void {
  const want = expected(view.shape, view.strides, (view.byteOffset - a.byteOffset) / 4);
  if (got.length !== want.length) throw new Error(`${name}: ${got.length} elements, expected ${want.length}`);
  for (let i = 0; i < want.length; i++) if (got[i] !== want[i]) throw new Error(`${name}[${i}] = ${got[i]}, expected ${want[i]}`);
}

const views: [string, DeviceArray<"float32">][] = [
  ["every third column of rows 8..24", a.slice([8, 24], [null, null, 3])],
  ["rows backwards, every other column backwards", a.slice([null, null, -1], [null, null, -2])],
  ["the transpose", a.T],
  ["column 5", a.slice(null, 5)],
  ["a reshape to 96 x 32, rows 10..20", a.reshape(96, 32).subarray(10, 20)],
];
for (const [name, v] of views) {
  check(name, v, await v.toTypedArray({ stream }));
  console.log(`${name}: shape [${v.shape.join(", ")}], strides [${v.strides.join(", ")}], ${v.isContiguous ? "contiguous" : "strided"}: matches`);
}

// A dtype view: the same bytes as uint32 (float bits).
const bits = await a.slice(0, [1, 3]).view("uint32").toTypedArray({ stream });
if (bits[0] !== 0x3f800000 || bits[1] !== 0x40000000) throw new Error(`uint32 view: ${[...bits].map((b) => b.toString(16))}`);

// A strided copy: the transpose, packed into new memory by the generated copy kernel.
using t = a.T.copy({ stream });
if (!t.isContiguous) throw new Error("copy() should be contiguous");
check("packed transpose", a.T, await t.toTypedArray({ stream }));

// A 2D block into another array's block: rows contiguous on both sides, one 2D memcpy.
using b = DeviceArray.zeros([rows, cols], "float32", { stream });
const src = a.slice([4, 20], [8, 40]);
b.slice([30, 46], [0, 32]).copyFrom(src, { stream });
const bh = await b.toTypedArray({ stream });
for (let r = 0; r < 16; r++) {
  for (let c = 0; c < 32; c++) {
    const got = bh[(30 + r) * cols + c];
    const want = data[(4 + r) * cols + 8 + c];
    if (got !== want) throw new Error(`block copy [${r}, ${c}] = ${got}, expected ${want}`);
  }
}
if (bh[0] !== 0 || bh[29 * cols] !== 0) throw new Error("the block copy wrote outside its block");

console.log(`strided_views: ${views.length} views, a strided copy and a 2D block copy of a ${rows}x${cols} float32 array on ${dev.name} OK`);
