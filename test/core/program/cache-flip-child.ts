/**
 * Run as another user by cache-symlink.test.ts: flips the symbolic link `link` between `a` and `b` (a fresh link
 * renamed over it each time, so the link always exists) until the file `stop` appears, then prints how many flips.
 * Links are made through node:fs on Bun and through libc on Deno (the child has no --allow-write there).
 *
 * Usage: cache-flip-child.ts <link> <a> <b> <stop>
 */
import * as fs from "node:fs";

interface DenoLike {
  args: string[];
  dlopen(path: string, symbols: Record<string, { parameters: string[]; result: string }>): { symbols: Record<string, (...a: unknown[]) => number> };
}
const deno = (globalThis as unknown as { Deno?: DenoLike }).Deno;
const args = deno !== undefined ? deno.args : process.argv.slice(2);
const [link, a, b, stop] = args as [string, string, string, string];

let symlink: (target: string, path: string) => void;
let rename: (from: string, to: string) => void;
let unlink: (path: string) => void;
if (deno !== undefined) {
  const libc = deno.dlopen("libc.so.6", {
    symlink: { parameters: ["buffer", "buffer"], result: "i32" },
    rename: { parameters: ["buffer", "buffer"], result: "i32" },
    unlink: { parameters: ["buffer"], result: "i32" },
  }).symbols;
  const c = (s: string): Uint8Array => new TextEncoder().encode(`${s}\0`);
  symlink = (t, p) => {
    if (libc.symlink!(c(t), c(p)) !== 0) throw new Error(`symlink ${p} failed`);
  };
  rename = (f, t) => {
    if (libc.rename!(c(f), c(t)) !== 0) throw new Error(`rename ${f} failed`);
  };
  unlink = (p) => void libc.unlink!(c(p));
} else {
  symlink = (t, p) => fs.symlinkSync(t, p);
  rename = (f, t) => fs.renameSync(f, t);
  unlink = (p) => {
    try {
      fs.unlinkSync(p);
    } catch {
      // Not there.
    }
  };
}

let flips = 0;
for (;;) {
  const tmp = `${link}.flip${flips % 2}`;
  unlink(tmp);
  symlink(flips % 2 === 0 ? b : a, tmp);
  rename(tmp, link);
  flips++;
  if (flips === 1) console.log("ready");
  if (flips % 32 === 0 && fs.existsSync(stop)) break;
}
console.log(`flips ${flips}`);
