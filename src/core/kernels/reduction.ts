/**
 * `ReductionKernel`: a reduction in a few lines, as CuPy's (over all elements):
 *
 * ```ts
 * const sum = new ReductionKernel("T x", "T y", "x", "a + b", "y = a", "0", "sum");
 * const total = sum.launch(stream, x);                 // a 0-d array
 * const [value] = await total.toTypedArray({ stream });
 * const l2 = new ReductionKernel("T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0", "l2norm");
 * ```
 *
 * `map` is evaluated per element (inputs by name, `i` the index), `reduce` combines two partial results `a` and `b`
 * (it must be associative: the order is the GPU's), `post` writes the outputs from the final `a`, `identity` starts
 * every partial result. The partial results have the reduce type (default: the first output's type). Two launches:
 * every block reduces its share into one partial (a grid-stride loop, four elements in flight per thread, then a
 * shared-memory tree), and one block reduces the partials and runs `post`. Grid from the occupancy API.
 *
 * Along axes: `sum.launch(stream, x, { axis: 0 })`, `{ axis: [0, 2], keepdims: true }`, negative axes counting from
 * the end. Then (and for strided or broadcast inputs) one kernel, compiled per rank of the merged kept and reduced
 * layouts: each output element gets a group of threads; when the reduced elements are neighbours in memory (a
 * reduction over the last axes) a group is consecutive threads reading consecutive elements (up to a block per
 * output), otherwise consecutive threads take consecutive outputs (coalesced along the kept axes) and a few threads
 * per output split the reduced range; a shared-memory tree per group, then `post`. Where memory allows, inputs are
 * read in 16-byte packs: a group takes a pack of neighbouring outputs, or steps through neighbouring reduced
 * elements a pack at a time (see {@link AxisShape.packed}). When the outputs are too few to
 * fill the device, each output's reduced range is split into chunks reduced by separate groups, and a second launch
 * combines the chunks' partial results and runs `post`.
 *
 * @module
 */
import type { Device } from "../device.ts";
import { describeValue } from "../../errors/describe.ts";
import { launch, type KernelArgument } from "../launch/launch.ts";
import type { Kernel } from "../launch/kernel.ts";
import type { Stream } from "../stream.ts";
import { takeStream } from "../base/stream-arg.ts";
import { DeviceArray, addressOf, checkWritable, encodeElement, type ArrayScalar } from "../array/device-array.ts";
import { dtypes, DTYPE_NAMES, type DType, type DTypeName } from "../array/dtype.ts";
import { contiguousStrides, elementCount, isContiguous, sameShape } from "../array/layout.ts";
import { ShapeMismatchError } from "../array/errors.ts";
import { broadcastStrides, coalesceAxes, normalizeAxes, reducedShape, type AxisSpec } from "../array/broadcast.ts";
import { u32 } from "../launch/scalars.ts";
import { mayShareMemory } from "../array/ops/overlap.ts";
import { REDUCTION_RESERVED, bindArguments, contiguousCall, checkUnique, headersFor, parseParams, typedefs, type Binding, type BuilderArgument, type KernelParam } from "./params.ts";
import { compileKernels, configFor, includeLines, type BuilderOptions } from "./compile.ts";

/** Options of a reduction builder. */
export interface ReductionOptions extends BuilderOptions {
  /** The type of partial results: a dtype name or a placeholder (default: the first output's type). */
  readonly reduceType?: string;
}

/** Threads per block of both launches (a power of two, for the shared-memory tree). */
export const REDUCTION_BLOCK = 256;

/** What a reduction call may add after its arrays: the axes to reduce and whether to keep them. */
export interface ReductionCallOptions {
  /** The axes reduced: one, several, negative counting from the end (default: every axis). */
  readonly axis?: AxisSpec;
  /** Whether reduced axes stay in the output with extent 1 (default false). */
  readonly keepdims?: boolean;
}

/** A reduction call's arguments: arrays and scalars, then optionally `{ axis, keepdims }`. */
export type ReductionArguments = BuilderArgument[] | [...BuilderArgument[], ReductionCallOptions];

function isCallOptions(v: unknown): v is ReductionCallOptions {
  return typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof DeviceArray);
}

/** What the axis kernel is compiled for: the ranks of its kept and reduced layouts, the index width. */
export interface AxisShape {
  /** Axes of the kept (output) layout after merging (at least 1). */
  readonly keptRank: number;
  /** Axes of the reduced layout after merging (at least 1). */
  readonly reducedRank: number;
  /** Whether output and reduced counts fit 32 bits (indices are decomposed in 32-bit arithmetic then). */
  readonly index32: boolean;
  /**
   * Packed reads (see {@link axisPlan} for when): `"kept"` gives each thread `vec` neighbouring outputs, read as one
   * 16-byte pack per input and reduced element; `"reduced"` reads `vec` neighbouring reduced elements of one output
   * as a pack. Undefined: one element at a time.
   */
  readonly packed?: "kept" | "reduced";
  /** Elements per pack, with `packed`. */
  readonly vec?: number;
}

/** An axis reduction's plan: the shapes, the launch shape, the cache key and the layout argument's bytes. */
export interface AxisPlan extends AxisShape {
  readonly key: string;
  /** Output elements, and elements reduced into each. */
  readonly nOut: number;
  readonly nReduced: number;
  /** Threads per output element (a power of two), outputs per block, and the step between a group's threads. */
  readonly group: number;
  readonly outputsPerBlock: number;
  readonly laneStride: number;
  /**
   * The layout struct by value (int64): kept extents, reduced extents, then per operand (strided inputs, the
   * element index, outputs) its kept strides, then per operand (strided inputs, the index) its reduced strides.
   */
  readonly layout: Uint8Array;
}

const nextPow2 = (n: number): number => (n <= 1 ? 1 : 2 ** Math.ceil(Math.log2(n)));

/**
 * How an axis reduction spreads over a block (exported for tests): `inner` (the reduced elements are the
 * neighbours in memory) gives each output a group of consecutive threads that read consecutive elements; otherwise
 * (the outputs are the neighbours) consecutive threads take consecutive outputs and a few threads per output split
 * the reduced range. Blocks of at most {@link REDUCTION_BLOCK} threads.
 */
export function axisLaunchShape(nOut: number, nReduced: number, inner: boolean): { group: number; outputsPerBlock: number; laneStride: number } {
  const B = REDUCTION_BLOCK;
  let group: number;
  let w: number;
  if (inner) {
    group = Math.min(B, nextPow2(nReduced));
    w = Math.min(B / group, nextPow2(nOut));
  } else {
    w = Math.min(32, nextPow2(nOut));
    group = Math.min(B / w, nextPow2(nReduced));
    w = Math.min(B / group, nextPow2(nOut));
  }
  return { group, outputsPerBlock: w, laneStride: inner ? 1 : w };
}

