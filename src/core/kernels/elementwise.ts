/**
 * `ElementwiseKernel`: a kernel in a few lines, as CuPy's. Parameter lists with dtype placeholders, a body run once
 * per element, a name:
 *
 * ```ts
 * const saxpy = new ElementwiseKernel("T a, T x, T y", "T z", "z = a * x + y", "saxpy");
 * const z = saxpy.launch(stream, 2.5, x, y);   // a scalar is broadcast; z is allocated (x's shape, T's dtype)
 * saxpy.launch(stream, 2.5, x, y, out);         // or written into a given array
 * ```
 *
 * In the body, each non-raw input is its element's value (`const T x`), each output a reference to its element
 * (`T& z`), each raw parameter the array's pointer (`raw T w`: index it yourself), `i` the element's index and `_n`
 * the element count. Each combination of dtypes (and of which inputs are scalars) is compiled once per architecture
 * through the program cache and kept by the builder; the block size comes from the occupancy API
 * (cuOccupancyMaxPotentialBlockSize), the grid covers the elements up to what the device holds at once (the kernel
 * loops over the rest).
 *
 * Arrays broadcast by NumPy's rules (`[3, 1]` with `[1, 4]` gives `[3, 4]`; an allocated output has the broadcast
 * shape; a given output must have it) and may be any views (slices with steps, transposes, offsets). When every
 * array is contiguous and of the full shape, the contiguous kernels above run (vectorised where aligned); otherwise
 * a strided kernel `<name>_nd`, compiled once per rank of the merged layout and per choice of which operands are
 * strided, computes those operands' element offsets from the output index (strides 0 on broadcast axes) and indexes
 * the rest by `i`; where the innermost axis allows (its extent a multiple of 16 bytes' worth of elements, every
 * strided operand contiguous or broadcast along it, rows aligned), it walks packs of those elements, one index
 * decomposition and one 128-bit access per pack. Shapes that do not broadcast: BroadcastError naming both
 * parameters and the axis.
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
import { dtypes, type DType } from "../array/dtype.ts";
import { refuseWrongDevice } from "../base/wrong-device.ts";
import { byteRange, elementCount, sameShape } from "../array/layout.ts";
import { broadcastStrides, coalesceAxes } from "../array/broadcast.ts";
import { ArrayLayoutError } from "../array/errors.ts";
import { bindArguments, checkUnique, contiguousCall, headersFor, parseParams, typedefs, type Binding, type BuilderArgument, type KernelParam } from "./params.ts";
import { compileKernels, configFor, includeLines, type BuilderOptions } from "./compile.ts";

/** One compiled instantiation and how it launches on a device. */
interface Instance {
  readonly kernel: Kernel;
  readonly block: number;
  /** Blocks resident at once on the whole device (the grid's cap). */
  readonly maxGrid: number;
  /** The vectorised variant, launched when every per-element array is aligned to its pack. */
  readonly vector?: {
    readonly kernel: Kernel;
    readonly width: number;
    readonly block: number;
    readonly maxGrid: number;
    /** Whether every per-element array has one element size of at most 4 bytes (its grid cap: see {@link elementwiseTuning}). */
    readonly even: boolean;
  };
}

/** Whether every per-element array argument's address is aligned to a pack of `width` of its elements. */
function aligned(params: readonly KernelParam[], args: readonly KernelArgument[], binding: Binding, width: number): boolean {
  for (let k = 0; k < params.length; k++) {
    const a = args[k];
    if (a instanceof DeviceArray && !params[k]!.raw && !binding.scalar[k] && addressOf(a) % (a.itemsize * width) !== 0) return false;
  }
  return true;
}

/** The byte range [first, end) an array's elements span, from its address. */
function byteSpan(a: DeviceArray): [number, number] {
  return byteRange(addressOf(a), a.shape, a.strides, a.itemsize);
}

/**
 * Whether output `out` shares memory with an input array that is not read element for element where `out` is
 * written (the same address and the same strides once broadcast to `shape`: then each thread reads its element
 * before writing it, which is safe). Exported for tests.
 */
export function overlapsAnInput(out: DeviceArray, params: readonly KernelParam[], args: readonly (BuilderArgument | undefined)[], inputs: number, shape: readonly number[]): boolean {
  if (out.size === 0) return false;
  let outSpan: [number, number] | undefined;
  const ob = out.buffer;
  for (let j = 0; j < inputs; j++) {
    const a = args[j];
    if (!(a instanceof DeviceArray) || a === out || params[j]!.raw || a.size === 0) continue;
    const ib = a.buffer;
    if (ib !== ob) {
      // Two buffers' whole ranges apart: nothing of either array can meet (the common case, checked cheaply).
      const o0 = addressOf(out) - out.byteOffset;
      const i0 = addressOf(a) - a.byteOffset;
      if (i0 + ib.size <= o0 || o0 + ob.size <= i0) continue;
    }
    outSpan ??= byteSpan(out);
    const inSpan = byteSpan(a);
    if (inSpan[1] <= outSpan[0] || outSpan[1] <= inSpan[0]) continue;
    if (a.address === out.address && a.itemsize === out.itemsize) {
      const st = broadcastStrides(a.shape, a.strides, shape);
      if (st.every((x, d) => x === out.strides[d] || shape[d] === 1)) continue;
    }
    return true;
  }
  return false;
}

