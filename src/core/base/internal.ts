/**
 * What the modules of cuda-ts share with each other and not with users: no entry point re-exports this module.
 *
 * `INTERNAL` is the token a constructor users must not call takes first (they use the class's factories instead);
 * TypeScript shows such a constructor taking an opaque token, and {@link checkInternal} refuses any other value at
 * run time.
 *
 * @module
 */
import { ArgumentError } from "../../errors/base.ts";

/** The token that opens the constructors reserved to cuda-ts. */
export const INTERNAL: unique symbol = Symbol("cuda-ts internal");

/** The type of {@link INTERNAL}: the first parameter of a constructor reserved to cuda-ts. */
export type Internal = typeof INTERNAL;

/**
 * Throws ArgumentError unless `token` is {@link INTERNAL}: `className` is made by cuda-ts, and `use` says how a
 * user gets one ("Device.createStream").
 */
export function checkInternal(token: unknown, className: string, use: string): void {
  if (token !== INTERNAL) throw new ArgumentError(`${className} is not constructed directly: use ${use}`);
}
