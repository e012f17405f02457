/**
 * cuda-ts generator: CUDA Toolkit headers → typed, runtime-neutral FFI tables in generated/cuda-X.Y/.
 *
 *   deno run --allow-read --allow-write --allow-env --allow-ffi --allow-run generator/main.ts [options]
 *
 * Options:
 *   --cuda-home DIR     toolkit root (default: CUDA_HOME, CUDA_PATH, /usr/local/cuda)
 *   --include DIR       an include directory searched before the toolkit's (repeatable)
 *   --out DIR           output root (default generated/)
 *   --manifest FILE     the manifest (default headers-manifest.json)
 *   --ctk-version X.Y   the CTK version (default: CUDA_VERSION in cuda.h)
 *   --library NAME      only this library (repeatable)
 *   --check             compare with what is committed; exit 1 on any difference
 *   --emit-ir DIR       also write the intermediate representation as JSON
 *   --record-hashes     record the headers' sha256 for this CTK version in the manifest
 */
import { run, GeneratorError } from "./run.ts";
import { ManifestError } from "./manifest.ts";
import { LibclangNotFoundError } from "./libclang/find.ts";
import { ParseError } from "./libclang/api.ts";

function parseArgs(argv: string[]) {
  const opts = {
    manifest: "headers-manifest.json",
    includes: [] as string[],
    cudaHome: undefined as string | undefined,
    out: "generated",
    ctkVersion: undefined as string | undefined,
    libraries: [] as string[],
    check: false,
    emitIr: undefined as string | undefined,
    recordHashes: false,
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
      case "--check":
        opts.check = true;
        break;
      case "--record-hashes":
        opts.recordHashes = true;
        break;
      case "--help":
      case "-h":
        console.log(
          "usage: npm run generate -- [--cuda-home DIR] [--include DIR]... [--out DIR] [--manifest FILE]\n" +
            "                           [--ctk-version X.Y] [--library NAME]... [--check] [--emit-ir DIR] [--record-hashes]",
        );
        Deno.exit(0);
        break;
      default:
        throw new GeneratorError(`unknown option ${a}; see --help.`);
    }
  }
  if (opts.cudaHome === undefined) {
    const env = Deno.env.get("CUDA_HOME") || Deno.env.get("CUDA_PATH");
    opts.cudaHome = env || "/usr/local/cuda";
  }
  return opts;
}

if (import.meta.main) {
  try {
    const opts = parseArgs(Deno.args);
    Deno.exit(run({ ...opts, log: (l) => console.log(l) }));
  } catch (e) {
    if (e instanceof GeneratorError || e instanceof ManifestError || e instanceof LibclangNotFoundError || e instanceof ParseError) {
      console.error(`generator: ${e.message}`);
      Deno.exit(2);
    }
    throw e;
  }
}
