/**
 * Fuzzing of compile cache entries past their checksum: entries whose SHA-256 is recomputed over mutated metadata,
 * mutated header fields and mutated code, so that every one reaches the decoder's checks after the checksum (the
 * JSON, its fields, the lengths). Each must be refused or decoded to exactly what an independent reading of the same
 * bytes says, never crash; through a FileProgramCache, a refused entry is a miss (and removed), an accepted one a
 * hit of the right format. The seed is random per run and printed; `CUDA_TS_FUZZ_SEED=<seed>` replays a run.
 */
import { createHash, randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { compileThroughCache } from "../../src/core/program/cache.ts";
import { decodeEntry, ENTRY_HEADER_SIZE } from "../../src/core/program/cache-entry.ts";
import { FileProgramCache } from "../../src/core/program/cache-file.ts";
import { ObjectCode } from "../../src/core/program/object-code.ts";
import { mutate, Rng } from "../support/fuzz.ts";

const SEED = process.env.CUDA_TS_FUZZ_SEED !== undefined ? Number(process.env.CUDA_TS_FUZZ_SEED) >>> 0 : randomBytes(4).readUInt32LE(0);
const FACTOR = Number(process.env.CUDA_TS_FUZZ_RUNS ?? "1") || 1;
const KEY = "ab".repeat(32);
const FORMATS = ["cubin", "ptx", "ltoir", "fatbin", "object", "library"];
const enc = new TextEncoder();

/** An entry file around `meta` and `code` with a correct SHA-256 of the payload; header fields overridable. */
function build(meta: Uint8Array, code: Uint8Array, over: { version?: number; metaLength?: number; payloadLength?: bigint; magic?: string } = {}): Uint8Array {
  const payload = new Uint8Array(meta.length + code.length);
  payload.set(meta);
  payload.set(code, meta.length);
  const out = new Uint8Array(ENTRY_HEADER_SIZE + payload.length);
  const dv = new DataView(out.buffer);
  out.set(enc.encode((over.magic ?? "CUDATSPC").slice(0, 8)), 0);
  dv.setUint32(8, over.version ?? 1, true);
  dv.setUint32(12, over.metaLength ?? meta.length, true);
  dv.setBigUint64(16, over.payloadLength ?? BigInt(payload.length), true);
  out.set(payload, ENTRY_HEADER_SIZE);
  out.set(createHash("sha256").update(payload).digest(), 24);
  return out;
}

/** What the bytes say, read independently of decodeEntry: the entry, or undefined where it must be refused. */
function oracle(bytes: Uint8Array, key: string): { format: string; code: Uint8Array; name: string; symbolMapping: Record<string, string> } | undefined {
  if (bytes.length < ENTRY_HEADER_SIZE) return undefined;
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (Buffer.from(bytes.subarray(0, 8)).toString("latin1") !== "CUDATSPC" || dv.getUint32(8, true) !== 1) return undefined;
  const m = dv.getUint32(12, true);
  const payload = bytes.subarray(ENTRY_HEADER_SIZE);
  if (dv.getBigUint64(16, true) !== BigInt(payload.length) || m > payload.length) return undefined;
  if (!Buffer.from(createHash("sha256").update(payload).digest()).equals(Buffer.from(bytes.subarray(24, 56)))) return undefined;
  let meta: unknown;
  try {
    meta = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(payload.subarray(0, m)));
  } catch {
    return undefined;
  }
  if (typeof meta !== "object" || meta === null) return undefined;
  const o = meta as Record<string, unknown>;
  const sm = o.symbolMapping;
  const smOk = typeof sm === "object" && sm !== null && !Array.isArray(sm) && Object.values(sm).every((v) => typeof v === "string");
  if (o.key !== key || typeof o.format !== "string" || !FORMATS.includes(o.format) || typeof o.name !== "string" || !smOk) return undefined;
  return { format: o.format, code: payload.slice(m), name: o.name, symbolMapping: { ...(sm as Record<string, string>) } };
}