/**
 * @internal How an axis reduction spreads over the device. Measured on an H100 (bench/results/2026-12-06-h100-array-ops.md),
 * sums of a 16384 x 16384 float32, GB/s over axis 0 / axis 1 (a copy kernel: 3,054):
 * - `blocksPerMultiprocessor`: how many blocks per multiprocessor the outputs must give before each output's range is
 *   split into chunks (see {@link axisChunks}). 2: 2,685 / 2,988; 32: 2,924 / 3,074 (an earlier run); 8, 16 and 64
 *   lost 1% to 3% on axis 0 against 32.
 * - `axisWaves`: the grid's cap, in multiples of the blocks resident at once. 1 (each block looping over ~16 rows):
 *   3,043 / 3,157; 2: 3,051 / 3,161; 4: 3,058 / 3,164; no cap (a block per row, as CUB's segmented reduce): 3,057 /
 *   3,180.
 * - `streaming`: 16-byte packs loaded with the streaming hint (`__ldcs`: each byte is read once). With no cap:
 *   3,070 / 3,181, against 3,052 / 3,178 plain and 3,054 / 3,181 through the read-only path (`__ldg`).
 * Blocks of 128 or 512 threads lost up to 4% on axis 0, and folding each warp by shuffles before the shared-memory
 * tree changed axis 1 by -1% to 0.
 */
export const reductionTuning = { blocksPerMultiprocessor: 32, axisWaves: Number.POSITIVE_INFINITY, streaming: true };

/**
 * Into how many chunks an axis reduction splits each output's reduced range (exported for tests): 1 when the
 * outputs alone give the device at least two blocks per multiprocessor; otherwise enough chunks for that, each of at
 * least 8 steps of its group (a second launch then combines the chunks' partial results).
 */
export function axisChunks(nOut: number, nReduced: number, group: number, outputsPerBlock: number, multiprocessors: number): number {
  const blocks = Math.ceil(nOut / outputsPerBlock);
  const target = reductionTuning.blocksPerMultiprocessor * multiprocessors;
  if (blocks >= target) return 1;
  return Math.max(1, Math.min(Math.ceil(target / blocks), Math.floor(nReduced / (group * 8)), 4096));
}

/**
 * The plan of a reduction over `axes` of inputs broadcast to `shape` (exported for tests: no GPU needed). Each array
 * input is read through its strides in `shape`; its kept and reduced axes are merged separately.
 */
export function axisPlan(
  params: readonly KernelParam[],
  args: readonly (BuilderArgument | undefined)[],
  binding: Binding,
  shape: readonly number[],
  axes: readonly number[],
  keepdims: boolean,
  outputs: readonly DeviceArray[],
): AxisPlan {
  const reducedSet = new Set(axes);
  const kept = shape.map((_, d) => d).filter((d) => !reducedSet.has(d));
  const inLists: number[][] = [];
  params.forEach((p, k) => {
    const a = args[k];
    if (!p.output && a instanceof DeviceArray && !p.raw && !binding.scalar[k]) inLists.push(broadcastStrides(a.shape, a.strides, shape));
  });
  const index = contiguousStrides(shape);
  const outLists = outputs.map((o) => kept.map((d, j) => o.strides[keepdims ? d : j]!));
  const keptMerged = coalesceAxes(
    kept.map((d) => shape[d]!),
    [...inLists.map((l) => kept.map((d) => l[d]!)), kept.map((d) => index[d]!), ...outLists],
  );
  const redMerged = coalesceAxes(
    axes.map((d) => shape[d]!),
    [...inLists.map((l) => axes.map((d) => l[d]!)), axes.map((d) => index[d]!)],
  );
  const pad = (m: { shape: number[]; strides: number[][] }): { shape: number[]; strides: number[][] } =>
    m.shape.length > 0 ? m : { shape: [1], strides: m.strides.map(() => [0]) };
  const k = pad(keptMerged);
  const r = pad(redMerged);
  const nOut = elementCount(k.shape);
  const nReduced = elementCount(r.shape);
  // Which walk is along memory: compare the first input's innermost reduced and kept strides.
  const innerR = Math.abs(r.strides[0]!.at(-1)!);
  const innerK = Math.abs(k.strides[0]!.at(-1)!);
  const inner = nOut === 1 || (nReduced > 1 && innerR !== 0 && (innerK === 0 || innerR <= innerK));
  const packing = axisPacking(params, args, binding, k, r, inLists.length, inner);
  const values = [...k.shape, ...r.shape, ...k.strides.flat(), ...r.strides.flat()];
  const layout = new Uint8Array(8 * values.length);
  const dv = new DataView(layout.buffer);
  values.forEach((v, j) => dv.setBigInt64(8 * j, BigInt(v), true));
  const index32 = nOut <= 0xffff_ffff && nReduced <= 0xffff_ffff;
  const keptRank = k.shape.length;
  const reducedRank = r.shape.length;
  const vec = packing?.vec ?? 1;
  return {
    keptRank,
    reducedRank,
    index32,
    key: `axis${keptRank}x${reducedRank}:${index32 ? "u32" : "u64"}${packing === undefined ? "" : `:${packing.packed}${vec}`}`,
    nOut,
    nReduced,
    ...axisLaunchShape(packing?.packed === "kept" ? nOut / vec : nOut, packing?.packed === "reduced" ? nReduced / vec : nReduced, inner),
    layout,
    ...packing,
  };
}

/**
 * Whether an axis reduction reads its array inputs in 16-byte packs, and along which side: the neighbours in memory
 * of every array input (and of the element index, which `map` may use) must be the outputs' innermost axis
 * (`"kept"`, when the outputs are the neighbours) or the reduced innermost axis (`"reduced"`), with stride 1, an
 * extent that is a multiple of the pack, every other stride a multiple of it, and each input's address aligned to
 * its pack.
 */
