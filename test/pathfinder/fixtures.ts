/**
 * Test helpers for the pathfinder: fake directory trees in a temporary directory, a fake dynamic loader that
 * "loads" any existing absolute file and records its calls, and options that isolate a {@link Pathfinder} from the
 * real machine (injected environment, no ld.so cache, no system directories, an injected default root).
 *
 * @module
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as nodePath from "node:path";
import type { Pointer } from "../../src/ffi/types.ts";
import type { DynamicLoader, LoadedHandle, LoadOutcome } from "../../src/pathfinder/loader.ts";
import type { PathfinderOptions } from "../../src/pathfinder/context.ts";
import { Pathfinder } from "../../src/pathfinder/pathfinder.ts";

/** What to create at a path in a fake tree. */
export type TreeEntry = "file" | "exec" | "dir" | { readonly link: string } | { readonly content: Uint8Array };

/** Creates a fresh temporary directory. */
export function makeTempDir(prefix = "cuda-ts-pathfinder-"): string {
  return fs.realpathSync(fs.mkdtempSync(nodePath.join(os.tmpdir(), prefix)));
}

/** Removes a temporary directory tree. */
export function removeDir(dir: string): void {
  fs.rmSync(dir, { recursive: true, force: true });
}

/** Creates the entries of `tree` (paths relative to `root`; parents are created). Returns `root`. */
export function makeTree(root: string, tree: Readonly<Record<string, TreeEntry>>): string {
  for (const [relative, entry] of Object.entries(tree)) {
    const path = nodePath.join(root, relative);
    fs.mkdirSync(nodePath.dirname(path), { recursive: true });
    if (entry === "dir") fs.mkdirSync(path, { recursive: true });
    else if (entry === "file") fs.writeFileSync(path, "");
    else if (entry === "exec") {
      fs.writeFileSync(path, "#!/bin/sh\n");
      fs.chmodSync(path, 0o755);
    } else if ("link" in entry) fs.symlinkSync(entry.link, path);
    else fs.writeFileSync(path, entry.content);
  }
  return root;
}

/** One call the fake loader received. */
export interface LoaderCall {
  readonly op: "isLoaded" | "load";
  readonly file: string;
}

/** A fake pointer for a fake handle (tests never dereference it). */
export function fakeHandle(path: string): Pointer {
  return { fakeHandleFor: path } as unknown as Pointer;
}

/**
 * A loader that loads any existing absolute regular file, refuses bare sonames and relative paths (like a system
 * loader that finds nothing), and records every call. `preloaded` maps sonames to paths "already in the process";
 * `failing` lists paths whose load fails.
 */
export class FakeLoader implements DynamicLoader {
  readonly calls: LoaderCall[] = [];
  readonly preloaded = new Map<string, string>();
  readonly failing = new Set<string>();
  /** Sonames the "system loader" resolves when asked for a bare soname. */
  readonly bareSonames = new Map<string, string>();

  isLoaded(soname: string): LoadedHandle | null {
    this.calls.push({ op: "isLoaded", file: soname });
    const path = this.preloaded.get(soname);
    return path === undefined ? null : { path, handle: fakeHandle(path) };
  }

  load(file: string): LoadOutcome {
    this.calls.push({ op: "load", file });
    if (!file.includes("/")) {
      const path = this.bareSonames.get(file);
      return path === undefined ? { ok: false, error: `${file}: cannot open shared object file` } : { ok: true, path, handle: fakeHandle(path) };
    }
    if (!file.startsWith("/")) return { ok: false, error: `refusing relative path ${file}` };
    if (this.failing.has(file)) return { ok: false, error: `${file}: wrong ELF class` };
    let isFile = false;
    try {
      isFile = fs.statSync(file).isFile();
    } catch {
      isFile = false;
    }
    return isFile ? { ok: true, path: file, handle: fakeHandle(file) } : { ok: false, error: `${file}: no such file` };
  }

  /** The files passed to `load`, in order. */
  get loads(): string[] {
    return this.calls.filter((c) => c.op === "load").map((c) => c.file);
  }
}

/** A pathfinder with warnings collected, isolated from the machine unless `options` says otherwise. */
export interface TestPathfinder {
  readonly pathfinder: Pathfinder;
  readonly loader: FakeLoader;
  readonly warnings: string[];
}

/** Builds an isolated pathfinder: injected `env`, fake loader, no ld.so cache, no system directories, no default root. */
export function isolatedPathfinder(env: Record<string, string | undefined>, options: PathfinderOptions = {}): TestPathfinder {
  const loader = options.loader instanceof FakeLoader ? options.loader : new FakeLoader();
  const warnings: string[] = [];
  const pathfinder = new Pathfinder({
    env,
    loader,
    defaultRoot: null,
    ldSoCachePath: null,
    systemLibraryDirectories: [],
    architecture: "x64",
    warn: (message) => warnings.push(message),
    ...options,
  });
  return { pathfinder, loader, warnings };
}

/** The `site-packages` directory of a fake virtualenv under `venv`. */
export function sitePackages(venv: string, python = "python3.12"): string {
  return nodePath.join(venv, "lib", python, "site-packages");
}

/** Catches what `run` throws (fails the test when it throws nothing). */
export function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error("expected an error to be thrown");
}
