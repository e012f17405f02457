/**
 * `CUDA_TS_DEBUG`: a list of debug modes (commas or spaces), each read once. `guards` (guard bytes after the checked
 * calls' memory: src/bindings/checked-runtime.ts), `sync` (every launch waits for its kernel, so a fault names its
 * own launch and device `printf` output comes out before the next line of the script), `leaks` (where each live
 * allocation was made, the largest sources printed at exit).
 *
 * @module
 */
import { getEnv } from "../../host.ts";

let flags: readonly string[] | undefined;

/** Whether `CUDA_TS_DEBUG` lists `name`. */
export function debugFlag(name: "guards" | "sync" | "leaks"): boolean {
  flags ??= (getEnv("CUDA_TS_DEBUG") ?? "").split(/[,\s]+/).filter((f) => f !== "");
  return flags.includes(name);
}

/** The source directory of cuda-ts: stack frames under it are the library's, not the script's. */
const OWN_SOURCE = new URL("../../", import.meta.url).pathname;

/** The first frame of `stack` outside cuda-ts (the script's line), or undefined. */
export function scriptFrame(stack: string | undefined): string | undefined {
  if (stack === undefined) return undefined;
  for (const line of stack.split("\n").slice(1)) {
    const frame = line.trim().replace(/^at\s+/, "");
    if (frame === "" || frame.includes(OWN_SOURCE) || frame.includes("node_modules/cuda-ts/")) continue;
    return frame;
  }
  return undefined;
}
