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
    expect(text).toMatch(/cudnn +- +not found \(CUDA_TS_CUDNN_PATH or CUDA_PATH would point to it\); cuda-ts does not bind it$/m);
    expect(text).toMatch(/nvrtc +- +not found:\n +the whole search\n +line two/);
    expect(text).toContain("(3 libraries not found are listed without their search; --verbose shows it)");
    expect(formatDoctor(report, { verbose: true })).toContain("CUDA_TS_NVJITLINK_PATH"); // the whole reason, verbatim
  });
});
