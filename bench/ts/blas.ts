/**
 * The gemm measures of cuBLAS through `Blas` (bench/README.md, "cuBLAS gemm"), on the runtime that runs this file, as
 * JSON lines in the suite's format (contender `<runtime>-blas`). bench/c/blas.c (contender `c-cublas`) and
 * bench/python/blas.py (`python-torch`) print the same measures; bench/blas-run.sh runs all three in one go.
 *
 * | measure | unit | what |
 * |---|---|---|
 * | `gemm.N.f16`, `gemm.N.bf16` | TFLOP/s | C = A·B, N³, row-major, inputs and C in the dtype, compute "32f" (cuBLAS's CUBLAS_COMPUTE_32F, as torch.matmul), GPU time from events |
 * | `gemm.N.tf32` | TFLOP/s | float32 data, compute "32f-fast-tf32" (TF32 tensor cores) |
 * | `gemm.N.f32` | TFLOP/s | float32 data, compute "32f", default math mode (no TF32) |
 * | `gemm.64.f32.call` | ns | the CPU cost of one 64³ float32 gemm call (wall time of bursts of 256 calls, the stream synchronised between bursts, untimed) |
 *
 * N is 4096 and 8192. A and B hold uniform values in [-1, 1) from the same generator in every contender (a
 * 32-bit LCG; PyTorch's side uses torch.rand), C is written (beta 0). 2·N³ flops per call.
 *
 *   bun bench/ts/blas.ts              (or: deno run -A bench/ts/blas.ts)
 *
 * Environment (for experiments; bench/blas-run.sh sets none): `BLAS_MEMORY=sync` takes the matrices from
 * cuMemAlloc (a SynchronousMemoryResource, as the C contender does) instead of the device's stream-ordered pool,
 * `BLAS_ONLY=REGEX` measures only the names it matches (`BLAS_ONLY='^gemm\.4096\.(f16|bf16)$'`), and `BLAS_GC=0` leaves
 * the setup's host garbage uncollected before timing. Each TFLOP/s line also carries `enqueueMs`: the CPU time of
 * queueing one repetition's calls (median, max), which shows whether the GPU could have waited for them.
 *
 * @module
 */
import {
  Device,
  DeviceArray,
  encodeBFloat16,
  encodeHalf,
  type DTypeName,
  type MemoryResource,
  type Stream,
  SynchronousMemoryResource,
} from "../../src/index.ts";
import { Blas, type BlasComputeType } from "../../src/math-blas.ts";
import { ffi } from "../../src/ffi/index.ts";
import { cublas } from "../../src/bindings/cublas.ts";
import { getEnv } from "../../src/host.ts";
import { BURST, burstRep, describeError, measure, note, R, skip, TARGET_MS, type Rep } from "./harness.ts";

const MEMORY = getEnv("BLAS_MEMORY") ?? "pool";
const onlyPattern = getEnv("BLAS_ONLY");
const ONLY = onlyPattern === undefined ? undefined : new RegExp(onlyPattern);
const C = MEMORY === "sync" ? `${ffi.runtime}-blas-sync` : `${ffi.runtime}-blas`;
const SIZES = [4096, 8192];
const CASES: { name: string; dtype: DTypeName; compute: BlasComputeType }[] = [
  { name: "f16", dtype: "float16", compute: "32f" },
  { name: "bf16", dtype: "bfloat16", compute: "32f" },
  { name: "tf32", dtype: "float32", compute: "32f-fast-tf32" },
  { name: "f32", dtype: "float32", compute: "32f" },
];

const dev = new Device(0);
dev.setCurrent();
const stream: Stream = dev.createStream();
const blas = new Blas({ stream });
const memoryResource: MemoryResource = MEMORY === "sync" ? new SynchronousMemoryResource(dev) : dev.memoryResource;
note(`${C} on ${dev.name}, cuBLAS ${cublas.cublasGetVersion(blas.handle)}`);

/** n values uniform in [-1, 1): x ← 1664525·x + 1013904223 (mod 2^32), value x / 2^31 - 1 (the C contender's generator). */
function uniform(n: number, seed: number): Float32Array {
  const out = new Float32Array(n);
  let s = seed >>> 0;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = s / 2147483648 - 1;
  }
  return out;
}

function deviceMatrix(n: number, dtype: DTypeName, seed: number): DeviceArray {
  const v = uniform(n * n, seed);
  if (dtype === "float16") return DeviceArray.from(Uint16Array.from(v, encodeHalf), { stream, dtype, shape: [n, n], memoryResource });
  if (dtype === "bfloat16") return DeviceArray.from(Uint16Array.from(v, encodeBFloat16), { stream, dtype, shape: [n, n], memoryResource });
  return DeviceArray.from(v, { stream, dtype: "float32", shape: [n, n], memoryResource });
}

/**
 * Collects the setup's host garbage (the matrices' 32-64 MiB staging arrays) before timing, as the C contender frees
 * its staging memory: on Bun (Bun.gc), unless BLAS_GC=0; Deno exposes no collector without --v8-flags=--expose-gc.
 */
function collectSetupGarbage(): void {
  if (getEnv("BLAS_GC") === "0") return;
  const g = globalThis as unknown as { Bun?: { gc(sync: boolean): void }; gc?: () => void };
  if (g.Bun !== undefined) g.Bun.gc(true);
  else g.gc?.();
}

