/**
 * Finding NVIDIA's command-line tools (nvcc, ptxas, nvlink, nvdisasm, cuobjdump, fatbinary, compute-sanitizer, ...).
 * Search order: site-packages (wheels), conda (`$CONDA_PREFIX/bin`), CUDA_PATH / CUDA_HOME (`bin`), default root.
 * A file counts only when it is executable. `PATH` and the current directory are never searched.
 *
 * @module
 */
import { binaryDescriptor, SUPPORTED_BINARY_NAMES } from "./catalog.ts";
import { BinaryUtilityNotFoundError, UnknownNameError } from "./errors.ts";
import { EXECUTABLE_FILE, type ToolkitFoundVia } from "./search-steps.ts";
import { searchToolkitFile, type ToolkitSearchContext } from "./toolkit-files.ts";

/** An executable the pathfinder found. */
export interface LocatedBinaryUtility {
  /** The utility's name, such as `"nvcc"`. */
  readonly name: string;
  /** The absolute path of the executable. */
  readonly path: string;
  /** The search step that found it. */
  readonly foundVia: ToolkitFoundVia;
}

/** Finds a binary utility; throws {@link UnknownNameError} or {@link BinaryUtilityNotFoundError}. */
export function findBinaryUtility(context: ToolkitSearchContext, name: string): LocatedBinaryUtility {
  const descriptor = binaryDescriptor(name);
  if (descriptor === undefined) throw new UnknownNameError("binary utility", name, SUPPORTED_BINARY_NAMES);
  const outcome = searchToolkitFile(context, descriptor, [descriptor.name], EXECUTABLE_FILE);
  if ("details" in outcome) throw new BinaryUtilityNotFoundError("binary utility", name, "an executable file", outcome.details);
  return { name, path: outcome.found.path, foundVia: outcome.found.via };
}
