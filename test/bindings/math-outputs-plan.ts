/**
 * What test/bindings/math-outputs.test.ts hands its child (test/bindings/math-outputs-child.ts) and gets back: per
 * checked function with outputs, each output's parameter index, kind and the value the mock writes there.
 *
 * @module
 */

/** How an output is written by the mock and read back: a C scalar of that width, a pointer, or a record (not written). */
export type OutputKind = "i32" | "u32" | "i64" | "f32" | "f64" | "ptr" | "record";

/** One output of one function. */
export interface PlannedOutput {
  /** The C parameter's name. */
  readonly name: string;
  /** Its index among the C parameters. */
  readonly index: number;
  readonly kind: OutputKind;
  /** The value the mock writes (decimal text: 64-bit values and addresses do not fit a JSON number). */
  readonly value: string;
}

/** The functions of one library and table version whose checked forms return outputs. */
export interface MathOutputPlan {
  readonly functions: readonly { readonly name: string; readonly outputs: readonly PlannedOutput[] }[];
}

/** What the child reports. */
export interface MathOutputResult {
  readonly library: string;
  readonly version: string;
  /** The table the binding chose. */
  readonly table: string;
  readonly reason: string;
  /** Functions called. */
  checked: number;
  /** Values compared. */
  values: number;
  readonly failures: { function: string; detail: string }[];
}