/** A value to put in a metadata field: of the wrong type, the edge of the right one, or hostile. */
function value(rng: Rng, field: string): unknown {
  const strings = [rng.string(40), "", "\u0000", "x".repeat(1 + rng.int(5000)), "__proto__", "constructor", "\ud800", KEY.toUpperCase(), `${KEY} `, KEY.slice(1), "ba".repeat(32)];
  const pool: unknown[] = [undefined, null, 0, -1, 1e308, true, [], {}, [KEY], { toString: "x" }, rng.pick(strings)];
  if (field === "format") pool.push(...FORMATS, "CUBIN", "ptx\u0000", "elf", "toString", "hasOwnProperty");
  if (field === "key") pool.push(KEY, KEY, "0".repeat(64));
  if (field === "name") pool.push("n", rng.string(200));
  if (field === "symbolMapping") {
    const many: Record<string, string> = {};
    if (rng.int(8) === 0) for (let i = 0, k = rng.int(2000); i < k; i++) many[rng.string(12)] = rng.string(12);
    pool.push({ "k<int>": "_Z1kIiEvv" }, many, JSON.parse('{"__proto__": "x", "constructor": "y"}'), JSON.parse('{"__proto__": {"polluted": "yes"}}'), { a: 1 }, { a: null }, { a: ["x"] }, [["a", "b"]], "a=b", { [rng.string(30)]: rng.string(30) });
  }
  return rng.pick(pool);
}

/** A valid metadata object for KEY. */
const validMeta = (rng: Rng): Record<string, unknown> => ({ key: KEY, format: rng.pick(FORMATS), name: rng.pick(["n", "", rng.string(20)]), symbolMapping: { "k<int>": "_Z1kIiEvv" } });

/** One fuzzed entry: the metadata's fields, its JSON text, the header's lengths, or the code, with a valid checksum. */
function fuzzedEntry(rng: Rng): Uint8Array {
  const meta = validMeta(rng);
  const code = rng.bytes(rng.int(64));
  switch (rng.int(6)) {
    case 0:
    case 1: {
      // Fields: changed, removed, added, one to four at a time.
      for (let k = 1 + rng.int(4); k > 0; k--) {
        const field = rng.pick(["key", "format", "name", "symbolMapping", "extra", "__proto__"]);
        const v = value(rng, field);
        if (v === undefined) delete meta[field];
        else meta[field] = v;
      }
      return build(enc.encode(JSON.stringify(meta)), code);
    }
    case 2: {
      // Not an object, or JSON that is not well formed or not UTF-8, or nested deep.
      const texts = [
        "null", "[]", "1", '"s"', "true", `[${JSON.stringify(meta)}]`, "", "{", JSON.stringify(meta).slice(0, -1), `${JSON.stringify(meta)} x`,
        `{"key":"${KEY}","key":"other","format":"cubin","name":"n","symbolMapping":{}}`, `{"key":"other","key":"${KEY}","format":"cubin","name":"n","symbolMapping":{}}`,
        "[".repeat(20_000) + "]".repeat(20_000), `{"key":"${KEY}","format":"cubin","name":"n","symbolMapping":${'{"a":'.repeat(5000)}"x"${"}".repeat(5000)}}`,
      ];
      const text = enc.encode(rng.pick(texts));
      if (rng.int(4) === 0) return build(new Uint8Array([...text, 0xff, 0xfe]), code);
      return build(text, code);
    }
    case 3:
      // The JSON's bytes mutated (flips, truncation, boundary values, splices), checksum recomputed.
      return build(mutate(rng, enc.encode(JSON.stringify(meta))), code);
    case 4: {
      // Header fields other than the checksum: the metadata length anywhere, the payload length, the version.
      const json = enc.encode(JSON.stringify(meta));
      const total = json.length + code.length;
      const metaLength = rng.pick([0, 1, json.length - 1, json.length + 1, json.length + rng.int(code.length + 1), total, total + 1, 0x7fffffff, 0xffffffff, rng.u32()]);
      const payloadLength = rng.pick([BigInt(total), BigInt(total) + 1n, BigInt(total) - 1n, 0n, 2n ** 64n - 1n, 2n ** 63n, BigInt(rng.u32())]);
      const version = rng.pick([1, 1, 0, 2, 0xffffffff]);
      const magic = rng.pick(["CUDATSPC", "CUDATSPC", "cudatspc", "CUDATSP\u0000"]);
      return build(json, code, { metaLength: metaLength >>> 0, payloadLength: payloadLength < 0n ? 0n : payloadLength & (2n ** 64n - 1n), version, magic });
    }
    default:
      // A valid entry with unusual code: empty, NUL-free PTX, large.
      return build(enc.encode(JSON.stringify(meta)), rng.pick([new Uint8Array(0), enc.encode(".version 8.0"), rng.bytes(rng.int(100_000))]));
  }
}

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

