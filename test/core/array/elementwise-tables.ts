/**
 * The tables of docs/arrays.md that are generated from the code: the promotion table of the 15 dtypes (from
 * promoteTypes) and the result dtypes of the unary operations. elementwise.test.ts fails when the file's copy
 * differs; print fresh ones with
 *
 *   bun test/core/array/elementwise-tables.ts
 *
 * and paste them over the old ones.
 */
import { promoteTypes } from "../../../src/core/array/promotion.ts";
import { DTYPE_NAMES, dtypes } from "../../../src/core/array/dtype.ts";
import { UNARY_OPS } from "../../../src/core/array/ops/math.ts";
import { unaryResultName } from "../../../src/core/array/ops/elementwise.ts";

/** Short column names, so that the table fits a page. */
const SHORT: Readonly<Record<string, string>> = {
  bool: "b1",
  int8: "i1",
  uint8: "u1",
  int16: "i2",
  uint16: "u2",
  int32: "i4",
  uint32: "u4",
  int64: "i8",
  uint64: "u8",
  float16: "f2",
  bfloat16: "bf16",
  float32: "f4",
  float64: "f8",
  complex64: "c8",
  complex128: "c16",
};

/** The markdown table of `promoteTypes` over every pair of dtypes (short names, a legend above it in the docs). */
export function promotionTable(): string {
  const head = `| | ${DTYPE_NAMES.map((n) => SHORT[n]).join(" | ")} |`;
  const rule = `|---|${DTYPE_NAMES.map(() => "---").join("|")}|`;
  const rows = DTYPE_NAMES.map((a) => `| **${SHORT[a]}** | ${DTYPE_NAMES.map((b) => SHORT[promoteTypes(dtypes[a], dtypes[b]).name]).join(" | ")} |`);
  return [head, rule, ...rows].join("\n");
}

/** The markdown table of the unary operations' result dtypes ("—": refused, a DTypeError). */
export function unaryTable(): string {
  const head = `| | ${DTYPE_NAMES.map((n) => SHORT[n]).join(" | ")} |`;
  const rule = `|---|${DTYPE_NAMES.map(() => "---").join("|")}|`;
  const rows = Object.entries(UNARY_OPS).map(([name, spec]) => `| ${name} | ${DTYPE_NAMES.map((d) => {
    const r = unaryResultName(spec, d);
    return r === undefined ? "—" : SHORT[r];
  }).join(" | ")} |`);
  return [head, rule, ...rows].join("\n");
}

/** The text between `<!-- begin NAME -->` and `<!-- end NAME -->` in `doc`, trimmed (undefined when absent). */
export function generatedSection(doc: string, name: string): string | undefined {
  const m = new RegExp(`<!-- begin ${name} -->\\n([\\s\\S]*?)\\n<!-- end ${name} -->`).exec(doc);
  return m?.[1]?.trim();
}

if ((import.meta as { main?: boolean }).main) {
  console.log("<!-- begin promotion-table -->\n" + promotionTable() + "\n<!-- end promotion-table -->\n");
  console.log("<!-- begin unary-table -->\n" + unaryTable() + "\n<!-- end unary-table -->");
}
