/**
 * Argument checks at the binding boundary, as a user's mistakes meet them: a forgotten argument, a size past the
 * buffer given, a negative or fractional size, a string with NUL, a value of the wrong type. Each is a
 * BindingArgumentError naming the function and the parameter, before any native call, in both call styles and on
 * both runtimes. NVVM (the toolkit's libnvvm, which needs no GPU) is the library called; where it is absent the
 * checks still hold, since they come before the library is loaded.
 */
import { describe, expect, it } from "vitest";
import { nvvm } from "../../src/bindings/nvvm.ts";
import { runtime } from "../../src/bindings/runtime.ts";
import { checkRawArguments, arityError } from "../../src/bindings/arguments.ts";
import { describeValue } from "../../src/errors/describe.ts";
import { BindingArgumentError } from "../../src/bindings/errors.ts";
import { ffi } from "../../src/ffi/index.ts";
import { argumentCondition, type ArgumentKind } from "../../src/tables-runtime/argument-checks.ts";
import type { FunctionSpec } from "../../src/tables-runtime/spec.ts";

type Loose = Record<string, (...args: unknown[]) => unknown>;
const checked = nvvm as unknown as Loose;
const raw = nvvm.raw as unknown as Loose;

/** The BindingArgumentError `f` throws (fails the test when it throws anything else, or nothing). */
function refusal(f: () => unknown): BindingArgumentError {
  try {
    f();
  } catch (e) {
    if (e instanceof BindingArgumentError) return e;
    throw e;
  }
  throw new Error("expected a BindingArgumentError; the call went through");
}

/** A program handle that is never dereferenced: every call below is refused before the native call. */
const prog = ffi.pointerFromAddress(0x1000);

describe("the checked call style refuses bad arguments before the native call", () => {
  it("a forgotten argument names the missing parameter (the buffer of nvvmGetProgramLog)", () => {
    const e = refusal(() => checked.nvvmGetProgramLog!(prog));
    expect(e.functionName).toBe("nvvmGetProgramLog");
    expect(e.parameter).toBe("buffer");
    expect(e.message).toBe("nvvmGetProgramLog: `buffer` must be passed: nvvmGetProgramLog takes 2 arguments (prog, buffer); got 1 argument. Pass `buffer`.");
  });

  it("an extra argument is refused", () => {
    expect(refusal(() => checked.nvvmCompileProgram!(prog, 0, [], "extra")).parameter).toBe("arguments");
  });

  it("a size past the string given (NVVM would read past a 3-byte buffer)", () => {
    const e = refusal(() => checked.nvvmAddModuleToProgram!(prog, "abc", 1000, "m"));
    expect(e.parameter).toBe("size");
    expect(e.message).toContain("at most the 3 bytes of `buffer`");
    // Multi-byte UTF-8 counts in bytes, not characters.
    expect(refusal(() => checked.nvvmAddModuleToProgram!(prog, "é", 4, "m")).message).toContain("at most the 2 bytes of `buffer`");
  });

  it("a size past the typed array given", () => {
    const e = refusal(() => checked.nvvmAddModuleToProgram!(prog, new Uint8Array(4), 5, "m"));
    expect(e.parameter).toBe("buffer");
    expect(e.message).toContain("at least 5 bytes");
  });

  it("negative, fractional, NaN and unsafe sizes", () => {
    for (const size of [-1, 1.5, Number.NaN, 2 ** 53, -1n, 2n ** 64n, "3", undefined]) {
      expect(refusal(() => checked.nvvmAddModuleToProgram!(prog, "abc", size, "m")).parameter).toBe("size");
    }
  });

  it("a count of the C type's range", () => {
    expect(refusal(() => checked.nvvmCompileProgram!(prog, 2 ** 31, [])).parameter).toBe("numOptions");
    expect(refusal(() => checked.nvvmCompileProgram!(prog, 2, ["-opt=3"])).parameter).toBe("options");
  });

  it("a string with NUL, in a string and in a string array", () => {
    expect(refusal(() => checked.nvvmAddModuleToProgram!(prog, "a\0b", 3, "m")).message).toContain("NUL at 1");
    expect(refusal(() => checked.nvvmCompileProgram!(prog, 1, ["-opt=3\0"])).parameter).toBe("options[0]");
    expect(refusal(() => checked.nvvmCompileProgram!(prog, 1, [3])).parameter).toBe("options[0]");
  });

  it("a handle of the wrong type, and memory of the wrong kind", () => {
    expect(refusal(() => checked.nvvmGetProgramLog!("prog", new Uint8Array(8))).parameter).toBe("prog");
    expect(refusal(() => checked.nvvmGetProgramLog!(prog, undefined)).parameter).toBe("buffer");
    expect(refusal(() => checked.nvvmGetProgramLog!(prog, "a string")).parameter).toBe("buffer");
    expect(refusal(() => checked.nvvmGetProgramLog!(prog, {})).parameter).toBe("buffer");
    expect(refusal(() => checked.nvvmDestroyProgram!(42.5)).parameter).toBe("prog");
  });
});

describe("memory a library writes is checked against the size that bounds it", () => {
  it("cudaMemcpy into a typed array smaller than the count (a header tie the manifest records)", () => {
    const e = refusal(() => (runtime as unknown as Loose).cudaMemcpy!(new Uint8Array(4), new Uint8Array(100), 100, 2));
    expect(e.parameter).toBe("dst");
    expect(e.message).toContain("at least 100 bytes");
    expect(refusal(() => (runtime as unknown as Loose).cudaMemcpy!(new Uint8Array(100), new Uint8Array(4), 100, 1)).parameter).toBe("src");
  });
});

