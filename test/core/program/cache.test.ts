/**
 * The compile cache without a GPU: keys (what changes them and what does not, what is refused), the in-memory
 * and file caches with an injected compile step, the entry format against truncation and corruption, and the
 * Program path for real through NVVM (skipped without libNVVM).
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { nvvm } from "../../../src/bindings/nvvm.ts";
import { ObjectCode } from "../../../src/core/program/object-code.ts";
import { compileThroughCache, InMemoryProgramCache, makeProgramCacheKey, type ProgramCacheKeyInputs } from "../../../src/core/program/cache.ts";
import { decodeEntry, encodeEntry, ENTRY_HEADER_SIZE, toCachedProgram, type CachedProgram } from "../../../src/core/program/cache-entry.ts";
import { defaultProgramCacheDirectory, FileProgramCache } from "../../../src/core/program/cache-file.ts";
import { Program } from "../../../src/core/program/program.ts";
import { tryFindBitcodeLibrary } from "../../../src/pathfinder/index.ts";
import { requireTwoUsers } from "../../support/two-users.ts";

/** A title suffix naming why a suite or test is skipped here (empty when it runs). */
const skipNote = (skip: boolean, why: string): string => (skip ? ` [skipped: ${why}]` : "");

const nvvmPresent = (() => {
  try {
    nvvm.nvvmVersion();
    return true;
  } catch {
    return false;
  }
})();

const SAXPY = 'extern "C" __global__ void k(float* x) { x[threadIdx.x] *= 2; }\ntemplate <typename T> __global__ void t(T* x) {}';
const base: ProgramCacheKeyInputs = { code: SAXPY, codeType: "c++", options: { arch: "sm_90" }, target: "cubin", compilerVersion: "nvrtc 13.0 test" };
const key = (over: Partial<ProgramCacheKeyInputs> = {}): string => makeProgramCacheKey({ ...base, ...over });

let tmpRoot: string;
beforeAll(() => {
  tmpRoot = fs.mkdtempSync(path.join(os.tmpdir(), "cuda-ts-program-cache-"));
});
afterAll(() => {
  fs.rmSync(tmpRoot, { recursive: true, force: true });
});
afterEach(() => {
  vi.restoreAllMocks();
});
let dirs = 0;
const freshDir = (): string => path.join(tmpRoot, `cache-${++dirs}`);

/** A fake compiled cubin with a symbol mapping, and a compile step that counts its calls. */
function counter(bytes = [0x7f, 0x45, 0x4c, 0x46, 1, 2, 3]): { compile: () => ObjectCode; calls: () => number } {
  let n = 0;
  return {
    compile: () => {
      n++;
      return ObjectCode.fromCubin(new Uint8Array(bytes), { name: "prog", symbolMapping: { "t<float>": "_Z1tIfEvPT_" } });
    },
    calls: () => n,
  };
}

function entry(code: number[] = [1, 2, 3], format: CachedProgram["format"] = "cubin"): CachedProgram {
  return { format, code: new Uint8Array(code), name: "n", symbolMapping: { "a<int>": "_Z1aIiEvv" } };
}

