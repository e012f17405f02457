/**
 * `BlasLt`: cuBLASLt matrix multiplication with fused epilogues (bias, ReLU, GELU), planned once per shape.
 *
 * ```ts
 * using lt = new BlasLt({ stream });                      // 32 MiB workspace from the device's memory resource
 * lt.matmul(x, w.T, y, { bias, activation: "relu" });     // y = relu(x·wᵀ + bias)
 * lt.matmul(x, w.T, y, { bias, activation: "relu" });     // the same shape again: the cached plan, no heuristic query
 * ```
 *
 * A plan (`MatmulPlan`) is the matmul descriptor, the three matrix layouts and the algorithm cuBLASLt's heuristic
 * chose, keyed by dtypes, compute type, shapes, strides and epilogue; `matmul` finds or makes it, then makes one
 * `cublasLtMatmul` call. Row-major arrays map as in `Blas` (see `plan.ts`): with a row-major C cuBLASLt computes
 * Cᵀ = Bᵀ·Aᵀ, so its bias vector, one value per row of Cᵀ, is one value per column of C: `bias` has C's column
 * count, as PyTorch's `Linear` bias. A bias needs a row-major C (ArrayLayoutError otherwise).
 *
 * @module
 */
import { cublasLt, type cublasLtHandle_t } from "../../../bindings/cublaslt.ts";
import { cublasLtEpilogue_t, cublasLtMatmulDescAttributes_t, cublasLtMatmulPreferenceAttributes_t, cublasLtMatrixLayoutAttribute_t } from "../../../../generated/cuda-13.0/cublaslt/enums.ts";
import { cublasLtMatmulHeuristicResult_t } from "../../../../generated/cuda-13.0/cublaslt/records.ts";
import { ffi, type Pointer, Scratch } from "../../../ffi/index.ts";
import { DeviceArray } from "../../array/device-array.ts";
import { describeValue } from "../../../errors/describe.ts";
import { contextScope } from "../../base/context-scope.ts";
import { track, untrack } from "../../base/lifetime.ts";
import { ArrayLayoutError, DTypeError, ShapeMismatchError } from "../../array/errors.ts";
import { ClosedError } from "../../base/errors.ts";
import type { Buffer } from "../../memory/buffer.ts";
import type { Stream } from "../../stream.ts";
import type { CUcontext } from "../../../bindings/driver.ts";
import { arrayPointer, type BlasWorkspaceOptions, checkWorkspace, orderStreamSwitch, requireEnumValue } from "./common.ts";
import { STREAM_OPTION, takeStream } from "../../base/stream-arg.ts";
import { type BlasComputeType, type BlasScalar, COMPUTE_TYPES_BY_VERSION, encodeScalar, type GemmGeometry, gemmGeometry, type GemmTypes, gemmTypes, SCALAR_DATA_TYPES } from "./plan.ts";
import { INTERNAL, checkInternal, type Internal } from "../../base/internal.ts";

/** An activation fused after the product (and the bias): `"relu"` or `"gelu"` (cuBLASLt's tanh approximation). */
export type BlasLtActivation = "relu" | "gelu";

/** Options of `new BlasLt`. */
export interface BlasLtOptions {
  /** The stream matmuls are ordered on (change it later with `lt.stream = other`). */
  readonly stream: Stream;
  /** The workspace (default 32 MiB from the stream's device's `memoryResource`; `{ size: 0 }` for none). */
  readonly workspace?: BlasWorkspaceOptions;
  /** How many plans to keep (default 64; the oldest is dropped first). */
  readonly maxPlans?: number;
}

/** Options of `matmul`. */
export interface MatmulOptions {
  /** C = act(alpha·A·B + beta·C + bias): alpha (default 1). */
  readonly alpha?: BlasScalar;
  /** beta (default 0). */
  readonly beta?: BlasScalar;
  /** A vector of C's column count and dtype, added to every row (needs a row-major C). */
  readonly bias?: DeviceArray;
  /** An activation applied last. */
  readonly activation?: BlasLtActivation;
  /** The compute type (default as in `Blas.gemm`; "32f-fast-tf32" for TF32 on float32). */
  readonly compute?: BlasComputeType;
}

