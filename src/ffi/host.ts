/**
 * Moved to src/host.ts (the host module is not part of the FFI layer). This re-export stays until src/cli imports
 * it from there.
 *
 * @module
 */
export * from "../host.ts";
