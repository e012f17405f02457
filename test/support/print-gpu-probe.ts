/** Prints the GPU probe's result as JSON (test/support/gpu-required.test.ts runs this in a child process). */
import { gpu } from "./gpu.ts";

console.log(JSON.stringify(gpu));
