/**
 * Locates libclang the way users expect: the LIBCLANG_PATH override, then `llvm-config --libdir`, then
 * /usr/lib/llvm-N/lib (newest N first), then the loader's cache (`ldconfig -p`).
 */
import { closeSync, existsSync, openSync, readdirSync, readSync, statSync } from "node:fs";
import { join } from "node:path";

/** Where libclang was found and how. */
export interface LibclangLocation {
  path: string;
  foundVia: "LIBCLANG_PATH" | "llvm-config" | "/usr/lib/llvm-*" | "ldconfig";
  /** clang's resource directory (stddef.h and friends), when found beside it. */
  resourceDir: string | undefined;
}

/**
 * Raised when no libclang can be found; lists every place searched (or, given `problem`, says in one line what is
 * wrong with the one place the user named).
 */
export class LibclangNotFoundError extends Error {
  constructor(readonly searched: string[], problem?: string) {
    super(
      problem ??
        "libclang was not found. Searched:\n" +
          searched.map((s) => `  - ${s}`).join("\n") +
          "\nInstall it (Debian/Ubuntu: `apt-get install libclang1-19 libclang-common-19-dev`) or set LIBCLANG_PATH " +
          "to the library file (or a directory holding libclang.so*).",
    );
    this.name = "LibclangNotFoundError";
  }
}

/** Whether the file starts with the ELF magic number (a shared library, not a text file or a script). */
function isElf(path: string): boolean {
  let fd: number | undefined;
  try {
    fd = openSync(path, "r");
    const head = new Uint8Array(4);
    return readSync(fd, head, 0, 4, 0) === 4 && head[0] === 0x7f && head[1] === 0x45 && head[2] === 0x4c && head[3] === 0x46;
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function libclangIn(dir: string): string | undefined {
  if (!existsSync(dir)) return undefined;
  const names = readdirSync(dir).filter((n) => /^libclang(-\d+)?\.so(\.\d+)*$/.test(n));
  // Prefer the versioned soname files (libclang-19.so.1, libclang.so.1) over the bare dev link.
  names.sort((a, b) => b.length - a.length || (a < b ? 1 : -1));
  for (const n of names) {
    const p = join(dir, n);
    try {
      if (statSync(p).isFile()) return p;
    } catch {
      // broken link
    }
  }
  return undefined;
}

function resourceDirFor(libPath: string): string | undefined {
  // Debian: /usr/lib/llvm-19/lib/libclang-19.so.1 → /usr/lib/llvm-19/lib/clang/19
  const libDir = libPath.slice(0, libPath.lastIndexOf("/"));
  const clangDir = join(libDir, "clang");
  if (!existsSync(clangDir)) return undefined;
  const versions = readdirSync(clangDir)
    .filter((v) => existsSync(join(clangDir, v, "include", "stddef.h")))
    .sort((a, b) => parseInt(b) - parseInt(a));
  return versions[0] === undefined ? undefined : join(clangDir, versions[0]);
}

function run(cmd: string[]): string | undefined {
  try {
    const out = new Deno.Command(cmd[0]!, { args: cmd.slice(1), stdout: "piped", stderr: "null" }).outputSync();
    return out.success ? new TextDecoder().decode(out.stdout) : undefined;
  } catch {
    return undefined;
  }
}

/** Finds libclang; throws {@link LibclangNotFoundError} listing the places searched. */
export function findLibclang(env: Record<string, string | undefined> = Deno.env.toObject()): LibclangLocation {
  const searched: string[] = [];
  const found = (path: string, foundVia: LibclangLocation["foundVia"]): LibclangLocation => ({
    path,
    foundVia,
    resourceDir: resourceDirFor(path),
  });
  const override = env.LIBCLANG_PATH;
  if (override) {
    searched.push(`LIBCLANG_PATH=${override}`);
    if (existsSync(override) && statSync(override).isFile()) {
      if (isElf(override)) return found(override, "LIBCLANG_PATH");
      throw new LibclangNotFoundError(
        searched,
        `LIBCLANG_PATH=${override} is not a shared library (no ELF header). Set it to libclang's .so file (such as ` +
          "/usr/lib/llvm-19/lib/libclang-19.so.1) or to a folder holding libclang.so*, or unset it.",
      );
    }
    const inDir = libclangIn(override);
    if (inDir) return found(inDir, "LIBCLANG_PATH");
    throw new LibclangNotFoundError([...searched, "(LIBCLANG_PATH is set but holds no libclang; fix or unset it)"]);
  }
  const libdir = run(["llvm-config", "--libdir"])?.trim();
  searched.push(libdir ? `llvm-config --libdir (${libdir})` : "llvm-config (not on PATH)");
  if (libdir) {
    const p = libclangIn(libdir);
    if (p) return found(p, "llvm-config");
  }
  const llvmDirs = existsSync("/usr/lib")
    ? readdirSync("/usr/lib")
        .filter((d) => /^llvm-\d+$/.test(d))
        .sort((a, b) => parseInt(b.slice(5)) - parseInt(a.slice(5)))
    : [];
  for (const d of llvmDirs) {
    const dir = `/usr/lib/${d}/lib`;
    searched.push(dir);
    const p = libclangIn(dir);
    if (p) return found(p, "/usr/lib/llvm-*");
  }
  if (llvmDirs.length === 0) searched.push("/usr/lib/llvm-* (none)");
  const cache = run(["ldconfig", "-p"]) ?? run(["/sbin/ldconfig", "-p"]);
  searched.push("ldconfig -p");
  if (cache) {
    const hits = cache
      .split("\n")
      .map((l) => /^\s*(libclang[^\s]*\.so[^\s]*) .*=> (.*)$/.exec(l))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => m[2]!.trim())
      .sort()
      .reverse();
    if (hits[0]) return found(hits[0], "ldconfig");
  }
  throw new LibclangNotFoundError(searched);
}
