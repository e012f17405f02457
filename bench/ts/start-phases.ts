/**
 * Where a script's start goes, in one process on the GPU machine: one JSON line of milliseconds (bench/start-phases.ts
 * runs it in interleaved processes next to C's `bench-c --startup-phases`).
 *
 *     bun bench/ts/start-phases.ts [--dist [DIR]] [--raw | --empty]
 *     deno run -A bench/ts/start-phases.ts [--dist [DIR]] [--raw | --empty]
 *
 * cuda-ts (the default): importing the package root (`import`), the driver's library found and opened with its
 * table chosen (`driverLoad`: `driver.load()`), the first checked call (`firstChecked`: `cuDriverGetVersion`, with
 * the checked functions' makers where they load on first use), `cuInit` and `Device(0).setCurrent()` (the primary
 * context). `--dist` imports the built package (this checkout's dist/, or DIR's) instead of the TypeScript sources.
 *
 * `--raw`: the same start without cuda-ts, through the runtime's own FFI (bun:ffi, Deno.dlopen): `dlopen` of
 * libcuda.so.1 with the four functions, `cuInit`, the primary context retained and current.
 *
 * `--empty`: nothing (the runtime's own start, in the same file). `sinceOrigin` is when the script began, from the
 * runtime's time origin.
 *
 * @module
 */
const args: string[] = (globalThis as unknown as { Deno?: { args: string[] } }).Deno?.args ?? process.argv.slice(2);
const T = [performance.now()];
const out: Record<string, unknown> = { runtime: "Bun" in globalThis ? "bun" : "deno", sinceOrigin: +T[0]!.toFixed(2) };
let names: string[] = [];

if (args.includes("--empty")) {
  // The runtime's own start, in this same small file (bench/ts/startup.ts names the sources in literal imports,
  // which Deno fetches and parses with the graph even when none runs).
  out.layer = "empty";
} else if (args.includes("--raw")) {
  out.layer = "raw";
  type Symbols = {
    cuInit(flags: number): number;
    cuDeviceGet(device: Int32Array, ordinal: number): number;
    cuDevicePrimaryCtxRetain(ctx: BigUint64Array, device: number): number;
    cuCtxSetCurrent(ctx: unknown): number;
  };
  // The runtime's own FFI, named through computed specifiers and minimal types (`deno check` never sees bun:ffi).
  const host = globalThis as unknown as {
    Bun?: unknown;
    Deno?: { dlopen(path: string, symbols: Record<string, { parameters: string[]; result: string }>): { symbols: Symbols }; UnsafePointer: { create(address: bigint): unknown } };
  };
  let f: Symbols;
  let pointer: (address: bigint) => unknown;
  if (host.Bun !== undefined) {
    const bunFfi = "bun:ffi";
    const { dlopen } = (await import(bunFfi)) as { dlopen(path: string, symbols: Record<string, { args: string[]; returns: string }>): { symbols: Symbols } };
    f = dlopen("libcuda.so.1", {
      cuInit: { args: ["u32"], returns: "i32" },
      cuDeviceGet: { args: ["ptr", "i32"], returns: "i32" },
      cuDevicePrimaryCtxRetain: { args: ["ptr", "i32"], returns: "i32" },
      cuCtxSetCurrent: { args: ["ptr"], returns: "i32" },
    }).symbols;
    pointer = (a) => Number(a);
  } else {
    const deno = host.Deno!;
    f = deno.dlopen("libcuda.so.1", {
      cuInit: { parameters: ["u32"], result: "i32" },
      cuDeviceGet: { parameters: ["buffer", "i32"], result: "i32" },
      cuDevicePrimaryCtxRetain: { parameters: ["buffer", "i32"], result: "i32" },
      cuCtxSetCurrent: { parameters: ["pointer"], result: "i32" },
    }).symbols;
    pointer = (a) => deno.UnsafePointer.create(a);
  }
  T.push(performance.now());
  if (f.cuInit(0) !== 0) throw new Error("cuInit failed");
  T.push(performance.now());
  const device = new Int32Array(1);
  const ctx = new BigUint64Array(1);
  if (f.cuDeviceGet(device, 0) !== 0 || f.cuDevicePrimaryCtxRetain(ctx, device[0]!) !== 0 || f.cuCtxSetCurrent(pointer(ctx[0]!)) !== 0) {
    throw new Error("the primary context could not be made current");
  }
  T.push(performance.now());
  names = ["dlopen", "cuInit", "setCurrent"];
} else {
  const i = args.indexOf("--dist");
  const dir = i >= 0 && args[i + 1] !== undefined && !args[i + 1]!.startsWith("--") ? args[i + 1]! : undefined;
  const root = dir === undefined ? new URL("../../", import.meta.url) : new URL(`file://${dir.startsWith("/") ? "" : `${process.cwd()}/`}${dir}/`);
  const entry = i >= 0 ? new URL("dist/src/index.js", root).href : new URL("src/index.ts", root).href;
  out.layer = i >= 0 ? "dist" : "src";
  const cuda = (await import(entry)) as typeof import("../../src/index.ts");
  // The driver binding, which the root has loaded already: its own entry point (the root does not export it).
  // `cuda-ts/bindings/driver`: dist/src/bindings/driver-entry.js (a build from before that file had the entry at
  // dist/src/bindings/driver.js; the root has loaded either already).
  type DriverEntry = typeof import("../../src/bindings/driver-entry.ts");
  const entryOf = (file: string): Promise<DriverEntry> => import(new URL(file, root).href) as Promise<DriverEntry>;
  const { driver } = i < 0 ? await entryOf("src/bindings/driver-entry.ts") : await entryOf("dist/src/bindings/driver-entry.js").catch(() => entryOf("dist/src/bindings/driver.js"));
  T.push(performance.now());
  driver.load();
  T.push(performance.now());
  out.driver = driver.cuDriverGetVersion();
  T.push(performance.now());
  driver.cuInit(0);
  T.push(performance.now());
  new cuda.Device(0).setCurrent();
  T.push(performance.now());
  names = ["import", "driverLoad", "firstChecked", "cuInit", "setCurrent"];
}
names.forEach((name, i) => (out[name] = +(T[i + 1]! - T[i]!).toFixed(2)));
console.log(JSON.stringify(out));

