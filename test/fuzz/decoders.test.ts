/**
 * Hostile input: every decoder of bytes from outside cuda-ts, fed random, truncated and mutated input (the seeded
 * fuzzer of test/support/fuzz.ts; runs and a time budget bound each loop). The property everywhere: a valid
 * result or the decoder's typed error, never another exception, a hang, or a read outside the input.
 */
import { describe, expect, it } from "vitest";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fuzz, mutate, typedOrOk, type Rng } from "../support/fuzz.ts";
import { IPCFormatError, RendezvousError } from "../../src/core/errors.ts";
import { BUFFER_DESCRIPTOR_BYTES, decodeTokenMessage, encodeTokenMessage, IPCAllocationHandle, IPCBufferDescriptor, uuidToBytes } from "../../src/core/memory/ipc.ts";
import { MessageBlock } from "../../src/ffi/libc-socket.ts";
import { decodeEntry, encodeEntry } from "../../src/core/program/cache-entry.ts";
import { decodeRequest, encodeFrame, FrameReader, MAX_FRAME_BYTES } from "../../src/core/distributed/rendezvous.ts";
import { buildLdCache, parseLdCache, Pathfinder, PathfinderError, overrideVariable, unavailableLoader } from "../../src/pathfinder/index.ts";
import { readLog } from "../../src/bindings/describe.ts";
import { ffi } from "../../src/ffi/index.ts";
import { INTERNAL } from "../../src/core/base/internal.ts";

const onDeno = (globalThis as { Deno?: unknown }).Deno !== undefined;
const here = import.meta.dirname ?? new URL(".", import.meta.url).pathname;
const root = path.resolve(here, "../..");
const UUID = "0123abcd-4567-89ef-0123-456789abcdef";

describe("IPC decoders", () => {
  it("IPCBufferDescriptor.fromBytes: a descriptor that round-trips, or IPCFormatError", async () => {
    const valid = new IPCBufferDescriptor(INTERNAL, new Uint8Array(64).fill(7), 1 << 20, UUID).toBytes();
    let decoded = 0;
    await fuzz("IPCBufferDescriptor.fromBytes", 20_000, (rng) => {
      const bytes = mutate(rng, valid);
      const r = typedOrOk(() => IPCBufferDescriptor.fromBytes(bytes), IPCFormatError);
      if (r instanceof IPCBufferDescriptor) {
        decoded++;
        expect(bytes.length).toBe(BUFFER_DESCRIPTOR_BYTES);
        expect(r.toBytes()).toEqual(bytes);
      }
    });
    expect(decoded).toBeGreaterThan(0);
  });

  it("allocation-handle and token messages, UUID strings: a value or IPCFormatError", async () => {
    const handle = new IPCAllocationHandle(INTERNAL, 0, UUID).encodeMessage();
    const token = encodeTokenMessage("a".repeat(64));
    await fuzz("IPCAllocationHandle.decodeMessage", 20_000, (rng) => {
      const bytes = mutate(rng, handle);
      const r = typedOrOk(() => IPCAllocationHandle.decodeMessage(bytes), IPCFormatError);
      if (!(r instanceof Error)) expect(uuidToBytes(r.uuid)).toEqual(bytes.slice(8, 24));
    });
    await fuzz("decodeTokenMessage", 20_000, (rng) => {
      const bytes = mutate(rng, token);
      const r = typedOrOk(() => decodeTokenMessage(bytes), IPCFormatError);
      if (!(r instanceof Error)) expect(r.length).toBe(bytes.length - 12);
    });
    await fuzz("uuidToBytes", 10_000, (rng) => {
      typedOrOk(() => uuidToBytes(rng.int(2) === 0 ? rng.string(40) : UUID.slice(0, rng.int(37)) + rng.string(3)), IPCFormatError);
    });
  });

  it("SCM_RIGHTS control data: whatever the control block says, descriptors are read from inside it", async () => {
    await fuzz("MessageBlock.receivedFds", 20_000, (rng) => {
      const maxFds = rng.int(8);
      const m = new MessageBlock(8, maxFds);
      const c = MessageBlock.MSGHDR + MessageBlock.IOVEC;
      const room = maxFds === 0 ? 0 : MessageBlock.CMSGHDR + Math.ceil((4 * maxFds) / 8) * 8;
      const noise = rng.bytes(room);
      new Uint8Array(m.memory, c, room).set(noise);
      if (room >= 16 && rng.int(2) === 0) {
        m.dv.setBigUint64(c, BigInt(rng.pick([0, 15, 16, 20, 24, room, room + 4, 1 << 20, 2 ** 40])), true);
        m.dv.setInt32(c + 8, 1, true);
        m.dv.setInt32(c + 12, 1, true);
      }
      m.dv.setBigUint64(40, BigInt(rng.pick([0, rng.int(room + 1), room, room + 8, 1 << 20, 2 ** 50])), true);
      const fds = m.receivedFds();
      expect(fds.length).toBeLessThanOrEqual(Math.max(0, (room - MessageBlock.CMSGHDR) / 4));
    });
  });
});

