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
 * @module
 */
import type { Device } from "../device.ts";
import { describeValue } from "../../errors/describe.ts";
import { launch, type KernelArgument } from "../launch/launch.ts";
import type { Kernel } from "../launch/kernel.ts";
import type { Stream } from "../stream.ts";
import { takeStream } from "../base/stream-arg.ts";
import { DeviceArray, encodeElement, type ArrayScalar } from "../array/device-array.ts";
import { dtypes, DTYPE_NAMES, type DType, type DTypeName } from "../array/dtype.ts";
import { elementCount } from "../array/layout.ts";
import { ShapeMismatchError } from "../array/errors.ts";
import { REDUCTION_RESERVED, bindArguments, checkUnique, headersFor, parseParams, typedefs, type Binding, type BuilderArgument, type KernelParam } from "./params.ts";
import { compileKernels, configFor, includeLines, type BuilderOptions } from "./compile.ts";

/** Options of a reduction builder. */
export interface ReductionOptions extends BuilderOptions {
  /** The type of partial results: a dtype name or a placeholder (default: the first output's type). */
  readonly reduceType?: string;
}

/** Threads per block of both launches (a power of two, for the shared-memory tree). */
export const REDUCTION_BLOCK = 256;

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

/** A reduction kernel builder (CuPy's ReductionKernel, over all elements). */
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
   * Reduces the inputs on `stream` into the outputs (0-d arrays, allocated when not given; a given one must hold one
   * element). Returns the output, or the list of outputs when there are several.
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
    // Outputs are 0-d: bind inputs for the shape, outputs for their dtypes only.
    const inputBinding = bindArguments(this.name, this.params.slice(0, this.#inputs), padded.slice(0, this.#inputs), device.id);
    const outGiven = padded.slice(this.#inputs);
    outGiven.forEach((o, j) => {
      if (o instanceof DeviceArray && o.size !== 1) {
        throw new ShapeMismatchError(`${this.name}: output ${this.params[this.#inputs + j]!.name} must hold one element, but has shape [${o.shape.join(", ")}]`);
      }
    });
    const outParams = this.params.slice(this.#inputs).map((p) => ({ ...p, raw: true })); // 0-d: no shape comparison
    const outBinding = bindArguments(this.name, outParams, outGiven, device.id, inputBinding.types);
    const binding: Binding = {
      types: outBinding.types,
      dtypes: [...inputBinding.dtypes, ...outBinding.dtypes],
      scalar: [...inputBinding.scalar, ...outBinding.scalar],
      shape: inputBinding.shape,
      key: `${inputBinding.key}|${outBinding.key}`,
    };
    const shape = inputBinding.shape;
    if (shape === undefined) throw new TypeError(`${this.name}: no input array was passed`);
    const n = elementCount(shape);
    const inst = this.#instance(device, binding);
    const outputs: DeviceArray[] = [];
    const inArgs: KernelArgument[] = [];
    const outArgs: KernelArgument[] = [];
    this.params.forEach((p, k) => {
      let a = padded[k];
      if (p.output) {
        if (a === undefined) a = DeviceArray.empty([], binding.dtypes[k]!, { stream: s });
        outputs.push(a as DeviceArray);
        outArgs.push(a as DeviceArray);
      } else {
        inArgs.push(binding.scalar[k] ? encodeElement(binding.dtypes[k]!, a as ArrayScalar) : (a as DeviceArray));
      }
    });
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
    return outputs.length === 1 ? outputs[0]! : outputs;
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
