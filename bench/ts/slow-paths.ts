/**
 * A GPU probe of the Deno-only slow paths (run on the GPU machine, both runtimes, and compare with C's rows of
 * the same bench run):
 *
 *     bun bench/ts/slow-paths.ts            deno run -A bench/ts/slow-paths.ts
 *
 * 1. 256 MiB pageable copies (cuMemcpyDtoH / HtoD, raw), from three kinds of host memory, in ROUNDS rounds that
 *    alternate them in one process (so that drift falls on all alike):
 *    - `arraybuffer`: a view, starting on a 2 MiB boundary, into a JavaScript ArrayBuffer (what the benchmark and
 *      users pass: the runtime's backing store);
 *    - `arraybuffer+thp`: the same, `madvise(MADV_HUGEPAGE)` on its 2 MiB-aligned range before its first touch;
 *    - `native`: `posix_memalign(2 MiB)` from libc, touched the same way (C's memory).
 *    Each row carries the share of the range backed by transparent huge pages (/proc/self/smaps AnonHugePages). If
 *    `native` and `arraybuffer+thp` match C while `arraybuffer` does not, the difference is the runtime's backing
 *    store (its pages), not the binding: cuda-ts passes the same pointer C does.
 * 2. `nvrtc.compile` of k4 (raw, as the benchmark), every repetition printed: the benchmark's NVRTC figures are
 *    bimodal (~10 and ~16 ms, C's rounds included), so a median of one process can land on either mode.
 *
 * JSON lines on stdout (contender `<runtime>-probe`), notes on stderr.
 *
 * @module
 */
import * as fs from "node:fs";
import { driver } from "../../src/bindings/driver-entry.ts";
import { nvrtc } from "../../src/bindings/nvrtc.ts";
import { ffi, Scratch } from "../../src/ffi/index.ts";
import type { NativePointer } from "../../src/ffi/types.ts";
import { alignedPageable, BIG, K4_SOURCE, PAGEABLE_ALIGN } from "./harness.ts";

const ROUNDS = 5;
const REPS = 11;
const rt = ffi.runtime;
const MADV_HUGEPAGE = 14;

const libc = ffi.openLibrary("libc.so.6");
const madvise = libc.bind("madvise", { parameters: ["pointer", "u64", "i32"], result: "i32" })!;
const posixMemalign = libc.bind("posix_memalign", { parameters: ["pointer", "u64", "u64"], result: "i32" })!;

function emit(o: Record<string, unknown>): void {
  console.log(JSON.stringify({ contender: `${rt}-probe`, ...o }));
}

/** kB of transparent huge pages backing [address, address + bytes), from /proc/self/smaps (undefined if unreadable). */
function hugePagesKiB(address: bigint, bytes: number): number | undefined {
  let text: string;
  try {
    text = fs.readFileSync("/proc/self/smaps", "utf8");
  } catch {
    return undefined;
  }
  let total = 0;
  let inRange = false;
  for (const line of text.split("\n")) {
    const m = /^([0-9a-f]+)-([0-9a-f]+) /.exec(line);
    if (m) {
      const lo = BigInt(`0x${m[1]}`);
      const hi = BigInt(`0x${m[2]}`);
      inRange = lo < address + BigInt(bytes) && hi > address;
      continue;
    }
    const h = /^AnonHugePages:\s+(\d+) kB/.exec(line);
    if (h && inRange) total += Number(h[1]);
  }
  return total;
}

driver.cuInit(0);
const dev = driver.cuDeviceGet(0);
driver.cuCtxSetCurrent(driver.cuDevicePrimaryCtxRetain(dev));
const dBig = driver.cuMemAlloc(BIG);
const raw = driver.raw;

const ab = alignedPageable((b) => ffi.bigAddressOf(ffi.pointerOf(b)));
// The same kind of view, advised before its pages are first touched (a huge page is only made on a fault, or later
// by khugepaged).
const whole = new Uint8Array(new ArrayBuffer(BIG + PAGEABLE_ALIGN));
const base = ffi.bigAddressOf(ffi.pointerOf(whole));
const abThp = whole.subarray(Number((BigInt(PAGEABLE_ALIGN) - (base % BigInt(PAGEABLE_ALIGN))) % BigInt(PAGEABLE_ALIGN))).subarray(0, BIG);
const thpRc = madvise(ffi.pointerOf(abThp), BigInt(BIG), MADV_HUGEPAGE);
if (thpRc !== 0) console.error(`slow-paths: madvise(MADV_HUGEPAGE) returned ${thpRc}; the +thp row is the plain one`);
abThp.fill(1);
const slot = new Scratch(8);
if (posixMemalign(slot.pointer, BigInt(PAGEABLE_ALIGN), BigInt(BIG)) !== 0) throw new RangeError("posix_memalign failed");
// C's memory is not advised: like bench/c/bench.c, posix_memalign + memset.
const nativeP = slot.readPointer(0) as NativePointer;
new Uint8Array(ffi.view(nativeP, BIG)).fill(1);

