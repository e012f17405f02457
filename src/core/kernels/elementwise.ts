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
 * loops over the rest). Arrays must be contiguous and of one shape: typed errors name the parameters otherwise.
 *
 * @module
 */
import type { Device } from "../device.ts";
import { describeValue } from "../../errors/describe.ts";
import { launch, type KernelArgument } from "../launch/launch.ts";
import type { Kernel } from "../launch/kernel.ts";
import type { Stream } from "../stream.ts";
import { takeStream } from "../base/stream-arg.ts";
import { DeviceArray, encodeElement, type ArrayScalar } from "../array/device-array.ts";
import { elementCount } from "../array/layout.ts";
import { bindArguments, checkUnique, headersFor, parseParams, typedefs, type Binding, type BuilderArgument, type KernelParam } from "./params.ts";
import { compileKernels, configFor, includeLines, type BuilderOptions } from "./compile.ts";

/** One compiled instantiation and how it launches on a device. */
interface Instance {
  readonly kernel: Kernel;
  readonly block: number;
  /** Blocks resident at once on the whole device (the grid's cap). */
  readonly maxGrid: number;
  /** The vectorised variant, launched when every per-element array is aligned to its pack. */
  readonly vector?: { readonly kernel: Kernel; readonly width: number; readonly block: number; readonly maxGrid: number };
}

/** The low bits of an address read as a number (packs are at most 16 bytes: a power of two dividing this). */
const LOW_BITS = 4096n;

/** Whether every per-element array argument's address is aligned to a pack of `width` of its elements. */
function aligned(params: readonly KernelParam[], args: readonly KernelArgument[], binding: Binding, width: number): boolean {
  for (let k = 0; k < params.length; k++) {
    const a = args[k];
    if (a instanceof DeviceArray && !params[k]!.raw && !binding.scalar[k] && Number(a.address % LOW_BITS) % (a.itemsize * width) !== 0) return false;
  }
  return true;
}

const IDENT = /^[A-Za-z_]\w*$/;

/** Elements per thread per iteration of the main loop: their loads are issued before any body runs. */
export const ELEMENTWISE_UNROLL = 4;

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
    if (p.raw) {
      decl.push(`${p.output ? "" : "const "}${t}* __restrict__ ${p.name}`);
    } else if (binding.scalar[k]) {
      decl.push(`const ${t} ${p.name}`);
    } else if (p.output) {
      decl.push(`${t}* __restrict__ _p_${p.name}`);
      outputs.push({ name: p.name, ctype: t });
    } else {
      decl.push(`const ${t}* __restrict__ _p_${p.name}`);
      loaded.push({ name: p.name, ctype: t });
    }
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
    const device = s.device;
    const padded: (BuilderArgument | undefined)[] = [...args];
    while (padded.length < total) padded.push(undefined);
    const binding = bindArguments(this.name, this.params, padded, device.id);
    const shape = binding.shape;
    if (shape === undefined) throw new TypeError(`${this.name}: no array was passed, so the size is unknown; pass an output array`);
    const outputs: DeviceArray[] = [];
    const kernelArgs: KernelArgument[] = [];
    this.params.forEach((p, k) => {
      let a = padded[k];
      if (a === undefined) a = DeviceArray.empty(shape, binding.dtypes[k]!, { stream: s });
      if (p.output) outputs.push(a as DeviceArray);
      kernelArgs.push(binding.scalar[k] ? encodeElement(binding.dtypes[k]!, a as ArrayScalar) : (a as DeviceArray));
    });
    const n = elementCount(shape);
    kernelArgs.push(BigInt(n));
    if (n > 0) {
      const inst = this.#instance(device, binding);
      const v = inst.vector;
      if (v !== undefined && aligned(this.params, kernelArgs, binding, v.width)) {
        const grid = Math.max(1, Math.min(Math.ceil(n / v.width / v.block), v.maxGrid));
        launch(s, configFor(grid, v.block), v.kernel, kernelArgs);
      } else {
        const grid = Math.max(1, Math.min(Math.ceil(n / inst.block), inst.maxGrid));
        launch(s, configFor(grid, inst.block), inst.kernel, kernelArgs);
      }
    }
    return outputs.length === 1 ? outputs[0]! : outputs;
  }

  /** The generated source for a signature (for inspection): the dtypes of each parameter. */
  source(binding: Binding): string {
    return elementwiseSource(this.name, this.params, binding, this.operation, this.#options.preamble);
  }

  #instance(device: Device, binding: Binding): Instance {
    const key = `${device.id}|${binding.key}`;
    let inst = this.#instances.get(key);
    if (inst === undefined || inst.kernel.isClosed) {
      const width = vectorWidth(this.params, binding);
      const names = width > 1 ? [this.name, `${this.name}_vec`] : [this.name];
      const [kernel, vecKernel] = compileKernels(this.source(binding), names, device, headersFor(binding.dtypes), this.#options, `${this.name}.cu`);
      const shape = (k: Kernel): { block: number; maxGrid: number } => {
        const occ = k.occupancy(device).maxPotentialBlockSize(0, 0);
        const block = Math.max(32, Math.min(occ.blockSize, 1024));
        const perSm = k.occupancy(device).maxActiveBlocksPerMultiprocessor(block, 0);
        return { block, maxGrid: Math.max(1, perSm * device.properties.multiprocessorCount, occ.minGridSize) };
      };
      inst = { kernel: kernel!, ...shape(kernel!), ...(vecKernel !== undefined ? { vector: { kernel: vecKernel, width, ...shape(vecKernel) } } : {}) };
      this.#instances.set(key, inst);
    }
    return inst;
  }
}
