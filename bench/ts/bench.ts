/**
 * The cuda-ts benchmarks (bench/README.md) on the runtime that runs this file: contenders `<runtime>-raw`,
 * `<runtime>-checked` and `<runtime>-core`, JSON lines on stdout, notes on stderr.
 *
 *     bun bench/ts/bench.ts --cubin CUBIN [--only raw|checked|core]
 *     deno run -A bench/ts/bench.ts --cubin CUBIN [--only raw|checked|core]
 *
 * Startup modes (one path, then exit; `--inprocess-startup` runs them; bench/run.sh times whole processes of
 * bench/ts/startup.ts instead, which also has the runtime's empty start and imports no node: module):
 *
 *     bench.ts --startup import      --layer core|raw    import src/index.ts (core) or src/bindings/driver.ts (raw)
 *     bench.ts --startup setCurrent  --layer core|raw    + new Device(0).setCurrent() (core) or cuInit + primary context (raw)
 *     bench.ts --startup firstKernel --layer core|raw --cubin CUBIN   + load k0, launch it, synchronise
 *
 * This file imports nothing from the library statically, so the startup modes load only what they measure.
 *
 * @module
 */
import * as fs from "node:fs";
import process from "node:process";

function option(args: readonly string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}

function usage(): never {
  console.error(
    "usage: bench.ts --cubin CUBIN [--only raw|checked|core]\n" +
      "       bench.ts --startup import|setCurrent|firstKernel --layer core|raw [--cubin CUBIN]\n" +
      "  CUBIN: bench/kernels.cu compiled with nvcc -cubin -arch=sm_XX (bench/run.sh does it)",
  );
  process.exit(2);
}

/**
 * `--inprocess-startup`: runs `--startup setCurrent --layer core` in 5 fresh processes, each reporting, from inside,
 * how long the import took (performance.now() at its end: from the runtime's time origin, about process start)
 * and how long `new Device(0).setCurrent()` took; prints the medians as JSON lines. The setCurrent time compares
 * with C's cuInit + primary context (C's startup.setCurrent minus its process start, startup.import).
 */
async function inProcessStartup(): Promise<void> {
  const { spawnSync } = await import("node:child_process");
  const isBun = (globalThis as { Bun?: unknown }).Bun !== undefined;
  const self = isBun ? process.execPath : (globalThis as unknown as { Deno: { execPath(): string } }).Deno.execPath();
  const script = new URL(import.meta.url).pathname;
  const args = isBun ? [script] : ["run", "-A", script];
  const imports: number[] = [];
  const sets: number[] = [];
  for (let i = 0; i < 6; i++) {
    const r = spawnSync(self, [...args, "--startup", "setCurrent", "--layer", "core"], { encoding: "utf8", env: { ...process.env, BENCH_INPROCESS: "1" } });
    const m = /inprocess import=([\d.]+) setCurrent=([\d.]+)/.exec(r.stdout ?? "");
    if (!m) throw new Error(`in-process startup run failed: ${r.stderr}`);
    if (i === 0) continue; // warms the runtime's caches
    imports.push(Number(m[1]));
    sets.push(Number(m[2]));
  }
  const med = (a: number[]): number => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]!;
  const rt = isBun ? "bun" : "deno";
  console.log(JSON.stringify({ contender: `${rt}-core`, measure: "startup.importInProcess", value: med(imports), unit: "ms", min: Math.min(...imports), max: Math.max(...imports), reps: imports.length, iters: 1 }));
  console.log(JSON.stringify({ contender: `${rt}-core`, measure: "startup.setCurrentInProcess", value: med(sets), unit: "ms", min: Math.min(...sets), max: Math.max(...sets), reps: sets.length, iters: 1 }));
}

