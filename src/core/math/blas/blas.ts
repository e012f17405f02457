/**
 * `Blas`: a cuBLAS handle bound to a stream, computing on DeviceArrays.
 *
 * ```ts
 * import { Blas } from "cuda-ts/math/blas";
 * using blas = new Blas({ stream });
 * using a = DeviceArray.from(new Float32Array(m * k), { stream, shape: [m, k] });
 * using b = DeviceArray.from(new Float32Array(k * n), { stream, shape: [k, n] });
 * using c = DeviceArray.empty([m, n], "float32", { stream });
 * blas.gemm(a, b, c);              // c = a·b (row-major, as the arrays are)
 * blas.gemm(a.T, b2, c2);          // a transposed view costs nothing: cuBLAS reads it with op T
 * blas.mathMode = "tf32";          // float32 gemms may use TF32 tensor cores
 * const norm = blas.nrm2(x);       // host result: waits for the stream
 * ```
 *
 * Arrays are row-major as DeviceArrays are; `plan.ts` explains how they map onto column-major cuBLAS (no copies:
 * a transposed or sliced view becomes op T and a leading dimension; a view with steps along both axes is an
 * ArrayLayoutError: pass a copy). Every argument is checked before cuBLAS is called: shapes (ShapeMismatchError),
 * dtypes and compute types (DTypeError), layouts (ArrayLayoutError), closed handles and arrays (ClosedError), arrays
 * or streams of another device (DeviceMismatchError). A failed call is the bindings' CUBLASError.
 *
 * Scalars (alpha, beta) are numbers (`[re, im]` for complex) read on the host, or one-element DeviceArrays of the
 * scalar type read on the device; results of dot, nrm2 and amax come back as numbers (the call waits for the stream,
 * as cuBLAS does in host pointer mode) or, with `{ out }`, are written to a DeviceArray without waiting. Each call
 * sets the handle's pointer mode its arguments need.
 *
 * @module
 */
import { cublas, type cublasHandle_t } from "../../../bindings/cublas.ts";
import { cublasEmulationStrategy_t, cublasGemmAlgo_t, cublasMath_t, cublasPointerMode_t } from "../../../../generated/cuda-13.0/cublas/enums.ts";
import { cublasMath_t as cublasMath_t_12_4 } from "../../../../generated/cuda-12.4/cublas/enums.ts";
import { ffi, type Pointer, Scratch } from "../../../ffi/index.ts";
import { DeviceArray } from "../../array/device-array.ts";
import { decodeBFloat16, decodeHalf, type DTypeName } from "../../array/dtype.ts";
import { describeValue } from "../../../errors/describe.ts";
import { contextScope } from "../../base/context-scope.ts";
import { track, untrack } from "../../base/lifetime.ts";
import { ClosedError } from "../../base/errors.ts";
import { DTypeError, ShapeMismatchError } from "../../array/errors.ts";
import type { Buffer } from "../../memory/buffer.ts";
import type { Stream } from "../../stream.ts";
import type { CUcontext } from "../../../bindings/driver.ts";
import { arrayPointer, type BlasWorkspaceOptions, checkWorkspace, orderStreamSwitch, requireEnumValue } from "./common.ts";
import { STREAM_OPTION, takeStream } from "../../base/stream-arg.ts";
import {
  type BlasComputeType,
  type BlasScalar,
  COMPUTE_TYPES_BY_VERSION,
  encodeScalar,
  fitsInt32,
  type GemmGeometry,
  gemmGeometry,
  type GemmTypes,
  gemmTypes,
  level1Types,
  type Op,
  planGemv,
  SCALAR_DATA_TYPES,
  SCALAR_DTYPES,
  type ScalarType,
  vectorBase,
  vectorInc,
} from "./plan.ts";

/**
 * cuBLAS's math mode (`cublasSetMathMode`):
 * - `"default"`: the precision the data asks for (tensor cores where that precision allows).
 * - `"tf32"`: float32 gemms (compute "32f") may use TF32 tensor cores.
 * - `"pedantic"`: the prescribed precision, no reduced-precision shortcuts (slower; for references).
 * - `"fp32-emulated-bf16x9"`: float32 emulated with bfloat16 tensor cores where cuBLAS offers it (Blackwell and newer).
 * - `"fp64-emulated-fixedpoint"`: float64 emulated with integer tensor cores where cuBLAS offers it.
 */
export type BlasMathMode = "default" | "tf32" | "pedantic" | "fp32-emulated-bf16x9" | "fp64-emulated-fixedpoint";

const MATH_MODES: Readonly<Record<BlasMathMode, cublasMath_t>> = Object.freeze({
  default: cublasMath_t.CUBLAS_DEFAULT_MATH,
  pedantic: cublasMath_t.CUBLAS_PEDANTIC_MATH,
  tf32: cublasMath_t.CUBLAS_TF32_TENSOR_OP_MATH,
  "fp32-emulated-bf16x9": cublasMath_t.CUBLAS_FP32_EMULATED_BF16X9_MATH,
  "fp64-emulated-fixedpoint": cublasMath_t.CUBLAS_FP64_EMULATED_FIXEDPOINT_MATH,
});

