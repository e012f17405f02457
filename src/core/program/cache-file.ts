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
 * write without the sticky bit, or reached through a symbolic link another user owns), and an entry file that is a
 * link, not a regular file, owned by another user or writable by group or others, is refused: nothing is read from
 * or written to it, and a warning names the path (once per path).
 *
 * The checks hold against another user changing things between the check and the use: the directory is walked from
 * `/` one component at a time with `lstat` (src/host.ts, checkPrivateDirectoryNoFollow) and then used by its real
 * path, which only this user and root can change; an entry is opened with O_NOFOLLOW and judged by `fstat` of the
 * descriptor opened, then read and touched through that descriptor; a file is removed (a bad entry, eviction, a
 * stale temporary file) only while it is still the regular file of this user that was checked (same device and
 * inode).
 *
 * @module
 */
import {
  canReadPath,
  canWritePath,
  checkPrivateDirectoryNoFollow,
  getEnv,
  linkIdentity,
  makePrivateDirectory,
  nodeBuiltin,
  openPrivateFileNoFollow,
  readDirectory,
  removeFileIfSame,
  writePrivateFileAtomic,
  type FileIdentity,
} from "../../host.ts";
import { currentUid } from "../../ffi/libc-socket.ts";
import { InsecurePathError } from "../base/errors.ts";
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

  /**
   * The directory's real path when it exists and is private (every component checked, none another user can change),
   * else undefined (a refusal is reported; a missing directory is not).
   */
  #trustedDirectory(): string | undefined {
    const dir = this.directory;
    if (dir === undefined) return undefined;
    const check = checkPrivateDirectoryNoFollow(dir, currentUid());
    if (check.ok) return check.real;
    if (!check.missing) this.#refused(new InsecurePathError(check.path, check.reason));
    return undefined;
  }

  /** The file of `key`'s entry (the key itself when it is a hex SHA-256, else its hash). */
  pathOf(key: string): string | undefined {
    if (this.directory === undefined) return undefined;
    return nodePath().join(this.directory, fileNameOf(key));
  }

  get(key: string): CachedProgram | undefined {
    try {
      if (this.directory === undefined) return undefined;
      const dir = this.#trustedDirectory();
      if (dir === undefined) return undefined;
      const file = nodePath().join(dir, fileNameOf(key));
      const opened = openPrivateFileNoFollow(file, currentUid());
      if (!opened.ok) {
        if (!opened.missing) this.#refused(new InsecurePathError(file, opened.reason));
        return undefined;
      }
      const f = opened.file;
      try {
        const entry = decodeEntry(f.read(), key);
        if (entry === undefined) {
          this.#remove(dir, file, f.identity);
          return undefined;
        }
        if (canWritePath(dir)) f.touch(); // best effort: eviction then degrades towards first in, first out
        return entry;
      } finally {
        f.close();
      }
    } catch {
      return undefined;
    }
  }

  set(key: string, entry: CachedProgram): void {
    const target = this.directory;
    if (target === undefined || !canWritePath(target)) return;
    try {
      const bytes = encodeEntry(key, entry);
      if (bytes.length > this.maxBytes) return;
      let check = checkPrivateDirectoryNoFollow(target, currentUid());
      if (!check.ok && check.missing && check.rest !== undefined) {
        // Everything above the missing part was checked; create the rest below it (0700), then check it all again.
        makePrivateDirectory(check.rest);
        check = checkPrivateDirectoryNoFollow(target, currentUid());
      }
      if (!check.ok) {
        if (!check.missing) this.#refused(new InsecurePathError(check.path, check.reason));
        return;
      }
      const dir = check.real;
      const name = fileNameOf(key);
      const file = nodePath().join(dir, name);
      const tmp = nodePath().join(dir, `.${name}.${nodeCrypto().randomBytes(8).toString("hex")}${TMP_SUFFIX}`);
      writePrivateFileAtomic(file, tmp, bytes); // removes its own temporary file when it fails
      this.#evict(dir, file);
    } catch {
      // A cache that cannot be written is a cache that misses; the compilation has its result already.
    }
  }

  delete(key: string): boolean {
    if (this.directory === undefined) return false;
    const dir = this.#trustedDirectory();
    if (dir === undefined) return false;
    const file = nodePath().join(dir, fileNameOf(key));
    const id = linkIdentity(file);
    return id !== undefined && this.#ours(id) && this.#remove(dir, file, id);
  }

  clear(): void {
    const dir = this.#trustedDirectory();
    if (dir === undefined) return;
    for (const { file, id } of this.#entries(dir)) this.#remove(dir, file, id);
  }

  get size(): number {
    const dir = this.#trustedDirectory();
    return dir === undefined ? 0 : this.#entries(dir).length;
  }

  /** Whether `id` is a regular file of this user (the only kind of file the cache reads or removes). */
  #ours(id: FileIdentity): boolean {
    return id.kind === "file" && id.uid === currentUid();
  }

  /** The entry files in trusted directory `dir` (regular files of this user, by `lstat`: links are not entries). */
  #entries(dir: string): { file: string; id: FileIdentity }[] {
    if (!canReadPath(dir)) return [];
    try {
      return readDirectory(dir)
        .filter((n) => n.endsWith(SUFFIX) && !n.startsWith("."))
        .flatMap((n) => {
          const file = nodePath().join(dir, n);
          const id = linkIdentity(file);
          return id !== undefined && this.#ours(id) ? [{ file, id }] : [];
        });
    } catch {
      return [];
    }
  }

  /** Removes least recently used entries past maxBytes (never `keep`), and temporary files left by crashes. */
  #evict(dir: string, keep: string): void {
    if (!canWritePath(dir)) return;
    try {
      const now = Date.now();
      for (const n of readDirectory(dir)) {
        if (!n.endsWith(TMP_SUFFIX)) continue;
        const file = nodePath().join(dir, n);
        const id = linkIdentity(file); // another process may have renamed or removed it
        if (id !== undefined && this.#ours(id) && now - id.mtimeMs > STALE_TMP_MS) removeFileIfSame(file, id);
      }
    } catch {
      return;
    }
    const entries = this.#entries(dir).sort((a, b) => a.id.mtimeMs - b.id.mtimeMs);
    let total = entries.reduce((sum, e) => sum + e.id.size, 0);
    for (const e of entries) {
      if (total <= this.maxBytes) break;
      if (e.file === keep) continue;
      if (this.#remove(dir, e.file, e.id)) total -= e.id.size;
    }
  }

  /** Removes `file` of trusted directory `dir` if it is still the file `id` describes (never one swapped in since). */
  #remove(dir: string, file: string, id: FileIdentity): boolean {
    if (!canWritePath(dir)) return false;
    return removeFileIfSame(file, id);
  }
}

/** The file name of `key`'s entry: the key itself when it is a hex SHA-256, else its hash. */
function fileNameOf(key: string): string {
  return (/^[0-9a-f]{64}$/.test(key) ? key : sha256Hex(key)) + SUFFIX;
}

let defaultCache: FileProgramCache | undefined;

/** The default file cache (`compile(target, { cache: true })`), made on first use. */
export function defaultFileProgramCache(): FileProgramCache {
  return (defaultCache ??= new FileProgramCache());
}
