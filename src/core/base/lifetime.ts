/**
 * Lifetimes: every object that owns a CUDA resource has `close()` and `[Symbol.dispose]()`, and a
 * FinalizationRegistry releases what users forget (best effort: at garbage collection, never in a hurry).
 *
 * Release functions must not capture the object they release (that would keep it alive forever); they capture
 * the handle and the parents they need. A release function reports failure by throwing (a checked binding call
 * does); the failure goes to `onReleaseError`'s handler, or to its default warning (see `release-errors.ts`),
 * with the kind the object was tracked under.
 *
 * @module
 */
import { reportReleaseFailure } from "./release-errors.ts";
import { faulted } from "./fault.ts";

/** What the registry holds for a registered object: its release and its kind (made once it leaves the nursery). */
class Registered {
  constructor(
    readonly release: () => void,
    readonly kind: string,
  ) {}
}

const registry = new FinalizationRegistry<Registered>((held) => {
  // After a sticky fault the driver's resources went with the context: a finalizer releases nothing.
  if (faulted()) return;
  try {
    held.release();
  } catch (e) {
    // Nothing can catch a throw from here: the failure goes to the onReleaseError handler (which never throws).
    reportReleaseFailure(held.kind, e, "finalizer");
  }
});

/**
 * Makes the release function of a tracked object (see {@link trackLazily}); it must not capture `owner`.
 * @internal
 */
export type ReleaseMaker<T extends object> = (owner: T) => () => void;

// The nursery. Registering with a FinalizationRegistry and unregistering again costs more than the CUDA call of a
// short-lived object (an event created and closed, a pool allocation freed at once), so objects are registered only
// once they outlive the current job: tracked objects wait here (held strongly, at most NURSERY_SIZE of them) until
// a microtask, or a full nursery, registers those still open; `untrack` of an object still here only forgets it.
// A forgotten object is thereby released at a garbage collection after the job that made it, not during it.
const NURSERY_SIZE = 64;
const pendingOwners: (object | undefined)[] = new Array<object | undefined>(NURSERY_SIZE).fill(undefined);
const pendingReleases: ((() => void) | undefined)[] = new Array<(() => void) | undefined>(NURSERY_SIZE).fill(undefined);
const pendingMakers: (ReleaseMaker<object> | undefined)[] = new Array<ReleaseMaker<object> | undefined>(NURSERY_SIZE).fill(undefined);
const pendingKinds: string[] = new Array<string>(NURSERY_SIZE).fill("");
let pending = 0;
let flushQueued = false;

/** Registers every object still in the nursery with the FinalizationRegistry and empties the nursery. */
function flush(): void {
  flushQueued = false;
  for (let i = 0; i < pending; i++) {
    const owner = pendingOwners[i]!;
    const release = pendingReleases[i] ?? pendingMakers[i]!(owner);
    registry.register(owner, new Registered(release, pendingKinds[i]!), owner);
    pendingOwners[i] = undefined;
    pendingReleases[i] = undefined;
    pendingMakers[i] = undefined;
  }
  pending = 0;
}

function enqueue(owner: object, kind: string, release: (() => void) | undefined, maker: ReleaseMaker<object> | undefined): void {
  if (pending === NURSERY_SIZE) flush();
  pendingOwners[pending] = owner;
  pendingReleases[pending] = release;
  pendingMakers[pending] = maker;
  pendingKinds[pending] = kind;
  pending++;
  if (!flushQueued) {
    flushQueued = true;
    queueMicrotask(flush);
  }
}

/**
 * Releases `release` when `owner` is collected, unless {@link untrack} is called first. `kind` names the owner's
 * class for a failure report (`"Stream"`): a constant string, so that tracking allocates nothing for it. `release`
 * reports a failure by throwing.
 */
export function track(owner: object, kind: string, release: () => void): void {
  enqueue(owner, kind, release, undefined);
}

/**
 * Like {@link track}, for hot paths: `makeRelease(owner)` is called only if `owner` is still open when it leaves the
 * nursery, so an object closed soon after it was made allocates no release function. `makeRelease` reads the
 * owner's state as it is then; it should be a function made once (a static method), not a new closure.
 */
export function trackLazily<T extends object>(owner: T, kind: string, makeRelease: ReleaseMaker<T>): void {
  enqueue(owner, kind, undefined, makeRelease as ReleaseMaker<object>);
}

/** Cancels the release registered for `owner` (after an explicit close). */
export function untrack(owner: object): void {
  for (let i = pending - 1; i >= 0; i--) {
    if (pendingOwners[i] === owner) {
      const last = --pending;
      pendingOwners[i] = pendingOwners[last];
      pendingReleases[i] = pendingReleases[last];
      pendingMakers[i] = pendingMakers[last];
      pendingKinds[i] = pendingKinds[last]!;
      pendingOwners[last] = undefined;
      pendingReleases[last] = undefined;
      pendingMakers[last] = undefined;
      return;
    }
  }
  registry.unregister(owner);
}

/** An identity map from native addresses to live objects (WeakRef), as cuda-python keeps for `from_handle`. */
export class IdentityMap<T extends object> {
  private readonly map = new Map<number, WeakRef<T>>();

  get(address: number): T | undefined {
    const ref = this.map.get(address);
    const v = ref?.deref();
    if (ref !== undefined && v === undefined) this.map.delete(address);
    return v;
  }

  set(address: number, value: T): void {
    this.map.set(address, new WeakRef(value));
  }

  delete(address: number, value: T): void {
    if (this.map.get(address)?.deref() === value) this.map.delete(address);
  }
}
