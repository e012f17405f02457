/**
 * `LaunchConfig` and `launch(stream, config, kernel, ...args)`: through cuLaunchKernelEx when the configuration has
 * launch attributes (thread-block clusters, cooperative launches), through cuLaunchKernel otherwise (the same
 * launch, with less CPU time in the driver).
 *
 * Arguments, each checked against the kernel's parameter sizes before anything is launched:
 * - a Buffer → its device pointer (8 bytes);
 * - a DeviceArray (any PointerArgument) → the address of its first element (8 bytes), its dtype checked against
 *   the parameter's pointee type where the kernel knows it (declared `{ pointer: "f32" }`, or a C++ kernel's
 *   mangled name): a float32 array for an `int*` parameter is a LaunchArgumentError;
 * - a KernelScalar (`i32(n)`, `f32(x)`, `f16(x)`, `complex64(re, im)`, ...) → that C type;
 * - a bigint → a 64-bit integer (a device pointer, a size);
 * - a boolean → C++ bool;
 * - a plain number → the parameter's type when the kernel knows it (declared, or from a C++ kernel's mangled
 *   name), otherwise a LaunchArgumentError asking for a typed scalar;
 * - a generated record (struct class) or bytes (Uint8Array, ArrayBuffer, DataView) → a struct passed by value;
 * - a ByValueArgument (a TensorMap, an `arrayView(array)`) → its struct by value (128 bytes for a tensor map,
 *   16 + 16·ndim for a `cuda_ts::Array<T, N>` record), checked against the parameter's size (and, for an array
 *   view, against the element type and rank a C++ kernel's mangled name gives).
 *
 * The arguments can also come as one array (`launch(stream, config, kernel, args)`): for long argument lists this
 * spares the runtime spreading them into a call (on Bun, spreading 256 arguments costs several microseconds).
 *
 * The launch path reuses the kernel's argument memory and the config's native CUlaunchConfig (built on its first
 * launch, kept private to this module): after the first launch it allocates nothing.
 *
 * @module
 */
import { CUlaunchAttributeID, CUstreamCaptureStatus, type CUfunction, type CUstream, type Raw } from "../../bindings/driver.ts";
import { CUlaunchAttribute_st, CUlaunchConfig_st } from "../../bindings/driver.ts";
import { cudaError, type CUresult } from "../../bindings/driver.ts";
import { processFault, whenFaulted } from "../../bindings/driver-fault.ts";
import { ffi, Scratch } from "../../ffi/index.ts";
import type { NativePointer } from "../../ffi/types.ts";
import { RecordBase } from "../../tables-runtime/record.ts";
import { Buffer, writeDevicePointer } from "../memory/buffer.ts";
import type { Device } from "../device.ts";
import { driver, makeCurrent } from "../base/driver-state.ts";
import { uncheckedNative } from "../../bindings/binding.ts";
import { LaunchArgumentError, LaunchConfigError } from "./errors.ts";
import type { ArgumentPlan, Kernel } from "./kernel.ts";
import { kAllowDynamicSharedMemory, kArgumentPlan, kLaunchHandle } from "./kernel-keys.ts";
import { KernelScalar, SCALAR_SIZE, writeScalar } from "./scalars.ts";
import { PointerArgument, kDescribeArgument, kElementKind, kWriteAddress } from "./pointer-argument.ts";
import { ByValueArgument, kArgumentSize, kCheckParameter, kWriteValue } from "./by-value-argument.ts";
import { Stream, captureSinkOf, streamContextAddress } from "../stream.ts";
import { describeValue } from "../../errors/describe.ts";
import { argumentEpoch } from "../base/epoch.ts";
import { takeStream, type StreamSpec } from "../base/stream-arg.ts";
import { recordLaunch, syncEachLaunch } from "./launch-ring.ts";

/** The dynamic shared memory every kernel may use without asking (48 KiB); launches asking for more raise the kernel's limit. */
export const DEFAULT_DYNAMIC_SHARED_MEMORY = 48 * 1024;