/** The cublasLtEpilogue_t of each bias and activation. */
const EPILOGUE = Object.freeze({
  none: cublasLtEpilogue_t.CUBLASLT_EPILOGUE_DEFAULT,
  relu: cublasLtEpilogue_t.CUBLASLT_EPILOGUE_RELU,
  bias: cublasLtEpilogue_t.CUBLASLT_EPILOGUE_BIAS,
  "bias-relu": cublasLtEpilogue_t.CUBLASLT_EPILOGUE_RELU_BIAS,
  gelu: cublasLtEpilogue_t.CUBLASLT_EPILOGUE_GELU,
  "bias-gelu": cublasLtEpilogue_t.CUBLASLT_EPILOGUE_GELU_BIAS,
});
type EpilogueName = keyof typeof EPILOGUE;
const DESC = cublasLtMatmulDescAttributes_t;
const LAYOUT = cublasLtMatrixLayoutAttribute_t;
/** The heuristic's results: one cublasLtMatmulHeuristicResult_t each (its chosen algorithm's 64 bytes first). */
const HEURISTIC = cublasLtMatmulHeuristicResult_t;
const REQUESTED_ALGOS = 8;

/** The epilogue of a bias and an activation. */
export function epilogueOf(hasBias: boolean, activation: BlasLtActivation | undefined): EpilogueName {
  if (activation === undefined) return hasBias ? "bias" : "none";
  return hasBias ? (`bias-${activation}` as EpilogueName) : activation;
}

/** What a plan holds for cuBLASLt: made once with the plan, read by every matmul. */
interface PlanParts {
  readonly desc: Pointer;
  readonly layouts: readonly [Pointer, Pointer, Pointer];
  /** The heuristic results; the chosen algorithm's 64 bytes first. */
  readonly algo: Scratch;
  readonly types: GemmTypes;
}

/** A plan's parts (module state of MatmulPlan). */
let planParts: (plan: MatmulPlan) => PlanParts;
/** Destroys a plan's descriptor and layouts (with its BlasLt, or when dropped from the cache). */
let closePlan: (plan: MatmulPlan) => void;

/**
 * One planned matmul: cuBLASLt's descriptor, layouts and chosen algorithm for a shape, dtype and epilogue. Made and
 * cached by `BlasLt`; closed with it.
 */
export class MatmulPlan {
  /** The cache key (dtypes, compute type, shapes, strides, epilogue). */
  readonly key: string;
  /** The epilogue. */
  readonly epilogue: EpilogueName;
  /** The workspace bytes the chosen algorithm needs. */
  readonly workspaceSize: number;
  /** cuBLASLt's estimate of the chosen algorithm's waves (its occupancy of the GPU; 0 when it gives none). */
  readonly wavesCount: number;
  /** How many algorithms the heuristic offered for this problem. */
  readonly algorithmCount: number;
  readonly #parts: PlanParts;
  #closed = false;

