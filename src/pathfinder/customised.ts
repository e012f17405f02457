/**
 * Whether the shared pathfinder has been given options of a script's own (`setDefaultPathfinderOptions`): a module
 * of its own, so that the driver binding can ask without loading the pathfinder (src/bindings/driver-library.ts).
 *
 * @module
 */

let customised = false;

/** @internal Marks the shared pathfinder as built from a script's own options. */
export function markDefaultPathfinderCustomised(): void {
  customised = true;
}

/** @internal Whether `setDefaultPathfinderOptions` has been called in this process. */
export function defaultPathfinderCustomised(): boolean {
  return customised;
}