/** A dimension: a number or up to three numbers (x, y, z), each ≥ 1. */
export type Dim3 = number | readonly [number] | readonly [number, number] | readonly [number, number, number];

/** Options of a launch configuration (names as cuda.core, camelCase). */
export interface LaunchConfigOptions {
  /** Blocks in the grid (clusters in the grid when `cluster` is set, as in cuda.core). */
  readonly grid: Dim3;
  /** Threads in a block. */
  readonly block: Dim3;
  /** Blocks in a thread-block cluster (compute capability 9.0+). */
  readonly cluster?: Dim3;
  /** Dynamic shared memory per block, in bytes. */
  readonly sharedMemory?: number;
  /** A cooperative launch (grid-wide sync); the grid must fit on the device at once. */
  readonly cooperative?: boolean;
}

function dim3(name: string, d: Dim3 | undefined): [number, number, number] {
  const list = typeof d === "number" ? [d] : Array.isArray(d) ? [...d] : undefined;
  if (list === undefined || list.length < 1 || list.length > 3) {
    throw new LaunchConfigError(`LaunchConfig.${name} must be a number or a tuple of 1 to 3 numbers, not ${JSON.stringify(d)}`);
  }
  for (const v of list) {
    if (!Number.isInteger(v) || v < 1 || v > 0xffffffff) {
      throw new LaunchConfigError(`LaunchConfig.${name} values must be integers ≥ 1, not ${JSON.stringify(d)}`);
    }
  }
  while (list.length < 3) list.push(1);
  return list as [number, number, number];
}

/** What a launch hands the driver for one configuration, built on its first launch and kept with it. */
interface LaunchNative {
  /** The CUlaunchConfig (its hStream set per launch), for cuLaunchKernelEx. */
  readonly config: CUlaunchConfig_st;
  readonly pointer: NativePointer;
  /** The launch attributes' memory (kept alive with the config). */
  readonly attributes: ArrayBuffer | undefined;
  /** grid x, y, z (in blocks), block x, y, z, dynamic shared memory: cuLaunchKernel's arguments. */
  readonly dims: Uint32Array;
  /** The stream last written into `config` (skips the write when unchanged). */
  lastStream: CUstream | undefined;
  /** The kernel and device ordinal this configuration was last checked against (the check is skipped for them). */
  checkedKernel: WeakRef<Kernel> | undefined;
  checkedDevice: number;
}

let nativeOf: (config: LaunchConfig) => LaunchNative;

/**
 * Where and how wide a kernel runs: a plain value (grid, block, cluster, shared memory, cooperative), checked for
 * its shape when made. What the device must support (clusters, cooperative launches) is checked when it is launched,
 * against the device of the stream it is launched on.
 */
export class LaunchConfig {
  /** Blocks (or clusters, with `cluster`) in x, y, z. */
  readonly grid: readonly [number, number, number];
  /** Threads per block in x, y, z. */
  readonly block: readonly [number, number, number];
  /** Blocks per cluster in x, y, z, when set. */
  readonly cluster: readonly [number, number, number] | undefined;
  /** Dynamic shared memory per block. */
  readonly sharedMemory: number;
  /** Whether the launch is cooperative. */
  readonly cooperative: boolean;
  #native: LaunchNative | undefined;

