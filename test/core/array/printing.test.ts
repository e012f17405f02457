/**
 * Printing without a GPU: the host formatting against NumPy 2's `array2string` and `repr` of 700 random arrays
 * (every dtype NumPy has, shapes from 0-d to 3-d, values from tiny to huge with NaN, infinities, -0 and exact ties,
 * each print option), from test/fixtures/arrays/printing.json; and the options' checks.
 */
import { describe, expect, it } from "vitest";
import { ArgumentError } from "../../../src/errors/base.ts";
import { array2string, arrayRepr } from "../../../src/array.ts";
import { allocateHostArray, dtypeOf, type HostArray } from "../../../src/core/array/dtype.ts";
import { formatHost, printSettings, reprHost, type PrintOptions } from "../../../src/core/array/printing.ts";
import { fakeArray } from "../../support/fake-arrays.ts";
import fixture from "../../fixtures/arrays/printing.json" with { type: "json" };

type Value = number | string | boolean | (number | string)[];

const number = (v: number | string): number => (v === "nan" ? NaN : v === "inf" ? Infinity : v === "-inf" ? -Infinity : v === "-0" ? -0 : Number(v));

function hostOf(dtypeName: string, values: readonly Value[]): HostArray {
  const dtype = dtypeOf(dtypeName as never);
  const host = allocateHostArray(dtype, values.length);
  values.forEach((v, j) => {
    if (Array.isArray(v)) {
      host[2 * j] = number(v[0]!);
      host[2 * j + 1] = number(v[1]!);
    } else if (typeof v === "boolean") host[j] = v ? 1 : 0;
    else if (host instanceof BigInt64Array || host instanceof BigUint64Array) host[j] = BigInt(v as string);
    else host[j] = number(v as number | string);
  });
  return host;
}

/** NumPy's `_leading_trailing` on host data: `edge` elements from each end of each axis longer than 2·edge. */
function edges(values: readonly Value[], shape: readonly number[], edge: number): { values: Value[]; shown: number[] } {
  let data = [...values];
  let shown = [...shape];
  for (let axis = 0; axis < shape.length; axis++) {
    const n = shown[axis]!;
    if (2 * edge >= n) continue;
    const inner = shown.slice(axis + 1).reduce((p, m) => p * m, 1);
    const outer = shown.slice(0, axis).reduce((p, m) => p * m, 1);
    const keep = [...Array.from({ length: edge }, (_, i) => i), ...Array.from({ length: edge }, (_, i) => n - edge + i)];
    const next: Value[] = [];
    for (let o = 0; o < outer; o++) for (const k of keep) for (let i = 0; i < inner; i++) next.push(data[(o * n + k) * inner + i]!);
    data = next;
    shown = shown.map((m, d) => (d === axis ? 2 * edge : m));
  }
  return { values: data, shown };
}

describe("printing as NumPy prints", () => {
  it("writes array2string's and repr's text for 700 random arrays", () => {
    let compared = 0;
    const failures: string[] = [];
    for (const c of fixture.cases) {
      const options = c.options as PrintOptions;
      const size = c.shape.reduce((p, n) => p * n, 1);
      const threshold = options.threshold ?? 1000;
      const summary = size > threshold;
      const { values, shown } = summary ? edges(c.values as Value[], c.shape, options.edgeitems ?? 3) : { values: c.values as Value[], shown: c.shape };
      const dtype = dtypeOf(c.dtype as never);
      const host = hostOf(c.dtype, values);
      const got = formatHost(dtype, host, shown, c.shape, summary, printSettings(options));
      if (got !== c.str) failures.push(`${c.dtype} ${JSON.stringify(c.shape)} ${JSON.stringify(options)}:\n${got}\n--- NumPy:\n${c.str}`);
      if (c.repr !== null) {
        const rep = reprHost(dtype, host, shown, c.shape, summary, printSettings(options, ", "));
        if (rep !== c.repr) failures.push(`repr ${c.dtype} ${JSON.stringify(c.shape)} ${JSON.stringify(options)}:\n${rep}\n--- NumPy:\n${c.repr}`);
        compared++;
      }
      compared++;
    }
    expect(failures.slice(0, 5).join("\n\n")).toBe("");
    expect(compared).toBeGreaterThan(1000);
  });

  it("refuses options out of range, before reading anything back", async () => {
    const a = fakeArray([3], "float32");
    await expect(array2string(a, { precision: -1 })).rejects.toThrow(ArgumentError);
    await expect(array2string(a, { precision: 101 })).rejects.toThrow(/at most 100/);
    await expect(array2string(a, { edgeitems: 0 })).rejects.toThrow(/edgeitems is an integer from 1/);
    await expect(array2string(a, { sign: "x" as never })).rejects.toThrow(/sign is "-", "\+" or " "/);
    await expect(array2string(a, { floatmode: "short" as never })).rejects.toThrow(/floatmode is one of/);
    await expect(arrayRepr(a, { separator: 1 as never })).rejects.toThrow(/separator is a string/);
    await expect(array2string([1] as never)).rejects.toThrow(TypeError);
    await expect(array2string(fakeArray([0, 3], "float32"))).resolves.toBe("[]");
    await expect(arrayRepr(fakeArray([0, 3], "float32"))).resolves.toBe("array([], shape=(0, 3), dtype=float32)");
    await expect(arrayRepr(fakeArray([0], "float64"))).resolves.toBe("array([], dtype=float64)");
  });
});
