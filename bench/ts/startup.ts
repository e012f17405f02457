/**
 * One start-up path of cuda-ts, then exit (bench/run.sh and bench/startup.ts time whole processes of it):
 *
 *     bun bench/ts/startup.ts MODE [--layer core|raw|bindings] [--cubin CUBIN]
 *     deno run -A bench/ts/startup.ts MODE [--layer core|raw|bindings] [--cubin CUBIN]
 *
 * MODE:
 * - `empty`: nothing (the runtime's own start, plus reading this small file: the baseline of the others);
 * - `import`: import the package root (`core`: src/index.ts), the driver binding alone (`raw`:
 *   src/bindings/driver-entry.ts, `cuda-ts/bindings/driver`) or every library's binding (`bindings`: src/bindings/index.ts);
 * - `setCurrent`: + `new Device(0).setCurrent()` (core) or cuInit + the primary context made current (raw);
 * - `firstKernel`: + load `k0` from CUBIN, launch it, synchronise.
 *
 * This file imports nothing statically (not even node: modules, whose first use costs Deno tens of milliseconds),
 * so each mode loads only what it measures. With `BENCH_INPROCESS=1` it also prints
 * `inprocess import=MS after=MS` (the import's own time, and the time after it to the mode's end), and with
 * `BENCH_DIST=1` it imports the package's compiled JavaScript (dist/, after `npm run build`) instead of the sources;
 * with `BENCH_CPU=1` it also prints ` cpu=MS`: the main thread's CPU time during the import (reading it costs Bun a node:fs).
 *
 * @module
 */

interface HostArgs {
  readonly args: readonly string[];
}

function hostArgs(): HostArgs {
  const g = globalThis as unknown as { Deno?: { args: string[] }; process?: { argv: string[] } };
  return { args: g.Deno !== undefined ? g.Deno.args : (g.process?.argv.slice(2) ?? []) };
}

function env(name: string): string | undefined {
  const g = globalThis as unknown as { Deno?: { env: { get(n: string): string | undefined } }; process?: { env: Record<string, string | undefined> } };
  return g.Deno !== undefined ? g.Deno.env.get(name) : g.process?.env[name];
}

function option(args: readonly string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}

/**
 * The calling thread's time on a CPU so far, in ms (/proc/thread-self/schedstat: nanosecond resolution, and unlike
 * wall time it does not grow when other processes load the machine). Undefined where it cannot be read.
 */
function threadCpuMs(): number | undefined {
  const g = globalThis as unknown as {
    Deno?: { readTextFileSync(p: string): string };
    process?: { getBuiltinModule?(id: string): { readFileSync(p: string, e: string): string } | undefined };
  };
  try {
    const text = g.Deno !== undefined ? g.Deno.readTextFileSync("/proc/thread-self/schedstat") : g.process?.getBuiltinModule?.("node:fs")?.readFileSync("/proc/thread-self/schedstat", "utf8");
    const ns = Number(text?.split(" ")[0]);
    return Number.isFinite(ns) ? ns / 1e6 : undefined;
  } catch {
    return undefined;
  }
}

/** The modes and layers this file knows. */
export const MODES = ["empty", "import", "setCurrent", "firstKernel"] as const;
export const LAYERS = ["core", "raw", "bindings"] as const;

