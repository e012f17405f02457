/**
 * headers-manifest.json: which libraries to generate, from which headers, and per CTK version the headers'
 * sha256. Validated with zod; a manifest that fails validation stops the generator with the path of each problem.
 */
import { z } from "zod";
import { readFileSync } from "node:fs";

const identifier = z.string().regex(/^[A-Za-z_]\w*$/, "a C identifier");
const headerPath = z
  .string()
  .regex(/^[\w.+-]+(\/[\w.+-]+)*\.h$/, "a relative header path such as cuda.h or crt/host_defines.h");

/** A library's subset (see `subsets`). */
const subset = z
  .object({
    /** Who uses it and why. */
    description: z.string().min(1),
    /** The functions, by C name (a name these headers do not declare is left out: older versions lack some). */
    functions: z.array(identifier).min(1),
    /** Constants the user reads (macros and anonymous enumerators), by name. */
    constants: z.array(identifier).default([]),
    /** Enums the user reads as values, by name (the status enum is always there: error messages name the code). */
    enums: z.array(identifier).default([]),
  })
  .strict();

/** What a reviewed rule or override makes a pointer parameter (see generator/parse/roles.ts). */
const pointerRole = z.enum(["output", "caller-buffer", "input"]);

/** A regular expression (source text), checked to compile. */
const regexSource = z.string().min(1).refine((s) => {
  try {
    new RegExp(s);
    return true;
  } catch {
    return false;
  }
}, "a regular expression that compiles");

/**
 * A reviewed rule for pointer parameters the headers do not document: the functions and parameters it covers and the
 * role it gives them. Rules are tried in order; the first that matches decides, and report.json names it.
 */
const pointerRule = z
  .object({
    /** Why the role is right, in words: report.json records it for each parameter the rule decided. */
    rule: z.string().min(1),
    /** The functions: a regular expression matched against the whole C name. */
    functions: regexSource,
    /** The parameters: a regular expression matched against the whole name (absent: every one). */
    parameters: regexSource.optional(),
    /** The parameters' C type as the header spells it: a regular expression matched against the whole spelling. */
    type: regexSource.optional(),
    role: pointerRole,
  })
  .strict();