function axisPacking(
  params: readonly KernelParam[],
  args: readonly (BuilderArgument | undefined)[],
  binding: Binding,
  k: { shape: number[]; strides: number[][] },
  r: { shape: number[]; strides: number[][] },
  walked: number,
  inner: boolean,
): { packed: "kept" | "reduced"; vec: number } | undefined {
  let widest = 0;
  const arrays: DeviceArray[] = [];
  params.forEach((p, j) => {
    const a = args[j];
    if (!p.output && a instanceof DeviceArray && !p.raw && !binding.scalar[j]) {
      widest = Math.max(widest, a.itemsize);
      arrays.push(a);
    }
  });
  if (widest === 0 || widest > 8 || arrays.length !== walked) return undefined;
  const vec = 16 / widest;
  const along = inner ? r : k;
  const across = inner ? k : r;
  const last = along.shape.length - 1;
  if (along.shape[last]! % vec !== 0) return undefined;
  // Each input, then the element index: stride 1 along the packed axis, multiples of the pack elsewhere.
  for (let j = 0; j <= walked; j++) {
    if (along.strides[j]![last] !== 1) return undefined;
    if (j === walked) break;
    if (along.strides[j]!.some((st, d) => d !== last && st % vec !== 0)) return undefined;
    if (across.strides[j]!.some((st) => st % vec !== 0)) return undefined;
    if (addressOf(arrays[j]!) % (arrays[j]!.itemsize * vec) !== 0) return undefined;
  }
  return { packed: inner ? "reduced" : "kept", vec };
}

interface Instance {
  readonly partial: Kernel;
  readonly final: Kernel;
  readonly maxGrid: number;
  readonly reduceType: DType;
}

const IDENT = /^[A-Za-z_]\w*$/;

/** The source of one instantiation (exported for tests: no GPU needed). */
export function reductionSource(
  name: string,
  params: readonly KernelParam[],
  binding: Binding,
  exprs: { readonly map: string; readonly reduce: string; readonly post: string; readonly identity: string },
  reduceType: DType,
  preamble = "",
): string {
  const R = reduceType.ctype;
  const lines = [...includeLines(headersFor([...binding.dtypes, reduceType])), ...typedefs(binding.types), `typedef ${R} _type_reduce;`, preamble];
  const ins = params.map((p, k) => ({ p, k })).filter(({ p }) => !p.output);
  const outs = params.map((p, k) => ({ p, k })).filter(({ p }) => p.output);
  // map(x, ..., i): each input's element (or scalar, or raw pointer) by name.
  const mapParams = ins.map(({ p, k }) => (p.raw ? `const ${binding.dtypes[k]!.ctype}* __restrict__ ${p.name}` : `const ${binding.dtypes[k]!.ctype} ${p.name}`));
  lines.push(
    `__device__ __forceinline__ _type_reduce _map(${[...mapParams, "const unsigned long long i"].join(", ")}) { return _type_reduce(${exprs.map}); }`,
    `__device__ __forceinline__ _type_reduce _reduce(const _type_reduce a, const _type_reduce b) { return _type_reduce(${exprs.reduce}); }`,
    "__device__ __forceinline__ _type_reduce _identity() { return _type_reduce(" + exprs.identity + "); }",
    "__device__ __forceinline__ _type_reduce _block_reduce(_type_reduce v, _type_reduce* s) {",
    "  s[threadIdx.x] = v;",
    "  __syncthreads();",
    "  for (unsigned int o = blockDim.x / 2; o > 0; o >>= 1) {",
    "    if (threadIdx.x < o) s[threadIdx.x] = _reduce(s[threadIdx.x], s[threadIdx.x + o]);",
    "    __syncthreads();",
    "  }",
    "  return s[0];",
    "}",
  );
  const inDecl = ins.map(({ p, k }) => {
    const t = binding.dtypes[k]!.ctype;
    if (p.raw) return `const ${t}* __restrict__ ${p.name}`;
    if (binding.scalar[k]) return `const ${t} ${p.name}`;
    return `const ${t}* __restrict__ _p_${p.name}`;
  });
  const mapArgs = (j: string): string => [...ins.map(({ p, k }) => (p.raw || binding.scalar[k] ? p.name : `_p_${p.name}[${j}]`)), j].join(", ");
  lines.push(
    `extern "C" __global__ void ${name}_partial(${[...inDecl, "_type_reduce* __restrict__ _partial", "const unsigned long long _n"].join(", ")}) {`,
    "  extern __shared__ unsigned char _smem_raw[];",
    "  _type_reduce* _smem = reinterpret_cast<_type_reduce*>(_smem_raw);",
    "  _type_reduce _acc = _identity();",
    "  const unsigned long long _stride = (unsigned long long)gridDim.x * blockDim.x;",
    "  unsigned long long _i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;",
    "  for (; _i + 3 * _stride < _n; _i += 4 * _stride) {",
    `    const _type_reduce _m0 = _map(${mapArgs("_i")});`,
    `    const _type_reduce _m1 = _map(${mapArgs("_i + _stride")});`,
    `    const _type_reduce _m2 = _map(${mapArgs("_i + 2 * _stride")});`,
    `    const _type_reduce _m3 = _map(${mapArgs("_i + 3 * _stride")});`,
    "    _acc = _reduce(_acc, _reduce(_reduce(_m0, _m1), _reduce(_m2, _m3)));",
    "  }",
    `  for (; _i < _n; _i += _stride) _acc = _reduce(_acc, _map(${mapArgs("_i")}));`,
    "  _acc = _block_reduce(_acc, _smem);",
    "  if (threadIdx.x == 0) _partial[blockIdx.x] = _acc;",
    "}",
  );
  const outDecl = outs.map(({ p, k }) => `${binding.dtypes[k]!.ctype}* __restrict__ _p_${p.name}`);
  const outRefs = outs.map(({ p, k }) => `    ${binding.dtypes[k]!.ctype}& ${p.name} = _p_${p.name}[0];`);
  lines.push(
    `extern "C" __global__ void ${name}_final(${["const _type_reduce* __restrict__ _partial", "const unsigned long long _count", ...outDecl].join(", ")}) {`,
    "  extern __shared__ unsigned char _smem_raw[];",
    "  _type_reduce* _smem = reinterpret_cast<_type_reduce*>(_smem_raw);",
    "  _type_reduce _acc = _identity();",
    "  for (unsigned long long _j = threadIdx.x; _j < _count; _j += blockDim.x) _acc = _reduce(_acc, _partial[_j]);",
    "  _acc = _block_reduce(_acc, _smem);",
    "  if (threadIdx.x == 0) {",
    "    const _type_reduce a = _acc;",
    ...outRefs,
    `    ${exprs.post.trim().replace(/;?$/, ";")}`,
    "  }",
    "}",
  );
  return lines.filter((l) => l !== "").join("\n") + "\n";
}

