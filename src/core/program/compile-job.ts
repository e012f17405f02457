/**
 * One compilation as a Worker runs it for `Program.compileAsync`: the request (the source, its kind, the options as
 * plain data, the target, the name expressions) and the result (the code's bytes, moved back in the transfer list,
 * the symbol mapping and the log). `runCompileJob` is the worker's handler; it builds a Program of its own in the
 * worker's realm (own FFI tables, the device's primary context shared) and compiles synchronously there.
 *
 * @module
 */
import type { HandlerResult } from "../worker/serve.ts";
import type { CodeType } from "./cache.ts";
import type { ObjectCodeFormat } from "./object-code.ts";
import type { CompileTarget, ProgramOptionsInit } from "./options.ts";
import { Program } from "./program.ts";

/** What the main thread sends: everything a Program and its compile() need, as structured-cloneable data. */
export interface CompileRequest {
  readonly code: string | Uint8Array;
  readonly codeType: CodeType;
  readonly options: ProgramOptionsInit;
  readonly target: CompileTarget;
  readonly nameExpressions: readonly string[];
}

/** What the worker answers: the compiled code (its buffer moved, not copied) and what the ObjectCode needs. */
export interface CompileResult {
  readonly format: ObjectCodeFormat;
  readonly name: string;
  readonly code: Uint8Array;
  readonly symbolMapping: Record<string, string>;
  readonly log: string;
}

/** Compiles `request` here (in a worker) and returns the result with its code's buffer in the transfer list. */
export function runCompileJob(request: CompileRequest): HandlerResult<CompileResult> {
  using program = new Program(request.code, request.codeType, request.options);
  const object = program.compile(request.target, { nameExpressions: request.nameExpressions });
  const code = object.code; // the ObjectCode's private copy: an ArrayBuffer of its own, exactly the code's length
  const result: CompileResult = { format: object.format, name: object.name, code, symbolMapping: object.symbolMapping, log: program.log };
  return { result, transfer: [code.buffer as ArrayBuffer] };
}
