/**
 * Finding the include directory of an NVIDIA component: the directory that contains its marker header
 * (`cudart` → `cuda_runtime.h`, `nvrtc` → `nvrtc.h`, `nvvm` → `nvvm/include/nvvm.h`, `cccl` → `cuda/std/version`).
 * Search order: site-packages (wheels), conda, CUDA_PATH / CUDA_HOME, default root.
 *
 * @module
 */
import { headerDescriptor, SUPPORTED_HEADER_NAMES } from "./catalog.ts";
import { HeaderDirectoryNotFoundError, UnknownNameError } from "./errors.ts";
import type { ToolkitFoundVia } from "./search-steps.ts";
import { searchToolkitFile, type ToolkitSearchContext } from "./toolkit-files.ts";

/** An include directory the pathfinder found. */
export interface LocatedHeaderDirectory {
  /** The catalog name, such as `"nvrtc"`. */
  readonly name: string;
  /** The absolute path of the include directory. */
  readonly path: string;
  /** The header whose presence identified it, relative to `path`. */
  readonly headerFile: string;
  /** The search step that found it. */
  readonly foundVia: ToolkitFoundVia;
}

/** Finds an include directory; throws {@link UnknownNameError} or {@link HeaderDirectoryNotFoundError}. */
export function findHeaderDirectory(context: ToolkitSearchContext, name: string): LocatedHeaderDirectory {
  const descriptor = headerDescriptor(name);
  if (descriptor === undefined) throw new UnknownNameError("header directory", name, SUPPORTED_HEADER_NAMES);
  const outcome = searchToolkitFile(context, descriptor, [descriptor.headerFile]);
  if ("details" in outcome) throw new HeaderDirectoryNotFoundError("header directory", name, descriptor.headerFile, outcome.details);
  const { found } = outcome;
  return { name, path: found.directory, headerFile: descriptor.headerFile, foundVia: found.via };
}
