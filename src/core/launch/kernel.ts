/**
 * `Kernel`: a `__global__` function of loaded device code. Knows its parameters' offsets and sizes
 * (cuKernelGetParamInfo), their types when it can (declared, or recovered from a C++ kernel's mangled name),
 * its attributes per device and its occupancy.
 *
 * @module
 */
import { CUfunction_attribute, CUresult, cudaError, type CUfunction, type CUkernel } from "../../bindings/driver.ts";
import { throwIfFaulted } from "../../bindings/driver-fault.ts";
import { ffi, Scratch } from "../../ffi/index.ts";
import type { NativePointer } from "../../ffi/types.ts";
import type { Device } from "../device.ts";
import { deviceOf } from "../base/hub.ts";
import { driver, withCurrentContext } from "../base/driver-state.ts";
import { ClosedError } from "../base/errors.ts";
import { LaunchArgumentError, LaunchConfigError } from "./errors.ts";
import { type ParamType, parameterTypesFromMangledName, type ScalarKind } from "./mangling.ts";
import type { ObjectCode } from "../program/object-code.ts";
import { DEFAULT_DYNAMIC_SHARED_MEMORY, launchConfigPointer, type LaunchConfig } from "./launch.ts";
import { SCALAR_SIZE } from "./scalars.ts";
import { INTERNAL, checkInternal, type Internal } from "../base/internal.ts";
import { kAllowDynamicSharedMemory, kArgumentPlan, kLaunchHandle, kMarkClosed } from "./kernel-keys.ts";

export { kAllowDynamicSharedMemory, kArgumentPlan, kLaunchHandle, kMarkClosed };

/** A parameter's place in the kernel's parameter buffer. */
export interface ParamInfo {
  readonly offset: number;
  readonly size: number;
}

/**
 * A declared parameter type: a scalar kind, "pointer" (untyped), a typed pointer (`{ pointer: "f32" }`: a
 * DeviceArray passed there must hold that element type), or a struct of a byte size.
 */
export type ParamDeclaration = ScalarKind | "pointer" | { readonly pointer: ScalarKind } | { readonly struct: number };

/** Per-device kernel attributes (cuKernelGetAttribute). */
export interface KernelAttributes {
  readonly maxThreadsPerBlock: number;
  readonly sharedSizeBytes: number;
  readonly constSizeBytes: number;
  readonly localSizeBytes: number;
  readonly numRegs: number;
  readonly ptxVersion: number;
  readonly binaryVersion: number;
  readonly cacheModeCa: boolean;
  readonly maxDynamicSharedSizeBytes: number;
  readonly preferredSharedMemoryCarveout: number;
  readonly clusterSizeMustBeSet: boolean;
  readonly requiredClusterWidth: number;
  readonly requiredClusterHeight: number;
  readonly requiredClusterDepth: number;
  readonly nonPortableClusterSizeAllowed: boolean;
  readonly clusterSchedulingPolicyPreference: number;
}

const A = CUfunction_attribute;
const ATTRIBUTES: readonly [keyof KernelAttributes, number, boolean][] = [
  ["maxThreadsPerBlock", A.CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, false],
  ["sharedSizeBytes", A.CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, false],
  ["constSizeBytes", A.CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES, false],
  ["localSizeBytes", A.CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, false],
  ["numRegs", A.CU_FUNC_ATTRIBUTE_NUM_REGS, false],
  ["ptxVersion", A.CU_FUNC_ATTRIBUTE_PTX_VERSION, false],
  ["binaryVersion", A.CU_FUNC_ATTRIBUTE_BINARY_VERSION, false],
  ["cacheModeCa", A.CU_FUNC_ATTRIBUTE_CACHE_MODE_CA, true],
  ["maxDynamicSharedSizeBytes", A.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, false],
  ["preferredSharedMemoryCarveout", A.CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, false],
  ["clusterSizeMustBeSet", A.CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET, true],
  ["requiredClusterWidth", A.CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH, false],
  ["requiredClusterHeight", A.CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT, false],
  ["requiredClusterDepth", A.CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH, false],
  ["nonPortableClusterSizeAllowed", A.CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, true],
  ["clusterSchedulingPolicyPreference", A.CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE, false],
];