/**
 * The source of the axis kernel `<name>_axis` (exported for tests: no GPU needed). Groups of threads reduce one
 * output element each (the kept index decomposed over the kept layout, the reduced index over the reduced layout,
 * both passed by value, so one kernel serves every shape of its ranks), then a shared-memory tree per group, then
 * `post` writes the output through its strides. In `map`, `i` is the element's row-major index in the inputs'
 * broadcast shape.
 */
export function reductionAxisSource(
  name: string,
  params: readonly KernelParam[],
  binding: Binding,
  exprs: { readonly map: string; readonly reduce: string; readonly post: string; readonly identity: string },
  reduceType: DType,
  plan: AxisShape,
  preamble = "",
): string {
  const common = reductionSource(name, params, binding, exprs, reduceType, preamble);
  // The device functions (map, reduce, identity, block tree) of the whole-array source, without its kernels.
  const prelude = common.slice(0, common.indexOf('extern "C"'));
  const ins = params.map((p, k) => ({ p, k })).filter(({ p }) => !p.output);
  const outs = params.map((p, k) => ({ p, k })).filter(({ p }) => p.output);
  const walked = ins.filter(({ p, k }) => !p.raw && !binding.scalar[k]);
  const J = walked.length + 1 + outs.length; // strided inputs, the index, outputs
  const JR = walked.length + 1;
  const KR = plan.keptRank;
  const RR = plan.reducedRank;
  const IDX = plan.index32 ? "unsigned int" : "unsigned long long";
  const inDecl = ins.map(({ p, k }) => {
    const t = binding.dtypes[k]!.ctype;
    if (p.raw) return `const ${t}* __restrict__ ${p.name}`;
    if (binding.scalar[k]) return `const ${t} ${p.name}`;
    return `const ${t}* __restrict__ _p_${p.name}`;
  });
  const outDecl = outs.map(({ p, k }) => `${binding.dtypes[k]!.ctype}* __restrict__ _p_${p.name}`);
  const slot = (p: KernelParam): number => walked.findIndex((w) => w.p === p);
  const mapArgs = [...ins.map(({ p, k }) => (p.raw || binding.scalar[k] ? p.name : `_p_${p.name}[_ko${slot(p)} + _ro${slot(p)}]`)), "i"].join(", ");
  /** Decomposes `v` over `shape` (rank n) into offsets `prefix<j>` of lists `lists` (j from 0 to count - 1). */
  const decompose = (indent: string, v: string, n: number, shapeField: string, strideField: string, prefix: string, count: number): string[] => {
    const js = [...Array(count).keys()];
    return [
      `${indent}${IDX} _q = (${IDX})${v};`,
      "#pragma unroll",
      `${indent}for (int _k = ${n - 1}; _k > 0; --_k) {`,
      `${indent}  const ${IDX} _e = (${IDX})_l.${shapeField}[_k];`,
      `${indent}  const ${IDX} _u = _q / _e;`,
      `${indent}  const long long _d = (long long)(_q - _u * _e);`,
      `${indent}  _q = _u;`,
      ...js.map((j) => `${indent}  ${prefix}${j} += _d * _l.${strideField}[${j}][_k];`),
      `${indent}}`,
      ...js.map((j) => `${indent}${prefix}${j} += (long long)_q * _l.${strideField}[${j}][0];`),
    ];
  };
  /** `const _type_reduce <into> = _map(...)` of the reduced element `r` of the current output. */
  const mapOne = (indent: string, r: string, into: string): string[] => [
    `${indent}_type_reduce ${into};`,
    `${indent}{`,
    `${indent}  long long ${[...Array(JR).keys()].map((j) => `_ro${j} = 0`).join(", ")};`,
    ...decompose(`${indent}  `, `(${r})`, RR, "rshape", "rs", "_ro", JR),
    `${indent}  const unsigned long long i = (unsigned long long)(_ko${walked.length} + _ro${walked.length});`,
    `${indent}  ${into} = _map(${mapArgs});`,
    `${indent}}`,
  ];
  const layoutStruct = `struct _rd_layout { long long kshape[${KR}]; long long rshape[${RR}]; long long ks[${J}][${KR}]; long long rs[${JR}][${RR}]; };`;
  const finalKernel = [
    // The second pass of a split reduction: a thread per output combines its chunks' partial results, then post.
    `extern "C" __global__ void ${name}_axis_final(${["const _type_reduce* __restrict__ _partial", ...outDecl, "const unsigned long long _nout", "const unsigned long long _chunks", "const _rd_layout _l"].join(", ")}) {`,
    "  for (unsigned long long _o = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; _o < _nout; _o += (unsigned long long)gridDim.x * blockDim.x) {",
    "    _type_reduce _acc = _identity();",
    "    for (unsigned long long _c = 0; _c < _chunks; _c++) _acc = _reduce(_acc, _partial[_c * _nout + _o]);",
    `    long long ${[...Array(J).keys()].map((j) => `_ko${j} = 0`).join(", ")};`,
    "    {",
    ...decompose("      ", "_o", KR, "kshape", "ks", "_ko", J),
    "    }",
    "    const _type_reduce a = _acc;",
    ...outs.map(({ p, k }, j) => `    ${binding.dtypes[k]!.ctype}& ${p.name} = _p_${p.name}[_ko${walked.length + 1 + j}];`),
    `    ${exprs.post.trim().replace(/;?$/, ";")}`,
    "  }",
    "}",
  ];
  const signature = `extern "C" __global__ void ${name}_axis(${[...inDecl, ...outDecl, "const unsigned long long _nout", "const unsigned long long _nred", "const unsigned int _g", "const unsigned int _ls", "const unsigned long long _chunks", "_type_reduce* __restrict__ _partial", "const _rd_layout _l"].join(", ")}) {`;
  if (plan.packed !== undefined) {
    const packs = walked.map(({ p, k }) => `struct __align__(sizeof(${binding.dtypes[k]!.ctype}) * ${plan.vec}) _pk_${p.name} { ${binding.dtypes[k]!.ctype} v[${plan.vec}]; };`);
    // 16-byte packs through the streaming cache hint where tuned so (see reductionTuning).
    packs.push(
      "template <typename P> __device__ __forceinline__ P _rd_load(const P* p) {",
      ...(reductionTuning.streaming ? ["  if (sizeof(P) == 16 && alignof(P) == 16) { P r; *reinterpret_cast<uint4*>(&r) = __ldcs(reinterpret_cast<const uint4*>(p)); return r; }"] : []),
      "  return *p;",
      "}",
    );
    const body = packedAxisBody({ walked: walked.map(({ p }) => p.name), ins: ins.map(({ p, k }) => ({ name: p.name, walked: !p.raw && !binding.scalar[k] })), outs: outs.map(({ p, k }) => ({ name: p.name, ctype: binding.dtypes[k]!.ctype })), post: exprs.post, packed: plan.packed, vec: plan.vec!, J, JR, KR, RR, decompose });
    return [prelude.trimEnd(), layoutStruct, ...packs, signature, ...body, ...finalKernel].join("\n") + "\n";
  }
  const lines = [
    prelude.trimEnd(),
    layoutStruct,
    signature,
    ...AXIS_GROUP_PROLOGUE,
    // With _chunks > 1 the reduced range is split: item _v reduces chunk _v / _nout of output _v % _nout into _partial[_v].
    "  const unsigned long long _nv = _nout * _chunks;",
    "  const unsigned long long _len = (_nred + _chunks - 1) / _chunks;",
    "  for (unsigned long long _base = (unsigned long long)blockIdx.x * _w; _base < _nv; _base += (unsigned long long)gridDim.x * _w) {",
    "    const unsigned long long _v = _base + _slot;",
    "    const unsigned long long _o = _v % _nout;",
    "    const unsigned long long _lo = (_v / _nout) * _len;",
    "    const unsigned long long _hi = _lo + _len < _nred ? _lo + _len : _nred;",
    "    _type_reduce _acc = _identity();",
    `    long long ${[...Array(J).keys()].map((j) => `_ko${j} = 0`).join(", ")};`,
    "    if (_v < _nv) {",
    "      {",
    ...decompose("        ", "_o", KR, "kshape", "ks", "_ko", J),
    "      }",
    // Four elements per thread per step, their loads issued before any reduce (more loads in flight), then the rest.
    "      unsigned long long _rr = _lo + _lane;",
    "      for (; _rr + 3ull * _g < _hi; _rr += 4ull * _g) {",
    ...[0, 1, 2, 3].flatMap((u) => mapOne("        ", u === 0 ? "_rr" : `_rr + ${u}ull * _g`, `_m${u}`)),
    "        _acc = _reduce(_acc, _reduce(_reduce(_m0, _m1), _reduce(_m2, _m3)));",
    "      }",
    "      for (; _rr < _hi; _rr += _g) {",
    ...mapOne("        ", "_rr", "_m"),
    "        _acc = _reduce(_acc, _m);",
    "      }",
    "    }",
    ...groupTreeTail([
      ...outs.map(({ p, k }, j) => `        ${binding.dtypes[k]!.ctype}& ${p.name} = _p_${p.name}[_ko${walked.length + 1 + j}];`),
      `        ${exprs.post.trim().replace(/;?$/, ";")}`,
    ]),
    "    __syncthreads();",
    "  }",
    "}",
    ...finalKernel,
  ];
  return lines.join("\n") + "\n";
}

