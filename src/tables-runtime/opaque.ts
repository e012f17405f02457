/**
 * A C type that is declared but never defined (`typedef struct X X;`): code only ever holds pointers to it.
 *
 * @module
 */
declare const opaqueBrand: unique symbol;

/** An incomplete C type, usable only behind a pointer. */
export type Opaque<Name extends string> = { readonly [opaqueBrand]: Name };
