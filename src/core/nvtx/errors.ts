/**
 * The errors of NVTX: an injection library that was not used, an argument of the wrong type or out of range. Each is
 * re-exported by src/core/errors.ts, the root's one import path for errors.
 *
 * @module
 */
import { ArgumentError, quietFields } from "../../errors/base.ts";

/** The NVTX injection library named by `NVTX_INJECTION64_PATH` was not used; every NVTX call stays a no-op. */
export class NvtxInjectionError extends ArgumentError {
  /** The variable's value. */
  readonly path: string;
  constructor(path: string, reason: string, remedy: string) {
    super(`NVTX: the injection library NVTX_INJECTION64_PATH=${path} was not used: ${reason}. ${remedy} NVTX calls stay no-ops.`);
    this.name = "NvtxInjectionError";
    this.path = path;
    quietFields(this);
  }
}

/** An NVTX argument of the wrong type or out of range (checked before anything reaches the tool). */
export class NvtxArgumentError extends ArgumentError {
  constructor(what: string, expected: string, got: unknown) {
    super(`NVTX: ${what} must be ${expected}; got ${nvtxDescribe(got)}.`);
    this.name = "NvtxArgumentError";
  }
}

function nvtxDescribe(v: unknown): string {
  if (typeof v === "string") return JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}...` : v);
  if (typeof v === "bigint") return `${v}n`;
  if (v === null) return "null";
  if (typeof v === "object") return v.constructor?.name ?? "an object";
  return `${typeof v} ${String(v)}`;
}
