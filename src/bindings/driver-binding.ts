/**
 * The driver binding itself (see ./driver-entry.ts, `cuda-ts/bindings/driver`, for how it binds libcuda): `driver`,
 * its configuration and its error, over the function table alone.
 *
 * @module
 */
import { ffi } from "../ffi/index.ts";
import { getEnv } from "../host.ts";
import type { NativePointer } from "../ffi/types.ts";
import { type Checked, carriedVersions, createChecked, functions, generatedTables, library as info, type Raw } from "./tables/driver.ts";
import type { CUresult } from "../../generated/cuda-13.0/driver/enums.ts";
import { TableNotLoadedError } from "./tables/older-tables.ts";
import type { GeneratedTable } from "./tables/registry.ts";
import {
  type BindingExtras,
  createBinding,
  type LoadedLibrary,
  newestNotNewerThan,
  type Resolver,
  resolveBySymbol,
  type TableChooser,
  versionNumber,
} from "./binding.ts";
import { formatCudaVersion } from "./describe.ts";
import { openDriverLibrary } from "./driver-library.ts";
import { CudaError, FunctionNotFoundError, DriverAlreadyBoundError } from "./errors.ts";
import { faultFor, processFault, whenFaulted } from "./driver-fault.ts";

export { functions, library, carriedVersions, generatedTables, createChecked, type Raw, type Checked } from "./tables/driver.ts";

/** Options of the driver binding; see {@link configureDriver}. */
export interface DriverOptions {
  /** Resolve stream-ordered functions to their per-thread-default-stream variants. */
  readonly perThreadDefaultStream?: boolean;
  /**
   * Bind the newest table not newer than this CTK version ("12.4") even where the driver is newer: code written
   * for CUDA 12 gets 12.x's ABI of every function. Default: `CUDA_TS_DRIVER_TABLE`, else the driver's version.
   */
  readonly tableVersion?: string;
}

let options: DriverOptions = {};
let loadedOnce = false;

/**
 * Configures the driver binding. Only before the first driver call: afterwards the functions are already bound,
 * and this throws.
 */
export function configureDriver(next: DriverOptions): void {
  if (loadedOnce) {
    throw new DriverAlreadyBoundError();
  }
  options = { ...options, ...next };
}

/** Whether the driver binding resolves per-thread-default-stream variants. */
export function perThreadDefaultStream(): boolean {
  if (options.perThreadDefaultStream !== undefined) return options.perThreadDefaultStream;
  const env = getEnv("CUDA_TS_PER_THREAD_DEFAULT_STREAM");
  return env !== undefined && Number.parseInt(env, 10) !== 0 && !Number.isNaN(Number.parseInt(env, 10));
}

const QUERY_RESULT = ["CU_GET_PROC_ADDRESS_SUCCESS", "CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND", "CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT"];

interface DriverState {
  getProcAddress: Raw["cuGetProcAddress"];
  scratch: ArrayBuffer;
  slots: DataView;
  pfn: NativePointer;
  status: NativePointer;
  ptds: boolean;
  version: number;
}

let state: DriverState | undefined;
let warned = false;

function driverState(lib: LoadedLibrary): DriverState {
  if (state) return state;
  // Bound by its exported symbol (cuGetProcAddress_v2): it is what resolves every other function.
  const getProcAddress = lib.native.bind(functions.cuGetProcAddress.symbol, functions.cuGetProcAddress);
  if (getProcAddress === null) {
    throw new FunctionNotFoundError("cuGetProcAddress_v2", "driver", `${lib.path} does not export cuGetProcAddress_v2 (CUDA 12.0+ drivers do); update the NVIDIA driver.`);
  }
  const scratch = new ArrayBuffer(16);
  const base = ffi.pointerOf(scratch);
  const getVersion = lib.native.bind(functions.cuDriverGetVersion.symbol, functions.cuDriverGetVersion);
  let version = 0;
  if (getVersion !== null && getVersion(base) === 0) version = new DataView(scratch).getInt32(0, true);
  state = {
    getProcAddress: getProcAddress as Raw["cuGetProcAddress"],
    scratch,
    slots: new DataView(scratch),
    pfn: base,
    status: ffi.offsetPointer(base, 8),
    ptds: perThreadDefaultStream(),
    version,
  };
  return state;
}