/** Copies staged outputs into theirs (see `#marshal`); the output, or the list of outputs when there are several. */
function finish(s: Stream, staged: [temp: DeviceArray, out: DeviceArray][] | undefined, outputs: DeviceArray[]): DeviceArray | DeviceArray[] {
  if (staged !== undefined) {
    for (const [temp, out] of staged) {
      out.copyFrom(temp, { stream: s });
      temp.close(s);
    }
  }
  return outputs.length === 1 ? outputs[0]! : outputs;
}

/** What a simple call of one signature reuses: its binding, its instance per device ordinal. */
interface SimpleCall {
  readonly binding: Binding;
  readonly instances: (Instance | undefined)[];
  /** The element count of the last call, and it as the kernel's `_n` argument (a bigint made once per count). */
  lastCount: number;
  lastCountArgument: bigint;
}

/** The most parameters a simple call's signature encodes (20 codes each, in a double's 53 bits). */
const SIMPLE_PARAMS = 12;

/** Each dtype's index in a signature. */
const DTYPE_INDEX: ReadonlyMap<DType, number> = new Map(Object.values(dtypes).map((d, i) => [d as DType, i]));

/**
 * @internal How large grids are, in multiples of the blocks resident on the whole device at once (the kernels loop
 * over what a grid does not cover). Measured on an H100 (bench/results/2026-12-06-h100-array-ops.md):
 * - the vectorised kernel at 128 waves, or 256 (`vectorWavesEven`) when every per-element array has one element size
 *   of at most 4 bytes. 1 GiB in, GB/s at 32 / 64 / 128 / 256 / no cap: exp float32 2,980 / 3,014 / 3,038 / 3,051 /
 *   3,051; float32 + float32 3,053 / 3,077 / 3,098 / 3,113 / 3,113; float16 * float16 3,071 / 3,086 / 3,098 / 3,098 /
 *   3,098; float32 to float16 3,064 / 3,085 / 3,097 / 3,015 / 3,015; float16 to float32 2,915 / 2,937 / 2,965 / 2,899
 *   / 2,899; exp float64 2,981 / 3,014 / 3,022 / 2,986 / 2,749 (a copy kernel: 3,058). Two or four packs per thread
 *   per step, and streaming cache hints, changed less than 0.3% or lost up to 6%.
 * - the strided kernel at 64 waves (a row broadcast over 16384 x 16384: 2,442 against 2,380 at one wave and 1,788
 *   uncapped); its packed form (see {@link StridedShape.vec}) with no cap (the same broadcast: 2,901 against 2,559 at
 *   64 waves and 2,251 at 8); the one-element kernel takes the strided kernel's cap.
 */
export const elementwiseTuning = { vectorWaves: 128, vectorWavesEven: 256, waves: 64, packedWaves: Number.POSITIVE_INFINITY };

/** The most blocks a grid's x dimension takes. */
const MAX_GRID_X = 2 ** 31 - 1;

const IDENT = /^[A-Za-z_]\w*$/;

/** Elements per thread per iteration of the main loop: their loads are issued before any body runs. */
export const ELEMENTWISE_UNROLL = 4;

/**
 * A parameter as the generated kernels declare it: a raw array as its pointer under its own name, a scalar by value,
 * any other array as the pointer `_p_<name>` (const for inputs), its element bound to `<name>` in the body.
 */
function parameterDeclaration(p: KernelParam, ctype: string, scalar: boolean): string {
  if (p.raw) return `${p.output ? "" : "const "}${ctype}* __restrict__ ${p.name}`;
  if (scalar) return `const ${ctype} ${p.name}`;
  return `${p.output ? "" : "const "}${ctype}* __restrict__ _p_${p.name}`;
}

/**
 * The source of one instantiation (exported for tests: no GPU needed). A grid-stride loop; its main part takes
 * {@link ELEMENTWISE_UNROLL} elements per thread at a time and loads all their inputs first (more loads in flight per
 * thread: what memory-bound kernels need to reach the memory's bandwidth), the tail one at a time.
 */
export function elementwiseSource(name: string, params: readonly KernelParam[], binding: Binding, body: string, preamble = ""): string {
  const lines = [...includeLines(headersFor(binding.dtypes)), ...typedefs(binding.types), preamble];
  const decl: string[] = [];
  /** The per-element inputs (arrays read one element each). */
  const loaded: { name: string; ctype: string }[] = [];
  const outputs: { name: string; ctype: string }[] = [];
  params.forEach((p, k) => {
    const t = binding.dtypes[k]!.ctype;
    decl.push(parameterDeclaration(p, t, binding.scalar[k]!));
    if (p.raw || binding.scalar[k]) return;
    (p.output ? outputs : loaded).push({ name: p.name, ctype: t });
  });
  decl.push("const unsigned long long _n");
  const stmt = `${body.trim().replace(/;?$/, ";")}`;
  /** One element's scope: `i`, its inputs (from `value(name)`), its outputs by reference, the body. */
  const element = (indent: string, index: string, value: (n: string) => string): string[] => [
    `${indent}{`,
    `${indent}  const unsigned long long i = ${index};`,
    ...loaded.map((v) => `${indent}  const ${v.ctype} ${v.name} = ${value(v.name)};`),
    ...outputs.map((o) => `${indent}  ${o.ctype}& ${o.name} = _p_${o.name}[i];`),
    `${indent}  ${stmt}`,
    `${indent}}`,
  ];
  const U = ELEMENTWISE_UNROLL;
  const ks = [...Array(U).keys()];
  lines.push(
    `extern "C" __global__ void ${name}(${decl.join(", ")}) {`,
    "  const unsigned long long _stride = (unsigned long long)gridDim.x * blockDim.x;",
    "  unsigned long long _i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;",
    `  for (; _i + ${U - 1} * _stride < _n; _i += ${U} * _stride) {`,
    ...ks.flatMap((k) => loaded.map((v) => `    const ${v.ctype} _v${k}_${v.name} = _p_${v.name}[_i + ${k} * _stride];`)),
    ...ks.flatMap((k) => element("    ", `_i + ${k} * _stride`, (n) => `_v${k}_${n}`)),
    "  }",
    "  for (; _i < _n; _i += _stride)",
    ...element("    ", "_i", (n) => `_p_${n}[i]`),
    "}",
  );
  const vec = vectorWidth(params, binding);
  if (vec > 1) lines.push(...vectorKernel(name, decl, loaded, outputs, stmt, body, vec));
  return lines.filter((l) => l !== "").join("\n") + "\n";
}

