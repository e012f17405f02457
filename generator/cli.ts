/**
 * The generator's command line, as a function: `generatorMain(args)` parses the options, runs the generator and
 * returns the exit status (0 done, 1 `--check` found differences, 2 bad input: one message, nothing written).
 * generator/main.ts calls it from the repository (`npm run generate`); the package's `cuda-ts generate` calls it
 * from its bundle (dist/generator/cli.js), with the package's own headers-manifest.json as the default manifest.
 *
 * Options:
 *   --cuda-home DIR     toolkit root (default: CUDA_HOME, CUDA_PATH, /usr/local/cuda)
 *   --include DIR       an include directory searched before the toolkit's (repeatable)
 *   --out DIR           output root (default generated/)
 *   --manifest FILE     the manifest (default headers-manifest.json)
 *   --ctk-version X.Y   the CTK version (default: CUDA_VERSION in cuda.h)
 *   --library NAME      only this library (repeatable); a library of another version axis (nccl): DIR/nccl-X.Y/
 *   --check             compare with what is there; exit 1 on any difference
 *   --quiet             leave out the table of each version's libraries
 *   --emit-ir DIR       also write the intermediate representation as JSON
 *   --record-hashes     record the headers' sha256 for this CTK version in the manifest
 *   --toolkits DIR      every CTK version of the manifest, each from DIR/X.Y/include (absent: checked by hashes)
 *
 * @module
 */
import { run, GeneratorError } from "./run.ts";
import { ManifestError } from "./manifest.ts";
import { LibclangNotFoundError } from "./libclang/find.ts";
import { ParseError } from "./libclang/api.ts";

/** What the options default to where the command line says nothing. */
export interface GeneratorDefaults {
  /** The manifest (default `headers-manifest.json` in the working directory). */
  readonly manifest?: string;
  /** The environment (CUDA_HOME, CUDA_PATH). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** How the usage line names the command. */
  readonly command?: string;
}

/** The options, one line each (`--help`). */
export const GENERATOR_USAGE = [
  "  --cuda-home DIR     toolkit root (default: CUDA_HOME, CUDA_PATH, /usr/local/cuda)",
  "  --include DIR       an include directory searched before the toolkit's (repeatable)",
  "  --out DIR           output root (default generated/); the tables go to DIR/cuda-X.Y/",
  "  --manifest FILE     the manifest of headers and their sha256 per CTK version",
  "  --ctk-version X.Y   the CTK version (default: CUDA_VERSION in cuda.h)",
  "  --library NAME      only this library (repeatable); a library versioned apart from the CTK (nccl) goes to",
  "                      DIR/<axis>-X.Y/, its version read from its own header (NCCL_MAJOR, NCCL_MINOR)",
  "  --check             compare with what is in --out; exit 1 on any difference",
  "  --quiet             leave out the table of each version's libraries (differences and notes are still printed)",
  "  --emit-ir DIR       also write the intermediate representation as JSON",
  "  --record-hashes     record the headers' sha256 for this CTK version in the manifest",
  "  --toolkits DIR      every CTK version of the manifest, each from DIR/X.Y/include; with --check, a version",
  "                      whose headers are absent is checked against the manifest's sha256 and the seals",
].join("\n");

function parseArgs(argv: string[], defaults: GeneratorDefaults) {
  const opts = {
    manifest: defaults.manifest ?? "headers-manifest.json",
    includes: [] as string[],
    cudaHome: undefined as string | undefined,
    out: "generated",
    ctkVersion: undefined as string | undefined,
    libraries: [] as string[],
    check: false,
    emitIr: undefined as string | undefined,
    recordHashes: false,
    quiet: false,
    toolkits: undefined as string | undefined,
    help: false,
  };
  const value = (i: number, flag: string): string => {
    const v = argv[i + 1];
    if (v === undefined || v.startsWith("--")) throw new GeneratorError(`${flag} needs a value.`);
    return v;
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    switch (a) {
      case "--manifest":
        opts.manifest = value(i++, a);
        break;
      case "--include":
        opts.includes.push(value(i++, a));
        break;
      case "--cuda-home":
        opts.cudaHome = value(i++, a);
        break;
      case "--out":
        opts.out = value(i++, a);
        break;
      case "--ctk-version":
        opts.ctkVersion = value(i++, a);
        break;
      case "--library":
        opts.libraries.push(value(i++, a));
        break;
      case "--emit-ir":
        opts.emitIr = value(i++, a);
        break;
      case "--toolkits":
        opts.toolkits = value(i++, a);
        break;
      case "--check":
        opts.check = true;
        break;
      case "--record-hashes":
        opts.recordHashes = true;
        break;
      case "--quiet":
        opts.quiet = true;
        break;
      case "--help":
      case "-h":
        opts.help = true;
        break;
      default:
        throw new GeneratorError(`unknown option ${a}; see --help.`);
    }
  }
  if (opts.cudaHome === undefined) {
    opts.cudaHome = defaults.env.CUDA_HOME || defaults.env.CUDA_PATH || "/usr/local/cuda";
  }
  return opts;
}

/**
 * Runs the generator with these command-line arguments; returns the exit status. Bad input prints one message
 * (`generator: ...`) to stderr and returns 2; anything else unexpected is thrown.
 */
export function generatorMain(argv: readonly string[], defaults: GeneratorDefaults): number {
  try {
    const opts = parseArgs([...argv], defaults);
    if (opts.help) {
      console.log(`usage: ${defaults.command ?? "npm run generate --"} [options]\n${GENERATOR_USAGE}`);
      return 0;
    }
    const { help: _help, ...rest } = opts;
    return run({ ...rest, log: (l) => console.log(l) });
  } catch (e) {
    if (e instanceof GeneratorError || e instanceof ManifestError || e instanceof LibclangNotFoundError || e instanceof ParseError) {
      console.error(`generator: ${e.message}`);
      return 2;
    }
    throw e;
  }
}
