/**
 * README.md works as written:
 *
 * - every ```ts block type-checks with tsc in strict mode, its `cuda-ts` imports pointed at the sources deno.json
 *   exports for them (each block is a complete program, imports included);
 * - the quick start (the block after `<!-- quick-start -->`) runs to its end on this runtime, with the Deno
 *   permissions README.md gives, against the mock libcuda (bench/fixtures/mock-cuda.c, which also answers as NVRTC;
 *   it moves no data, so the printed values are the host array's own) — readme.gpu.test.ts runs it on a GPU;
 * - README.md's set-up and full test command are what .ci/run does;
 * - every relative link of README.md, docs/*.md and examples/README.md names a file that exists, and a `#fragment`
 *   into a Markdown file names one of its headings.
 */
import { spawnSync } from "node:child_process";
import { accessSync, constants, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join, relative, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runtimeCommand } from "../support/runtime.ts";
import { pointAtSources, readmeBlocks, root, scratchFolder, writeQuickStart } from "./readme-blocks.ts";

const readme = readFileSync(join(root, "README.md"), "utf8");

/** An executable on PATH. */
function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (dir === "") continue;
    const p = join(dir, name);
    try {
      if (!statSync(p).isFile()) continue;
      accessSync(p, constants.X_OK);
      return p;
    } catch {
      // not here
    }
  }
  return undefined;
}

const scratch: Array<() => void> = [];
afterAll(() => {
  for (const remove of scratch) remove();
});

describe("README.md", () => {
  it("is short, and marks exactly one quick start", () => {
    expect(readme.split("\n").length).toBeLessThan(250);
    const blocks = readmeBlocks();
    expect(blocks.length).toBeGreaterThan(0);
    expect(blocks.filter((b) => b.quickStart).map((b) => b.line)).toHaveLength(1);
  });

  it("counts the examples there are", () => {
    const said = /(\d+) runnable examples/.exec(readme)?.[1];
    const there = readdirSync(join(root, "examples")).filter((f) => f.endsWith(".ts")).length;
    if (said !== undefined) expect(Number(said), "README.md's count of examples/*.ts").toBe(there);
  });

  it("gives the set-up and the test command that .ci/run runs", () => {
    const ci = readFileSync(join(root, ".ci/run"), "utf8");
    // .ci/run's install line: the words after `install` that are not options, up to a redirection.
    const install = (ci.split("\n").find((l) => /apt-get install /.test(l)) ?? "").replace(/[>&|].*$/, "").split(/\s+/);
    const packages = install.slice(install.indexOf("install") + 1).filter((w) => w !== "" && !w.startsWith("-"));
    expect(packages).toEqual(expect.arrayContaining(["libclang1-19", "libclang-common-19-dev", "gcc", "libc6-dev"]));
    const setUp = readme.split("\n").find((l) => l.includes("apt-get install"));
    expect(setUp, "README.md's set-up line").toBeDefined();
    for (const p of packages) expect(setUp).toContain(` ${p}`);
    expect(setUp).toMatch(/&& npm ci\s*$/);
    expect(ci).toMatch(/^npm ci\b/m);
    // The test commands: README.md shows `npm test` (the quick suite) and `npm run test:full` (everything), and
    // .ci/run ends with exactly the full one.
    expect(readme).toMatch(/```sh\nnpm test +# the quick suite\nnpm run test:full +# everything, as CI runs it\n```/);
    expect(ci.trimEnd().split("\n").at(-1)).toBe("npm run test:full");
  });
});

const tsc = join(root, "node_modules/.bin/tsc");
const canTypeCheck = existsSync(tsc) && onPath("node") !== undefined;

describe.skipIf(!canTypeCheck)(`README.md's TypeScript blocks${canTypeCheck ? "" : " [skipped: needs node_modules/.bin/tsc and node on PATH]"}`, () => {
  it("type-check in strict mode against the sources", () => {
    const { dir, remove } = scratchFolder("docs-readme-tsc-");
    scratch.push(remove);
    const blocks = readmeBlocks();
    const files = blocks.map((b, i) => {
      const name = `block-${i + 1}-line-${b.line}.ts`;
      writeFileSync(join(dir, name), pointAtSources(b.code, dir));
      return name;
    });
    const base = relative(dir, join(root, "tsconfig.json"));
    const types = relative(dir, join(root, "types"));
    writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ extends: base, compilerOptions: { strict: true, noEmit: true }, include: [...files, types] }, null, 2));
    const r = spawnSync(tsc, ["-p", join(dir, "tsconfig.json")], { cwd: dir, encoding: "utf8", timeout: 240_000 });
    expect(`${r.stdout}${r.stderr}${r.error ?? ""}`.trim(), `tsc on README.md's blocks (files in ${dir}: block-N-line-L.ts is the block at README.md line L)`).toBe("");
    expect(r.status).toBe(0);
  });
});