/** The axis kernels' first lines: shared memory, and where a thread sits (its group's lane, its slot among groups). */
const AXIS_GROUP_PROLOGUE = [
  "  extern __shared__ unsigned char _smem_raw[];",
  "  _type_reduce* _smem = reinterpret_cast<_type_reduce*>(_smem_raw);",
  "  const unsigned int _t = threadIdx.x;",
  "  const unsigned int _w = blockDim.x / _g;",
  "  const unsigned int _lane = _ls == 1 ? _t % _g : _t / _w;",
  "  const unsigned int _slot = _ls == 1 ? _t / _g : _t % _w;",
];

/**
 * The end of an item with one accumulator per thread: the group's shared-memory tree, then by the group's first
 * lane the partial result (split ranges) or `writeOutput` (lines that take the result as `a`).
 */
function groupTreeTail(writeOutput: readonly string[]): string[] {
  return [
    "    _smem[_t] = _acc;",
    "    __syncthreads();",
    "    for (unsigned int _off = _g >> 1; _off > 0; _off >>= 1) {",
    "      if (_lane < _off) _smem[_t] = _reduce(_smem[_t], _smem[_t + _off * _ls]);",
    "      __syncthreads();",
    "    }",
    "    if (_lane == 0 && _v < _nv) {",
    "      const _type_reduce a = _smem[_t];",
    "      if (_chunks > 1) {",
    "        _partial[_v] = a;",
    "      } else {",
    ...writeOutput,
    "      }",
    "    }",
  ];
}

/** What {@link packedAxisBody} writes the packed axis kernel from. */
interface PackedAxisParts {
  /** The array inputs read through strides (in the layout's order). */
  readonly walked: readonly string[];
  /** Every input in `map`'s order, and whether it is such an array (else a scalar or raw pointer, passed by name). */
  readonly ins: readonly { readonly name: string; readonly walked: boolean }[];
  readonly outs: readonly { readonly name: string; readonly ctype: string }[];
  readonly post: string;
  readonly packed: "kept" | "reduced";
  readonly vec: number;
  /** Offsets per kept index (inputs, the index, outputs) and per reduced index (inputs, the index); the ranks. */
  readonly J: number;
  readonly JR: number;
  readonly KR: number;
  readonly RR: number;
  readonly decompose: (indent: string, v: string, n: number, shapeField: string, strideField: string, prefix: string, count: number) => string[];
}

/**
 * The body of the packed axis kernel (after its signature; see {@link AxisShape.packed}). With `"kept"`, an item is
 * a pack of `vec` neighbouring outputs: each step reads one pack per input and keeps `vec` accumulators, which the
 * group's tree combines in shared memory laid out accumulator by accumulator (`_smem[k * blockDim.x + t]`). With
 * `"reduced"`, an item is one output whose group steps through its reduced range a pack at a time (chunks are whole
 * packs). Four packs per thread per step, their loads issued before any reduce.
 */
