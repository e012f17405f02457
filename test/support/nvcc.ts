/**
 * nvcc, where this machine has the toolkit's compiler (no GPU needed): CPU tests compile the kernels' generated
 * source with it for sm_90, so a source that does not compile fails here rather than on the GPU machine.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";

/** Whether `nvcc` runs here. */
export const nvccPresent: boolean = spawnSync("nvcc", ["--version"], { encoding: "utf8" }).status === 0;

/**
 * Compiles each source (by name) with `nvcc -arch=sm_90 -std=c++17`, to a cubin (or to PTX only, faster, with `ptx`);
 * what went wrong, one entry per source that failed (or warned, unless `warnings: false`) with its name and nvcc's
 * output, so that `expect(nvccProblems(...)).toEqual([])` names the culprit.
 */
export function nvccProblems(sources: Readonly<Record<string, string>>, options: { readonly ptx?: boolean; readonly warnings?: boolean } = {}): string[] {
  const dir = mkdtempSync(`${tmpdir()}/cuda-ts-nvcc-`);
  const kind = options.ptx === true ? "ptx" : "cubin";
  try {
    const problems: string[] = [];
    for (const [name, source] of Object.entries(sources)) {
      writeFileSync(`${dir}/${name}.cu`, source);
      const r = spawnSync("nvcc", ["-arch=sm_90", "-std=c++17", `-${kind}`, "-o", `${dir}/${name}.${kind}`, `${dir}/${name}.cu`], { encoding: "utf8" });
      const bad = options.warnings === false ? /error/i : /error|warning/i;
      if (r.status !== 0 || bad.test(r.stderr)) problems.push(`${name}: ${r.status === 0 ? "" : `exit ${r.status}: `}${r.stderr.slice(0, 4000)}`);
    }
    return problems;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Sources of many kernels in one translation unit: each in a namespace of its own, the includes once, at the top. */
export function bundleKernels(sources: readonly string[]): string {
  const includes = new Set<string>();
  const parts = sources.map((src, k) => {
    const lines = src.split("\n");
    for (const l of lines) if (l.startsWith("#include")) includes.add(l);
    // extern "C" names are one namespace: each kernel's gets the bundle's index.
    return `namespace k${k} {\n${lines.filter((l) => !l.startsWith("#include")).join("\n").replaceAll("void cuda_ts_", `void cuda_ts_k${k}_`)}\n}`;
  });
  return [...includes, ...parts].join("\n") + "\n";
}
