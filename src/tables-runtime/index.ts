/**
 * What generated tables are built on: the entry point `cuda-ts/tables-runtime`, which the output of
 * `cuda-ts generate --out DIR` run from the installed package imports by name. Function tables and their specs, the
 * checked call style's runtime, record and opaque-handle classes, enum helpers and the FFI's type descriptors.
 *
 * The bindings use these very modules, so tables a user generates share their classes (one `RecordBase`, one
 * `Opaque`) with the package's own: pass the folder to `useGeneratedTables` (`cuda-ts/bindings`) or set
 * `CUDA_TS_GENERATED`. Only generated code needs this entry; scripts use `cuda-ts` and `cuda-ts/bindings`.
 *
 * @module
 */
export type { FunctionSpec, FunctionTable, LibraryInfo, ProcAddressSpec } from "./spec.ts";
export { functionTable } from "./function-table.ts";
export type { StructSlot } from "./function-table.ts";
export { lazyTable, type ArrayElement, type ArraySpec, type CheckedRuntime, type PointerLike } from "./checked.ts";
export type { Opaque } from "./opaque.ts";
export {
  PointerArray,
  RecordArray,
  RecordBase,
  RecordRangeError,
  type AccessorSpec,
  type FieldInfo,
  type RecordClass,
  type RecordDefinition,
  type RecordSource,
} from "./record.ts";
export { enumName, isEnumValue } from "./enum.ts";
export {
  address,
  type FunctionPointer,
  type FunctionType,
  type Handle,
  type NativeAddress,
  type NativePointer,
  type Pointer,
  type StructLayout,
} from "../ffi/types.ts";