describe("makeProgramCacheKey", () => {
  it("is a hex SHA-256, the same for the same inputs", () => {
    expect(key()).toMatch(/^[0-9a-f]{64}$/);
    expect(key()).toBe(key());
    expect(key({ options: { arch: "sm_90", debug: false } })).toBe(key({ options: { arch: "sm_90", debug: false } }));
  });

  it("changes with everything that decides the result", () => {
    const k = key();
    const variants: Partial<ProgramCacheKeyInputs>[] = [
      { code: `${SAXPY} ` },
      { target: "ptx" },
      { target: "ltoir" },
      { options: { arch: "sm_80" } },
      { options: { arch: "sm_90", debug: true } },
      { options: { arch: "sm_90", std: "c++17" } },
      { options: { arch: "sm_90", defineMacro: { N: 1 } } },
      { options: { arch: "sm_90", name: "other" } },
      { nameExpressions: ["t<float>"] },
      { compilerVersion: "nvrtc 13.1 test" },
      { extraDigest: "headers v2" },
      { codeType: "nvvm" },
    ];
    const keys = variants.map((v) => key(v));
    expect(new Set([k, ...keys]).size).toBe(variants.length + 1);
  });

  it("does not depend on the order or repetition of name expressions", () => {
    expect(key({ nameExpressions: ["t<float>", "t<double>"] })).toBe(key({ nameExpressions: ["t<double>", "t<float>", "t<float>"] }));
  });

  it("for PTX, hashes only what reaches the linker", () => {
    const ptx: Partial<ProgramCacheKeyInputs> = { code: ".version 8.0", codeType: "ptx", compilerVersion: "nvJitLink 13.0 test" };
    expect(key({ ...ptx, options: { arch: "sm_90", std: "c++17", includePath: "/x" } })).toBe(key({ ...ptx, options: { arch: "sm_90" } }));
    expect(key({ ...ptx, options: { arch: "sm_90", maxRegisterCount: 32 } })).not.toBe(key({ ...ptx, options: { arch: "sm_90" } }));
  });

  it("for NVVM, hashes the extra sources", () => {
    const ir: Partial<ProgramCacheKeyInputs> = { code: "; ir", codeType: "nvvm", target: "ptx", compilerVersion: "nvvm test" };
    const a = key({ ...ir, options: { arch: "sm_90", extraSources: [["m", "one"]] } });
    expect(key({ ...ir, options: { arch: "sm_90", extraSources: [["m", "two"]] } })).not.toBe(a);
    expect(key({ ...ir, options: { arch: "sm_90", extraSources: [["m", new TextEncoder().encode("one")]] } })).toBe(a);
  });

  const noLibdevice = tryFindBitcodeLibrary("device") === undefined;
  it.skipIf(noLibdevice)(`for NVVM with useLibdevice, hashes libdevice itself (no digest needed)${skipNote(noLibdevice, "libdevice not found")}`, () => {
    const ir: Partial<ProgramCacheKeyInputs> = { code: "; ir", codeType: "nvvm", target: "ptx", compilerVersion: "nvvm test" };
    expect(key({ ...ir, options: { arch: "sm_90", useLibdevice: true } })).not.toBe(key({ ...ir, options: { arch: "sm_90" } }));
  });

  it("refuses options with side effects", () => {
    for (const options of [{ createPch: "a.pch" }, { time: "t.csv" }, { fdeviceTimeTrace: "trace" }]) {
      expect(() => key({ options: { arch: "sm_90", ...options } })).toThrow(RangeError);
      expect(() => key({ options: { arch: "sm_90", ...options } })).toThrow(/side effect/);
      expect(() => key({ options: { arch: "sm_90", ...options }, extraDigest: "x" })).toThrow(/side effect/);
    }
  });

  it("refuses files it cannot see unless given a digest of them", () => {
    for (const options of [{ includePath: "/inc" }, { preInclude: "a.h" }, { pch: true }, { usePch: "a.pch" }, { pchDir: "/pch" }, { name: "dir/prog.cu" }]) {
      expect(() => key({ options: { arch: "sm_90", ...options } })).toThrow(/pass cacheDigest/);
      expect(key({ options: { arch: "sm_90", ...options }, extraDigest: "sha of headers" })).toMatch(/^[0-9a-f]{64}$/);
    }
    expect(key({ options: { arch: "sm_90", pch: false } })).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe("InMemoryProgramCache", () => {
  it("stores, returns, deletes and clears", () => {
    const c = new InMemoryProgramCache();
    expect(c.get("k")).toBeUndefined();
    c.set("k", entry());
    expect(c.get("k")?.symbolMapping).toEqual({ "a<int>": "_Z1aIiEvv" });
    expect(c.size).toBe(1);
    expect(c.bytes).toBe(3);
    expect(c.delete("k")).toBe(true);
    expect(c.delete("k")).toBe(false);
    c.set("a", entry());
    c.clear();
    expect(c.size).toBe(0);
    expect(c.bytes).toBe(0);
  });

  it("evicts the least recently used past maxEntries and maxBytes", () => {
    const c = new InMemoryProgramCache({ maxEntries: 2 });
    c.set("a", entry());
    c.set("b", entry());
    c.get("a");
    c.set("c", entry());
    expect(c.get("b")).toBeUndefined();
    expect(c.get("a")).toBeDefined();
    expect(c.get("c")).toBeDefined();
    const d = new InMemoryProgramCache({ maxBytes: 5 });
    d.set("a", entry([1, 2]));
    d.set("b", entry([1, 2]));
    d.set("c", entry([1, 2]));
    expect([d.get("a"), d.get("b"), d.get("c")].map((e) => e !== undefined)).toEqual([false, true, true]);
    d.set("huge", entry([1, 2, 3, 4, 5, 6]));
    expect(d.get("huge")).toBeUndefined();
    expect(() => new InMemoryProgramCache({ maxEntries: 0 })).toThrow(/maxEntries: expected an integer ≥ 1, got 0/);
  });
});

describe("compileThroughCache (an injected compile step)", () => {
  it("compiles on a miss, returns a fresh ObjectCode with the symbol mapping on a hit", () => {
    const cache = new InMemoryProgramCache();
    const c = counter();
    const first = compileThroughCache(cache, key(), "cubin", c.compile);
    expect(first.hit).toBe(false);
    const second = compileThroughCache(cache, key(), "cubin", c.compile);
    expect(second.hit).toBe(true);
    expect(c.calls()).toBe(1);
    expect(second.code).not.toBe(first.code);
    expect(second.code.format).toBe("cubin");
    expect(second.code.name).toBe("prog");
    expect(second.code.code).toEqual(first.code.code);
    expect(second.code.symbolMapping).toEqual({ "t<float>": "_Z1tIfEvPT_" });
  });

  it("treats an entry of another format as a miss", () => {
    const cache = new InMemoryProgramCache();
    cache.set(key(), entry([1], "ptx"));
    const c = counter();
    expect(compileThroughCache(cache, key(), "cubin", c.compile).hit).toBe(false);
    expect(c.calls()).toBe(1);
  });

  it("keeps PTX NUL-terminated exactly once", () => {
    const cache = new InMemoryProgramCache();
    const ptx = () => ObjectCode.fromPtx(new TextEncoder().encode(".version 8.0"));
    compileThroughCache(cache, "p", "ptx", ptx);
    const hit = compileThroughCache(cache, "p", "ptx", ptx);
    expect(hit.hit).toBe(true);
    expect(hit.code.code).toEqual(ptx().code);
  });
});

describe("entry files", () => {
  const k = "0".repeat(64);
  const bytes = encodeEntry(k, entry([9, 8, 7, 6]));

  it("round-trip", () => {
    expect(new TextDecoder().decode(bytes.subarray(0, 8))).toBe("CUDATSPC");
    const e = decodeEntry(bytes, k);
    expect(e).toEqual({ format: "cubin", code: new Uint8Array([9, 8, 7, 6]), name: "n", symbolMapping: { "a<int>": "_Z1aIiEvv" } });
    expect(decodeEntry(encodeEntry(k, toCachedProgram(ObjectCode.fromLtoir(new Uint8Array([5])))), k)?.format).toBe("ltoir");
  });

  it("are refused when truncated at any length", () => {
    for (let n = 0; n < bytes.length; n++) expect(decodeEntry(bytes.subarray(0, n), k)).toBeUndefined();
  });

  it("are refused when any byte is changed", () => {
    for (let i = 0; i < bytes.length; i++) {
      const copy = bytes.slice();
      copy[i] = (copy[i] ?? 0) ^ 0x55;
      expect(decodeEntry(copy, k), `byte ${i}`).toBeUndefined();
    }
  });

  it("are refused with trailing bytes, under another key, or as garbage", () => {
    expect(decodeEntry(new Uint8Array([...bytes, 0]), k)).toBeUndefined();
    expect(decodeEntry(bytes, "1".repeat(64))).toBeUndefined();
    expect(decodeEntry(new Uint8Array(1000).fill(0x41), k)).toBeUndefined();
    expect(decodeEntry(new Uint8Array(ENTRY_HEADER_SIZE), k)).toBeUndefined();
  });
});

describe("FileProgramCache", () => {
  it("stores entries as <key>.entry files, read back by another instance, with no temporary files left", () => {
    const dir = freshDir();
    const k = key();
    const c = counter();
    compileThroughCache(new FileProgramCache({ directory: dir }), k, "cubin", c.compile);
    expect(fs.readdirSync(dir)).toEqual([`${k}.entry`]);
    const other = new FileProgramCache({ directory: dir });
    const hit = compileThroughCache(other, k, "cubin", c.compile);
    expect(hit.hit).toBe(true);
    expect(c.calls()).toBe(1);
    expect(hit.code.symbolMapping).toEqual({ "t<float>": "_Z1tIfEvPT_" });
    expect(other.size).toBe(1);
  });

  it("survives a truncated entry: ignores it, removes it, and the recompile rewrites it", () => {
    const dir = freshDir();
    const cache = new FileProgramCache({ directory: dir });
    const k = key();
    const c = counter();
    compileThroughCache(cache, k, "cubin", c.compile);
    const file = cache.pathOf(k)!;
    const whole = fs.readFileSync(file);
    for (const cut of [0, 10, ENTRY_HEADER_SIZE, whole.length - 1]) {
      fs.writeFileSync(file, whole.subarray(0, cut));
      expect(cache.get(k)).toBeUndefined();
      expect(fs.existsSync(file)).toBe(false);
      const again = compileThroughCache(cache, k, "cubin", c.compile);
      expect(again.hit).toBe(false);
      expect(fs.readFileSync(file)).toEqual(whole);
      expect(compileThroughCache(cache, k, "cubin", c.compile).hit).toBe(true);
    }
    expect(c.calls()).toBe(5);
  });

  it("survives a corrupted entry and garbage in its place", () => {
    const dir = freshDir();
    const cache = new FileProgramCache({ directory: dir });
    const k = key();
    const c = counter();
    compileThroughCache(cache, k, "cubin", c.compile);
    const file = cache.pathOf(k)!;
    const bytes = fs.readFileSync(file);
    bytes[bytes.length - 2] = (bytes[bytes.length - 2] ?? 0) ^ 0xff;
    fs.writeFileSync(file, bytes);
    expect(compileThroughCache(cache, k, "cubin", c.compile).hit).toBe(false);
    fs.writeFileSync(file, "not an entry at all");
    expect(compileThroughCache(cache, k, "cubin", c.compile).hit).toBe(false);
    expect(compileThroughCache(cache, k, "cubin", c.compile).hit).toBe(true);
    expect(c.calls()).toBe(3);
  });

  it("never throws: an unwritable or impossible directory just misses", () => {
    const blocker = path.join(tmpRoot, "a-file");
    fs.writeFileSync(blocker, "x");
    const cache = new FileProgramCache({ directory: path.join(blocker, "cache") });
    const c = counter();
    expect(compileThroughCache(cache, key(), "cubin", c.compile).hit).toBe(false);
    expect(compileThroughCache(cache, key(), "cubin", c.compile).hit).toBe(false);
    expect(c.calls()).toBe(2);
    expect(cache.size).toBe(0);
    expect(cache.delete(key())).toBe(false);
    expect(() => cache.clear()).not.toThrow();
    // A directory where the entry file should be.
    const dir = freshDir();
    const c2 = new FileProgramCache({ directory: dir });
    fs.mkdirSync(c2.pathOf(key())!, { recursive: true });
    expect(c2.get(key())).toBeUndefined();
    expect(() => c2.set(key(), entry())).not.toThrow();
    expect(fs.readdirSync(dir).filter((n) => n.endsWith(".tmp"))).toEqual([]);
  });

  it("hashes keys that are not already hex digests into file names", () => {
    const dir = freshDir();
    const cache = new FileProgramCache({ directory: dir });
    cache.set("../../etc/passwd", entry());
    expect(cache.get("../../etc/passwd")?.code).toEqual(new Uint8Array([1, 2, 3]));
    expect(fs.readdirSync(dir)).toHaveLength(1);
    expect(fs.readdirSync(dir)[0]).toMatch(/^[0-9a-f]{64}\.entry$/);
  });

  it("deletes, clears, and evicts the least recently used past maxBytes", () => {
    const dir = freshDir();
    const size = encodeEntry("a".repeat(64), entry(new Array(100).fill(1))).length;
    const cache = new FileProgramCache({ directory: dir, maxBytes: size * 2 });
    const t0 = Date.now() / 1000 - 100;
    cache.set("a".repeat(64), entry(new Array(100).fill(1)));
    fs.utimesSync(cache.pathOf("a".repeat(64))!, t0, t0);
    cache.set("b".repeat(64), entry(new Array(100).fill(1)));
    fs.utimesSync(cache.pathOf("b".repeat(64))!, t0 + 10, t0 + 10);
    cache.get("a".repeat(64)); // now the most recently used
    cache.set("c".repeat(64), entry(new Array(100).fill(1)));
    expect(cache.size).toBe(2);
    expect(cache.get("b".repeat(64))).toBeUndefined();
    expect(cache.get("a".repeat(64))).toBeDefined();
    expect(cache.delete("a".repeat(64))).toBe(true);
    expect(cache.delete("a".repeat(64))).toBe(false);
    cache.clear();
    expect(cache.size).toBe(0);
    expect(() => new FileProgramCache({ directory: "" })).toThrow(/directory: expected a non-empty string/);
  });

  it("defaults to $XDG_CACHE_HOME/cuda-ts/program-cache, else ~/.cache/cuda-ts/program-cache", () => {
    const saved = { xdg: process.env.XDG_CACHE_HOME, home: process.env.HOME };
    try {
      process.env.XDG_CACHE_HOME = "/x/cache";
      process.env.HOME = "/home/u";
      expect(defaultProgramCacheDirectory()).toBe("/x/cache/cuda-ts/program-cache");
      process.env.XDG_CACHE_HOME = "relative/cache";
      expect(defaultProgramCacheDirectory()).toBe("/home/u/.cache/cuda-ts/program-cache");
      delete process.env.XDG_CACHE_HOME;
      expect(defaultProgramCacheDirectory()).toBe("/home/u/.cache/cuda-ts/program-cache");
      expect(new FileProgramCache().directory).toBe("/home/u/.cache/cuda-ts/program-cache");
    } finally {
      for (const [k, v] of [["XDG_CACHE_HOME", saved.xdg], ["HOME", saved.home]] as const) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  });
});

describe.skipIf(!nvvmPresent)(`Program.compile with a cache, through NVVM${skipNote(!nvvmPresent, "libNVVM not found")}`, () => {
  const ir = (): string => {
    const [a, b, c, d] = nvvm.nvvmIRVersion();
    return `target triple = "nvptx64-unknown-cuda"
target datalayout = "e-p:64:64:64-i1:8:8-i8:8:8-i16:16:16-i32:32:32-i64:64:64-i128:128:128-f32:32:32-f64:64:64-v16:16:16-v32:32:32-v64:64:64-v128:128:128-n16:32:64"
define void @cached(float* %p) {
entry:
  store float 1.0, float* %p, align 4
  ret void
}
!nvvm.annotations = !{!0}
!0 = !{void (float*)* @cached, !"kernel", i32 1}
!nvvmir.version = !{!1}
!1 = !{i32 ${a}, i32 ${b}, i32 ${c}, i32 ${d}}
`;
  };

  it("cache: true uses the default file cache under $XDG_CACHE_HOME, and a corrupted entry is recompiled and rewritten", () => {
    const saved = process.env.XDG_CACHE_HOME;
    process.env.XDG_CACHE_HOME = path.join(tmpRoot, "xdg");
    try {
      new Program(ir(), "nvvm", { arch: "sm_75" }).compile("ptx"); // resolves nvvmCompileProgram before spying
      const spy = vi.spyOn(nvvm, "nvvmCompileProgram");
      const compile = () => new Program(ir(), "nvvm", { arch: "sm_90" }).compile("ptx", { cache: true });
      const first = compile();
      const dir = path.join(tmpRoot, "xdg", "cuda-ts", "program-cache");
      const files = fs.readdirSync(dir);
      expect(files).toHaveLength(1);
      expect(compile().code).toEqual(first.code);
      expect(spy).toHaveBeenCalledTimes(1);
      const file = path.join(dir, files[0]!);
      fs.truncateSync(file, 40);
      expect(compile().code).toEqual(first.code);
      expect(spy).toHaveBeenCalledTimes(2);
      expect(fs.statSync(file).size).toBeGreaterThan(40);
      expect(compile().code).toEqual(first.code);
      expect(spy).toHaveBeenCalledTimes(2);
    } finally {
      if (saved === undefined) delete process.env.XDG_CACHE_HOME;
      else process.env.XDG_CACHE_HOME = saved;
    }
  });

  it("refuses a cache that is not one", () => {
    const p = new Program(ir(), "nvvm", { arch: "sm_90" });
    expect(() => p.compile("ptx", { cache: {} as never })).toThrow(/cache must be a ProgramCache/);
    expect(() => p.compile("ptx", { cache: new InMemoryProgramCache(), cacheDigest: 3 as never })).toThrow(/cacheDigest must be a string or a Uint8Array/);
  });
});

describe("FileProgramCache is private to the user", () => {
  const isRoot = process.platform === "linux" && process.getuid?.() === 0;
  const mode = (p: string): number => fs.statSync(p).mode & 0o777;
  /** A cache over `dir` whose refusals are collected. */
  const watched = (dir: string): { cache: FileProgramCache; refused: string[] } => {
    const refused: string[] = [];
    return { cache: new FileProgramCache({ directory: dir, onInsecure: (e) => refused.push(`${e.path}: ${e.message}`) }), refused };
  };
  /** A valid entry for key() planted in `dir` (as another user could write it). */
  const plant = (dir: string): string => {
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, `${key()}.entry`);
    fs.writeFileSync(file, encodeEntry(key(), entry([9, 9, 9])));
    fs.chmodSync(file, 0o600);
    return file;
  };

  it("creates the directory and its missing parents 0700, entry files 0600", () => {
    const top = freshDir();
    const dir = path.join(top, "cuda-ts", "program-cache");
    const { cache, refused } = watched(dir);
    compileThroughCache(cache, key(), "cubin", counter().compile);
    for (const d of [top, path.join(top, "cuda-ts"), dir]) expect(mode(d)).toBe(0o700);
    expect(mode(cache.pathOf(key())!)).toBe(0o600);
    expect(refused).toEqual([]);
    expect(cache.get(key())?.code).toBeInstanceOf(Uint8Array);
  });

  it("refuses a directory of mode 0777 with a warning naming it: a planted valid entry is not loaded, nothing is written", () => {
    const dir = freshDir();
    plant(dir);
    fs.chmodSync(dir, 0o777);
    const { cache, refused } = watched(dir);
    const c = counter();
    expect(compileThroughCache(cache, key(), "cubin", c.compile).hit).toBe(false);
    expect(c.calls()).toBe(1);
    expect(refused).toEqual([expect.stringMatching(new RegExp(`^${dir}: ${dir} has mode 0777, writable by group or others: refusing to trust it. Run chmod 700`))]);
    expect(fs.readFileSync(cache.pathOf(key())!)).toEqual(Buffer.from(encodeEntry(key(), entry([9, 9, 9])))); // not overwritten
    expect(cache.size).toBe(0);
    fs.chmodSync(dir, 0o700);
    expect(cache.get(key())?.code).toEqual(new Uint8Array([9, 9, 9])); // trusted again once private
  });

  it("refuses a directory below one others can write (without the sticky bit)", () => {
    const open = freshDir();
    const dir = path.join(open, "cache");
    plant(dir);
    fs.chmodSync(open, 0o777);
    const { cache, refused } = watched(dir);
    expect(cache.get(key())).toBeUndefined();
    expect(refused).toEqual([expect.stringContaining(`${open}, above ${dir}, has mode 0777, writable by group or others without the sticky bit`)]);
    fs.chmodSync(open, 0o1777); // sticky, like /tmp: others cannot replace what they do not own
    expect(watched(dir).cache.get(key())?.code).toEqual(new Uint8Array([9, 9, 9]));
  });

  it("refuses an entry file writable by others, or a link, naming the file, and leaves it in place", () => {
    const dir = freshDir();
    const file = plant(dir);
    fs.chmodSync(file, 0o666);
    const { cache, refused } = watched(dir);
    expect(cache.get(key())).toBeUndefined();
    expect(refused).toEqual([expect.stringContaining(`${file} has mode 0666, writable by group or others`)]);
    expect(fs.existsSync(file)).toBe(true);
    const dir2 = freshDir();
    const target = plant(dir2);
    const link = path.join(dir, `${"a".repeat(64)}.entry`);
    fs.symlinkSync(target, link);
    const w = watched(dir);
    expect(w.cache.get("a".repeat(64))).toBeUndefined();
    expect(w.refused).toEqual([expect.stringContaining(`${link} is not a regular file`)]);
  });

  it(`refuses a directory or an entry owned by another user${isRoot ? "" : " [skipped: chown to another user needs root (CI runs as root)]"}`, (ctx) => {
    requireTwoUsers(ctx);
    const dir = freshDir();
    const file = plant(dir);
    fs.chownSync(dir, 65534, 65534);
    const { cache, refused } = watched(dir);
    const c = counter();
    expect(compileThroughCache(cache, key(), "cubin", c.compile).hit).toBe(false);
    expect(refused).toEqual([expect.stringContaining(`${dir} is owned by uid 65534, not by this user (uid 0)`)]);
    fs.chownSync(dir, 0, 0);
    fs.chownSync(file, 65534, 65534);
    const w = watched(dir);
    expect(w.cache.get(key())).toBeUndefined();
    expect(w.refused).toEqual([expect.stringContaining(`${file} is owned by uid 65534, not by this user (uid 0)`)]);
  });

  it("warns on the console by default, once per path", () => {
    const dir = freshDir();
    plant(dir);
    fs.chmodSync(dir, 0o770);
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const cache = new FileProgramCache({ directory: dir });
    cache.get(key());
    cache.get(key());
    new FileProgramCache({ directory: dir }).get(key());
    expect(warn).toHaveBeenCalledTimes(1);
    expect(String(warn.mock.calls[0]?.[0])).toMatch(new RegExp(`^cuda-ts: compile cache: ${dir} has mode 0770`));
    expect(() => new FileProgramCache({ directory: dir, onInsecure: 3 as never })).toThrow(/onInsecure: expected a function/);
  });
});
