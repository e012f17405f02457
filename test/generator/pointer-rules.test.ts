/**
 * The manifest's reviewed pointer rules (`pointerRules`, `pointerRoles`, `decidePointers`; generator/parse/roles.ts):
 * an undocumented pointer is decided by the first rule that matches its function, name and C type, an override wins
 * over everything, and with `decidePointers` a pointer nothing decides is marked undecided (the generator then fails
 * naming it) instead of guessed.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { decideRoles, type PointerRule, type PointerRuleSpec, pointerRulesOf, UNDECIDED_POINTER } from "../../generator/parse/roles.ts";
import type { IrDoc, IrFunction, IrType } from "../../generator/ir.ts";
import { makeTempDir, readJson, REPO_GENERATED, removeDir, ROOT, runGenerator, sha256 } from "./helpers.ts";

const int32: IrType = { kind: "int", spelling: "int", size: 4, signed: true };
const double: IrType = { kind: "float", spelling: "double", size: 8 } as IrType;
const ptr = (t: IrType, constPointee = false): IrType => ({ kind: "pointer", spelling: `${t.spelling} *`, pointee: t, constPointee });
const handle: IrType = { kind: "typedef", spelling: "xHandle_t", name: "xHandle_t", target: ptr({ kind: "record", spelling: "struct x_st", name: "x_st", complete: false } as IrType) };
const status: IrType = { kind: "enum", spelling: "xStatus_t", name: "xStatus_t", size: 4, signed: false } as IrType;
const fn = (name: string, params: [string, IrType][], doc?: Partial<IrDoc>): IrFunction => ({
  name,
  symbol: name,
  params: params.map(([n, type]) => ({ name: n, type })),
  result: status,
  variadic: false,
  outputs: [],
  roles: [],
  location: { file: "x.h", line: 1 },
  ...(doc ? { doc: { summary: "", params: [], notes: [], see: [], ...doc } } : {}),
});

/** The rules of a library spec as the generator compiles them (anchored). */
function compiled(rules: PointerRuleSpec[]): PointerRule[] {
  return pointerRulesOf({ pointerRules: rules });
}

const RULES = compiled([
  { rule: "work sizes a bufferSize returns", functions: "x\\w+_bufferSize", parameters: "lwork", role: "output" },
  { rule: "getters write every pointer", functions: "x\\w*Get[A-Z]\\w*", role: "output" },
  { rule: "a descriptor typedef by value", functions: "x\\w+", type: "xDesc_t", role: "input" },
  { rule: "device arrays", functions: "x\\w+", role: "caller-buffer" },
]);

const brief = (f: IrFunction, overrides: Parameters<typeof decideRoles>[1]): string[] => decideRoles(f, overrides, true).map((r, i) => `${f.params[i]!.name}: ${r.role} (${r.rule})`);

describe("pointer rules of the manifest", () => {
  it("the first rule that matches the function, the parameter and the C type decides an undocumented pointer, and says so", () => {
    const f = fn("xSpotrf_bufferSize", [["h", handle], ["A", ptr(double)], ["lwork", ptr(int32)]]);
    expect(brief(f, { pointerRules: RULES, decidePointers: true })).toEqual([
      "h: input (handle or opaque pointer)",
      "A: caller-buffer (manifest rule: device arrays)",
      "lwork: output (manifest rule: work sizes a bufferSize returns)",
    ]);
    const g = fn("xDnGetStream", [["h", handle], ["stream", ptr(handle)]]);
    expect(brief(g, { pointerRules: RULES, decidePointers: true })[1]).toBe("stream: output (manifest rule: getters write every pointer)");
    const desc: IrType = { kind: "typedef", spelling: "xDesc_t", name: "xDesc_t", target: ptr({ kind: "record", spelling: "struct xDesc_st", name: "xDesc_st", complete: true } as IrType) };
    expect(brief(fn("xMatmul", [["d", desc]]), { pointerRules: RULES, decidePointers: true })).toEqual(["d: input (manifest rule: a descriptor typedef by value)"]);
  });

  it("rules are anchored: a function name that only contains the pattern does not match", () => {
    const [r] = compiled([{ rule: "r", functions: "xGet\\w*", role: "output" }]);
    expect(r!.functions.test("xGetStream")).toBe(true);
    expect(r!.functions.test("yxGetStream")).toBe(false);
  });

  it("the documentation decides before any rule; an override wins over both", () => {
    const doc = { params: [{ name: "p", text: "Returned value", direction: "out" as const }] };
    const f = fn("xCompute", [["p", ptr(int32)]], doc);
    expect(brief(f, { pointerRules: RULES, decidePointers: true })).toEqual(["p: output (documented [out])"]);
    expect(brief(f, { pointerRules: RULES, decidePointers: true, pointerRoles: { p: "caller-buffer" } })).toEqual(["p: caller-buffer (manifest pointerRoles override (caller-buffer))"]);
  });

  it("with decidePointers, a pointer no rule matches is undecided; without, the old guess stands", () => {
    const f = fn("yCompute", [["p", ptr(int32)]]);
    expect(decideRoles(f, { pointerRules: RULES, decidePointers: true }, true)[0]).toEqual({ role: "caller-buffer", rule: UNDECIDED_POINTER });
    expect(decideRoles(f, {}, true)[0]).toEqual({ role: "caller-buffer", rule: "undocumented pointer" });
  });

});

