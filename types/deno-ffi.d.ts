/**
 * The part of Deno's FFI namespace src/ffi/deno.ts uses, declared for `tsc` (which type-checks the Bun side of the
 * project with bun-types and has no Deno types). `deno check` never reads this file: it has Deno's own, exact
 * declarations. Kept deliberately loose where deno.ts does not depend on the detail.
 */
declare namespace Deno {
  type NativeNumberType = "u8" | "i8" | "u16" | "i16" | "u32" | "i32" | "f32" | "f64";
  type NativeBigIntType = "u64" | "i64" | "usize" | "isize";
  interface NativeStructType {
    readonly struct: readonly NativeType[];
  }
  type NativeType = NativeNumberType | NativeBigIntType | "bool" | "pointer" | "buffer" | "function" | NativeStructType;
  type NativeResultType = NativeType | "void";
  interface ForeignFunction {
    name?: string;
    parameters: readonly NativeType[];
    result: NativeResultType;
    nonblocking?: boolean;
    optional?: boolean;
  }
  interface ForeignLibraryInterface {
    [name: string]: ForeignFunction;
  }
  type ParamValue<T> = T extends NativeNumberType
    ? number
    : T extends NativeBigIntType
      ? bigint | number
      : T extends "bool"
        ? boolean
        : T extends "pointer" | "function"
          ? PointerValue
          : T extends "buffer"
            ? ArrayBufferLike | ArrayBufferView | null
            : ArrayBufferLike | ArrayBufferView;
  type ResultValue<T> = T extends "void"
    ? undefined
    : T extends NativeNumberType
      ? number
      : T extends NativeBigIntType
        ? bigint
        : T extends "bool"
          ? boolean
          : T extends "pointer" | "function" | "buffer"
            ? PointerValue
            : Uint8Array;
  type ParamValues<P> = { -readonly [K in keyof P]: ParamValue<P[K]> };
  type SymbolFunction<F extends ForeignFunction> = F extends { nonblocking: true }
    ? (...args: ParamValues<F["parameters"]> & unknown[]) => Promise<ResultValue<F["result"]>>
    : (...args: ParamValues<F["parameters"]> & unknown[]) => ResultValue<F["result"]>;
  interface DynamicLibrary<S extends ForeignLibraryInterface> {
    symbols: { [K in keyof S]: S[K] extends { optional: true } ? SymbolFunction<S[K]> | null : SymbolFunction<S[K]> };
    close(): void;
  }
  function dlopen<const S extends ForeignLibraryInterface>(filename: string | URL, symbols: S): DynamicLibrary<S>;

  type PointerObject<T = unknown> = { readonly __denoPointer: T };
  type PointerValue<T = unknown> = PointerObject<T> | null;

  class UnsafePointer {
    static create(value: bigint | number): PointerValue;
    static equals(a: PointerValue, b: PointerValue): boolean;
    static of(value: ArrayBufferLike | ArrayBufferView): PointerValue;
    static offset(value: PointerObject, offset: number | bigint): PointerValue;
    static value(value: PointerValue): bigint;
  }
  class UnsafePointerView {
    constructor(pointer: PointerObject);
    static getCString(pointer: PointerObject, offset?: number): string;
    static getArrayBuffer(pointer: PointerObject, byteLength: number, offset?: number): ArrayBuffer;
    getCString(offset?: number): string;
    getArrayBuffer(byteLength: number, offset?: number): ArrayBuffer;
    getBool(offset?: number): boolean;
    getInt8(offset?: number): number;
    getUint8(offset?: number): number;
    getInt16(offset?: number): number;
    getUint16(offset?: number): number;
    getInt32(offset?: number): number;
    getUint32(offset?: number): number;
    getBigInt64(offset?: number): bigint;
    getBigUint64(offset?: number): bigint;
    getFloat32(offset?: number): number;
    getFloat64(offset?: number): number;
    getPointer(offset?: number): PointerValue;
  }
  class UnsafeFnPointer<Fn extends ForeignFunction = ForeignFunction> {
    constructor(pointer: PointerObject, definition: Fn);
    call(...args: unknown[]): unknown;
  }
  interface UnsafeCallbackDefinition {
    parameters: readonly NativeType[];
    result: NativeResultType;
  }
  type UnsafeCallbackFunction = (...args: never[]) => unknown;
  class UnsafeCallback<D extends UnsafeCallbackDefinition = UnsafeCallbackDefinition> {
    constructor(definition: D, callback: UnsafeCallbackFunction);
    static threadSafe<D extends UnsafeCallbackDefinition>(definition: D, callback: UnsafeCallbackFunction): UnsafeCallback<D>;
    readonly pointer: PointerObject;
    readonly definition: D;
    ref(): number;
    unref(): number;
    close(): void;
  }
  const build: { readonly arch: "x86_64" | "aarch64"; readonly os: string };
  const permissions: { querySync(desc: { name: string; variable?: string; path?: string }): { state: "granted" | "denied" | "prompt" } };
  const env: { get(name: string): string | undefined };
}
