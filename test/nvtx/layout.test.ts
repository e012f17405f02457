/**
 * The layouts cuda-ts writes for NVTX, checked by gcc against NVIDIA's own headers (nvToolsExt.h and nvtxDetail):
 * nvtxEventAttributes_t field by field, the two export tables, the module table sizes (NVTX_CBID_*_SIZE) and the
 * callback ids cuda-ts calls. Where no NVTX headers are found (CI has none) it skips and says so; the fake tool's
 * own copies of the types are then what test/nvtx/injection.test.ts checks against.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EVENT_ATTRIBUTES_LAYOUT, EVENT_ATTRIBUTES_SIZE } from "../../src/core/nvtx/nvtx.ts";
import { CBID, EXPORT_TABLE_CALLBACKS_SIZE, EXPORT_TABLE_VERSION_INFO_SIZE, MODULES, NVTX_VERSION } from "../../src/core/nvtx/injection.ts";
import { gccReason, root } from "./fixture.ts";

const candidates = [join(root, ".cache/ctk/13.0/include"), "/usr/local/cuda/include", "/usr/include"];
const include = candidates.find((d) => existsSync(join(d, "nvtx3/nvToolsExt.h")));
const reason = gccReason ?? (include === undefined ? `no NVTX 3 headers (nvtx3/nvToolsExt.h in ${candidates.join(", ")})` : undefined);

describe.skipIf(reason !== undefined)(`NVTX layouts against NVIDIA's headers${reason ? ` [skipped: ${reason}]` : ""}`, () => {
  it("nvtxEventAttributes_t, the export tables, the module sizes and callback ids match", () => {
    const dir = mkdtempSync(join(tmpdir(), "cuda-ts-nvtx-layout-"));
    const fields = Object.keys(EVENT_ATTRIBUTES_LAYOUT);
    const cbids = [
      ...Object.keys(CBID.CORE).map((k) => `NVTX_CBID_CORE_${k}`),
      ...Object.keys(CBID.CUDA).map((k) => `NVTX_CBID_CUDA_${k}`),
      ...Object.keys(CBID.CORE2).map((k) => `NVTX_CBID_CORE2_${k}`),
    ];
    const src = [
      "#include <stdio.h>",
      "#include <stddef.h>",
      "#include <nvtx3/nvToolsExt.h>",
      "int main(void) {",
      '  printf("version %d\\n", NVTX_VERSION);',
      '  printf("size %zu\\n", sizeof(nvtxEventAttributes_t));',
      ...fields.map((f) => `  printf("${f} %zu\\n", offsetof(nvtxEventAttributes_t, ${f}));`),
      '  printf("callbacks %zu\\n", sizeof(NvtxExportTableCallbacks));',
      '  printf("versioninfo %zu\\n", sizeof(NvtxExportTableVersionInfo));',
      ...MODULES.map((m) => `  printf("module ${m.name} %d %d\\n", (int)NVTX_CB_MODULE_${m.name}, (int)NVTX_CBID_${m.name}_SIZE);`),
      ...cbids.map((c) => `  printf("${c} %d\\n", (int)${c});`),
      "  return 0;",
      "}",
    ].join("\n");
    writeFileSync(join(dir, "layout.c"), src);
    execFileSync("gcc", ["-I", include!, "-o", join(dir, "layout"), join(dir, "layout.c"), "-ldl"]);
    const out = execFileSync(join(dir, "layout"), { encoding: "utf8" });
    const expected = [
      `version ${NVTX_VERSION}`,
      `size ${EVENT_ATTRIBUTES_SIZE}`,
      ...fields.map((f) => `${f} ${EVENT_ATTRIBUTES_LAYOUT[f as keyof typeof EVENT_ATTRIBUTES_LAYOUT]}`),
      `callbacks ${EXPORT_TABLE_CALLBACKS_SIZE}`,
      `versioninfo ${EXPORT_TABLE_VERSION_INFO_SIZE}`,
      ...MODULES.map((m) => `module ${m.name} ${m.id} ${m.count + 1}`),
      ...Object.entries(CBID.CORE).map(([k, v]) => `NVTX_CBID_CORE_${k} ${v}`),
      ...Object.entries(CBID.CUDA).map(([k, v]) => `NVTX_CBID_CUDA_${k} ${v}`),
      ...Object.entries(CBID.CORE2).map(([k, v]) => `NVTX_CBID_CORE2_${k} ${v}`),
    ];
    expect(out.trim().split("\n")).toEqual(expected);
  });
});
