/**
 * The driver binding with the driver's enums, constants and records: what the object layer and the tests import.
 * Users import the two apart, `cuda-ts/bindings/driver` (./driver-entry.ts) and `cuda-ts/bindings/driver/types`
 * (./driver-types.ts).
 *
 * @module
 */
export * from "./driver-binding.ts";
export * from "./driver-types.ts";
