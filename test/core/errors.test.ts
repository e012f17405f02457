/**
 * The object layer's errors live in one place (src/core/errors.ts), are all exported from the package root, and
 * say what happened in their name; the checks that need no GPU throw them.
 */
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import * as root from "../../src/index.ts";
import * as errors from "../../src/core/errors.ts";
import { HostFileError, ObjectCode } from "../../src/index.ts";
import { sourceFiles } from "../support/import-graph.ts";

const repo = resolve(import.meta.dirname ?? new URL(".", import.meta.url).pathname, "../..");

describe("the object layer's errors", () => {
  it("are all exported from the package root", () => {
    for (const [name, value] of Object.entries(errors)) expect((root as Record<string, unknown>)[name], name).toBe(value);
  });

  it("are defined in src/core/errors.ts only (a module-private parser error aside)", () => {
    const elsewhere = sourceFiles(repo, "src/core")
      .filter((f) => f !== "src/core/errors.ts")
      .flatMap((f) => [...readFileSync(resolve(repo, f), "utf8").matchAll(/^(export )?class (\w+) extends \w*Error\b/gm)].filter((m) => m[1] !== undefined).map((m) => `${f}: ${m[2]}`));
    expect(elsewhere).toEqual([]);
  });

  it("are used instead of plain Error in src/", () => {
    const plain = sourceFiles(repo, "src")
      .filter((f) => !f.startsWith("src/cli/"))
      .filter((f) => readFileSync(resolve(repo, f), "utf8").includes("throw new Error("));
    expect(plain).toEqual([]);
  });

  it("HostFileError: an object code file that is not there", () => {
    const path = "/nonexistent/cuda-ts/kernel.cubin";
    let error: unknown;
    try {
      ObjectCode.fromCubin(path);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(HostFileError);
    expect((error as HostFileError).path).toBe(path);
    expect(String(error)).toMatch(/HostFileError: cannot read cubin file \/nonexistent\/cuda-ts\/kernel.cubin: it does not exist or may not be read/);
  });
});
