/**
 * C facts come from the generated tables only. Scans the object layer (src/core/**) with the TypeScript type
 * checker (ts-morph) and fails on:
 *
 * (a) a hand-written function signature: an object literal shaped as the FFI's function spec (`parameters`, an
 *     array of native type strings, and `result`, one), or a type member named after a generated C function (a
 *     hand-typed `ncclAllReduce(...)` to cast a binding to);
 * (b) a numeric literal equal to a generated enum member's value and used as one: an argument of a parameter typed
 *     with that enum, a value assigned, returned or compared to a value typed with it, a literal asserted to it
 *     (`3 as cublasOperation_t`), or the value of a constant named as a generated enum member or constant
 *     (`const CU_MEMORYTYPE_DEVICE = 2`, `const DESC_TRANSA = 3` for CUBLASLT_MATMUL_DESC_TRANSA).
 *
 * Each finding names file:line and the generated name to import. Plain numbers (counts, sizes, 0 and 1 as
 * themselves) have no enum type and are never findings. Needs no GPU.
 */
import { describe, expect, it } from "vitest";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Node, Project, type SourceFile, SyntaxKind, ts, type Type } from "ts-morph";
import { onceUnderBun } from "../support/runtime.ts";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const CORE = join(ROOT, "src/core");
/** The generated versions whose names the object layer imports (the CUDA Toolkit's and NCCL's newest). */
const GENERATED = [join(ROOT, "generated/cuda-13.0"), join(ROOT, "generated/nccl-2.28")];

/**
 * Where a hand-written signature is the only source: NVTX has no generated table (its functions are slots of the
 * injection export table a tool fills in, not symbols of a header the generator reads).
 */
const NO_GENERATED_TABLE = ["src/core/nvtx/"];

const NATIVE_TYPES = new Set(["void", "bool", "i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64", "f32", "f64", "pointer", "buffer", "function", "usize", "isize", "cstring"]);

interface Finding {
  readonly file: string;
  readonly line: number;
  readonly kind: "signature" | "enum-value" | "constant";
  /** What to use instead. */
  readonly use: string;
  readonly text: string;
}

/** Every generated enum (name → member → value), constant (name → value) and function name. */
interface GeneratedNames {
  readonly enums: Map<string, Map<string, number>>;
  readonly constants: Map<string, number>;
  readonly functions: Set<string>;
  /** Member or constant name → its qualified form (`cublasOperation_t.CUBLAS_OP_T`, `NCCL_SPLIT_NOCOLOR`) and value. */
  readonly byName: Map<string, { readonly use: string; readonly value: number }>;
}

function numericValue(node: Node | undefined): number | undefined {
  if (node === undefined) return undefined;
  if (Node.isNumericLiteral(node)) return Number(node.getLiteralValue());
  if (Node.isPrefixUnaryExpression(node) && node.getOperatorToken() === SyntaxKind.MinusToken) {
    const v = numericValue(node.getOperand());
    return v === undefined ? undefined : -v;
  }
  if (Node.isParenthesizedExpression(node) || Node.isAsExpression(node) || Node.isSatisfiesExpression(node)) return numericValue(node.getExpression());
  return undefined;
}

function readGenerated(): GeneratedNames {
  const enums = new Map<string, Map<string, number>>();
  const constants = new Map<string, number>();
  const functions = new Set<string>();
  const byName = new Map<string, { use: string; value: number }>();
  const parser = new Project({ useInMemoryFileSystem: true, compilerOptions: { noResolve: true } });
  for (const base of GENERATED) {
    for (const lib of readdirSync(base, { withFileTypes: true })) {
      if (!lib.isDirectory()) continue;
      const dir = join(base, lib.name);
      const read = (name: string): SourceFile | undefined => {
        const path = join(dir, name);
        return existsSync(path) ? parser.createSourceFile(`/${lib.name}-${base.length}-${name}`, readFileSync(path, "utf8"), { overwrite: true }) : undefined;
      };
      for (const decl of read("enums.ts")?.getVariableDeclarations() ?? []) {
        const call = decl.getInitializer();
        const obj = Node.isCallExpression(call) ? call.getArguments()[0] : undefined;
        const literal = obj !== undefined && Node.isAsExpression(obj) ? obj.getExpression() : obj;
        if (!Node.isObjectLiteralExpression(literal)) continue;
        const members = new Map<string, number>();
        for (const p of literal.getProperties()) {
          if (!Node.isPropertyAssignment(p)) continue;
          const v = numericValue(p.getInitializer());
          if (v === undefined) continue;
          members.set(p.getName(), v);
          byName.set(p.getName(), { use: `${decl.getName()}.${p.getName()}`, value: v });
        }
        enums.set(decl.getName(), members);
      }
      for (const decl of read("constants.ts")?.getVariableDeclarations() ?? []) {
        const v = numericValue(decl.getInitializer());
        if (v === undefined) continue;
        constants.set(decl.getName(), v);
        byName.set(decl.getName(), { use: decl.getName(), value: v });
      }
      const raw = read("raw.ts");
      for (const m of raw?.getInterface("Raw")?.getMethods() ?? []) functions.add(m.getName());
      for (const name of ["enums.ts", "constants.ts", "raw.ts"]) {
        const f = parser.getSourceFile(`/${lib.name}-${base.length}-${name}`);
        if (f !== undefined) parser.removeSourceFile(f);
      }
    }
  }
  return { enums, constants, functions, byName };
}