describe("compile cache entries", () => {
  it("decodeEntry: the stored entry or undefined, never a throw", async () => {
    const key = "k".repeat(64);
    const valid = encodeEntry(key, { format: "cubin", code: new Uint8Array([1, 2, 3, 4]), name: "n", symbolMapping: { "a<int>": "_Z1aIiEvv" } });
    let hits = 0;
    await fuzz("decodeEntry", 20_000, (rng) => {
      const bytes = mutate(rng, valid);
      const e = decodeEntry(bytes, key);
      if (e !== undefined) {
        hits++;
        expect(encodeEntry(key, e)).toEqual(bytes);
      }
    });
    expect(hits).toBeGreaterThan(0); // the unmutated cases decode
  });
});

describe("rendezvous frames and requests", () => {
  it("a byte stream in random chunks gives frames, requests, or RendezvousError", async () => {
    const enc = new TextEncoder();
    const valid = [
      encodeFrame(enc.encode(JSON.stringify({ op: "set", key: "nccl-id", value: "x".repeat(40) }))),
      encodeFrame(enc.encode(JSON.stringify({ op: "get", key: "nccl-id" }))),
    ];
    await fuzz("FrameReader + decodeRequest", 10_000, (rng) => {
      const stream = mutate(rng, rng.pick(valid));
      const reader = new FrameReader();
      let at = 0;
      let buffered = 0;
      while (at < stream.length) {
        const n = 1 + rng.int(stream.length - at);
        reader.push(stream.subarray(at, at + n));
        at += n;
        buffered += n;
        const r = typedOrOk(() => {
          for (let f = reader.next(); f !== undefined; f = reader.next()) {
            expect(f.length).toBeLessThanOrEqual(MAX_FRAME_BYTES);
            buffered -= 4 + f.length;
            typedOrOk(() => decodeRequest(f), RendezvousError);
          }
        }, RendezvousError);
        if (r instanceof Error) break;
        expect(buffered).toBeGreaterThanOrEqual(0);
      }
    });
  });
});