const library = z
  .object({
    description: z.string().min(1),
    /** Headers parsed and emitted. */
    headers: z.array(headerPath).min(1),
    /** Further headers (included by `headers`) whose declarations belong to this library. */
    owns: z.array(headerPath).default([]),
    /** Headers parsed for metadata only (cudaTypedefs.h). Not emitted. */
    auxiliary: z.array(headerPath).default([]),
    /** The pathfinder's name of the shared library. */
    library: z.string().min(1),
    /** Resolve functions through cuGetProcAddress with the versions from the PFN typedefs of `auxiliary`. */
    procAddress: z.boolean().default(false),
    /** Parse again with CUDA_API_PER_THREAD_DEFAULT_STREAM to find the per-thread-default-stream symbols. */
    ptds: z.boolean().default(false),
    /** Only functions whose names start with one of these are emitted (others are reported as skipped). */
    functionPrefixes: z.array(z.string().min(1)).min(1),
    /** Preprocessor definitions for the parse. */
    defines: z.record(identifier, z.string()).default({}),
    /**
     * The status type functions return (CUresult, nvrtcResult, ...); the checked style throws when it is not 0.
     * `field` names the member holding the code when the status is a struct (cuFile's CUfileError_t).
     */
    status: z.object({ type: identifier, field: identifier.optional() }).strict().optional(),
    /** Status values that the checked style returns instead of throwing (cuStreamQuery's CUDA_ERROR_NOT_READY). */
    nonErrors: z.record(identifier, z.array(identifier)).default({}),
    /** Output-parameter overrides: function → parameter names returned by the checked style. */
    outputs: z.record(identifier, z.array(identifier)).default({}),
    /** Parameters that the doc comments call outputs but that are not (arrays, in/out counts). */
    notOutputs: z.record(identifier, z.array(identifier)).default({}),
    /** Output arrays whose length only the documentation gives (`float* pBorderColor`, four floats): function → parameter → length. */
    fixedArrays: z.record(identifier, z.record(identifier, z.number().int().positive())).default({}),
    /**
     * Buffers sized by a parameter whose name or documentation does not say so (cuDeviceGetPCIBusId's `len` sizes
     * `pciBusId`): function → buffer parameter → its count or byte size parameter. The checked style then refuses a
     * size past the memory given, or returns the buffer when the function fills it.
     */
    counts: z.record(identifier, z.record(identifier, identifier)).default({}),
    /** Status values meaning "the array is too small; the count now holds the size needed" (NVML_ERROR_INSUFFICIENT_SIZE). */
    sizeQueryStatus: z.array(identifier).default([]),
    /** The library whose functions are twins of this one's (runtime ↔ driver): output overrides apply to both. */
    twin: identifier.optional(),
    /**
     * Records with a version field and the constant that names their version (nvmlPciInfoExt_v1_t →
     * nvmlPciInfoExt_v1): the checked style stamps it into the records it allocates. `pattern` turns a record
     * name into its constant's name; `$1` is the record name without its `_t`/`_st` suffix.
     */
    structVersions: z.object({ field: identifier, patterns: z.array(z.string().min(1)).min(1) }).strict().optional(),
    /**
     * The version axis of a library that versions apart from the CTK (NCCL): a key of the manifest's `axes`. Its
     * hashes live under `axes.<axis>.versions`, its output in generated/<axis>-X.Y/. Absent: the CTK's (`ctk`).
     */
    axis: identifier.optional(),
    /**
     * Small tables of part of the library, for a module that needs only a few of its functions and must load them
     * at import (Deno has no synchronous loader): name → the functions, and the enums and constants the module
     * reads. Each is emitted beside the library's files as `<name>.ts` with its own records (those the functions
     * reach), its status enum and those enums and constants; the whole library's tables are not loaded with it.
     */
    subsets: z.record(identifier, subset).default({}),
    /**
     * Parts of the checked style's makers, emitted as modules of their own (`checked-impl.<name>.ts`, gathered by
     * `checked-impl.ts`): name → who uses the part and why, and its functions by C name (a name these headers do not
     * declare is left out: older versions lack some). A binding may load a part alone: the object layer's calls
     * without the whole library's makers.
     */
    makerParts: z.record(identifier, z.object({ description: z.string().min(1), functions: z.array(identifier).min(1) }).strict()).default({}),
    /**
     * Reviewed rules for the pointer parameters the headers do not document (see `pointerRule`): the last pointer of
     * a cuSOLVER `*_bufferSize` is the size it returns; cuSPARSE's `*Get` functions write every pointer they take.
     */
    pointerRules: z.array(pointerRule).default([]),
    /**
     * Per-function overrides where a rule or the documentation is wrong: function → parameter → role. Applied before
     * anything else; report.json names them.
     */
    pointerRoles: z.record(identifier, z.record(identifier, pointerRole)).default({}),
    /**
     * Every pointer parameter decided by the documentation, a rule or an override, never by a guess: the generator
     * fails naming each pointer nothing decided.
     */
    decidePointers: z.boolean().default(false),
  })
  .strict();

const ctkVersion = z
  .object({
    /** Header path → sha256 (hex) of the file in this CTK version. */
    headers: z.record(headerPath, z.string().regex(/^[0-9a-f]{64}$/, "a sha256 in lower-case hex")),
  })
  .strict();

const versionKey = z.string().regex(/^\d+\.\d+$/, "a version such as 13.0 or 2.28");

/** A second version axis: libraries released apart from the CTK (NCCL), each version with its headers' sha256. */
const axis = z
  .object({
    description: z.string().min(1),
    /** The header whose macros say the version (nccl.h). */
    versionHeader: headerPath,
    /** The macros holding the major and minor version (NCCL_MAJOR, NCCL_MINOR). */
    versionMacros: z.tuple([identifier, identifier]),
    /** Version → its headers' sha256. */
    versions: z.record(versionKey, ctkVersion),
  })
  .strict();

