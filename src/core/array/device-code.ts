/**
 * The arrays' own device code: a strided copy and a strided fill for each element width (1, 2, 4, 8, 16 bytes),
 * compiled once per architecture with NVRTC (through an in-memory program cache), loaded once, and launched on the
 * caller's stream. Layouts up to {@link MAX_DIMS} axes travel as one struct by value.
 *
 * @module
 */
import type { Device } from "../device.ts";
import { LaunchConfig, launch, type KernelArgument } from "../launch/launch.ts";
import type { Kernel } from "../launch/kernel.ts";
import { Program } from "../program/program.ts";
import { InMemoryProgramCache } from "../program/cache.ts";
import type { ObjectCode } from "../program/object-code.ts";
import type { Stream } from "../stream.ts";
import { ArrayLayoutError } from "./errors.ts";

/** The most axes a strided copy or fill handles (after merging contiguous axes). */
export const MAX_DIMS = 8;

/** Bytes of the layout struct: shape, source strides, destination strides (8 each, in elements) and ndim. */
export const LAYOUT_BYTES = 3 * MAX_DIMS * 8 + 8;

/** The element widths the kernels are instantiated for. */
export const WIDTHS: readonly number[] = [1, 2, 4, 8, 16];

const WIDTH_TYPES: Readonly<Record<number, string>> = { 1: "unsigned char", 2: "unsigned short", 4: "unsigned int", 8: "unsigned long long", 16: "W16" };

/** The CUDA C++ source of the copy and fill kernels (exported for tests). */
export function arrayKernelSource(): string {
  const lines = [
    "struct W16 { unsigned long long lo, hi; };  // 16-byte elements (complex128), moved as two 8-byte halves",
    `struct Layout { long long shape[${MAX_DIMS}]; long long a[${MAX_DIMS}]; long long b[${MAX_DIMS}]; long long ndim; };`,
    "template <typename W>",
    "__device__ __forceinline__ void strided_copy(const W* __restrict__ src, W* __restrict__ dst, unsigned long long n, const Layout& l) {",
    "  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n; i += (unsigned long long)gridDim.x * blockDim.x) {",
    "    unsigned long long rest = i;",
    "    long long so = 0, d = 0;",
    "    for (int k = (int)l.ndim - 1; k >= 0; k--) {",
    "      unsigned long long ext = (unsigned long long)l.shape[k];",
    "      long long idx = (long long)(rest % ext);",
    "      rest /= ext;",
    "      so += idx * l.a[k];",
    "      d += idx * l.b[k];",
    "    }",
    "    dst[d] = src[so];",
    "  }",
    "}",
    "template <typename W>",
    "__device__ __forceinline__ void strided_fill(W* __restrict__ dst, W v, unsigned long long n, const Layout& l) {",
    "  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n; i += (unsigned long long)gridDim.x * blockDim.x) {",
    "    unsigned long long rest = i;",
    "    long long d = 0;",
    "    for (int k = (int)l.ndim - 1; k >= 0; k--) {",
    "      unsigned long long ext = (unsigned long long)l.shape[k];",
    "      d += (long long)(rest % ext) * l.a[k];",
    "      rest /= ext;",
    "    }",
    "    dst[d] = v;",
    "  }",
    "}",
  ];
  for (const w of WIDTHS) {
    const t = WIDTH_TYPES[w]!;
    lines.push(`extern "C" __global__ void cuda_ts_strided_copy_${w}(const ${t}* src, ${t}* dst, unsigned long long n, Layout l) { strided_copy<${t}>(src, dst, n, l); }`);
    lines.push(`extern "C" __global__ void cuda_ts_strided_fill_${w}(${t}* dst, ${t} v, unsigned long long n, Layout l) { strided_fill<${t}>(dst, v, n, l); }`);
  }
  return lines.join("\n") + "\n";
}

/** The cache the arrays' and builders' programs compile through (a hit costs no NVRTC call). */
export const arrayProgramCache: InMemoryProgramCache = new InMemoryProgramCache();

const modules = new Map<string, ObjectCode>();

function moduleFor(device: Device): ObjectCode {
  const arch = device.arch;
  let code = modules.get(arch);
  if (code === undefined || code.isClosed) {
    const program = new Program(arrayKernelSource(), "c++", { arch: `sm_${arch}`, name: "cuda_ts_array_kernels" });
    try {
      code = program.compile("cubin", { cache: arrayProgramCache });
    } finally {
      program.close();
    }
    modules.set(arch, code);
  }
  return code;
}

/** The layout struct's bytes: shape and up to two stride lists (elements). */
export function layoutBytes(shape: readonly number[], a: readonly number[], b: readonly number[] = []): Uint8Array {
  if (shape.length > MAX_DIMS) {
    throw new ArrayLayoutError(`a strided copy or fill handles up to ${MAX_DIMS} axes that are not contiguous with each other; this layout has ${shape.length}: copy it in parts`);
  }
  const bytes = new Uint8Array(LAYOUT_BYTES);
  const dv = new DataView(bytes.buffer);
  shape.forEach((n, k) => {
    dv.setBigInt64(k * 8, BigInt(n), true);
    dv.setBigInt64((MAX_DIMS + k) * 8, BigInt(a[k] ?? 0), true);
    dv.setBigInt64((2 * MAX_DIMS + k) * 8, BigInt(b[k] ?? 0), true);
  });
  dv.setBigInt64(3 * MAX_DIMS * 8, BigInt(shape.length), true);
  return bytes;
}

const configs = new Map<number, LaunchConfig>();

function configFor(device: Device, n: number): LaunchConfig {
  const block = 256;
  const grid = Math.max(1, Math.min(Math.ceil(n / block), device.properties.multiprocessorCount * 8));
  let c = configs.get(grid);
  if (c === undefined) configs.set(grid, (c = new LaunchConfig({ grid, block })));
  return c;
}

function kernel(device: Device, what: "copy" | "fill", width: number): Kernel {
  if (!WIDTHS.includes(width)) throw new ArrayLayoutError(`no strided ${what} for ${width}-byte elements`);
  return moduleFor(device).getKernel(`cuda_ts_strided_${what}_${width}`);
}

/**
 * Copies `n` elements of `width` bytes from the layout (shape, srcStrides) at `src` to (shape, dstStrides) at `dst`
 * (addresses of element [0, ...]), on `stream`.
 */
export function stridedCopy(stream: Stream, width: number, src: bigint, dst: bigint, shape: readonly number[], srcStrides: readonly number[], dstStrides: readonly number[], n: number): void {
  if (n === 0) return;
  const device = stream.device;
  const args: KernelArgument[] = [src, dst, BigInt(n), layoutBytes(shape, srcStrides, dstStrides)];
  launch(stream, configFor(device, n), kernel(device, "copy", width), args);
}

/** Writes `value` (its `width` bytes) into every element of the layout (shape, strides) at `dst`, on `stream`. */
export function stridedFill(stream: Stream, width: number, dst: bigint, value: Uint8Array, shape: readonly number[], strides: readonly number[], n: number): void {
  if (n === 0) return;
  const device = stream.device;
  launch(stream, configFor(device, n), kernel(device, "fill", width), [dst, value, BigInt(n), layoutBytes(shape, strides)]);
}