/** The generated enum a type is (its alias, declared in a generated enums.ts), if any. */
function generatedEnumOf(type: Type | undefined): string | undefined {
  if (type === undefined) return undefined;
  const candidates = [type, ...(type.isUnion() ? type.getUnionTypes() : [])];
  for (const t of candidates) {
    const alias = t.getAliasSymbol();
    const decl = alias?.getDeclarations()[0];
    if (alias !== undefined && decl !== undefined && /[\\/]generated[\\/][^\\/]+[\\/][^\\/]+[\\/]enums\.ts$/.test(decl.getSourceFile().getFilePath())) return alias.getName();
  }
  return undefined;
}

/** The spec's shape: `parameters` an array of native type strings and `result` one. */
function isSpecLiteral(node: Node): boolean {
  if (!Node.isObjectLiteralExpression(node)) return false;
  const params = node.getProperty("parameters");
  const result = node.getProperty("result");
  if (params === undefined || result === undefined || !Node.isPropertyAssignment(params) || !Node.isPropertyAssignment(result)) return false;
  const list = params.getInitializer();
  const res = result.getInitializer();
  const strip = (n: Node | undefined): Node | undefined => (n !== undefined && (Node.isAsExpression(n) || Node.isSatisfiesExpression(n)) ? strip(n.getExpression()) : n);
  const l = strip(list);
  const r = strip(res);
  return Node.isArrayLiteralExpression(l) && l.getElements().every((e) => Node.isStringLiteral(e) && NATIVE_TYPES.has(e.getLiteralValue())) && Node.isStringLiteral(r) && NATIVE_TYPES.has(r.getLiteralValue());
}

/** Scans `files` (of `project`, type-checked together) for the findings of the module's notes. */
function scan(project: Project, files: readonly SourceFile[], names: GeneratedNames): Finding[] {
  const findings: Finding[] = [];
  const checker = project.getTypeChecker();
  for (const file of files) {
    const rel = relative(ROOT, file.getFilePath());
    const signaturesAllowed = NO_GENERATED_TABLE.some((p) => rel.startsWith(p));
    const add = (node: Node, kind: Finding["kind"], use: string): void => {
      findings.push({ file: rel, line: node.getStartLineNumber(), kind, use, text: node.getText().slice(0, 100) });
    };
    /** A literal whose enum `enumName` has a member of its value: the finding naming that member. */
    const enumUse = (node: Node, enumName: string | undefined): void => {
      if (enumName === undefined) return;
      const v = numericValue(node);
      const members = names.enums.get(enumName);
      if (v === undefined || members === undefined) return;
      const member = [...members].find(([, value]) => value === v)?.[0];
      if (member !== undefined) add(node, "enum-value", `${enumName}.${member}`);
    };
    file.forEachDescendant((node) => {
      // (a) hand-written signatures
      if (!signaturesAllowed && isSpecLiteral(node)) add(node, "signature", "the generated table's spec (functions.ts) or a generated *_signature (types.ts)");
      if ((Node.isMethodSignature(node) || Node.isPropertySignature(node)) && names.functions.has(node.getName())) {
        add(node, "signature", `the binding's own ${node.getName()} (its Raw or Checked type)`);
      }
      // (b) literals used as enum values
      if (Node.isNumericLiteral(node)) {
        const parent = node.getParent();
        const outer = parent !== undefined && Node.isPrefixUnaryExpression(parent) ? parent : node;
        const up = outer.getParent();
        if (up !== undefined && (Node.isAsExpression(up) || Node.isSatisfiesExpression(up) || Node.isTypeAssertion(up))) {
          enumUse(outer, generatedEnumOf(up.getType()));
          return;
        }
        if (up !== undefined && Node.isBinaryExpression(up) && [SyntaxKind.EqualsEqualsEqualsToken, SyntaxKind.ExclamationEqualsEqualsToken, SyntaxKind.EqualsEqualsToken, SyntaxKind.ExclamationEqualsToken].includes(up.getOperatorToken().getKind())) {
          // 0 compared with a status or flags is C's "success" / "none" idiom, read as a number.
          const other = up.getLeft() === outer ? up.getRight() : up.getLeft();
          if (numericValue(outer) !== 0) enumUse(outer, generatedEnumOf(other.getType()));
          return;
        }
        if (up !== undefined && Node.isCaseClause(up)) {
          const sw = up.getParentOrThrow().getParentOrThrow();
          if (Node.isSwitchStatement(sw)) enumUse(outer, generatedEnumOf(sw.getExpression().getType()));
          return;
        }
        if (Node.isExpression(outer)) enumUse(outer, generatedEnumOf(checker.getContextualType(outer)));
      }
      // (b) constants named as generated members or constants
      if (Node.isVariableDeclaration(node)) {
        const v = numericValue(node.getInitializer());
        if (v === undefined || !Node.isIdentifier(node.getNameNode())) return;
        const name = node.getName();
        const exact = names.byName.get(name);
        if (exact !== undefined && exact.value === v) {
          add(node, "constant", exact.use);
          return;
        }
        if (!name.includes("_")) return;
        for (const [generated, g] of names.byName) {
          if (g.value === v && generated.endsWith(`_${name}`)) {
            add(node, "constant", g.use);
            return;
          }
        }
      }
    });
  }
  return findings;
}

function coreFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...coreFiles(p));
    else if (e.name.endsWith(".ts")) out.push(p);
  }
  return out;
}

function format(findings: readonly Finding[]): string {
  return findings.map((f) => `${f.file}:${f.line}: ${f.kind}: ${f.text} → use ${f.use}`).join("\n");
}

let shared: { project: Project; names: GeneratedNames; files: SourceFile[] } | undefined;
function setUp(): NonNullable<typeof shared> {
  if (shared !== undefined) return shared;
  const project = new Project({
    compilerOptions: {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      allowImportingTsExtensions: true,
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      types: [],
      lib: ["lib.es2023.d.ts", "lib.esnext.disposable.d.ts", "lib.dom.d.ts"],
    },
  });
  const files = coreFiles(CORE).map((p) => project.addSourceFileAtPath(p));
  project.resolveSourceFileDependencies();
  shared = { project, names: readGenerated(), files };
  return shared;
}

/** Findings of a fixture: a module placed in src/core (so that its imports resolve), scanned, then removed. */
function scanFixture(text: string): Finding[] {
  const { project, names } = setUp();
  const file = project.createSourceFile(join(CORE, "math", "c-facts-fixture.ts"), text, { overwrite: true });
  try {
    return scan(project, [file], names);
  } finally {
    project.removeSourceFile(file);
  }
}

describe.skipIf(onceUnderBun !== "")(`C facts come from the generated tables${onceUnderBun}`, () => {
  it("src/core has no hand-written signatures or copied enum values", () => {
    const { project, names, files } = setUp();
    const findings = scan(project, files, names);
    expect(format(findings)).toBe("");
  });

  it("finds a hand-written spec and a hand-typed binding function", () => {
    const findings = scanFixture(`
      const T = { allReduce: { parameters: ["pointer", "pointer", "u64", "u32"], result: "u32" } };
      type R = { ncclAllReduce(s: unknown): number };
      export { T, type R };
    `);
    expect(findings.map((f) => [f.kind, f.line])).toEqual([
      ["signature", 2],
      ["signature", 3],
    ]);
  });

  it("finds enum values passed, asserted, compared, tabled and named; not counts", () => {
    const findings = scanFixture(`
      import { cublas, type cublasHandle_t, type cublasOperation_t, type cublasPointerMode_t } from "../../bindings/cublas.ts";
      import type { cudaDataType } from "../../bindings/runtime.ts";
      import type { ncclResult_t } from "../../bindings/tables/nccl-values.ts";
      declare const h: cublasHandle_t;
      declare const status: ncclResult_t;
      cublas.cublasSetPointerMode(h, 1);
      const op = 1 as cublasOperation_t;
      if (status === 7) throw new Error("in progress");
      const TYPES: Readonly<Record<string, cudaDataType>> = { f32: 0, bf16: 14 };
      const CU_MEMORYTYPE_DEVICE = 2;
      const DESC_TRANSA = 3;
      const count = 7;
      cublas.cublasSetWorkspace(h, null, 1);
      export { op, TYPES, CU_MEMORYTYPE_DEVICE, DESC_TRANSA, count };
      export const mode: cublasPointerMode_t = cublas.cublasGetPointerMode(h);
    `);
    expect(findings.map((f) => `${f.line} ${f.use}`)).toEqual([
      "7 cublasPointerMode_t.CUBLAS_POINTER_MODE_DEVICE",
      "8 cublasOperation_t.CUBLAS_OP_T",
      "9 ncclResult_t.ncclInProgress",
      "10 cudaDataType.CUDA_R_32F",
      "10 cudaDataType.CUDA_R_16BF",
      "11 CUmemorytype.CU_MEMORYTYPE_DEVICE",
      "12 cublasLtMatmulDescAttributes_t.CUBLASLT_MATMUL_DESC_TRANSA",
    ]);
  });
});
