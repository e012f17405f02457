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
 * Compiles each source (by name) with `nvcc -arch=sm_90 -cubin`; what went wrong, one entry per source that failed or
 * warned (its name and nvcc's output), so that `expect(nvccProblems(...)).toEqual([])` names the culprit.
 */
export function nvccProblems(sources: Readonly<Record<string, string>>): string[] {
  const dir = mkdtempSync(`${tmpdir()}/cuda-ts-nvcc-`);
  try {
    const problems: string[] = [];
    for (const [name, source] of Object.entries(sources)) {
      writeFileSync(`${dir}/${name}.cu`, source);
      const r = spawnSync("nvcc", ["-arch=sm_90", "-cubin", "-o", `${dir}/${name}.cubin`, `${dir}/${name}.cu`], { encoding: "utf8" });
      if (r.status !== 0 || /error|warning/i.test(r.stderr)) problems.push(`${name}: ${r.status === 0 ? "" : `exit ${r.status}: `}${r.stderr}`);
    }
    return problems;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
