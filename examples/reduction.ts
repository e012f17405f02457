/**
 * reduction: reductions in a few lines with ReductionKernel (CuPy's notation): a sum, a maximum, and a custom
 * reduction (the L2 norm of float32 data accumulated in float64), each checked against the CPU.
 *
 *   bun examples/reduction.ts
 *   deno run --allow-ffi --allow-env --allow-read examples/reduction.ts
 */
import { Device, DeviceArray } from "../src/index.ts";
import { ReductionKernel } from "../src/kernels.ts";

const dev = new Device(0);
dev.setCurrent();
using stream = dev.createStream();

const n = 5_000_011;
const ints = Int32Array.from({ length: n }, (_, i) => ((i * 7919) % 2001) - 1000);
const floats = Float32Array.from({ length: n }, (_, i) => Math.fround(Math.sin(i * 0.001) * 100));

const sum = new ReductionKernel("T x", "T y", "x", "a + b", "y = a", "0", "sum");
using di = DeviceArray.from(ints, { stream });
using s = sum.launch(stream, di) as DeviceArray<"int32">;
let expectedSum = 0;
for (const v of ints) expectedSum += v;
const [gotSum] = await s.toTypedArray({ stream });
if (gotSum !== expectedSum) throw new Error(`sum = ${gotSum}, expected ${expectedSum}`);

const max = new ReductionKernel("T x", "T y", "x", "fmaxf(a, b)", "y = a", "-3.402823466e38f", "max_f32");
using df = DeviceArray.from(floats, { stream });
using m = max.launch(stream, df) as DeviceArray<"float32">;
let expectedMax = -Infinity;
for (const v of floats) if (v > expectedMax) expectedMax = v;
const [gotMax] = await m.toTypedArray({ stream });
if (gotMax !== expectedMax) throw new Error(`max = ${gotMax}, expected ${expectedMax}`);

// A custom reduction: map squares each element (in double), post takes the square root.
const l2 = new ReductionKernel("T x", "float64 y", "(double)x * (double)x", "a + b", "y = sqrt(a)", "0", "l2norm", { reduceType: "float64" });
using nrm = l2.launch(stream, df) as DeviceArray<"float64">;
let ss = 0;
for (const v of floats) ss += v * v;
const [gotNorm] = await nrm.toTypedArray({ stream });
if (Math.abs(gotNorm! - Math.sqrt(ss)) > 1e-9 * Math.sqrt(ss)) throw new Error(`l2 = ${gotNorm}, expected ${Math.sqrt(ss)}`);

console.log(`reduction: sum ${gotSum}, max ${gotMax}, l2 norm ${gotNorm!.toFixed(3)} of ${n} elements on ${dev.name} OK`);
