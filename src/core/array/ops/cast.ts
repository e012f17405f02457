/**
 * A conversion between dtypes, written into a given array (any views of one shape): what `concatenate` of mixed
 * dtypes and the indexing operations use to bring values to the destination's dtype. One ElementwiseKernel per pair
 * of dtypes, made at first use and kept.
 *
 * @module
 * @internal
 */
import type { DeviceArray } from "../device-array.ts";
import type { DType } from "../dtype.ts";
import { realOf } from "../promotion.ts";
import { ElementwiseKernel } from "../../kernels/elementwise.ts";
import type { Stream } from "../../stream.ts";

const half = (t: DType): boolean => t.name === "float16" || t.name === "bfloat16";

/**
 * The body of the conversion `y = x` from `s` to `d` (exported for tests): C casts (float to integer truncates toward
 * zero), float16/bfloat16 through float, complex to real keeps the real part, anything to bool is `!= 0`.
 */
export function castBody(s: DType, d: DType): string {
  if (s.kind === "c") {
    if (d.kind === "c") return `y = ${d.ctype}(x.real(), x.imag())`;
    if (d.kind === "b") return "y = (x.real() != 0 || x.imag() != 0)";
    return realBody("x.real()", realOf(s), d);
  }
  return realBody("x", s, d);
}

function realBody(x: string, s: DType, d: DType): string {
  const sx = half(s) ? `((float)(${x}))` : x;
  if (d.kind === "c") return `y = ${d.ctype}((${realOf(d).ctype})(${sx}), (${realOf(d).ctype})0)`;
  if (d.kind === "b") return `y = (${sx} != 0)`;
  if (half(d)) return `y = ${d.ctype}((float)(${sx}))`;
  return `y = (${d.ctype})(${sx})`;
}

const casts = new Map<string, ElementwiseKernel>();

/** The kernel converting `s` to `d`. */
export function castKernel(s: DType, d: DType): ElementwiseKernel {
  const key = `${s.name}|${d.name}`;
  let k = casts.get(key);
  if (k === undefined) {
    k = new ElementwiseKernel(`${s.name} x`, `${d.name} y`, castBody(s, d), `cuda_ts_cast_${s.name}_${d.name}`);
    casts.set(key, k);
  }
  return k;
}

/** Copies `src` into `dst` (same shape, any views), converting to `dst`'s dtype, on `stream`. */
export function castInto(stream: Stream, src: DeviceArray, dst: DeviceArray): void {
  if (src.dtype === dst.dtype) {
    dst.copyFrom(src, { stream });
    return;
  }
  castKernel(src.dtype, dst.dtype).launch(stream, src, dst);
}
