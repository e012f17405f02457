/**
 * A vitest reporter that closes the run with the skipped suites and tests, one line each with the reason their
 * name carries (`(skipped: ...)`, `[skipped: ...]`): a skipped suite is listed once, not test by test. Used beside
 * the short `dot` reporter (vitest.config.ts), so that the default output stays short and still says what did not
 * run and why.
 *
 * @module
 */
import * as path from "node:path";
import type { Reporter, TestModule, TestSuite } from "vitest/node";
import { SLOW_FILES } from "../../vitest.config.ts";

type Child = TestModule["children"] extends { array(): (infer C)[] } ? C : never;

function skipped(entity: Child | TestModule): boolean {
  if (entity.type === "test") return entity.result().state === "skipped";
  const tests = [...entity.children.allTests()];
  return tests.length > 0 && tests.every((t) => t.result().state === "skipped");
}

/** The names of the outermost skipped suites and tests under `parent`. */
function collect(parent: TestModule | TestSuite, prefix: string, out: string[]): void {
  for (const child of parent.children.array()) {
    const name = prefix === "" ? child.name : `${prefix} > ${child.name}`;
    if (skipped(child)) out.push(name);
    else if (child.type === "suite") collect(child, name, out);
  }
}

/** The text of the bracketed group that opens at `open` (`[` or `(`), nested brackets included, and where it ends. */
function bracketed(name: string, open: number): { text: string; end: number } | undefined {
  let depth = 0;
  for (let i = open; i < name.length; i++) {
    const c = name[i];
    if (c === "[" || c === "(") depth++;
    else if (c === "]" || c === ")") {
      depth--;
      if (depth === 0) return { text: name.slice(open + 1, i), end: i };
    }
  }
  return undefined;
}

/**
 * The reason a skipped suite or test names, `[skipped: why]` or `(skipped: why)` anywhere, else a trailing `(why)`,
 * and the name without it; `reason` is undefined when the name gives none.
 */
export function skipReason(name: string): { reason?: string; rest: string } {
  const at = name.search(/[[(]skipped: /);
  if (at >= 0) {
    const g = bracketed(name, at);
    const reason = g?.text.slice("skipped: ".length).trim();
    if (g !== undefined && reason !== "") return { reason, rest: (name.slice(0, at) + name.slice(g.end + 1)).trim() };
  }
  if (name.endsWith(")")) {
    for (let i = name.length - 1; i >= 0; i--) {
      if (name[i] !== "(") continue;
      const g = bracketed(name, i);
      if (g !== undefined && g.end === name.length - 1) return g.text.trim() === "" ? { rest: name } : { reason: g.text.trim(), rest: name.slice(0, i).trim() };
    }
  }
  return { rest: name };
}

/**
 * Skipped entries as lines, one per reason: the reason, how many, and the first few of them (files, or tests by
 * their file). Entries whose name gives no reason are listed one by one.
 */
export function groupedSkips(entries: readonly { readonly file: string; readonly name: string; readonly whole: boolean }[], shown = 3): string[] {
  const byReason = new Map<string, string[]>();
  const bare: string[] = [];
  for (const e of entries) {
    const { reason, rest } = skipReason(e.name);
    const where = e.whole ? e.file : `${e.file} > ${rest}`;
    if (reason === undefined) bare.push(`  ${where}`);
    else byReason.set(reason, [...(byReason.get(reason) ?? []), where]);
  }
  const lines: string[] = [];
  for (const [reason, where] of [...byReason].sort((a, b) => b[1].length - a[1].length || (a[0] < b[0] ? -1 : 1))) {
    const unique = [...new Set(where)];
    const list = unique.slice(0, shown).join(", ") + (unique.length > shown ? `, and ${unique.length - shown} more` : "");
    lines.push(`  ${reason}: ${unique.length} (${list})`);
  }
  return [...lines, ...bare];
}

/** The reporter (vitest.config.ts names this file). */
export default class SkipSummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const entries: { file: string; name: string; whole: boolean }[] = [];
    for (const m of [...testModules].sort((a, b) => (a.moduleId < b.moduleId ? -1 : 1))) {
      const file = path.relative(process.cwd(), m.moduleId);
      const names: string[] = [];
      collect(m, "", names);
      const whole = skipped(m);
      for (const n of names) entries.push({ file, name: n, whole });
    }
    // The tests that ran part of themselves as another user (test/support/two-users.ts marks them): a log then shows
    // they ran, not skipped, where they must (CI runs as root). One line: how many, per file.
    const twoUsers = new Map<string, number>();
    for (const m of testModules) {
      for (const t of m.children.allTests()) {
        if ((t.meta() as { twoUsers?: boolean }).twoUsers === true && t.result().state === "passed") {
          const file = path.relative(process.cwd(), m.moduleId);
          twoUsers.set(file, (twoUsers.get(file) ?? 0) + 1);
        }
      }
    }
    if (twoUsers.size > 0) {
      const total = [...twoUsers.values()].reduce((a, b) => a + b, 0);
      console.log(`\nRan as two users (${total}): ${[...twoUsers].sort().map(([f, n]) => `${f} ${n}`).join(", ")}`);
    }
    if (process.env.CUDA_TS_TESTS === "quick") {
      console.log(`\nThe quick suite: the slow files (vitest.config.ts's SLOW_FILES: ${SLOW_FILES.length} entries) were left out; \`npm run test:full\` runs everything.`);
    }
    if (entries.length === 0) return;
    console.log(`\nSkipped (${entries.length}), by the reason each gives:\n${groupedSkips(entries).join("\n")}`);
  }
}