  static {
    nativeOf = (c) => (c.#native ??= buildNative(c));
  }

  constructor(options: LaunchConfigOptions) {
    if (options === null || typeof options !== "object") throw new LaunchConfigError("LaunchConfig takes an options object { grid, block, ... }");
    this.grid = Object.freeze(dim3("grid", options.grid));
    this.block = Object.freeze(dim3("block", options.block));
    this.cluster = options.cluster === undefined ? undefined : Object.freeze(dim3("cluster", options.cluster));
    const shm = options.sharedMemory ?? 0;
    if (!Number.isInteger(shm) || shm < 0 || shm > 0xffffffff) {
      throw new LaunchConfigError(`LaunchConfig.sharedMemory must be a non-negative integer number of bytes, not ${String(shm)}`);
    }
    this.sharedMemory = shm;
    const cooperative = options.cooperative ?? false;
    if (typeof cooperative !== "boolean") throw new LaunchConfigError(`LaunchConfig.cooperative must be a boolean, not ${typeof cooperative}`);
    this.cooperative = cooperative;
  }

  /** Threads per block. */
  get threadsPerBlock(): number {
    return this.block[0] * this.block[1] * this.block[2];
  }

  /** Blocks in the grid (all clusters' blocks). */
  get totalBlocks(): number {
    const cl = this.cluster ?? [1, 1, 1];
    return this.grid[0] * cl[0] * this.grid[1] * cl[1] * this.grid[2] * cl[2];
  }

  /** Structural equality. */
  equals(other: LaunchConfig): boolean {
    return (
      this.grid.join() === other.grid.join() &&
      this.block.join() === other.block.join() &&
      String(this.cluster) === String(other.cluster) &&
      this.sharedMemory === other.sharedMemory &&
      this.cooperative === other.cooperative
    );
  }
}

/**
 * @internal The native CUlaunchConfig of a configuration (for occupancy queries that take one: its stream is
 * whatever the last launch set, which they ignore).
 */
export function launchConfigPointer(config: LaunchConfig): NativePointer {
  if (!(config instanceof LaunchConfig)) throw new TypeError(`expected a LaunchConfig, not ${describeValue(config)}`);
  return nativeOf(config).pointer;
}

function buildNative(config: LaunchConfig): LaunchNative {
  const c = new CUlaunchConfig_st();
  const cl = config.cluster ?? [1, 1, 1];
  c.gridDimX = config.grid[0] * cl[0];
  c.gridDimY = config.grid[1] * cl[1];
  c.gridDimZ = config.grid[2] * cl[2];
  c.blockDimX = config.block[0];
  c.blockDimY = config.block[1];
  c.blockDimZ = config.block[2];
  c.sharedMemBytes = config.sharedMemory;
  const attributes = config.cluster !== undefined || config.cooperative ? new ArrayBuffer(2 * CUlaunchAttribute_st.$size) : undefined;
  if (attributes !== undefined) {
    let n = 0;
    if (config.cluster !== undefined) {
      const a = new CUlaunchAttribute_st(attributes, n++ * CUlaunchAttribute_st.$size);
      a.id = CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
      a.value.clusterDim.x = config.cluster[0];
      a.value.clusterDim.y = config.cluster[1];
      a.value.clusterDim.z = config.cluster[2];
    }
    if (config.cooperative) {
      const a = new CUlaunchAttribute_st(attributes, n++ * CUlaunchAttribute_st.$size);
      a.id = CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
      a.value.cooperative = 1;
    }
    c.attrs = ffi.pointerOf(attributes);
    c.numAttrs = n;
  }
  return {
    config: c,
    pointer: c.$pointer(),
    attributes,
    dims: Uint32Array.of(c.gridDimX, c.gridDimY, c.gridDimZ, c.blockDimX, c.blockDimY, c.blockDimZ, config.sharedMemory),
    lastStream: undefined,
    checkedKernel: undefined,
    checkedDevice: -1,
  };
}

/** What a device supports of launch attributes, read once per device. */
interface DeviceLaunchSupport {
  readonly clusters: boolean;
  readonly cooperative: boolean;
}

const deviceSupport: (DeviceLaunchSupport | undefined)[] = [];

function launchSupport(dev: Device): DeviceLaunchSupport {
  return (deviceSupport[dev.id] ??= { clusters: dev.computeCapability.major >= 9, cooperative: dev.properties.cooperativeLaunch !== 0 });
}

/** Checks what `config` needs of the device `dev` (clusters, cooperative launches) before the driver sees it. */
function checkAgainstDevice(kernel: Kernel, config: LaunchConfig, dev: Device): void {
  const support = launchSupport(dev);
  if (config.cluster !== undefined && !support.clusters) {
    const cc = dev.computeCapability;
    throw new LaunchConfigError(`thread-block clusters need compute capability 9.0 or newer; device ${dev.id} (${dev.name}) is ${cc.major}.${cc.minor}`);
  }
  if (config.cooperative) {
    if (!support.cooperative) throw new LaunchConfigError(`device ${dev.id} (${dev.name}) does not support cooperative launches`);
    checkCooperative(kernel, config, dev);
  }
}

/** A kernel argument (see the module documentation). */
export type KernelArgument = Buffer | PointerArgument | ByValueArgument | KernelScalar | bigint | number | boolean | RecordBase | ArrayBufferView | ArrayBuffer;

/** What `launch` accepts as a stream: a Stream, or anything with a `stream` (a GraphBuilder). */
export type StreamLike = Stream | { readonly stream: Stream };

const LAUNCH_STREAM: StreamSpec = Object.freeze({ like: true, name: "the first argument" });

function argError(kernel: Kernel, i: number, got: string, size: number, expected: number, hint = ""): LaunchArgumentError {
  return new LaunchArgumentError(
    `argument ${i} of ${kernel.name}: ${got} is ${size} byte${size === 1 ? "" : "s"} but the parameter is ${expected} byte${expected === 1 ? "" : "s"}${hint}`,
  );
}

/** Writes a typed pointer (a DeviceArray) after checking it against parameter i's size and pointee type. */
function writePointerArgument(kernel: Kernel, i: number, arg: PointerArgument, dv: DataView, offset: number, size: number): void {
  if (size !== 8) throw argError(kernel, i, arg[kDescribeArgument](), 8, size);
  const t = kernel[kArgumentPlan]().types[i];
  if (t !== undefined) {
    if (t.kind === "scalar") {
      throw new LaunchArgumentError(`argument ${i} of ${kernel.name}: the parameter is a ${t.scalar} value, not a pointer, but ${arg[kDescribeArgument]()} was passed`);
    }
    if (t.kind === "pointer" && t.pointee !== undefined && t.pointee !== arg[kElementKind]) {
      throw new LaunchArgumentError(
        `argument ${i} of ${kernel.name}: the parameter points to ${t.pointee} but ${arg[kDescribeArgument]()} holds ${arg[kElementKind]}; pass an array of that dtype (or array.view(dtype) to reinterpret the bytes)`,
      );
    }
  }
  arg[kWriteAddress](dv, offset);
}

function writeArgument(kernel: Kernel, i: number, arg: unknown, dv: DataView, offset: number, size: number): void {
  if (arg instanceof PointerArgument) {
    writePointerArgument(kernel, i, arg, dv, offset, size);
    return;
  }
  if (arg instanceof Buffer) {
    if (size !== 8) throw argError(kernel, i, "a Buffer (a device pointer)", 8, size);
    dv.setBigUint64(offset, arg.handle, true);
    return;
  }
  if (arg instanceof KernelScalar) {
    const s = arg.size;
    if (s !== size) throw argError(kernel, i, arg.toString(), s, size);
    arg.write(dv, offset);
    return;
  }
  switch (typeof arg) {
    case "number": {
      const t = kernel[kArgumentPlan]().types[i];
      if (t?.kind === "scalar") {
        if (SCALAR_SIZE[t.scalar] !== size) throw argError(kernel, i, `a ${t.scalar}`, SCALAR_SIZE[t.scalar], size);
        const v = t.scalar === "i64" || t.scalar === "u64" ? BigInt(Math.trunc(arg)) : t.scalar === "bool" ? arg !== 0 : arg;
        if ((t.scalar !== "f16" && t.scalar !== "bf16" && t.scalar !== "f32" && t.scalar !== "f64") && !Number.isInteger(arg)) {
          throw new LaunchArgumentError(`argument ${i} of ${kernel.name}: the parameter is ${t.scalar} but ${arg} is not an integer`);
        }
        writeScalar(t.scalar, v, dv, offset);
        return;
      }
      throw new LaunchArgumentError(
        `argument ${i} of ${kernel.name}: a plain number (${arg}) needs the parameter's type, which is ${t?.kind === "pointer" ? "a pointer (pass a Buffer or a bigint address)" : "not known"}. ` +
          `Pass a typed scalar such as i32(${arg}) or f32(${arg}), or declare the kernel's parameters with kernel.declare(...)`,
      );
    }
    case "bigint":
      if (size !== 8) throw argError(kernel, i, `a bigint (${arg}, a 64-bit value)`, 8, size, "; pass a typed scalar such as i32(Number(x))");
      dv.setBigUint64(offset, BigInt.asUintN(64, arg), true);
      return;
    case "boolean":
      if (size !== 1) throw argError(kernel, i, `a boolean`, 1, size);
      dv.setUint8(offset, arg ? 1 : 0);
      return;
  }
  if (arg instanceof ByValueArgument) {
    const check = arg[kCheckParameter];
    if (check !== undefined) {
      const problem = check.call(arg, size, kernel[kArgumentPlan]().types[i]);
      if (problem !== undefined) throw new LaunchArgumentError(`argument ${i} of ${kernel.name}: ${problem}`);
    }
    const s = arg[kArgumentSize];
    if (s !== size) {
      throw argError(kernel, i, arg[kDescribeArgument](), s, size, s === 128 ? "; a tensor map is taken by value: declare the parameter `const __grid_constant__ CUtensorMap`" : "");
    }
    arg[kWriteValue](dv, offset);
    return;
  }
  if (arg instanceof RecordBase) {
    const bytes = arg.$bytes();
    if (bytes.byteLength !== size) throw argError(kernel, i, `a ${arg.constructor.name} struct`, bytes.byteLength, size);
    new Uint8Array(dv.buffer, dv.byteOffset + offset, size).set(bytes);
    return;
  }
  if (arg instanceof ArrayBuffer || ArrayBuffer.isView(arg)) {
    const bytes = arg instanceof ArrayBuffer ? new Uint8Array(arg) : new Uint8Array(arg.buffer, arg.byteOffset, arg.byteLength);
    if (bytes.byteLength !== size) throw argError(kernel, i, `a ${bytes.byteLength}-byte struct value`, bytes.byteLength, size);
    new Uint8Array(dv.buffer, dv.byteOffset + offset, size).set(bytes);
    return;
  }
  throw new LaunchArgumentError(
    `argument ${i} of ${kernel.name}: ${describeValue(arg)} cannot be passed to a kernel; pass a Buffer, a DeviceArray, a typed scalar (i32(...), f32(...), ...), a bigint, a boolean, or a struct (a generated record or bytes)`,
  );
}

const ctxScratch = new Scratch(8);
const ctxSlot = ctxScratch.pointerAt(0);
const ctxWords = ctxScratch.u32;

let launchPlain: Raw["cuLaunchKernel"] | undefined;
let launchEx: Raw["cuLaunchKernelEx"] | undefined;
let ctxGetCurrent: Raw["cuCtxGetCurrent"] | undefined;

// After a sticky fault a launch calls the driver no more: both launch functions return the fault's code, which
// cudaError turns into the DeviceFaultError naming the first fault (the hot path itself checks nothing).
whenFaulted(() => {
  const code = processFault()!.code as CUresult;
  launchPlain = () => code;
  launchEx = () => code;
});

/**
 * Launches `kernel` on `stream` with `config`. Every argument is checked against the kernel's parameters first,
 * and what the configuration needs of the device against the stream's device; a mismatch throws
 * LaunchArgumentError or LaunchConfigError and nothing is launched.
 */
export function launch(stream: StreamLike, config: LaunchConfig, kernel: Kernel, ...args: KernelArgument[] | [readonly KernelArgument[]]): void {
  // The hot path checks inline and calls takeStream only to refuse (a closed stream fails at its handle below).
  let s = stream instanceof Stream ? stream : stream?.stream;
  if (!(s instanceof Stream)) s = takeStream(stream, "launch", LAUNCH_STREAM);
  if (!(config instanceof LaunchConfig)) throw new TypeError(`launch: the second argument must be a LaunchConfig, not ${describeValue(config)}`);
  if (typeof (kernel as { [kArgumentPlan]?: unknown } | null)?.[kArgumentPlan] !== "function") {
    throw new TypeError(`launch: the third argument must be a Kernel (objectCode.getKernel(name)), not ${describeValue(kernel)}`);
  }
  // The spread form's arguments are copied into one reused array, so that `args` itself never escapes this function
  // and the runtime need not allocate it (on Bun an allocation per launch costs ~0.2 us while a large ArrayBuffer
  // is alive).
  let list: readonly unknown[];
  let spread: unknown[] | undefined;
  if (args.length === 1 && Array.isArray(args[0])) {
    list = args[0];
  } else {
    spread = kernel[kArgumentPlan]().spread;
    const n = args.length;
    if (n === spread.length) {
      for (let i = 0; i < n; i++) spread[i] = args[i];
      list = spread;
    } else {
      list = args.slice(); // the wrong count: packArguments says so
    }
  }
  const native = nativeOf(config);
  const hasAttributes = native.attributes !== undefined;
  if (hasAttributes) {
    // Checked once per kernel and device (a cooperative grid's limit costs an occupancy query).
    const dev = s.device;
    if (native.checkedKernel?.deref() !== kernel || native.checkedDevice !== dev.id) {
      checkAgainstDevice(kernel, config, dev);
      native.checkedKernel = new WeakRef(kernel);
      native.checkedDevice = dev.id;
    }
  }
  if (config.sharedMemory > DEFAULT_DYNAMIC_SHARED_MEMORY) kernel[kAllowDynamicSharedMemory](s.device, config.sharedMemory);
  const plan = packArguments(kernel, list);
  const handle = s.handle;
  // The kernel runs in the current context: make it the stream's.
  // A stream of a known context launches the kernel's CUfunction there (kept by the kernel: the driver need not look
  // it up from the CUkernel each time); a default stream (the current context's) launches the CUkernel itself.
  const ctx = streamContextAddress(s);
  let fn: CUfunction;
  if (ctx !== 0) {
    (ctxGetCurrent ??= uncheckedNative(driver, "cuCtxGetCurrent"))(ctxSlot);
    const context = s.context;
    if (ctxWords[0]! + ctxWords[1]! * 4294967296 !== ctx) makeCurrent(context.handle);
    fn = kernel[kLaunchHandle](context);
  } else {
    fn = kernel.handle as unknown as CUfunction;
  }
  let r: number;
  if (hasAttributes) {
    // Clusters and cooperative launches are launch attributes: cuLaunchKernelEx.
    if (native.lastStream !== handle) {
      native.config.hStream = handle;
      native.lastStream = handle;
    }
    r = (launchEx ??= uncheckedNative(driver, "cuLaunchKernelEx"))(native.pointer, fn, plan.pointers, null);
  } else {
    // Without attributes cuLaunchKernel does the same launch and costs the driver less CPU time.
    const d = native.dims;
    r = (launchPlain ??= uncheckedNative(driver, "cuLaunchKernel"))(fn, d[0]!, d[1]!, d[2]!, d[3]!, d[4]!, d[5]!, d[6]!, handle, plan.pointers, null);
  }
  if (r !== 0) throw cudaError(r, `${hasAttributes ? "cuLaunchKernelEx" : "cuLaunchKernel"} (${kernel.name})`);
  recordLaunch(kernel, config, s);
  // Captured into a graph: the graph keeps the kernel's code and the arguments' memory alive.
  const sink = captureSinkOf(s);
  if (sink !== undefined) sink.push(kernel, list === spread ? spread.slice() : list);
  else if (syncEachLaunch) syncAfterLaunch(handle);
}

/**
 * `CUDA_TS_DEBUG=sync`: waits for the kernel just launched (CUDA_LAUNCH_BLOCKING's role), so that a fault names its
 * own launch and the kernel's `printf` output is flushed before the script goes on. A stream being captured is
 * left alone (waiting would end the capture).
 */
function syncAfterLaunch(handle: CUstream): void {
  if (driver.cuStreamIsCapturing(handle) !== CUstreamCaptureStatus.CU_STREAM_CAPTURE_STATUS_NONE) return;
  driver.cuStreamSynchronize(handle);
}

/**
 * @internal Checks `args` against the kernel's parameters and writes them into the kernel's reusable argument
 * memory (LaunchArgumentError on a mismatch). The plan is valid until the next packing for this kernel: hand
 * `plan.pointers` to the driver at once (it copies the values). An argument that is the same scalar, buffer or
 * primitive as at the last packing, with nothing changed since (base/epoch.ts), is in the memory already and is
 * not written again.
 */
export function packArguments(kernel: Kernel, args: readonly unknown[]): ArgumentPlan {
  const plan = kernel[kArgumentPlan]();
  const sizes = plan.sizes;
  const n = sizes.length;
  if (args.length !== n) {
    throw new LaunchArgumentError(`${kernel.name} takes ${n} argument${n === 1 ? "" : "s"}, ${args.length} given`);
  }
  // `kept[i]` is the argument whose bytes are at parameter i now, or NOT_KEPT; all of them are stale after an
  // epoch bump (a scalar set, a buffer closed). A packing that throws leaves the epoch at -1: all stale.
  let kept = plan.packed;
  if (kept !== undefined && plan.packedEpoch === argumentEpoch) {
    let i = 0;
    while (i < n && kept[i] === args[i]) i++;
    if (i === n) return plan;
  }
  kept ??= plan.packed = args.slice();
  plan.packedEpoch = -1;
  const dv = plan.values;
  const offsets = plan.offsets;
  for (let i = 0; i < n; i++) {
    const a = args[i];
    const o = offsets[i]!;
    const size = sizes[i]!;
    // The common cases first: typed scalars and open buffers of the right size (a closed buffer or a size
    // mismatch goes on to writeArgument, which says what is wrong).
    if (a instanceof KernelScalar) {
      if (a.size !== size) throw argError(kernel, i, a.toString(), a.size, size);
      a.write(dv, o);
      kept[i] = a;
    } else if (a instanceof Buffer && size === 8 && writeDevicePointer(a, dv, o)) {
      kept[i] = a;
    } else if (a instanceof PointerArgument) {
      // Checked and written; its address only changes when its memory is closed or moved, which bumps the epoch.
      writePointerArgument(kernel, i, a, dv, o, size);
      kept[i] = a;
    } else {
      writeArgument(kernel, i, a, dv, o, size);
      // Records and bytes can change without a trace, and 0 === -0 while their bytes differ: pack them every time.
      kept[i] = (typeof a === "object" && a !== null) || a === 0 ? NOT_KEPT : a;
    }
  }
  plan.packedEpoch = argumentEpoch;
  return plan;
}

/** In a kernel's kept arguments: nothing reusable is at this parameter. */
const NOT_KEPT: unique symbol = Symbol("not kept");

function checkCooperative(kernel: Kernel, config: LaunchConfig, dev: Device): void {
  const perSm = kernel.occupancy(dev).maxActiveBlocksPerMultiprocessor(config.threadsPerBlock, config.sharedMemory);
  const max = perSm * dev.properties.multiprocessorCount;
  if (config.totalBlocks > max) {
    throw new LaunchConfigError(
      `a cooperative launch of ${kernel.name} can run at most ${max} blocks at once on device ${dev.id} (${perSm} per multiprocessor × ${dev.properties.multiprocessorCount}); the grid has ${config.totalBlocks}`,
    );
  }
}
