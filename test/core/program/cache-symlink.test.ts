/**
 * The compile cache against another user's symbolic links (FileProgramCache, src/host.ts's no-follow primitives):
 * an entry or a directory reached through a link another user owns is refused and its content never returned, also
 * while that user flips the link in a loop as this process looks entries up (the check-then-open race); links this
 * user owns keep their behaviour (a linked directory is used, a linked entry file is refused); clean-up removes only
 * regular files of this user. The two-user tests run as root (CI does) with a throwaway account (test/support/two-users.ts).
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compileThroughCache } from "../../../src/core/program/cache.ts";
import { encodeEntry, type CachedProgram } from "../../../src/core/program/cache-entry.ts";
import { FileProgramCache } from "../../../src/core/program/cache-file.ts";
import { ObjectCode } from "../../../src/core/program/object-code.ts";
import { otherUser, requireTwoUsers } from "../../support/two-users.ts";

const CHILD = path.join(import.meta.dirname ?? path.dirname(new URL(import.meta.url).pathname), "cache-flip-child.ts");
const KEY = "c".repeat(64);
const OURS = [0x0a, 0x0b, 0x0c];
const THEIRS = [0xee, 0xee, 0xee, 0xee];
const entry = (code: number[]): CachedProgram => ({ format: "cubin", code: new Uint8Array(code), name: "n", symbolMapping: { "k<int>": "_Z1kIiEvv" } });
const same = (a: Uint8Array | undefined, b: number[]): boolean => a !== undefined && a.length === b.length && a.every((x, i) => x === b[i]);

let top: string;
let n = 0;
beforeAll(() => {
  // Traversable by the other user (0755, root's), so that it can reach the shared folder below.
  top = fs.mkdtempSync(path.join(os.tmpdir(), "cuda-ts-cache-links-"));
  fs.chmodSync(top, 0o755);
});
afterAll(() => fs.rmSync(top, { recursive: true, force: true }));

/** A fresh private directory of this user (0700) holding our entry for KEY. */
function ourDirectory(): string {
  const dir = path.join(top, `ours-${++n}`);
  fs.mkdirSync(dir, { mode: 0o700 });
  fs.writeFileSync(path.join(dir, `${KEY}.entry`), encodeEntry(KEY, entry(OURS)), { mode: 0o600 });
  return dir;
}
/** A fresh sticky folder everyone may write (like /tmp). */
function sharedFolder(): string {
  const dir = path.join(top, `shared-${++n}`);
  fs.mkdirSync(dir);
  fs.chmodSync(dir, 0o1777);
  return dir;
}
function watched(dir: string): { cache: FileProgramCache; refused: string[] } {
  const refused: string[] = [];
  return { cache: new FileProgramCache({ directory: dir, onInsecure: (e) => refused.push(e.message) }), refused };
}