/** The schema of headers-manifest.json. */
export const manifestSchema = z
  .object({
    $comment: z.string().optional(),
    libraries: z.record(identifier, library),
    ctk: z.record(z.string().regex(/^\d+\.\d+$/, "a CTK version such as 13.0"), ctkVersion),
    /** Version axes other than the CTK's (see the libraries' `axis`). */
    axes: z.record(identifier, axis).default({}),
  })
  .strict()
  .superRefine((m, ctx) => {
    for (const [name, lib] of Object.entries(m.libraries)) {
      if (lib.axis !== undefined && !(lib.axis in m.axes)) {
        ctx.addIssue({ code: "custom", path: ["libraries", name, "axis"], message: `axis ${lib.axis} is not in the manifest's axes (${Object.keys(m.axes).join(", ") || "none"})` });
      }
    }
    const entries: [string[], string, Record<string, { headers: Record<string, string> }>, string | undefined][] = [
      [["ctk"], "CTK", m.ctk, undefined],
      ...Object.entries(m.axes).map(([a, spec]) => [["axes", a, "versions"], a, spec.versions, a] as [string[], string, Record<string, { headers: Record<string, string> }>, string]),
    ];
    for (const [at, label, versions, axisName] of entries) for (const [version, entry] of Object.entries(versions)) {
      for (const [name, lib] of Object.entries(m.libraries)) {
        if (lib.axis !== axisName) continue;
        const files = [...lib.headers, ...lib.owns, ...lib.auxiliary];
        const have = files.filter((f) => f in entry.headers);
        if (have.length > 0 && have.length < files.length) {
          ctx.addIssue({
            code: "custom",
            path: [...at, version, "headers"],
            message: `library ${name} lists ${files.join(", ")} but ${label} ${version} hashes only ${have.join(", ")}`,
          });
        }
      }
    }
  });

export type Manifest = z.infer<typeof manifestSchema>;
export type LibrarySpec = Manifest["libraries"][string];

/** Raised for a manifest that cannot be read or fails validation. */
export class ManifestError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ManifestError";
  }
}

/** Reads and validates a manifest file. */
export function loadManifest(path: string): Manifest {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    throw new ManifestError(`cannot read the manifest ${path}: ${(e as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new ManifestError(`${path} is not valid JSON: ${(e as Error).message}`);
  }
  const parsed = manifestSchema.safeParse(json);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `  - ${i.path.join(".") || "(root)"}: ${i.message}`);
    throw new ManifestError(`${path} fails validation:\n${problems.join("\n")}\nFix the manifest and run again.`);
  }
  return parsed.data;
}

/** The hashes of one version: a CTK version's, or (with `axis`) a version of that axis. */
export function versionEntry(m: Manifest, version: string, axis?: string): { headers: Record<string, string> } | undefined {
  return axis === undefined ? m.ctk[version] : m.axes[axis]?.versions[version];
}

/** The libraries a CTK version (or a version of `axis`) of the manifest has hashes for, in manifest order. */
export function librariesFor(m: Manifest, version: string, axis?: string): string[] {
  const entry = versionEntry(m, version, axis);
  if (!entry) return [];
  return Object.entries(m.libraries)
    .filter(([, lib]) => lib.axis === axis && lib.headers.every((h) => h in entry.headers))
    .map(([name]) => name);
}

/** The output folder's name of a version: cuda-13.0, or nccl-2.28 for a version of the nccl axis. */
export function releaseFolder(version: string, axis?: string): string {
  return `${axis ?? "cuda"}-${version}`;
}

/** Every header file a library's declarations and metadata come from. */
export function libraryFiles(lib: LibrarySpec): string[] {
  return [...lib.headers, ...lib.owns, ...lib.auxiliary];
}
