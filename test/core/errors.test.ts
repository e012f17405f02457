/**
 * The object layer's errors live beside their subjects (launch/errors.ts, graph/errors.ts, event-errors.ts, ...), are
 * all re-exported by src/core/errors.ts and from the package root, and say what happened in their name; the checks
 * that need no GPU throw them.
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

  it("are defined in an errors module beside their subject, each re-exported by src/core/errors.ts (module-private errors aside)", () => {
    const defined = sourceFiles(repo, "src/core").flatMap((f) =>
      [...readFileSync(resolve(repo, f), "utf8").matchAll(/^export class (\w+) extends \w*Error\b/gm)].map((m) => ({ file: f, name: m[1]! })),
    );
    expect(defined.length).toBeGreaterThan(40);
    expect(defined.filter(({ file }) => !/(^|\/|-)errors\.ts$/.test(file)).map(({ file, name }) => `${file}: ${name}`), "define it in the subject's errors.ts").toEqual([]);
    expect(defined.filter(({ name }) => !(name in errors)).map(({ file, name }) => `${file}: ${name}`), "re-export it from src/core/errors.ts").toEqual([]);
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
