/**
 * What Node.js gets for every entry point of the package (the `node` export condition): cuda-ts's one-line
 * refusal instead of Node's own errors. The import throws {@link UnsupportedRuntimeError}, so a program that tries
 * `await import("cuda-ts")` can catch it; when nothing catches it, the process prints the one line and exits 1
 * (instead of Node's stack trace).
 *
 * @module
 */
import { UnsupportedRuntimeError } from "./ffi/no-ffi.ts";

interface NodeProcessLike {
  on(event: "uncaughtException", listener: (error: unknown) => void): void;
  off(event: "uncaughtException", listener: (error: unknown) => void): void;
  stderr: { write(text: string): void };
  exit(code: number): never;
}

const refusal = new UnsupportedRuntimeError();
const host = (globalThis as { process?: NodeProcessLike }).process;
if (host !== undefined) {
  const listener = (error: unknown): void => {
    host.off("uncaughtException", listener);
    if (error !== refusal) throw error;
    host.stderr.write(`${refusal.message}\n`);
    host.exit(1);
  };
  host.on("uncaughtException", listener);
  // A caught refusal leaves no listener behind: the import's failure reaches the handler before any timer runs.
  setTimeout(() => host.off("uncaughtException", listener), 0);
}
throw refusal;
