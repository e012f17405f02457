/**
 * Moved to src/core/system/nvml.ts. This re-export stays until src/cli imports it from there.
 *
 * @module
 */
export * from "./system/nvml.ts";
