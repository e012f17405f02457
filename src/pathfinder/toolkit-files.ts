/**
 * The lookup shared by headers, binaries, bitcode and static libraries: a file named by the catalog, looked for
 * along the toolkit-layout steps (site-packages, conda, CUDA_PATH / CUDA_HOME, default root).
 *
 * @module
 */
import type { PathfinderConfig } from "./context.ts";
import { Search } from "./context.ts";
import type { NotFoundDetails } from "./errors.ts";
import { findInToolkitLayouts, REGULAR_FILE, type Candidate, type FileTest, type LayoutSpec, type ToolkitFoundVia } from "./search-steps.ts";

/** What a toolkit-file search needs from the pathfinder that runs it. */
export interface ToolkitSearchContext {
  /** The configuration. */
  readonly config: PathfinderConfig;
  /** Warns once per distinct message. */
  readonly warnOnce: (message: string) => void;
}

/** The hint of every toolkit-file "not found" error. */
export const TOOLKIT_HINT =
  "To fix: set CUDA_PATH (or CUDA_HOME) to a CUDA Toolkit root, or install NVIDIA's Python wheels in an active " +
  "virtualenv or conda environment.";

/** Looks for one of `fileNames` along the toolkit-layout steps; returns the file or the report of the search. */
export function searchToolkitFile(
  context: ToolkitSearchContext,
  spec: LayoutSpec,
  fileNames: readonly string[],
  test: FileTest = REGULAR_FILE,
): { readonly found: Candidate<ToolkitFoundVia> } | { readonly details: NotFoundDetails } {
  const search = new Search(context.config);
  const found = findInToolkitLayouts(search, spec, fileNames, context.warnOnce, test);
  if (found !== undefined) return { found };
  return { details: { attempts: search.attempts, hint: TOOLKIT_HINT, missingPermissions: [...search.missingPermissions] } };
}