const hosts: { name: string; p: NativePointer }[] = [
  { name: "arraybuffer", p: ffi.pointerOf(ab) },
  { name: "arraybuffer+thp", p: ffi.pointerOf(abThp) },
  { name: "native", p: nativeP },
];

const gbps = new Map<string, number[]>();
for (let round = 0; round <= ROUNDS; round++) {
  for (const h of hosts) {
    for (const dir of ["d2h", "h2d"] as const) {
      const times: number[] = [];
      for (let i = 0; i < REPS; i++) {
        const t0 = performance.now();
        const r = dir === "d2h" ? raw.cuMemcpyDtoH(h.p, dBig, BIG) : raw.cuMemcpyHtoD(dBig, h.p, BIG);
        if (r !== 0 || raw.cuCtxSynchronize() !== 0) throw new RangeError(`cuMemcpy ${dir} failed: ${r}`);
        times.push(performance.now() - t0);
      }
      if (round === 0) continue; // warm-up
      times.sort((a, b) => a - b);
      const key = `${dir} ${h.name}`;
      gbps.set(key, [...(gbps.get(key) ?? []), BIG / (times[REPS >> 1]! * 1e6)]);
    }
  }
}
for (const h of hosts) {
  const thp = hugePagesKiB(ffi.bigAddressOf(h.p), BIG);
  for (const dir of ["d2h", "h2d"]) {
    const v = gbps.get(`${dir} ${h.name}`)!.sort((a, b) => a - b);
    emit({ measure: `copy.${dir}.256MiB.pageable.${h.name}`, value: Number(v[v.length >> 1]!.toFixed(3)), unit: "GB/s", min: v[0], max: v[v.length - 1], rounds: v.length, thp_share: thp === undefined ? null : Number((thp / (BIG / 1024)).toFixed(3)) });
  }
}

// nvrtc.compile, raw, every repetition.
const [major, minor] = [driver.cuDeviceGetAttribute(75, dev), driver.cuDeviceGetAttribute(76, dev)];
const nr = nvrtc.raw;
const src = ffi.cstring(K4_SOURCE);
const name = ffi.cstring("k4.cu");
const opt = ffi.cstring(`-arch=sm_${major}${minor}`);
const opts = new Scratch(8);
opts.writePointer(0, ffi.pointerOf(opt));
const s = new Scratch(16);
const compiles: number[] = [];
for (let i = 0; i < 3 + 21; i++) {
  const t0 = performance.now();
  let r = nr.nvrtcCreateProgram(s.pointer, ffi.pointerOf(src), ffi.pointerOf(name), 0, null, null);
  const prog = s.readPointer(0) as Parameters<typeof nr.nvrtcCompileProgram>[0];
  if (r === 0) r = nr.nvrtcCompileProgram(prog, 1, opts.pointer);
  if (r === 0) r = nr.nvrtcGetCUBINSize(prog, s.pointerAt(8));
  const cubin = new Uint8Array(new ArrayBuffer(r === 0 ? Number(s.readU64(8)) : 8));
  if (r === 0) r = nr.nvrtcGetCUBIN(prog, ffi.pointerOf(cubin));
  nr.nvrtcDestroyProgram(s.pointer);
  if (r !== 0) throw new RangeError(`nvrtc failed: ${r}`);
  if (i >= 3) compiles.push(performance.now() - t0);
}
const sorted = [...compiles].sort((a, b) => a - b);
emit({ measure: "nvrtc.compile", value: Number(sorted[sorted.length >> 1]!.toFixed(3)), unit: "ms", min: sorted[0], max: sorted[sorted.length - 1], each: compiles.map((x) => Number(x.toFixed(2))) });
void [src, name, opt];