function packedAxisBody(x: PackedAxisParts): string[] {
  const V = x.vec;
  const kept = x.packed === "kept";
  const W = x.walked.length;
  const ro = [...Array(x.JR).keys()];
  /** The loads of pack `u` at reduced element `r`: each input's pack, and the index of the pack's first element. */
  const loads = (indent: string, r: string, u: number): string[] => [
    `${indent}unsigned long long _ib${u};`,
    ...x.walked.map((w) => `${indent}_pk_${w} _px${u}_${w};`),
    `${indent}{`,
    `${indent}  long long ${ro.map((j) => `_ro${j} = 0`).join(", ")};`,
    ...x.decompose(`${indent}  `, `(${r})`, x.RR, "rshape", "rs", "_ro", x.JR),
    `${indent}  _ib${u} = (unsigned long long)(_ko${W} + _ro${W});`,
    ...x.walked.map((w, j) => `${indent}  _px${u}_${w} = _rd_load(reinterpret_cast<const _pk_${w}*>(_p_${w} + _ko${j} + _ro${j}));`),
    `${indent}}`,
  ];
  /** `map` of element `e` of pack `u`. */
  const mapped = (u: number, e: string): string => `_map(${[...x.ins.map((i) => (i.walked ? `_px${u}_${i.name}.v[${e}]` : i.name)), `_ib${u} + ${e}`].join(", ")})`;
  const fold = (indent: string, u: number): string[] =>
    kept
      ? [`${indent}#pragma unroll`, `${indent}for (int _e = 0; _e < ${V}; ++_e) _acc[_e] = _reduce(_acc[_e], ${mapped(u, "_e")});`]
      : [`${indent}#pragma unroll`, `${indent}for (int _e = 0; _e < ${V}; ++_e) _acc = _reduce(_acc, ${mapped(u, "_e")});`];
  const step = (indent: string, rs: readonly string[]): string[] => [...rs.flatMap((r, u) => loads(indent, r, u)), ...rs.flatMap((_, u) => fold(indent, u))];
  // The reduced position of a step: an element (kept) or a pack's first element (reduced).
  const at = (u: number): string => (kept ? (u === 0 ? "_rr" : `_rr + ${u}ull * _g`) : u === 0 ? `_rr * ${V}ull` : `(_rr + ${u}ull * _g) * ${V}ull`);
  const outputs = (indent: string, e: string): string[] => [
    ...x.outs.map((o, j) => `${indent}${o.ctype}& ${o.name} = _p_${o.name}[_ko${W + 1 + j}${kept ? ` + (long long)${e} * _l.ks[${W + 1 + j}][${x.KR - 1}]` : ""}];`),
    `${indent}${x.post.trim().replace(/;?$/, ";")}`,
  ];
  return [
    ...AXIS_GROUP_PROLOGUE,
    kept ? `  const unsigned long long _items = _nout / ${V};` : "  const unsigned long long _items = _nout;",
    "  const unsigned long long _nv = _items * _chunks;",
    // A chunk's length in elements (whole packs when the reduced side is packed).
    kept ? "  const unsigned long long _len = (_nred + _chunks - 1) / _chunks;" : `  const unsigned long long _len = ((_nred + _chunks - 1) / _chunks + ${V - 1}) / ${V} * ${V};`,
    "  for (unsigned long long _base = (unsigned long long)blockIdx.x * _w; _base < _nv; _base += (unsigned long long)gridDim.x * _w) {",
    "    const unsigned long long _v = _base + _slot;",
    `    const unsigned long long _o = (_v % _items)${kept ? ` * ${V}` : ""};`,
    "    const unsigned long long _chunk = _v / _items;",
    "    const unsigned long long _lo = _chunk * _len;",
    "    const unsigned long long _hi = _lo + _len < _nred ? _lo + _len : _nred;",
    kept ? `    _type_reduce _acc[${V}];` : "    _type_reduce _acc = _identity();",
    ...(kept ? ["#pragma unroll", `    for (int _e = 0; _e < ${V}; ++_e) _acc[_e] = _identity();`] : []),
    `    long long ${[...Array(x.J).keys()].map((j) => `_ko${j} = 0`).join(", ")};`,
    "    if (_v < _nv) {",
    "      {",
    ...x.decompose("        ", "_o", x.KR, "kshape", "ks", "_ko", x.J),
    "      }",
    kept ? "      unsigned long long _rr = _lo + _lane;" : `      unsigned long long _rr = _lo / ${V} + _lane;`,
    kept ? "      const unsigned long long _end = _hi;" : `      const unsigned long long _end = _hi / ${V};`,
    "      for (; _rr + 3ull * _g < _end; _rr += 4ull * _g) {",
    ...step("        ", [0, 1, 2, 3].map(at)),
    "      }",
    "      for (; _rr < _end; _rr += _g) {",
    ...step("        ", [at(0)]),
    "      }",
    "    }",
    ...(kept
      ? [
          "#pragma unroll",
          `    for (int _e = 0; _e < ${V}; ++_e) _smem[_e * blockDim.x + _t] = _acc[_e];`,
          "    __syncthreads();",
          "    for (unsigned int _off = _g >> 1; _off > 0; _off >>= 1) {",
          "      if (_lane < _off) {",
          "#pragma unroll",
          `        for (int _e = 0; _e < ${V}; ++_e) _smem[_e * blockDim.x + _t] = _reduce(_smem[_e * blockDim.x + _t], _smem[_e * blockDim.x + _t + _off * _ls]);`,
          "      }",
          "      __syncthreads();",
          "    }",
          "    if (_lane == 0 && _v < _nv) {",
          `      for (int _e = 0; _e < ${V}; ++_e) {`,
          "        const _type_reduce a = _smem[_e * blockDim.x + _t];",
          "        if (_chunks > 1) {",
          "          _partial[_chunk * _nout + _o + _e] = a;",
          "        } else {",
          ...outputs("          ", "_e"),
          "        }",
          "      }",
          "    }",
        ]
      : groupTreeTail(outputs("        ", "0"))),
    "    __syncthreads();",
    "  }",
    "}",
  ];
}

/** A reduction kernel builder (CuPy's ReductionKernel: over every axis, or over the axes a call names). */
export class ReductionKernel {
  readonly name: string;
  /** The inputs, then the outputs. */
  readonly params: readonly KernelParam[];
  readonly mapExpr: string;
  readonly reduceExpr: string;
  readonly postMapExpr: string;
  readonly identity: string;
  readonly #options: ReductionOptions;
  readonly #inputs: number;
  readonly #instances = new Map<string, Instance>();
  readonly #axisInstances = new Map<string, { readonly kernel: Kernel; readonly final: Kernel; readonly maxGrid: number; readonly reduceType: DType }>();

