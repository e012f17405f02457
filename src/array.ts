/**
 * `cuda-ts/array`: NumPy's functions over DeviceArrays, in the manner of CuPy: creation, arithmetic and comparison
 * with broadcasting, math, reductions, scans, differences and integration, convolution, sorting, searching,
 * membership, counting and interpolation, indexing, shape and padding. Each runs on the stream its options name, or
 * on the stream of its first array operand (the one that array was made on); each is also a DeviceArray method where
 * NumPy's ndarray has one.
 *
 * ```ts
 * import { Device } from "cuda-ts";
 * import * as ca from "cuda-ts/array";
 * const dev = new Device(0); dev.setCurrent();
 * using stream = dev.createStream();
 * const x = ca.arange(12, { stream, dtype: "float32" }).reshape(3, 4);
 * const y = ca.exp(x.sub(x.max({ axis: 1, keepdims: true })));   // broadcast over the rows
 * const softmax = y.div(y.sum({ axis: 1, keepdims: true }));
 * console.log(await softmax.toList());
 * ```
 *
 * Dtypes promote as NumPy 2's (docs/arrays.md has the table): arrays by kind and width, JavaScript scalars weakly
 * (`int8Array.add(1)` stays int8). Linear algebra, random numbers and FFTs of arrays are `cuda-ts/array/linalg`,
 * `cuda-ts/array/random` and `cuda-ts/array/fft` (they load their math library's tables).
 *
 * @module
 */
