/**
 * The cuda-ts contenders of the benchmarks (bench/README.md) on the runtime that runs this file:
 * `<runtime>-raw` (driver.raw.*, C semantics, pre-made Scratch pointers), `<runtime>-checked` (driver.*, throws,
 * returns out-parameters) and `<runtime>-core` (Device, Stream, launch, Buffer, Program).
 *
 * Measures run measure by measure (raw, checked, core for each) so that drift of a shared machine hits every
 * contender alike. A failing measure is reported on stderr and skipped; the others go on.
 *
 * @module
 */
import * as fs from "node:fs";
import { driver, nvrtc } from "../../src/bindings/index.ts";
import {
  CUdevice_attribute,
  CUmemPool_attribute,
  CUstreamCaptureMode,
  type CUdeviceptr,
  type CUevent,
  type CUfunction,
  type CUgraphExec,
  type CUmemoryPool,
  type CUstream,
} from "../../src/bindings/driver.ts";
import { type nvrtcProgram, nvrtcProgramLog } from "../../src/bindings/nvrtc.ts";
import * as core from "../../src/index.ts";
import { ffi, Scratch, type NativePointer, type Pointer } from "../../src/ffi/index.ts";
import {
  BIG,
  PAGEABLE_NOTE,
  alignedPageable,
  BURST,
  BURSTS,
  GRAPH_BURST,
  GRAPH_BURSTS,
  K4_SOURCE,
  burstRep,
  describeError,
  measure,
  note,
  now,
  skip,
  type MeasureOptions,
  type Rep,
  type Unit,
} from "./harness.ts";

/** The README's measures, in the order they run (and the report lists them). */
const ORDER = [
  "call.cuCtxGetCurrent",
  "call.cuDeviceGetAttribute",
  "call.cuEventCreateDestroy",
  "call.cuStreamQuery",
  "launch.0",
  "launch.1",
  "launch.4",
  "launch.16",
  "launch.256",
  "launch.4.fresh",
  "graph.launch100",
  "alloc.1KiB.sync",
  "alloc.1KiB.pool",
  "copy.h2d.8B",
  "copy.d2h.8B",
  "copy.h2d.256MiB.pinned",
  "copy.d2h.256MiB.pinned",
  "copy.h2d.256MiB.pageable",
  "copy.d2h.256MiB.pageable",
  "nvrtc.compile",
  "nvrtc.cacheHit",
] as const;
type MeasureName = (typeof ORDER)[number];

const CU_STREAM_NON_BLOCKING = 1;
const CU_EVENT_DISABLE_TIMING = 2;
const SM_COUNT = CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT;
const LAUNCH_FIXED = { fixedM: BURST * BURSTS } as const;
const GRAPH_FIXED = { fixedM: GRAPH_BURST * GRAPH_BURSTS } as const;