// The generator end to end, on a header of two functions: tinyGetValue(int* value) documents nothing.
const dir = makeTempDir();
afterAll(() => removeDir(dir));
const HEADER = "typedef enum { TINY_OK = 0 } tinyStatus;\ntinyStatus tinyGetValue(int *value);\ntinyStatus tinyScale(float *data, int n);\n";

/** Runs the generator on the tiny header with `library` merged into its manifest entry; its exit status, output and report. */
function generate(library: Record<string, unknown>): { status: number | null; output: string; report?: { libraries: { roles: Record<string, string[]> }[] } } {
  const k = fs.readdirSync(dir).length;
  const include = path.join(dir, `include-${k}`);
  const out = path.join(dir, `out-${k}`);
  fs.mkdirSync(include, { recursive: true });
  fs.writeFileSync(path.join(include, "tiny.h"), HEADER);
  const manifest = {
    libraries: { tiny: { description: "a tiny library", headers: ["tiny.h"], library: "tiny", functionPrefixes: ["tiny"], status: { type: "tinyStatus" }, ...library } },
    ctk: { "1.0": { headers: { "tiny.h": sha256(HEADER) } } },
  };
  const manifestPath = path.join(dir, `manifest-${k}.json`);
  fs.writeFileSync(manifestPath, JSON.stringify(manifest));
  const r = runGenerator(["--manifest", manifestPath, "--include", include, "--cuda-home", path.join(dir, "no-toolkit"), "--ctk-version", "1.0", "--out", out]);
  const reportPath = path.join(out, "cuda-1.0/report.json");
  return { status: r.status, output: r.output, ...(fs.existsSync(reportPath) ? { report: readJson(reportPath) } : {}) };
}

describe("the generator with decidePointers", () => {
  it("fails naming each pointer nothing decides, and says where to decide it", () => {
    const r = generate({ decidePointers: true });
    expect(r.status, r.output).toBe(2);
    expect(r.output).toContain("2 pointer parameters");
    expect(r.output).toContain("tinyGetValue(value: int *)");
    expect(r.output).toContain("tinyScale(data: float *)");
    expect(r.output).toContain("Add a pointerRules entry");
  });

  it("generates once rules and overrides decide every pointer, and report.json names them", () => {
    const r = generate({
      decidePointers: true,
      pointerRules: [{ rule: "getters write their pointer", functions: "tinyGet\\w*", role: "output" }],
      pointerRoles: { tinyScale: { data: "caller-buffer" } },
    });
    expect(r.status, r.output).toBe(0);
    const roles = r.report!.libraries[0]!.roles;
    expect(roles.tinyGetValue).toEqual(["value: output (manifest rule: getters write their pointer)"]);
    expect(roles.tinyScale![0]).toBe("data: caller-buffer (manifest pointerRoles override (caller-buffer))");
  });

  it("refuses a rule whose regular expression does not compile, or an unknown role", () => {
    const bad = generate({ pointerRules: [{ rule: "r", functions: "tiny(", role: "output" }] });
    expect(bad.status).toBe(2);
    expect(bad.output).toMatch(/pointerRules\.0\.functions: a regular expression that compiles/);
    const role = generate({ pointerRoles: { tinyScale: { data: "maybe" } } });
    expect(role.status).toBe(2);
    expect(role.output).toContain("pointerRoles.tinyScale.data");
  });
});

// Every generated library and version: the reports in generated/ (the CTK's, NCCL's and PMIx's folders).
type Report = { libraries: { library: string; roles: Record<string, string[]> }[] };
const reportFolders = fs.existsSync(REPO_GENERATED)
  ? fs.readdirSync(REPO_GENERATED).filter((d) => fs.existsSync(path.join(REPO_GENERATED, d, "report.json"))).sort()
  : [];

/** The rule of a report entry `name: role… (rule)`: the text inside its last top-level parentheses. */
function ruleOf(entry: string): string {
  let depth = 0;
  for (let i = entry.length - 1; i > 0; i--) {
    if (entry[i] === ")") depth++;
    if (entry[i] === "(" && --depth === 0) return entry.slice(i + 1, -1);
  }
  return entry;
}

describe("report.json of every generated library decides every pointer", () => {
  it("finds the generated versions: the CTK's, NCCL's and PMIx's", () => {
    expect(reportFolders.some((d) => d.startsWith("cuda-"))).toBe(true);
    expect(reportFolders.some((d) => d.startsWith("nccl-"))).toBe(true);
    expect(reportFolders.some((d) => d.startsWith("pmix-"))).toBe(true);
  });

  for (const folder of reportFolders) {
    it(`${folder}: no pointer decided by a guess or left undecided, in any library`, () => {
      const report = readJson<Report>(path.join(REPO_GENERATED, folder, "report.json"));
      expect(report.libraries.length).toBeGreaterThan(0);
      for (const lib of report.libraries) {
        const guessed = Object.entries(lib.roles).flatMap(([fn, list]) =>
          list.filter((e) => ruleOf(e).startsWith("undocumented pointer") || ruleOf(e) === UNDECIDED_POINTER).map((e) => `${fn}(${e.slice(0, e.indexOf(":"))})`)
        );
        expect(guessed, `${lib.library} in ${folder}`).toEqual([]);
      }
    });
  }

  it("every library of the manifest has decidePointers, so a new undocumented pointer fails the generation", () => {
    const manifest = readJson<{ libraries: Record<string, { decidePointers?: boolean }> }>(path.join(ROOT, "headers-manifest.json"));
    const without = Object.entries(manifest.libraries).filter(([, l]) => l.decidePointers !== true).map(([name]) => name);
    expect(without).toEqual([]);
  });
});