/** `cublasMath_t` as each carried CTK version declares it, newest first (12.4 lacks the emulated modes). */
const MATH_MODES_BY_VERSION = Object.freeze({ "13.0": cublasMath_t, "12.4": cublasMath_t_12_4 });

/** When cuBLAS uses emulation a math mode allows (`cublasSetEmulationStrategy`): `"default"`, `"performant"` (where faster), `"eager"` (always). */
export type BlasEmulationStrategy = "default" | "performant" | "eager";
const EMULATION_STRATEGIES: Readonly<Record<BlasEmulationStrategy, cublasEmulationStrategy_t>> = Object.freeze({
  default: cublasEmulationStrategy_t.CUBLAS_EMULATION_STRATEGY_DEFAULT,
  performant: cublasEmulationStrategy_t.CUBLAS_EMULATION_STRATEGY_PERFORMANT,
  eager: cublasEmulationStrategy_t.CUBLAS_EMULATION_STRATEGY_EAGER,
});
const HOST = cublasPointerMode_t.CUBLAS_POINTER_MODE_HOST;
const DEVICE = cublasPointerMode_t.CUBLAS_POINTER_MODE_DEVICE;

/** Where alpha and beta are read and results written: host memory or device memory (`cublasPointerMode_t`). */
export type BlasPointerMode = "host" | "device";

/** Options of `new Blas`. */
export interface BlasOptions {
  /** The stream the handle's work is ordered on (change it later with `blas.stream = other`). */
  readonly stream: Stream;
  /**
   * A workspace from a memory resource (`cublasSetWorkspace`): `{}` for 32 MiB from the stream's device's resource.
   * Default: none given, cuBLAS allocates its own.
   */
  readonly workspace?: BlasWorkspaceOptions;
  /** The math mode (default "default"). */
  readonly mathMode?: BlasMathMode;
}

/** A scalar argument: a number (`[re, im]` for complex) read on the host, or a one-element DeviceArray of the scalar type read on the device. */
export type BlasScalarArgument = BlasScalar | DeviceArray;

/** Options of the gemm family. */
export interface GemmOptions {
  /** C = alpha·A·B + beta·C: alpha (default 1). */
  readonly alpha?: BlasScalarArgument;
  /** beta (default 0: C is only written). */
  readonly beta?: BlasScalarArgument;
  /** The compute type (default: "32f" for float16, bfloat16, float32, complex64; "64f" for float64, complex128; "32i" for int8). */
  readonly compute?: BlasComputeType;
  /** A `cublasGemmAlgo_t` (default CUBLAS_GEMM_DEFAULT, -1; the others are ignored on Ampere and newer). */
  readonly algo?: cublasGemmAlgo_t;
}

/** Options of gemv. */
export interface GemvOptions {
  /** y = alpha·A·x + beta·y: alpha (default 1). */
  readonly alpha?: BlasScalarArgument;
  /** beta (default 0). */
  readonly beta?: BlasScalarArgument;
}

/** Options of the level-1 reductions (dot, nrm2, amax): where the result goes. */
export interface ReductionOptions {
  /** A one-element DeviceArray to write the result to without waiting (device pointer mode). */
  readonly out?: DeviceArray;
}

/** Options of dot. */
export interface DotOptions extends ReductionOptions {
  /** Conjugate x (dotc) for complex vectors (default false: dotu). */
  readonly conjugate?: boolean;
}

/** A host result: a number, or `[re, im]` for complex. */
export type BlasResult = number | [number, number];

const SCRATCH_BYTES = 64; // alpha at 0, beta at 16, a result at 32
const ALPHA = 0;
const BETA = 16;
const RESULT = 32;

/** A cuBLAS handle bound to a stream: gemm (every dtype, batched, mixed precision), gemv and level-1 operations on DeviceArrays. */
export class Blas {
  #handle: cublasHandle_t;
  #stream: Stream;
  /** The context of the handle's device (made current around each call). */
  #context: CUcontext;
  readonly #device: number;
  #closed = false;
  #workspace: Buffer | undefined;
  #pointerMode: cublasPointerMode_t = HOST;
  #mathMode: BlasMathMode = "default";
  #reducedPrecisionReduction = true;
  readonly #scratch = new Scratch(SCRATCH_BYTES);
  readonly #alpha: Pointer;
  readonly #beta: Pointer;
  readonly #result: Pointer;
  /** Where the next call reads alpha and beta: the host scratch, or device scalars' memory. */
  #alphaArg: Pointer = null;
  #betaArg: Pointer = null;
  /** The last gemm's arrays and what was worked out for them (reused when the same arrays come again). */
  #last: { a: DeviceArray; b: DeviceArray; c: DeviceArray; compute: BlasComputeType | undefined; mixed: boolean; batched: boolean; t: GemmTypes; g: GemmGeometry } | undefined;
  /** What the finalizer needs (never `this`): the handle and the workspace it must outlive. */
  readonly #held: { handle: cublasHandle_t; workspace: Buffer | undefined };

