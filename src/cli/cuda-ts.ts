#!/usr/bin/env -S bun
/**
 * The `cuda-ts` command. `cuda-ts doctor [--json]`: what this machine offers (also `bun run doctor`,
 * `deno task doctor`).
 *
 * @module
 */
import { doctorReport, formatDoctor } from "./doctor.ts";

const args = (globalThis as unknown as { Deno?: { args: string[] } }).Deno?.args ?? process.argv.slice(2);
const [command, ...rest] = args;

if (command === "doctor") {
  const report = await doctorReport();
  console.log(rest.includes("--json") ? JSON.stringify(report, null, 2) : formatDoctor(report));
} else {
  console.log("usage: cuda-ts doctor [--json]");
  if (command !== undefined && command !== "--help" && command !== "-h") {
    console.error(`unknown command ${JSON.stringify(command)}`);
    (globalThis as unknown as { Deno?: { exit(c: number): never } }).Deno?.exit(2);
    process.exit(2);
  }
}