describe("pathfinder inputs", () => {
  it("parseLdCache: entries with strings from inside the file, or undefined", async () => {
    const valid = buildLdCache([
      { soname: "libcuda.so.1", path: "/usr/lib/x86_64-linux-gnu/libcuda.so.1" },
      { soname: "libnvrtc.so.13", path: "/usr/local/cuda/lib64/libnvrtc.so.13" },
    ]);
    const oldHeader = new Uint8Array(16);
    oldHeader.set(new TextEncoder().encode("ld.so-1.7.0"));
    const withOld = new Uint8Array(16 + valid.length);
    withOld.set(oldHeader);
    withOld.set(valid, 16);
    await fuzz("parseLdCache", 20_000, (rng) => {
      const bytes = mutate(rng, rng.int(2) === 0 ? valid : withOld);
      if (rng.int(8) === 0 && bytes.length >= 16) new DataView(bytes.buffer, bytes.byteOffset).setUint32(12, rng.pick([0xffffffff, 0x80000000, 0x15555555, rng.u32()]), true);
      const entries = parseLdCache(bytes);
      if (entries === undefined) return;
      if (bytes.length >= 16 && new TextDecoder().decode(bytes.subarray(0, 11)) === "ld.so-1.7.0") {
        const oldEnd = 16 + 12 * new DataView(bytes.buffer, bytes.byteOffset).getUint32(12, true);
        expect(oldEnd).toBeLessThanOrEqual(bytes.length); // the new table is found after the old one, never by wrapping
      }
      expect(entries.length).toBeLessThanOrEqual(bytes.length / 24);
      for (const e of entries) {
        expect(typeof e.soname).toBe("string");
        expect(e.soname.length + e.path.length).toBeLessThanOrEqual(bytes.length);
      }
    });
  });

  it("environment variables: a located library or a PathfinderError", async () => {
    const names = ["CUDA_PATH", "CUDA_HOME", "CONDA_PREFIX", "LD_LIBRARY_PATH", overrideVariable("nvrtc"), overrideVariable("cudart"), overrideVariable("nvJitLink")];
    const values = (rng: Rng): string =>
      rng.pick([rng.string(60), "/", "/tmp", "/proc/self", "relative/dir", "::::", "/nonexistent/..//./x", os.tmpdir() + "/\0x", "/dev/null", "/etc/ld.so.cache", root]);
    await fuzz("Pathfinder env", 300, (rng) => {
      const env: Record<string, string> = {};
      for (const n of names) if (rng.int(2) === 0) env[n] = values(rng);
      const pf = new Pathfinder({ env, loader: unavailableLoader("fuzzing"), warn: () => {} });
      for (const lib of ["nvrtc", "cudart", "nvJitLink"]) typedOrOk(() => pf.findNvidiaLibrary(lib), PathfinderError);
      typedOrOk(() => pf.findNvidiaHeaderDirectory("cudart"), PathfinderError);
    });
  });
});

// The generator runs on Deno only (zod, its validator, does not import under Bun's vitest).
describe(`the generator's manifest${onDeno ? "" : " [skipped: the generator runs on Deno only]"}`, () => {
  it.skipIf(!onDeno)("loadManifest: a manifest or ManifestError for mutated and random files", async () => {
    const { loadManifest, ManifestError } = await import("../../generator/manifest.ts");
    const text = fs.readFileSync(path.join(root, "headers-manifest.json"));
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cuda-ts-manifest-fuzz-"));
    const file = path.join(dir, "m.json");
    try {
      await fuzz("loadManifest", 400, (rng) => {
        const bytes = rng.int(4) === 0 ? rng.bytes(rng.int(200)) : mutate(rng, new Uint8Array(text));
        fs.writeFileSync(file, bytes);
        typedOrOk(() => loadManifest(file), ManifestError);
      });
      // Valid JSON of the wrong shape, too.
      await fuzz("loadManifest JSON shapes", 300, (rng) => {
        const m = JSON.parse(text.toString()) as Record<string, unknown>;
        const keys = Object.keys(m);
        m[rng.pick(keys)] = rng.pick([null, 1, "x", [], {}, [1, "a"], { a: { b: 1 } }]);
        fs.writeFileSync(file, JSON.stringify(m));
        typedOrOk(() => loadManifest(file), ManifestError);
      });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("compiler and linker logs", () => {
  it("readLog: text or undefined whatever the library says its log's size is and whatever it writes", async () => {
    await fuzz("readLog", 5000, (rng) => {
      const size = rng.pick([0, 1, 2, rng.int(4096), 2 ** 31, 2 ** 40, 2 ** 53 + 2, -1]);
      const content = rng.bytes(Math.min(Math.max(size, 0), 4096));
      const status = rng.int(10) === 0 ? 1 : 0;
      const log = readLog(
        (out) => {
          new DataView(ffi.view(out as never, 8)).setBigUint64(0, BigInt.asUintN(64, BigInt(size)), true);
          return status;
        },
        (buf) => {
          new Uint8Array(ffi.view(buf as never, content.length)).set(content);
          return 0;
        },
      );
      if (log !== undefined) expect(typeof log).toBe("string");
      if (status === 0 && size > 64 * 1024 * 1024) expect(log).toMatch(/more than the 67108864 read; it was not read/);
      if (log !== undefined && size >= 0 && size <= 4096) expect(log.length).toBeLessThanOrEqual(size);
    });
  });
});