/** Bytes one thread loads per array per step in the vectorised variant (one 128-bit load). */
export const ELEMENTWISE_VECTOR_BYTES = 16;

/** Packs per thread per iteration of the vectorised variant's main loop (their loads issued before any body runs). */
export const ELEMENTWISE_VECTOR_UNROLL = 2;

/**
 * Elements per thread per step of the vectorised variant: 16 bytes of the widest per-element array; 1 (no variant)
 * when no array is read or written per element, or an element is wider than 8 bytes.
 */
export function vectorWidth(params: readonly KernelParam[], binding: Binding): number {
  let widest = 0;
  params.forEach((p, k) => {
    if (!p.raw && !binding.scalar[k]) widest = Math.max(widest, binding.dtypes[k]!.itemsize);
  });
  if (widest === 0 || widest > 8) return 1;
  return ELEMENTWISE_VECTOR_BYTES / widest;
}

/** Whether every per-element array (not raw, not a scalar) has one element size, of at most 4 bytes. */
function evenWidths(params: readonly KernelParam[], binding: Binding): boolean {
  const sizes = new Set<number>();
  params.forEach((p, k) => {
    if (!p.raw && !binding.scalar[k]) sizes.add(binding.dtypes[k]!.itemsize);
  });
  return sizes.size === 1 && [...sizes][0]! <= 4;
}

/**
 * Whether the body surely assigns output `name` before anything reads it, for every element: a body without control
 * flow or blocks in which each use of `name` begins a statement `name = ...`. Then the vectorised variant need not
 * load the output's old values; otherwise it loads them, so that elements the body leaves alone keep theirs.
 */
function writeOnly(body: string, name: string): boolean {
  if (/[{}]|\b(if|else|for|while|do|switch|case|return|goto|break|continue)\b/.test(body)) return false;
  let assigned = false;
  for (const statement of body.split(";")) {
    const uses = [...statement.matchAll(new RegExp(`\\b${name}\\b`, "g"))];
    if (uses.length === 0) continue;
    const first = uses[0]!;
    const startsIt = statement.slice(0, first.index).trim() === "" && /^\s*=(?!=)/.test(statement.slice(first.index! + name.length));
    // Read (or compound-assigned) before its first plain assignment, or read in the statement that assigns it.
    if (!assigned && !(startsIt && uses.length === 1)) return false;
    assigned = true;
  }
  return assigned;
}

/**
 * The vectorised entry point `<name>_vec`: every per-element array is read and written `vec` elements at a time
 * through aligned packs (one 128-bit load or store for the widest type), the rest one at a time. Launched when every
 * such array's address is aligned to its pack.
 */