/** The attributes `Kernel.setAttribute` can set (cuKernelSetAttribute). */
export interface SettableKernelAttributes {
  /** Dynamic shared memory a launch may ask for, in bytes (above 48 KiB needs this set first). */
  readonly maxDynamicSharedSizeBytes: number;
  /** The preferred shared-memory carveout, a percentage of the L1/shared capacity (0-100, or -1 for no preference). */
  readonly preferredSharedMemoryCarveout: number;
  /** Whether cluster sizes beyond the portable 8 blocks may be launched (compute capability 9.0+). */
  readonly nonPortableClusterSizeAllowed: boolean;
  /** The cluster scheduling policy preference (CUclusterSchedulingPolicy). */
  readonly clusterSchedulingPolicyPreference: number;
  /** Required cluster extents (only before the first launch; 0 for none). */
  readonly requiredClusterWidth: number;
  readonly requiredClusterHeight: number;
  readonly requiredClusterDepth: number;
}

const SETTABLE: Readonly<Record<keyof SettableKernelAttributes, number>> = {
  maxDynamicSharedSizeBytes: A.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
  preferredSharedMemoryCarveout: A.CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT,
  nonPortableClusterSizeAllowed: A.CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED,
  clusterSchedulingPolicyPreference: A.CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE,
  requiredClusterWidth: A.CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH,
  requiredClusterHeight: A.CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT,
  requiredClusterDepth: A.CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH,
};

/** The reusable memory of a kernel's arguments: the values and the `void*[]` that points at them. */
export interface ArgumentPlan {
  readonly params: readonly ParamInfo[];
  readonly types: readonly (ParamType | undefined)[];
  /** The argument values, each at its parameter's offset. */
  readonly values: DataView;
  /** `void* kernelParams[]`: one pointer per parameter into `values`. */
  readonly pointers: NativePointer;
  /** Each parameter's offset (for the launch loop). */
  readonly offsets: Int32Array;
  /** Each parameter's size. */
  readonly sizes: Int32Array;
  /** Keeps the memory alive. */
  readonly keep: readonly ArrayBuffer[];
  /** Per parameter, the argument whose bytes `values` holds (scalars, buffers, primitives; see launch.ts). */
  packed: unknown[] | undefined;
  /** The argument epoch (base/epoch.ts) when `packed` was written. */
  packedEpoch: number;
  /** One slot per parameter: the spread form of `launch` copies its arguments here (see launch.ts). */
  readonly spread: unknown[];
}

/** A kernel. Get one from `ObjectCode.getKernel(name)`. */
export class Kernel {
  readonly #handle: CUkernel;
  /** The device code it belongs to (kept alive by the kernel). */
  readonly objectCode: ObjectCode | undefined;
  /** The name it was asked for by (a name expression or a symbol). */
  readonly name: string;
  /** The symbol (lowered, mangled) name. */
  readonly symbol: string;
  #closed = false;
  #params: ParamInfo[] | undefined;
  #declared: (ParamType | undefined)[] | undefined;
  #plan: ArgumentPlan | undefined;
  readonly #attributes = new Map<number, KernelAttributes>();
  /** Per device ordinal, the dynamic shared memory this kernel was allowed (by setAttribute or by a launch). */
  readonly #sharedAllowed = new Map<number, number>();
  /** The context (a Context object) of the last launch, and this kernel's CUfunction in it. */
  #launchContext: object | undefined;
  #launchFunction: CUfunction | undefined;

