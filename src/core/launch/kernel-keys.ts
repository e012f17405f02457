/**
 * The symbol keys of the members of `Kernel` that launch, graphs and ObjectCode use. They live here, below
 * both kernel.ts and launch.ts (which import each other's values otherwise), and no entry point re-exports them.
 *
 * @module
 */
/**
 * The key of the handle to launch in `context`, which the caller has made current: the kernel's CUfunction there
 * (`cuKernelGetFunction`, once per context, then kept). The driver would otherwise look the CUfunction up from the
 * CUkernel on every launch, which costs it hundreds of nanoseconds of CPU time. Keyed by the Context object: a
 * context created at a destroyed one's address is another object. ClosedError when the code was closed.
 */
export const kLaunchHandle: unique symbol = Symbol("launchHandle");
/** The key of what the ObjectCode calls when it closes. */
export const kMarkClosed: unique symbol = Symbol("markClosed");
/** The key of the kernel's reusable argument memory (built on first launch). */
export const kArgumentPlan: unique symbol = Symbol("argumentPlan");
/**
 * The key of what makes sure a launch on `device` may use `bytes` of dynamic shared memory: above 48 KiB, it raises
 * the kernel's maxDynamicSharedSizeBytes once per device (and again only for a larger request).
 */
export const kAllowDynamicSharedMemory: unique symbol = Symbol("allowDynamicSharedMemory");
