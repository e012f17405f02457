/**
 * Graph memory and graph introspection on a real GPU: GraphMemoryResource allocations captured as allocation and
 * free nodes, explicit allocation/free nodes (freed in the graph, or by autoFreeOnLaunch), the device's graph memory
 * figures and trim; a graph's nodes, kinds, edges and parameters read back (captured and explicit); executable-graph
 * updates of memset, memcpy, event, child graph and host nodes, and nodes turned off and on; bad input as typed
 * errors. Skips cleanly where there is no driver.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Buffer, Device, GraphStateError, LaunchConfig, type Kernel, type Stream } from "../../src/index.ts";
import { AllocNode, GraphDefinition, GraphMemoryResource } from "../../src/graphs.ts";
import { launch } from "../../src/core/launch/launch.ts";
import { Program } from "../../src/core/program/program.ts";
import { ffi } from "../../src/ffi/index.ts";
import { gpu, skipNote } from "../support/gpu.ts";

const SOURCE = `
__global__ void scale_bias(float* x, float scale, float bias, unsigned n) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = x[i] * scale + bias;
}
__global__ void add(float* x, float v, unsigned n) { const unsigned i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] += v; }
`;
const NAMES = ["scale_bias", "add"] as const;
const N = 4096;
const BYTES = N * 4;

describe.skipIf(!gpu.available)(`graph memory and introspection on a GPU${skipNote}`, () => {
  let dev: Device;
  let stream: Stream;
  let k: Record<(typeof NAMES)[number], Kernel>;
  let cfg: LaunchConfig;

  beforeAll(() => {
    if (!gpu.available) return;
    dev = new Device(0);
    dev.setCurrent();
    stream = dev.createStream();
    const code = new Program(SOURCE, "c++", { arch: `sm_${dev.arch}` }).compile("cubin", { nameExpressions: [...NAMES] });
    k = Object.fromEntries(NAMES.map((n) => [n, code.getKernel(n)])) as typeof k;
    cfg = new LaunchConfig({ grid: Math.ceil(N / 256), block: 256 });
  });

  afterAll(() => {
    stream?.close();
  });

  const iota = (f: (i: number) => number = (i) => i) => new Float32Array(new ArrayBuffer(BYTES)).map((_, i) => f(i));

  function floats(values: Float32Array): Buffer {
    const b = dev.allocate(values.byteLength, { stream });
    b.copyFrom(values, { stream });
    return b;
  }

  async function readFloats(b: Buffer): Promise<Float32Array> {
    const out = new Float32Array(new ArrayBuffer(b.size));
    b.copyTo(out, { stream });
    await stream.done();
    return out;
  }

  it("GraphMemoryResource: a captured allocation and free become allocation and free nodes, used in between", async () => {
    using data = floats(iota());
    await stream.done();
    const gmr = new GraphMemoryResource(dev);
    expect(gmr.deviceId).toBe(dev.id);
    expect([gmr.isDeviceAccessible, gmr.isHostAccessible]).toEqual([true, false]);
    using builder = dev.createGraphBuilder().beginBuilding();
    const scratch = gmr.allocate(BYTES, { stream: builder.stream });
    expect(scratch.memoryResource).toBe(gmr);
    scratch.copyFrom(data, { stream: builder.stream });
    launch(builder, cfg, k.scale_bias, scratch, 2, 1, N);
    data.copyFrom(scratch, { stream: builder.stream });
    scratch.close(); // on its allocation stream: the builder's, so a free node
    builder.endBuilding();
    const { nodes, edges } = builder.inspect();
    expect(nodes.map((n) => n.type).sort()).toEqual(["kernel", "memAlloc", "memFree", "memcpy", "memcpy"].sort());
    expect(edges).toHaveLength(4); // a chain of five
    const alloc = nodes.find((n) => n.type === "memAlloc")!;
    const free = nodes.find((n) => n.type === "memFree")!;
    if (alloc.params.type !== "memAlloc" || free.params.type !== "memFree") throw new Error("kinds and parameters disagree");
    expect(alloc.params.size).toBeGreaterThanOrEqual(BigInt(BYTES));
    expect(alloc.params.deviceId).toBe(dev.id);
    expect(free.params.address).toBe(alloc.params.address);
    expect(alloc.dependencies).toHaveLength(0);
    expect(free.dependents).toHaveLength(0);

    gmr.attributes.resetHigh("usedMemHigh");
    using graph = builder.complete();
    graph.launch(stream);
    graph.launch(stream);
    expect(await readFloats(data)).toEqual(iota((i) => (i * 2 + 1) * 2 + 1));
    const figures = gmr.attributes.snapshot();
    expect(figures.usedMemHigh).toBeGreaterThanOrEqual(BigInt(BYTES));
    expect(figures.reservedMemHigh).toBeGreaterThanOrEqual(figures.usedMemHigh);
    expect(figures.reservedMemCurrent).toBeGreaterThanOrEqual(figures.usedMemCurrent);
    graph.close();
    await stream.done();
    gmr.trim();
    expect(gmr.attributes.reservedMemCurrent).toBeLessThanOrEqual(figures.reservedMemHigh);
  });

  it("GraphMemoryResource refuses to allocate outside a capture, naming what to do", () => {
    const gmr = new GraphMemoryResource(dev);
    expect(() => gmr.allocate(BYTES, { stream })).toThrow(GraphStateError);
    expect(() => gmr.allocate(BYTES, { stream })).toThrow(/not capturing a graph.*builder\.stream/);
    expect(() => gmr.attributes.resetHigh("usedMemCurrent" as "usedMemHigh")).toThrow(RangeError);
  });

  it("explicit allocation and free nodes: memory set, changed and copied out between them, at every launch", async () => {
    using out = floats(iota(() => -1));
    await stream.done();
    using def = new GraphDefinition(dev);
    const alloc = def.allocate(BYTES);
    expect(alloc).toBeInstanceOf(AllocNode);
    expect(alloc.size).toBe(BYTES);
    expect(alloc.buffer.handle).toBe(alloc.address);
    const set = alloc.memset(alloc.buffer, Float32Array.of(3));
    const bump = set.launch(cfg, k.add, alloc.buffer, 4, N);
    const copy = bump.memcpy(out, alloc.buffer);
    const free = copy.deallocate(alloc);
    expect(def.nodes.map((n) => n.type)).toEqual(["memAlloc", "memset", "kernel", "memcpy", "memFree"]);
    expect(def.edges.map(([a, b]) => [a.type, b.type])).toEqual([
      ["memAlloc", "memset"],
      ["memset", "kernel"],
      ["kernel", "memcpy"],
      ["memcpy", "memFree"],
    ]);
    expect(alloc.dependents).toHaveLength(1);
    expect(alloc.dependents[0]).toBe(set);
    const ap = alloc.params;
    if (ap.type !== "memAlloc") throw new Error(`memAlloc expected, got ${ap.type}`);
    expect([ap.address, ap.size >= BigInt(BYTES)]).toEqual([alloc.address, true]);
    const fp = free.params;
    expect(fp).toEqual({ type: "memFree", address: alloc.address });
    const inspected = def.inspect();
    expect(inspected.nodes).toHaveLength(5);
    expect(inspected.edges).toHaveLength(4);
    expect(inspected.ofType("memset")[0]!.params).toMatchObject({ type: "memset", elementSize: 4, width: BigInt(N), dst: alloc.address });
    using graph = def.instantiate();
    graph.launch(stream);
    expect(await readFloats(out)).toEqual(iota(() => 7));
    out.fill(0, { stream });
    graph.launch(stream);
    expect(await readFloats(out)).toEqual(iota(() => 7));
  });

  it("an allocation left unfreed in its graph is freed by each launch of an autoFreeOnLaunch graph", async () => {
    using out = floats(iota(() => 0));
    await stream.done();
    using def = new GraphDefinition(dev);
    const alloc = def.allocate(BYTES);
    alloc.memset(alloc.buffer, Float32Array.of(5)).memcpy(out, alloc.buffer);
    using graph = def.instantiate({ autoFreeOnLaunch: true });
    for (let i = 0; i < 3; i++) graph.launch(stream);
    expect(await readFloats(out)).toEqual(iota(() => 5));
  });

  it("reads back the parameters of a captured graph's kernel, memcpy and memset nodes, in capture order", async () => {
    using x = floats(iota());
    using y = floats(iota());
    await stream.done();
    using builder = dev.createGraphBuilder().beginBuilding();
    x.fill(Float32Array.of(2), { stream: builder.stream });
    launch(builder, cfg, k.add, x, 1, N);
    y.copyFrom(x, { stream: builder.stream });
    builder.endBuilding();
    const s = builder.inspect();
    const [memset] = s.ofType("memset");
    const [kernel] = s.ofType("kernel");
    const [memcpy] = s.ofType("memcpy");
    expect(memset!.params).toMatchObject({ type: "memset", dst: x.handle, value: 0x40000000, elementSize: 4, width: BigInt(N) });
    expect(kernel!.params).toMatchObject({ type: "kernel", grid: [Math.ceil(N / 256), 1, 1], block: [256, 1, 1], sharedMemory: 0 });
    const p = memcpy!.params;
    if (p.type !== "memcpy") throw new Error(`memcpy expected, got ${p.type}`);
    expect([p.src.address, p.dst.address, p.widthInBytes]).toEqual([x.handle, y.handle, BigInt(BYTES)]);
    expect(["device", "unified"]).toContain(p.src.memoryType);
    expect(kernel!.dependencies).toHaveLength(1);
    expect(kernel!.dependencies[0]).toBe(memset);
    expect(memcpy!.dependencies).toHaveLength(1);
    expect(memcpy!.dependencies[0]).toBe(kernel);
  });

  it("updates memset, memcpy, event and child graph nodes of an executable graph, and turns nodes off and on", async () => {
    using a = floats(iota(() => 0));
    using b = floats(iota(() => 0));
    using c = floats(iota(() => 0));
    using e1 = dev.createEvent();
    using e2 = dev.createEvent();
    await stream.done();
    using child = new GraphDefinition(dev);
    child.launch(cfg, k.add, c, 1, N);
    using child2 = new GraphDefinition(dev);
    child2.launch(cfg, k.add, c, 10, N);
    using def = new GraphDefinition(dev);
    const set = def.memset(a, Float32Array.of(1));
    const bump = set.launch(cfg, k.add, a, 1, N); // a = 2
    const copy = bump.memcpy(b, a);
    const rec = copy.record(e1);
    const sub = rec.embed(child);
    using graph = def.instantiate();
    graph.launch(stream);
    expect(await readFloats(b)).toEqual(iota(() => 2));
    expect(await readFloats(c)).toEqual(iota(() => 1));
    expect(e1.isDone).toBe(true);

    graph.setMemsetNode(set, a, Float32Array.of(5)); // a = 6
    graph.setMemcpyNode(copy, c, a); // c = 6, then the child adds
    graph.setEventNode(rec, e2);
    graph.setChildGraphNode(sub, child2); // c += 10
    graph.launch(stream);
    expect(await readFloats(c)).toEqual(iota(() => 16));
    expect(await readFloats(b)).toEqual(iota(() => 2)); // no longer copied to
    expect(e2.isDone).toBe(true);

    expect(graph.isNodeEnabled(bump)).toBe(true);
    graph.setNodeEnabled(bump, false); // a = 5
    expect(graph.isNodeEnabled(bump)).toBe(false);
    graph.launch(stream);
    expect(await readFloats(c)).toEqual(iota(() => 15));
    graph.setNodeEnabled(bump, true);
    graph.launch(stream);
    expect(await readFloats(c)).toEqual(iota(() => 16));

    // Bad input, refused before the driver: a node of another kind, a node of another definition.
    expect(() => graph.setMemsetNode(bump, a, 0)).toThrow(/is a kernel node; this takes memset nodes/);
    expect(() => graph.setEventNode(copy, e1)).toThrow(GraphStateError);
    expect(() => graph.setNodeEnabled(rec, false)).toThrow(/kernel or memcpy or memset/);
    using other = new GraphDefinition(dev);
    const alien = other.memset(a, 0);
    expect(() => graph.setMemsetNode(alien, a, 0)).toThrow(/not a node of the GraphDefinition/);
  });

  it.runIf(ffi.runtime === "deno")("updates a host node's function (Deno)", async () => {
    let first = 0;
    let second = 0;
    using def = new GraphDefinition(dev);
    const host = def.callback(() => {
      first++;
    });
    expect(host.params.type).toBe("host");
    using graph = def.instantiate();
    graph.launch(stream);
    await stream.done();
    graph.setHostNode(host, () => {
      second++;
    });
    graph.launch(stream);
    await stream.done();
    expect([first, second]).toEqual([1, 1]);
  });
});
