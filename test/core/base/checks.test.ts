/** How the object layer describes a value it refuses: one helper, the same words everywhere. */
import { describe, expect, it } from "vitest";
import { describeValue } from "../../../src/errors/describe.ts";
import { LEGACY_DEFAULT_STREAM } from "../../../src/index.ts";

describe("describeValue", () => {
  it("says what came, quoting strings and marking bigints", () => {
    expect(describeValue(null)).toBe("null");
    expect(describeValue(undefined)).toBe("undefined");
    expect(describeValue("c++17")).toBe('"c++17"');
    expect(describeValue("x".repeat(100))).toBe(JSON.stringify(`${"x".repeat(77)}...`));
    expect(describeValue(-3)).toBe("-3");
    expect(describeValue(NaN)).toBe("NaN");
    expect(describeValue(12n)).toBe("12n");
    expect(describeValue(true)).toBe("true");
    expect(describeValue(() => 1)).toBe("a function");
    expect(describeValue(Symbol("s"))).toBe("a symbol");
  });

  it("names arrays, typed arrays and class instances, and shows small plain objects", () => {
    expect(describeValue([1, 2, 3])).toBe("an array of 3");
    expect(describeValue(new Uint8Array(16))).toBe("a Uint8Array of 16 bytes");
    expect(describeValue(new Float64Array(2))).toBe("a Float64Array of 16 bytes");
    expect(describeValue(LEGACY_DEFAULT_STREAM)).toBe("a Stream");
    expect(describeValue(new Error("x"))).toBe("an Error");
    expect(describeValue({ grid: 1 })).toBe('{"grid":1}');
    expect(describeValue({ long: "y".repeat(100) })).toBe("an object");
    const cyclic: { self?: unknown } = {};
    cyclic.self = cyclic;
    expect(describeValue(cyclic)).toBe("an object");
    expect(describeValue(Object.create(null))).toBe("{}");
  });
});
