/**
 * Lifetimes: every object that owns a CUDA resource has `close()` and `[Symbol.dispose]()`, and a
 * FinalizationRegistry releases what users forget (best effort: at garbage collection, never in a hurry).
 *
 * Release functions must not capture the object they release (that would keep it alive forever); they capture
 * the handle and the parents they need.
 *
 * @module
 */

const registry = new FinalizationRegistry<() => void>((release) => {
  try {
    release();
  } catch {
    // A failure while collecting garbage has nowhere to go: the process may be exiting, the context gone.
  }
});

/** Releases `release` when `owner` is collected, unless {@link untrack} is called first. */
export function track(owner: object, release: () => void): void {
  registry.register(owner, release, owner);
}

/** Cancels the release registered for `owner` (after an explicit close). */
export function untrack(owner: object): void {
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
