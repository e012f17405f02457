/**
 * The sort measures of `cuda-ts/array`: `sort` of 2^28 random uint32 keys and of 2^28 random float32 keys (uniform in
 * [0, 1)), and `argsort` of the float32 keys, on the runtime that runs this file, one JSON line each:
 * `{ name, ms, keysPerSecond, runs, min, max, device, runtime }`, `ms` the median GPU time (events around one call,
 * the output's allocation included) of several runs after a warm-up (which compiles the kernels).
 * bench/python/sort_peers.py measures cupy.sort and torch.sort on the same kinds of keys.
 *
 *   bun bench/ts/sort.ts              (or: deno run -A bench/ts/sort.ts)
 *   SORT_LOG2=24 bun bench/ts/sort.ts (a smaller problem)
 *
 * @module
 */
import { Device, DeviceArray, type Stream } from "../../src/index.ts";
import { argsort, sort } from "../../src/array.ts";
import { ffi } from "../../src/ffi/index.ts";
import { getEnv } from "../../src/host.ts";

const log2 = Number(getEnv("SORT_LOG2") ?? 28);
const n = 2 ** log2;
const RUNS = 11;

const dev = new Device(0);
dev.setCurrent();
const stream: Stream = dev.createStream();

/** Random words (xorshift32), filled on the host. */
function randomWords(count: number, seed: number): Uint32Array {
  const out = new Uint32Array(count);
  let s = seed >>> 0;
  for (let i = 0; i < count; i++) {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    out[i] = s;
  }
  return out;
}

function time(one: () => DeviceArray): number[] {
  const start = dev.createEvent({ timing: true });
  const end = dev.createEvent({ timing: true });
  one().close(stream); // warm-up: compiles and loads the kernels, fills the memory pool
  stream.sync();
  const ms: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    stream.record(start);
    const out = one();
    stream.record(end);
    end.sync();
    ms.push(end.since(start));
    out.close(stream);
  }
  start.close();
  end.close();
  return ms.sort((a, b) => a - b);
}

function report(name: string, ms: number[]): void {
  const median = ms[Math.floor(ms.length / 2)]!;
  console.log(
    JSON.stringify({
      name,
      ms: Number(median.toFixed(4)),
      keysPerSecond: Number((n / (median / 1e3)).toPrecision(6)),
      runs: ms.length,
      min: Number(ms[0]!.toFixed(4)),
      max: Number(ms[ms.length - 1]!.toFixed(4)),
      n,
      device: dev.name,
      runtime: ffi.runtime,
    }),
  );
}

const words = randomWords(n, 12345);
{
  using keys = DeviceArray.from(words, { stream, dtype: "uint32" });
  stream.sync();
  report(`sort.uint32.2^${log2}`, time(() => sort(keys, { stream })));
}
{
  const floats = new Float32Array(n);
  for (let i = 0; i < n; i++) floats[i] = words[i]! / 2 ** 32;
  using keys = DeviceArray.from(floats, { stream });
  stream.sync();
  report(`sort.float32.2^${log2}`, time(() => sort(keys, { stream })));
  report(`argsort.float32.2^${log2}`, time(() => argsort(keys, { stream })));
}
stream.close();
