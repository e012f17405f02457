/**
 * `FileProgramCache`: a compile cache in a directory, shared by processes and kept across runs. Each entry is one
 * file named by the key, written to a temporary file and renamed into place (readers see the old entry or the
 * new one, never half of one), with a header that lets a truncated or corrupted file be recognised
 * (program-cache-entry.ts). A bad entry is ignored and removed, and the compilation that follows rewrites it.
 *
 * The cache never throws: a directory that cannot be created or written (a read-only disk, Deno without
 * `--allow-write`, which is queried and never prompted for) just means nothing is stored; one that cannot be read
 * means every lookup misses. Past `maxBytes`, the least recently used entries are removed.
 *
 * An entry is code this user will run, so the cache is private: its directory is created 0700 (with any missing
 * parents, as the XDG base directory specification asks of `$XDG_CACHE_HOME`), entry files 0600. Like ssh with
 * key files, a directory owned by another user or writable by group or others (or below a directory others can
 * write without the sticky bit), and an entry file owned by another user, writable by group or others, or not a
 * regular file, is refused: nothing is read from or written to it, and a warning names the path (once per path).
 *
 * @module
 */
import { canReadPath, nodeBuiltin, canWritePath, fileInfo, getEnv, isDirectory, makePrivateDirectory, pathExists, readDirectory, readFileBytes, removeFile, touchFile, writeFileAtomic } from "../../host.ts";
import type { InsecurePathError } from "../base/errors.ts";
import { checkPrivateDirectory, checkPrivateFile } from "../base/private-path.ts";
import type { ProgramCache } from "./cache.ts";
import { decodeEntry, encodeEntry, sha256Hex, type CachedProgram } from "./cache-entry.ts";
import { optionalInteger, optionalString } from "./option-checks.ts";
import type * as NodeCrypto from "node:crypto";
import type * as NodePath from "node:path";

// Node.js built-ins, loaded on first use (src/host.ts, nodeBuiltin).
const nodeCrypto = (): typeof NodeCrypto => nodeBuiltin("node:crypto") as typeof NodeCrypto;
const nodePath = (): typeof NodePath => nodeBuiltin("node:path") as typeof NodePath;

/** Options of a {@link FileProgramCache}. */
export interface FileProgramCacheOptions {
  /** The directory of the entries. Default: {@link defaultProgramCacheDirectory}. */
  readonly directory?: string;
  /** The most bytes of entry files kept (least recently used go first). Default 1 GiB. */
  readonly maxBytes?: number;
  /**
   * Told of each directory or entry file refused because others could have written it (once per path). Default:
   * `console.warn` of the error's message.
   */
  readonly onInsecure?: (error: InsecurePathError) => void;
}

const warned = new Set<string>();

const SUFFIX = ".entry";
const TMP_SUFFIX = ".tmp";
const STALE_TMP_MS = 3_600_000;

/**
 * The default directory: `$XDG_CACHE_HOME/cuda-ts/program-cache` (an absolute XDG_CACHE_HOME only, as the XDG
 * specification says), else `$HOME/.cache/cuda-ts/program-cache`; undefined when neither can be read (Deno
 * without `--allow-env`).
 */
export function defaultProgramCacheDirectory(): string | undefined {
  const xdg = getEnv("XDG_CACHE_HOME");
  if (xdg !== undefined && nodePath().isAbsolute(xdg)) return nodePath().join(xdg, "cuda-ts", "program-cache");
  const home = getEnv("HOME");
  return home === undefined ? undefined : nodePath().join(home, ".cache", "cuda-ts", "program-cache");
}

/** A compile cache in a directory. */
export class FileProgramCache implements ProgramCache {
  /** The directory of the entries (undefined: no directory could be determined, so nothing is cached). */
  readonly directory: string | undefined;
  /** The most bytes of entry files kept. */
  readonly maxBytes: number;

  readonly #onInsecure: (error: InsecurePathError) => void;

  /** A cache over `options.directory` (created, mode 0700, when the first entry is stored). */
  constructor(options: FileProgramCacheOptions = {}) {
    const dir = optionalString("FileProgramCache", "directory", options.directory);
    this.directory = dir === undefined ? defaultProgramCacheDirectory() : nodePath().normalize(dir);
    this.maxBytes = optionalInteger("FileProgramCache", "maxBytes", options.maxBytes, 0) ?? 1 << 30;
    const onInsecure = options.onInsecure;
    if (onInsecure !== undefined && typeof onInsecure !== "function") {
      throw new TypeError(`FileProgramCache: onInsecure: expected a function (error) => void, got ${typeof onInsecure}; leave it out to get a console warning`);
    }
    this.#onInsecure = onInsecure ?? ((e) => console.warn(`cuda-ts: compile cache: ${e.message}`));
  }

