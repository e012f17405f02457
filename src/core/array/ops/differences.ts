/**
 * NumPy's `diff` (differences of neighbours along an axis) and `meshgrid` (coordinate arrays from 1-d vectors),
 * composed of views, `sub`/`ne` and copies.
 *
 * @module
 */
import { DeviceArray, operationStream, type ArrayOperationOptions, type ArrayScalar } from "../device-array.ts";
import { ArgumentError } from "../../../errors/base.ts";
import { describeValue } from "../../../errors/describe.ts";
import { ShapeMismatchError } from "../errors.ts";
import { normalizeAxis } from "../broadcast.ts";
import { full } from "./creation.ts";
import { ne, sub } from "./arithmetic.ts";
import { broadcastTo, concatenate, ownedView, reshape } from "./shape.ts";
import { resultType } from "../promotion.ts";

/** Options of `diff`. */
export interface DiffOptions extends ArrayOperationOptions {
  /** How many times to take differences (default 1; 0 gives a copy). */
  readonly n?: number;
  /** The axis (default -1, the last). */
  readonly axis?: number;
  /** Values put before the array along the axis first: a scalar (broadcast) or an array of the other axes' extents. */
  readonly prepend?: DeviceArray | ArrayScalar;
  /** Values put after it, likewise. */
  readonly append?: DeviceArray | ArrayScalar;
}

/**
 * The `n`-th differences along `axis`, as NumPy's `diff`: `out[i] = a[i + 1] - a[i]`, repeated `n` times, the axis
 * `n` shorter (bool arrays give `a[i + 1] != a[i]`, as NumPy's). `prepend`/`append` extend the array along the axis
 * first. A new array; does not wait for the stream.
 *
 * ```ts
 * diff(x);                          // [1, 4, 9, 16] → [3, 5, 7]
 * diff(x, { n: 2 });                // [2, 2]
 * diff(t, { axis: 0, prepend: 0 }); // same length as t along axis 0
 * ```
 */
export function diff(a: DeviceArray, options?: DiffOptions): DeviceArray {
  const what = "diff";
  if (!(a instanceof DeviceArray)) throw new TypeError(`${what} takes a DeviceArray, not ${describeValue(a)}`);
  if (options !== undefined && (options === null || typeof options !== "object")) throw new TypeError(`${what} takes options { n?, axis?, prepend?, append?, stream? }, got ${describeValue(options)}`);
  if (a.ndim === 0) throw new ShapeMismatchError(`${what}: a 0-d array has no axis to take differences along; pass an array of at least one axis`);
  const n = options?.n ?? 1;
  if (!Number.isSafeInteger(n) || n < 0) throw new ArgumentError(`${what}: n is a non-negative integer, got ${describeValue(n)}`);
  const axis = normalizeAxis(options?.axis ?? -1, a.ndim, what);
  const stream = operationStream(what, options, [a, ...[options?.prepend, options?.append].filter((x): x is DeviceArray => x instanceof DeviceArray)]);
  const temps: DeviceArray[] = [];
  try {
    let cur = a;
    if (options?.prepend !== undefined || options?.append !== undefined) {
      const dtype = resultType([a, ...[options.prepend, options.append].filter((x) => x !== undefined)], what);
      const part = (x: DeviceArray | ArrayScalar): DeviceArray => {
        const shape = a.shape.map((e, d) => (d === axis ? (x instanceof DeviceArray && x.ndim === a.ndim ? x.shape[d]! : 1) : e));
        const arr = x instanceof DeviceArray ? x : full(shape, x, { dtype, stream });
        if (!(x instanceof DeviceArray)) temps.push(arr);
        return x instanceof DeviceArray && x.ndim !== a.ndim ? broadcastTo(x, shape) : arr;
      };
      const pieces = [...(options.prepend !== undefined ? [part(options.prepend)] : []), a, ...(options.append !== undefined ? [part(options.append)] : [])];
      cur = concatenate(pieces, { axis, dtype, stream });
      temps.push(cur);
    }
    if (n === 0) return cur === a ? a.copy({ stream }) : (temps.pop() as DeviceArray);
    const along = (spec: [number | null, number | null]) => [...Array<null>(axis).fill(null), spec] as const;
    for (let k = 1; ; k++) {
      const len = cur.shape[axis]!;
      const next = cur.slice(...along([1, null]));
      const prev = cur.slice(...along([0, Math.max(0, len - 1)]));
      const d = cur.dtype.kind === "b" ? ne(next, prev, { stream }) : sub(next, prev, { stream });
      if (k === n) return d;
      temps.push(d);
      cur = d;
    }
  } finally {
    for (const t of temps) t.close(stream);
  }
}