/** The newest table not newer than the driver's CUDA version (cuDriverGetVersion). */
const chooseDriverTable: TableChooser = (lib, tables) => {
  const s = driverState(lib);
  const pin = options.tableVersion ?? getEnv("CUDA_TS_DRIVER_TABLE");
  if (pin !== undefined && pin !== "") {
    if (!/^\d+\.\d+$/.test(pin)) throw new TypeError(`the driver table version is "${pin}"; expected a CTK version such as 12.4 (configureDriver({ tableVersion }) or CUDA_TS_DRIVER_TABLE).`);
    const limit = s.version === 0 ? versionNumber(pin) : Math.min(versionNumber(pin), s.version);
    requireLoaded(tables, limit);
    return {
      table: newestNotNewerThan(tables, limit),
      ...(s.version === 0 ? {} : { libraryVersion: formatCudaVersion(s.version) }),
      reason: `pinned to ${pin}${s.version === 0 ? "" : `, cuDriverGetVersion ${s.version}`}`,
    };
  }
  if (s.version === 0) return { table: tables[0]!, reason: "newest (cuDriverGetVersion did not answer)" };
  requireLoaded(tables, s.version);
  return { table: newestNotNewerThan(tables, s.version), libraryVersion: formatCudaVersion(s.version), reason: `cuDriverGetVersion ${s.version}` };
};

/**
 * Throws {@link TableNotLoadedError} where a carried table older than every loaded one would serve `version` (a CUDA
 * version number): the older tables were left out at start (./tables/older-tables.ts).
 */
function requireLoaded(tables: readonly { library: { ctkVersion: string } }[], version: number): void {
  const oldestLoaded = versionNumber(tables[tables.length - 1]!.library.ctkVersion);
  if (version >= oldestLoaded) return;
  const wanted = carriedVersions.find((v) => versionNumber(v) <= version); // older than every loaded table, as version is
  if (wanted !== undefined) throw new TableNotLoadedError("driver", wanted);
}

function onLoad(lib: LoadedLibrary, choice: { table: { library: { ctkVersion: string } } }): void {
  loadedOnce = true;
  const s = driverState(lib);
  const tableVersion = versionNumber(choice.table.library.ctkVersion);
  if (!warned && s.version !== 0 && s.version < tableVersion && getEnv("CUDA_TS_DISABLE_VERSION_WARNING") === undefined) {
    warned = true;
    console.warn(
      `cuda-ts: the oldest generated table is CUDA ${choice.table.library.ctkVersion} but the installed driver (${lib.path}) supports CUDA ` +
        `${formatCudaVersion(s.version)}; functions newer than the driver fail when called. Update the driver, or set ` +
        "CUDA_TS_DISABLE_VERSION_WARNING=1 to silence this.",
    );
  }
}

const names = new Map<string, Uint8Array>();

const resolveDriver: Resolver = (name, spec, lib, opts) => {
  const pa = spec.procAddress;
  if (pa === undefined) return resolveBySymbol(name, spec, lib, opts);
  const s = driverState(lib);
  const version = s.ptds && pa.ptdsVersion !== undefined ? pa.ptdsVersion : pa.version;
  let cname = names.get(pa.name);
  if (cname === undefined) names.set(pa.name, (cname = ffi.cstring(pa.name)));
  s.slots.setBigUint64(0, 0n, true);
  s.slots.setUint32(8, 0, true);
  const flags = s.ptds ? 2n /* CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM */ : 0n; /* CU_GET_PROC_ADDRESS_DEFAULT */
  const r = s.getProcAddress(ffi.pointerOf(cname), s.pfn, version, flags, s.status);
  const status = s.slots.getUint32(8, true);
  const pfn = ffi.readPointer(s.slots, 0);
  if (r !== 0 || status !== 0 || pfn === null) {
    const why = r !== 0 ? statusName(r, lib) : (QUERY_RESULT[status] ?? `status ${status}`);
    throw new FunctionNotFoundError(
      name,
      "driver",
      `cuGetProcAddress("${pa.name}", ${version}) gave ${why}; the installed driver (${lib.path}) supports CUDA ` +
        `${s.version ? formatCudaVersion(s.version) : "(unknown)"}, and ${name} needs the ABI of CUDA ${formatCudaVersion(version)}. Update the NVIDIA driver.`,
    );
  }
  const hint = s.ptds ? (spec.ptdsSymbol ?? spec.symbol) : spec.symbol;
  return lib.native.bindAt(pfn, spec, { nameHint: hint, nonblocking: opts.nonblocking });
};

let errorStrings: { get: Raw["cuGetErrorString"]; slot: DataView; out: NativePointer } | undefined;

/** The driver's own description of a CUresult (cuGetErrorString), or undefined before the driver is loaded. */
function describe(code: number): string | undefined {
  const lib = driver.loaded;
  if (lib === undefined) return undefined;
  if (errorStrings === undefined) {
    const get = lib.native.bind(functions.cuGetErrorString.symbol, functions.cuGetErrorString);
    if (get === null) return undefined;
    const buffer = new ArrayBuffer(8);
    errorStrings = { get: get as Raw["cuGetErrorString"], slot: new DataView(buffer), out: ffi.pointerOf(buffer) };
  }
  if (errorStrings.get(code as CUresult, errorStrings.out) !== 0) return undefined;
  return ffi.readCString(ffi.readPointer(errorStrings.slot, 0)) ?? undefined;
}

