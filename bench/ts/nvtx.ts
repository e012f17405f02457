/**
 * CPU-only probe of NVTX's cost with no tool attached (no GPU, no NVTX_INJECTION64_PATH): ns per call of
 * `nvtx.range` disposed by `using`, `nvtx.push`/`pop`, `nvtx.mark` with options, a domain's range, and for reference
 * an empty loop and a loop of `using` on a shared object (the runtime's own cost of `using`: large on Deno). With NVTX_INJECTION64_PATH set (a tool, or test/fixtures/nvtx's fake built by
 * hand: `gcc -shared -fPIC -o /tmp/libfake-nvtx.so test/fixtures/nvtx/fake-injection.c`) the same rows measure
 * the attached path (contender suffix `-attached`).
 *
 *     bun bench/ts/nvtx.ts            deno run -A bench/ts/nvtx.ts
 *
 * Prints JSON lines (contender `<runtime>-nvtx[-attached]`, measures `nvtx.*`): the median of 21 repetitions of
 * 1 000 000 calls (10 000 attached), with min and max.
 *
 * @module
 */
import * as nvtx from "../../src/core/nvtx/nvtx.ts";
import { ffi } from "../../src/ffi/index.ts";

const REPS = 21;
nvtx.mark("first call: reads NVTX_INJECTION64_PATH once");
const attached = nvtx.status().state === "attached";
const ITERS = attached ? 10_000 : 1_000_000;
const contender = `${ffi.runtime}-nvtx${attached ? "-attached" : ""}`;

let sink = 0;
function measure(name: string, body: (n: number) => void): void {
  body(ITERS); // warm-up (JIT)
  const times: number[] = [];
  for (let r = 0; r < REPS; r++) {
    const t0 = performance.now();
    body(ITERS);
    times.push(((performance.now() - t0) * 1e6) / ITERS);
  }
  times.sort((a, b) => a - b);
  const v = (x: number): number => Math.round(x * 100) / 100;
  console.log(JSON.stringify({ contender, measure: name, value: v(times[REPS >> 1]!), unit: "ns", min: v(times[0]!), max: v(times[REPS - 1]!), reps: REPS, iters: ITERS }));
}

const options = { color: 0xff76b900, category: 1, payload: 3 } as const;
const io = nvtx.domain("bench");

measure("nvtx.empty-loop", (n) => {
  for (let i = 0; i < n; i++) sink += i & 1;
});
const plainDisposable: Disposable = Object.freeze({ [Symbol.dispose](): void {} });
measure("nvtx.using-baseline", (n) => {
  // the runtime's own cost of `using` on an object it does not allocate (what nvtx.range adds is the difference)
  for (let i = 0; i < n; i++) {
    using _ = plainDisposable;
  }
});
measure("nvtx.range", (n) => {
  for (let i = 0; i < n; i++) {
    using _ = nvtx.range("step");
  }
});
measure("nvtx.range+end", (n) => {
  // the same without `using`: the range ended by hand
  for (let i = 0; i < n; i++) nvtx.range("step").end();
});
measure("nvtx.range+options", (n) => {
  for (let i = 0; i < n; i++) {
    using _ = nvtx.range("step", options);
  }
});
measure("nvtx.push+pop", (n) => {
  for (let i = 0; i < n; i++) {
    nvtx.push("step");
    nvtx.pop();
  }
});
measure("nvtx.mark", (n) => {
  for (let i = 0; i < n; i++) nvtx.mark("tick", options);
});
measure("nvtx.domain.range", (n) => {
  for (let i = 0; i < n; i++) {
    using _ = io.range("step");
  }
});
if (sink < 0) console.log(sink);