class Plan {
  readonly #entries = new Map<string, (() => void)[]>();
  add(contender: string, name: MeasureName, unit: Unit, rep: Rep, options?: MeasureOptions): void {
    let list = this.#entries.get(name);
    if (list === undefined) this.#entries.set(name, (list = []));
    list.push(() => measure(contender, name, unit, rep, options));
  }
  /** Registers the measures of one contender; a failure while setting them up skips only that contender's rest. */
  contender(contender: string, register: () => void): void {
    try {
      register();
    } catch (e) {
      note(`${contender}: setting up failed, its remaining measures are skipped: ${describeError(e)}`);
    }
  }
  run(): void {
    for (const name of ORDER) for (const run of this.#entries.get(name) ?? []) run();
  }
}

/**
 * The 256 MiB host buffers of the big copies (pinned, and pageable on a 2 MiB boundary), shared by every contender.
 * Made when the first copy row runs, after the call, launch and allocation rows: on Bun, while an ArrayBuffer of
 * 64 MiB or more is alive (its own, or a view of pinned memory), JavaScriptCore collects garbage far more often and
 * every object a call allocates costs 80-240 ns more (bench/README.md, "Bun and large buffers"). That is the
 * runtime's cost, paid by whatever holds such a buffer; it is kept out of the rows that measure the object layer's
 * own work per call, and measured on its own by bench/ts/overheads.ts (`BIG=1`).
 */
interface HostBuffers {
  readonly pinned: NativePointer;
  readonly pinnedBytes: Uint8Array;
  readonly pageableBytes: Uint8Array;
  readonly pageable: NativePointer;
}

/** The shared driver state of the raw and checked contenders. */
interface Shared {
  readonly stream: CUstream;
  readonly fn: Record<"k0" | "k1" | "k4" | "k16" | "k256", CUfunction>;
  readonly dX: CUdeviceptr;
  readonly dY: CUdeviceptr;
  readonly d8: CUdeviceptr;
  readonly dBig: CUdeviceptr;
  /** The 256 MiB host buffers of the copy rows, made on first use (see {@link HostBuffers}). */
  readonly host: () => HostBuffers;
  readonly graphExec: CUgraphExec;
  /** The device's default memory pool: alloc.1KiB.pool allocates from it by name, as the core layer does. */
  readonly pool: CUmemoryPool;
  readonly archOption: string;
  readonly arch: string;
}

/** A kernel's `void* kernelParams[]` over a values block, both in Scratch memory made once. */
interface Params {
  readonly values: Scratch;
  readonly pointers: Scratch;
}

function makeParams(slots: readonly { offset: number; write: (s: Scratch) => void }[], valueBytes: number): Params {
  const values = new Scratch(Math.max(8, valueBytes));
  const pointers = new Scratch(Math.max(8, slots.length * 8));
  slots.forEach((slot, i) => {
    slot.write(values);
    pointers.writePointer(i * 8, values.pointerAt(slot.offset));
  });
  return { values, pointers };
}

function intParams(n: number): Params {
  return makeParams(
    Array.from({ length: n }, (_, i) => ({ offset: i * 4, write: (s: Scratch) => void (s.i32[i] = i + 1) })),
    n * 4,
  );
}

function setupShared(cubinPath: string): Shared {
  driver.cuInit(0);
  const dev = driver.cuDeviceGet(0);
  const ctx = driver.cuDevicePrimaryCtxRetain(dev);
  driver.cuCtxSetCurrent(ctx);
  const major = driver.cuDeviceGetAttribute(CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
  const minor = driver.cuDeviceGetAttribute(CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
  const stream = driver.cuStreamCreate(CU_STREAM_NON_BLOCKING);
  const mod = driver.cuModuleLoad(cubinPath);
  const fn = {
    k0: driver.cuModuleGetFunction(mod, "k0"),
    k1: driver.cuModuleGetFunction(mod, "k1"),
    k4: driver.cuModuleGetFunction(mod, "k4"),
    k16: driver.cuModuleGetFunction(mod, "k16"),
    k256: driver.cuModuleGetFunction(mod, "k256"),
  };
  const pool = driver.cuDeviceGetDefaultMemPool(dev);
  const threshold = new BigUint64Array(new ArrayBuffer(8));
  threshold[0] = 0xffffffffffffffffn; // as cuda.core and cuda-ts's core do: keep freed memory in the pool
  driver.cuMemPoolSetAttribute(pool, CUmemPool_attribute.CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, threshold);
  driver.cuStreamBeginCapture(stream, CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_RELAXED);
  for (let i = 0; i < 100; i++) driver.cuLaunchKernel(fn.k0, 1, 1, 1, 32, 1, 1, 0, stream, null, null);
  const graph = driver.cuStreamEndCapture(stream);
  const graphExec = driver.cuGraphInstantiate(graph, 0);
  driver.cuGraphDestroy(graph);
  const dBig = driver.cuMemAlloc(BIG);
  let hostBuffers: HostBuffers | undefined;
  const host = (): HostBuffers => {
    if (hostBuffers !== undefined) return hostBuffers;
    const pinned = driver.cuMemHostAlloc(BIG, 0);
    if (pinned === null) throw new Error("cuMemHostAlloc returned NULL");
    const pinnedBytes = new Uint8Array(ffi.view(pinned, BIG));
    pinnedBytes.fill(1);
    const pageableBytes = alignedPageable((b) => ffi.bigAddressOf(ffi.pointerOf(b)));
    return (hostBuffers = { pinned, pinnedBytes, pageableBytes, pageable: ffi.pointerOf(pageableBytes) });
  };
  driver.cuCtxSynchronize();
  return {
    stream,
    fn,
    dX: driver.cuMemAlloc(1024),
    dY: driver.cuMemAlloc(1024),
    d8: driver.cuMemAlloc(8),
    dBig,
    host,
    graphExec,
    pool,
    archOption: `-arch=sm_${major}${minor}`,
    arch: `sm_${major}${minor}`,
  };
}

function fail(what: string, code: number): never {
  throw new Error(`${what} returned ${code}`);
}

// ------------------------------------------------------------------------------------------------- raw

function registerRaw(plan: Plan, C: string, s: Shared): void {
  const raw = driver.raw;
  const out = new Scratch(64);
  const o = out.pointer;
  const o8 = out.pointerAt(8);
  const stream = s.stream;
  const pool = s.pool;

  plan.add(C, "call.cuCtxGetCurrent", "ns", (m) => {
    let bad = 0;
    const t0 = now();
    for (let i = 0; i < m; i++) bad |= raw.cuCtxGetCurrent(o);
    const t = now() - t0;
    if (bad) fail("cuCtxGetCurrent", bad);
    return t;
  });
  plan.add(C, "call.cuDeviceGetAttribute", "ns", (m) => {
    let bad = 0;
    const t0 = now();
    for (let i = 0; i < m; i++) bad |= raw.cuDeviceGetAttribute(o, SM_COUNT, 0);
    const t = now() - t0;
    if (bad) fail("cuDeviceGetAttribute", bad);
    return t;
  });
  plan.add(C, "call.cuEventCreateDestroy", "ns", (m) => {
    let bad = 0;
    const t0 = now();
    for (let i = 0; i < m; i++) {
      bad |= raw.cuEventCreate(o, CU_EVENT_DISABLE_TIMING);
      bad |= raw.cuEventDestroy(out.readPointer(0) as CUevent);
    }
    const t = now() - t0;
    if (bad) fail("cuEventCreate/cuEventDestroy", bad);
    return t;
  });
  plan.add(C, "call.cuStreamQuery", "ns", (m) => {
    let bad = 0;
    const t0 = now();
    for (let i = 0; i < m; i++) bad |= raw.cuStreamQuery(stream);
    const t = now() - t0;
    if (bad) fail("cuStreamQuery", bad);
    return t;
  });

  const sync = (): void => {
    const r = raw.cuStreamSynchronize(stream);
    if (r !== 0) fail("cuStreamSynchronize", r);
  };
  const p1 = makeParams([{ offset: 0, write: (v) => v.dv.setBigUint64(0, s.dX, true) }], 8);
  const p4 = makeParams(
    [
      { offset: 0, write: (v) => v.dv.setFloat32(0, 2, true) },
      { offset: 8, write: (v) => v.dv.setBigUint64(8, s.dX, true) },
      { offset: 16, write: (v) => v.dv.setBigUint64(16, s.dY, true) },
      { offset: 24, write: (v) => v.dv.setInt32(24, 0, true) },
    ],
    32,
  );
  // The Params objects travel with the closures: a raw pointer is a plain number (Bun) that does not keep its
  // memory alive, so the Scratch behind it must stay reachable for as long as launches use it.
  const launches: [MeasureName, CUfunction, Params | null][] = [
    ["launch.0", s.fn.k0, null],
    ["launch.1", s.fn.k1, p1],
    ["launch.4", s.fn.k4, p4],
    ["launch.16", s.fn.k16, intParams(16)],
    ["launch.256", s.fn.k256, intParams(256)],
  ];
  for (const [name, f, held] of launches) {
    let bad = 0;
    const params: Pointer = held === null ? null : held.pointers.pointer;
    plan.add(
      C,
      name,
      "ns",
      burstRep(
        () => {
          bad |= raw.cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, stream, params, null);
          if (held !== null && held.values.byteLength === 0) bad |= 1;
        },
        BURST,
        () => {
          sync();
          if (bad) fail("cuLaunchKernel", bad);
        },
      ),
      LAUNCH_FIXED,
    );
  }
  // Fresh: the four values and the four pointers written again into the (preallocated) Scratch every launch.
  const fv = new Scratch(32);
  const fp = new Scratch(32);
  const fdv = fv.dv;
  const k4 = s.fn.k4;
  const { dX, dY } = s;
  let badFresh = 0;
  plan.add(
    C,
    "launch.4.fresh",
    "ns",
    burstRep(
      () => {
        fdv.setFloat32(0, 2, true);
        fdv.setBigUint64(8, dX, true);
        fdv.setBigUint64(16, dY, true);
        fdv.setInt32(24, 0, true);
        fp.writePointer(0, fv.pointerAt(0));
        fp.writePointer(8, fv.pointerAt(8));
        fp.writePointer(16, fv.pointerAt(16));
        fp.writePointer(24, fv.pointerAt(24));
        badFresh |= raw.cuLaunchKernel(k4, 1, 1, 1, 32, 1, 1, 0, stream, fp.pointer, null);
      },
      BURST,
      () => {
        sync();
        if (badFresh) fail("cuLaunchKernel", badFresh);
      },
    ),
    { ...LAUNCH_FIXED, note: "values and kernelParams rewritten into a preallocated Scratch every launch" },
  );
  const exec = s.graphExec;
  let badGraph = 0;
  plan.add(
    C,
    "graph.launch100",
    "ns",
    burstRep(
      () => {
        badGraph |= raw.cuGraphLaunch(exec, stream);
      },
      GRAPH_BURST,
      () => {
        sync();
        if (badGraph) fail("cuGraphLaunch", badGraph);
      },
    ),
    GRAPH_FIXED,
  );

  plan.add(C, "alloc.1KiB.sync", "ns", (m) => {
    let bad = 0;
    const t0 = now();
    for (let i = 0; i < m; i++) {
      bad |= raw.cuMemAlloc(o, 1024);
      bad |= raw.cuMemFree(out.readU64(0) as CUdeviceptr);
    }
    const t = now() - t0;
    if (bad) fail("cuMemAlloc/cuMemFree", bad);
    return t;
  });
  plan.add(C, "alloc.1KiB.pool", "ns", (m) => {
    let bad = 0;
    const t0 = now();
    for (let i = 0; i < m; i++) {
      bad |= raw.cuMemAllocFromPoolAsync(o, 1024, pool, stream);
      bad |= raw.cuMemFreeAsync(out.readU64(0) as CUdeviceptr, stream);
    }
    const t = now() - t0;
    sync();
    if (bad) fail("cuMemAllocFromPoolAsync/cuMemFreeAsync", bad);
    return t;
  });

  const d8 = s.d8;
  plan.add(C, "copy.h2d.8B", "ns", (m) => {
    let bad = 0;
    const t0 = now();
    for (let i = 0; i < m; i++) bad |= raw.cuMemcpyHtoD(d8, o8, 8);
    const t = now() - t0;
    if (bad) fail("cuMemcpyHtoD", bad);
    return t;
  });
  plan.add(C, "copy.d2h.8B", "ns", (m) => {
    let bad = 0;
    const t0 = now();
    for (let i = 0; i < m; i++) bad |= raw.cuMemcpyDtoH(o8, d8, 8);
    const t = now() - t0;
    if (bad) fail("cuMemcpyDtoH", bad);
    return t;
  });
  const big = (dir: "h2d" | "d2h", hostOf: () => NativePointer): Rep => (m) => {
    const host = hostOf();
    let bad = 0;
    const t0 = now();
    for (let i = 0; i < m; i++) bad |= dir === "h2d" ? raw.cuMemcpyHtoD(s.dBig, host, BIG) : raw.cuMemcpyDtoH(host, s.dBig, BIG);
    bad |= raw.cuCtxSynchronize();
    const t = now() - t0;
    if (bad) fail(`cuMemcpy ${dir}`, bad);
    return t;
  };
  const bigOptions = { fixedM: 1, bytes: BIG };
  plan.add(C, "copy.h2d.256MiB.pinned", "GB/s", big("h2d", () => s.host().pinned), bigOptions);
  plan.add(C, "copy.d2h.256MiB.pinned", "GB/s", big("d2h", () => s.host().pinned), bigOptions);
  plan.add(C, "copy.h2d.256MiB.pageable", "GB/s", big("h2d", () => s.host().pageable), { ...bigOptions, note: PAGEABLE_NOTE });
  plan.add(C, "copy.d2h.256MiB.pageable", "GB/s", big("d2h", () => s.host().pageable), { ...bigOptions, note: PAGEABLE_NOTE });

  const nr = nvrtc.raw;
  const src = ffi.cstring(K4_SOURCE);
  const name = ffi.cstring("k4.cu");
  const opt = ffi.cstring(s.archOption);
  const opts = new Scratch(8);
  const slot = new Scratch(16);
  plan.add(
    C,
    "nvrtc.compile",
    "ms",
    (m) => {
      const t0 = now();
      for (let i = 0; i < m; i++) {
        // The pointers are taken at each use, from the live views: a pointer kept from registration, with the views
        // referenced only by a dead expression, once read freed memory on Bun (the source and name came out garbage).
        opts.writePointer(0, ffi.pointerOf(opt));
        let r = nr.nvrtcCreateProgram(slot.pointer, ffi.pointerOf(src), ffi.pointerOf(name), 0, null, null);
        if (r !== 0) fail("nvrtcCreateProgram", r);
        const prog = slot.readPointer(0) as nvrtcProgram;
        r = nr.nvrtcCompileProgram(prog, 1, opts.pointer);
        if (r !== 0) {
          // Say what NVRTC saw: its log, and the option string as it is in memory now.
          const log = nvrtcProgramLog(prog);
          nr.nvrtcDestroyProgram(slot.pointer);
          fail(`nvrtcCompileProgram (option ${JSON.stringify(new TextDecoder().decode(opt.subarray(0, opt.length - 1)))} at ${ffi.addressOf(opts.readPointer(0))}, log ${JSON.stringify(log)})`, r);
        }
        r = nr.nvrtcGetCUBINSize(prog, slot.pointerAt(8));
        const cubin = new Uint8Array(new ArrayBuffer(r === 0 ? Number(slot.readU64(8)) : 8));
        if (r === 0) r = nr.nvrtcGetCUBIN(prog, ffi.pointerOf(cubin));
        nr.nvrtcDestroyProgram(slot.pointer);
        if (r !== 0) fail("nvrtcCompileProgram/nvrtcGetCUBIN", r);
      }
      return now() - t0;
    },
    { fixedM: 1 },
  );
}

// ------------------------------------------------------------------------------------------------- checked

function registerChecked(plan: Plan, C: string, s: Shared): void {
  const stream = s.stream;
  const pool = s.pool;
  plan.add(C, "call.cuCtxGetCurrent", "ns", (m) => {
    const t0 = now();
    for (let i = 0; i < m; i++) driver.cuCtxGetCurrent();
    return now() - t0;
  });
  plan.add(C, "call.cuDeviceGetAttribute", "ns", (m) => {
    const t0 = now();
    for (let i = 0; i < m; i++) driver.cuDeviceGetAttribute(SM_COUNT, 0);
    return now() - t0;
  });
  plan.add(C, "call.cuEventCreateDestroy", "ns", (m) => {
    const t0 = now();
    for (let i = 0; i < m; i++) driver.cuEventDestroy(driver.cuEventCreate(CU_EVENT_DISABLE_TIMING));
    return now() - t0;
  });
  plan.add(C, "call.cuStreamQuery", "ns", (m) => {
    const t0 = now();
    for (let i = 0; i < m; i++) driver.cuStreamQuery(stream);
    return now() - t0;
  });

  const sync = (): void => driver.cuStreamSynchronize(stream);
  const p1 = makeParams([{ offset: 0, write: (v) => v.dv.setBigUint64(0, s.dX, true) }], 8);
  const p4 = makeParams(
    [
      { offset: 0, write: (v) => v.dv.setFloat32(0, 2, true) },
      { offset: 8, write: (v) => v.dv.setBigUint64(8, s.dX, true) },
      { offset: 16, write: (v) => v.dv.setBigUint64(16, s.dY, true) },
      { offset: 24, write: (v) => v.dv.setInt32(24, 0, true) },
    ],
    32,
  );
  const p16 = intParams(16);
  const p256 = intParams(256);
  const launches: [MeasureName, CUfunction, Params | null][] = [
    ["launch.0", s.fn.k0, null],
    ["launch.1", s.fn.k1, p1],
    ["launch.4", s.fn.k4, p4],
    ["launch.16", s.fn.k16, p16],
    ["launch.256", s.fn.k256, p256],
  ];
  for (const [name, f, held] of launches) {
    const params: Pointer = held === null ? null : held.pointers.pointer;
    // `held` is read in the loop so that its memory stays alive (see the raw section).
    plan.add(C, name, "ns", burstRep(() => driver.cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, stream, held === null || held.values.byteLength > 0 ? params : null, null), BURST, sync), LAUNCH_FIXED);
  }
  const fv = new Scratch(32);
  const fp = new Scratch(32);
  const fdv = fv.dv;
  const k4 = s.fn.k4;
  const { dX, dY } = s;
  plan.add(
    C,
    "launch.4.fresh",
    "ns",
    burstRep(
      () => {
        fdv.setFloat32(0, 2, true);
        fdv.setBigUint64(8, dX, true);
        fdv.setBigUint64(16, dY, true);
        fdv.setInt32(24, 0, true);
        fp.writePointer(0, fv.pointerAt(0));
        fp.writePointer(8, fv.pointerAt(8));
        fp.writePointer(16, fv.pointerAt(16));
        fp.writePointer(24, fv.pointerAt(24));
        driver.cuLaunchKernel(k4, 1, 1, 1, 32, 1, 1, 0, stream, fp.pointer, null);
      },
      BURST,
      sync,
    ),
    { ...LAUNCH_FIXED, note: "values and kernelParams rewritten into a preallocated Scratch every launch" },
  );
  const exec = s.graphExec;
  plan.add(C, "graph.launch100", "ns", burstRep(() => driver.cuGraphLaunch(exec, stream), GRAPH_BURST, sync), GRAPH_FIXED);

  plan.add(C, "alloc.1KiB.sync", "ns", (m) => {
    const t0 = now();
    for (let i = 0; i < m; i++) driver.cuMemFree(driver.cuMemAlloc(1024));
    return now() - t0;
  });
  plan.add(C, "alloc.1KiB.pool", "ns", (m) => {
    const t0 = now();
    for (let i = 0; i < m; i++) driver.cuMemFreeAsync(driver.cuMemAllocFromPoolAsync(1024, pool, stream), stream);
    const t = now() - t0;
    sync();
    return t;
  });

  const host8 = new Uint8Array(new ArrayBuffer(8));
  const d8 = s.d8;
  plan.add(C, "copy.h2d.8B", "ns", (m) => {
    const t0 = now();
    for (let i = 0; i < m; i++) driver.cuMemcpyHtoD(d8, host8, 8);
    return now() - t0;
  }, { note: "host memory passed as a Uint8Array" });
  plan.add(C, "copy.d2h.8B", "ns", (m) => {
    const t0 = now();
    for (let i = 0; i < m; i++) driver.cuMemcpyDtoH(host8, d8, 8);
    return now() - t0;
  }, { note: "host memory passed as a Uint8Array" });
  const big = (dir: "h2d" | "d2h", hostOf: () => Uint8Array): Rep => (m) => {
    const host = hostOf();
    const t0 = now();
    for (let i = 0; i < m; i++) {
      if (dir === "h2d") driver.cuMemcpyHtoD(s.dBig, host, BIG);
      else driver.cuMemcpyDtoH(host, s.dBig, BIG);
    }
    driver.cuCtxSynchronize();
    return now() - t0;
  };
  const bigOptions = { fixedM: 1, bytes: BIG };
  plan.add(C, "copy.h2d.256MiB.pinned", "GB/s", big("h2d", () => s.host().pinnedBytes), bigOptions);
  plan.add(C, "copy.d2h.256MiB.pinned", "GB/s", big("d2h", () => s.host().pinnedBytes), bigOptions);
  plan.add(C, "copy.h2d.256MiB.pageable", "GB/s", big("h2d", () => s.host().pageableBytes), { ...bigOptions, note: PAGEABLE_NOTE });
  plan.add(C, "copy.d2h.256MiB.pageable", "GB/s", big("d2h", () => s.host().pageableBytes), { ...bigOptions, note: PAGEABLE_NOTE });

  const slot = new Scratch(8);
  const opts = [s.archOption];
  plan.add(
    C,
    "nvrtc.compile",
    "ms",
    (m) => {
      const t0 = now();
      for (let i = 0; i < m; i++) {
        const prog = nvrtc.nvrtcCreateProgram(K4_SOURCE, "k4.cu", 0, null, null);
        try {
          nvrtc.nvrtcCompileProgram(prog, 1, opts);
          const cubin = new Uint8Array(new ArrayBuffer(Number(nvrtc.nvrtcGetCUBINSize(prog))));
          nvrtc.nvrtcGetCUBIN(prog, cubin);
        } finally {
          nvrtc.nvrtcDestroyProgram(prog);
        }
      }
      return now() - t0;
    },
    { fixedM: 1 },
  );
}

// ------------------------------------------------------------------------------------------------- core

function registerCore(plan: Plan, C: string, cubinPath: string): void {
  const { Device, LaunchConfig, ObjectCode, SynchronousMemoryResource, launch, f32, i32 } = core;
  const dev = new Device(0);
  dev.setCurrent();
  const stream = dev.createStream();
  const so = { stream };
  const oc = ObjectCode.fromCubin(cubinPath);
  const k = {
    k0: oc.getKernel("k0"),
    k1: oc.getKernel("k1"),
    k4: oc.getKernel("k4"),
    k16: oc.getKernel("k16"),
    k256: oc.getKernel("k256"),
  };
  const bx = dev.allocate(1024, so);
  const by = dev.allocate(1024, so);
  const cfg = new LaunchConfig({ grid: 1, block: 32 });
  stream.sync();
  const sync = (): void => stream.sync();

  skip(C, "call.cuCtxGetCurrent", "the core layer has no such call (a bindings measure)");
  skip(C, "call.cuDeviceGetAttribute", "Device.properties caches the attributes (a bindings measure)");
  plan.add(C, "call.cuEventCreateDestroy", "ns", (m) => {
    const t0 = now();
    for (let i = 0; i < m; i++) dev.createEvent().close();
    return now() - t0;
  }, { note: "Device.createEvent().close()" });
  plan.add(C, "call.cuStreamQuery", "ns", (m) => {
    const t0 = now();
    for (let i = 0; i < m; i++) stream.query();
    return now() - t0;
  }, { note: "Stream.query()" });

  const a = f32(2);
  const n0 = i32(0);
  const ints16 = Array.from({ length: 16 }, (_, i) => i32(i + 1));
  const ints256 = Array.from({ length: 256 }, (_, i) => i32(i + 1));
  const { k0, k1, k4, k16, k256 } = k;
  plan.add(C, "launch.0", "ns", burstRep(() => launch(stream, cfg, k0), BURST, sync), LAUNCH_FIXED);
  plan.add(C, "launch.1", "ns", burstRep(() => launch(stream, cfg, k1, bx), BURST, sync), LAUNCH_FIXED);
  plan.add(C, "launch.4", "ns", burstRep(() => launch(stream, cfg, k4, a, bx, by, n0), BURST, sync), LAUNCH_FIXED);
  // Long argument lists go as one array (launch's array form), sparing the runtime a 256-argument spread.
  plan.add(C, "launch.16", "ns", burstRep(() => launch(stream, cfg, k16, ints16), BURST, sync), { ...LAUNCH_FIXED, note: "arguments as one array" });
  plan.add(C, "launch.256", "ns", burstRep(() => launch(stream, cfg, k256, ints256), BURST, sync), { ...LAUNCH_FIXED, note: "arguments as one array" });
  plan.add(C, "launch.4.fresh", "ns", burstRep(() => launch(stream, cfg, k4, f32(2), bx, by, i32(0)), BURST, sync), {
    ...LAUNCH_FIXED,
    note: "new f32()/i32() every launch",
  });

  registerCoreGraph(plan, C, stream, cfg, k0, sync);

  const smr = new SynchronousMemoryResource(dev);
  plan.add(C, "alloc.1KiB.sync", "ns", (m) => {
    const t0 = now();
    for (let i = 0; i < m; i++) smr.allocate(1024).close();
    return now() - t0;
  }, { note: "SynchronousMemoryResource.allocate(1024).close()" });
  plan.add(C, "alloc.1KiB.pool", "ns", (m) => {
    const t0 = now();
    for (let i = 0; i < m; i++) dev.allocate(1024, so).close();
    const t = now() - t0;
    sync();
    return t;
  }, { note: "Device.allocate(1024, { stream }).close()" });

  const b8 = dev.allocate(8, so);
  const host8 = new Uint8Array(new ArrayBuffer(8));
  plan.add(C, "copy.h2d.8B", "ns", (m) => {
    const t0 = now();
    for (let i = 0; i < m; i++) {
      b8.copyFrom(host8, so);
      stream.sync();
    }
    return now() - t0;
  }, { note: "Buffer.copyFrom(Uint8Array) + Stream.sync()" });
  plan.add(C, "copy.d2h.8B", "ns", (m) => {
    const t0 = now();
    for (let i = 0; i < m; i++) {
      b8.copyTo(host8, so);
      stream.sync();
    }
    return now() - t0;
  }, { note: "Buffer.copyTo(Uint8Array) + Stream.sync()" });

  const bBig = dev.allocate(BIG, so);
  stream.sync();
  registerCoreTail(plan, C, dev, stream, so, bBig);
}

/**
 * graph.launch100 for the core layer: `stream.createGraphBuilder()` capture of 100 core launches, then
 * `graph.launch(stream)`. Should the builder fail, core launch() is captured with driver.cuStreamBeginCapture and
 * the graph launched through the checked driver instead (said in the JSON note).
 */
function registerCoreGraph(plan: Plan, C: string, stream: core.Stream, cfg: core.LaunchConfig, k0: core.Kernel, sync: () => void): void {
  const { launch } = core;
  try {
    const gb = stream.createGraphBuilder();
    gb.beginBuilding();
    try {
      for (let i = 0; i < 100; i++) launch(gb, cfg, k0);
    } finally {
      gb.endBuilding();
    }
    const graph = gb.complete();
    graph.launch(stream);
    sync();
    plan.add(C, "graph.launch100", "ns", burstRep(() => graph.launch(stream), GRAPH_BURST, sync), {
      ...GRAPH_FIXED,
      note: "stream.createGraphBuilder() capture, graph.launch(stream)",
    });
    return;
  } catch (e) {
    note(`${C} graph.launch100: the GraphBuilder path failed (${describeError(e)}); measuring through the driver instead`);
    try {
      driver.cuStreamEndCapture(stream.handle); // leave no capture behind
    } catch {
      // not capturing
    }
  }
  try {
    driver.cuStreamBeginCapture(stream.handle, CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_RELAXED);
    let graph;
    try {
      for (let i = 0; i < 100; i++) launch(stream, cfg, k0);
    } finally {
      graph = driver.cuStreamEndCapture(stream.handle);
    }
    const exec = driver.cuGraphInstantiate(graph, 0);
    driver.cuGraphDestroy(graph);
    const h = stream.handle;
    plan.add(C, "graph.launch100", "ns", burstRep(() => driver.cuGraphLaunch(exec, h), GRAPH_BURST, sync), {
      ...GRAPH_FIXED,
      note: "the GraphBuilder path failed (see the log): core launch() captured with driver.cuStreamBeginCapture, launched with driver.cuGraphLaunch",
    });
  } catch (e) {
    note(`${C} graph.launch100: capture failed: ${describeError(e)}; skipped`);
  }
}

/** The copies of host memory shared with the raw/checked contenders, and NVRTC (Program). */
function registerCoreTail(
  plan: Plan,
  C: string,
  dev: core.Device,
  stream: core.Stream,
  so: { stream: core.Stream },
  bBig: core.Buffer,
): void {
  const host = sharedHost;
  if (host === undefined) {
    skip(C, "copy.*.256MiB", "the host buffers were not set up");
  } else {
    const big = (dir: "h2d" | "d2h", bytesOf: () => Uint8Array): Rep => (m) => {
      const bytes = bytesOf();
      const t0 = now();
      for (let i = 0; i < m; i++) {
        if (dir === "h2d") bBig.copyFrom(bytes, so);
        else bBig.copyTo(bytes, so);
      }
      stream.sync();
      return now() - t0;
    };
    const bigOptions = { fixedM: 1, bytes: BIG };
    plan.add(C, "copy.h2d.256MiB.pinned", "GB/s", big("h2d", () => host().pinnedBytes), { ...bigOptions, note: "pinned memory from cuMemHostAlloc as a Uint8Array" });
    plan.add(C, "copy.d2h.256MiB.pinned", "GB/s", big("d2h", () => host().pinnedBytes), { ...bigOptions, note: "pinned memory from cuMemHostAlloc as a Uint8Array" });
    plan.add(C, "copy.h2d.256MiB.pageable", "GB/s", big("h2d", () => host().pageableBytes), { ...bigOptions, note: PAGEABLE_NOTE });
    plan.add(C, "copy.d2h.256MiB.pageable", "GB/s", big("d2h", () => host().pageableBytes), { ...bigOptions, note: PAGEABLE_NOTE });
  }

  const { Program, InMemoryProgramCache } = core;
  const arch = `sm_${dev.arch}`;
  plan.add(
    C,
    "nvrtc.compile",
    "ms",
    (m) => {
      const t0 = now();
      for (let i = 0; i < m; i++) {
        const p = new Program(K4_SOURCE, "c++", { arch });
        try {
          p.compile("cubin");
        } finally {
          p.close();
        }
      }
      return now() - t0;
    },
    { fixedM: 1, note: "new Program + compile('cubin') + close" },
  );
  const cache = new InMemoryProgramCache();
  plan.add(
    C,
    "nvrtc.cacheHit",
    "ms",
    (m) => {
      const t0 = now();
      for (let i = 0; i < m; i++) {
        const p = new Program(K4_SOURCE, "c++", { arch });
        try {
          p.compile("cubin", { cache });
        } finally {
          p.close();
        }
      }
      return now() - t0;
    },
    { note: "InMemoryProgramCache; new Program + compile('cubin', { cache }) + close (the warm-up fills the cache)" },
  );
}

let sharedHost: (() => HostBuffers) | undefined;

/**
 * Runs every cuda-ts contender. Throws (with the library's message) when the driver cannot be set up at all, so
 * the caller can say "no driver" and exit; later failures only skip measures.
 */
export function runSuite(runtime: string, cubinPath: string, only?: string): number {
  const shared = setupShared(cubinPath); // the first driver call: throws when there is no driver
  try {
    note(`libraries: driver ${driver.loaded?.path} (driver version ${driver.driverVersion()}), nvrtc ${nvrtc.load().path}`);
  } catch (e) {
    note(`NVRTC did not load: ${describeError(e)}`);
  }
  sharedHost = shared.host;
  const plan = new Plan();
  const want = (layer: string): boolean => only === undefined || only === layer;
  if (want("raw")) plan.contender(`${runtime}-raw`, () => registerRaw(plan, `${runtime}-raw`, shared));
  if (want("checked")) plan.contender(`${runtime}-checked`, () => registerChecked(plan, `${runtime}-checked`, shared));
  if (want("core")) {
    try {
      registerCore(plan, `${runtime}-core`, cubinPath);
    } catch (e) {
      note(`${runtime}-core: setting up failed, its remaining measures are skipped: ${describeError(e)}`);
    }
  }
  plan.run();
  return 0;
}
