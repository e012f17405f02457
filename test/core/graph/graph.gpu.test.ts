/**
 * CUDA graphs and host callbacks on a real GPU: stream capture (launches, copies, fills), fork/join, conditional
 * while and if nodes set from kernels, in-place update, explicit graphs with kernel argument updates, host
 * callbacks (Deno) and their typed refusal (Bun), what graphs keep alive, and the two graph examples. Skips cleanly
 * where there is no driver.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  Buffer,
  Device,
  GraphFeatureError,
  GraphStateError,
  GraphUpdateError,
  LaunchConfig,
  type Kernel,
  type Stream,
} from "../../../src/index.ts";
import { GraphBuilder, GraphDefinition, type Graph } from "../../../src/graphs.ts";
import { launch } from "../../../src/core/launch/launch.ts";
import { Program } from "../../../src/core/program/program.ts";
import { ffi, UnsupportedOnRuntimeError } from "../../../src/ffi/index.ts";
import { driver } from "../../../src/bindings/driver-entry.ts";
import { forceGc } from "../../support/gc.ts";
import { gpu, skipNote } from "../../support/gpu.ts";
import { runtimeCommand } from "../../support/runtime.ts";

const SOURCE = `
extern "C" __device__ __cudart_builtin__ void CUDARTAPI cudaGraphSetConditional(cudaGraphConditionalHandle handle, unsigned int value);
__global__ void add(float* x, float v, unsigned n) { const unsigned i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] += v; }
__global__ void mul(float* x, float v, unsigned n) { const unsigned i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] *= v; }
__global__ void add_into(float* dst, const float* src, unsigned n) { const unsigned i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) dst[i] += src[i]; }
__global__ void set_int(int* p, int v) { *p = v; }
__global__ void countdown(cudaGraphConditionalHandle cond, int* counter, int* iterations) {
  const int left = --*counter;
  ++*iterations;
  cudaGraphSetConditional(cond, left > 0 ? 1u : 0u);
}
__global__ void set_condition(cudaGraphConditionalHandle cond, const int* flag) { cudaGraphSetConditional(cond, *flag != 0 ? 1u : 0u); }
`;
const NAMES = ["add", "mul", "add_into", "set_int", "countdown", "set_condition"] as const;
const N = 1000;
const onDeno = ffi.runtime === "deno";

describe.skipIf(!gpu.available)(`CUDA graphs on a GPU${skipNote}`, () => {
  let dev: Device;
  let stream: Stream;
  let k: Record<(typeof NAMES)[number], Kernel>;
  let cfg: LaunchConfig;
  let one: LaunchConfig;

  beforeAll(() => {
    if (!gpu.available) return;
    dev = new Device(0);
    dev.setCurrent();
    stream = dev.createStream();
    const code = new Program(SOURCE, "c++", { arch: `sm_${dev.arch}` }).compile("cubin", { nameExpressions: [...NAMES] });
    k = Object.fromEntries(NAMES.map((n) => [n, code.getKernel(n)])) as typeof k;
    cfg = new LaunchConfig({ grid: Math.ceil(N / 256), block: 256 });
    one = new LaunchConfig({ grid: 1, block: 1 });
  });

  afterAll(() => {
    stream?.close();
  });

  const iota = (f: (i: number) => number = (i) => i) => new Float32Array(new ArrayBuffer(N * 4)).map((_, i) => f(i));

  function floats(values: Float32Array): Buffer {
    const b = dev.allocate(values.byteLength, { stream });
    b.copyFrom(values, { stream });
    return b;
  }

  /** One int32 in memory whose address stays put (an explicit ArrayBuffer, as the ffi layer asks). */
  const hostInt = (value: number): Int32Array => {
    const a = new Int32Array(new ArrayBuffer(4));
    a[0] = value;
    return a;
  };

  function int(value: number): Buffer {
    const b = dev.allocate(4, { stream });
    b.copyFrom(hostInt(value), { stream });
    return b;
  }

  async function readFloats(b: Buffer): Promise<Float32Array> {
    const out = new Float32Array(new ArrayBuffer(b.size));
    b.copyTo(out, { stream });
    await stream.done();
    return out;
  }

  async function readInt(b: Buffer): Promise<number> {
    const out = new Int32Array(new ArrayBuffer(4));
    b.copyTo(out, { stream });
    await stream.done();
    return out[0]!;
  }

  it("captures launches and a copy, runs nothing while capturing, and replays the graph", async () => {
    using x = floats(iota());
    using y = floats(iota(() => -1));
    await stream.done();
    using builder = dev.createGraphBuilder();
    expect(builder.isBuilding).toBe(false);
    builder.beginBuilding();
    expect(builder.isBuilding).toBe(true);
    launch(builder, cfg, k.add, x, 1, N);
    launch(builder, cfg, k.mul, x, 2, N);
    launch(builder.stream, cfg, k.add, x, -3, N);
    x.copyTo(y, { stream: builder.stream });
    builder.endBuilding();
    expect(builder.isBuilding).toBe(false);
    expect(await readFloats(x)).toEqual(iota()); // capturing ran nothing
    using graph = builder.complete();
    graph.upload(stream);
    for (let r = 0; r < 3; r++) graph.launch(stream); // f(v) = 2v - 1, three times: 8v - 7
    expect(await readFloats(x)).toEqual(iota((i) => 8 * i - 7));
    expect(await readFloats(y)).toEqual(iota((i) => 8 * i - 7));
    const second = builder.complete({ uploadStream: stream }); // a builder completes more than once
    second.launch(stream);
    expect(await readFloats(x)).toEqual(iota((i) => 2 * (8 * i - 7) - 1));
    second.close();
    expect(() => second.launch(stream)).toThrow(/closed/);
  });

  it("writes a DOT file of the captured graph", async () => {
    using x = floats(iota());
    using builder = dev.createGraphBuilder().beginBuilding();
    launch(builder, cfg, k.mul, x, 2, N);
    expect(() => builder.debugDotPrint("never.dot")).toThrow(GraphStateError);
    builder.endBuilding();
    const path = join(tmpdir(), `cuda-ts-graph-${process.pid}.dot`);
    try {
      builder.debugDotPrint(path, { kernelNodeParams: true });
      const dot = readFileSync(path, "utf8");
      expect(dot).toMatch(/digraph/);
      expect(dot).toMatch(/mul/);
    } finally {
      if (existsSync(path)) rmSync(path);
    }
    await stream.done();
  });

  it("forks and joins: split work runs after the fork point, joined work after both branches", async () => {
    using x = floats(iota());
    using y = floats(iota(() => 0));
    await stream.done();
    using builder = dev.createGraphBuilder().beginBuilding();
    launch(builder, cfg, k.add, x, 1, N);
    const [left, right] = builder.split(2) as [GraphBuilder, GraphBuilder];
    expect(left).toBe(builder);
    expect(right.isJoinRequired).toBe(true);
    expect(() => right.endBuilding()).toThrow(/join it back/);
    launch(left, cfg, k.mul, x, 2, N);
    launch(right, cfg, k.add, y, 3, N);
    const joined = GraphBuilder.join(left, right);
    expect(joined).toBe(builder);
    expect(right.isJoinRequired).toBe(false);
    launch(joined, cfg, k.add_into, x, y, N);
    using graph = builder.endBuilding().complete();
    graph.launch(stream);
    expect(await readFloats(x)).toEqual(iota((i) => (i + 1) * 2 + 3));
    expect(await readFloats(y)).toEqual(iota(() => 3));
  });

  it("runs a while loop whose condition a kernel clears when a counter reaches zero", async () => {
    using counter = int(-1);
    using iterations = int(-1);
    using builder = dev.createGraphBuilder().beginBuilding();
    launch(builder, one, k.set_int, counter, 5);
    launch(builder, one, k.set_int, iterations, 0);
    const cond = builder.createCondition(1); // enter the loop; the body decides whether to go round again
    using body = builder.whileLoop(cond);
    body.beginBuilding();
    launch(body, one, k.countdown, cond, counter, iterations);
    body.endBuilding();
    expect(() => body.complete()).toThrow(/part of its parent's graph/);
    using graph = builder.endBuilding().complete();
    for (let run = 0; run < 2; run++) {
      graph.launch(stream);
      expect(await readInt(iterations)).toBe(5);
      expect(await readInt(counter)).toBe(0);
    }
  });

  it("runs an if node's body only when the kernel-set condition is non-zero, at every launch", async () => {
    using flag = int(1);
    using out = int(-1);
    using builder = dev.createGraphBuilder().beginBuilding();
    launch(builder, one, k.set_int, out, 0);
    const cond = builder.createCondition();
    launch(builder, one, k.set_condition, cond, flag);
    using then = builder.ifThen(cond).beginBuilding();
    launch(then, one, k.set_int, out, 42);
    then.endBuilding();
    using graph = builder.endBuilding().complete();
    graph.launch(stream);
    expect(await readInt(out)).toBe(42);
    flag.copyFrom(hostInt(0), { stream });
    graph.launch(stream);
    expect(await readInt(out)).toBe(0);
  });

  it("runs one of an if/else node's bodies (CUDA 12.8+)", async () => {
    using flag = int(0);
    using out = int(-1);
    using builder = dev.createGraphBuilder().beginBuilding();
    const cond = builder.createCondition();
    launch(builder, one, k.set_condition, cond, flag);
    let bodies: [GraphBuilder, GraphBuilder];
    try {
      bodies = builder.ifElse(cond);
    } catch (e) {
      expect(e).toBeInstanceOf(GraphFeatureError); // an older driver: the refusal says so
      return;
    }
    const [then, otherwise] = bodies;
    then.beginBuilding();
    launch(then, one, k.set_int, out, 1);
    then.endBuilding();
    otherwise.beginBuilding();
    launch(otherwise, one, k.set_int, out, 2);
    otherwise.endBuilding();
    using graph = builder.endBuilding().complete();
    graph.launch(stream);
    expect(await readInt(out)).toBe(2);
    flag.copyFrom(hostInt(1), { stream });
    graph.launch(stream);
    expect(await readInt(out)).toBe(1);
    then.close();
    otherwise.close();
  });

  it("updates a graph in place from a capture of the same shape, and refuses another shape with the reason", async () => {
    using a = floats(iota());
    using b = floats(iota((i) => 2 * i));
    await stream.done();
    const capture = (buf: Buffer, factor: number, addend: number): GraphBuilder => {
      const builder = dev.createGraphBuilder().beginBuilding();
      launch(builder, cfg, k.mul, buf, factor, N);
      launch(builder, cfg, k.add, buf, addend, N);
      return builder.endBuilding();
    };
    using first = capture(a, 2, 1);
    using graph = first.complete();
    graph.launch(stream);
    expect(await readFloats(a)).toEqual(iota((i) => 2 * i + 1));
    using second = capture(b, 3, 5);
    graph.update(second);
    graph.launch(stream);
    expect(await readFloats(b)).toEqual(iota((i) => 6 * i + 5));
    expect(await readFloats(a)).toEqual(iota((i) => 2 * i + 1)); // no longer touched
    using other = dev.createGraphBuilder().beginBuilding();
    launch(other, cfg, k.mul, b, 10, N);
    other.endBuilding();
    let error: unknown;
    try {
      graph.update(other);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(GraphUpdateError);
    expect((error as GraphUpdateError).reason).toBe("CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED");
    expect((error as Error).message).toMatch(/topology differs/);
    graph.launch(stream); // unchanged by the refused update
    expect(await readFloats(b)).toEqual(iota((i) => 3 * (6 * i + 5) + 5));
  });

  it("builds explicit graphs (memset, kernel, copy, event record) and updates a kernel node's arguments", async () => {
    using x = floats(iota(() => -1));
    using y = floats(iota(() => -1));
    using event = dev.createEvent();
    await stream.done();
    using def = new GraphDefinition(dev);
    const fill = def.memset(x, Float32Array.of(1));
    const add = fill.launch(cfg, k.add, x, 2, N);
    const copy = add.memcpy(y, x);
    const record = copy.record(event);
    expect(def.nodes.map((n) => n.type)).toEqual(["memset", "kernel", "memcpy", "eventRecord"]);
    [fill, add, copy, record].forEach((n, i) => expect(def.nodes[i]).toBe(n));
    expect(copy.dependencies).toHaveLength(1);
    expect(copy.dependencies[0]).toBe(add);
    using graph = def.instantiate();
    graph.launch(stream);
    expect(await readFloats(y)).toEqual(iota(() => 3));
    expect(event.isDone).toBe(true);
    graph.setKernelArguments(add, x, 5, N);
    graph.launch(stream);
    expect(await readFloats(x)).toEqual(iota(() => 6));
    expect(await readFloats(y)).toEqual(iota(() => 6));
    using fresh = def.instantiate(); // the definition's node still adds 2
    fresh.launch(stream);
    expect(await readFloats(y)).toEqual(iota(() => 3));
    using foreign = new GraphDefinition(dev);
    const alien = foreign.launch(cfg, k.add, x, 1, N);
    expect(() => graph.setKernelArguments(alien, x, 1, N)).toThrow(GraphStateError);
  });

  it("builds explicit graphs with an event wait, a child graph, independent roots and a join", async () => {
    using y = floats(iota());
    using z = floats(iota(() => 0));
    using event = stream.record(); // recorded and soon complete: the wait node passes
    await stream.done();
    using inner = new GraphDefinition(dev);
    inner.launch(cfg, k.mul, z, 10, N);
    using outer = new GraphDefinition(dev);
    const bumped = outer.wait(event).launch(cfg, k.add, z, 1, N); // z = 1
    const child = bumped.embed(inner); // z = 10
    const other = outer.launch(cfg, k.add, y, 1, N); // y = i + 1, concurrently
    const both = outer.join(child, other);
    expect(both.type).toBe("empty");
    expect(both.dependencies.length).toBe(2);
    expect(both.dependencies[0]).toBe(child);
    expect(both.dependencies[1]).toBe(other);
    both.launch(cfg, k.add_into, z, y, N); // z = 10 + i + 1
    expect(() => inner.after(bumped)).toThrow(GraphStateError); // nodes of another definition
    using graph = outer.instantiate();
    graph.launch(stream);
    expect(await readFloats(z)).toEqual(iota((i) => 11 + i));
  });

  /**
   * Captures a graph that writes 7 into a temporary buffer and copies it to `out`, and drops the builder and the
   * temporary; also allocates a control buffer that nothing keeps. In a function of its own, so that no scope of the
   * test holds either buffer.
   */
  function captureWithTemporary(out: Buffer): { graph: Graph; temporary: WeakRef<Buffer>; control: WeakRef<Buffer> } {
    const t = int(0);
    const control = dev.allocate(4, { stream });
    const builder = dev.createGraphBuilder().beginBuilding();
    launch(builder, one, k.set_int, t, 7);
    t.copyTo(out, { stream: builder.stream });
    return { graph: builder.endBuilding().complete(), temporary: new WeakRef(t), control: new WeakRef(control) };
  }

  it("keeps what a captured graph uses alive after the builder and buffers are dropped", async () => {
    using out = int(-1);
    const { graph, temporary, control } = captureWithTemporary(out);
    await stream.done();
    await forceGc();
    // The control shows that the collection ran and could free a dropped buffer (both runtimes: test/support/gc.ts).
    expect(control.deref(), "a dropped buffer nothing holds is collected").toBeUndefined();
    expect(temporary.deref(), "held by the graph's attachments").toBeDefined();
    graph.launch(stream);
    expect(await readInt(out)).toBe(7);
    graph.close();
  });

  it.skipIf(!onDeno)("runs host functions queued on a stream and in graphs (Deno)", async () => {
    using flag = int(0);
    const order: string[] = [];
    launch(stream, one, k.set_int, flag, 1);
    stream.launchHostFunction(() => order.push("first"));
    stream.launchHostFunction(() => order.push("second"));
    await stream.done(); // never stream.sync() while host functions are pending
    expect(order).toEqual(["first", "second"]);

    let captured = 0;
    using builder = dev.createGraphBuilder().beginBuilding();
    launch(builder, one, k.set_int, flag, 2);
    builder.callback(() => captured++);
    using graph = builder.endBuilding().complete();
    expect(graph.hasHostCallbacks).toBe(true);
    graph.launch(stream);
    graph.launch(stream);
    await stream.done();
    expect(captured).toBe(2);

    let explicit = 0;
    using def = new GraphDefinition(dev);
    def.launch(one, k.set_int, flag, 3).callback(() => explicit++);
    using g2 = def.instantiate();
    g2.launch(stream);
    await stream.done();
    expect(explicit).toBe(1);
    expect(await readInt(flag)).toBe(3);
  });

  it.skipIf(onDeno)("refuses graph host functions on Bun with UnsupportedOnRuntimeError, queueing nothing", async () => {
    // stream.launchHostFunction runs on Bun through an event (test/core/device-features/device-features.gpu.test.ts).
    using builder = dev.createGraphBuilder().beginBuilding();
    let error: unknown;
    try {
      builder.callback(() => {});
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(UnsupportedOnRuntimeError);
    expect((error as UnsupportedOnRuntimeError).runtime).toBe("bun");
    expect((error as Error).message).toMatch(/Deno/);
    expect(builder.isBuilding).toBe(true); // the capture is intact
    builder.endBuilding();
    using def = new GraphDefinition(dev);
    expect(() => def.callback(() => {})).toThrow(UnsupportedOnRuntimeError);
    expect(def.nodes).toHaveLength(0);
    await stream.done();
  });

  it("closes builders: an unfinished capture is discarded and the stream is usable again", async () => {
    using own = dev.createStream();
    using target = int(1);
    await stream.done();
    const builder = own.createGraphBuilder().beginBuilding();
    launch(builder, one, k.set_int, target, 5);
    builder.close();
    builder.close();
    expect(driver.cuStreamIsCapturing(own.handle)).toBe(0);
    expect(() => builder.beginBuilding()).toThrow(/closed/);
    using x = int(3);
    await stream.done();
    launch(own, one, k.set_int, x, 4); // not captured any more: runs
    const out = new Int32Array(new ArrayBuffer(4));
    x.copyTo(out, { stream: own });
    await own.done();
    expect(out[0]).toBe(4);
  });
});

describe.skipIf(!gpu.available)(`the graph examples${skipNote}`, () => {
  const root = fileURLToPath(new URL("../../..", import.meta.url));
  const command = (example: string): [string, string[]] => {
    const [exe, ...args] = runtimeCommand(example);
    return [exe!, args];
  };

  for (const example of ["examples/cuda_graphs.ts", "examples/graph_update.ts"]) {
    it(`${example} runs and checks its result (exit 0)`, () => {
      const [exe, args] = command(example);
      const r = spawnSync(exe, args, { cwd: root, encoding: "utf8", timeout: 120_000 });
      if (r.status !== 0) throw new Error(`${example} exited with ${r.status ?? r.signal}:\n${r.stdout}\n${r.stderr}`);
      expect(r.stdout).toMatch(/OK/);
    });
  }
});
