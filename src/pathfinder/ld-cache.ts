/**
 * Reads glibc's loader cache (`/etc/ld.so.cache`, written by `ldconfig`), so the system search can name the exact
 * file the loader would pick for a soname, list where it looked, and find without loading. Both layouts are
 * understood: the current one (`glibc-ld.so.cache1.1`) and the old one (`ld.so-1.7.0`) with the current one
 * appended.
 *
 * @module
 */

/** One cache entry: a soname, the file it maps to, and glibc's flags (ELF class and architecture). */
export interface LdCacheEntry {
  /** The soname, such as `libcuda.so.1`. */
  readonly soname: string;
  /** The absolute path of the file. */
  readonly path: string;
  /** glibc's entry flags: the low byte is the library type, the high byte the architecture (`0x0300` x86-64). */
  readonly flags: number;
}

const NEW_MAGIC = "glibc-ld.so.cache1.1";
const OLD_MAGIC = "ld.so-1.7.0";
const NEW_HEADER_SIZE = 48;
const NEW_ENTRY_SIZE = 24;
const OLD_HEADER_SIZE = 16;
const OLD_ENTRY_SIZE = 12;

function ascii(bytes: Uint8Array, at: number, length: number): string {
  let out = "";
  for (let i = at; i < at + length && i < bytes.length; i++) out += String.fromCharCode(bytes[i] as number);
  return out;
}

function cString(bytes: Uint8Array, at: number): string | undefined {
  if (at < 0 || at >= bytes.length) return undefined;
  const end = bytes.indexOf(0, at);
  if (end < 0) return undefined;
  return new TextDecoder().decode(bytes.subarray(at, end));
}

/**
 * Parses the bytes of an ld.so cache. Returns `undefined` when they are not a cache in a known layout; entries whose
 * strings fall outside the file are dropped. Only little-endian caches are read.
 */
export function parseLdCache(bytes: Uint8Array): LdCacheEntry[] | undefined {
  let base = 0;
  if (ascii(bytes, 0, OLD_MAGIC.length) === OLD_MAGIC) {
    if (bytes.length < OLD_HEADER_SIZE) return undefined;
    const oldCount = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(12, true);
    base = OLD_HEADER_SIZE + oldCount * OLD_ENTRY_SIZE;
    base = Math.ceil(base / 8) * 8; // not `& ~7`: that wraps a large count to 32 bits and finds a table that is not there
  }
  if (ascii(bytes, base, NEW_MAGIC.length) !== NEW_MAGIC || bytes.length < base + NEW_HEADER_SIZE) return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const count = view.getUint32(base + 20, true);
  const strings = bytes.subarray(base);
  const entries: LdCacheEntry[] = [];
  for (let i = 0; i < count; i++) {
    const at = base + NEW_HEADER_SIZE + i * NEW_ENTRY_SIZE;
    if (at + NEW_ENTRY_SIZE > bytes.length) break;
    const flags = view.getInt32(at, true);
    const soname = cString(strings, view.getUint32(at + 4, true));
    const path = cString(strings, view.getUint32(at + 8, true));
    if (soname !== undefined && path !== undefined) entries.push({ soname, path, flags });
  }
  return entries;
}

/** The architecture byte glibc writes for 64-bit libraries of an architecture, or `undefined` when unknown. */
export function ldCacheArchitectureFlag(architecture: string): number | undefined {
  if (architecture === "x64") return 0x0300;
  if (architecture === "arm64") return 0x0a00;
  return undefined;
}

/** Whether an entry suits a process of `architecture` (every entry does when the architecture is unknown). */
export function entryMatchesArchitecture(entry: LdCacheEntry, architecture: string): boolean {
  const flag = ldCacheArchitectureFlag(architecture);
  return flag === undefined || (entry.flags & 0xff00) === flag;
}

/**
 * Builds the bytes of a cache in the current layout (for tests and tools). `flags` defaults to an ELF libc6 entry
 * for `architecture` (x86-64 when unknown).
 */
export function buildLdCache(entries: readonly { soname: string; path: string; flags?: number }[], architecture = "x64"): Uint8Array {
  const encoder = new TextEncoder();
  const stringsStart = NEW_HEADER_SIZE + entries.length * NEW_ENTRY_SIZE;
  const chunks: Uint8Array[] = [];
  let stringsLength = 0;
  const offsets: [number, number][] = [];
  for (const e of entries) {
    const soname = encoder.encode(`${e.soname}\0`);
    const path = encoder.encode(`${e.path}\0`);
    offsets.push([stringsStart + stringsLength, stringsStart + stringsLength + soname.length]);
    chunks.push(soname, path);
    stringsLength += soname.length + path.length;
  }
  const out = new Uint8Array(stringsStart + stringsLength);
  const view = new DataView(out.buffer);
  out.set(encoder.encode(NEW_MAGIC), 0);
  view.setUint32(20, entries.length, true);
  view.setUint32(24, stringsLength, true);
  out[28] = 2; // little-endian
  const defaultFlags = 0x0003 | (ldCacheArchitectureFlag(architecture) ?? 0x0300);
  entries.forEach((e, i) => {
    const at = NEW_HEADER_SIZE + i * NEW_ENTRY_SIZE;
    const [key, value] = offsets[i] as [number, number];
    view.setInt32(at, e.flags ?? defaultFlags, true);
    view.setUint32(at + 4, key, true);
    view.setUint32(at + 8, value, true);
  });
  let at = stringsStart;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}
