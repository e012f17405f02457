/**
 * The cached form of a compiled program, and its on-disk encoding. An entry file is
 *
 * | bytes | content |
 * |---|---|
 * | 0–7 | magic `CUDATSPC` |
 * | 8–11 | format version (u32 LE, {@link ENTRY_FORMAT_VERSION}) |
 * | 12–15 | metadata length M (u32 LE) |
 * | 16–23 | payload length P (u64 LE): M + the code's length |
 * | 24–55 | SHA-256 of the payload |
 * | 56– | payload: metadata (UTF-8 JSON: key, format, name, symbolMapping), then the code |
 *
 * so a truncated, half-written or corrupted file, one from another format version, or one stored under another
 * key, is recognised and refused ({@link decodeEntry} returns undefined; it never throws).
 *
 * @module
 */
import { nodeBuiltin } from "../../host.ts";
import type { ObjectCodeFormat } from "./object-code.ts";
import { ObjectCode } from "./object-code.ts";
import type * as NodeCrypto from "node:crypto";

// Node.js built-ins, loaded on first use (src/host.ts, nodeBuiltin).
const nodeCrypto = (): typeof NodeCrypto => nodeBuiltin("node:crypto") as typeof NodeCrypto;

/** A compiled program as a cache holds it: enough to rebuild its ObjectCode, symbol mapping included. */
export interface CachedProgram {
  /** The format of `code`. */
  readonly format: ObjectCodeFormat;
  /** The PTX, cubin or LTO-IR. */
  readonly code: Uint8Array;
  /** The ObjectCode's name. */
  readonly name: string;
  /** Name expressions → lowered names (so `getKernel("axpy<float>")` works on a cache hit). */
  readonly symbolMapping: Readonly<Record<string, string>>;
}

/** The magic at the start of every entry file. */
const ENTRY_MAGIC = "CUDATSPC";
/** The format version of entry files; files of another version are ignored (and replaced when rewritten). */
const ENTRY_FORMAT_VERSION = 1;
/** Bytes before the payload. */
export const ENTRY_HEADER_SIZE = 56;

const FORMATS: ReadonlySet<string> = new Set<ObjectCodeFormat>(["cubin", "ptx", "ltoir", "fatbin", "object", "library"]);
const encoder = new TextEncoder();

/** The SHA-256 of the parts (strings as UTF-8), in hex. */
export function sha256Hex(...parts: (string | Uint8Array)[]): string {
  const h = nodeCrypto().createHash("sha256");
  for (const p of parts) h.update(typeof p === "string" ? encoder.encode(p) : p);
  return h.digest("hex");
}

function sha256Bytes(data: Uint8Array): Uint8Array {
  return new Uint8Array(nodeCrypto().createHash("sha256").update(data).digest());
}

/** The cached form of an ObjectCode (a copy of its bytes). */
export function toCachedProgram(code: ObjectCode): CachedProgram {
  return Object.freeze({ format: code.format, code: code.code.slice(), name: code.name, symbolMapping: Object.freeze(code.symbolMapping) });
}

/** A fresh ObjectCode from a cached program. */
export function fromCachedProgram(entry: CachedProgram): ObjectCode {
  const options = { name: entry.name, symbolMapping: entry.symbolMapping };
  switch (entry.format) {
    case "cubin":
      return ObjectCode.fromCubin(entry.code, options);
    case "ptx":
      return ObjectCode.fromPtx(entry.code, options);
    case "ltoir":
      return ObjectCode.fromLtoir(entry.code, options);
    case "fatbin":
      return ObjectCode.fromFatbin(entry.code, options);
    case "object":
      return ObjectCode.fromObject(entry.code, options);
    case "library":
      return ObjectCode.fromLibrary(entry.code, options);
  }
}

/** Encodes an entry file for `key`. */
export function encodeEntry(key: string, entry: CachedProgram): Uint8Array {
  const meta = encoder.encode(JSON.stringify({ key, format: entry.format, name: entry.name, symbolMapping: entry.symbolMapping }));
  const payloadLength = meta.length + entry.code.length;
  const out = new Uint8Array(new ArrayBuffer(ENTRY_HEADER_SIZE + payloadLength));
  const dv = new DataView(out.buffer);
  out.set(encoder.encode(ENTRY_MAGIC), 0);
  dv.setUint32(8, ENTRY_FORMAT_VERSION, true);
  dv.setUint32(12, meta.length, true);
  dv.setBigUint64(16, BigInt(payloadLength), true);
  out.set(meta, ENTRY_HEADER_SIZE);
  out.set(entry.code, ENTRY_HEADER_SIZE + meta.length);
  out.set(sha256Bytes(out.subarray(ENTRY_HEADER_SIZE)), 24);
  return out;
}

function isStringRecord(v: unknown): v is Record<string, string> {
  return typeof v === "object" && v !== null && !Array.isArray(v) && Object.values(v).every((x) => typeof x === "string");
}

/** Decodes an entry file; undefined when it is not a complete, intact entry for `key`. Never throws. */
export function decodeEntry(bytes: Uint8Array, key: string): CachedProgram | undefined {
  try {
    if (bytes.length < ENTRY_HEADER_SIZE) return undefined;
    const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    if (new TextDecoder().decode(bytes.subarray(0, 8)) !== ENTRY_MAGIC) return undefined;
    if (dv.getUint32(8, true) !== ENTRY_FORMAT_VERSION) return undefined;
    const metaLength = dv.getUint32(12, true);
    const payloadLength = dv.getBigUint64(16, true);
    if (payloadLength !== BigInt(bytes.length - ENTRY_HEADER_SIZE) || metaLength > bytes.length - ENTRY_HEADER_SIZE) return undefined;
    const payload = bytes.subarray(ENTRY_HEADER_SIZE);
    const digest = sha256Bytes(payload);
    const stored = bytes.subarray(24, 56);
    if (!digest.every((b, i) => b === stored[i])) return undefined;
    const meta: unknown = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(payload.subarray(0, metaLength)));
    if (typeof meta !== "object" || meta === null) return undefined;
    const m = meta as Record<string, unknown>;
    if (m.key !== key || typeof m.format !== "string" || !FORMATS.has(m.format) || typeof m.name !== "string" || !isStringRecord(m.symbolMapping)) {
      return undefined;
    }
    return Object.freeze({
      format: m.format as ObjectCodeFormat,
      code: payload.slice(metaLength),
      name: m.name,
      symbolMapping: Object.freeze({ ...m.symbolMapping }),
    });
  } catch {
    return undefined;
  }
}
