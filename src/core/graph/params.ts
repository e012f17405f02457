/**
 * The driver structures of explicit graph nodes: kernel (`CUDA_KERNEL_NODE_PARAMS`), memset
 * (`CUDA_MEMSET_NODE_PARAMS`) and memcpy (`CUDA_MEMCPY3D`) parameters, checked before they are built.
 *
 * @module
 */
import {
  CUDA_KERNEL_NODE_PARAMS_v2_st,
  CUDA_MEMCPY3D_st,
  CUDA_MEMSET_NODE_PARAMS_st,
  CUlaunchAttributeID,
  CUlaunchAttributeValue_union,
  CUmemorytype,
  type CUgraphNode,
} from "../../bindings/driver.ts";
import { ffi } from "../../ffi/index.ts";
import { Buffer, type HostMemory } from "../memory/buffer.ts";
import type { Context } from "../context.ts";
import { driver } from "../base/driver-state.ts";
import { kArgumentPlan, type Kernel } from "../launch/kernel.ts";
import { LaunchConfig, packArguments, type KernelArgument } from "../launch/launch.ts";
import { describeValue } from "../../errors/describe.ts";

/**
 * The kernel node parameters of a launch (arguments checked as `launch` checks them). Pass them to the driver at
 * once: the argument memory is the kernel's reusable buffer (the driver copies the values during the call).
 */
export function kernelNodeParams(config: LaunchConfig, kernel: Kernel, args: readonly KernelArgument[], context: Context, action: string): CUDA_KERNEL_NODE_PARAMS_v2_st {
  if (!(config instanceof LaunchConfig)) throw new TypeError(`${action}: the first argument must be a LaunchConfig, not ${describeValue(config)}`);
  if (kernel === null || typeof kernel !== "object" || typeof (kernel as Partial<Kernel>)[kArgumentPlan] !== "function") {
    throw new TypeError(`${action}: the second argument must be a Kernel (objectCode.getKernel(name)), not ${describeValue(kernel)}`);
  }
  const plan = packArguments(kernel, args);
  const p = new CUDA_KERNEL_NODE_PARAMS_v2_st();
  const cl = config.cluster ?? [1, 1, 1];
  p.gridDimX = config.grid[0] * cl[0];
  p.gridDimY = config.grid[1] * cl[1];
  p.gridDimZ = config.grid[2] * cl[2];
  p.blockDimX = config.block[0];
  p.blockDimY = config.block[1];
  p.blockDimZ = config.block[2];
  p.sharedMemBytes = config.sharedMemory;
  p.kernelParams = plan.pointers;
  p.kern = kernel.handle; // func stays NULL: the driver launches `kern` in `ctx`
  p.ctx = context.handle;
  return p;
}

/** Sets what a LaunchConfig says beyond the kernel node parameters: the cluster shape and cooperative launch. */
export function setKernelNodeAttributes(node: CUgraphNode, config: LaunchConfig): void {
  if (config.cluster !== undefined) {
    const v = new CUlaunchAttributeValue_union();
    v.clusterDim.x = config.cluster[0];
    v.clusterDim.y = config.cluster[1];
    v.clusterDim.z = config.cluster[2];
    driver.cuGraphKernelNodeSetAttribute(node, CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION, v);
  }
  if (config.cooperative) {
    const v = new CUlaunchAttributeValue_union();
    v.cooperative = 1;
    driver.cuGraphKernelNodeSetAttribute(node, CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_COOPERATIVE, v);
  }
}

/** A fill pattern as Buffer.fill takes it: a byte, or a 1-, 2- or 4-byte typed array. */
export function fillPattern(value: number | ArrayBufferView, action: string): { width: 1 | 2 | 4; bits: number } {
  if (typeof value === "number") {
    if (!Number.isInteger(value) || value < 0 || value > 255) {
      throw new RangeError(`${action}: a number pattern is one byte (an integer 0..255), not ${value}; pass a 2- or 4-byte typed array for wider patterns`);
    }
    return { width: 1, bits: value };
  }
  if (!ArrayBuffer.isView(value)) throw new TypeError(`${action} takes a byte value or a 1/2/4-byte typed array, not ${describeValue(value)}`);
  const dv = new DataView(value.buffer, value.byteOffset, value.byteLength);
  if (value.byteLength === 1) return { width: 1, bits: dv.getUint8(0) };
  if (value.byteLength === 2) return { width: 2, bits: dv.getUint16(0, true) };
  if (value.byteLength === 4) return { width: 4, bits: dv.getUint32(0, true) };
  throw new RangeError(`${action}: a pattern is 1, 2 or 4 bytes, not ${value.byteLength}`);
}

/** The memset node parameters that fill all of `dst` with a pattern. */
export function memsetNodeParams(dst: Buffer, value: number | ArrayBufferView, action: string): CUDA_MEMSET_NODE_PARAMS_st {
  if (!(dst instanceof Buffer)) throw new TypeError(`${action}: the destination must be a Buffer, not ${describeValue(dst)}`);
  const { width, bits } = fillPattern(value, action);
  if (dst.size === 0 || dst.size % width !== 0) {
    throw new RangeError(`${action}: the buffer's ${dst.size} bytes are not a positive multiple of the ${width}-byte pattern`);
  }
  const p = new CUDA_MEMSET_NODE_PARAMS_st();
  p.dst = dst.handle;
  p.value = bits >>> 0;
  p.elementSize = width;
  p.width = dst.size / width;
  p.height = 1;
  return p;
}

/** The memcpy node parameters of a copy of all of `src` to `dst` (equal sizes; buffers or host memory). */
export function memcpyNodeParams(dst: Buffer | HostMemory, src: Buffer | HostMemory, action: string): CUDA_MEMCPY3D_st {
  const d = operand(dst, "destination", action);
  const s = operand(src, "source", action);
  if (d.size !== s.size) throw new RangeError(`${action}: the source holds ${s.size} bytes and the destination ${d.size}; sizes must be equal`);
  if (d.size === 0) throw new RangeError(`${action}: nothing to copy (0 bytes); a graph cannot hold an empty copy`);
  const p = new CUDA_MEMCPY3D_st();
  p.srcMemoryType = s.type;
  if (s.type === CUmemorytype.CU_MEMORYTYPE_HOST) p.srcHost = s.host;
  else p.srcDevice = s.device;
  p.dstMemoryType = d.type;
  if (d.type === CUmemorytype.CU_MEMORYTYPE_HOST) p.dstHost = d.host;
  else p.dstDevice = d.device;
  p.WidthInBytes = d.size;
  p.Height = 1;
  p.Depth = 1;
  return p;
}

interface Operand {
  readonly type: CUmemorytype;
  readonly size: number;
  readonly device: bigint;
  readonly host: ReturnType<typeof ffi.pointerOf> | null;
}

function operand(v: Buffer | HostMemory, which: string, action: string): Operand {
  if (v instanceof Buffer) return { type: CUmemorytype.CU_MEMORYTYPE_DEVICE, size: v.size, device: v.handle, host: null };
  if (v instanceof ArrayBuffer || ArrayBuffer.isView(v)) {
    return { type: CUmemorytype.CU_MEMORYTYPE_HOST, size: v.byteLength, device: 0n, host: v.byteLength === 0 ? null : ffi.pointerOf(v) };
  }
  throw new TypeError(`${action}: the ${which} must be a Buffer, an ArrayBuffer or a typed array, not ${describeValue(v)}`);
}