const gcc = ["/usr/bin/gcc", "/usr/local/bin/gcc"].find((p) => existsSync(p));

describe.skipIf(gcc === undefined)(`README.md's quick start against the mock libcuda${gcc === undefined ? " [skipped: needs gcc]" : ""}`, () => {
  it("runs to its end with the permissions README.md gives and prints its line", () => {
    const lib = mkdtempSync(join(tmpdir(), "cuda-ts-readme-mock-"));
    scratch.push(() => rmSync(lib, { recursive: true, force: true }));
    const mock = join(lib, "libcuda.so.1");
    const cc = spawnSync(gcc!, ["-shared", "-fPIC", "-O2", "-Wl,-soname,libcuda.so.1", "-o", mock, join(root, "bench/fixtures/mock-cuda.c"), "-ldl"], { encoding: "utf8" });
    expect(cc.status, `${cc.stdout}${cc.stderr}`).toBe(0);

    const { dir, remove } = scratchFolder("docs-readme-run-");
    scratch.push(remove);
    const file = writeQuickStart(dir);
    // README.md: `deno run --allow-ffi --allow-env --allow-read saxpy.ts` (runtimeCommand's default), `bun saxpy.ts`.
    expect(readme).toContain("deno run --allow-ffi --allow-env --allow-read saxpy.ts");
    const cmd = runtimeCommand(file);
    const env = { ...process.env, CUDA_TS_CUDA_PATH: mock, CUDA_TS_NVRTC_PATH: mock, CUDA_TS_TABLES: "newest" };
    const r = spawnSync(cmd[0]!, cmd.slice(1), { cwd: root, encoding: "utf8", env, timeout: 120_000 });
    expect(r.status, `${r.stdout}\n${r.stderr}${r.error ?? ""}`).toBe(0);
    // The mock copies nothing and runs no kernel: y keeps its host values. On a GPU: 1, 3, 5, 7.
    expect(r.stdout.trim()).toBe("Mock GPU: y[0..3] = 1, 1, 1, 1");
    expect(r.stderr).not.toMatch(/is not mocked/);
  });
});

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/`/g, "")
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

/** The anchors of a Markdown file's headings (duplicates numbered as GitHub numbers them). */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  let fenced = false;
  for (const line of markdown.split("\n")) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    const h = fenced ? null : /^#{1,6}\s+(.*)$/.exec(line);
    if (h === null) continue;
    const s = slug(h[1]!);
    const n = seen.get(s) ?? 0;
    seen.set(s, n + 1);
    out.add(n === 0 ? s : `${s}-${n}`);
  }
  return out;
}

/** The relative links of a Markdown file, outside code: [text](target) targets, with their lines. */
function relativeLinks(markdown: string): Array<{ target: string; line: number }> {
  const links: Array<{ target: string; line: number }> = [];
  let fenced = false;
  markdown.split("\n").forEach((line, i) => {
    if (/^\s*```/.test(line)) {
      fenced = !fenced;
      return;
    }
    if (fenced) return;
    const text = line.replace(/`[^`]*`/g, "");
    for (const m of text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = m[1]!;
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:
      links.push({ target, line: i + 1 });
    }
  });
  return links;
}

/** A link that may point at a file still to come from other work; the one allowed to be absent. */
const MAY_BE_ABSENT = new Set([join(root, "docs/multi-node.md")]);

describe("links of README.md, docs/ and examples/README.md", () => {
  const docs = existsSync(join(root, "docs")) ? readdirSync(join(root, "docs")).filter((f) => f.endsWith(".md")).map((f) => join("docs", f)) : [];
  const files = ["README.md", "examples/README.md", ...docs];

  it.each(files)("%s: every relative link names an existing file (and heading)", (file) => {
    const path = join(root, file);
    const broken: string[] = [];
    for (const { target, line } of relativeLinks(readFileSync(path, "utf8"))) {
      const [pathPart, fragment] = target.split("#", 2) as [string, string | undefined];
      const dest = pathPart === "" ? path : resolve(dirname(path), decodeURIComponent(pathPart));
      if (!existsSync(dest)) {
        if (!MAY_BE_ABSENT.has(dest)) broken.push(`${file}:${line}: ${target} (no such file)`);
        continue;
      }
      if (fragment !== undefined && dest.endsWith(".md") && !anchors(readFileSync(dest, "utf8")).has(fragment)) {
        broken.push(`${file}:${line}: ${target} (no heading #${fragment} in ${relative(root, dest)})`);
      }
    }
    expect(broken).toEqual([]);
  });
});
