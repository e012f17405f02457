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

/** The reporter (vitest.config.ts names this file). */
export default class SkipSummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const lines: string[] = [];
    for (const m of [...testModules].sort((a, b) => (a.moduleId < b.moduleId ? -1 : 1))) {
      const file = path.relative(process.cwd(), m.moduleId);
      if (skipped(m)) {
        const names: string[] = [];
        collect(m, "", names);
        lines.push(`  ${file}: ${names.join("; ")}`);
        continue;
      }
      const names: string[] = [];
      collect(m, "", names);
      for (const n of names) lines.push(`  ${file} > ${n}`);
    }
    // The tests that ran part of themselves as another user (test/support/two-users.ts marks them): a log then shows
    // they ran, not skipped, where they must (CI runs as root).
    const twoUsers: string[] = [];
    for (const m of testModules) {
      for (const t of m.children.allTests()) {
        if ((t.meta() as { twoUsers?: boolean }).twoUsers === true && t.result().state === "passed") twoUsers.push(`  ${path.relative(process.cwd(), m.moduleId)} > ${t.fullName}`);
      }
    }
    if (twoUsers.length > 0) console.log(`\nRan as two users (${twoUsers.length}):\n${twoUsers.sort().join("\n")}`);
    if (lines.length === 0) return;
    console.log(`\nSkipped (${lines.length}), with the reason in each name:\n${lines.join("\n")}`);
  }
}
