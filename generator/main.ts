/**
 * cuda-ts generator: CUDA Toolkit headers → typed, runtime-neutral FFI tables in generated/cuda-X.Y/.
 *
 *   deno run --allow-read --allow-write --allow-env --allow-ffi --allow-run generator/main.ts [options]
 *
 * (`npm run generate -- [options]`, `deno task generate [options]`; from the installed package:
 * `npx cuda-ts generate [options]`). The options are listed in generator/cli.ts and by `--help`.
 */
import { generatorMain } from "./cli.ts";

if (import.meta.main) {
  Deno.exit(generatorMain(Deno.args, { env: Deno.env.toObject() }));
}