  /** Whether `error` (a refusal) leaves the path untrusted; reports it once per path. */
  #refused(error: InsecurePathError | undefined): boolean {
    if (error === undefined) return false;
    if (!warned.has(error.path)) {
      warned.add(error.path);
      try {
        this.#onInsecure(error);
      } catch {
        // A reporter that throws must not break compiling.
      }
    }
    return true;
  }

  /** Whether the directory exists and is private (reports it when it is not). */
  #directoryTrusted(): boolean {
    const dir = this.directory;
    return dir !== undefined && isDirectory(dir) && !this.#refused(checkPrivateDirectory(dir));
  }

  /** The file of `key`'s entry (the key itself when it is a hex SHA-256, else its hash). */
  pathOf(key: string): string | undefined {
    if (this.directory === undefined) return undefined;
    const name = /^[0-9a-f]{64}$/.test(key) ? key : sha256Hex(key);
    return nodePath().join(this.directory, name + SUFFIX);
  }

  get(key: string): CachedProgram | undefined {
    try {
      const file = this.pathOf(key);
      if (file === undefined || !pathExists(file) || !this.#directoryTrusted() || this.#refused(checkPrivateFile(file))) return undefined;
      const bytes = readFileBytes(file);
      if (bytes === undefined) return undefined;
      const entry = decodeEntry(bytes, key);
      if (entry === undefined) {
        this.#remove(file);
        return undefined;
      }
      this.#touch(file);
      return entry;
    } catch {
      return undefined;
    }
  }

  set(key: string, entry: CachedProgram): void {
    const dir = this.directory;
    const file = this.pathOf(key);
    if (dir === undefined || file === undefined || !canWritePath(dir)) return;
    let tmp: string | undefined;
    try {
      const bytes = encodeEntry(key, entry);
      if (bytes.length > this.maxBytes) return;
      if (!isDirectory(dir)) makePrivateDirectory(dir);
      if (!this.#directoryTrusted()) return;
      tmp = nodePath().join(dir, `.${nodePath().basename(file)}.${nodeCrypto().randomBytes(8).toString("hex")}${TMP_SUFFIX}`);
      writeFileAtomic(file, tmp, bytes, 0o600);
      tmp = undefined;
      this.#evict(file);
    } catch {
      // A cache that cannot be written is a cache that misses; the compilation has its result already.
    } finally {
      if (tmp !== undefined) this.#remove(tmp);
    }
  }

  delete(key: string): boolean {
    const file = this.pathOf(key);
    if (file === undefined || !pathExists(file)) return false;
    return this.#remove(file);
  }

  clear(): void {
    for (const { file } of this.#entries()) this.#remove(file);
  }

  get size(): number {
    return this.#entries().length;
  }

  #entries(): { file: string; size: number; mtimeMs: number }[] {
    const dir = this.directory;
    if (dir === undefined || !canReadPath(dir) || !this.#directoryTrusted()) return [];
    try {
      return readDirectory(dir)
        .filter((n) => n.endsWith(SUFFIX) && !n.startsWith("."))
        .flatMap((n) => {
          const file = nodePath().join(dir, n);
          const st = fileInfo(file);
          return st?.isFile ? [{ file, size: st.size, mtimeMs: st.mtimeMs }] : [];
        });
    } catch {
      return [];
    }
  }

  /** Removes least recently used entries past maxBytes (never `keep`), and temporary files left by crashes. */
  #evict(keep: string): void {
    const dir = this.directory;
    if (dir === undefined || !canWritePath(dir)) return;
    try {
      const now = Date.now();
      for (const n of readDirectory(dir)) {
        if (!n.endsWith(TMP_SUFFIX)) continue;
        const file = nodePath().join(dir, n);
        const st = fileInfo(file); // another process may have renamed or removed it
        if (st !== undefined && now - st.mtimeMs > STALE_TMP_MS) removeFile(file);
      }
    } catch {
      return;
    }
    const entries = this.#entries().sort((a, b) => a.mtimeMs - b.mtimeMs);
    let total = entries.reduce((sum, e) => sum + e.size, 0);
    for (const e of entries) {
      if (total <= this.maxBytes) break;
      if (e.file === keep) continue;
      if (this.#remove(e.file)) total -= e.size;
    }
  }

  /** Marks an entry as just used (for eviction), when allowed. */
  #touch(file: string): void {
    if (this.directory === undefined || !canWritePath(this.directory)) return;
    touchFile(file); // best effort: eviction then degrades towards first in, first out
  }

  #remove(file: string): boolean {
    if (this.directory === undefined || !canWritePath(this.directory)) return false;
    return removeFile(file);
  }
}

let defaultCache: FileProgramCache | undefined;

/** The default file cache (`compile(target, { cache: true })`), made on first use. */
export function defaultFileProgramCache(): FileProgramCache {
  return (defaultCache ??= new FileProgramCache());
}