function vectorKernel(
  name: string,
  decl: readonly string[],
  loaded: readonly { name: string; ctype: string }[],
  outputs: readonly { name: string; ctype: string }[],
  stmt: string,
  body: string,
  vec: number,
): string[] {
  const pack = (v: { name: string; ctype: string }): string => `_pk_${v.name}`;
  const fresh = new Set(outputs.filter((o) => writeOnly(body, o.name)).map((o) => o.name));
  const lines: string[] = [];
  for (const v of [...loaded, ...outputs]) lines.push(`struct __align__(sizeof(${v.ctype}) * ${vec}) ${pack(v)} { ${v.ctype} v[${vec}]; };`);
  /** Packs `us` (offsets in strides from _j): every load first, then the bodies, then the stores. */
  const step = (indent: string, us: readonly number[]): string[] => {
    const at = (u: number): string => (u === 0 ? "_j" : `_j + ${u} * _stride`);
    return [
      ...us.flatMap((u) => loaded.map((v) => `${indent}const ${pack(v)} _a${u}_${v.name} = reinterpret_cast<const ${pack(v)}*>(_p_${v.name})[${at(u)}];`)),
      ...us.flatMap((u) =>
        outputs.map((o) => (fresh.has(o.name) ? `${indent}${pack(o)} _o${u}_${o.name};` : `${indent}${pack(o)} _o${u}_${o.name} = reinterpret_cast<const ${pack(o)}*>(_p_${o.name})[${at(u)}];`)),
      ),
      ...us.flatMap((u) => [
        `${indent}#pragma unroll`,
        `${indent}for (int _k = 0; _k < ${vec}; ++_k) {`,
        `${indent}  const unsigned long long i = (${at(u)}) * ${vec} + _k;`,
        `${indent}  (void)i;`,
        ...loaded.map((v) => `${indent}  const ${v.ctype} ${v.name} = _a${u}_${v.name}.v[_k];`),
        ...outputs.map((o) => `${indent}  ${o.ctype}& ${o.name} = _o${u}_${o.name}.v[_k];`),
        `${indent}  ${stmt}`,
        `${indent}}`,
      ]),
      ...us.flatMap((u) => outputs.map((o) => `${indent}reinterpret_cast<${pack(o)}*>(_p_${o.name})[${at(u)}] = _o${u}_${o.name};`)),
    ];
  };
  const VU = ELEMENTWISE_VECTOR_UNROLL;
  lines.push(
    `extern "C" __global__ void ${name}_vec(${decl.join(", ")}) {`,
    "  const unsigned long long _stride = (unsigned long long)gridDim.x * blockDim.x;",
    `  const unsigned long long _nv = _n / ${vec};`,
    "  unsigned long long _j = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;",
    `  for (; _j + ${VU - 1} * _stride < _nv; _j += ${VU} * _stride) {`,
    ...step("    ", [...Array(VU).keys()]),
    "  }",
    "  for (; _j < _nv; _j += _stride) {",
    ...step("    ", [0]),
    "  }",
    `  for (unsigned long long i = _nv * ${vec} + blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < _n; i += _stride) {`,
    ...loaded.map((v) => `    const ${v.ctype} ${v.name} = _p_${v.name}[i];`),
    ...outputs.map((o) => `    ${o.ctype}& ${o.name} = _p_${o.name}[i];`),
    `    ${stmt}`,
    "  }",
    "}",
  );
  return lines;
}

/** An elementwise kernel builder (CuPy's ElementwiseKernel). */
export class ElementwiseKernel {
  /** The kernel's name. */
  readonly name: string;
  /** The inputs, then the outputs. */
  readonly params: readonly KernelParam[];
  /** The body. */
  readonly operation: string;
  readonly #options: BuilderOptions;
  readonly #inputs: number;
  /** Instantiations by device ordinal and signature. */
  readonly #instances = new Map<string, Instance>();
  /** Simple calls' bindings by signature (see #signature). */
  readonly #simple = new Map<number, SimpleCall>();

  /**
   * @param inParams - inputs, "T x, raw T w, float32 a"
   * @param outParams - outputs, "T z"
   * @param operation - the body, run once per element
   * @param name - the kernel's name (an identifier)
   */
  constructor(inParams: string, outParams: string, operation: string, name: string, options: BuilderOptions = {}) {
    if (typeof name !== "string" || !IDENT.test(name)) throw new SyntaxError(`ElementwiseKernel: the name must be an identifier, got ${describeValue(name)}`);
    if (typeof operation !== "string" || operation.trim() === "") throw new SyntaxError("ElementwiseKernel: the operation (the body) is empty");
    const ins = parseParams(inParams, false, `${name}: in_params`);
    const outs = parseParams(outParams, true, `${name}: out_params`);
    if (outs.length === 0) throw new SyntaxError(`${name}: an elementwise kernel needs at least one output`);
    this.params = Object.freeze([...ins, ...outs]);
    checkUnique(this.params);
    this.#inputs = ins.length;
    this.name = name;
    this.operation = operation;
    this.#options = options;
  }

  /** The number of inputs. */
  get numInputs(): number {
    return this.#inputs;
  }

