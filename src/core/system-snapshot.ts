/**
 * Moved to src/core/system/snapshot.ts. This re-export stays until src/cli imports it from there.
 *
 * @module
 */
export * from "./system/snapshot.ts";