describe("compile cache entries past the checksum", () => {
  it(`decodeEntry refuses or decodes exactly (seed ${SEED}), never throws`, () => {
    console.log(`fuzz cache entry fields: seed ${SEED} (replay with CUDA_TS_FUZZ_SEED=${SEED})`);
    const rng = new Rng(SEED);
    const runs = Math.round(6000 * FACTOR);
    const t0 = performance.now();
    let accepted = 0;
    let i = 0;
    for (; i < runs && performance.now() - t0 < 10_000; i++) {
      const bytes = fuzzedEntry(rng);
      try {
        const want = oracle(bytes, KEY);
        const got = decodeEntry(bytes, KEY);
        if (want === undefined) expect(got).toBeUndefined();
        else {
          accepted++;
          expect(got !== undefined && Buffer.from(got.code).equals(Buffer.from(want.code))).toBe(true);
          expect({ ...got!, code: undefined }).toEqual({ ...want, code: undefined });
          expect(Object.isFrozen(got)).toBe(true);
          expect(Object.getPrototypeOf(got!.symbolMapping)).toBe(Object.prototype);
          expect(({} as Record<string, unknown>).polluted).toBeUndefined();
        }
      } catch (e) {
        throw new Error(`run ${i} (seed ${SEED}; replay with CUDA_TS_FUZZ_SEED=${SEED}): ${e instanceof Error ? e.message : String(e)}`, { cause: e });
      }
    }
    console.log(`fuzz cache entry fields: ${i} entries in ${Math.round(performance.now() - t0)} ms, ${accepted} accepted (seed ${SEED})`);
    expect(i).toBeGreaterThan(500);
    expect(accepted).toBeGreaterThan(0);
  }, 60_000);

  it(`through a FileProgramCache: a refused entry is a miss and is removed, an accepted one a hit (seed ${SEED})`, () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cuda-ts-fuzz-cache-"));
    dirs.push(dir);
    const cache = new FileProgramCache({ directory: dir, onInsecure: (e) => { throw e; } });
    const file = cache.pathOf(KEY)!;
    const rng = new Rng(SEED ^ 0x9e3779b9);
    const runs = Math.round(600 * FACTOR);
    let hits = 0;
    let i = 0;
    const t0 = performance.now();
    for (; i < runs && performance.now() - t0 < 10_000; i++) {
      const bytes = fuzzedEntry(rng);
      fs.writeFileSync(file, bytes, { mode: 0o600 });
      const want = oracle(bytes, KEY);
      const format = (want?.format ?? rng.pick(FORMATS)) as "cubin";
      let compiled = 0;
      try {
        const r = compileThroughCache(cache, KEY, format, () => {
          compiled++;
          return ObjectCode.fromCubin(new Uint8Array([1]), { name: "fresh" });
        });
        if (want === undefined) {
          expect(r.hit).toBe(false);
          expect(compiled).toBe(1);
        } else {
          hits++;
          expect(r.hit).toBe(true);
          expect(r.code.format).toBe(want.format);
          expect(r.code.name).toBe(want.name);
          expect(r.code.symbolMapping).toEqual(want.symbolMapping);
        }
      } catch (e) {
        throw new Error(`run ${i} (seed ${SEED}; replay with CUDA_TS_FUZZ_SEED=${SEED}): ${e instanceof Error ? e.message : String(e)}`, { cause: e });
      }
      fs.rmSync(file, { force: true });
    }
    console.log(`fuzz cache entry fields through the file cache: ${i} entries, ${hits} hits (seed ${SEED})`);
    expect(i).toBeGreaterThan(50);
  }, 60_000);
});