  /**
   * Runs the kernel on `stream` over the inputs (and outputs, where given; missing ones are allocated on the stream's
   * device with the common shape). Returns the output array, or the list of outputs when there are several.
   */
  launch(stream: Stream, ...args: BuilderArgument[]): DeviceArray | DeviceArray[] {
    const s = takeStream(stream, `${this.name}.launch`);
    const total = this.params.length;
    if (args.length < this.#inputs || args.length > total) {
      throw new TypeError(`${this.name} takes ${this.#inputs} input${this.#inputs === 1 ? "" : "s"} and up to ${total - this.#inputs} output${total - this.#inputs === 1 ? "" : "s"}, ${args.length} given`);
    }
    for (let k = this.#inputs; k < args.length; k++) {
      const o = args[k];
      if (o instanceof DeviceArray && o.readOnly) checkWritable(o, `${this.name}.launch: output ${k - this.#inputs}`);
    }
    // The common call (contiguous arrays of one shape, a signature seen before) skips binding.
    const sig = this.#signature(args);
    if (sig >= 0) {
      const seen = this.#simple.get(sig);
      if (seen !== undefined) return this.#launchSimple(s, args, seen);
    }
    const device = s.device;
    const padded: (BuilderArgument | undefined)[] = [...args];
    while (padded.length < total) padded.push(undefined);
    const binding = bindArguments(this.name, this.params, padded, device.id);
    if (sig >= 0 && this.#simple.size < 64) this.#simple.set(sig, { binding, instances: [], lastCount: -1, lastCountArgument: 0n });
    const shape = binding.shape;
    if (shape === undefined) throw new TypeError(`${this.name}: no array was passed, so the size is unknown; pass an output array`);
    const outputs: DeviceArray[] = [];
    const kernelArgs: KernelArgument[] = [];
    const staged = this.#marshal(s, padded, binding, shape, outputs, kernelArgs);
    const n = elementCount(shape);
    // What the kernel writes: a staged output's temporary (contiguous) in its place.
    const written = kernelArgs as readonly (BuilderArgument | undefined)[];
    const strided = n > 0 && !contiguousCall(this.params, written, shape);
    const plan = strided ? stridedPlan(this.name, this.params, written, binding, shape) : undefined;
    kernelArgs.push(BigInt(n));
    if (plan !== undefined) {
      // Views or broadcasting: each strided operand's element offset is computed from the output index.
      const inst = this.#stridedInstance(device, binding, plan);
      kernelArgs.push(plan.layout);
      const vec = plan.vec ?? 1;
      const waves = vec > 1 ? elementwiseTuning.packedWaves : elementwiseTuning.waves;
      const grid = Math.max(1, Math.min(Math.ceil(n / vec / inst.block), inst.maxGrid * waves, MAX_GRID_X));
      launch(s, configFor(grid, inst.block), inst.kernel, kernelArgs);
    } else if (n > 0) {
      this.#launchContiguous(s, this.#instance(device, binding), binding, kernelArgs, n);
    }
    return finish(s, staged, outputs);
  }

  /**
   * The kernel's arguments for a bound call, pushed into `kernelArgs` (and the outputs into `outputs`): missing outputs
   * allocated with `shape`, scalars encoded. A given output that overlaps an input in another layout (a shifted view
   * of the same memory) would be written while other threads still read it: the kernel writes a temporary instead,
   * returned to be copied into the output after the launch.
   */
  #marshal(
    s: Stream,
    args: readonly (BuilderArgument | undefined)[],
    binding: Binding,
    shape: readonly number[],
    outputs: DeviceArray[],
    kernelArgs: KernelArgument[],
  ): [temp: DeviceArray, out: DeviceArray][] | undefined {
    const params = this.params;
    let staged: [temp: DeviceArray, out: DeviceArray][] | undefined;
    for (let k = 0; k < params.length; k++) {
      const p = params[k]!;
      let a = args[k];
      if (a === undefined) a = DeviceArray.empty(shape, binding.dtypes[k]!, { stream: s });
      else if (p.output && overlapsAnInput(a as DeviceArray, params, args, this.#inputs, shape)) {
        const temp = DeviceArray.empty(shape, binding.dtypes[k]!, { stream: s });
        (staged ??= []).push([temp, a as DeviceArray]);
        outputs.push(a as DeviceArray);
        kernelArgs.push(temp);
        continue;
      }
      if (p.output) outputs.push(a as DeviceArray);
      kernelArgs.push(binding.scalar[k] ? encodeElement(binding.dtypes[k]!, a as ArrayScalar) : (a as DeviceArray));
    }
    return staged;
  }

  /** Launches the contiguous kernel of `inst` over `n` elements: its vectorised variant where every array is aligned to it. */
  #launchContiguous(s: Stream, inst: Instance, binding: Binding, kernelArgs: KernelArgument[], n: number): void {
    const v = inst.vector;
    if (v !== undefined && aligned(this.params, kernelArgs, binding, v.width)) {
      const grid = Math.max(1, Math.min(Math.ceil(n / v.width / v.block), v.maxGrid * (v.even ? elementwiseTuning.vectorWavesEven : elementwiseTuning.vectorWaves), MAX_GRID_X));
      launch(s, configFor(grid, v.block), v.kernel, kernelArgs);
    } else {
      const grid = Math.max(1, Math.min(Math.ceil(n / inst.block), inst.maxGrid * elementwiseTuning.waves));
      launch(s, configFor(grid, inst.block), inst.kernel, kernelArgs);
    }
  }