describe("the raw call style checks arguments against the native signature", () => {
  it("a forgotten argument, on raw as on checked", () => {
    expect(refusal(() => raw.nvvmGetProgramLog!(prog)).parameter).toBe("buffer");
  });

  it("types and ranges per native type", () => {
    expect(refusal(() => raw.nvvmAddModuleToProgram!(prog, "abc", 3, null)).parameter).toBe("buffer");
    expect(refusal(() => raw.nvvmAddModuleToProgram!(prog, null, -1, null)).parameter).toBe("size");
    expect(refusal(() => raw.nvvmAddModuleToProgram!(prog, null, 1.5, null)).parameter).toBe("size");
    expect(refusal(() => raw.nvvmAddModuleToProgram!(prog, null, 2n ** 64n, null)).parameter).toBe("size");
    expect(refusal(() => raw.nvvmCompileProgram!(prog, 2 ** 31, null)).parameter).toBe("numOptions");
    expect(refusal(() => raw.nvvmGetErrorString!(-1)).parameter).toBe("result");
    expect(refusal(() => raw.nvvmGetErrorString!(true)).parameter).toBe("result");
  });

  it("the error says what was expected, what came and what to do", () => {
    const e = refusal(() => raw.nvvmAddModuleToProgram!(prog, new Uint8Array(3), 3, null));
    expect(e.message).toMatch(/^nvvmAddModuleToProgram: `buffer` must be a native pointer .*; got a Uint8Array of 3 bytes\. The raw style takes native pointers: make one with ffi\.pointerOf\(buffer\)/);
  });
});

describe("the checks themselves", () => {
  const spec = (parameters: FunctionSpec["parameters"], names?: string[]): FunctionSpec => ({ symbol: "f", parameters, result: "u32", ...(names ? { names } : {}) });

  it("each native kind takes its values and refuses the rest", () => {
    const cases: [ArgumentKind, unknown[], unknown[]][] = [
      ["i8", [-128, 0, 127], [128, -129, 1.5, "1", null, 1n, Symbol("s")]],
      ["u8", [0, 255], [-1, 256, Number.NaN]],
      ["i16", [-32768, 32767], [32768, -32769]],
      ["u16", [0, 65535], [65536, -1]],
      ["i32", [-(2 ** 31), 2 ** 31 - 1, 0], [2 ** 31, 0.5, Infinity, -0]],
      ["u32", [0, 2 ** 32 - 1], [2 ** 32, -1, undefined, -0]],
      ["i64", [-(2n ** 63n), 2n ** 63n - 1n, -(2 ** 53) + 1, 2 ** 53 - 1], [2n ** 63n, 2 ** 53, 1.5, "1"]],
      ["u64", [0, 0n, 2n ** 64n - 1n, 2 ** 53 - 1], [-1, -1n, 2n ** 64n, 2 ** 53, Number.NaN]],
      ["f32", [0, -1.5, Number.NaN], ["1", 1n, null]],
      ["f64", [Infinity], [undefined]],
      ["bool", [true, false], [0, 1, "true"]],
      ["pointer", [null, ffi.pointerFromAddress(64)], [undefined, "0x40", {}, new Uint8Array(8), -1, 1.5]],
    ];
    for (const [kind, good, bad] of cases) {
      const ok = new Function("P", "v", `return ${argumentCondition(kind, "v")};`) as (P: (v: unknown) => boolean, v: unknown) => boolean;
      for (const v of good) expect(ok(ffi.isPointer, v), `${kind} takes ${describeValue(v)}`).toBe(true);
      for (const v of bad) expect(ok(ffi.isPointer, v), `${kind} refuses ${describeValue(v)}`).toBe(false);
    }
  });

  it("a raw wrapper calls through with the same arguments, refuses before calling, and names parameters", () => {
    const calls: unknown[][] = [];
    const f = checkRawArguments("f", spec(["u32", "pointer", "u64"], ["flags", "ptr", "size"]), (...a: unknown[]) => {
      calls.push(a);
      return 0;
    });
    expect(f(1, null, 2n)).toBe(0);
    expect(calls).toEqual([[1, null, 2n]]);
    expect(refusal(() => f(1, null)).parameter).toBe("size");
    expect(refusal(() => f(1, null, 2n, 3)).parameter).toBe("arguments");
    expect(refusal(() => f(-1, null, 2n)).parameter).toBe("flags");
    expect(calls.length).toBe(1);
  });

  it("a struct by value: a Uint8Array of at least its size", () => {
    const layout = { name: "struct s", size: 8, align: 4, leaves: [], passing: { kind: "memory" } } as const;
    const f = checkRawArguments("g", spec([{ struct: layout }]), (..._a: unknown[]) => 0);
    expect(f(new Uint8Array(8))).toBe(0);
    const e = refusal(() => f(new Uint8Array(4)));
    expect(e.parameter).toBe("argument 1");
    expect(e.message).toContain("a Uint8Array of 8 bytes");
  });

  it("arity errors read as sentences", () => {
    expect(arityError("f", ["a", "b", "c"], 3, 1).message).toBe("f: `b` must be passed: f takes 3 arguments (a, b, c); got 1 argument. Pass `b` and the arguments after it.");
    expect(arityError("f", ["a", "cap"], 1, 3).message).toBe("f: `arguments` must be 1 to 2 arguments (a, cap); got 3 arguments. Remove the extra arguments.");
  });
});