  /** Reserved to cuda-ts (the token is not exported): use `objectCode.getKernel(name)` or `Kernel.fromHandle`. */
  constructor(token: Internal, handle: CUkernel, objectCode: ObjectCode | undefined, name: string, symbol: string) {
    checkInternal(token, "Kernel", "objectCode.getKernel(name) or Kernel.fromHandle");
    this.#handle = handle;
    this.objectCode = objectCode;
    this.name = name;
    this.symbol = symbol;
  }

  /** A Kernel over a CUkernel obtained elsewhere (the device code must stay loaded). */
  static fromHandle(handle: CUkernel, objectCode?: ObjectCode): Kernel {
    const name = driver.cuKernelGetName(handle) ?? "";
    return new Kernel(INTERNAL, handle, objectCode, name, name);
  }

  /** The CUkernel handle. */
  get handle(): CUkernel {
    if (this.#closed || this.objectCode?.isClosed) throw new ClosedError(`Kernel ${this.name}`, "launch or query it (its ObjectCode was closed)");
    return this.#handle;
  }

  [kLaunchHandle](context: object): CUfunction {
    if (this.#closed || this.objectCode?.isClosed) throw new ClosedError(`Kernel ${this.name}`, "launch or query it (its ObjectCode was closed)");
    if (this.#launchContext === context) return this.#launchFunction!;
    const f = driver.cuKernelGetFunction(this.#handle);
    this.#launchFunction = f;
    this.#launchContext = context;
    return f;
  }

  /** Whether the device code it belongs to was closed. */
  get isClosed(): boolean {
    return this.#closed || (this.objectCode?.isClosed ?? false);
  }

  [kMarkClosed](): void {
    this.#closed = true;
  }

  /** The offset and size of every parameter (cuKernelGetParamInfo). */
  get argumentsInfo(): readonly ParamInfo[] {
    if (this.#params === undefined) {
      throwIfFaulted(`cuKernelGetParamInfo (${this.name})`);
      const s = new Scratch(16);
      const params: ParamInfo[] = [];
      for (let i = 0; ; i++) {
        const r = driver.raw.cuKernelGetParamInfo(this.handle, i, s.pointerAt(0), s.pointerAt(8));
        // CUDA_ERROR_INVALID_VALUE past the last parameter; any other failure (a fault) is the error, not "no more".
        if (r === CUresult.CUDA_ERROR_INVALID_VALUE) break;
        if (r !== 0) throw cudaError(r, `cuKernelGetParamInfo (${this.name})`);
        params.push({ offset: Number(s.readU64(0)), size: Number(s.readU64(8)) });
      }
      this.#params = params;
    }
    return this.#params;
  }

  /** The number of parameters. */
  get numArguments(): number {
    return this.argumentsInfo.length;
  }

  /**
   * The parameter types, where known: declared with {@link Kernel.declare}, else recovered from the mangled name
   * of a C++ kernel; `undefined` entries are unknown (extern "C" kernels).
   */
  get parameterTypes(): readonly (ParamType | undefined)[] {
    if (this.#declared !== undefined) return this.#declared;
    const recovered = parameterTypesFromMangledName(this.symbol);
    return recovered ?? this.argumentsInfo.map(() => undefined);
  }

  /**
   * Declares the parameter types, so plain numbers can be passed (`kernel.declare("f32", "pointer", "pointer",
   * "u32")`). Checked against the sizes the driver reports.
   */
  declare(...types: ParamDeclaration[]): this {
    const info = this.argumentsInfo;
    if (types.length !== info.length) {
      throw new LaunchArgumentError(`${this.name} has ${info.length} parameters; ${types.length} types were declared`);
    }
    this.#declared = types.map((t, i): ParamType => {
      if (typeof t === "object" && t !== null && "pointer" in t) {
        if (!Object.hasOwn(SCALAR_SIZE, t.pointer)) throw new LaunchArgumentError(`${this.name} parameter ${i}: ${JSON.stringify(t)} points to an unknown scalar kind`);
        if (info[i]!.size !== 8) throw new LaunchArgumentError(`${this.name} parameter ${i} is ${info[i]!.size} bytes; the declared pointer is 8`);
        return { kind: "pointer", pointee: t.pointer };
      }
      const size = typeof t === "object" ? t.struct : t === "pointer" ? 8 : SCALAR_SIZE[t];
      if (size !== info[i]!.size) {
        throw new LaunchArgumentError(`${this.name} parameter ${i} is ${info[i]!.size} bytes; the declared ${JSON.stringify(t)} is ${size}`);
      }
      return typeof t === "object" ? { kind: "class", name: `struct(${t.struct})` } : t === "pointer" ? { kind: "pointer" } : { kind: "scalar", scalar: t };
    });
    this.#plan = undefined;
    return this;
  }

  [kArgumentPlan](): ArgumentPlan {
    if (this.#plan !== undefined) return this.#plan;
    const params = this.argumentsInfo;
    const total = params.reduce((m, p) => Math.max(m, p.offset + p.size), 0);
    const values = new ArrayBuffer(Math.max(8, Math.ceil(total / 8) * 8));
    const table = new ArrayBuffer(Math.max(8, params.length * 8));
    const base = ffi.pointerOf(values);
    const dv = new DataView(table);
    params.forEach((p, i) => ffi.writePointer(dv, i * 8, p.offset === 0 ? base : ffi.offsetPointer(base, p.offset)));
    this.#plan = {
      params,
      types: this.parameterTypes,
      values: new DataView(values),
      pointers: ffi.pointerOf(table),
      offsets: Int32Array.from(params, (p) => p.offset),
      sizes: Int32Array.from(params, (p) => p.size),
      keep: [values, table],
      packed: undefined,
      packedEpoch: -1,
      spread: new Array<unknown>(params.length).fill(undefined),
    };
    return this.#plan;
  }

  /** The kernel's attributes on a device (default: the current device). */
  attributes(device?: Device): KernelAttributes {
    const dev = device ?? deviceOf();
    let a = this.#attributes.get(dev.id);
    if (a === undefined) {
      const out: Record<string, number | boolean> = {};
      for (const [name, attr, isBool] of ATTRIBUTES) {
        const v = driver.cuKernelGetAttribute(attr as CUfunction_attribute, this.handle, dev.id);
        out[name] = isBool ? v !== 0 : v;
      }
      a = Object.freeze(out) as unknown as KernelAttributes;
      this.#attributes.set(dev.id, a);
    }
    return a;
  }

  /**
   * Sets an attribute of this kernel on a device (default: the current device), through cuKernelSetAttribute:
   * `kernel.setAttribute("maxDynamicSharedSizeBytes", 100 * 1024)`. Values are checked before the driver sees them;
   * the driver refuses what the device cannot do (a CudaError).
   */
  setAttribute<K extends keyof SettableKernelAttributes>(name: K, value: SettableKernelAttributes[K], device?: Device): this {
    if (typeof name !== "string" || !Object.hasOwn(SETTABLE, name)) {
      throw new LaunchArgumentError(`Kernel.setAttribute: expected one of ${Object.keys(SETTABLE).join(", ")}, got ${JSON.stringify(name)}`);
    }
    const v = typeof value === "boolean" ? (value ? 1 : 0) : value;
    if (typeof v !== "number" || !Number.isInteger(v) || v < -1 || v > 0x7fffffff) {
      throw new LaunchArgumentError(`Kernel.setAttribute(${name}): expected an integer${name === "nonPortableClusterSizeAllowed" ? " or a boolean" : ""}, got ${String(value)}`);
    }
    if (name === "preferredSharedMemoryCarveout" && (v < -1 || v > 100)) {
      throw new LaunchArgumentError(`Kernel.setAttribute(preferredSharedMemoryCarveout): expected a percentage 0-100 (or -1), got ${v}`);
    }
    const dev = device ?? deviceOf();
    driver.cuKernelSetAttribute(SETTABLE[name] as CUfunction_attribute, v, this.handle, dev.id);
    this.#attributes.delete(dev.id);
    if (name === "maxDynamicSharedSizeBytes") this.#sharedAllowed.set(dev.id, v);
    return this;
  }

  [kAllowDynamicSharedMemory](device: Device, bytes: number): void {
    if (bytes <= DEFAULT_DYNAMIC_SHARED_MEMORY || (this.#sharedAllowed.get(device.id) ?? 0) >= bytes) return;
    const optin = device.properties.maxSharedMemoryPerBlockOptin;
    const static_ = this.attributes(device).sharedSizeBytes;
    if (bytes + static_ > optin) {
      throw new LaunchConfigError(
        `${this.name} asks for ${bytes} bytes of dynamic shared memory (plus ${static_} static) but device ${device.id} (${device.name}) allows at most ${optin} bytes per block`,
      );
    }
    this.setAttribute("maxDynamicSharedSizeBytes", bytes, device);
  }

  /** The CUfunction of this kernel in a device's primary context (for occupancy queries). */
  functionFor(device: Device): CUfunction {
    return withCurrentContext(device.context.handle, () => driver.cuKernelGetFunction(this.handle));
  }

  /** Occupancy queries on a device (default: the current device). */
  occupancy(device?: Device): KernelOccupancy {
    return new KernelOccupancy(this, device ?? deviceOf());
  }
}

/** Occupancy of a kernel on a device. */
export class KernelOccupancy {
  constructor(
    readonly kernel: Kernel,
    readonly device: Device,
  ) {}

  private fn(): CUfunction {
    return this.kernel.functionFor(this.device);
  }

  /** How many blocks of `blockSize` threads can be resident on one multiprocessor. */
  maxActiveBlocksPerMultiprocessor(blockSize: number, dynamicSharedMemory = 0): number {
    return this.device.withContext(() => driver.cuOccupancyMaxActiveBlocksPerMultiprocessor(this.fn(), blockSize, dynamicSharedMemory));
  }

  /** The block size that maximises occupancy, and the minimum grid size that reaches it. */
  maxPotentialBlockSize(dynamicSharedMemory = 0, blockSizeLimit = 0): { minGridSize: number; blockSize: number } {
    const [minGridSize, blockSize] = this.device.withContext(() =>
      driver.cuOccupancyMaxPotentialBlockSize(this.fn(), null, dynamicSharedMemory, blockSizeLimit),
    );
    return { minGridSize, blockSize };
  }

  /**
   * The largest cluster size (in blocks) a launch of `config` could have on this device
   * (cuOccupancyMaxPotentialClusterSize; the config's cluster extents are ignored, its grid, block and shared
   * memory count).
   */
  maxPotentialClusterSize(config: LaunchConfig): number {
    const native = launchConfigPointer(config);
    return this.device.withContext(() => driver.cuOccupancyMaxPotentialClusterSize(this.fn(), native));
  }

  /** How many clusters of `config` (which must set `cluster`) can be resident on the device at once (cuOccupancyMaxActiveClusters). */
  maxActiveClusters(config: LaunchConfig): number {
    if (config.cluster === undefined) throw new LaunchConfigError("maxActiveClusters needs a LaunchConfig with a cluster size ({ grid, block, cluster })");
    const native = launchConfigPointer(config);
    return this.device.withContext(() => driver.cuOccupancyMaxActiveClusters(this.fn(), native));
  }

  /** Dynamic shared memory available per block when `numBlocks` blocks of `blockSize` run per multiprocessor. */
  availableDynamicSharedMemoryPerBlock(numBlocks: number, blockSize: number): number {
    return Number(this.device.withContext(() => driver.cuOccupancyAvailableDynamicSMemPerBlock(this.fn(), numBlocks, blockSize)));
  }
}