async function startup(mode: string, layer: string, cubin: string | undefined): Promise<void> {
  if (!["import", "setCurrent", "firstKernel"].includes(mode) || !["core", "raw"].includes(layer)) usage();
  if (mode === "firstKernel" && cubin === undefined) usage();
  if (layer === "core") {
    const lib = await import("../../src/index.ts");
    const imported = performance.now();
    if (mode === "import") return;
    const dev = new lib.Device(0);
    dev.setCurrent();
    if (process.env.BENCH_INPROCESS === "1") console.log(`inprocess import=${imported.toFixed(3)} setCurrent=${(performance.now() - imported).toFixed(3)}`);
    if (mode === "setCurrent") return;
    const stream = dev.createStream();
    const k0 = lib.ObjectCode.fromCubin(cubin!).getKernel("k0");
    lib.launch(stream, new lib.LaunchConfig({ grid: 1, block: 32 }), k0);
    stream.sync();
    return;
  }
  const { driver } = await import("../../src/bindings/driver-entry.ts");
  if (mode === "import") return;
  const { Scratch, ffi } = await import("../../src/ffi/index.ts");
  const raw = driver.raw;
  const s = new Scratch(16);
  const check = (what: string, r: number): void => {
    if (r !== 0) throw new Error(`${what} returned ${r}`);
  };
  check("cuInit", raw.cuInit(0));
  check("cuDevicePrimaryCtxRetain", raw.cuDevicePrimaryCtxRetain(s.pointer, 0));
  check("cuCtxSetCurrent", raw.cuCtxSetCurrent(s.readPointer(0) as Parameters<typeof raw.cuCtxSetCurrent>[0]));
  if (mode === "setCurrent") return;
  const path = ffi.cstring(cubin!);
  check("cuModuleLoad", raw.cuModuleLoad(s.pointer, ffi.pointerOf(path)));
  const mod = s.readPointer(0) as Parameters<typeof raw.cuModuleGetFunction>[1];
  const name = ffi.cstring("k0");
  check("cuModuleGetFunction", raw.cuModuleGetFunction(s.pointerAt(8), mod, ffi.pointerOf(name)));
  const f = s.readPointer(8) as Parameters<typeof raw.cuLaunchKernel>[0];
  check("cuLaunchKernel", raw.cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, null, null, null));
  check("cuCtxSynchronize", raw.cuCtxSynchronize());
}

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  if (args.includes("--help") || args.includes("-h")) usage();
  if (args.includes("--inprocess-startup")) {
    await inProcessStartup();
    return 0;
  }
  const startupMode = option(args, "--startup");
  if (startupMode !== undefined) {
    try {
      await startup(startupMode, option(args, "--layer") ?? "core", option(args, "--cubin"));
      return 0;
    } catch (e) {
      console.error(`bench.ts --startup ${startupMode}: ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`);
      return 1;
    }
  }
  const cubin = option(args, "--cubin");
  if (cubin === undefined) usage();
  const only = option(args, "--only");
  if (only !== undefined && !["raw", "checked", "core"].includes(only)) usage();
  if (!fs.existsSync(cubin)) {
    console.error(`bench.ts: no cubin at ${cubin}: compile bench/kernels.cu first (bench/run.sh does it)`);
    return 2;
  }

  let runtime: string;
  let runSuite: typeof import("./suite.ts").runSuite;
  try {
    // Importing the library picks the FFI backend: it throws on a runtime without one (Node.js).
    ({ runSuite } = await import("./suite.ts"));
    runtime = (await import("../../src/ffi/index.ts")).ffi.runtime;
  } catch (e) {
    console.error(`bench.ts: cannot load cuda-ts: ${e instanceof Error ? e.message : String(e)}`);
    return 2;
  }
  try {
    return runSuite(runtime, cubin, only);
  } catch (e) {
    const { LibraryNotFoundError } = await import("../../src/bindings/index.ts");
    const message = e instanceof Error ? e.message : String(e);
    if (e instanceof LibraryNotFoundError) {
      console.error(`bench.ts: no CUDA driver on this machine, nothing measured.\n  ${message.split("\n").join("\n  ")}`);
      return 2;
    }
    console.error(`bench.ts: setting up the driver failed, nothing measured: ${e instanceof Error ? `${e.name}: ${message}` : message}`);
    return 1;
  }
}

process.exit(await main());
