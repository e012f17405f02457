/**
 * The CUDA major version pin: unpinned, the pathfinder takes the newest supported major it finds (libcudart.so.13
 * before .so.12) and says which soname it found; `CUDA_TS_CUDA_MAJOR=12` or the option `cudaMajor: 12` looks for
 * CUDA 12's sonames and wheel folders only; a pin outside the supported versions is an InvalidOverrideError.
 */
import * as path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { isolatedPathfinder, makeTempDir, makeTree, removeDir, sitePackages, thrown } from "./fixtures.ts";
import { InvalidOverrideError, LibraryNotFoundError, libraryDescriptor, pinnedDescriptor, SUPPORTED_CUDA_MAJORS } from "../../src/pathfinder/index.ts";

const dir = makeTempDir();
afterAll(() => removeDir(dir));
const lib = makeTree(path.join(dir, "lib"), { "libcudart.so.13": "file", "libcudart.so.12": "file", "libcufft.so.12": "file", "libcufft.so.11": "file" });

describe("the CUDA major version of toolkit libraries", () => {
  it("unpinned: the newest major first, and the result names the soname found", () => {
    const { pathfinder } = isolatedPathfinder({ LD_LIBRARY_PATH: lib });
    const found = pathfinder.loadNvidiaLibrary("cudart");
    expect(found.path).toBe(path.join(lib, "libcudart.so.13"));
    expect(found.soname).toBe("libcudart.so.13");
  });

  it("CUDA_TS_CUDA_MAJOR=12: CUDA 12's soname only (libcufft.so.11 is CUDA 12's cuFFT)", () => {
    const { pathfinder } = isolatedPathfinder({ LD_LIBRARY_PATH: lib, CUDA_TS_CUDA_MAJOR: "12" });
    expect(pathfinder.loadNvidiaLibrary("cudart").soname).toBe("libcudart.so.12");
    expect(pathfinder.loadNvidiaLibrary("cufft").soname).toBe("libcufft.so.11");
  });

  it("the option cudaMajor wins over the environment", () => {
    const { pathfinder } = isolatedPathfinder({ LD_LIBRARY_PATH: lib, CUDA_TS_CUDA_MAJOR: "12" }, { cudaMajor: 13 });
    expect(pathfinder.loadNvidiaLibrary("cudart").soname).toBe("libcudart.so.13");
  });

  it("pinned to 12 with only CUDA 13's library: not found, naming the soname looked for", () => {
    const only13 = makeTree(path.join(dir, "only13"), { "libcudart.so.13": "file" });
    const { pathfinder } = isolatedPathfinder({ LD_LIBRARY_PATH: only13, CUDA_TS_CUDA_MAJOR: "12" });
    const e = thrown(() => pathfinder.loadNvidiaLibrary("cudart"));
    expect(e).toBeInstanceOf(LibraryNotFoundError);
    expect((e as LibraryNotFoundError).sonames).toEqual(["libcudart.so.12"]);
  });

  it("CUDA 12 wheels only when pinned to 12", () => {
    const venv = path.join(dir, "venv");
    const sp = sitePackages(venv);
    makeTree(sp, { "nvidia/cu13/lib/libcudart.so.13": "file", "nvidia/cuda_runtime/lib/libcudart.so.12": "file" });
    expect(isolatedPathfinder({ VIRTUAL_ENV: venv }).pathfinder.loadNvidiaLibrary("cudart").soname).toBe("libcudart.so.13");
    expect(isolatedPathfinder({ VIRTUAL_ENV: venv, CUDA_TS_CUDA_MAJOR: "12" }).pathfinder.loadNvidiaLibrary("cudart").path).toBe(
      path.join(sp, "nvidia/cuda_runtime/lib/libcudart.so.12"),
    );
  });

  it("an unsupported pin is an InvalidOverrideError naming the supported versions", () => {
    const { pathfinder } = isolatedPathfinder({ LD_LIBRARY_PATH: lib, CUDA_TS_CUDA_MAJOR: "11" });
    const e = thrown(() => pathfinder.loadNvidiaLibrary("cudart"));
    expect(e).toBeInstanceOf(InvalidOverrideError);
    expect((e as Error).message).toMatch(/CUDA_TS_CUDA_MAJOR.*11.*13, 12/);
  });

  it("driver libraries and single-soname libraries are not pinned", () => {
    expect(SUPPORTED_CUDA_MAJORS).toEqual([13, 12]);
    const cuda = libraryDescriptor("cuda")!;
    expect(pinnedDescriptor(cuda, 12)).toBe(cuda);
    const cusparse = libraryDescriptor("cusparse")!;
    expect(pinnedDescriptor(cusparse, 12)).toBe(cusparse);
  });
});