/** Runs one start-up path. Throws on a failed driver call. */
export async function startup(mode: string, layer: string, cubin: string | undefined): Promise<void> {
  if (!(MODES as readonly string[]).includes(mode) || !(LAYERS as readonly string[]).includes(layer)) {
    throw new Error(`usage: startup.ts ${MODES.join("|")} [--layer ${LAYERS.join("|")}] [--cubin CUBIN]`);
  }
  if (mode === "firstKernel" && cubin === undefined) throw new Error("firstKernel needs --cubin CUBIN");
  if (mode === "empty") return;
  const inprocess = env("BENCH_INPROCESS") === "1";
  const cpu = env("BENCH_CPU") === "1";
  const c0 = cpu ? threadCpuMs() : undefined;
  const t0 = performance.now();
  let c1: number | undefined;
  const report = (): void => {
    const cpuText = c0 !== undefined && c1 !== undefined ? ` cpu=${(c1 - c0).toFixed(3)}` : "";
    if (inprocess) console.log(`inprocess import=${(t1 - t0).toFixed(3)} after=${(performance.now() - t1).toFixed(3)}${cpuText}`);
  };
  let t1 = t0;
  const imported = (): void => {
    t1 = performance.now();
    if (cpu) c1 = threadCpuMs();
  };
  // BENCH_DIST=1: the package's compiled JavaScript (dist/, `npm run build`) instead of the TypeScript sources. The
  // specifiers are made at run time: Deno fetches and parses every literal import() of a script's graph when it
  // starts, so literal imports of the sources made even the empty mode parse them (about 35 ms on the CPU machine).
  const dist = env("BENCH_DIST") === "1";
  const from = (src: string): string => (dist ? new URL(`../../dist/${src.replace(/\.ts$/, ".js")}`, import.meta.url).href : new URL(`../../${src}`, import.meta.url).href);
  if (layer === "bindings") {
    await import(from("src/bindings/index.ts"));
    imported();
    if (mode !== "import") throw new Error("the bindings layer has only the import mode");
    return report();
  }
  if (layer === "core") {
    const lib = (await import(from("src/index.ts"))) as typeof import("../../src/index.ts");
    imported();
    if (mode === "import") return report();
    const dev = new lib.Device(0);
    dev.setCurrent();
    if (mode === "setCurrent") return report();
    const stream = dev.createStream();
    const k0 = lib.ObjectCode.fromCubin(cubin!).getKernel("k0");
    lib.launch(stream, new lib.LaunchConfig({ grid: 1, block: 32 }), k0);
    stream.sync();
    return report();
  }
  // The driver binding as users import it: `cuda-ts/bindings/driver` (its enums and records are a module of their own).
  const { driver } = (await import(from("src/bindings/driver-entry.ts"))) as typeof import("../../src/bindings/driver-entry.ts");
  imported();
  if (mode === "import") return report();
  const { Scratch, ffi } = (await import(from("src/ffi/index.ts"))) as typeof import("../../src/ffi/index.ts");
  const raw = driver.raw;
  const s = new Scratch(16);
  const check = (what: string, r: number): void => {
    if (r !== 0) throw new Error(`${what} returned ${r}`);
  };
  check("cuInit", raw.cuInit(0));
  check("cuDevicePrimaryCtxRetain", raw.cuDevicePrimaryCtxRetain(s.pointer, 0));
  check("cuCtxSetCurrent", raw.cuCtxSetCurrent(s.readPointer(0) as Parameters<typeof raw.cuCtxSetCurrent>[0]));
  if (mode === "setCurrent") return report();
  const path = ffi.cstring(cubin!);
  check("cuModuleLoad", raw.cuModuleLoad(s.pointer, ffi.pointerOf(path)));
  const mod = s.readPointer(0) as Parameters<typeof raw.cuModuleGetFunction>[1];
  const name = ffi.cstring("k0");
  check("cuModuleGetFunction", raw.cuModuleGetFunction(s.pointerAt(8), mod, ffi.pointerOf(name)));
  const f = s.readPointer(8) as Parameters<typeof raw.cuLaunchKernel>[0];
  check("cuLaunchKernel", raw.cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, null, null, null));
  check("cuCtxSynchronize", raw.cuCtxSynchronize());
  report();
}

if (import.meta.main) {
  const { args } = hostArgs();
  const mode = args[0] ?? "";
  try {
    await startup(mode, option(args, "--layer") ?? "core", option(args, "--cubin"));
  } catch (e) {
    console.error(`startup.ts ${mode}: ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`);
    (globalThis as unknown as { Deno?: { exit(c: number): never } }).Deno?.exit(1);
    (globalThis as { process?: { exit(c: number): never } }).process?.exit(1);
  }
}