  /**
   * @param inParams - inputs, "T x"
   * @param outParams - outputs (0-d arrays), "T y"
   * @param mapExpr - per element, "x" or "x * x"
   * @param reduceExpr - combines `a` and `b`, "a + b" or "max(a, b)"
   * @param postMapExpr - writes the outputs from the result `a`, "y = a"
   * @param identity - the start value, "0"
   * @param name - an identifier
   */
  constructor(inParams: string, outParams: string, mapExpr: string, reduceExpr: string, postMapExpr: string, identity: string, name: string, options: ReductionOptions = {}) {
    if (typeof name !== "string" || !IDENT.test(name)) throw new SyntaxError(`ReductionKernel: the name must be an identifier, got ${describeValue(name)}`);
    for (const [what, v] of [["mapExpr", mapExpr], ["reduceExpr", reduceExpr], ["postMapExpr", postMapExpr], ["identity", identity]] as const) {
      if (typeof v !== "string" || v.trim() === "") throw new SyntaxError(`${name}: ${what} is empty`);
    }
    const ins = parseParams(inParams, false, `${name}: in_params`, REDUCTION_RESERVED);
    const outs = parseParams(outParams, true, `${name}: out_params`, REDUCTION_RESERVED);
    if (ins.length === 0) throw new SyntaxError(`${name}: a reduction needs at least one input`);
    if (outs.length === 0) throw new SyntaxError(`${name}: a reduction needs at least one output`);
    for (const o of outs) if (o.raw) throw new SyntaxError(`${name}: output ${o.name} cannot be raw`);
    this.params = Object.freeze([...ins, ...outs]);
    checkUnique(this.params);
    this.#inputs = ins.length;
    const rt = options.reduceType;
    if (rt !== undefined && (typeof rt !== "string" || !IDENT.test(rt))) throw new SyntaxError(`${name}: reduceType must be a dtype name or a placeholder, got ${describeValue(rt)}`);
    this.name = name;
    this.mapExpr = mapExpr;
    this.reduceExpr = reduceExpr;
    this.postMapExpr = postMapExpr;
    this.identity = identity;
    this.#options = options;
  }

