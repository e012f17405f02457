/**
 * Launching matmul's kernel for bool and integer dtypes (integer-gemm-source.ts): compiled with NVRTC on first use,
 * once per device and dtype signature, and kept.
 *
 * @module
 */
import type { DeviceArray } from "../device-array.ts";
import type { DType } from "../dtype.ts";
import type { Device } from "../../device.ts";
import type { Kernel } from "../../launch/kernel.ts";
import { launch } from "../../launch/launch.ts";
import type { Stream } from "../../stream.ts";
import { compileKernels, configFor } from "../../kernels/compile.ts";
import { headersFor } from "../../kernels/params.ts";
import { INTEGER_GEMM_BLOCK, integerGemmGrid, integerGemmKernelName, integerGemmLayout, integerGemmSource, type IntegerGemmShape } from "./integer-gemm-source.ts";

const kernels = new Map<string, Kernel>();

function kernelFor(device: Device, a: DType, b: DType, c: DType): Kernel {
  const key = `${device.id}|${a.name}|${b.name}|${c.name}`;
  let k = kernels.get(key);
  if (k === undefined || k.isClosed) {
    const name = integerGemmKernelName(a, b, c);
    [k] = compileKernels(integerGemmSource(a, b, c), [name], device, headersFor([a, b, c]), {}, `${name}.cu`);
    kernels.set(key, k!);
  }
  return k!;
}

/**
 * Queues C = A · B on `stream`: `a`, `b` and `c` are arrays whose first element is element [0, 0, 0] of the operands
 * and the result, read and written through the strides of `shape` (every check was made; nothing is waited for).
 * Nothing is launched for an empty result; a `shape.k` of 0 writes zeros.
 */
export function integerGemm(stream: Stream, a: DeviceArray, b: DeviceArray, c: DeviceArray, shape: IntegerGemmShape): void {
  if (shape.batch === 0 || shape.m === 0 || shape.n === 0) return;
  const k = kernelFor(stream.device, a.dtype, b.dtype, c.dtype);
  launch(stream, configFor(integerGemmGrid(shape), INTEGER_GEMM_BLOCK), k, [a, b, c, integerGemmLayout(shape)]);
}