  /**
   * The signature of a simple call, or -1: every array contiguous, the non-raw ones of one shape (at least one), at
   * most {@link SIMPLE_PARAMS} parameters; per parameter 0 (left out), 1 (a scalar) or 2 + the array's dtype index.
   */
  #signature(args: readonly BuilderArgument[]): number {
    const params = this.params;
    if (params.length > SIMPLE_PARAMS) return -1;
    let sig = 0;
    let shape: readonly number[] | undefined;
    for (let k = 0; k < params.length; k++) {
      const a = args[k];
      let code = 0;
      if (a instanceof DeviceArray) {
        if (!a.isContiguous) return -1;
        if (!params[k]!.raw) {
          if (shape === undefined) shape = a.shape;
          else if (shape !== a.shape) {
            const other = a.shape;
            if (other.length !== shape.length) return -1;
            for (let d = 0; d < other.length; d++) if (other[d] !== shape[d]) return -1;
          }
        }
        code = 2 + DTYPE_INDEX.get(a.dtype)!;
      } else if (a !== undefined) code = 1;
      sig = sig * 20 + code;
    }
    return shape === undefined ? -1 : sig;
  }

  /** A simple call of a signature bound before: the checks binding does per call, then the contiguous kernels. */
  #launchSimple(s: Stream, args: readonly BuilderArgument[], seen: SimpleCall): DeviceArray | DeviceArray[] {
    const params = this.params;
    const binding = seen.binding;
    const device = s.device;
    let first: DeviceArray | undefined;
    for (let k = 0; k < args.length; k++) {
      const a = args[k];
      if (!(a instanceof DeviceArray)) continue;
      const p = params[k]!;
      if (a.isClosed) throw new ArrayLayoutError(`${this.name}: the array passed for ${p.name} was closed`);
      const b = a.buffer;
      if (!b.isHostAccessible) {
        const dev = b.deviceId;
        if (dev !== device.id) refuseWrongDevice(`${this.name}: ${p.name}`, device.id, dev, `the kernel runs on the stream's device: copy ${p.name} to device ${device.id} first, or launch on a stream of device ${dev}`);
      }
      if (!p.raw && first === undefined) first = a;
    }
    const shape = first!.shape;
    const outputs: DeviceArray[] = [];
    const kernelArgs: KernelArgument[] = [];
    const staged = this.#marshal(s, args, binding, shape, outputs, kernelArgs);
    const n = first!.size;
    if (seen.lastCount !== n) {
      seen.lastCount = n;
      seen.lastCountArgument = BigInt(n);
    }
    kernelArgs.push(seen.lastCountArgument);
    if (n > 0) {
      let inst = seen.instances[device.id];
      if (inst === undefined || inst.kernel.isClosed) inst = seen.instances[device.id] = this.#instance(device, binding);
      this.#launchContiguous(s, inst, binding, kernelArgs, n);
    }
    return finish(s, staged, outputs);
  }

  /** The generated source for a signature (for inspection): the dtypes of each parameter. */
  source(binding: Binding): string {
    return elementwiseSource(this.name, this.params, binding, this.operation, this.#options.preamble);
  }

  /**
   * The generated source of the strided kernel `<name>_nd` for a signature and a plan (for inspection): see
   * {@link elementwiseStridedSource}.
   */
  stridedSource(binding: Binding, plan: StridedShape): string {
    return elementwiseStridedSource(this.name, this.params, binding, this.operation, plan, this.#options.preamble);
  }

  #instance(device: Device, binding: Binding): Instance {
    const key = `${device.id}|${binding.key}`;
    let inst = this.#instances.get(key);
    if (inst === undefined || inst.kernel.isClosed) {
      const width = vectorWidth(this.params, binding);
      const names = width > 1 ? [this.name, `${this.name}_vec`] : [this.name];
      const [kernel, vecKernel] = compileKernels(this.source(binding), names, device, headersFor(binding.dtypes), this.#options, `${this.name}.cu`);
      const vector = vecKernel !== undefined ? { kernel: vecKernel, width, even: evenWidths(this.params, binding), ...launchShape(vecKernel, device) } : undefined;
      inst = { kernel: kernel!, ...launchShape(kernel!, device), ...(vector !== undefined ? { vector } : {}) };
      this.#instances.set(key, inst);
    }
    return inst;
  }

  #stridedInstance(device: Device, binding: Binding, plan: StridedPlan): Instance {
    const key = `${device.id}|${binding.key}|${plan.key}`;
    let inst = this.#instances.get(key);
    if (inst === undefined || inst.kernel.isClosed) {
      const [kernel] = compileKernels(this.stridedSource(binding, plan), [`${this.name}_nd`], device, headersFor(binding.dtypes), this.#options, `${this.name}_nd.cu`);
      inst = { kernel: kernel!, ...launchShape(kernel!, device) };
      this.#instances.set(key, inst);
    }
    return inst;
  }
}

/** A block size from the occupancy API, and the blocks the whole device holds at once with it. */
function launchShape(k: Kernel, device: Device): { block: number; maxGrid: number } {
  const occ = k.occupancy(device).maxPotentialBlockSize(0, 0);
  const block = Math.max(32, Math.min(occ.blockSize, 1024));
  const perSm = k.occupancy(device).maxActiveBlocksPerMultiprocessor(block, 0);
  return { block, maxGrid: Math.max(1, perSm * device.properties.multiprocessorCount, occ.minGridSize) };
}

/** What the strided kernel is compiled for: the rank of its layout, which parameters it walks by strides, the index width. */
export interface StridedShape {
  /** Axes of the layout (after merging the axes every strided operand walks as one; at least 1). */
  readonly rank: number;
  /** Per parameter: whether its element offset is computed from strides (the others are indexed by `i` or are scalars/raw). */
  readonly strided: readonly boolean[];
  /** Whether the element count fits 32 bits (the index is decomposed in 32-bit arithmetic then). */
  readonly index32: boolean;
  /**
   * Elements per thread step (1: one at a time). Above 1 (see {@link stridedPlan} for when), the kernel walks the
   * output in packs of `vec` consecutive elements of its innermost axis: one index decomposition and one 128-bit
   * access per pack for each array that is contiguous along that axis.
   */
  readonly vec?: number;
  /** Per parameter, with `vec` above 1: whether it is a strided input broadcast along the innermost axis (one element per pack). */
  readonly innerBroadcast?: readonly boolean[];
}

/** A strided call's plan: what it compiles for, its cache key, and the layout argument's bytes. */
export interface StridedPlan extends StridedShape {
  /** Distinguishes one compiled strided kernel from another (with the binding's key). */
  readonly key: string;
  /** The layout struct passed by value: the extents, then each strided operand's strides (int64, elements). */
  readonly layout: Uint8Array;
}

/** The most bytes the layout struct may take (kernel parameters share 4 KiB). */
export const STRIDED_LAYOUT_MAX_BYTES = 3072;

/**
 * The plan of a strided call (exported for tests: no GPU needed). Operands that are contiguous with the full shape
 * are indexed by `i`; every other array (a view, a broadcast operand) gets its strides in the output's shape (0 on
 * broadcast axes), and the axes all of them walk as one are merged.
 */
export function stridedPlan(kernelName: string, params: readonly KernelParam[], args: readonly (BuilderArgument | undefined)[], binding: Binding, shape: readonly number[]): StridedPlan {
  const strided = params.map((p, k) => {
    const a = args[k];
    return a instanceof DeviceArray && !p.raw && !binding.scalar[k] && !(a.isContiguous && sameShape(a.shape, shape));
  });
  const lists: number[][] = [];
  params.forEach((_, k) => {
    if (strided[k]) {
      const a = args[k] as DeviceArray;
      lists.push(broadcastStrides(a.shape, a.strides, shape));
    }
  });
  let merged = coalesceAxes(shape, lists);
  if (merged.shape.length === 0) merged = { shape: [1], strides: lists.map(() => [0]) };
  const rank = merged.shape.length;
  const bytes = 8 * rank * (1 + lists.length);
  if (bytes > STRIDED_LAYOUT_MAX_BYTES) {
    throw new ArrayLayoutError(`${kernelName}: ${lists.length} strided operands over ${rank} axes need a ${bytes}-byte layout, more than a kernel's parameters hold (${STRIDED_LAYOUT_MAX_BYTES}); copy some of them to contiguous arrays first`);
  }
  const layout = new Uint8Array(bytes);
  const dv = new DataView(layout.buffer);
  merged.shape.forEach((n, d) => dv.setBigInt64(8 * d, BigInt(n), true));
  merged.strides.forEach((list, j) => list.forEach((st, d) => dv.setBigInt64(8 * ((j + 1) * rank + d), BigInt(st), true)));
  const index32 = elementCount(shape) <= 0xffff_ffff;
  const packed = packedStrides(params, args, binding, strided, merged);
  const codes = strided.map((x, k) => (!x ? "c" : packed?.innerBroadcast[k] === true ? "b" : "s")).join("");
  const key = `nd${rank}:${codes}:${index32 ? "u32" : "u64"}${packed === undefined ? "" : `:v${packed.vec}`}`;
  return { rank, strided, index32, key, layout, ...packed };
}

/**
 * Whether a strided call can walk its output in packs, and how: the vector width of its dtypes (16 bytes of the
 * widest array), the innermost merged axis a multiple of it, every strided operand either contiguous along that axis
 * (stride 1, its other strides multiples of the width, so that every pack is aligned) or, for inputs, broadcast
 * along it (stride 0: one element per pack), and every array read or written by packs aligned to its pack.
 */
function packedStrides(
  params: readonly KernelParam[],
  args: readonly (BuilderArgument | undefined)[],
  binding: Binding,
  strided: readonly boolean[],
  merged: { shape: readonly number[]; strides: readonly (readonly number[])[] },
): { vec: number; innerBroadcast: boolean[] } | undefined {
  const vec = vectorWidth(params, binding);
  const R = merged.shape.length;
  if (vec <= 1 || merged.shape[R - 1]! % vec !== 0) return undefined;
  const innerBroadcast = params.map(() => false);
  let j = 0;
  for (let k = 0; k < params.length; k++) {
    const p = params[k]!;
    const a = args[k];
    if (!(a instanceof DeviceArray) || p.raw || binding.scalar[k]) continue;
    if (strided[k]) {
      const list = merged.strides[j++]!;
      const inner = list[R - 1]!;
      if (inner === 0 && !p.output) {
        innerBroadcast[k] = true;
        continue;
      }
      if (inner !== 1) return undefined;
      for (let d = 0; d < R - 1; d++) if (list[d]! % vec !== 0) return undefined;
    }
    if (addressOf(a) % (a.itemsize * vec) !== 0) return undefined;
  }
  return { vec, innerBroadcast };
}

/**
 * The source of the strided kernel `<name>_nd` (exported for tests: no GPU needed): a grid-stride loop over the
 * output's elements in row-major order; each strided operand's element offset comes from decomposing the index over
 * the layout's extents (passed by value, so one kernel serves every shape of its rank), the other operands are
 * indexed by `i`. In the body, `i` is the element's row-major index in the output.
 */
export function elementwiseStridedSource(name: string, params: readonly KernelParam[], binding: Binding, body: string, plan: StridedShape, preamble = ""): string {
  if ((plan.vec ?? 1) > 1) return packedStridedSource(name, params, binding, body, plan, preamble);
  const lines = [...includeLines(headersFor(binding.dtypes)), ...typedefs(binding.types), preamble];
  const R = plan.rank;
  const IDX = plan.index32 ? "unsigned int" : "unsigned long long";
  const decl: string[] = [];
  const walked: string[] = [];
  const loads: string[] = [];
  const refs: string[] = [];
  params.forEach((p, k) => {
    const t = binding.dtypes[k]!.ctype;
    decl.push(parameterDeclaration(p, t, binding.scalar[k]!));
    if (p.raw || binding.scalar[k]) return;
    const at = plan.strided[k] ? `_o_${p.name}` : "i";
    if (plan.strided[k]) walked.push(p.name);
    if (p.output) refs.push(`    ${t}& ${p.name} = _p_${p.name}[${at}];`);
    else loads.push(`    const ${t} ${p.name} = _p_${p.name}[${at}];`);
  });
  decl.push("const unsigned long long _n", "const _nd_layout _l");
  lines.push(
    `struct _nd_layout { long long shape[${R}];${walked.map((w) => ` long long st_${w}[${R}];`).join("")} };`,
    `extern "C" __global__ void ${name}_nd(${decl.join(", ")}) {`,
    "  const unsigned long long _stride = (unsigned long long)gridDim.x * blockDim.x;",
    "  for (unsigned long long _i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; _i < _n; _i += _stride) {",
    "    const unsigned long long i = _i;",
    `    ${IDX} _r = (${IDX})_i;`,
    ...decomposeLines("    ", R, IDX, walked),
    ...loads,
    ...refs,
    `    ${body.trim().replace(/;?$/, ";")}`,
    "  }",
    "}",
  );
  return lines.filter((l) => l !== "").join("\n") + "\n";
}

/** The index decomposition of the strided kernels: `_o_<w>`, each walked operand's element offset of index `_r`. */
function decomposeLines(indent: string, R: number, IDX: string, walked: readonly string[]): string[] {
  return [
    ...walked.map((w) => `${indent}long long _o_${w} = 0;`),
    "#pragma unroll",
    `${indent}for (int _k = ${R - 1}; _k > 0; --_k) {`,
    `${indent}  const ${IDX} _e = (${IDX})_l.shape[_k];`,
    `${indent}  const ${IDX} _q = _r / _e;`,
    `${indent}  const long long _d = (long long)(_r - _q * _e);`,
    `${indent}  _r = _q;`,
    ...walked.map((w) => `${indent}  _o_${w} += _d * _l.st_${w}[_k];`),
    `${indent}}`,
    ...walked.map((w) => `${indent}_o_${w} += (long long)_r * _l.st_${w}[0];`),
  ];
}

/**
 * The packed form of `<name>_nd` (see {@link StridedShape.vec}): a grid-stride loop over packs of `vec` consecutive
 * output elements; the pack's first index is decomposed once; arrays indexed by `i` and strided operands contiguous
 * along the innermost axis are read and written as aligned packs, inputs broadcast along it read one element.
 */
function packedStridedSource(name: string, params: readonly KernelParam[], binding: Binding, body: string, plan: StridedShape, preamble: string): string {
  const lines = [...includeLines(headersFor(binding.dtypes)), ...typedefs(binding.types), preamble];
  const R = plan.rank;
  const V = plan.vec!;
  const IDX = plan.index32 ? "unsigned int" : "unsigned long long";
  const decl: string[] = [];
  const walked: string[] = [];
  const packs: string[] = [];
  const loads: string[] = [];
  const elements: string[] = [];
  const stores: string[] = [];
  const stmt = body.trim().replace(/;?$/, ";");
  params.forEach((p, k) => {
    const t = binding.dtypes[k]!.ctype;
    decl.push(parameterDeclaration(p, t, binding.scalar[k]!));
    if (p.raw || binding.scalar[k]) return;
    if (plan.strided[k]) walked.push(p.name);
    if (plan.innerBroadcast?.[k] === true) {
      loads.push(`    const ${t} _b_${p.name} = _p_${p.name}[_o_${p.name}];`);
      elements.push(`      const ${t} ${p.name} = _b_${p.name};`);
      return;
    }
    const pk = `_pk_${p.name}`;
    packs.push(`struct __align__(sizeof(${t}) * ${V}) ${pk} { ${t} v[${V}]; };`);
    const at = plan.strided[k] ? `reinterpret_cast<${p.output ? "" : "const "}${pk}*>(_p_${p.name} + _o_${p.name})[0]` : `reinterpret_cast<${p.output ? "" : "const "}${pk}*>(_p_${p.name})[_j]`;
    if (p.output) {
      loads.push(writeOnly(body, p.name) ? `    ${pk} _a_${p.name};` : `    ${pk} _a_${p.name} = ${at};`);
      elements.push(`      ${t}& ${p.name} = _a_${p.name}.v[_k];`);
      stores.push(`    ${at} = _a_${p.name};`);
    } else {
      loads.push(`    const ${pk} _a_${p.name} = ${at};`);
      elements.push(`      const ${t} ${p.name} = _a_${p.name}.v[_k];`);
    }
  });
  decl.push("const unsigned long long _n", "const _nd_layout _l");
  lines.push(
    `struct _nd_layout { long long shape[${R}];${walked.map((w) => ` long long st_${w}[${R}];`).join("")} };`,
    ...packs,
    `extern "C" __global__ void ${name}_nd(${decl.join(", ")}) {`,
    "  const unsigned long long _stride = (unsigned long long)gridDim.x * blockDim.x;",
    `  const unsigned long long _nv = _n / ${V};`,
    "  for (unsigned long long _j = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; _j < _nv; _j += _stride) {",
    `    ${IDX} _r = (${IDX})(_j * ${V});`,
    ...decomposeLines("    ", R, IDX, walked),
    ...loads,
    "#pragma unroll",
    `    for (int _k = 0; _k < ${V}; ++_k) {`,
    `      const unsigned long long i = _j * ${V} + _k;`,
    "      (void)i;",
    ...elements,
    `      ${stmt}`,
    "    }",
    ...stores,
    "  }",
    "}",
  );
  return lines.filter((l) => l !== "").join("\n") + "\n";
}