  /** Creates a cuBLAS handle on the stream's device, bound to the stream. */
  constructor(options: BlasOptions) {
    if (options === null || typeof options !== "object") throw new TypeError(`new Blas takes { stream, workspace?, mathMode? }, not ${describeValue(options)}`);
    const stream = takeStream(options.stream, "new Blas", STREAM_OPTION);
    const ws = checkWorkspace(options.workspace, "new Blas");
    if (options.mathMode !== undefined) checkMathMode(options.mathMode);
    this.#stream = stream;
    this.#context = stream.context.handle;
    this.#device = stream.device.id;
    this.#alpha = this.#scratch.pointerAt(ALPHA);
    this.#beta = this.#scratch.pointerAt(BETA);
    this.#result = this.#scratch.pointerAt(RESULT);
    {
      using _ = contextScope(stream.context.handle);
      this.#handle = cublas.cublasCreate();
    }
    const held = { handle: this.#handle, workspace: undefined as Buffer | undefined };
    this.#held = held;
    track(this, "Blas", () => {
      cublas.cublasDestroy(held.handle);
    });
    try {
      cublas.cublasSetStream(this.#handle, stream.handle);
      if (ws !== undefined) this.#allocateWorkspace(ws.size, ws.memoryResource);
      if (options.mathMode !== undefined) this.mathMode = options.mathMode;
    } catch (e) {
      this.close();
      throw e;
    }
  }

  /** The cublasHandle_t, for calls through `cuda-ts/bindings/cublas` (ClosedError when closed). */
  get handle(): cublasHandle_t {
    this.#check("use its handle");
    return this.#handle;
  }

  /** The id of the device the handle belongs to. */
  get deviceId(): number {
    return this.#device;
  }

  /** Whether `close()` was called. */
  get isClosed(): boolean {
    return this.#closed;
  }

  /** The stream the handle's work is ordered on. */
  get stream(): Stream {
    return this.#stream;
  }

  /** Binds the handle to another stream of its device (`cublasSetStream`; the workspace given is set again, as cuBLAS forgets it). */
  set stream(stream: Stream) {
    this.setStream(stream);
  }

  /**
   * Binds the handle to another stream of its device; DeviceMismatchError for a stream of another device. With a
   * workspace of its own (`workspace` option, `setWorkspace`), the new stream first waits for the work queued on the
   * old one, whose calls may still be using that workspace.
   */
  setStream(stream: Stream): void {
    this.#check("set its stream");
    const s = takeStream(stream, "Blas.setStream", { device: this.#device, deviceAdvice: "create a Blas for that device, or use a stream of this one" });
    const ws = this.#workspace;
    // The workspace is the handle's, not the stream's: the new stream waits for what the old one was given.
    if (ws !== undefined) orderStreamSwitch(this.#stream, s);
    cublas.cublasSetStream(this.#handle, s.handle);
    this.#stream = s;
    if (ws !== undefined) cublas.cublasSetWorkspace(this.#handle, ffi.pointerFromAddress(BigInt(ws.handle)), ws.size);
  }

  /** The workspace given to cuBLAS (undefined: cuBLAS's own). */
  get workspace(): Buffer | undefined {
    return this.#workspace;
  }

  /**
   * Gives cuBLAS a workspace of `size` bytes (default 32 MiB) from `memoryResource` (default: the stream's device's),
   * allocated on the handle's stream; the previous one is freed on that stream. `size` 0 makes cuBLAS use none.
   */
  setWorkspace(options: BlasWorkspaceOptions = {}): void {
    this.#check("set its workspace");
    const ws = checkWorkspace(options, "Blas.setWorkspace")!;
    this.#allocateWorkspace(ws.size, ws.memoryResource);
  }

  #allocateWorkspace(size: number, mr: BlasWorkspaceOptions["memoryResource"]): void {
    const stream = this.#stream;
    const buffer = size === 0 ? undefined : (mr ?? stream.device.memoryResource).allocate(size, { stream });
    try {
      cublas.cublasSetWorkspace(this.#handle, buffer === undefined ? null : ffi.pointerFromAddress(BigInt(buffer.handle)), size);
    } catch (e) {
      buffer?.close(stream);
      throw e;
    }
    this.#workspace?.close(stream);
    this.#workspace = buffer;
    this.#held.workspace = buffer;
  }

  /** The math mode (see {@link BlasMathMode}). */
  get mathMode(): BlasMathMode {
    return this.#mathMode;
  }

  /** Sets the math mode (`cublasSetMathMode`). */
  set mathMode(mode: BlasMathMode) {
    this.#check("set its math mode");
    checkMathMode(mode);
    this.#setMath(mode, this.#reducedPrecisionReduction);
  }

  /**
   * Whether float16/bfloat16 gemms may reduce in lower precision than their compute type (default true;
   * false sets CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION).
   */
  get reducedPrecisionReduction(): boolean {
    return this.#reducedPrecisionReduction;
  }

  set reducedPrecisionReduction(allowed: boolean) {
    this.#check("set its math mode");
    if (typeof allowed !== "boolean") throw new TypeError(`Blas.reducedPrecisionReduction is a boolean, not ${describeValue(allowed)}`);
    this.#setMath(this.#mathMode, allowed);
  }

  #setMath(mode: BlasMathMode, reduced: boolean): void {
    // The flag ORed into the mode: cuBLAS takes the combination where the enum says a mode (cublas_api.h).
    const flags = reduced ? 0 : cublasMath_t.CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION;
    if (mode.includes("emulated")) requireEnumValue(cublas, "cublasSetMathMode", MATH_MODES_BY_VERSION, MATH_MODES[mode]);
    cublas.cublasSetMathMode(this.#handle, (MATH_MODES[mode] | flags) as cublasMath_t);
    this.#mathMode = mode;
    this.#reducedPrecisionReduction = reduced;
  }

  /** When cuBLAS emulates what the math mode allows (`cublasGetEmulationStrategy`; cuBLAS 12.9 and newer). */
  get emulationStrategy(): BlasEmulationStrategy {
    this.#check("read its emulation strategy");
    const v = cublas.cublasGetEmulationStrategy(this.#handle);
    return (Object.keys(EMULATION_STRATEGIES) as BlasEmulationStrategy[]).find((k) => EMULATION_STRATEGIES[k] === v) ?? "default";
  }

  /** Sets the emulation strategy (`cublasSetEmulationStrategy`). */
  set emulationStrategy(strategy: BlasEmulationStrategy) {
    this.#check("set its emulation strategy");
    if (!Object.hasOwn(EMULATION_STRATEGIES, strategy)) throw new TypeError(`Blas.emulationStrategy is one of ${Object.keys(EMULATION_STRATEGIES).join(", ")}, not ${describeValue(strategy)}`);
    cublas.cublasSetEmulationStrategy(this.#handle, EMULATION_STRATEGIES[strategy]);
  }

  /** The pointer mode the handle is in now (each call sets the one its arguments need; this is for raw calls on `handle`). */
  get pointerMode(): BlasPointerMode {
    return this.#pointerMode === HOST ? "host" : "device";
  }

  set pointerMode(mode: BlasPointerMode) {
    this.#check("set its pointer mode");
    if (mode !== "host" && mode !== "device") throw new TypeError(`Blas.pointerMode is "host" or "device", not ${describeValue(mode)}`);
    this.#setPointerMode(mode === "host" ? HOST : DEVICE);
  }

  #setPointerMode(mode: cublasPointerMode_t): void {
    if (this.#pointerMode === mode) return;
    cublas.cublasSetPointerMode(this.#handle, mode);
    this.#pointerMode = mode;
  }

  // ---- level 3 ----

  /**
   * C = alpha·A·B + beta·C for 2-D arrays A [m, k], B [k, n], C [m, n] of one dtype (float16, bfloat16, float32,
   * float64, complex64, complex128), row-major or transposed views; `compute` picks the accumulation. Queued on the
   * handle's stream; returns C.
   */
  gemm<N extends DTypeName>(a: DeviceArray<N>, b: DeviceArray<N>, c: DeviceArray<N>, options: GemmOptions = {}): DeviceArray<N> {
    return this.#gemm(a, b, c, options, false, false, "Blas.gemm");
  }

  /**
   * As {@link Blas.gemm} with mixed precision (`cublasGemmEx`): float16/bfloat16 inputs into a float32 C, int8
   * into int32 (compute "32i") or float32, and every same-dtype case gemm takes.
   */
  gemmEx(a: DeviceArray, b: DeviceArray, c: DeviceArray, options: GemmOptions = {}): DeviceArray {
    return this.#gemm(a, b, c, options, true, false, "Blas.gemmEx");
  }

  /**
   * A batch of gemms over 3-D arrays [batch, rows, cols] (`cublasGemmStridedBatchedEx`): C[i] = alpha·A[i]·B[i] +
   * beta·C[i]. An input of 2-D shape (or batch 1) is used for every entry (stride 0). Mixed precision as gemmEx.
   */
  gemmStridedBatched(a: DeviceArray, b: DeviceArray, c: DeviceArray, options: GemmOptions = {}): DeviceArray {
    return this.#gemm(a, b, c, options, true, true, "Blas.gemmStridedBatched");
  }

  #gemm<T extends DeviceArray>(a: DeviceArray, b: DeviceArray, c: T, options: GemmOptions, mixed: boolean, batched: boolean, action: string): T {
    this.#check(action);
    const dev = this.#device;
    const pa = arrayPointer(a, "A", dev, action);
    const pb = arrayPointer(b, "B", dev, action);
    const pc = arrayPointer(c, "C", dev, action);
    // The arrays of the last call again (a loop's usual case): their dtypes, shapes and strides cannot have changed.
    const last = this.#last;
    let t: GemmTypes;
    let g: GemmGeometry;
    if (last !== undefined && last.a === a && last.b === b && last.c === c && last.compute === options.compute && last.mixed === mixed && last.batched === batched) {
      t = last.t;
      g = last.g;
    } else {
      t = gemmTypes(a.dtype, b.dtype, c.dtype, options.compute, mixed, action);
      if (t.computeName.includes("emulated")) requireEnumValue(cublas, "cublasGemmEx", COMPUTE_TYPES_BY_VERSION, t.compute);
      g = gemmGeometry(a, b, c, batched, action);
      this.#last = { a, b, c, compute: options.compute, mixed, batched, t, g };
    }
    const algo = checkAlgo(options.algo, action);
    this.#scalars(t.scalar, options.alpha ?? 1, options.beta ?? 0, action);
    const p = g.plan;
    if (p.m === 0 || p.n === 0 || g.batch === 0) return c;
    using _ = contextScope(this.#context);
    if (p.swap) this.#callGemm(t, p.transa, p.transb, p.m, p.n, p.k, pb, p.lda, pa, p.ldb, pc, p.ldc, batched, g.strideB, g.strideA, g.strideC, g.batch, algo);
    else this.#callGemm(t, p.transa, p.transb, p.m, p.n, p.k, pa, p.lda, pb, p.ldb, pc, p.ldc, batched, g.strideA, g.strideB, g.strideC, g.batch, algo);
    return c;
  }

  #callGemm(t: GemmTypes, opA: Op, opB: Op, m: number, n: number, k: number, A: Pointer, lda: number, B: Pointer, ldb: number, C: Pointer, ldc: number, batched: boolean, sA: number, sB: number, sC: number, batch: number, al: cublasGemmAlgo_t): void {
    const h = this.#handle;
    const aT = t.aType;
    const cT = t.cType;
    const comp = t.compute;
    const small = fitsInt32(m, n, k, lda, ldb, ldc, batch);
    if (!batched) {
      if (small) cublas.cublasGemmEx(h, opA, opB, m, n, k, this.#alphaArg, A, aT, lda, B, aT, ldb, this.#betaArg, C, cT, ldc, comp, al);
      else cublas.cublasGemmEx_64(h, opA, opB, m, n, k, this.#alphaArg, A, aT, lda, B, aT, ldb, this.#betaArg, C, cT, ldc, comp, al);
    } else if (small) {
      cublas.cublasGemmStridedBatchedEx(h, opA, opB, m, n, k, this.#alphaArg, A, aT, lda, sA, B, aT, ldb, sB, this.#betaArg, C, cT, ldc, sC, batch, comp, al);
    } else {
      cublas.cublasGemmStridedBatchedEx_64(h, opA, opB, m, n, k, this.#alphaArg, A, aT, lda, sA, B, aT, ldb, sB, this.#betaArg, C, cT, ldc, sC, batch, comp, al);
    }
  }

  /**
   * A batch of gemms over lists of arrays (`cublasGemmBatchedEx`): C[i] = alpha·A[i]·B[i] + beta·C[i], each list's
   * arrays of one shape, dtype and layout (anywhere in memory). The pointer lists are copied to the device on the
   * handle's stream (memory from the stream's device's resource, freed on the stream after the call).
   */
  gemmBatched(as: readonly DeviceArray[], bs: readonly DeviceArray[], cs: readonly DeviceArray[], options: GemmOptions = {}): readonly DeviceArray[] {
    const action = "Blas.gemmBatched";
    this.#check(action);
    for (const [name, list] of [["as", as], ["bs", bs], ["cs", cs]] as const) {
      if (!Array.isArray(list)) throw new TypeError(`${action}: ${name} must be an array of DeviceArrays, not ${describeValue(list)}`);
    }
    const batch = cs.length;
    if (as.length !== batch || bs.length !== batch) throw new ShapeMismatchError(`${action}: ${as.length} A matrices, ${bs.length} B matrices and ${batch} C matrices; give one of each per batch entry`);
    if (batch === 0) return cs;
    const a0 = as[0]!;
    const b0 = bs[0]!;
    const c0 = cs[0]!;
    const t = gemmTypes(a0.dtype, b0.dtype, c0.dtype, options.compute, true, action);
    if (t.computeName.includes("emulated")) requireEnumValue(cublas, "cublasGemmBatchedEx", COMPUTE_TYPES_BY_VERSION, t.compute);
    const g = gemmGeometry(a0, b0, c0, false, action);
    const pointers = new BigUint64Array(3 * batch);
    const dev = this.#device;
    for (const [name, list, first, base] of [["A", as, a0, 0], ["B", bs, b0, batch], ["C", cs, c0, 2 * batch]] as const) {
      for (let i = 0; i < batch; i++) {
        const x = list[i]!;
        const p = arrayPointer(x, `${name}[${i}]`, dev, action);
        if (x.dtype !== first.dtype) throw new DTypeError(`${action}: ${name}[${i}] is ${x.dtype.name} but ${name}[0] is ${first.dtype.name}; one dtype per list`);
        if (!sameLayout(x, first)) {
          throw new ShapeMismatchError(`${action}: ${name}[${i}] has shape [${x.shape.join(", ")}] and strides [${x.strides.join(", ")}] but ${name}[0] has [${first.shape.join(", ")}] and [${first.strides.join(", ")}]; one layout per list`);
        }
        pointers[base + i] = BigInt(ffi.bigAddressOf(p));
      }
    }
    const algo = checkAlgo(options.algo, action);
    this.#scalars(t.scalar, options.alpha ?? 1, options.beta ?? 0, action);
    const p = g.plan;
    if (p.m === 0 || p.n === 0) return cs;
    if (!fitsInt32(p.m, p.n, p.k, p.lda, p.ldb, p.ldc, batch)) throw new ShapeMismatchError(`${action}: extents beyond 2^31-1; use gemmStridedBatched`);
    const stream = this.#stream;
    using list = DeviceArray.from(pointers, { stream });
    const base = list.address;
    const at = (i: number): Pointer => ffi.pointerFromAddress(base + BigInt(i * 8 * batch));
    const [A, B] = p.swap ? [at(1), at(0)] : [at(0), at(1)];
    using _ = contextScope(this.#context);
    cublas.cublasGemmBatchedEx(this.#handle, p.transa, p.transb, p.m, p.n, p.k, this.#alphaArg, A, t.aType, p.lda, B, t.aType, p.ldb, this.#betaArg, at(2), t.cType, p.ldc, batch, t.compute, algo);
    return cs;
  }

  /** A new C = A·B (2-D, or 3-D batches through gemmStridedBatched), allocated on the handle's stream. */
  matmul<N extends DTypeName>(a: DeviceArray<N>, b: DeviceArray<N>, options: GemmOptions = {}): DeviceArray<N> {
    this.#check("Blas.matmul");
    if (!(a instanceof DeviceArray) || !(b instanceof DeviceArray)) throw new TypeError(`Blas.matmul takes two DeviceArrays, not ${describeValue(a)} and ${describeValue(b)}`);
    const batched = a.ndim === 3 || b.ndim === 3;
    const rows = a.shape[a.ndim - 2];
    const cols = b.shape[b.ndim - 1];
    if (rows === undefined || cols === undefined) throw new ShapeMismatchError(`Blas.matmul: A has shape [${a.shape.join(", ")}] and B [${b.shape.join(", ")}]; expected matrices or batches of them`);
    const shape = batched ? [a.ndim === 3 ? a.shape[0]! : b.shape[0]!, rows, cols] : [rows, cols];
    const c = DeviceArray.empty(shape, a.dtype, { stream: this.#stream });
    try {
      if (batched) this.#gemm(a, b, c, { ...options, beta: 0 }, false, true, "Blas.matmul");
      else this.#gemm(a, b, c, { ...options, beta: 0 }, false, false, "Blas.matmul");
    } catch (e) {
      c.close();
      throw e;
    }
    return c;
  }

  // ---- level 2 ----

  /** y = alpha·A·x + beta·y for A [m, n] (row-major or a transposed view), x [n], y [m] (any non-zero strides); float32, float64, complex64, complex128. */
  gemv<N extends DTypeName>(a: DeviceArray<N>, x: DeviceArray<N>, y: DeviceArray<N>, options: GemvOptions = {}): DeviceArray<N> {
    const action = "Blas.gemv";
    this.#check(action);
    const dev = this.#device;
    const pa = arrayPointer(a, "A", dev, action);
    arrayPointer(x, "x", dev, action);
    arrayPointer(y, "y", dev, action);
    if (a.dtype !== x.dtype || a.dtype !== y.dtype) throw new DTypeError(`${action}: A is ${a.dtype.name}, x ${x.dtype.name}, y ${y.dtype.name}; one dtype for all three`);
    const p = planGemv(a, x, y, action);
    const px = arrayPointer(x, "x", dev, action, vectorBase(x.shape[0]!, p.incx));
    const py = arrayPointer(y, "y", dev, action, vectorBase(y.shape[0]!, p.incy));
    const fn = GEMV[a.dtype.name];
    if (fn === undefined) throw new DTypeError(`${action}: cuBLAS's gemv takes float32, float64, complex64, complex128, not ${a.dtype.name}; for 16-bit types use gemm with [n, 1] matrices`);
    this.#scalars(level1Types(a.dtype, action).scalar, options.alpha ?? 1, options.beta ?? 0, action);
    if (p.m === 0 || p.n === 0) return y;
    if (!fitsInt32(p.m, p.n, p.lda, p.incx, p.incy)) throw new ShapeMismatchError(`${action}: extents beyond 2^31-1`);
    using _ = contextScope(this.#context);
    cublas[fn](this.#handle, p.trans, p.m, p.n, this.#alphaArg, pa, p.lda, px, p.incx, this.#betaArg, py, p.incy);
    return y;
  }

  // ---- level 1 ----

  /** y = alpha·x + y (`cublasAxpyEx`), x and y vectors of one dtype and length. */
  axpy<N extends DTypeName>(alpha: BlasScalarArgument, x: DeviceArray<N>, y: DeviceArray<N>): DeviceArray<N> {
    const action = "Blas.axpy";
    const { px, py, incx, incy, n, t } = this.#twoVectors(x, y, action);
    this.#scalars(t.scalar, alpha, undefined, action);
    if (n === 0) return y;
    using _ = contextScope(this.#context);
    cublas.cublasAxpyEx(this.#handle, n, this.#alphaArg, SCALAR_DATA_TYPES[t.scalar], px, t.data, incx, py, t.data, incy, t.execution);
    return y;
  }

  /** x = alpha·x (`cublasScalEx`). */
  scal<N extends DTypeName>(alpha: BlasScalarArgument, x: DeviceArray<N>): DeviceArray<N> {
    const action = "Blas.scal";
    this.#check(action);
    const [px, incx, n] = this.#vector(x, action);
    const t = level1Types(x.dtype, action);
    this.#scalars(t.scalar, alpha, undefined, action);
    if (n === 0) return x;
    using _ = contextScope(this.#context);
    cublas.cublasScalEx(this.#handle, n, this.#alphaArg, SCALAR_DATA_TYPES[t.scalar], px, t.data, incx, t.execution);
    return x;
  }

  /** The dot product x·y (`cublasDotEx`, or `cublasDotcEx` with `conjugate`): a host number (waits), or written to `out`. */
  dot(x: DeviceArray, y: DeviceArray, options: DotOptions & { readonly out: DeviceArray }): DeviceArray;
  dot(x: DeviceArray, y: DeviceArray, options?: DotOptions): BlasResult;
  dot(x: DeviceArray, y: DeviceArray, options: DotOptions = {}): BlasResult | DeviceArray {
    const action = "Blas.dot";
    const { px, py, incx, incy, n, t } = this.#twoVectors(x, y, action);
    const out = this.#resultPointer(options.out, t.dotScalar, action);
    const fn = options.conjugate === true ? "cublasDotcEx" : "cublasDotEx";
    {
      using _ = contextScope(this.#context);
      cublas[fn](this.#handle, n, px, t.data, incx, py, t.data, incy, out, t.data, t.execution);
    }
    return options.out ?? this.#readResult(t.dotScalar);
  }

  /** The Euclidean norm of x (`cublasNrm2Ex`): a host number (waits), or written to `out` (the real dtype). */
  nrm2(x: DeviceArray, options: ReductionOptions & { readonly out: DeviceArray }): DeviceArray;
  nrm2(x: DeviceArray, options?: ReductionOptions): number;
  nrm2(x: DeviceArray, options: ReductionOptions = {}): number | DeviceArray {
    const action = "Blas.nrm2";
    this.#check(action);
    const [px, incx, n] = this.#vector(x, action);
    const t = level1Types(x.dtype, action);
    const out = this.#resultPointer(options.out, t.normScalar, action);
    {
      using _ = contextScope(this.#context);
      cublas.cublasNrm2Ex(this.#handle, n, px, t.data, incx, out, t.normType, t.execution);
    }
    return options.out ?? (this.#readResult(t.normScalar) as number);
  }

  /**
   * The index of the element of largest magnitude (|re| + |im| for complex), 0-based, as a host number (waits); with
   * `out` (an int32 DeviceArray) cuBLAS's own 1-based index is written there. float32, float64, complex64, complex128.
   */
  amax(x: DeviceArray, options: ReductionOptions & { readonly out: DeviceArray }): DeviceArray;
  amax(x: DeviceArray, options?: ReductionOptions): number;
  amax(x: DeviceArray, options: ReductionOptions = {}): number | DeviceArray {
    const action = "Blas.amax";
    this.#check(action);
    const [px, incx, n] = this.#vector(x, action);
    const fn = AMAX[x.dtype.name];
    if (fn === undefined) throw new DTypeError(`${action}: cuBLAS's amax takes float32, float64, complex64, complex128, not ${x.dtype.name}`);
    const reversed = x.strides[0]! < 0;
    const out = this.#resultPointer(options.out, "i32", action);
    {
      using _ = contextScope(this.#context);
      cublas[fn](this.#handle, n, px, incx, out);
    }
    if (options.out !== undefined) return options.out;
    const found = this.#scratch.readI32(RESULT) - 1;
    return found < 0 ? -1 : reversed ? n - 1 - found : found;
  }

  #twoVectors(x: DeviceArray, y: DeviceArray, action: string): { px: Pointer; py: Pointer; incx: number; incy: number; n: number; t: ReturnType<typeof level1Types> } {
    this.#check(action);
    const dev = this.#device;
    arrayPointer(x, "x", dev, action);
    arrayPointer(y, "y", dev, action);
    if (x.dtype !== y.dtype) throw new DTypeError(`${action}: x is ${x.dtype.name} but y is ${y.dtype.name}; one dtype for both`);
    const t = level1Types(x.dtype, action);
    const incx = vectorInc(x, "x", action);
    const incy = vectorInc(y, "y", action);
    if (x.shape[0] !== y.shape[0]) throw new ShapeMismatchError(`${action}: x has ${x.shape[0]} elements but y has ${y.shape[0]}`);
    const n = x.shape[0]!;
    const px = arrayPointer(x, "x", dev, action, vectorBase(n, incx));
    const py = arrayPointer(y, "y", dev, action, vectorBase(n, incy));
    checkLength(n, Math.max(Math.abs(incx), Math.abs(incy)), action);
    return { px, py, incx, incy, n, t };
  }

  /**
   * A vector of one operand (scal, nrm2, amax), checked: its lowest address and positive stride (the order of its
   * elements does not matter to these, and BLAS takes only positive strides there), and its length.
   */
  #vector(x: DeviceArray, action: string): [Pointer, number, number] {
    arrayPointer(x, "x", this.#device, action);
    const inc = vectorInc(x, "x", action);
    const n = x.shape[0]!;
    checkLength(n, inc, action);
    return [arrayPointer(x, "x", this.#device, action, vectorBase(n, inc)), Math.abs(inc), n];
  }

  // ---- scalars and results ----

  /** Writes alpha (and beta) where cuBLAS reads them, setting the pointer mode their kind needs. */
  #scalars(type: ScalarType, alpha: BlasScalarArgument, beta: BlasScalarArgument | undefined, action: string): void {
    const onDevice = alpha instanceof DeviceArray;
    if (beta !== undefined && (beta instanceof DeviceArray) !== onDevice) {
      throw new TypeError(`${action}: alpha and beta are both numbers (host) or both DeviceArrays (device), not one of each`);
    }
    if (!onDevice) {
      const dv = this.#scratch.dv;
      encodeScalar(dv, ALPHA, type, alpha, `${action}: alpha`);
      if (beta !== undefined) encodeScalar(dv, BETA, type, beta as BlasScalar, `${action}: beta`);
      this.#setPointerMode(HOST);
      this.#alphaArg = this.#alpha;
      this.#betaArg = this.#beta;
      return;
    }
    // Device scalars: the pointers of the arrays go where the host values' pointers would.
    const a = this.#deviceScalar(alpha, type, "alpha", action);
    const b = beta === undefined ? null : this.#deviceScalar(beta as DeviceArray, type, "beta", action);
    this.#setPointerMode(DEVICE);
    this.#alphaArg = a;
    this.#betaArg = b;
  }


  #deviceScalar(x: DeviceArray, type: ScalarType, name: string, action: string): Pointer {
    const want = SCALAR_DTYPES[type];
    if (x.dtype.name !== want) throw new DTypeError(`${action}: ${name} is a ${x.dtype.name} DeviceArray but this call computes in ${want}; pass a one-element ${want} array (or a number)`);
    if (x.size !== 1) throw new ShapeMismatchError(`${action}: ${name} has ${x.size} elements (shape [${x.shape.join(", ")}]); a device scalar is one element`);
    return arrayPointer(x, name, this.#device, action);
  }

  /** Where a reduction writes its result: `out` (device mode, checked) or the host scratch (host mode). */
  #resultPointer(out: DeviceArray | undefined, type: ScalarType, action: string): Pointer {
    if (out === undefined) {
      this.#setPointerMode(HOST);
      return this.#result;
    }
    const p = this.#deviceScalar(out, type, "out", action);
    this.#setPointerMode(DEVICE);
    return p;
  }

  #readResult(type: ScalarType): BlasResult {
    const s = this.#scratch;
    switch (type) {
      case "f16":
        return decodeHalf(s.dv.getUint16(RESULT, true));
      case "bf16":
        return decodeBFloat16(s.dv.getUint16(RESULT, true));
      case "f32":
        return s.dv.getFloat32(RESULT, true);
      case "f64":
        return s.dv.getFloat64(RESULT, true);
      case "c32":
        return [s.dv.getFloat32(RESULT, true), s.dv.getFloat32(RESULT + 4, true)];
      case "c64":
        return [s.dv.getFloat64(RESULT, true), s.dv.getFloat64(RESULT + 8, true)];
      case "i32":
        return s.dv.getInt32(RESULT, true);
    }
  }

  // ---- lifetime ----

  #check(action: string): void {
    if (this.#closed) throw new ClosedError("this Blas", action);
  }

  /** Destroys the handle (after the work queued on its stream) and frees the workspace on the stream. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#last = undefined;
    untrack(this);
    try {
      using _ = contextScope(this.#context);
      cublas.cublasDestroy(this.#handle);
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
    return `Blas(device ${this.#device}, math ${this.#mathMode}${this.#closed ? ", closed" : ""})`;
  }
}

const GEMV: Partial<Record<DTypeName, "cublasSgemv" | "cublasDgemv" | "cublasCgemv" | "cublasZgemv">> = { float32: "cublasSgemv", float64: "cublasDgemv", complex64: "cublasCgemv", complex128: "cublasZgemv" };
const AMAX: Partial<Record<DTypeName, "cublasIsamax" | "cublasIdamax" | "cublasIcamax" | "cublasIzamax">> = { float32: "cublasIsamax", float64: "cublasIdamax", complex64: "cublasIcamax", complex128: "cublasIzamax" };

function checkMathMode(mode: unknown): asserts mode is BlasMathMode {
  if (typeof mode !== "string" || !Object.hasOwn(MATH_MODES, mode)) throw new TypeError(`Blas.mathMode is one of ${Object.keys(MATH_MODES).join(", ")}, not ${describeValue(mode)}`);
}

const GEMM_ALGOS: ReadonlySet<unknown> = new Set(Object.values(cublasGemmAlgo_t));

function checkAlgo(algo: unknown, action: string): cublasGemmAlgo_t {
  if (algo === undefined) return cublasGemmAlgo_t.CUBLAS_GEMM_DEFAULT;
  if (!isGemmAlgo(algo)) throw new TypeError(`${action}: algo is a cublasGemmAlgo_t (CUBLAS_GEMM_DEFAULT, CUBLAS_GEMM_ALGO0 ...), not ${describeValue(algo)}`);
  return algo;
}

function isGemmAlgo(algo: unknown): algo is cublasGemmAlgo_t {
  return GEMM_ALGOS.has(algo);
}

function checkLength(n: number, inc: number, action: string): void {
  if (!fitsInt32(n, inc)) throw new ShapeMismatchError(`${action}: ${n} elements (stride ${inc}) exceed cuBLAS's 32-bit arguments (2^31-1)`);
}

function sameLayout(x: DeviceArray, y: DeviceArray): boolean {
  if (x.ndim !== y.ndim) return false;
  for (let i = 0; i < x.ndim; i++) if (x.shape[i] !== y.shape[i] || (x.shape[i] !== 1 && x.strides[i] !== y.strides[i])) return false;
  return true;
}
