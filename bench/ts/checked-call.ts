/**
 * CPU-only probe of the checked call style's hot path (no GPU needed): ns per call of libcudart functions that
 * answer without a device, checked (`runtime.*`) and raw (`runtime.raw.*`), after their first call.
 *
 *     bun bench/ts/checked-call.ts            deno run -A bench/ts/checked-call.ts
 *
 * Prints JSON lines (contender `<runtime>-checked` / `<runtime>-raw`, measures `call.cudaRuntimeGetVersion`,
 * `call.cudaGetErrorString`); the median of 21 repetitions of 200 000 calls. Needs libcudart (the pathfinder's
 * usual places: CUDA_TS_CUDART_PATH, a toolkit, NVIDIA's wheels).
 *
 * @module
 */
import { runtime } from "../../src/bindings/runtime.ts";
import { ffi, Scratch } from "../../src/ffi/index.ts";

const REPS = 21;
const ITERS = 200_000;
const rt = ffi.runtime;

function measure(contender: string, name: string, body: (n: number) => void): void {
  body(1000); // warm-up: the first call makes the checked function and binds the native one
  const times: number[] = [];
  for (let r = 0; r < REPS; r++) {
    const t0 = performance.now();
    body(ITERS);
    times.push(((performance.now() - t0) * 1e6) / ITERS);
  }
  times.sort((a, b) => a - b);
  const v = (x: number): number => Math.round(x * 100) / 100;
  console.log(JSON.stringify({ contender: `${rt}-${contender}`, measure: name, value: v(times[REPS >> 1]!), unit: "ns", min: v(times[0]!), max: v(times[REPS - 1]!), reps: REPS, iters: ITERS }));
}

const s = new Scratch(8);
const raw = runtime.raw;
measure("raw", "call.cudaRuntimeGetVersion", (n) => {
  for (let i = 0; i < n; i++) raw.cudaRuntimeGetVersion(s.pointer);
});
measure("checked", "call.cudaRuntimeGetVersion", (n) => {
  for (let i = 0; i < n; i++) runtime.cudaRuntimeGetVersion();
});
measure("raw", "call.cudaGetErrorString", (n) => {
  for (let i = 0; i < n; i++) raw.cudaGetErrorString(1);
});
measure("checked", "call.cudaGetErrorString", (n) => {
  for (let i = 0; i < n; i++) runtime.cudaGetErrorString(1);
});