/** Measures `one` by GPU time (events), reporting TFLOP/s: the harness's method (calibrated M, R repetitions, median). */
function measureFlops(name: string, flops: number, one: () => void, noteText: string): void {
  const start = dev.createEvent({ timing: true });
  const end = dev.createEvent({ timing: true });
  // The CPU time of queueing each repetition's calls: where it nears the GPU time, the GPU waited for the calls.
  let enqueue: number[] = [];
  const rep: Rep = (m) => {
    const t0 = performance.now();
    stream.record(start);
    for (let i = 0; i < m; i++) one();
    stream.record(end);
    enqueue.push(performance.now() - t0);
    end.sync();
    return end.since(start);
  };
  try {
    let m = 1;
    let t = rep(m);
    while (t < 2 && m < 1_000_000) {
      m *= 10;
      t = rep(m);
    }
    // Twice more at the M the last time suggests: the first call of a shape pays for cuBLAS's heuristics and kernel
    // loading, and an M chosen from it alone can be 1, where each repetition would time the call's queueing too.
    for (let pass = 0; pass < 2; pass++) {
      m = Math.max(1, Math.ceil(TARGET_MS / (t / m)));
      t = rep(m);
    }
    m = Math.max(1, Math.ceil(TARGET_MS / (t / m)));
    const per: number[] = [];
    enqueue = [];
    for (let i = 0; i < R; i++) per.push(rep(m) / 1000 / m);
    enqueue.sort((a, b) => a - b);
    per.sort((a, b) => a - b);
    const sig = (x: number): number => Number(x.toPrecision(6));
    const tf = (s: number): number => sig(flops / s / 1e12);
    console.log(JSON.stringify({ contender: C, measure: name, value: tf(per[R >> 1]!), unit: "TFLOP/s", min: tf(per[R - 1]!), max: tf(per[0]!), reps: R, iters: m, enqueueMs: { median: sig(enqueue[R >> 1]!), max: sig(enqueue[R - 1]!) }, note: noteText }));
  } catch (e) {
    note(`${C} ${name} failed: ${describeError(e)}; skipped`);
    console.log(JSON.stringify({ contender: C, measure: name, missing: `failed: ${describeError(e)}` }));
  } finally {
    start.close();
    end.close();
  }
}

for (const n of SIZES) {
  for (const c of CASES) {
    const name = `gemm.${n}.${c.name}`;
    if (ONLY !== undefined && !ONLY.test(name)) continue;
    let a: DeviceArray | undefined;
    let b: DeviceArray | undefined;
    let out: DeviceArray | undefined;
    try {
      a = deviceMatrix(n, c.dtype, 1);
      b = deviceMatrix(n, c.dtype, 2);
      out = DeviceArray.empty([n, n], c.dtype, { stream, memoryResource });
      stream.sync();
    } catch (e) {
      skip(C, name, `allocating 3 ${n}x${n} ${c.dtype} matrices failed: ${describeError(e)}`);
      continue;
    }
    const [A, B, Cm] = [a, b, out];
    collectSetupGarbage();
    measureFlops(name, 2 * n ** 3, () => void blas.gemm(A, B, Cm, { compute: c.compute }), `${c.dtype}, compute ${c.compute}, GPU time from events`);
    A.close();
    B.close();
    Cm.close();
    stream.sync();
  }
}

// The CPU cost of a small call: the host-side work of Blas.gemm (checks, plan, cublasGemmEx), the GPU kept busy enough.
if (ONLY === undefined || ONLY.test("gemm.64.f32.call")) {
  const a = deviceMatrix(64, "float32", 3);
  const b = deviceMatrix(64, "float32", 4);
  const c = DeviceArray.empty([64, 64], "float32", { stream, memoryResource });
  stream.sync();
  measure(C, "gemm.64.f32.call", "ns", burstRep(() => void blas.gemm(a, b, c), BURST, () => stream.sync()), { note: `wall time per call in bursts of ${BURST}, the stream synchronised between bursts (untimed)` });
  // Experiment only (BLAS_ONLY naming it): the same call through the raw binding, arguments prepared once, to split
  // the call's CPU cost between the binding and the object layer.
  if (ONLY?.test("gemm.64.f32.rawcall")) {
    const scalars = new Float32Array(new ArrayBuffer(8));
    scalars[0] = 1;
    const alpha = ffi.pointerOf(scalars);
    const beta = ffi.offsetPointer(alpha, 4);
    const [pa, pb, pc] = [a, b, c].map((x) => ffi.pointerFromAddress(x.address));
    const h = blas.handle;
    const raw = cublas.raw;
    const one = (): void => {
      const r = raw.cublasGemmEx(h, 0 as never, 0 as never, 64, 64, 64, alpha, pb!, 0 as never, 64, pa!, 0 as never, 64, beta, pc!, 0 as never, 64, 68 as never, -1 as never);
      if (r !== 0) throw new Error(`cublasGemmEx returned ${r}`);
    };
    measure(C, "gemm.64.f32.rawcall", "ns", burstRep(one, BURST, () => stream.sync()), { note: `cublas.raw.cublasGemmEx, arguments prepared once, bursts of ${BURST}` });
    void scalars;
  }
  a.close();
  b.close();
  c.close();
}

blas.close();
stream.sync();
stream.close();
