/**
 * Argument validation of both call styles, swept over every function of every generated table: for each library
 * and table version (CUDA 13.0 and 12.4, NCCL 2.28 and 2.22), a child process of the running runtime
 * (test/bindings/argument-sweep-child.ts) binds a mock of that library generated from the table
 * (test/support/mock-library.ts) and checks, with fast-check, that wrong arguments throw BindingArgumentError naming the
 * function before any native call, that right arguments reach the library and return, and that what a checked
 * function returns has the shape its roles in report.json promise (test/bindings/argument-sweep-shapes.ts: undefined,
 * one value or a tuple of as many as it has outputs; numbers, bigints, booleans, Pointers, strings, records, typed
 * arrays; each library prints a `shapes` line). A crash (a segfault, an abort) fails that library's test, naming the
 * function being swept; the sweep then goes on past it.
 *
 * `CUDA_TS_SWEEP_SEED=N` repeats a run's values (each run prints its seed); `CUDA_TS_SWEEP_RUNS` sets the random runs
 * per function and style. One library by hand, with the seed a failure printed:
 *
 *   CUDA_TS_SWEEP_SEED=N bun test/bindings/argument-sweep-child.ts nvml 13.0 --only nvmlDeviceGetCount_v2
 *   CUDA_TS_SWEEP_SEED=N deno run -A test/bindings/argument-sweep-child.ts nvml 13.0 --only nvmlDeviceGetCount_v2
 *
 * Skipped where gcc is missing (the mocks are C compiled here).
 */
import { spawn } from "node:child_process";
import { resolve } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { MOCK_TARGETS, type MockTarget, mockBuildUnavailable } from "../support/mock-library.ts";
import { isBun, runtimeExecutable } from "../support/runtime.ts";

const root = resolve(import.meta.dirname ?? new URL(".", import.meta.url).pathname, "../..");
const child = resolve(root, "test/bindings/argument-sweep-child.ts");

/**
 * Functions not swept, by `library@version`, with the reason (the child reports them in its summary). None so far:
 * the mocks never call the callbacks they are given, so functions taking callbacks are swept too.
 */
const NOT_SWEPT: Readonly<Record<string, Readonly<Record<string, string>>>> = {};

const seed = Number(process.env.CUDA_TS_SWEEP_SEED ?? Math.floor(Math.random() * 2 ** 31));
/** Children at a time (CI machines have two cores). */
const PARALLEL = 2;
/** Crashes after which a library's sweep stops going on past the crashing function. */
const MAX_CRASHES = 3;

interface Summary {
  readonly library: string;
  readonly version: string;
  readonly runtime: string;
  readonly table: string;
  readonly reason: string;
  readonly seed: number;
  readonly functions: number;
  readonly swept: number;
  readonly cases: number;
  readonly failedFunctions: number;
  readonly byKind: Record<string, number>;
  readonly byCase: Record<string, number>;
  readonly notSwept: { function: string; reason: string }[];
  /** What the checked functions returned, checked against the shapes their roles promise (argument-sweep-shapes.ts). */
  readonly shapes: {
    readonly line: string;
    readonly functions: number;
    readonly withOutputs: number;
    readonly mismatches: { function: string; detail: string }[];
    readonly leftToCaller: string[];
  };
  readonly ms: number;
}
interface FunctionFailures {
  readonly style: string;
  readonly function: string;
  readonly count: number;
  readonly failures: { kind: string; case: string; detail: string }[];
}
interface Outcome {
  readonly summaries: Summary[];
  readonly failures: FunctionFailures[];
  readonly crashes: { function: string; how: string; stderr: string }[];
  readonly fatal: string[];
  readonly ms: number;
}

function runChild(t: MockTarget, skip: readonly string[]): Promise<{ stdout: string; stderr: string; code: number | null; signal: string | null }> {
  const args = [child, t.library, t.version, "--seed", String(seed), ...(skip.length > 0 ? ["--skip", skip.join(",")] : [])];
  const cmd = isBun ? args : ["run", "-A", ...args];
  return new Promise((done) => {
    const p = spawn(runtimeExecutable(), cmd, {
      cwd: root,
      env: { ...process.env, CUDA_TS_SWEEP_EXCLUDE: JSON.stringify(NOT_SWEPT) },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    p.stdout!.on("data", (d: Buffer) => out.push(d));
    p.stderr!.on("data", (d: Buffer) => err.push(d));
    p.on("close", (code, signal) => done({ stdout: Buffer.concat(out).toString("utf8"), stderr: Buffer.concat(err).toString("utf8"), code, signal }));
  });
}

/** Sweeps one target, going on past a crashing function (up to {@link MAX_CRASHES} times). */
async function sweepTarget(t: MockTarget): Promise<Outcome> {
  const started = performance.now();
  const summaries: Summary[] = [];
  const failures: FunctionFailures[] = [];
  const crashes: Outcome["crashes"] = [];
  const fatal: string[] = [];
  const skip: string[] = [];
  for (;;) {
    const r = await runChild(t, skip);
    for (const line of r.stdout.split("\n")) {
      if (!line.startsWith("{")) continue;
      const o = JSON.parse(line) as { type: string } & Record<string, unknown>;
      if (o.type === "summary") summaries.push(o as unknown as Summary);
      else if (o.type === "failures") failures.push(o as unknown as FunctionFailures);
      else if (o.type === "fatal") fatal.push(String(o.message));
    }
    if (r.code === 0) break;
    const at = [...r.stderr.matchAll(/^at (raw|checked) (\w+)$/gm)].pop();
    const rest = r.stderr.split("\n").filter((l) => !/^at (raw|checked) /.test(l) && l.trim() !== "");
    const tail = [...rest.filter((l) => /assert|panic|fault|error/i.test(l)).slice(0, 5), ...rest.slice(-8)].join("\n");
    if (at === undefined || fatal.length > 0) {
      crashes.push({ function: "(before the sweep)", how: r.signal ?? `exit ${r.code}`, stderr: tail });
      break;
    }
    crashes.push({ function: `${at[1]} ${at[2]}`, how: r.signal ?? `exit ${r.code}`, stderr: tail });
    if (crashes.length >= MAX_CRASHES) break;
    skip.push(at[2]!);
  }
  return { summaries, failures, crashes, fatal, ms: performance.now() - started };
}

/** Runs `jobs` at most `limit` at a time; each job's promise in its place. */
function limited<T>(jobs: readonly (() => Promise<T>)[], limit: number): Promise<T>[] {
  const settle: { resolve: (v: T) => void; reject: (e: unknown) => void }[] = [];
  const promises = jobs.map((_, i) => new Promise<T>((resolve, reject) => (settle[i] = { resolve, reject })));
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < jobs.length) {
      const i = next++;
      try {
        settle[i]!.resolve(await jobs[i]!());
      } catch (e) {
        settle[i]!.reject(e);
      }
    }
  };
  for (let k = 0; k < limit; k++) void worker();
  return promises;
}