// The object layer this subject builds on (the root registers Device and DeviceArray, and the array methods).
import "./index.ts";
export { DeviceArray, type ArrayScalar, type ArrayOperationOptions, type ReduceOptions, type ReductionName } from "./core/array/device-array.ts";
export { sum, prod, min, max, mean, trace } from "./core/array/reductions.ts";
export { sort, argsort, type UniqueOptions, type UniqueResult, type UniqueResultPart } from "./core/array/ops/sort.ts";
export { unique } from "./core/array/ops/unique.ts";
export { partition, argpartition, lexsort, sortComplex, type PartitionKth, type LexsortOptions } from "./core/array/ops/sort-routines.ts";
export { uniqueValues, uniqueCounts, uniqueInverse, uniqueAll, type UniqueCountsResult, type UniqueInverseResult, type UniqueAllResult } from "./core/array/ops/unique-results.ts";
export { searchsorted, digitize, type DigitizeOptions } from "./core/array/ops/search.ts";
export { isin, type IsinOptions } from "./core/array/ops/sets.ts";
export { union1d, intersect1d, setdiff1d, setxor1d, type SetRoutineOptions, type Intersect1dOptions, type Intersect1dResult } from "./core/array/ops/set-routines.ts";
export { bincount, histogram, type BincountOptions, type HistogramOptions, type HistogramResult } from "./core/array/ops/counting.ts";
export {
  histogramdd,
  histogram2d,
  histogramBinEdges,
  type HistogramddBins,
  type HistogramddOptions,
  type HistogramddResult,
  type Histogram2dOptions,
  type Histogram2dResult,
} from "./core/array/ops/histogramdd.ts";
export { promoteTypes, resultType, canCastSafely, canCastSameKind, type PromotionOperand } from "./core/array/promotion.ts";
export { astype } from "./core/array/ops/cast.ts";
export {
  add, sub, mul, div, floorDiv, mod, divmod, pow, maximum, minimum, fmax, fmin, arctan2, hypot, copysign,
  fmod, gcd, lcm, logaddexp, logaddexp2, heaviside, floatPower, nextafter,
  bitwiseAnd, bitwiseOr, bitwiseXor, leftShift, rightShift, logicalAnd, logicalOr, logicalXor,
  eq, ne, lt, le, gt, ge, isclose, type IsCloseOptions,
} from "./core/array/ops/arithmetic.ts";
export { where, choose, clip, type ChooseOptions } from "./core/array/ops/selection.ts";
export {
  neg, positive, abs, sign, sqrt, cbrt, square, reciprocal, exp, exp2, expm1, log, log2, log10, log1p,
  sin, cos, tan, asin, acos, atan, sinh, cosh, tanh, asinh, acosh, atanh, floor, ceil, trunc, rint, round,
  isnan, isinf, isfinite, signbit, isposinf, isneginf, spacing, sinc, conj, real, imag, angle, deg2rad, rad2deg, invert, logicalNot, nanToNum, type RoundOptions,
  fabs, i0, bitwiseCount,
  type NanToNumOptions,
} from "./core/array/ops/math.ts";
export { frexp, ldexp, modf } from "./core/array/ops/float-parts.ts";
export { copyto, type CopytoOptions } from "./core/array/ops/copyto.ts";
export { bartlett, blackman, hamming, hanning, kaiser, type WindowOptions } from "./core/array/ops/windows.ts";
export { iscomplex, isreal, iscomplexobj, isrealobj, realIfClose, type RealIfCloseOptions } from "./core/array/ops/type-testing.ts";
export { polyval, polyadd, polysub, polymul, polydiv, polyder, polyint, type PolynomialCoefficients, type PolyintOptions } from "./core/array/ops/polynomials.ts";
export { fromfunction, applyAlongAxis, applyOverAxes, block, piecewise, type FromfunctionOptions, type AlongAxisResult, type BlockList, type Piece } from "./core/array/ops/functional.ts";
export { packbits, unpackbits, type BitOrder, type PackbitsOptions, type UnpackbitsOptions } from "./core/array/ops/bit-packing.ts";
export {
  subtract, multiply, divide, trueDivide, floorDivide, remainder, power, atan2, equal, notEqual, less, lessEqual, greater, greaterEqual,
  negative, absolute, arccos, arcsin, arctan, arccosh, arcsinh, arctanh, conjugate, radians, degrees, bitwiseNot, around, fix, amax, amin,
  bitwiseLeftShift, bitwiseRightShift, bitwiseInvert, concat, permuteDims, putmask,
} from "./core/array/ops/numpy-names.ts";
export type { ArrayOperand, ArithmeticName, ComparisonName } from "./core/array/methods.ts";
export type {
  ArgReduceOptions,
  AstypeOptions,
  CreationOptions,
  DiagonalViewOptions,
  DTypeArgument,
  ElementwiseOptions,
  ScanOptions,
  SearchSide,
  SearchSortedOptions,
  SortOptions,
  SumOptions,
  TakeOptions,
  TraceOptions,
  VarianceOptions,
} from "./core/array/options.ts";
export type { AxisSpec } from "./core/array/broadcast.ts";
export { dtypes, type DType, type DTypeName } from "./core/array/dtype.ts";
export { AxisError, BroadcastError, DTypeError, IndexError } from "./core/array/errors.ts";
export {
  empty,
  zeros,
  ones,
  full,
  emptyLike,
  zerosLike,
  onesLike,
  fullLike,
  arange,
  linspace,
  logspace,
  geomspace,
  eye,
  identity,
  tri,
  tril,
  triu,
  diag,
  vander,
  asarray,
  array,
  copy,
  ascontiguousarray,
  type ArangeArguments,
  type AsArrayOptions,
  type AscontiguousarrayOptions,
  type CopyOptions,
  type DiagonalOptions,
  type EyeOptions,
  type LikeOptions,
  type LinspaceOptions,
  type LogspaceOptions,
  type NestedData,
  type ShapeArgument,
  type VanderOptions,
} from "./core/array/ops/creation.ts";
export {
  variance,
  var,
  std,
  argmin,
  argmax,
  any,
  all,
  countNonzero,
  norm,
  allclose,
  arrayEqual,
  arrayEquiv,
  type ArrayEqualOptions,
  type AllcloseOptions,
  type NormOptions,
  type NormOrder,
} from "./core/array/ops/statistics.ts";
export { item, toList, type NestedList } from "./core/array/ops/host.ts";
export {
  reshape,
  transpose,
  swapaxes,
  matrixTranspose,
  unstack,
  diagonal,
  moveaxis,
  rollaxis,
  squeeze,
  expandDims,
  flatten,
  ravel,
  broadcastTo,
  broadcastArrays,
  broadcastShapes,
  atleast1d,
  atleast2d,
  atleast3d,
  flip,
  fliplr,
  flipud,
  rot90,
  split,
  arraySplit,
  concatenate,
  stack,
  hstack,
  vstack,
  columnStack,
  dstack,
  repeat,
  tile,
  roll,
  type RepeatOptions,
  type RollOptions,
  type ConcatenateOptions,
  type AxisOptions,
  type FlipOptions,
} from "./core/array/ops/shape.ts";
export {
  hsplit,
  vsplit,
  dsplit,
  append,
  insert,
  deleteItems,
  delete,
  resize,
  trimZeros,
  type EditOptions,
  type IndexSlice,
  type TrimZerosOptions,
} from "./core/array/ops/editing.ts";
export { take, put, takeAlongAxis, nonzero, argwhere, extract, compress, putMask, type PutOptions, type TakeAlongAxisOptions, type CompressOptions } from "./core/array/ops/indexing.ts";
export { putAlongAxis, place, type PutAlongAxisOptions } from "./core/array/ops/inserting.ts";
export {
  indices,
  ix,
  triuIndices,
  trilIndices,
  triuIndicesFrom,
  trilIndicesFrom,
  diagIndices,
  diagIndicesFrom,
  unravelIndex,
  ravelMultiIndex,
  flatnonzero,
  diagflat,
  fillDiagonal,
  select,
  type IndicesOptions,
  type TriangleIndicesOptions,
  type TriangleIndicesFromOptions,
  type DiagIndicesOptions,
  type DiagflatOptions,
  type FillDiagonalOptions,
  type RavelMultiIndexOptions,
  type SelectOptions,
} from "./core/array/ops/index-helpers.ts";
export { cumsum, cumprod, cumulativeSum, cumulativeProd, type CumulativeOptions } from "./core/array/ops/scan.ts";
export { vecdot, type VecdotOptions } from "./core/array/ops/vecdot.ts";
export { mayShareMemory, sharesMemory, type SharesMemoryOptions } from "./core/array/ops/overlap.ts";
export { fromNpy, load, save, toNpy } from "./core/array/npy.ts";
export { array2string, arrayRepr, type PrintOptions } from "./core/array/printing.ts";
export { canCast, finfo, iinfo, isdtype, type CastingRule, type DTypeKind, type DTypeLike, type FloatInfo, type IntInfo } from "./core/array/dtype-info.ts";
export { nansum, nanprod, nanmean, nanvar, nanstd, nanmin, nanmax, nanargmin, nanargmax, nancumsum, nancumprod, ptp } from "./core/array/ops/nan-reductions.ts";
export {
  median,
  quantile,
  percentile,
  nanmedian,
  nanquantile,
  nanpercentile,
  average,
  type MedianOptions,
  type QuantileOptions,
  type QuantileMethod,
  type AverageOptions,
  type AverageResult,
} from "./core/array/ops/order-statistics.ts";
export {
  diff,
  ediff1d,
  gradient,
  trapezoid,
  unwrap,
  meshgrid,
  type DiffOptions,
  type Ediff1dOptions,
  type GradientOptions,
  type GradientSpacing,
  type TrapezoidOptions,
  type UnwrapOptions,
  type MeshgridOptions,
} from "./core/array/ops/differences.ts";
export { convolve, correlate, type ConvolveMode, type ConvolveOptions } from "./core/array/ops/convolution.ts";
export { pad, type PadOptions, type PadMode, type PadWidth, type PadValue, type PadConstantValues } from "./core/array/ops/padding.ts";
export { interp, type InterpOptions } from "./core/array/ops/interpolation.ts";