describe("FileProgramCache and another user's links", () => {
  const other = otherUser();
  /** A private directory of the other user (0700, theirs) holding their valid entry for KEY (0600, theirs). */
  const theirDirectory = (): string => {
    const dir = path.join(other.scratch, `theirs-${++n}`);
    fs.mkdirSync(dir, { mode: 0o700 });
    const file = path.join(dir, `${KEY}.entry`);
    fs.writeFileSync(file, encodeEntry(KEY, entry(THEIRS)), { mode: 0o600 });
    fs.chownSync(dir, other.uid, other.gid);
    fs.chownSync(file, other.uid, other.gid);
    return dir;
  };

  it("refuses an entry that is a link another user owns, and never returns its content", (ctx) => {
    requireTwoUsers(ctx, other);
    const dir = ourDirectory();
    const theirs = path.join(theirDirectory(), `${KEY}.entry`);
    const k2 = "d".repeat(64);
    const link = path.join(dir, `${k2}.entry`);
    fs.writeFileSync(theirs, encodeEntry(k2, entry(THEIRS)));
    fs.symlinkSync(theirs, link);
    fs.lchownSync(link, other.uid, other.gid);
    const { cache, refused } = watched(dir);
    expect(cache.get(k2)).toBeUndefined();
    expect(refused).toEqual([expect.stringContaining(`${link} is not a regular file (a symbolic link owned by uid ${other.uid}, not followed)`)]);
    expect(fs.lstatSync(link).isSymbolicLink()).toBe(true); // left in place: not ours to remove
    expect(fs.readFileSync(theirs)).toEqual(Buffer.from(encodeEntry(k2, entry(THEIRS))));
    // A hard link to their file in our directory is theirs too (fstat of the opened file says their uid).
    const k3 = "e".repeat(64);
    const hard = path.join(dir, `${k3}.entry`);
    fs.writeFileSync(path.join(path.dirname(theirs), "h"), encodeEntry(k3, entry(THEIRS)));
    fs.chownSync(path.join(path.dirname(theirs), "h"), other.uid, other.gid);
    fs.linkSync(path.join(path.dirname(theirs), "h"), hard);
    expect(cache.get(k3)).toBeUndefined();
    expect(refused[1]).toContain(`${hard} is owned by uid ${other.uid}, not by this user (uid 0)`);
    // Our own entry beside them is still read.
    expect(same(cache.get(KEY)?.code, OURS)).toBe(true);
  });

  it("refuses a directory reached through a link another user owns (in a sticky folder), or below their directory", (ctx) => {
    requireTwoUsers(ctx, other);
    const ours = ourDirectory();
    const shared = sharedFolder();
    const link = path.join(shared, "cache");
    fs.symlinkSync(ours, link);
    fs.lchownSync(link, other.uid, other.gid);
    const { cache, refused } = watched(link);
    const c = counter();
    expect(compileThroughCache(cache, KEY, "cubin", c.compile).hit).toBe(false); // our entry, but through their link
    expect(refused).toEqual([expect.stringContaining(`${link} is a symbolic link owned by uid ${other.uid}, neither this user (uid 0) nor root`)]);
    expect(fs.readdirSync(ours)).toEqual([`${KEY}.entry`]); // nothing written through it
    // A link of ours in the same folder to the same directory is fine.
    const mine = path.join(shared, "mine");
    fs.symlinkSync(ours, mine);
    expect(same(new FileProgramCache({ directory: mine }).get(KEY)?.code, OURS)).toBe(true);
    // A link of ours whose target passes through their directory is not.
    const viaTheirs = path.join(shared, "via-theirs");
    fs.symlinkSync(theirDirectory(), viaTheirs);
    const w = watched(viaTheirs);
    expect(w.cache.get(KEY)).toBeUndefined();
    expect(w.refused).toEqual([expect.stringContaining(`is owned by uid ${other.uid}`)]);
  });

  it("race: another user flips a link between our entry's directory and theirs; 0 of 20,000 lookups return theirs", async (ctx) => {
    requireTwoUsers(ctx, other);
    const ours = ourDirectory();
    const theirs = theirDirectory();
    const shared = sharedFolder();
    const link = path.join(shared, "cache");
    const stop = path.join(shared, "stop");
    let ready!: () => void;
    const started = new Promise<void>((r) => (ready = r));
    const child = other.run(CHILD, [link, ours, theirs, stop], { timeoutMs: 120_000, onStdout: (t) => t.includes("ready") && ready() });
    await Promise.race([started, child.then((r) => Promise.reject(new Error(`the flipping child exited early (${r.code}): ${r.stderr.slice(0, 500)}`)))]);
    const lookups = 20_000;
    const seen = { ours: 0, theirs: 0, none: 0, linkToOurs: 0, linkToTheirs: 0, controlTheirs: 0 };
    const refused: string[] = [];
    // One cache as the user keeps one, and a fresh one per lookup (no state carried between checks).
    const kept = new FileProgramCache({ directory: link, onInsecure: (e) => refused.push(e.message) });
    try {
      for (let i = 0; i < lookups; i++) {
        const cache = i % 2 === 0 ? kept : new FileProgramCache({ directory: link, onInsecure: (e) => refused.push(e.message) });
        const code = cache.get(KEY)?.code;
        if (same(checkThenOpen(link), THEIRS)) seen.controlTheirs++;
        if (same(code, THEIRS)) seen.theirs++;
        else if (same(code, OURS)) seen.ours++;
        else seen.none++;
        try {
          if (fs.readlinkSync(link) === ours) seen.linkToOurs++;
          else seen.linkToTheirs++;
        } catch {
          // Between the child's unlink and rename of its spare link: the link itself always exists.
        }
      }
    } finally {
      fs.writeFileSync(stop, "");
    }
    const r = await child;
    const flips = Number(/flips (\d+)/.exec(r.stdout)?.[1] ?? 0);
    console.log(`cache link race: ${lookups} lookups while uid ${other.uid} flipped the link ${flips} times: ours ${seen.ours}, theirs ${seen.theirs}, none ${seen.none}; the link was seen pointing at ours ${seen.linkToOurs} times, at theirs ${seen.linkToTheirs}; the old check-then-open control read theirs ${seen.controlTheirs} times`);
    expect(r.code, r.stderr).toBe(0);
    expect(seen.theirs).toBe(0);
    expect(seen.ours + seen.none).toBe(lookups);
    // The race was real: the link moved during the lookups, both ways.
    expect(flips).toBeGreaterThan(100);
    expect(seen.linkToOurs).toBeGreaterThan(0);
    expect(seen.linkToTheirs).toBeGreaterThan(0);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.every((m) => m.includes(`is a symbolic link owned by uid ${other.uid}`))).toBe(true);
    expect(fs.readFileSync(path.join(theirs, `${KEY}.entry`))).toEqual(Buffer.from(encodeEntry(KEY, entry(THEIRS)))); // untouched
  }, 120_000);

  it("clean-up (a bad entry, delete, clear, eviction, stale temporary files) removes only regular files of this user", (ctx) => {
    requireTwoUsers(ctx, other);
    const dir = ourDirectory();
    const outside = path.join(top, `outside-${++n}`);
    fs.writeFileSync(outside, "precious");
    const theirName = `${"1".repeat(64)}.entry`;
    const linkName = `${"2".repeat(64)}.entry`;
    const staleTheirs = `.${"3".repeat(64)}.entry.aaaa.tmp`;
    const staleLink = `.${"4".repeat(64)}.entry.bbbb.tmp`;
    fs.writeFileSync(path.join(dir, theirName), "not an entry", { mode: 0o600 });
    fs.chownSync(path.join(dir, theirName), other.uid, other.gid);
    fs.symlinkSync(outside, path.join(dir, linkName));
    fs.writeFileSync(path.join(dir, staleTheirs), "x");
    fs.chownSync(path.join(dir, staleTheirs), other.uid, other.gid);
    fs.symlinkSync(outside, path.join(dir, staleLink));
    const old = Date.now() / 1000 - 7200;
    for (const f of [staleTheirs, staleLink]) fs.lutimesSync(path.join(dir, f), old, old);
    const cache = new FileProgramCache({ directory: dir, maxBytes: 1, onInsecure: () => {} });
    expect(cache.get("1".repeat(64))).toBeUndefined(); // refused, so not removed as a bad entry
    expect(cache.get("2".repeat(64))).toBeUndefined();
    expect(cache.delete("1".repeat(64))).toBe(false);
    expect(cache.delete("2".repeat(64))).toBe(false);
    expect(cache.size).toBe(1); // only our own entry counts
    new FileProgramCache({ directory: dir, maxBytes: 10_000 }).set("5".repeat(64), entry([1])); // eviction and stale temporary files run
    cache.set("6".repeat(64), entry([2])); // maxBytes 1: too big to store, nothing evicted
    cache.clear();
    const left = fs.readdirSync(dir).sort();
    expect(left).toEqual([staleTheirs, staleLink, theirName, linkName].sort());
    expect(fs.readFileSync(outside, "utf8")).toBe("precious");
  });
});

