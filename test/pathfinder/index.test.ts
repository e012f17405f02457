import * as nodePath from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import * as pathfinder from "../../src/pathfinder/index.ts";
import { FakeLoader, makeTempDir, makeTree, removeDir, sitePackages } from "./fixtures.ts";

const tmp = makeTempDir();
afterAll(() => {
  removeDir(tmp);
  pathfinder.setDefaultPathfinderOptions({});
});

describe("src/pathfinder/index.ts", () => {
  it("exports the public API", () => {
    for (const name of [
      "loadNvidiaLibrary",
      "findNvidiaLibrary",
      "tryFindNvidiaLibrary",
      "findNvidiaHeaderDirectory",
      "tryFindNvidiaHeaderDirectory",
      "findNvidiaBinaryUtility",
      "tryFindNvidiaBinaryUtility",
      "findBitcodeLibrary",
      "tryFindBitcodeLibrary",
      "findStaticLibrary",
      "tryFindStaticLibrary",
      "findCudaRoot",
      "tryFindCudaRoot",
      "getCudaPathOrHome",
      "surveyNvidiaLibraries",
      "clearPathfinderCache",
      "setDefaultPathfinderOptions",
      "defaultPathfinder",
      "overrideVariable",
      "libraryDescriptor",
      "parseLdCache",
      "unavailableLoader",
    ] as const) {
      expect(typeof pathfinder[name], name).toBe("function");
    }
    for (const name of [
      "Pathfinder",
      "PathfinderError",
      "LibraryNotFoundError",
      "UnknownLibraryError",
      "UnknownNameError",
      "InvalidOverrideError",
      "HeaderDirectoryNotFoundError",
      "BinaryUtilityNotFoundError",
      "BitcodeLibraryNotFoundError",
      "StaticLibraryNotFoundError",
      "CudaRootNotFoundError",
    ] as const) {
      expect(typeof pathfinder[name], name).toBe("function");
    }
    expect(pathfinder.LibraryNotFoundError.prototype).toBeInstanceOf(pathfinder.NotFoundError);
    expect(pathfinder.UnknownLibraryError.prototype).toBeInstanceOf(pathfinder.PathfinderError);
    expect(pathfinder.SUPPORTED_LIBRARY_NAMES).toContain("cudart");
  });

  it("runs the module-level functions on a replaceable shared pathfinder, with a clearable cache", () => {
    const venv = nodePath.join(tmp, "venv");
    makeTree(sitePackages(venv), { "nvidia/cu13/lib/libcudart.so.13": "file" });
    const loader = new FakeLoader();
    pathfinder.setDefaultPathfinderOptions({
      env: { VIRTUAL_ENV: venv },
      loader,
      defaultRoot: null,
      ldSoCachePath: null,
      systemLibraryDirectories: [],
    });
    const first = pathfinder.loadNvidiaLibrary("cudart");
    expect(first.foundVia).toBe("site-packages");
    expect(pathfinder.loadNvidiaLibrary("cudart")).toBe(first);
    pathfinder.clearPathfinderCache();
    expect(pathfinder.loadNvidiaLibrary("cudart")).not.toBe(first);
    expect(loader.loads).toHaveLength(2);
    expect(pathfinder.tryFindNvidiaHeaderDirectory("cudart")).toBeUndefined();
    expect(pathfinder.surveyNvidiaLibraries().find((e) => e.name === "cudart")?.found).toBe(true);
  });

  it("the unavailable loader loads nothing and says why", () => {
    const loader = pathfinder.unavailableLoader("no FFI here");
    expect(loader.isLoaded("libc.so.6")).toBeNull();
    expect(loader.load("/lib/libc.so.6")).toEqual({ ok: false, error: "no FFI here" });
  });
});
