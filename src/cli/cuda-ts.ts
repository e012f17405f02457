#!/usr/bin/env -S bun
/**
 * The `cuda-ts` command, run by Bun or Deno (the package's `bin`, bin/cuda-ts.js, picks the runtime and starts
 * this module; it also runs directly: `bun src/cli/cuda-ts.ts doctor`).
 *
 * - `cuda-ts doctor [--json] [--verbose]`: what this machine offers (src/cli/doctor.ts).
 * - `cuda-ts run -n N script.ts`: starts the ranks of a multi-process job (src/cli/run.ts).
 * - `cuda-ts generate [options]`: regenerates the bindings' tables from a CUDA Toolkit's headers (the generator
 *   drives libclang through Deno's FFI, so it runs on Deno only; under Bun this says what to install).
 *
 * @module
 */
import { doctorReport, formatDoctor } from "./doctor.ts";
import { RUN_USAGE, runCommand } from "./run.ts";

/** The usage text. */
export const USAGE = [
  "usage: cuda-ts doctor [--json] [--verbose]",
  "       cuda-ts generate [--cuda-home DIR] [--out DIR] [options]   (Deno; --help lists the options)",
  RUN_USAGE.replace("usage: ", "       "),
].join("\n");

/** What `generate` needs that Bun cannot do, and how to get it. */
export const GENERATE_NEEDS_DENO =
  "cuda-ts generate runs on Deno (it drives libclang through Deno's FFI), and no Deno was found. Install it " +
  "(`npm install --save-dev deno`, or see https://deno.com) and run again; it also needs libclang " +
  "(Debian/Ubuntu: `apt-get install libclang1-19 libclang-common-19-dev`).";

interface DenoLike {
  args: string[];
  mainModule?: string;
}

const deno = (globalThis as unknown as { Deno?: DenoLike }).Deno;

/** This module's own extension: `.ts` from the sources, `.js` from the package's compiled dist/. */
const extension = import.meta.url.endsWith(".ts") ? "ts" : "js";

/**
 * The package's root: two folders up from the sources (src/cli/), three from the compiled dist/src/cli/.
 * headers-manifest.json lives there.
 */
function packageRoot(): URL {
  return new URL(extension === "ts" ? "../../" : "../../../", import.meta.url);
}

async function generate(args: readonly string[]): Promise<number> {
  if (deno === undefined) {
    console.error(GENERATE_NEEDS_DENO);
    return 2;
  }
  // From the sources, generator/cli.ts; from the package, the bundle dist/generator/cli.js (same relative path).
  const specifier = `../../generator/cli.${extension}`;
  const { generatorMain } = (await import(specifier)) as {
    generatorMain(argv: readonly string[], defaults: { manifest?: string; env: Record<string, string | undefined>; command?: string }): number;
  };
  const env = (globalThis as unknown as { Deno: { env: { toObject(): Record<string, string> } } }).Deno.env.toObject();
  const manifest = new URL("headers-manifest.json", packageRoot()).pathname;
  const custom = args.includes("--manifest");
  return generatorMain(args, { env, command: "cuda-ts generate", ...(custom ? {} : { manifest }) });
}

/**
 * Runs one `cuda-ts` command; returns the exit status (0 done, 1 a check failed, 2 a usage error or something the
 * machine lacks).
 */
export async function main(args: readonly string[]): Promise<number> {
  const [command, ...rest] = args;
  switch (command) {
    case "doctor": {
      const unknown = rest.filter((a) => a !== "--json" && a !== "--verbose");
      if (unknown.length > 0) {
        console.error(`cuda-ts doctor: unknown option ${JSON.stringify(unknown[0])}.\n${USAGE}`);
        return 2;
      }
      const report = await doctorReport();
      console.log(rest.includes("--json") ? JSON.stringify(report, null, 2) : formatDoctor(report, { verbose: rest.includes("--verbose") }));
      return 0;
    }
    case "generate":
      return await generate(rest);
    case "run":
      return await runCommand(rest);
    case undefined:
    case "--help":
    case "-h":
    case "help":
      console.log(USAGE);
      return 0;
    default:
      console.error(`cuda-ts: unknown command ${JSON.stringify(command)}.\n${USAGE}`);
      return 2;
  }
}

if (import.meta.main) {
  const code = await main(deno?.args ?? process.argv.slice(2));
  process.exit(code);
}
