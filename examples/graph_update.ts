/**
 * graph_update: build an executable graph once, then point it at other buffers and other values by updating it in
 * place from a new capture of the same shape (cheaper than instantiating a new graph). A capture of another shape
 * is refused with GraphUpdateError, and the graph keeps working. Each result is checked.
 *
 *   bun examples/graph_update.ts
 *   deno run --allow-ffi --allow-env --allow-read examples/graph_update.ts
 */
import { Device, GraphUpdateError, LaunchConfig, Program, launch, type Buffer } from "../src/index.ts";
import { type GraphBuilder } from "../src/graphs.ts";

const source = `
template <typename T> __global__ void scale(T* x, T factor, size_t n) {
  const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < n) x[i] *= factor;
}
template <typename T> __global__ void shift(T* x, T offset, size_t n) {
  const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < n) x[i] += offset;
}`;

const dev = new Device(0);
dev.setCurrent();
using stream = dev.createStream();
const code = new Program(source, "c++", { arch: `sm_${dev.arch}`, std: "c++17" }).compile("cubin", {
  nameExpressions: ["scale<float>", "shift<float>"],
});
const scale = code.getKernel("scale<float>");
const shift = code.getKernel("shift<float>");

const n = 100_000;
const config = new LaunchConfig({ grid: Math.ceil(n / 256), block: 256 });
const initial = new Float32Array(new ArrayBuffer(n * 4)).map((_, i) => i % 100);

function upload(): Buffer {
  const b = dev.allocate(n * 4, { stream });
  b.copyFrom(initial, { stream });
  return b;
}

/** Captures x = x * factor + offset on `buffer`: always the same shape, two kernel nodes in a row. */
function capture(buffer: Buffer, factor: number, offset: number): GraphBuilder {
  const builder = dev.createGraphBuilder().beginBuilding();
  launch(builder, config, scale, buffer, factor, n);
  launch(builder, config, shift, buffer, offset, n);
  return builder.endBuilding();
}

async function check(buffer: Buffer, expected: (v: number) => number, what: string): Promise<void> {
  const out = new Float32Array(new ArrayBuffer(n * 4));
  buffer.copyTo(out, { stream });
  await stream.done();
  for (let i = 0; i < n; i++) {
    const want = expected(initial[i]!);
    if (out[i] !== want) throw new Error(`${what}: element ${i} is ${out[i]}, expected ${want}`);
  }
}

using a = upload();
using b = upload();

using first = capture(a, 2, 1);
using graph = first.complete();
graph.launch(stream);
await check(a, (v) => v * 2 + 1, "the first graph on a");

// Same shape, another buffer and other values: update in place.
using second = capture(b, 3, -4);
graph.update(second);
graph.launch(stream);
await check(b, (v) => v * 3 - 4, "the updated graph on b");
await check(a, (v) => v * 2 + 1, "a, untouched by the updated graph");

// Another shape (one kernel instead of two): refused, and the graph is unchanged.
using other = dev.createGraphBuilder().beginBuilding();
launch(other, config, scale, b, 10, n);
other.endBuilding();
let refused = false;
try {
  graph.update(other);
} catch (e) {
  if (!(e instanceof GraphUpdateError)) throw e;
  refused = true;
  console.log(`graph_update: a capture of another shape is refused (${e.reason})`);
}
if (!refused) throw new Error("updating from a graph of another shape should have thrown GraphUpdateError");
graph.launch(stream);
await check(b, (v) => (v * 3 - 4) * 3 - 4, "the updated graph, launched again");

console.log(`graph_update: updated a 2-kernel graph in place on ${dev.name}: OK`);
