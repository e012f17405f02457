/**
 * The implementation of {@link Fft} and {@link FftPlan} (fft.ts), loaded by the first `Fft.create`: the classes' code
 * is not evaluated when cuda-ts is imported.
 *
 * @module
 */
import type { cufftHandle } from "../../../bindings/cufft.ts";
import { DeviceArray } from "../../array/device-array.ts";
import type { DTypeName } from "../../array/dtype.ts";
import { describeValue } from "../../../errors/describe.ts";
import { withCurrentContext } from "../../base/driver-state.ts";
import { contextScope } from "../../base/context-scope.ts";
import { CUFFT_FORWARD, CUFFT_INVERSE } from "../../../../generated/cuda-13.0/cufft/constants.ts";
import { track, untrack } from "../../base/lifetime.ts";
import { ArrayLayoutError, DTypeError, ShapeMismatchError } from "../../array/errors.ts";
import { ClosedError } from "../../base/errors.ts";
import { ElementwiseKernel } from "../../kernels/elementwise.ts";
import type { Buffer } from "../../memory/buffer.ts";
import type { MemoryResource } from "../../memory/resource.ts";
import type { Stream } from "../../stream.ts";
import { ffi } from "../../../ffi/index.ts";
import { checkArray, replacementStream, pointerOf } from "../rng/shared.ts";
import { fftLayout, splitAxes, type FftLayout, type FftPlanSpec } from "./layout.ts";
import { importLater } from "../../../deferred.ts";
import { ownModuleUrl } from "../../../module-url.ts";

import type { FftDType, FftForwardOptions, FftInverseOptions, FftOptions } from "./fft.ts";
import { STREAM_OPTION, takeStream } from "../../base/stream-arg.ts";

type CufftModule = typeof import("../../../bindings/cufft.ts");
let loading: Promise<CufftModule> | undefined;
function loadCufft(): Promise<CufftModule> {
  return (loading ??= importLater<CufftModule>(ownModuleUrl("src/bindings/cufft"), "cufft"));
}

const FORWARD = CUFFT_FORWARD;
const INVERSE = CUFFT_INVERSE;

let scaler: ElementwiseKernel | undefined;

/** One cuFFT plan with its work area; made by {@link Fft.plan}, closed with its `Fft` (or by itself). */
export class FftPlan {
  /** The plan's layout: sizes, batch, dtypes, element counts. */
  readonly layout: FftLayout;
  /** The work area's size in bytes. */
  readonly workSize: number;
  readonly #fft: Fft;
  readonly #lib: CufftModule;
  #handle: cufftHandle | null;
  #work: Buffer | undefined;
  readonly #action: string;
  readonly #inputDtypes: readonly DTypeName[];
  readonly #outputDtypes: readonly DTypeName[];

  /** @internal Made by {@link Fft.plan}. */
  constructor(fft: Fft, lib: CufftModule, layout: FftLayout, stream: Stream, memoryResource: MemoryResource) {
    this.#fft = fft;
    this.#lib = lib;
    this.layout = layout;
    this.#action = `FftPlan.exec (${layout.key})`;
    this.#inputDtypes = [layout.inputDtype];
    this.#outputDtypes = [layout.outputDtype];
    const { cufft } = lib;
    const L = layout;
    const arr = (xs: readonly number[]): BigInt64Array => {
      const a = new BigInt64Array(new ArrayBuffer(8 * xs.length));
      xs.forEach((x, i) => (a[i] = BigInt(x)));
      return a;
    };
    const workSize = new BigUint64Array(new ArrayBuffer(8));
    const handle = cufft.cufftCreate();
    let work: Buffer | undefined;
    try {
      cufft.cufftSetAutoAllocation(handle, 0);
      cufft.cufftMakePlanMany64(handle, L.rank, arr(L.n), arr(L.inembed), 1, L.idist, arr(L.onembed), 1, L.odist, L.type as Parameters<typeof cufft.cufftMakePlanMany64>[9], L.batch, workSize);
      cufft.cufftSetStream(handle, stream.handle);
      this.workSize = Number(workSize[0]);
      if (this.workSize > 0) {
        work = memoryResource.allocate(this.workSize, { stream });
        cufft.cufftSetWorkArea(handle, ffi.pointerFromAddress(BigInt(work.handle)));
      }
    } catch (e) {
      work?.close();
      cufft.cufftDestroy(handle);
      throw e;
    }
    this.#handle = handle;
    this.#work = work;
    track(this, "FftPlan", () => {
      cufft.cufftDestroy(handle);
    });
  }

