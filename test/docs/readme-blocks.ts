/**
 * README.md's TypeScript blocks as programs of this checkout: each ```ts block, its `cuda-ts` imports pointed at the
 * sources that deno.json's exports name for them, written into a scratch folder under the repository's git-ignored
 * tmp/ (so that the sources resolve, and tsc finds the repository's tsconfig and types). Shared by
 * readme.test.ts (type checks, a run against the mock libcuda, the links) and readme.gpu.test.ts (the run on a GPU).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

/** The repository's root. */
export const root: string = resolve(import.meta.dirname ?? new URL(".", import.meta.url).pathname, "../..");

/** The comment that marks the quick start: the ```ts block right after it. */
export const QUICK_START_MARK = "<!-- quick-start -->";

/** One ```ts block of a Markdown file. */
export interface CodeBlock {
  /** The block's code, without its fences. */
  readonly code: string;
  /** The 1-based line of its opening fence. */
  readonly line: number;
  /** Whether the quick-start mark comes right before it (blank lines between allowed). */
  readonly quickStart: boolean;
}

/** The ```ts (and ```typescript) blocks of a Markdown text, in order. */
export function tsBlocks(markdown: string): CodeBlock[] {
  const lines = markdown.split("\n");
  const blocks: CodeBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,})(ts|typescript)\s*$/.exec(lines[i]!);
    if (open === null) {
      // Skip over other fenced blocks whole, so that a fence inside one is not taken for a block of its own.
      const other = /^\s*(`{3,})\S*\s*$/.exec(lines[i]!);
      if (other !== null) {
        const end = lines.findIndex((l, j) => j > i && l.trim() === other[1]);
        i = end < 0 ? lines.length : end;
      }
      continue;
    }
    const fence = open[2]!;
    const end = lines.findIndex((l, j) => j > i && l.trim() === fence);
    if (end < 0) throw new Error(`line ${i + 1}: a \`\`\`${open[3]} block that is never closed`);
    let k = i - 1;
    while (k >= 0 && lines[k]!.trim() === "") k--;
    blocks.push({ code: lines.slice(i + 1, end).join("\n") + "\n", line: i + 1, quickStart: k >= 0 && lines[k]!.trim() === QUICK_START_MARK });
    i = end;
  }
  return blocks;
}

/** README.md's ```ts blocks. */
export function readmeBlocks(): CodeBlock[] {
  return tsBlocks(readFileSync(join(root, "README.md"), "utf8"));
}

/** deno.json's exports as package specifiers: `cuda-ts`, `cuda-ts/math`, ... → the source file (absolute). */
export function packageEntries(): Map<string, string> {
  const config = JSON.parse(readFileSync(join(root, "deno.json"), "utf8")) as { exports: Record<string, string> };
  const entries = new Map<string, string>();
  for (const [key, file] of Object.entries(config.exports)) {
    entries.set(key === "." ? "cuda-ts" : `cuda-ts/${key.replace(/^\.\//, "")}`, resolve(root, file));
  }
  return entries;
}

/**
 * The block's code with every `cuda-ts` specifier (`from "cuda-ts/math"`, `import "cuda-ts"`) replaced by the
 * relative path of its source file as seen from `dir`. A specifier deno.json does not export throws, naming it.
 */
export function pointAtSources(code: string, dir: string, entries: Map<string, string> = packageEntries()): string {
  return code.replace(/\b(from|import)(\s*)(["'])(cuda-ts(?:\/[^"']*)?)\3/g, (_all, keyword: string, space: string, quote: string, specifier: string) => {
    const file = entries.get(specifier);
    if (file === undefined) throw new Error(`README.md imports ${JSON.stringify(specifier)}, which deno.json does not export`);
    let rel = relative(dir, file);
    if (!rel.startsWith(".")) rel = `./${rel}`;
    return `${keyword}${space}${quote}${rel}${quote}`;
  });
}

/** A scratch folder under the repository's tmp/ (git-ignored), removed by the returned function. */
export function scratchFolder(prefix: string): { dir: string; remove(): void } {
  mkdirSync(join(root, "tmp"), { recursive: true });
  const dir = mkdtempSync(join(root, "tmp", prefix));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Writes a block, pointed at the sources, into `dir` as `name`; returns its path. */
export function writeBlock(dir: string, block: CodeBlock, name: string): string {
  const file = join(dir, name);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, pointAtSources(block.code, dir));
  return file;
}

/** Writes README.md's quick start, pointed at the sources, into `dir`; returns its path. */
export function writeQuickStart(dir: string): string {
  const quick = readmeBlocks().filter((b) => b.quickStart);
  if (quick.length !== 1) throw new Error(`README.md must mark exactly one \`\`\`ts block with ${QUICK_START_MARK}; found ${quick.length}`);
  return writeBlock(dir, quick[0]!, "quick-start.ts");
}