  #reduceType(binding: Binding): DType {
    const rt = this.#options.reduceType ?? this.params[this.#inputs]!.type;
    if ((DTYPE_NAMES as readonly string[]).includes(rt)) return dtypes[rt as DTypeName];
    const t = binding.types.get(rt);
    if (t === undefined) throw new SyntaxError(`${this.name}: the reduce type ${rt} is neither a dtype nor a placeholder of the parameters`);
    return t;
  }

  /** The generated source for a binding (for inspection). */
  source(binding: Binding): string {
    return reductionSource(
      this.name,
      this.params,
      binding,
      { map: this.mapExpr, reduce: this.reduceExpr, post: this.postMapExpr, identity: this.identity },
      this.#reduceType(binding),
      this.#options.preamble,
    );
  }

  /**
   * Reduces the inputs on `stream` into the outputs, returned (the list of outputs when there are several). Without
   * options, or with `axis` naming every axis, over every element: the outputs are 0-d (allocated when not given; a
   * given one must hold one element). With `{ axis, keepdims }` as the last argument, over those axes only
   * (negative counting from the end): the outputs have the input shape without them (with extent 1 there when
   * `keepdims`), allocated when not given, a given one of exactly that shape (any strides). Inputs broadcast
   * together (NumPy's rules) and may be any views. AxisError for an axis out of range.
   */
  launch(stream: Stream, ...args: ReductionArguments): DeviceArray | DeviceArray[] {
    const s = takeStream(stream, `${this.name}.launch`);
    let options: ReductionCallOptions = {};
    let list = args as readonly (BuilderArgument | ReductionCallOptions)[];
    if (list.length > 0 && isCallOptions(list[list.length - 1])) {
      options = list[list.length - 1] as ReductionCallOptions;
      list = list.slice(0, -1);
    }
    const total = this.params.length;
    if (list.length < this.#inputs || list.length > total) {
      throw new TypeError(`${this.name} takes ${this.#inputs} input${this.#inputs === 1 ? "" : "s"} and up to ${total - this.#inputs} output${total - this.#inputs === 1 ? "" : "s"}, ${list.length} given`);
    }
    for (let k = this.#inputs; k < list.length; k++) {
      const o = list[k];
      if (o instanceof DeviceArray) checkWritable(o, `${this.name}.launch: output ${k - this.#inputs}`);
    }
    const keepdims = options.keepdims ?? false;
    if (typeof keepdims !== "boolean") throw new TypeError(`${this.name}: keepdims is a boolean, got ${describeValue(keepdims)}`);
    const device = s.device;
    const padded = [...list] as (BuilderArgument | undefined)[];
    while (padded.length < total) padded.push(undefined);
    // Inputs broadcast together and give the shape; outputs are bound for their dtypes only (shapes checked here).
    const inputBinding = bindArguments(this.name, this.params.slice(0, this.#inputs), padded.slice(0, this.#inputs), device.id);
    const shape = inputBinding.shape;
    if (shape === undefined) throw new TypeError(`${this.name}: no input array was passed`);
    const axes = normalizeAxes(options.axis, shape.length, this.name);
    const outShape = reducedShape(shape, axes, keepdims);
    const whole = axes.length === shape.length && contiguousCall(this.params.slice(0, this.#inputs), padded, shape);
    const outGiven = padded.slice(this.#inputs);
    outGiven.forEach((o, j) => {
      if (!(o instanceof DeviceArray)) return;
      const what = `${this.name}: output ${this.params[this.#inputs + j]!.name}`;
      if (whole && o.size !== 1) throw new ShapeMismatchError(`${what} must hold one element, but has shape [${o.shape.join(", ")}]`);
      if (!whole && !sameShape(o.shape, outShape)) {
        throw new ShapeMismatchError(`${what} has shape [${o.shape.join(", ")}] but reducing [${shape.join(", ")}] over axes [${axes.join(", ")}]${keepdims ? " (keepdims)" : ""} gives [${outShape.join(", ")}]`);
      }
    });
    const outBinding = bindArguments(this.name, this.params.slice(this.#inputs), outGiven, device.id, inputBinding.types, false);
    const binding: Binding = {
      types: outBinding.types,
      dtypes: [...inputBinding.dtypes, ...outBinding.dtypes],
      scalar: [...inputBinding.scalar, ...outBinding.scalar],
      shape,
      key: `${inputBinding.key}|${outBinding.key}`,
    };
    const outputs: DeviceArray[] = [];
    // What the kernels write: each output, or in its place a temporary when it overlaps an input (below).
    const written: DeviceArray[] = [];
    let staged: [temp: DeviceArray, out: DeviceArray][] | undefined;
    const inArgs: KernelArgument[] = [];
    const outArgs: KernelArgument[] = [];
    const inputArrays = padded.slice(0, this.#inputs).filter((a): a is DeviceArray => a instanceof DeviceArray);
    this.params.forEach((p, k) => {
      let a = padded[k];
      if (p.output) {
        if (a === undefined) a = DeviceArray.empty(outShape, binding.dtypes[k]!, { stream: s });
        let target = a as DeviceArray;
        // The axis kernel writes an output while other threads may still read the inputs (sum(m, { axis: 1, out:
        // m.slice(0) })): an out sharing memory with an input is written through a temporary, then copied, as NumPy
        // buffers it. The whole reduction reads everything before its last launch writes: it needs none.
        if (!whole && padded[k] !== undefined && inputArrays.some((x) => mayShareMemory(x, target))) {
          target = DeviceArray.empty(outShape, binding.dtypes[k]!, { stream: s });
          (staged ??= []).push([target, a as DeviceArray]);
        }
        outputs.push(a as DeviceArray);
        written.push(target);
        outArgs.push(target);
      } else {
        inArgs.push(binding.scalar[k] ? encodeElement(binding.dtypes[k]!, a as ArrayScalar) : (a as DeviceArray));
      }
    });
    try {
      if (whole) this.#launchWhole(s, binding, elementCount(shape), inArgs, outArgs);
      else this.#launchAxes(s, binding, padded, shape, axes, keepdims, written, inArgs, outArgs);
      for (const [temp, out] of staged ?? []) out.copyFrom(temp, { stream: s });
    } finally {
      for (const [temp] of staged ?? []) temp.close(s);
    }
    return outputs.length === 1 ? outputs[0]! : outputs;
  }

  /** Every element of contiguous inputs: a partial result per block, then one block reduces the partials. */
  #launchWhole(s: Stream, binding: Binding, n: number, inArgs: KernelArgument[], outArgs: KernelArgument[]): void {
    const inst = this.#instance(s.device, binding);
    const block = REDUCTION_BLOCK;
    const shm = block * inst.reduceType.itemsize;
    const grid = Math.max(1, Math.min(Math.ceil(n / block), inst.maxGrid));
    const partial = DeviceArray.empty([grid], inst.reduceType, { stream: s });
    try {
      if (n > 0) launch(s, configFor(grid, block, shm), inst.partial, [...inArgs, partial, BigInt(n)]);
      launch(s, configFor(1, block, shm), inst.final, [partial, BigInt(n > 0 ? grid : 0), ...outArgs]);
    } finally {
      partial.close(s);
    }
  }

  /** Some axes, or strided or broadcast inputs: one launch of the axis kernel, a group of threads per output. */
  #launchAxes(
    s: Stream,
    binding: Binding,
    args: readonly (BuilderArgument | undefined)[],
    shape: readonly number[],
    axes: readonly number[],
    keepdims: boolean,
    outputs: readonly DeviceArray[],
    inArgs: KernelArgument[],
    outArgs: KernelArgument[],
  ): void {
    const plan = axisPlan(this.params, args, binding, shape, axes, keepdims, outputs);
    if (plan.nOut === 0) return;
    const device = s.device;
    const key = `${device.id}|${binding.key}|${plan.key}${reductionTuning.streaming ? "|cs" : ""}`;
    let inst = this.#axisInstances.get(key);
    if (inst === undefined || inst.kernel.isClosed) {
      const reduceType = this.#reduceType(binding);
      const [kernel, final] = compileKernels(
        this.axisSource(binding, plan),
        [`${this.name}_axis`, `${this.name}_axis_final`],
        device,
        headersFor([...binding.dtypes, reduceType]),
        this.#options,
        `${this.name}_axis.cu`,
      );
      const perSm = kernel!.occupancy(device).maxActiveBlocksPerMultiprocessor(REDUCTION_BLOCK, REDUCTION_BLOCK * reduceType.itemsize * (plan.packed === "kept" ? plan.vec! : 1));
      inst = { kernel: kernel!, final: final!, maxGrid: Math.max(1, perSm * device.properties.multiprocessorCount), reduceType };
      this.#axisInstances.set(key, inst);
    }
    const block = plan.group * plan.outputsPerBlock;
    // What one group of threads takes: an output, or a pack of them; and the reduced range in elements or packs.
    const vec = plan.vec ?? 1;
    const items = plan.packed === "kept" ? plan.nOut / vec : plan.nOut;
    const steps = plan.packed === "reduced" ? plan.nReduced / vec : plan.nReduced;
    const chunks = axisChunks(items, steps, plan.group, plan.outputsPerBlock, device.properties.multiprocessorCount);
    const cap = Math.min(Math.max(1, Math.floor((inst.maxGrid * REDUCTION_BLOCK) / block)) * reductionTuning.axisWaves, 2 ** 31 - 1);
    const grid = Math.max(1, Math.min(Math.ceil((items * chunks) / plan.outputsPerBlock), cap));
    const partial = chunks > 1 ? DeviceArray.empty([chunks * plan.nOut], inst.reduceType, { stream: s }) : undefined;
    const shared = block * inst.reduceType.itemsize * (plan.packed === "kept" ? vec : 1);
    try {
      launch(s, configFor(grid, block, shared), inst.kernel, [
        ...inArgs,
        ...outArgs,
        BigInt(plan.nOut),
        BigInt(plan.nReduced),
        u32(plan.group),
        u32(plan.laneStride),
        BigInt(chunks),
        partial ?? 0n,
        plan.layout,
      ]);
      if (partial !== undefined) {
        const finalGrid = Math.max(1, Math.min(Math.ceil(plan.nOut / REDUCTION_BLOCK), inst.maxGrid));
        launch(s, configFor(finalGrid, REDUCTION_BLOCK), inst.final, [partial, ...outArgs, BigInt(plan.nOut), BigInt(chunks), plan.layout]);
      }
    } finally {
      partial?.close(s);
    }
  }

  /** The generated source of the axis kernel for a binding and a plan (for inspection). */
  axisSource(binding: Binding, plan: AxisShape): string {
    return reductionAxisSource(
      this.name,
      this.params,
      binding,
      { map: this.mapExpr, reduce: this.reduceExpr, post: this.postMapExpr, identity: this.identity },
      this.#reduceType(binding),
      plan,
      this.#options.preamble,
    );
  }

  #instance(device: Device, binding: Binding): Instance {
    const key = `${device.id}|${binding.key}`;
    let inst = this.#instances.get(key);
    if (inst === undefined || inst.partial.isClosed) {
      const reduceType = this.#reduceType(binding);
      const [partial, final] = compileKernels(
        this.source(binding),
        [`${this.name}_partial`, `${this.name}_final`],
        device,
        headersFor([...binding.dtypes, reduceType]),
        this.#options,
        `${this.name}.cu`,
      );
      const shm = REDUCTION_BLOCK * reduceType.itemsize;
      const perSm = partial!.occupancy(device).maxActiveBlocksPerMultiprocessor(REDUCTION_BLOCK, shm);
      inst = { partial: partial!, final: final!, maxGrid: Math.max(1, perSm * device.properties.multiprocessorCount), reduceType };
      this.#instances.set(key, inst);
    }
    return inst;
  }
}
