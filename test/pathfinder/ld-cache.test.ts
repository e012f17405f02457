import { describe, expect, it } from "vitest";
import { buildLdCache, entryMatchesArchitecture, parseLdCache } from "../../src/pathfinder/ld-cache.ts";
import { baseName, joinPath, normalizePath, parentDirectory } from "../../src/pathfinder/paths.ts";
import { toolkitRootOfLibraryDirectory } from "../../src/pathfinder/roots.ts";

describe("ld.so cache", () => {
  it("parses what it builds (current layout)", () => {
    const bytes = buildLdCache([
      { soname: "libcuda.so.1", path: "/usr/lib/x86_64-linux-gnu/libcuda.so.1" },
      { soname: "libcudart.so.13", path: "/usr/local/cuda-13.0/lib/libcudart.so.13", flags: 0x0a03 },
    ]);
    expect(parseLdCache(bytes)).toEqual([
      { soname: "libcuda.so.1", path: "/usr/lib/x86_64-linux-gnu/libcuda.so.1", flags: 0x0303 },
      { soname: "libcudart.so.13", path: "/usr/local/cuda-13.0/lib/libcudart.so.13", flags: 0x0a03 },
    ]);
  });

  it("parses the old layout with the current one appended", () => {
    const current = buildLdCache([{ soname: "libnvidia-ml.so.1", path: "/lib64/libnvidia-ml.so.1" }]);
    const oldCount = 1;
    const oldSize = 16 + oldCount * 12;
    const padded = (oldSize + 7) & ~7;
    const bytes = new Uint8Array(padded + current.length);
    bytes.set(new TextEncoder().encode("ld.so-1.7.0"), 0);
    new DataView(bytes.buffer).setUint32(12, oldCount, true);
    bytes.set(current, padded);
    expect(parseLdCache(bytes)).toEqual([{ soname: "libnvidia-ml.so.1", path: "/lib64/libnvidia-ml.so.1", flags: 0x0303 }]);
  });

  it("rejects bytes that are not a cache", () => {
    expect(parseLdCache(new Uint8Array(0))).toBeUndefined();
    expect(parseLdCache(new TextEncoder().encode("not a loader cache at all, just some text here......"))).toBeUndefined();
  });

  it("drops entries whose strings fall outside the file", () => {
    const bytes = buildLdCache([{ soname: "libcuda.so.1", path: "/lib/libcuda.so.1" }]);
    new DataView(bytes.buffer).setUint32(48 + 8, 1_000_000, true);
    expect(parseLdCache(bytes)).toEqual([]);
  });

  it("matches entries to the process architecture", () => {
    const entry = { soname: "libcuda.so.1", path: "/x", flags: 0x0303 };
    expect(entryMatchesArchitecture(entry, "x64")).toBe(true);
    expect(entryMatchesArchitecture(entry, "arm64")).toBe(false);
    expect(entryMatchesArchitecture({ ...entry, flags: 0x0a03 }, "arm64")).toBe(true);
    expect(entryMatchesArchitecture(entry, "riscv64")).toBe(true);
  });
});

describe("path helpers", () => {
  it("normalise, join and split POSIX paths", () => {
    expect(normalizePath("/a//b/./c/../d/")).toBe("/a/b/d");
    expect(normalizePath("a/../../b")).toBe("../b");
    expect(joinPath("/usr/local/cuda", "targets/x86_64-linux", "lib")).toBe("/usr/local/cuda/targets/x86_64-linux/lib");
    expect(parentDirectory("/usr/lib/libcuda.so.1")).toBe("/usr/lib");
    expect(parentDirectory("/lib")).toBe("/");
    expect(baseName("/usr/lib/libcuda.so.1")).toBe("libcuda.so.1");
  });

  it("derive the toolkit root of a library directory", () => {
    expect(toolkitRootOfLibraryDirectory("/usr/local/cuda-13.0/lib64")).toBe("/usr/local/cuda-13.0");
    expect(toolkitRootOfLibraryDirectory("/usr/local/cuda-13.0/lib")).toBe("/usr/local/cuda-13.0");
    expect(toolkitRootOfLibraryDirectory("/opt/cuda/targets/x86_64-linux/lib")).toBe("/opt/cuda");
    expect(toolkitRootOfLibraryDirectory("/usr/lib/x86_64-linux-gnu")).toBeUndefined();
    expect(toolkitRootOfLibraryDirectory("/usr/lib64")).toBeUndefined();
    expect(toolkitRootOfLibraryDirectory("/lib")).toBeUndefined();
  });
});
