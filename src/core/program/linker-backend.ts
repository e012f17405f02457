/**
 * Which linker a {@link Linker} uses: nvJitLink when it loads (12.3+, with `nvJitLinkVersion`) and its major
 * version matches the driver's (or the driver's is unknown); otherwise the driver's `cuLink*` functions, which
 * cannot link LTO-IR or emit PTX and have no minor-version compatibility. Falling back prints a warning once per
 * process, as cuda.core does.
 *
 * @module
 */
import { driver } from "../../bindings/driver.ts";
import { nvjitlinkModule } from "./libraries.ts";
import { briefError } from "../../errors/describe.ts";
import { LinkerUnavailableError } from "./errors.ts";

/** The linker a Linker uses (the names of cuda.core's `Linker.backend`). */
export type LinkerBackend = "nvJitLink" | "driver";

/** What the probe found: nvJitLink's version, or why it cannot be used. */
export type NvJitLinkProbe = { readonly version: readonly [major: number, minor: number] } | { readonly problem: string };

let probed: NvJitLinkProbe | undefined;
let warned = false;

/** Probes nvJitLink once per process (loads it and calls `nvJitLinkVersion`). */
export function probeNvJitLink(): NvJitLinkProbe {
  if (probed !== undefined) return probed;
  try {
    const [major, minor] = nvjitlinkModule().nvjitlink.nvJitLinkVersion();
    probed = { version: [major, minor] };
  } catch (e) {
    probed = { problem: briefError(e) };
  }
  return probed;
}

/** The installed driver's major CUDA version, or undefined when there is no driver. */
function driverMajorVersion(): number | undefined {
  try {
    const v = driver.driverVersion();
    return v > 0 ? Math.floor(v / 1000) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The backend for a link, from the driver's major version (undefined: unknown), nvJitLink's version (undefined:
 * unusable) and whether the link needs nvJitLink (LTO-IR inputs, link-time optimisation or PTX output). Throws
 * when the link needs nvJitLink and it cannot be used.
 */
export function chooseLinkerBackend(
  driverMajor: number | undefined,
  nvJitLinkVersion: readonly [number, number] | undefined,
  needsNvJitLink: boolean,
  problem = "nvJitLink is not available",
): LinkerBackend {
  if (nvJitLinkVersion === undefined) {
    if (needsNvJitLink) {
      throw new LinkerUnavailableError(
        `LTO-IR inputs, link-time optimisation and PTX output need nvJitLink, and the driver's linker cannot do them: ${problem}. ` +
          "Install nvJitLink (the nvidia-nvjitlink wheel or a CUDA Toolkit) matching the driver's major version.",
      );
    }
    return "driver";
  }
  const major = nvJitLinkVersion[0];
  if (driverMajor === undefined || driverMajor === major) return "nvJitLink";
  if (needsNvJitLink) {
    throw new LinkerUnavailableError(
      `cannot link with nvJitLink ${major}.x for a CUDA ${driverMajor}.x driver: LTO-IR, link-time optimisation and PTX output need ` +
        "matching major versions, and the driver's linker cannot do them. Install an nvJitLink of the driver's major version.",
    );
  }
  return "driver";
}

/**
 * The backend this process uses for a link (`needsNvJitLink`: LTO-IR, LTO or PTX output). Prints a warning once
 * when it falls back to the driver because nvJitLink cannot be used.
 */
export function whichLinkerBackend(needsNvJitLink = false): LinkerBackend {
  const probe = probeNvJitLink();
  const version = "version" in probe ? probe.version : undefined;
  const backend = chooseLinkerBackend(version === undefined ? undefined : driverMajorVersion(), version, needsNvJitLink, "problem" in probe ? probe.problem : undefined);
  if (backend === "driver" && !warned) {
    warned = true;
    const why = "problem" in probe ? `nvJitLink cannot be used (${probe.problem})` : `nvJitLink ${version?.join(".")} does not match the driver's major version`;
    console.warn(
      `cuda-ts: ${why}; linking falls back to the driver's cuLink* functions, which cannot link LTO-IR or emit PTX and ` +
        "have no minor-version compatibility. Install nvJitLink for the best results.",
    );
  }
  return backend;
}

/** @internal Forgets the probe and the warning (tests). */
export function resetLinkerBackendProbe(): void {
  probed = undefined;
  warned = false;
}
