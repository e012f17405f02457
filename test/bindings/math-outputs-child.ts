/**
 * Run by test/bindings/math-outputs.test.ts in a child process (a binding loads its library once per process):
 * `math-outputs-child.ts LIBRARY VERSION PLAN.json` binds the library the environment points the pathfinder at (a
 * mock that writes known values into every output), calls each checked function the plan names with stand-in
 * arguments, and compares what it returns with the values the mock wrote. Prints one JSON line.
 */
import { readFileSync } from "node:fs";
import { ffi } from "../../src/ffi/index.ts";
import type { BindingExtras } from "../../src/bindings/binding.ts";
import type { MathOutputPlan, MathOutputResult } from "./math-outputs-plan.ts";

const [library, version, planPath] = process.argv.slice(2) as [string, string, string];
const plan = JSON.parse(readFileSync(planPath, "utf8")) as MathOutputPlan;
const entries: Record<string, [string, string]> = {
  cublas: ["../../src/bindings/cublas.ts", "cublas"],
  cublaslt: ["../../src/bindings/cublaslt.ts", "cublasLt"],
  cufft: ["../../src/bindings/cufft.ts", "cufft"],
  curand: ["../../src/bindings/curand.ts", "curand"],
  cusolver: ["../../src/bindings/cusolver.ts", "cusolver"],
  cusparse: ["../../src/bindings/cusparse.ts", "cusparse"],
};
const [path, name] = entries[library]!;
const mod = (await import(path)) as Record<string, unknown>;
const binding = mod[name] as BindingExtras<object> & Record<string, (...a: unknown[]) => unknown>;
const choice = binding.table();

/** A stand-in for an argument of native type `t` (the mock reads none of them). */
function standIn(t: string, property: boolean): unknown {
  if (t === "pointer" || t === "function") return ffi.pointerFromAddress(0x200000n);
  if (t === "f32" || t === "f64") return 1;
  return property ? 0 : 1;
}

/** What a returned value is, for a message. */
function show(v: unknown): string {
  if (typeof v === "bigint") return `${v}n`;
  if (v !== null && typeof v === "object" && !Array.isArray(v)) return `[object ${(v as object).constructor?.name ?? "Object"}]`;
  try {
    return JSON.stringify(v, (_, x) => (typeof x === "bigint" ? `${x}n` : x));
  } catch {
    return String(v);
  }
}

const result: MathOutputResult = { library, version, table: choice.table.library.ctkVersion, reason: choice.reason, checked: 0, values: 0, failures: [] };
for (const f of plan.functions) {
  const spec = choice.table.functions[f.name];
  if (spec === undefined) {
    result.failures.push({ function: f.name, detail: `not in the ${result.table} table` });
    continue;
  }
  const outIndex = new Set(f.outputs.map((o) => o.index));
  const property = /GetProperty$/.test(f.name);
  const args = spec.parameters.flatMap((t, i) => (outIndex.has(i) ? [] : [standIn(typeof t === "string" ? t : "struct", property)]));
  let got: unknown;
  try {
    got = binding[f.name]!(...args);
  } catch (e) {
    result.failures.push({ function: f.name, detail: `threw ${(e as Error).name}: ${(e as Error).message}` });
    continue;
  }
  result.checked++;
  const values = f.outputs.length === 1 ? [got] : Array.isArray(got) ? got : undefined;
  if (values === undefined || values.length !== f.outputs.length) {
    result.failures.push({ function: f.name, detail: `expected ${f.outputs.length} values, got ${show(got)}` });
    continue;
  }
  f.outputs.forEach((o, k) => {
    const v = values[k];
    result.values++;
    let ok: boolean;
    switch (o.kind) {
      case "i32":
      case "u32":
      case "f32":
      case "f64":
        ok = typeof v === "number" && v === Number(o.value);
        break;
      case "i64":
        ok = typeof v === "bigint" && v === BigInt(o.value);
        break;
      case "ptr":
        ok = v !== undefined && ffi.isPointer(v) && ffi.bigAddressOf(v as never) === BigInt(o.value);
        break;
      case "record":
        ok = v !== null && typeof v === "object" && typeof (v as { $pointer?: unknown }).$pointer === "function";
        break;
    }
    if (!ok) result.failures.push({ function: f.name, detail: `${o.name} (${o.kind}): expected ${o.value}, got ${show(v)}` });
  });
}
console.log(JSON.stringify(result));
