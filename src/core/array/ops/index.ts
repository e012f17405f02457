/**
 * The operation modules of `cuda-ts/array`, loaded by the package root so that the DeviceArray methods they
 * implement are registered (see src/core/array/methods.ts). Each module registers its methods as it loads.
 *
 * @module
 * @internal
 */
import "./cast.ts";
import "./arithmetic.ts";
import "./math.ts";
import "./selection.ts";
import "./creation.ts";
import "./statistics.ts";
import "./host.ts";
import "./sort.ts";
import "./search.ts";
import "./shape.ts";
import "./indexing.ts";
import "./scan.ts";
