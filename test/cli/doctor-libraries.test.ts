/**
 * `cuda-ts doctor`'s list of the libraries cuda-ts binds is the bindings' own, and a library not found is hinted with
 * its own override variable, never with another library's that its search error happened to name.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { BOUND_LIBRARIES, CORE_LIBRARIES, formatDoctor, type DoctorReport } from "../../src/cli/doctor.ts";

const root = resolve(import.meta.dirname ?? new URL(".", import.meta.url).pathname, "../..");

/** The pathfinder names the bindings load (`createBinding({ library: "..." })`). */
function boundByTheBindings(): string[] {
  const files = [
    ...readdirSync(join(root, "src/bindings")).filter((f) => f.endsWith(".ts")).map((f) => join(root, "src/bindings", f)),
    join(root, "src/core/system/nvml-binding.ts"),
    join(root, "src/core/gds/cufile-binding.ts"),
  ];
  const names = new Set<string>();
  for (const f of files) for (const m of readFileSync(f, "utf8").matchAll(/createBinding<[^>]*>\(\{\s*library:\s*"([^"]+)"/g)) names.add(m[1]!);
  return [...names].sort();
}

describe("cuda-ts doctor: the libraries cuda-ts binds", () => {
  it("lists exactly the libraries the bindings load, the core ones among them", () => {
    expect([...BOUND_LIBRARIES].sort()).toEqual(boundByTheBindings());
    for (const c of CORE_LIBRARIES) expect(BOUND_LIBRARIES).toContain(c);
  });

  it("hints each missing library with its own variable, and says only of others that cuda-ts does not bind them", () => {
    const report: DoctorReport = {
      runtime: { name: "Bun", version: "1" },
      driver: { found: false },
      devices: [],
      libraries: [
        // cuSPARSE's search error names nvJitLink's variable (a dependency): the hint must still be cuSPARSE's own.
        { name: "cusparse", packagedWith: "ctk", found: false, error: 'could not find library "nvJitLink" ... Set CUDA_TS_NVJITLINK_PATH' },
        { name: "nccl", packagedWith: "other", found: false, error: "not found" },
        { name: "cudnn", packagedWith: "other", found: false, error: "not found" },
        { name: "nvrtc", packagedWith: "ctk", found: false, error: "the whole search\nline two" },
      ],
    } as DoctorReport;
    const text = formatDoctor(report);
    expect(text).toMatch(/cusparse +- +not found \(CUDA_TS_CUSPARSE_PATH or CUDA_PATH would point to it\)$/m);
    expect(text).not.toContain("CUDA_TS_NVJITLINK_PATH");
    expect(text).toMatch(/nccl +- +not found \(CUDA_TS_NCCL_PATH or CUDA_PATH would point to it\)$/m);
    // Brief: only the libraries cuda-ts binds, each on one line, the core ones' reasons under --verbose.
    expect(text).not.toContain("cudnn");
    expect(text).toMatch(/nvrtc +- +not found \(CUDA_TS_NVRTC_PATH or CUDA_PATH would point to it\)$/m);
    expect(text).not.toContain("the whole search");
    const verbose = formatDoctor(report, { verbose: true });
    expect(verbose).toMatch(/cudnn +- +not found:/);
    expect(verbose).toMatch(/nvrtc +- +not found:\n +the whole search\n +line two/);
    expect(formatDoctor(report, { verbose: true })).toContain("CUDA_TS_NVJITLINK_PATH"); // the whole reason, verbatim
  });
});

describe("cuda-ts doctor: a summary first", () => {
  const report = {
    runtime: { name: "Bun", version: "1" },
    driver: { found: false, error: 'could not find library "cuda" (libcuda.so.1). Searched, in order:\n  override  CUDA_TS_CUDA_PATH: not set' },
    devices: [],
    libraries: [
      { name: "cudart", packagedWith: "ctk", found: true, path: "/cuda/lib/libcudart.so.13", foundVia: "system-search", version: "13.0" },
      { name: "nvrtc", packagedWith: "ctk", found: false, error: "searched" },
      { name: "nvvm", packagedWith: "ctk", found: true, path: "/cuda/lib/libnvvm.so.4", foundVia: "system-search", version: "2.0" },
      { name: "cublas", packagedWith: "ctk", found: false, error: "searched" },
      { name: "cuda", packagedWith: "driver", found: false, error: "searched" },
    ],
  } as DoctorReport;

  it("says whether kernels can run, what compiles and what was found, then what to do, in a few lines", () => {
    const lines = formatDoctor(report).split("\n");
    expect(lines.slice(0, 7)).toEqual([
      "cuda-ts doctor — Bun 1",
      "",
      "Summary:",
      "  GPU:        cannot run kernels: the NVIDIA driver (libcuda.so.1) was not found",
      "  Compile:    CUDA C++ no, NVVM IR yes, linking no",
      `  Libraries:  2 of the ${BOUND_LIBRARIES.length} cuda-ts binds found: cudart 13.0, nvvm 2.0`,
      "",
    ]);
    const todo = lines.slice(lines.indexOf("To do:") + 1, lines.indexOf("", lines.indexOf("To do:")));
    expect(todo[0]).toMatch(/^ {2}- cuda: nothing runs on a GPU without the NVIDIA driver: install the NVIDIA driver .* CUDA_TS_CUDA_PATH/);
    expect(todo[1]).toMatch(/^ {2}- nvrtc: CUDA C\+\+ kernels .* CUDA_TS_NVRTC_PATH to the library\.$/);
    expect(todo[2]).toMatch(/^ {2}- Not found, needed only by the scripts that use them: cublas\./);
    expect(lines).toContain("  cuda    -      not found (the NVIDIA driver installs it; CUDA_TS_CUDA_PATH would point to it)");
    expect(lines.join("\n")).not.toContain("override  CUDA_TS_CUDA_PATH"); // the driver's search: under --verbose
    expect(formatDoctor(report, { verbose: true })).toContain("override  CUDA_TS_CUDA_PATH");
    expect(lines.length).toBeLessThan(30);
  });
});