describe("FileProgramCache and this user's own links", () => {
  it("uses a directory reached through a link this user owns, and refuses an entry file that is a link (as before)", () => {
    const ours = ourDirectory();
    const via = path.join(top, `via-${++n}`);
    fs.symlinkSync(ours, via);
    const { cache, refused } = watched(via);
    expect(same(cache.get(KEY)?.code, OURS)).toBe(true);
    const c = counter();
    expect(compileThroughCache(cache, "f".repeat(64), "cubin", c.compile).hit).toBe(false);
    expect(compileThroughCache(cache, "f".repeat(64), "cubin", c.compile).hit).toBe(true);
    expect(fs.existsSync(path.join(ours, `${"f".repeat(64)}.entry`))).toBe(true); // written in the real directory
    expect(refused).toEqual([]);
    // An entry file that is a link of ours to our own private entry: refused, as the cache always did (it reads
    // regular files only), and left in place.
    const k = "9".repeat(64);
    const target = path.join(top, `private-${++n}`);
    fs.writeFileSync(target, encodeEntry(k, entry(OURS)), { mode: 0o600 });
    const link = path.join(ours, `${k}.entry`);
    fs.symlinkSync(target, link);
    expect(cache.get(k)).toBeUndefined();
    expect(refused).toEqual([expect.stringContaining(`${link} is not a regular file (a symbolic link owned by uid ${process.getuid?.()}, not followed)`)]);
    expect(fs.lstatSync(link).isSymbolicLink()).toBe(true);
  });

  it("follows relative links and `..` the way the kernel does, and refuses a loop", () => {
    const ours = ourDirectory();
    const base = path.join(top, `rel-${++n}`);
    fs.mkdirSync(path.join(base, "a", "b"), { recursive: true, mode: 0o700 });
    fs.symlinkSync(path.join("..", "..", path.basename(ours)), path.join(base, "a", "b", "up"));
    fs.symlinkSync(`../../${path.basename(base)}/a/b/../../../${path.basename(ours)}`, path.join(base, "a", "twisty"));
    fs.symlinkSync("loop", path.join(base, "loop"));
    // base/a/b/up resolves against base/a/b: ../.. is base, so the link names base/<ours' name>, which does not exist.
    expect(new FileProgramCache({ directory: path.join(base, "a", "b", "up") }).get(KEY)).toBeUndefined();
    fs.symlinkSync(ours, path.join(base, path.basename(ours)));
    expect(same(new FileProgramCache({ directory: path.join(base, "a", "b", "up") }).get(KEY)?.code, OURS)).toBe(true);
    expect(same(new FileProgramCache({ directory: path.join(base, "a", "twisty") }).get(KEY)?.code, OURS)).toBe(true);
    const w = watched(path.join(base, "loop"));
    expect(w.cache.get(KEY)).toBeUndefined();
    expect(w.refused).toEqual([expect.stringContaining("more than 40 symbolic links on the way")]);
  });
});

/**
 * The control: the cache's former lookup, which checked the path (the directory's real path and owners, the file's
 * owner by lstat through the link) and then opened the path again by name. Its leaks are printed, not asserted
 * (the window is narrow: a few in 20,000 where the race was found).
 */
function checkThenOpen(dir: string): Uint8Array | undefined {
  try {
    const real = fs.realpathSync(dir);
    const d = fs.statSync(real);
    if (!d.isDirectory() || d.uid !== process.getuid?.() || (d.mode & 0o022) !== 0) return undefined;
    const file = path.join(dir, `${KEY}.entry`);
    const st = fs.lstatSync(file);
    if (!st.isFile() || st.uid !== process.getuid?.() || (st.mode & 0o022) !== 0) return undefined;
    const bytes = new Uint8Array(fs.readFileSync(file));
    return bytes.subarray(bytes.length - THEIRS.length);
  } catch {
    return undefined;
  }
}

/** A compile step that counts its calls. */
function counter(): { compile: () => ObjectCode; calls: () => number } {
  let calls = 0;
  return {
    compile: () => {
      calls++;
      return ObjectCode.fromCubin(new Uint8Array([7, 7]), { name: "p" });
    },
    calls: () => calls,
  };
}