  static {
    planParts = (plan) => plan.#parts;
    closePlan = (plan) => {
      if (plan.#closed) return;
      plan.#closed = true;
      destroyDescriptors(plan.#parts.desc, plan.#parts.layouts);
    };
  }

  /** Reserved to cuda-ts (the token is not exported): use `blasLt.plan(a, b, c)`. */
  constructor(token: Internal, key: string, epilogue: EpilogueName, parts: PlanParts, workspaceSize: number, wavesCount: number, algorithmCount: number) {
    checkInternal(token, "MatmulPlan", "blasLt.plan(a, b, c)");
    this.key = key;
    this.epilogue = epilogue;
    this.#parts = parts;
    this.workspaceSize = workspaceSize;
    this.wavesCount = wavesCount;
    this.algorithmCount = algorithmCount;
  }

  /** Whether the plan was closed (with its BlasLt, or dropped from the cache). */
  get isClosed(): boolean {
    return this.#closed;
  }
}

function destroyDescriptors(desc: Pointer, layouts: readonly Pointer[]): void {
  for (const l of layouts) if (l !== null) cublasLt.raw.cublasLtMatrixLayoutDestroy(l);
  if (desc !== null) cublasLt.raw.cublasLtMatmulDescDestroy(desc);
}

/** A cuBLASLt handle bound to a stream, with a workspace and a cache of matmul plans. */
export class BlasLt {
  #handle: cublasLtHandle_t;
  #stream: Stream;
  /** The context of the handle's device (made current around each call). */
  #context: CUcontext;
  readonly #device: number;
  #closed = false;
  #workspace: Buffer | undefined;
  #workspacePointer: Pointer = null;
  #workspaceSize = 0;
  readonly #maxPlans: number;
  readonly #plans = new Map<string, MatmulPlan>();
  readonly #scratch = new Scratch(48); // alpha at 0, beta at 16, attribute values at 32
  readonly #held: { handle: cublasLtHandle_t; plans: Map<string, MatmulPlan>; workspace: Buffer | undefined };

  /** Creates a cuBLASLt handle for the stream's device, with its workspace. */
  constructor(options: BlasLtOptions) {
    if (options === null || typeof options !== "object") throw new TypeError(`new BlasLt takes { stream, workspace?, maxPlans? }, not ${describeValue(options)}`);
    const stream = takeStream(options.stream, "new BlasLt", STREAM_OPTION);
    const ws = checkWorkspace(options.workspace ?? {}, "new BlasLt")!;
    const maxPlans = options.maxPlans ?? 64;
    if (!Number.isSafeInteger(maxPlans) || maxPlans < 1) throw new RangeError(`new BlasLt: maxPlans is a positive integer, not ${describeValue(options.maxPlans)}`);
    this.#maxPlans = maxPlans;
    this.#stream = stream;
    this.#context = stream.context.handle;
    this.#device = stream.device.id;
    {
      using _ = contextScope(stream.context.handle);
      this.#handle = cublasLt.cublasLtCreate();
    }
    const held = { handle: this.#handle, plans: this.#plans, workspace: undefined as Buffer | undefined };
    this.#held = held;
    track(this, "BlasLt", () => {
      for (const p of held.plans.values()) closePlan(p);
      cublasLt.cublasLtDestroy(held.handle);
    });
    if (ws.size > 0) {
      try {
        const buffer = (ws.memoryResource ?? stream.device.memoryResource).allocate(ws.size, { stream });
        this.#workspace = buffer;
        held.workspace = buffer;
        this.#workspacePointer = ffi.pointerFromAddress(BigInt(buffer.handle));
        this.#workspaceSize = ws.size;
      } catch (e) {
        this.close();
        throw e;
      }
    }
  }

  /** The cublasLtHandle_t, for calls through `cuda-ts/bindings/cublaslt`. */
  get handle(): cublasLtHandle_t {
    this.#check("use its handle");
    return this.#handle;
  }

  /** Whether `close()` was called. */
  get isClosed(): boolean {
    return this.#closed;
  }

  /** The id of the device the handle belongs to. */
  get deviceId(): number {
    return this.#device;
  }

  /** The stream matmuls are ordered on. */
  get stream(): Stream {
    return this.#stream;
  }

  /**
   * Orders later matmuls on another stream of the same device; with a workspace, that stream first waits for the work
   * queued on the old one (whose matmuls may still be using the workspace).
   */
  set stream(stream: Stream) {
    this.#check("set its stream");
    const s = takeStream(stream, "BlasLt.stream", { device: this.#device, deviceAdvice: "create a BlasLt for that device, or use a stream of this one" });
    if (this.#workspace !== undefined) orderStreamSwitch(this.#stream, s);
    this.#stream = s;
  }

  /** The workspace bytes. */
  get workspaceSize(): number {
    return this.#workspaceSize;
  }

  /** How many plans are cached. */
  get planCount(): number {
    return this.#plans.size;
  }

  /** Drops every cached plan. */
  clearPlans(): void {
    for (const p of this.#plans.values()) closePlan(p);
    this.#plans.clear();
  }

  /**
   * C = act(alpha·A·B + beta·C + bias), queued on the stream: A [m, k], B [k, n], C [m, n] (or batches [batch, ., .];
   * a 2-D input is used for every entry), row-major or transposed views; returns C.
   */
  matmul(a: DeviceArray, b: DeviceArray, c: DeviceArray, options: MatmulOptions = {}): DeviceArray {
    const action = "BlasLt.matmul";
    this.#check(action);
    const dev = this.#device;
    const pa = arrayPointer(a, "A", dev, action);
    const pb = arrayPointer(b, "B", dev, action);
    const pc = arrayPointer(c, "C", dev, action);
    const bias = options.bias;
    const pbias = bias === undefined ? null : arrayPointer(bias, "bias", dev, action);
    const plan = planParts(this.plan(a, b, c, options));
    const g = gemmGeometry(a, b, c, c.ndim === 3, action);
    const dv = this.#scratch.dv;
    encodeScalar(dv, 0, plan.types.scalar, options.alpha ?? 1, `${action}: alpha`);
    encodeScalar(dv, 16, plan.types.scalar, options.beta ?? 0, `${action}: beta`);
    if (g.plan.m === 0 || g.plan.n === 0 || g.batch === 0) return c;
    const [A, B] = g.plan.swap ? [pb, pa] : [pa, pb];
    using _ = contextScope(this.#context);
    if (pbias !== null) {
      this.#scratch.u64[4] = ffi.bigAddressOf(pbias);
      cublasLt.cublasLtMatmulDescSetAttribute(plan.desc, DESC.CUBLASLT_MATMUL_DESC_BIAS_POINTER, this.#scratch.pointerAt(32), 8);
    }
    const [la, lb, lc] = plan.layouts;
    cublasLt.cublasLtMatmul(this.#handle, plan.desc, this.#scratch.pointerAt(0), A, la, B, lb, this.#scratch.pointerAt(16), pc, lc, pc, lc, plan.algo.pointer, this.#workspacePointer, this.#workspaceSize, this.#stream.handle);
    return c;
  }

  /**
   * The plan `matmul` uses for these arrays and options (made now, with cuBLASLt's heuristic, if not cached). Typed
   * errors for shapes, dtypes, layouts; CUBLASError (CUBLAS_STATUS_NOT_SUPPORTED) when no algorithm fits.
   */
  plan(a: DeviceArray, b: DeviceArray, c: DeviceArray, options: MatmulOptions = {}): MatmulPlan {
    const action = "BlasLt.matmul";
    this.#check(action);
    for (const [name, x] of [["A", a], ["B", b], ["C", c]] as const) {
      if (!(x instanceof DeviceArray)) throw new TypeError(`${action}: ${name} must be a DeviceArray, not ${describeValue(x)}`);
    }
    const t = gemmTypes(a.dtype, b.dtype, c.dtype, options.compute, true, action);
    if (t.computeName.includes("emulated")) requireEnumValue(cublasLt, "cublasLtMatmulDescCreate", COMPUTE_TYPES_BY_VERSION, t.compute);
    const g = gemmGeometry(a, b, c, c.ndim === 3, action);
    const act = options.activation;
    if (act !== undefined && act !== "relu" && act !== "gelu") throw new TypeError(`${action}: activation is "relu" or "gelu", not ${describeValue(act)}`);
    const bias = options.bias;
    if (bias !== undefined) {
      if (!(bias instanceof DeviceArray)) throw new TypeError(`${action}: bias must be a DeviceArray, not ${describeValue(bias)}`);
      if (bias.dtype !== c.dtype) throw new DTypeError(`${action}: bias is ${bias.dtype.name} but C is ${c.dtype.name}; the bias has C's dtype`);
      if (bias.ndim !== 1 || bias.shape[0] !== g.n) throw new ShapeMismatchError(`${action}: bias has shape [${bias.shape.join(", ")}]; expected [${g.n}] (one value per column of C)`);
      if (bias.strides[0] !== 1 && g.n > 1) throw new ArrayLayoutError(`${action}: bias has stride ${bias.strides[0]}; cuBLASLt reads a contiguous vector: pass a copy`);
      if (!g.plan.swap) throw new ArrayLayoutError(`${action}: a bias needs a row-major C (strides [n, 1]); C has strides [${c.strides.join(", ")}]`);
    }
    if ((act !== undefined || bias !== undefined) && (c.dtype.kind === "c" || c.dtype.kind === "i")) {
      throw new DTypeError(`${action}: epilogues (bias, activations) take real floating-point C, not ${c.dtype.name}`);
    }
    const epilogue = epilogueOf(bias !== undefined, act);
    const p = g.plan;
    const key = `${a.dtype.name}>${c.dtype.name}|${t.computeName}|${p.transa}${p.transb}|${p.m},${p.n},${p.k}|${p.lda},${p.ldb},${p.ldc}|${g.batch}:${g.strideA},${g.strideB},${g.strideC}|${epilogue}`;
    const cached = this.#plans.get(key);
    if (cached !== undefined) return cached;
    const made = this.#makePlan(key, t, g, epilogue);
    if (this.#plans.size >= this.#maxPlans) {
      const oldest = this.#plans.keys().next().value as string;
      closePlan(this.#plans.get(oldest)!);
      this.#plans.delete(oldest);
    }
    this.#plans.set(key, made);
    return made;
  }

  #makePlan(key: string, t: GemmTypes, g: GemmGeometry, epilogue: EpilogueName): MatmulPlan {
    const s = this.#scratch;
    const value = s.pointerAt(32);
    const p = g.plan;
    let desc: Pointer = null;
    const layouts: [Pointer, Pointer, Pointer] = [null, null, null];
    let pref: Pointer = null;
    using _ = contextScope(this.#context);
    try {
      desc = cublasLt.cublasLtMatmulDescCreate(t.compute, SCALAR_DATA_TYPES[t.scalar]);
      const setDesc = (attr: cublasLtMatmulDescAttributes_t, v: number): void => {
        s.u32[8] = v;
        cublasLt.cublasLtMatmulDescSetAttribute(desc, attr, value, 4);
      };
      setDesc(DESC.CUBLASLT_MATMUL_DESC_TRANSA, p.transa);
      setDesc(DESC.CUBLASLT_MATMUL_DESC_TRANSB, p.transb);
      setDesc(DESC.CUBLASLT_MATMUL_DESC_EPILOGUE, EPILOGUE[epilogue]);
      if (epilogue.startsWith("bias")) setDesc(DESC.CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, t.cType);
      // The stored matrices (before op): cuBLAS's A is m x k under op N, k x m under op T; likewise B.
      const [sA, sB] = p.swap ? [g.strideB, g.strideA] : [g.strideA, g.strideB];
      const shapes: [GemmTypes["aType"], number, number, number, number][] = [
        [t.aType, p.transa === 0 ? p.m : p.k, p.transa === 0 ? p.k : p.m, p.lda, sA],
        [t.aType, p.transb === 0 ? p.k : p.n, p.transb === 0 ? p.n : p.k, p.ldb, sB],
        [t.cType, p.m, p.n, p.ldc, g.strideC],
      ];
      for (let i = 0; i < 3; i++) {
        const [type, rows, cols, ld, stride] = shapes[i]!;
        const l = cublasLt.cublasLtMatrixLayoutCreate(type, rows, cols, ld);
        layouts[i] = l;
        if (g.batch > 1) {
          s.i32[8] = g.batch;
          cublasLt.cublasLtMatrixLayoutSetAttribute(l, LAYOUT.CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, value, 4);
          s.i64[4] = BigInt(stride);
          cublasLt.cublasLtMatrixLayoutSetAttribute(l, LAYOUT.CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, value, 8);
        }
      }
      pref = cublasLt.cublasLtMatmulPreferenceCreate();
      s.u64[4] = BigInt(this.#workspaceSize);
      cublasLt.cublasLtMatmulPreferenceSetAttribute(pref, cublasLtMatmulPreferenceAttributes_t.CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, value, 8);
      const results = new Scratch(HEURISTIC.$size * REQUESTED_ALGOS);
      const count = cublasLt.cublasLtMatmulAlgoGetHeuristic(this.#handle, desc, layouts[0], layouts[1], layouts[2], layouts[2], pref, REQUESTED_ALGOS, results.pointer);
      if (count === 0) {
        throw new DTypeError(`BlasLt.matmul: cuBLASLt offers no algorithm for ${key} with ${this.#workspaceSize} bytes of workspace; try another compute type, epilogue or a larger workspace`);
      }
      const best = new HEURISTIC(results.buffer); // the first result: the heuristic's best
      const workspaceSize = Number(best.workspaceSize);
      const waves = best.wavesCount;
      return new MatmulPlan(INTERNAL, key, epilogue, { desc, layouts, algo: results, types: t }, workspaceSize, waves, count);
    } catch (e) {
      destroyDescriptors(desc, layouts);
      throw e;
    } finally {
      if (pref !== null) cublasLt.raw.cublasLtMatmulPreferenceDestroy(pref);
    }
  }

  #check(action: string): void {
    if (this.#closed) throw new ClosedError("this BlasLt", action);
  }

  /** Destroys the plans and the handle and frees the workspace (ordered on the stream). */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    untrack(this);
    this.clearPlans();
    try {
      using _ = contextScope(this.#context);
      cublasLt.cublasLtDestroy(this.#handle);
    } finally {
      this.#workspace?.close(this.#stream.isClosed ? undefined : this.#stream);
      this.#workspace = undefined;
      this.#held.workspace = undefined;
    }
  }

  [Symbol.dispose](): void {
    this.close();
  }

  toString(): string {
    return `BlasLt(device ${this.#device}, ${this.#plans.size} plans${this.#closed ? ", closed" : ""})`;
  }
}
