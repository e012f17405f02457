/**
 * monte_carlo_pi: π from random points with cuRAND. A Philox generator fills two float32 arrays with uniform
 * coordinates, a ReductionKernel counts the points inside the quarter circle, and 4 × inside / n estimates π. The
 * estimate is checked to lie within 6 standard deviations of π, and a second generator with the same seed is checked
 * to give the same count.
 *
 *   bun examples/monte_carlo_pi.ts
 *   deno run --allow-ffi --allow-env --allow-read examples/monte_carlo_pi.ts
 */
import { Device, DeviceArray } from "../src/index.ts";
import { ReductionKernel } from "../src/kernels.ts";
import { Rng } from "../src/math.ts";

const dev = new Device(0);
dev.setCurrent();
using stream = dev.createStream();

const n = 1 << 24;
const seed = 2026;
const inside = new ReductionKernel("T x, T y", "uint64 c", "(x * x + y * y <= T(1)) ? 1ull : 0ull", "a + b", "c = a", "0", "count_inside", { reduceType: "uint64" });

async function count(): Promise<bigint> {
  using rng = await Rng.create({ stream, generator: "philox", seed });
  using x = rng.uniform([n], "float32");
  using y = rng.uniform([n], "float32");
  using c = inside.launch(stream, x, y) as DeviceArray<"uint64">;
  const [k] = await c.toTypedArray({ stream });
  return k!;
}

const k = await count();
const pi = (4 * Number(k)) / n;
const sigma = Math.sqrt((Math.PI * (4 - Math.PI)) / n);
if (!(Math.abs(pi - Math.PI) < 6 * sigma)) throw new Error(`pi ≈ ${pi} is ${Math.abs(pi - Math.PI) / sigma} standard deviations from π`);
const again = await count();
if (again !== k) throw new Error(`the same seed gave ${again} points inside, then ${k}`);

console.log(`monte_carlo_pi: pi ≈ ${pi.toFixed(5)} from ${n} points (philox, seed ${seed}), ${(Math.abs(pi - Math.PI) / sigma).toFixed(1)} standard deviations from π, reproducible on ${dev.name} OK`);