let statusNames: ReadonlyMap<number, string> | undefined;
let errorNames: { get: Raw["cuGetErrorName"]; slot: DataView; out: NativePointer } | undefined;

/**
 * Gives the driver binding the names of CUresult's values (the generated enum, which src/bindings/driver-types.ts
 * holds). Importing the driver binding alone does not evaluate the driver's enums; until they are given, a status is
 * named by the driver itself (cuGetErrorName), which gives the same names.
 */
export function provideStatusNames(values: Readonly<Record<string, number>>): void {
  const names = new Map<number, string>();
  for (const [name, value] of Object.entries(values)) if (!names.has(value)) names.set(value, name);
  statusNames = names;
}

/** A CUresult's name: the generated enum's where it is loaded, else the driver's own (cuGetErrorName). */
function statusName(code: number, lib: LoadedLibrary | undefined = driver.loaded): string {
  const known = statusNames?.get(code);
  if (known !== undefined) return known;
  if (lib !== undefined) {
    if (errorNames === undefined) {
      const get = lib.native.bind(functions.cuGetErrorName.symbol, functions.cuGetErrorName);
      if (get !== null) {
        const buffer = new ArrayBuffer(8);
        errorNames = { get: get as Raw["cuGetErrorName"], slot: new DataView(buffer), out: ffi.pointerOf(buffer) };
      }
    }
    if (errorNames !== undefined && errorNames.get(code as CUresult, errorNames.out) === 0) {
      const name = ffi.readCString(ffi.readPointer(errorNames.slot, 0));
      if (name) return name;
    }
  }
  return `CUresult(${code})`;
}

/**
 * Builds the CudaError of a failed driver call: a DeviceFaultError (./driver-fault.ts) for a sticky code, and for
 * every failure once one was seen.
 */
export function cudaError(code: number | bigint, fn: string): CudaError {
  const c = Number(code);
  const fault = faultFor(c, fn, () => describe(c) ?? "no description (unknown code)", () => statusName(c));
  if (fault !== undefined) return fault;
  const name = statusName(c);
  return new CudaError(c, name, describe(c) ?? "no description (unknown code)", fn);
}

// After a sticky fault the checked functions stop calling the driver: each function of the native tables they
// call through (captured as each table's checked style is made) is replaced by one that returns the fault's code
// at once, which the checked call turns into the DeviceFaultError naming the first fault. Releases (destroy, free,
// unload, unmap, unregister) return success instead: closing an object after a fault releases nothing and does
// not throw, so a fault inside `using` reaches the catch as itself. The raw call style still calls the driver.
const nativeTables = new Set<Record<string, unknown>>();
const RELEASE = /(Destroy|Free|FreeAsync|FreeHost|Unload|Release|Unregister|Unmap|Close|Detach)(_v\d+)?$/;

function capturingNative(make: GeneratedTable["createChecked"]): GeneratedTable["createChecked"] {
  return (native, rt) => {
    nativeTables.add(native as unknown as Record<string, unknown>);
    return make(native, rt);
  };
}

const capturedTables = new WeakMap<object, GeneratedTable>();
function capturing(table: GeneratedTable): GeneratedTable {
  let t = capturedTables.get(table);
  if (t === undefined) capturedTables.set(table, (t = { ...table, createChecked: capturingNative(table.createChecked) }));
  return t;
}

whenFaulted(() => {
  const code = processFault()!.code;
  const failed = (): number => code;
  const released = (): number => 0;
  for (const table of nativeTables) for (const name of Object.keys(table)) table[name] = RELEASE.test(name) ? released : failed;
});

/** The CUDA driver API: checked functions, `.raw`, and the binding's facts. */
export type DriverBinding = Checked & BindingExtras<Raw> & {
  /** The installed driver's CUDA version (cuDriverGetVersion), read once; loads the driver. */
  driverVersion(): number;
  /** Whether functions resolve to their per-thread-default-stream variants. */
  readonly perThreadDefaultStream: boolean;
};

const binding = createBinding<Raw, Checked>({
  library: "cuda",
  info,
  functions,
  createChecked,
  tables: () => generatedTables.map(capturing),
  chooseTable: chooseDriverTable,
  makeError: cudaError,
  resolver: resolveDriver,
  onLoad,
  open: openDriverLibrary,
});

/** The CUDA driver API. */
export const driver: DriverBinding = Object.defineProperties(binding, {
  driverVersion: {
    value(): number {
      return driverState(binding.load()).version;
    },
  },
  perThreadDefaultStream: {
    get(): boolean {
      return state?.ptds ?? perThreadDefaultStream();
    },
  },
}) as DriverBinding;