  /** Whether the plan was closed. */
  get isClosed(): boolean {
    return this.#handle === null;
  }

  /** The plan's handle (`cufftHandle`), for calls of the binding itself. */
  get handle(): cufftHandle {
    if (this.#handle === null) throw new ClosedError(`this FftPlan (${this.layout.key})`, "use its handle");
    return this.#handle;
  }

  /**
   * Runs the plan on the `Fft`'s stream: `input` to `output` (contiguous arrays of the plan's dtypes and element
   * counts, on the plan's device; `output` may be `input` for c2c). `direction` is "forward" or "inverse" for c2c;
   * r2c is forward and c2r inverse whatever it says.
   */
  exec(input: DeviceArray, output: DeviceArray, direction: "forward" | "inverse" = "forward"): void {
    const h = this.handle;
    const L = this.layout;
    const action = this.#action;
    const dev = this.#fft.deviceId;
    checkArray(input, "the input", action, this.#inputDtypes, dev);
    checkArray(output, "the output", action, this.#outputDtypes, dev);
    if (input.size !== L.inputSize) throw new ShapeMismatchError(`${action}: the input has ${input.size} elements (shape [${input.shape.join(", ")}]) but the plan reads ${L.inputSize} (${L.batch} × [${L.inembed.join(", ")}])`);
    if (output.size !== L.outputSize) throw new ShapeMismatchError(`${action}: the output has ${output.size} elements (shape [${output.shape.join(", ")}]) but the plan writes ${L.outputSize} (${L.batch} × [${L.onembed.join(", ")}])`);
    if (direction !== "forward" && direction !== "inverse") throw new RangeError(`${action}: direction must be "forward" or "inverse", not ${describeValue(direction)}`);
    if (L.kind !== "c2c" && overlaps(input, output)) {
      throw new ArrayLayoutError(`${action}: ${L.kind} cannot run in place here (cuFFT's in-place real layouts are padded); pass an output that does not overlap the input`);
    }
    const { cufft } = this.#lib;
    const i = pointerOf(input);
    const o = pointerOf(output);
    const stream = this.#fft.stream;
    using _ = contextScope(stream.context.handle); // no closure: this is the hot path
    if (L.precision === "single") {
      if (L.kind === "c2c") cufft.cufftExecC2C(h, i, o, direction === "forward" ? FORWARD : INVERSE);
      else if (L.kind === "r2c") cufft.cufftExecR2C(h, i, o);
      else cufft.cufftExecC2R(h, i, o);
    } else if (L.kind === "c2c") cufft.cufftExecZ2Z(h, i, o, direction === "forward" ? FORWARD : INVERSE);
    else if (L.kind === "r2c") cufft.cufftExecD2Z(h, i, o);
    else cufft.cufftExecZ2D(h, i, o);
  }

  /** @internal Binds the plan to another stream (its `Fft`'s new one). */
  setStream(stream: Stream): void {
    if (this.#handle !== null) this.#lib.cufft.cufftSetStream(this.#handle, stream.handle);
  }

  /** Destroys the plan and frees its work area (ordered on the `Fft`'s stream). Closing twice is harmless. */
  close(): void {
    const h = this.#handle;
    if (h === null) return;
    this.#handle = null;
    untrack(this);
    const stream = this.#fft.stream;
    withCurrentContext(stream.context.handle, () => this.#lib.cufft.cufftDestroy(h));
    this.#work?.close(stream);
    this.#work = undefined;
    this.#fft.forget(this);
  }

  [Symbol.dispose](): void {
    this.close();
  }
}

function overlaps(a: DeviceArray, b: DeviceArray): boolean {
  const a0 = a.address;
  const b0 = b.address;
  return a0 < b0 + BigInt(b.nbytes) && b0 < a0 + BigInt(a.nbytes);
}

/** cuFFT on one stream, with a plan cache. */
export class Fft {
  /** The device the plans are made on (the stream's). */
  readonly deviceId: number;
  /** Where the plans' work areas come from. */
  readonly memoryResource: MemoryResource;
  readonly #lib: CufftModule;
  #stream: Stream;
  #plans = new Map<string, FftPlan>();
  #closed = false;

  private constructor(lib: CufftModule, stream: Stream, memoryResource: MemoryResource) {
    this.#lib = lib;
    this.#stream = stream;
    this.deviceId = stream.device.id;
    this.memoryResource = memoryResource;
  }

  /** Makes an `Fft` on the stream's device. Loads cuFFT's binding on first use. */
  static async create(options: FftOptions): Promise<Fft> {
    if (typeof options !== "object" || options === null) throw new TypeError(`Fft.create takes { stream, memoryResource? }, not ${describeValue(options)}`);
    const stream = takeStream(options.stream, "Fft.create", STREAM_OPTION);
    const lib = await loadCufft();
    return new Fft(lib, stream, options.memoryResource ?? stream.device.memoryResource);
  }

  /** Whether close() was called. */
  get isClosed(): boolean {
    return this.#closed;
  }

  /** The stream the transforms run on. */
  get stream(): Stream {
    return this.#stream;
  }

  /**
   * Moves every plan to another stream of the device (DeviceMismatchError otherwise). Waits for the old stream first:
   * the work areas were allocated in its order.
   */
  set stream(stream: Stream) {
    this.#open("change its stream");
    const s = replacementStream(stream, this.deviceId, "Fft");
    if (s === this.#stream) return;
    this.#stream.sync();
    withCurrentContext(s.context.handle, () => {
      for (const p of this.#plans.values()) p.setStream(s);
    });
    this.#stream = s;
  }

  /** How many plans the cache holds. */
  get planCount(): number {
    return this.#plans.size;
  }

  /** The cached plan for `spec`, made on first use. */
  plan(spec: FftPlanSpec): FftPlan {
    this.#open("make a plan");
    const layout = fftLayout(spec);
    let p = this.#plans.get(layout.key);
    if (p === undefined || p.isClosed) {
      const stream = this.#stream;
      p = withCurrentContext(stream.context.handle, () => new FftPlan(this, this.#lib, layout, stream, this.memoryResource));
      this.#plans.set(layout.key, p);
    }
    return p;
  }

  /**
   * The forward transform of `x` over its last `dims` axes: c2c for a complex array (same shape and dtype), r2c for a
   * real one (complex, the last size n → n/2+1). Returns `out` (allocated when not given).
   */
  forward(x: DeviceArray, options: FftForwardOptions = {}): DeviceArray<FftDType> {
    const action = "Fft.forward";
    this.#open("transform");
    const a = checkArray(x, "the input", action, ["float32", "float64", "complex64", "complex128"] as FftDType[], this.deviceId);
    const { n, lead, batch } = splitAxes(a.shape, options.dims, action);
    const complex = a.dtype.kind === "c";
    const precision = a.dtype.name === "float32" || a.dtype.name === "complex64" ? "single" : "double";
    const plan = this.plan({ kind: complex ? "c2c" : "r2c", precision, shape: n, batch });
    const outShape = [...lead, ...plan.layout.onembed];
    const out = this.#output(options.out, plan.layout.outputDtype as FftDType, outShape, action);
    plan.exec(a, out, "forward");
    return out;
  }

  /**
   * The inverse transform of the complex `x` over its last `dims` axes: c2c (same shape), or c2r with `real` or
   * `lastSize` (real, the last size m → `lastSize`, default 2(m-1)). Unnormalised unless `normalize`. Returns `out`.
   */
  inverse(x: DeviceArray, options: FftInverseOptions = {}): DeviceArray<FftDType> {
    const action = "Fft.inverse";
    this.#open("transform");
    const a = checkArray(x, "the input", action, ["complex64", "complex128"] as FftDType[], this.deviceId);
    const { n, lead, batch } = splitAxes(a.shape, options.dims, action);
    const precision = a.dtype.name === "complex64" ? "single" : "double";
    const real = options.real === true || options.lastSize !== undefined || (options.out !== undefined && options.out instanceof DeviceArray && options.out.dtype.kind === "f");
    let sizes = n;
    if (real) {
      const m = n[n.length - 1]!;
      const last = options.lastSize ?? 2 * (m - 1);
      if (!Number.isSafeInteger(last) || last < 1 || Math.floor(last / 2) + 1 !== m) {
        throw new ShapeMismatchError(`${action}: a c2r output's last size n must have n/2+1 = ${m} (the input's last size), so n is ${2 * m - 2} or ${2 * m - 1}, not ${describeValue(options.lastSize ?? last)}`);
      }
      sizes = [...n.slice(0, -1), last];
    }
    const plan = this.plan({ kind: real ? "c2r" : "c2c", precision, shape: sizes, batch });
    const out = this.#output(options.out, plan.layout.outputDtype as FftDType, [...lead, ...plan.layout.onembed], action);
    plan.exec(a, out, "inverse");
    if (options.normalize === true) {
      const points = sizes.reduce((p, q) => p * q, 1);
      scaler ??= new ElementwiseKernel("T s", "T x", "x = x * s", "cuda_ts_fft_scale");
      const flat = out.reshape(out.size);
      const floats = flat.dtype.kind === "c" ? flat.view(precision === "single" ? "float32" : "float64") : flat;
      scaler.launch(this.#stream, 1 / points, floats);
    }
    return out;
  }

  /** Closes every cached plan (their work areas freed). */
  clearCache(): void {
    for (const p of [...this.#plans.values()]) p.close();
    this.#plans.clear();
  }

  /** Closes the plans. Closing twice is harmless. */
  close(): void {
    if (this.#closed) return;
    this.clearCache();
    this.#closed = true;
  }

  [Symbol.dispose](): void {
    this.close();
  }

  /** @internal A plan closed by itself leaves the cache. */
  forget(plan: FftPlan): void {
    const key = plan.layout.key;
    if (this.#plans.get(key) === plan) this.#plans.delete(key);
  }

  #open(action: string): void {
    if (this.#closed) throw new ClosedError("this Fft", action);
  }

  #output(out: DeviceArray | undefined, dtype: FftDType, shape: readonly number[], action: string): DeviceArray<FftDType> {
    if (out === undefined) return DeviceArray.empty(shape, dtype, { stream: this.#stream, memoryResource: this.memoryResource });
    const o = checkArray(out, "out", action, [dtype], this.deviceId);
    if (o.size !== shape.reduce((p, q) => p * q, 1)) {
      throw new ShapeMismatchError(`${action}: out has shape [${o.shape.join(", ")}] but the result has shape [${shape.join(", ")}]`);
    }
    if (o.dtype.name !== dtype) throw new DTypeError(`${action}: out is ${o.dtype.name} but the result is ${dtype}`);
    return o;
  }

  toString(): string {
    return `Fft(device ${this.deviceId}, ${this.#plans.size} plans${this.#closed ? ", closed" : ""})`;
  }
}