/** Options of `meshgrid`. */
export interface MeshgridOptions extends ArrayOperationOptions {
  /** "xy" (default: Cartesian, the first two outputs' axes swapped, as NumPy's) or "ij" (matrix indexing). */
  readonly indexing?: "xy" | "ij";
  /** Views with extent 1 on every axis but their own, instead of full arrays (default false). */
  readonly sparse?: boolean;
  /**
   * Whether the full arrays are copies (default true); false gives read-only views of the inputs broadcast (stride 0), or of a
   * flattened copy of an input whose strides allow no flat view (that view owns the copy: closing it frees it).
   */
  readonly copy?: boolean;
}

/**
 * Coordinate arrays from 1-d coordinate vectors, as NumPy's `meshgrid`: for inputs of lengths n0, n1, ..., every
 * output has shape [n1, n0, ...] ("xy", the default) or [n0, n1, ...] ("ij"), output i varying along input i's axis.
 * Inputs of more than one axis are read flattened. New arrays (views with `sparse` or `copy: false`).
 *
 * ```ts
 * const [X, Y] = meshgrid([x, y]);               // X[j, i] = x[i], Y[j, i] = y[j]
 * const [I, J] = meshgrid([x, y], { indexing: "ij" });
 * ```
 */
export function meshgrid(arrays: readonly DeviceArray[], options?: MeshgridOptions): DeviceArray[] {
  const what = "meshgrid";
  if (!Array.isArray(arrays)) throw new TypeError(`${what} takes a list of DeviceArrays, not ${describeValue(arrays)}`);
  arrays.forEach((x, i) => {
    if (!(x instanceof DeviceArray)) throw new TypeError(`${what}: input ${i} is a DeviceArray, not ${describeValue(x)}`);
  });
  if (options !== undefined && (options === null || typeof options !== "object")) throw new TypeError(`${what} takes options { indexing?, sparse?, copy?, stream? }, got ${describeValue(options)}`);
  const indexing = options?.indexing ?? "xy";
  if (indexing !== "xy" && indexing !== "ij") throw new ArgumentError(`${what}: indexing is "xy" or "ij", got ${describeValue(indexing)}`);
  const nd = arrays.length;
  if (nd === 0) return [];
  const sizes = arrays.map((x) => x.size);
  // The axis of input i in the outputs: "xy" swaps the first two.
  const axisOf = (i: number): number => (indexing === "xy" && nd > 1 && i < 2 ? 1 - i : i);
  const shape = new Array<number>(nd);
  sizes.forEach((s, i) => (shape[axisOf(i)] = s));
  const stream = operationStream(what, options, arrays);
  return arrays.map((x, i) => {
    const own = new Array<number>(nd).fill(1);
    own[axisOf(i)] = sizes[i]!;
    // Input i seen along its own axis: a view where its strides allow (reshape copies otherwise).
    const along = reshape(x, own, { stream });
    if (options?.sparse === true) return along;
    const wide = broadcastTo(along, shape);
    // Over a copy reshape made (an input whose strides allow no view), the view owns the copy: closing it frees it.
    if (options?.copy === false) return along.base === undefined ? ownedView(along, wide) : wide;
    const out = wide.copy({ stream });
    if (along.base === undefined) along.close(stream); // reshape's own copy (a view always has a base)
    return out;
  });
}
