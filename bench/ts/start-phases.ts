/**
 * Where a script's start goes, in one process on the GPU machine: importing the package root, loading the
 * pathfinder, loading the driver (its library, table and checked maker) with `cuDriverGetVersion`, `cuInit`, and
 * `Device(0).setCurrent()` (the primary context). One JSON line of milliseconds per run; run it in several processes.
 *
 *     bun bench/ts/start-phases.ts [--dist]
 *     deno run -A bench/ts/start-phases.ts [--dist]
 *
 * `--dist` imports the built package (dist/, `npm run build`) instead of the TypeScript sources.
 *
 * @module
 */
const dist = process.argv.includes("--dist");
const at = (p: string): string => new URL(dist ? `../../dist/src/${p}.js` : `../../src/${p}.ts`, import.meta.url).href;
const T = [performance.now()];
const cuda = (await import(at("index"))) as typeof import("../../src/index.ts");
T.push(performance.now());
const { pathfinder } = (await import(at("pathfinder/on-demand"))) as typeof import("../../src/pathfinder/on-demand.ts");
pathfinder();
T.push(performance.now());
const version = cuda.driver.cuDriverGetVersion();
T.push(performance.now());
cuda.driver.cuInit(0);
T.push(performance.now());
new cuda.Device(0).setCurrent();
T.push(performance.now());
const out: Record<string, unknown> = { runtime: "Bun" in globalThis ? "bun" : "deno", dist, driver: version };
["import", "pathfinder", "driverLoad", "cuInit", "setCurrent"].forEach((name, i) => (out[name] = +(T[i + 1]! - T[i]!).toFixed(2)));
console.log(JSON.stringify(out));
