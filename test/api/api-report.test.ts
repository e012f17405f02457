/**
 * The committed API reports (api/*.api.md, written by scripts/api-report.ts) against every entry point's public
 * surface now, regenerated in memory; and the entry points of package.json against those of deno.json.
 */
import { describe, expect, it } from "vitest";
import { apiReportDifferences, manifestEntryPoints } from "../../scripts/api-report.ts";
import { onceUnderBun } from "../support/runtime.ts";

describe.skipIf(onceUnderBun !== "")(`the API reports under api/${onceUnderBun}`, () => {
  // ts-morph parses the entry points' module graphs (the generated tables among them): about 10 s on the CPU machine.
  it("match every entry point's public surface", { timeout: 180_000 }, () => {
    const differences = apiReportDifferences();
    const message = [
      `${differences.length} entry point(s) differ from their committed report: run \`npm run api:report\` and review the diff (git diff api/).`,
      ...differences.map((d) => `\n${d.entryPoint} (${d.file}):\n${d.diff}`),
    ].join("\n");
    expect(differences.map((d) => d.entryPoint), message).toEqual([]);
  });
});

describe("entry points", () => {
  it("are the same in package.json's and deno.json's exports", () => {
    const { packageJson, denoJson } = manifestEntryPoints();
    // deno.json's keys are package.json's ("./bindings/driver"); "./package.json" (no module) is left out.
    const onlyPackage = packageJson.filter((k) => !(denoJson ?? []).includes(k));
    const onlyDeno = (denoJson ?? []).filter((k) => !packageJson.includes(k));
    expect(
      { onlyInPackageJson: onlyPackage, onlyInDenoJson: onlyDeno },
      denoJson === undefined ? "deno.json has no exports" : "package.json and deno.json export different entry points",
    ).toEqual({ onlyInPackageJson: [], onlyInDenoJson: [] });
  });
});
