/**
 * Broadcasting and axes, on plain numbers: the shape operands broadcast to (NumPy's rules), the strides an operand
 * is read with in that shape (0 on the axes it is broadcast along), the fewest axes a kernel needs to walk several
 * layouts at once, a reduction's axes (negative allowed) and the shape it leaves. No GPU: tested on the CPU.
 *
 * @module
 */
import { AxisError, BroadcastError } from "./errors.ts";
import { describeValue } from "../../errors/describe.ts";

/** An operand of a broadcast: its name (for errors) and shape. */
export interface NamedShape {
  readonly name: string;
  readonly shape: readonly number[];
}

/** A shape as messages print it: `[2, 3]`. */
export const showShape = (shape: readonly number[]): string => `[${shape.join(", ")}]`;

/**
 * The shape `operands` broadcast to (NumPy's rules: shapes aligned at their last axis, each pair of extents equal or
 * one of them 1, missing leading axes count as 1). BroadcastError naming both operands, their shapes and the axis
 * otherwise. `what` prefixes the message (a kernel's name).
 */
export function broadcastShapes(operands: readonly NamedShape[], what: string): number[] {
  const ndim = operands.reduce((m, o) => Math.max(m, o.shape.length), 0);
  const out = new Array<number>(ndim).fill(1);
  /** Per output axis: the operand that set an extent other than 1. */
  const from = new Array<NamedShape | undefined>(ndim).fill(undefined);
  for (const o of operands) {
    const lead = ndim - o.shape.length;
    o.shape.forEach((n, k) => {
      const axis = lead + k;
      if (n === 1) return;
      const had = out[axis]!;
      if (had === 1) {
        out[axis] = n;
        from[axis] = o;
      } else if (had !== n) {
        const other = from[axis]!;
        const otherAxis = axis - (ndim - other.shape.length);
        throw new BroadcastError(
          `${what}: ${o.name} has shape ${showShape(o.shape)} but ${other.name} has shape ${showShape(other.shape)}: they do not broadcast ` +
            `(axis ${k} of ${o.name} has extent ${n}, axis ${otherAxis} of ${other.name} has ${had}; aligned at the last axis, extents must be equal or 1)`,
        );
      }
    });
  }
  return out;
}

/**
 * The strides (in elements) an array of `shape` and `strides` is read with as an operand of `outShape` (which it
 * broadcasts to): 0 on the leading axes it lacks and on the axes where its extent is 1 and the output's is not.
 */
export function broadcastStrides(shape: readonly number[], strides: readonly number[], outShape: readonly number[]): number[] {
  const lead = outShape.length - shape.length;
  if (lead < 0) throw new BroadcastError(`cannot broadcast shape ${showShape(shape)} to ${showShape(outShape)}: it has more axes`);
  return outShape.map((n, axis) => {
    if (axis < lead) return 0;
    const m = shape[axis - lead]!;
    if (m === n) return m === 1 ? 0 : strides[axis - lead]!;
    if (m === 1) return 0;
    throw new BroadcastError(`cannot broadcast shape ${showShape(shape)} to ${showShape(outShape)}: axis ${axis - lead} has extent ${m}, not 1 or ${n}`);
  });
}

/**
 * Merges neighbouring axes that every stride list walks as one (stride of the outer = stride of the inner × its
 * extent) and drops axes of extent 1: the fewest axes a kernel decomposing an index needs. The element at each
 * index keeps its offset in every list. An empty shape stays empty.
 */
export function coalesceAxes(shape: readonly number[], strides: readonly (readonly number[])[]): { shape: number[]; strides: number[][] } {
  const s: number[] = [];
  const st: number[][] = strides.map(() => []);
  for (let k = 0; k < shape.length; k++) {
    const n = shape[k]!;
    if (n === 1) continue;
    const last = s.length - 1;
    if (last >= 0 && strides.every((list, j) => st[j]![last] === list[k]! * n)) {
      s[last] = s[last]! * n;
      strides.forEach((list, j) => (st[j]![last] = list[k]!));
    } else {
      s.push(n);
      strides.forEach((list, j) => st[j]!.push(list[k]!));
    }
  }
  return { shape: s, strides: st };
}

/** A reduction's axes: one axis, several, or undefined (every axis). */
export type AxisSpec = number | readonly number[] | undefined;

/** One axis of an array of `ndim` axes, in [0, ndim) (negative counts from the end). AxisError otherwise. */
export function normalizeAxis(axis: unknown, ndim: number, what: string): number {
  if (typeof axis !== "number" || !Number.isInteger(axis)) throw new AxisError(`${what}: an axis is an integer, got ${describeValue(axis)}`);
  if (axis < -ndim || axis >= ndim) {
    throw new AxisError(`${what}: axis ${axis} is out of range for an array of ${ndim} ax${ndim === 1 ? "is" : "es"} (from ${-ndim} to ${ndim - 1})`);
  }
  return axis < 0 ? axis + ndim : axis;
}

/**
 * The axes `axis` names in an array of `ndim` axes, each in [0, ndim), sorted (negative counts from the end;
 * undefined: every axis). AxisError for an axis out of range, one that is not an integer, or one named twice.
 */
export function normalizeAxes(axis: AxisSpec | null, ndim: number, what: string): number[] {
  if (axis === undefined || axis === null) return [...Array(ndim).keys()];
  const list = typeof axis === "number" ? [axis] : Array.isArray(axis) ? [...(axis as readonly unknown[])] : undefined;
  if (list === undefined) throw new AxisError(`${what}: axis is a number or a list of numbers, got ${describeValue(axis)}`);
  const seen = new Set<number>();
  for (const a of list) {
    const n = normalizeAxis(a, ndim, what);
    if (seen.has(n)) throw new AxisError(`${what}: axis ${n} is named twice in [${list.join(", ")}]`);
    seen.add(n);
  }
  return [...seen].sort((x, y) => x - y);
}

/** The shape a reduction over `axes` (normalised) leaves: those axes removed, or kept with extent 1. */
export function reducedShape(shape: readonly number[], axes: readonly number[], keepdims: boolean): number[] {
  const set = new Set(axes);
  const out: number[] = [];
  shape.forEach((n, k) => {
    if (!set.has(k)) out.push(n);
    else if (keepdims) out.push(1);
  });
  return out;
}
