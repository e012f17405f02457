/**
 * Finding bitcode libraries (`device` → `libdevice.10.bc`, in `nvvm/libdevice` under a toolkit root and
 * `nvidia/cu13/nvvm/libdevice` in CUDA 13 wheels) and static libraries (`cudadevrt` → `libcudadevrt.a`).
 * Search order: site-packages (wheels), conda, CUDA_PATH / CUDA_HOME, default root.
 *
 * @module
 */
import {
  bitcodeDescriptor,
  staticLibraryDescriptor,
  SUPPORTED_BITCODE_NAMES,
  SUPPORTED_STATIC_LIBRARY_NAMES,
  type FileDescriptor,
} from "./catalog.ts";
import { BitcodeLibraryNotFoundError, StaticLibraryNotFoundError, UnknownNameError, type NotFoundDetails } from "./errors.ts";
import type { ToolkitFoundVia } from "./search-steps.ts";
import { searchToolkitFile, type ToolkitSearchContext } from "./toolkit-files.ts";

/** A bitcode or static library the pathfinder found. */
export interface LocatedLibraryFile {
  /** The catalog name, such as `"device"`. */
  readonly name: string;
  /** The absolute path of the file. */
  readonly path: string;
  /** Its file name, such as `libdevice.10.bc`. */
  readonly fileName: string;
  /** The search step that found it. */
  readonly foundVia: ToolkitFoundVia;
}

function findFile(
  context: ToolkitSearchContext,
  descriptor: FileDescriptor,
  notFound: (details: NotFoundDetails) => Error,
): LocatedLibraryFile {
  const outcome = searchToolkitFile(context, descriptor, [descriptor.fileName]);
  if ("details" in outcome) throw notFound(outcome.details);
  return { name: descriptor.name, path: outcome.found.path, fileName: descriptor.fileName, foundVia: outcome.found.via };
}

/** Finds a bitcode library; throws {@link UnknownNameError} or {@link BitcodeLibraryNotFoundError}. */
export function findBitcodeFile(context: ToolkitSearchContext, name: string): LocatedLibraryFile {
  const descriptor = bitcodeDescriptor(name);
  if (descriptor === undefined) throw new UnknownNameError("bitcode library", name, SUPPORTED_BITCODE_NAMES);
  return findFile(context, descriptor, (d) => new BitcodeLibraryNotFoundError("bitcode library", name, descriptor.fileName, d));
}

/** Finds a static library; throws {@link UnknownNameError} or {@link StaticLibraryNotFoundError}. */
export function findStaticFile(context: ToolkitSearchContext, name: string): LocatedLibraryFile {
  const descriptor = staticLibraryDescriptor(name);
  if (descriptor === undefined) throw new UnknownNameError("static library", name, SUPPORTED_STATIC_LIBRARY_NAMES);
  return findFile(context, descriptor, (d) => new StaticLibraryNotFoundError("static library", name, descriptor.fileName, d));
}
