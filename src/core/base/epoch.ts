/**
 * A counter bumped whenever a value that a packed argument list may hold changes in place: a scalar's value is
 * set, a buffer is closed or moved. A kernel whose last packed arguments are the same objects, with no bump since,
 * skips packing them again (see launch/launch.ts).
 *
 * @module
 */

/** The current epoch (read it; {@link argumentsChanged} bumps it). */
export let argumentEpoch = 0;

/** Marks every packed argument list as stale. */
export function argumentsChanged(): void {
  argumentEpoch++;
}