/** What a library's failures say, for the assertion message: the commonest failing cases, then examples. */
function explain(t: MockTarget, o: Outcome): string {
  const lines: string[] = [];
  for (const c of o.crashes) lines.push(`CRASH (${c.how}) in ${t.library} ${t.version} while sweeping ${c.function}:\n${c.stderr}`);
  for (const f of o.fatal) lines.push(`FATAL: ${f}`);
  const byCase = new Map<string, number>();
  for (const s of o.summaries) for (const [k, v] of Object.entries(s.byCase)) byCase.set(k, (byCase.get(k) ?? 0) + v);
  const top = [...byCase.entries()].sort((a, b) => b[1] - a[1]).slice(0, 25);
  if (top.length > 0) lines.push(`failing cases (style / kind / case: functions):\n${top.map(([k, v]) => `  ${k}: ${v}`).join("\n")}`);
  const examples = o.failures.slice(0, 12).map((f) => `  ${f.style} ${f.function} (${f.count}): ${f.failures.slice(0, 3).map((x) => `[${x.kind}] ${x.case} → ${x.detail}`).join(" | ")}`);
  if (examples.length > 0) lines.push(`examples (${o.failures.length} function/style pairs failed):\n${examples.join("\n")}`);
  lines.push(`repeat with CUDA_TS_SWEEP_SEED=${seed}`);
  return lines.join("\n");
}

describe.skipIf(mockBuildUnavailable !== undefined)(
  `argument validation swept over every generated function, against generated mock libraries${mockBuildUnavailable ? ` [skipped: ${mockBuildUnavailable}]` : ""}`,
  () => {
    const outcomes = new Map<string, Promise<Outcome>>();
    beforeAll(() => {
      console.log(`argument sweep on ${isBun ? "bun" : "deno"}: seed ${seed} (CUDA_TS_SWEEP_SEED=${seed} repeats it)`);
      const promises = limited(
        MOCK_TARGETS.map((t) => () => sweepTarget(t)),
        PARALLEL,
      );
      MOCK_TARGETS.forEach((t, i) => outcomes.set(`${t.library}@${t.version}`, promises[i]!));
    });

    for (const t of MOCK_TARGETS) {
      it(`${t.library} ${t.version}: wrong arguments throw BindingArgumentError before the native call, right ones reach it`, { timeout: 300_000 }, async () => {
        const o = await outcomes.get(`${t.library}@${t.version}`)!;
        const swept = o.summaries.reduce((n, s) => n + s.swept, 0);
        const cases = o.summaries.reduce((n, s) => n + s.cases, 0);
        const s = o.summaries[0];
        const notSwept = o.summaries.flatMap((x) => x.notSwept);
        console.log(
          `${t.library} ${t.version} (${isBun ? "bun" : "deno"}, table ${s?.table ?? "?"}: ${s?.reason ?? "?"}): ${swept} function/style pairs swept of ${s?.functions ?? "?"} functions, ` +
            `${cases} cases, ${o.failures.length} failing, crashes: ${o.crashes.length}, ${Math.round(o.ms)} ms, seed ${seed}` +
            (notSwept.length > 0 ? `; not swept: ${notSwept.map((n) => `${n.function} (${n.reason})`).join(", ")}` : ""),
        );
        for (const x of o.summaries) console.log(x.shapes.line);
        expect(o.fatal, explain(t, o)).toEqual([]);
        expect(s?.table, explain(t, o)).toBe(t.version);
        expect(o.crashes.map((c) => c.function), explain(t, o)).toEqual([]);
        expect(o.failures.length, explain(t, o)).toBe(0);
        // Every checked function's return type agrees with its roles (a disagreement is also one of the failures).
        expect(o.summaries.flatMap((x) => x.shapes.mismatches), explain(t, o)).toEqual([]);
      });
    }
  },
);
