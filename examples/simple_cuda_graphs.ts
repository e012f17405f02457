/**
 * simple_cuda_graphs: the CUDA sample simpleCudaGraphs (as cuda_bindings' port): a two-stage sum reduction (a
 * kernel that reduces the input to one partial sum per block, then one that adds the partials) wrapped in a CUDA
 * graph twice: built node by node (copy in, two memsets, two kernels, copy out, and on Deno a host node that reads
 * the result), and captured from streams with a fork and a join. Both graphs are read back (their node kinds and
 * edges), launched several times, and their results checked against the CPU.
 *
 *   bun examples/simple_cuda_graphs.ts
 *   deno run --allow-ffi --allow-env --allow-read examples/simple_cuda_graphs.ts
 */
import { Device, LaunchConfig, PinnedMemoryResource, Program, hostCallbacksSupported, launch } from "../src/index.ts";
import { GraphBuilder, GraphDefinition } from "../src/graphs.ts";

const source = `
#define THREADS_PER_BLOCK 256
__global__ void reduce(const float* inputVec, double* outputVec, size_t inputSize, size_t outputSize) {
  __shared__ double tmp[THREADS_PER_BLOCK];
  double sum = 0;
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < inputSize; i += (size_t)gridDim.x * blockDim.x) sum += inputVec[i];
  tmp[threadIdx.x] = sum;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) tmp[threadIdx.x] += tmp[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0 && blockIdx.x < outputSize) outputVec[blockIdx.x] = tmp[0];
}
__global__ void reduceFinal(const double* inputVec, double* result, size_t inputSize) {
  __shared__ double tmp[THREADS_PER_BLOCK];
  double sum = 0;
  for (size_t i = threadIdx.x; i < inputSize; i += blockDim.x) sum += inputVec[i];
  tmp[threadIdx.x] = sum;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) tmp[threadIdx.x] += tmp[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) *result = tmp[0];
}`;

const THREADS = 256;
const BLOCKS = 512;
const SIZE = 1 << 22;
const LAUNCHES = 3;

const dev = new Device(0);
dev.setCurrent();
using stream = dev.createStream();
const code = new Program(source, "c++", { arch: `sm_${dev.arch}` }).compile("cubin", { nameExpressions: ["reduce", "reduceFinal"] });
const reduce = code.getKernel("reduce");
const reduceFinal = code.getKernel("reduceFinal");

// Pinned host memory for the input and the result (graph copies from and to host memory want it page-locked).
using pinnedMr = new PinnedMemoryResource();
using hostIn = pinnedMr.allocate(SIZE * 4, { stream });
using hostOut = pinnedMr.allocate(8, { stream });
await stream.done();
const input = hostIn.asTypedArray(Float32Array);
for (let i = 0; i < SIZE; i++) input[i] = ((Math.imul(i, 2654435761) >>> 0) % 1000) / 1000; // the sample's rand() / RAND_MAX, repeatable
let expected = 0;
for (let i = 0; i < SIZE; i++) expected += input[i]!;

using inputVec = dev.allocate(SIZE * 4, { stream });
using outputVec = dev.allocate(BLOCKS * 8, { stream });
using result = dev.allocate(8, { stream });
const reduceConfig = new LaunchConfig({ grid: BLOCKS, block: THREADS });
const finalConfig = new LaunchConfig({ grid: 1, block: THREADS });
const output = hostOut.asTypedArray(Float64Array);

function check(how: string): void {
  const got = output[0]!;
  if (!(Math.abs(got - expected) <= 1e-6 * Math.abs(expected))) throw new Error(`simple_cuda_graphs (${how}): the GPU's sum is ${got}, the CPU's ${expected}`);
}

// 1. Built node by node (cudaGraphsManual).
let hostNodeRuns = 0;
{
  using def = new GraphDefinition(dev);
  const copyIn = def.memcpy(inputVec, input); // host memory (pinned) → device
  const clearPartials = def.memset(outputVec, 0);
  const partials = def.after(copyIn, clearPartials).launch(reduceConfig, reduce, inputVec, outputVec, SIZE, BLOCKS);
  const clearResult = def.memset(result, 0);
  const total = def.after(partials, clearResult).launch(finalConfig, reduceFinal, outputVec, result, BLOCKS);
  const copyOut = total.memcpy(output, result);
  if (hostCallbacksSupported) {
    copyOut.callback(() => {
      hostNodeRuns++;
      check("the host node");
    });
  }
  const { nodes, edges } = def.inspect();
  const kinds = nodes.map((n) => n.type).sort().join(",");
  const want = ["kernel", "kernel", "memcpy", "memcpy", "memset", "memset", ...(hostCallbacksSupported ? ["host"] : [])].sort().join(",");
  if (kinds !== want) throw new Error(`simple_cuda_graphs: the manual graph holds ${kinds}, expected ${want}`);
  if (edges.length !== (hostCallbacksSupported ? 6 : 5)) throw new Error(`simple_cuda_graphs: the manual graph has ${edges.length} edges`);
  using graph = def.instantiate();
  for (let i = 0; i < LAUNCHES; i++) {
    output[0] = 0;
    graph.launch(stream);
    await stream.done();
    check(`manual graph, launch ${i + 1}`);
  }
  console.log(`manual graph: ${nodes.length} nodes, ${edges.length} edges, ${LAUNCHES} launches, sum ${output[0]!.toFixed(3)}`);
}

// 2. Captured from streams (cudaGraphsUsingStreamCapture): the input copy and the memsets on forked streams.
{
  using builder = dev.createGraphBuilder().beginBuilding();
  const [main, side] = builder.split(2) as [GraphBuilder, GraphBuilder];
  inputVec.copyFrom(hostIn, { stream: main.stream });
  outputVec.fill(0, { stream: side.stream });
  result.fill(0, { stream: side.stream });
  GraphBuilder.join(main, side);
  launch(builder, reduceConfig, reduce, inputVec, outputVec, SIZE, BLOCKS);
  launch(builder, finalConfig, reduceFinal, outputVec, result, BLOCKS);
  result.copyTo(hostOut, { stream: builder.stream });
  builder.endBuilding();
  const { nodes, edges } = builder.inspect();
  const kernels = nodes.filter((n) => n.type === "kernel").length;
  const copies = nodes.filter((n) => n.type === "memcpy").length;
  if (kernels !== 2 || copies !== 2) throw new Error(`simple_cuda_graphs: the captured graph holds ${kernels} kernels and ${copies} copies, expected 2 and 2`);
  using graph = builder.complete();
  for (let i = 0; i < LAUNCHES; i++) {
    output[0] = 0;
    graph.launch(stream);
    await stream.done();
    check(`captured graph, launch ${i + 1}`);
  }
  console.log(`captured graph: ${nodes.length} nodes, ${edges.length} edges, ${LAUNCHES} launches, sum ${output[0]!.toFixed(3)}`);
}

if (hostCallbacksSupported && hostNodeRuns !== LAUNCHES) throw new Error(`simple_cuda_graphs: the host node ran ${hostNodeRuns} times, not ${LAUNCHES}`);
console.log(
  `simple_cuda_graphs: a ${SIZE}-float reduction as a manual graph${hostCallbacksSupported ? " with a host node" : ""} and as a captured one, ${LAUNCHES} launches each, on ${dev.name}: OK`,
);
