/**
 * The headers cuda-ts provides to NVRTC programs without any include path: a C++ source that includes one
 * (`#include <cuda_ts/array.h>`) gets its text as an in-memory header (nvrtcCreateProgram's `headers` and
 * `includeNames`), and the compile cache's key gets a digest of that text, so a cached kernel built against an
 * older header is not reused.
 *
 * @module
 */
import { ARRAY_HEADER_NAME, ARRAY_HEADER_SOURCE } from "../array/array-header.ts";
import { sha256Hex } from "./cache-entry.ts";

/** The package's headers by include name. */
export const PACKAGE_HEADERS: Readonly<Record<string, string>> = Object.freeze({ [ARRAY_HEADER_NAME]: ARRAY_HEADER_SOURCE });

const NAMES = Object.keys(PACKAGE_HEADERS);

/** The package headers `source` names (a cheap text search: an unused mention only costs an unused header). */
export function packageHeadersFor(source: string): { names: string[]; sources: string[] } {
  const names: string[] = [];
  const sources: string[] = [];
  if (!source.includes("cuda_ts/")) return { names, sources };
  for (const n of NAMES) {
    if (source.includes(n)) {
      names.push(n);
      sources.push(PACKAGE_HEADERS[n]!);
    }
  }
  return { names, sources };
}

let digests: Map<string, string> | undefined;

/** A digest of the package headers `source` names, or undefined when it names none (for the compile cache's key). */
export function packageHeaderDigest(source: string): string | undefined {
  const { names, sources } = packageHeadersFor(source);
  if (names.length === 0) return undefined;
  const key = names.join("\0");
  digests ??= new Map();
  let d = digests.get(key);
  if (d === undefined) digests.set(key, (d = sha256Hex(...names.flatMap((n, i) => [n, sources[i]!]))));
  return d;
}
