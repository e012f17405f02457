/**
 * The arithmetic of cuFFT plans, without a GPU: what a transform's kind, precision, sizes and batch mean for cuFFT's
 * advanced layout (the `n`, `inembed`/`onembed` and distances of cufftMakePlanMany64), the input and output dtypes and
 * shapes, and the plan cache's key.
 *
 * @module
 */
import type { DTypeName } from "../../array/dtype.ts";
import { describeValue } from "../../../errors/describe.ts";
import { cufftType } from "../../../../generated/cuda-13.0/cufft/enums.ts";

/** The kind of transform: complex to complex, real to complex (forward only), complex to real (inverse only). */
export type FftKind = "c2c" | "r2c" | "c2r";

/** Single (float32, complex64) or double (float64, complex128) precision. */
export type FftPrecision = "single" | "double";

/** What a plan computes. */
export interface FftPlanSpec {
  /** c2c, r2c or c2r. */
  readonly kind: FftKind;
  /** single or double. */
  readonly precision: FftPrecision;
  /**
   * The transform's logical sizes, 1 to 3 of them (the real side's sizes for r2c and c2r: an r2c of sizes [n] reads n
   * reals and writes n/2+1 complex numbers).
   */
  readonly shape: readonly number[];
  /** How many transforms, one after another in memory (default 1). */
  readonly batch?: number;
}

/** cuFFT's transform types (`cufftType`). */
export const CUFFT_TYPES = Object.freeze({
  "c2c:single": cufftType.CUFFT_C2C,
  "r2c:single": cufftType.CUFFT_R2C,
  "c2r:single": cufftType.CUFFT_C2R,
  "c2c:double": cufftType.CUFFT_Z2Z,
  "r2c:double": cufftType.CUFFT_D2Z,
  "c2r:double": cufftType.CUFFT_Z2D,
} as const);

/** A plan's layout for cufftMakePlanMany64 and for checking its arrays. */
export interface FftLayout {
  readonly kind: FftKind;
  readonly precision: FftPrecision;
  readonly rank: number;
  /** The logical sizes. */
  readonly n: readonly number[];
  /** The input's sizes of one transform (the embedding, packed). */
  readonly inembed: readonly number[];
  /** The output's sizes of one transform. */
  readonly onembed: readonly number[];
  readonly batch: number;
  /** Elements between one transform's input and the next. */
  readonly idist: number;
  /** Elements between one transform's output and the next. */
  readonly odist: number;
  readonly inputDtype: DTypeName;
  readonly outputDtype: DTypeName;
  /** Elements of the whole input and the whole output. */
  readonly inputSize: number;
  readonly outputSize: number;
  /** The cufftType. */
  readonly type: number;
  /** The plan cache's key. */
  readonly key: string;
}

const product = (xs: readonly number[]): number => xs.reduce((a, b) => a * b, 1);

/** The layout of a plan (a RangeError or TypeError names a bad spec). */
export function fftLayout(spec: FftPlanSpec): FftLayout {
  if (typeof spec !== "object" || spec === null) throw new TypeError(`an FFT plan takes { kind, precision, shape, batch? }, not ${describeValue(spec)}`);
  const { kind, precision } = spec;
  if (kind !== "c2c" && kind !== "r2c" && kind !== "c2r") throw new RangeError(`the FFT kind must be "c2c", "r2c" or "c2r", not ${describeValue(kind)}`);
  if (precision !== "single" && precision !== "double") throw new RangeError(`the FFT precision must be "single" or "double", not ${describeValue(precision)}`);
  const shape = spec.shape;
  if (!Array.isArray(shape) || shape.length < 1 || shape.length > 3) {
    throw new RangeError(`an FFT's shape has 1 to 3 sizes (cuFFT's ranks), not ${describeValue(shape)}; batch the leading axes instead`);
  }
  for (const d of shape) {
    if (typeof d !== "number" || !Number.isSafeInteger(d) || d < 1) throw new RangeError(`an FFT's sizes must be integers of at least 1, not ${describeValue(d)} in [${shape.join(", ")}]`);
  }
  const batch = spec.batch ?? 1;
  if (typeof batch !== "number" || !Number.isSafeInteger(batch) || batch < 1) throw new RangeError(`an FFT's batch must be an integer of at least 1, not ${describeValue(batch)}`);
  const n = [...shape];
  const half = [...n.slice(0, -1), Math.floor(n[n.length - 1]! / 2) + 1];
  const inembed = kind === "c2r" ? half : n;
  const onembed = kind === "r2c" ? half : n;
  const real = precision === "single" ? "float32" : "float64";
  const complex = precision === "single" ? "complex64" : "complex128";
  const idist = product(inembed);
  const odist = product(onembed);
  return {
    kind,
    precision,
    rank: n.length,
    n,
    inembed,
    onembed,
    batch,
    idist,
    odist,
    inputDtype: kind === "r2c" ? real : complex,
    outputDtype: kind === "c2r" ? real : complex,
    inputSize: idist * batch,
    outputSize: odist * batch,
    type: CUFFT_TYPES[`${kind}:${precision}`],
    key: `${kind}:${precision}:${n.join("x")}:${batch}`,
  };
}

/**
 * How `Fft.forward`/`Fft.inverse` read an array of `shape`: its last `dims` axes are transformed (default all of
 * them, at most 3), the leading ones are a batch. Returns the transform's sizes and the batch.
 */
export function splitAxes(shape: readonly number[], dims: number | undefined, action: string): { readonly n: number[]; readonly lead: number[]; readonly batch: number } {
  const d = dims ?? shape.length;
  if (!Number.isSafeInteger(d) || d < 1 || d > 3) {
    throw new RangeError(`${action}: dims must be 1, 2 or 3 (cuFFT's ranks), not ${describeValue(dims ?? d)}${dims === undefined ? ` (the array has ${shape.length} axes: pass dims to batch the leading ones)` : ""}`);
  }
  if (d > shape.length) throw new RangeError(`${action}: dims is ${d} but the array has ${shape.length} ax${shape.length === 1 ? "is" : "es"}`);
  const lead = shape.slice(0, shape.length - d);
  return { n: shape.slice(shape.length - d), lead, batch: product(lead) };
}
