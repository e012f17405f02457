/**
 * NVTX 3's injection protocol, in TypeScript: what `nvtxDetail/nvtxInit.h` and `nvtxImpl.h` do in C, without
 * libnvToolsExt and without a compiler.
 *
 * A tool (Nsight Systems, CUPTI, a test's fake) is a shared library named by `NVTX_INJECTION64_PATH`. Loading it:
 * 1. open the file once and check the open descriptor ({@link openCheckedLibrary}), `dlopen` that descriptor
 *    (`/proc/self/fd/N`, which loads exactly the inode checked), close it, and look up `InitializeInjectionNvtx2`;
 * 2. call it with the address of `nvtxGetExportTable` (here: a JavaScript callback);
 * 3. the tool asks for `NVTX_ETID_CALLBACKS` (a struct `{ size_t struct_size; GetModuleFunctionTable }`) and
 *    `NVTX_ETID_VERSIONINFO`, then for each module (CORE, CUDA, OPENCL, CUDART, CORE2, SYNC) the module's table:
 *    an array of pointers to the function-pointer slots, `[NULL, &slot1, ..., &slotN, NULL]`, and its size (N + 1);
 * 4. it writes its own functions into the slots it implements. A non-zero return means it attached; zero means it
 *    refused, and the library is closed (as in C).
 *
 * The slots are native memory this module owns (never freed: a tool may keep their addresses). Every call reads its
 * slot again (two 32-bit loads), so a tool that re-points a slot later is followed, as the C headers do.
 *
 * @module
 */
import { ffi, type FunctionType, type NativeCallback, type NativeFunction, type NativeLibrary, type NativePointer, type Pointer } from "../../ffi/index.ts";
import { RTLD_LAZY } from "../../ffi/dl.ts";
import { UnsupportedError } from "../../errors/base.ts";
import { closeDescriptor, ELOOP, ENOENT, fstatFd, lstatPath, openReadOnly, readLink, SystemCallError, type FileStatus } from "../../ffi/libc-stat.ts";
import { currentUid } from "../../ffi/libc-socket.ts";
import { architecture } from "../../host.ts";

/** `NVTX_VERSION` of the headers this protocol follows (NVTX 3). */
export const NVTX_VERSION = 3;

/** `NvtxCallbackModule`: the modules and how many functions each has (`NVTX_CBID_<MODULE>_SIZE - 1`). */
export const MODULES = [
  { id: 1, name: "CORE", count: 15 },
  { id: 2, name: "CUDA", count: 8 },
  { id: 3, name: "OPENCL", count: 14 },
  { id: 4, name: "CUDART", count: 6 },
  { id: 5, name: "CORE2", count: 15 },
  { id: 6, name: "SYNC", count: 6 },
] as const;

/** A module's name. */
export type ModuleName = (typeof MODULES)[number]["name"];

/** `NvtxCallbackIdCore` / `NvtxCallbackIdCore2` / `NvtxCallbackIdCuda` values of the functions cuda-ts calls. */
export const CBID = {
  CORE: { MarkEx: 1, MarkA: 2, RangeStartEx: 4, RangeEnd: 7, RangePushEx: 8, RangePop: 11, NameCategoryA: 12, NameOsThreadA: 14 },
  CUDA: { NameCuDeviceA: 1, NameCuContextA: 3, NameCuStreamA: 5, NameCuEventA: 7 },
  CORE2: {
    DomainMarkEx: 1,
    DomainRangeStartEx: 2,
    DomainRangeEnd: 3,
    DomainRangePushEx: 4,
    DomainRangePop: 5,
    DomainNameCategoryA: 8,
    DomainRegisterStringA: 10,
    DomainCreateA: 12,
    DomainDestroy: 14,
    Initialize: 15,
  },
} as const;

/** `NVTX_ETID_CALLBACKS` and `NVTX_ETID_VERSIONINFO`. */
const ETID_CALLBACKS = 1;
const ETID_VERSIONINFO = 3;

/** `sizeof(NvtxExportTableCallbacks)`, `sizeof(NvtxExportTableVersionInfo)` on LP64 (test/nvtx checks them with gcc). */
export const EXPORT_TABLE_CALLBACKS_SIZE = 16;
export const EXPORT_TABLE_VERSION_INFO_SIZE = 24;

const getExportTableType = { parameters: ["u32"], result: "pointer" } as const satisfies FunctionType;
const getModuleFunctionTableType = { parameters: ["u32", "pointer", "pointer"], result: "i32" } as const satisfies FunctionType;
const setVersionType = { parameters: ["u32"], result: "void" } as const satisfies FunctionType;
const initializeType = { parameters: ["function"], result: "i32" } as const satisfies FunctionType;

/** Where one module's slots and table live in {@link SlotMemory}. */
interface ModuleLayout {
  readonly id: number;
  readonly name: ModuleName;
  readonly count: number;
  /** Byte offset of slot 1 (slot i is at slotOffset + 8 * (i - 1)). */
  readonly slotOffset: number;
  /** Byte offset of the table (count + 2 pointers). */
  readonly tableOffset: number;
}

/**
 * The native memory of the protocol: the function-pointer slots of every module, the module tables that point at
 * them, and the two export tables. Allocated once per process and never freed.
 */
class SlotMemory {
  readonly buffer: ArrayBuffer;
  readonly view: DataView;
  readonly words: Uint32Array;
  readonly base: NativePointer;
  readonly modules: ReadonlyMap<number, ModuleLayout>;
  readonly callbacksOffset: number;
  readonly versionInfoOffset: number;

  constructor() {
    let offset = 0;
    const modules = new Map<number, ModuleLayout>();
    const slotOffsets: number[] = [];
    for (const m of MODULES) {
      slotOffsets.push(offset);
      offset += 8 * m.count;
    }
    MODULES.forEach((m, i) => {
      modules.set(m.id, { id: m.id, name: m.name, count: m.count, slotOffset: slotOffsets[i]!, tableOffset: offset });
      offset += 8 * (m.count + 2);
    });
    this.callbacksOffset = offset;
    offset += EXPORT_TABLE_CALLBACKS_SIZE;
    this.versionInfoOffset = offset;
    offset += EXPORT_TABLE_VERSION_INFO_SIZE;
    this.buffer = new ArrayBuffer(offset);
    this.view = new DataView(this.buffer);
    this.words = new Uint32Array(this.buffer);
    this.base = ffi.pointerOf(this.buffer);
    this.modules = modules;
    for (const m of modules.values()) {
      // [NULL, &slot1, ..., &slotN, NULL]; the slots start NULL: a slot the tool leaves alone stays a no-op.
      for (let i = 1; i <= m.count; i++) {
        ffi.writePointer(this.view, m.tableOffset + 8 * i, ffi.offsetPointer(this.base, m.slotOffset + 8 * (i - 1)));
      }
    }
  }

  slotOffset(module: number, cbid: number): number {
    return this.modules.get(module)!.slotOffset + 8 * (cbid - 1);
  }

  clearSlots(): void {
    for (const m of this.modules.values()) new Uint8Array(this.buffer, m.slotOffset, 8 * m.count).fill(0);
  }
}

let memory: SlotMemory | undefined;
let exportCallbacks: NativeCallback[] | undefined;
/** What the tool did through the export tables (for {@link AttachedTool.facts}). */
const seen = { modulesAsked: new Set<number>(), injectionVersion: undefined as number | undefined };

function slotMemory(): SlotMemory {
  if (memory !== undefined) return memory;
  const mem = new SlotMemory();
  // The export tables' functions are JavaScript callbacks, made once and kept for the life of the process (a tool
  // may keep their addresses). Tools call them from the thread that initializes them: here, the JavaScript thread.
  const getModuleFunctionTable = ffi.callback(getModuleFunctionTableType, (module, outTable, outSize) => {
    const m = mem.modules.get(module);
    if (m === undefined) return 0;
    seen.modulesAsked.add(module);
    if (!ffi.isNull(outSize)) new DataView(ffi.view(outSize, 4)).setUint32(0, m.count + 1, true);
    if (!ffi.isNull(outTable)) ffi.writePointer(new DataView(ffi.view(outTable, 8)), 0, ffi.offsetPointer(mem.base, m.tableOffset));
    return 1;
  });
  const setInjectionNvtxVersion = ffi.callback(setVersionType, (version) => {
    seen.injectionVersion = version;
  });
  const getExportTable = ffi.callback(getExportTableType, (id) => {
    if (id === ETID_CALLBACKS) return ffi.offsetPointer(mem.base, mem.callbacksOffset);
    if (id === ETID_VERSIONINFO) return ffi.offsetPointer(mem.base, mem.versionInfoOffset);
    return null;
  });
  // NvtxExportTableCallbacks { size_t struct_size; GetModuleFunctionTable }
  mem.view.setBigUint64(mem.callbacksOffset, BigInt(EXPORT_TABLE_CALLBACKS_SIZE), true);
  ffi.writePointer(mem.view, mem.callbacksOffset + 8, getModuleFunctionTable.pointer);
  // NvtxExportTableVersionInfo { size_t struct_size; uint32_t version; uint32_t reserved0; SetInjectionNvtxVersion }
  mem.view.setBigUint64(mem.versionInfoOffset, BigInt(EXPORT_TABLE_VERSION_INFO_SIZE), true);
  mem.view.setUint32(mem.versionInfoOffset + 8, NVTX_VERSION, true);
  mem.view.setUint32(mem.versionInfoOffset + 12, 0, true);
  ffi.writePointer(mem.view, mem.versionInfoOffset + 16, setInjectionNvtxVersion.pointer);
  exportCallbacks = [getExportTable, getModuleFunctionTable, setInjectionNvtxVersion];
  memory = mem;
  return mem;
}

/** Why a tool could not be attached: the file failed a check ("unsafe"), or it was loaded and failed. */
export type InjectionFailure = "unsafe" | "load" | "entry-point" | "refused";

/** Thrown (internally) when the injection library cannot be attached; the public layer turns it into a warning. */
class InjectionFailed extends UnsupportedError {
  constructor(
    readonly kind: InjectionFailure,
    message: string,
    /** What to do about it, where the failure says more than the layer's general advice. */
    readonly remedy?: string,
  ) {
    super(message);
    this.name = "InjectionFailed";
  }
}

/** Why the library could not be attached, when `e` is such a failure (what {@link attachInjectionLibrary} throws). */
export function injectionFailure(e: unknown): { readonly reason: string; readonly remedy: string | undefined } | undefined {
  return e instanceof InjectionFailed ? { reason: e.message, remedy: e.remedy } : undefined;
}

const unsafe = (reason: string, remedy: string): InjectionFailed => new InjectionFailed("unsafe", reason, remedy);

/** Whether `uid` may own what this process loads: root, or the process's own user. */
const trusted = (uid: number, self: number): boolean => uid === 0 || uid === self;

/** Refuses a directory (or a link on the way to one) that another user could change. */
function checkDirectory(dir: string, self: number): void {
  let st: FileStatus;
  try {
    st = lstatPath(dir);
  } catch (e) {
    throw unsafe(`its directory ${dir} cannot be examined (${e instanceof Error ? e.message : String(e)})`, "Check the path.");
  }
  const owner = `owned by uid ${st.uid}, neither you (uid ${self}) nor root`;
  if (st.isSymbolicLink) {
    if (!trusted(st.uid, self)) throw unsafe(`the link ${dir} on its path is ${owner}`, "Point the variable at a path whose links you or root own.");
    return;
  }
  if (!st.isDirectory) throw unsafe(`${dir} on its path is not a directory`, "Check the path.");
  if (!trusted(st.uid, self)) throw unsafe(`its directory ${dir} is ${owner}`, "Keep the library in directories only you or root can change.");
  if ((st.mode & 0o022) !== 0 && (st.mode & 0o1000) === 0) {
    throw unsafe(`its directory ${dir} has mode 0${st.mode.toString(8)}, writable by group or others without the sticky bit (another user could replace the library)`, `Run chmod go-w ${dir}, or move the library.`);
  }
}

/** Each directory above `path` (a string of "/"-separated components), deepest first, up to "/". */
function directoriesAbove(path: string): string[] {
  const out: string[] = [];
  const parts = path.split("/");
  for (let n = parts.length - 1; n >= 1; n--) {
    const d = parts.slice(0, n).join("/");
    if (d === "" || parts[n - 1] === "") continue;
    out.push(d);
  }
  out.push("/");
  return [...new Set(out)];
}

/**
 * Opens the injection library at `path` once and checks what was opened, so that what is checked is what is loaded:
 * - `path` must be absolute (a relative path or a bare name is looked up where this check cannot pin it down);
 * - a final symbolic link must be owned by root or the current user; a path that is no link is opened with
 *   O_NOFOLLOW, and the descriptor's device and inode must be the ones `lstat` saw;
 * - the open descriptor (`fstat`) must be a regular file owned by root or the current user and writable by neither
 *   group nor others;
 * - each directory above the path as given and above the opened file's own path (`/proc/self/fd/N`'s target), up to
 *   "/", examined by `lstat`, must be owned by root or the current user and not writable by group or others unless
 *   sticky (links on the way: owned by root or the current user).
 *
 * Returns the open descriptor (close-on-exec); the caller closes it. Throws {@link InjectionFailed} ("unsafe").
 */
export function openCheckedLibrary(path: string): CheckedLibrary {
  if (!path.startsWith("/")) {
    throw unsafe(
      "it is a relative path (a relative path or a bare library name is looked up from the working directory or the loader's search path, so the file checked need not be the file loaded)",
      "Give the library's absolute path.",
    );
  }
  let self: number;
  try {
    self = currentUid();
  } catch (e) {
    throw new InjectionFailed("load", `could not check it: ${e instanceof Error ? e.message : String(e)}`);
  }
  const missing = (e: unknown): InjectionFailed =>
    e instanceof SystemCallError && e.errno !== ENOENT && e.errno !== 13
      ? unsafe(`it cannot be opened (${e.message})`, "Check the path.")
      : unsafe("it does not exist or cannot be read", "Check the path (under Deno, also --allow-read for it).");
  let before: FileStatus;
  try {
    before = lstatPath(path);
  } catch (e) {
    throw missing(e);
  }
  if (before.isSymbolicLink && !trusted(before.uid, self)) {
    throw unsafe(`it is a symbolic link owned by uid ${before.uid}, neither you (uid ${self}) nor root`, "Loading through it would let that user choose the library: point the variable at the library itself.");
  }
  for (const d of directoriesAbove(path)) checkDirectory(d, self);
  let fd: number;
  try {
    fd = openReadOnly(path, before.isSymbolicLink, architecture);
  } catch (e) {
    if (e instanceof SystemCallError && e.errno === ELOOP) throw unsafe("it changed while being checked (it became a symbolic link)", "Make sure no other user can replace it.");
    throw missing(e);
  }
  try {
    const st = fstatFd(fd);
    if (!before.isSymbolicLink && (st.dev !== before.dev || st.ino !== before.ino)) {
      throw unsafe("it changed while being checked (the file opened is not the file examined)", "Make sure no other user can replace it.");
    }
    if (!st.isFile) throw unsafe("it is not a regular file", "Point the variable at the tool's library.");
    if (!trusted(st.uid, self)) {
      throw unsafe(`it is owned by uid ${st.uid}, neither you (uid ${self}) nor root`, "Loading it would run another user's code as you: chown it, or use the tool's own installation.");
    }
    if ((st.mode & 0o022) !== 0) throw unsafe(`its mode is 0${(st.mode & 0o777).toString(8)}, writable by group or others`, "Run chmod go-w on it.");
    let opened: string;
    try {
      opened = readLink(`/proc/self/fd/${fd}`);
    } catch (e) {
      throw new InjectionFailed("load", `could not find the opened file in /proc/self/fd (${e instanceof Error ? e.message : String(e)}); the library is loaded through it`);
    }
    if (!opened.startsWith("/") || opened.endsWith(" (deleted)")) throw unsafe("it changed while being checked (the opened file was removed)", "Make sure no other user can replace it.");
    for (const d of directoriesAbove(opened)) checkDirectory(d, self);
    return { fd, opened, dev: st.dev, ino: st.ino };
  } catch (e) {
    closeDescriptor(fd);
    throw e;
  }
}

/** An injection library opened and checked: its descriptor, the file's own path (the descriptor's target), its inode. */
export interface CheckedLibrary {
  readonly fd: number;
  readonly opened: string;
  readonly dev: string;
  readonly ino: bigint;
}

/**
 * Loads the checked library: through its descriptor (`/proc/self/fd/N`, exactly the inode checked). A library whose
 * RUNPATH finds its dependencies through `$ORIGIN` (Nsight Systems' injection library does) cannot load that way,
 * since `$ORIGIN` is then `/proc/self/fd`: for that failure alone it loads again by the file's own path, once that
 * path still names the inode checked. The directories above that path were checked too (no other user can write
 * them, or they are sticky and the file is root's or ours), so no other user can swap it between the check and
 * the load.
 */
function loadChecked(checked: CheckedLibrary): NativeLibrary {
  try {
    return ffi.openLibrary(loadName(checked.fd), { flags: RTLD_LAZY });
  } catch (first) {
    const why = first instanceof Error ? first.message : String(first);
    // A dependency the loader could not find ("libX.so: cannot open shared object file"), not the library itself.
    const missing = /([^\s:]+): cannot open shared object file/.exec(why)?.[1];
    if (missing === undefined || missing.startsWith("/proc/self/")) throw first;
    const now = lstatPath(checked.opened);
    if (now.isSymbolicLink || now.dev !== checked.dev || now.ino !== checked.ino) {
      throw unsafe("it changed while being loaded (its path no longer names the file checked)", "Make sure no other user can replace it.");
    }
    return ffi.openLibrary(checked.opened, { flags: RTLD_LAZY });
  }
}

/**
 * The names given to `dlopen` so far. glibc finds an already-loaded library by the name it was opened with before it
 * looks at the file, so `/proc/self/fd/N` once used must not be used again (N is reused once closed): a later
 * load takes a spelling not used before (`/proc/self/./fd/N`, ...), which names the same descriptor.
 */
const loadNames = new Set<string>();

function loadName(fd: number): string {
  for (let k = 0; ; k++) {
    const name = `/proc/self/${"./".repeat(k)}fd/${fd}`;
    if (!loadNames.has(name)) {
      loadNames.add(name);
      return name;
    }
  }
}

/** One bound slot: the address last seen in the slot and the function bound at it. */
interface BoundSlot {
  lo: number;
  hi: number;
  fn: ((...args: never[]) => unknown) | null;
}

/** A tool attached through the protocol: its slots, bound lazily and followed when the tool re-points them. */
export class AttachedTool {
  readonly #library: NativeLibrary;
  readonly #mem: SlotMemory;
  readonly #path: string;
  readonly #bound = new Map<number, BoundSlot>();

  constructor(library: NativeLibrary, mem: SlotMemory, path: string) {
    this.#library = library;
    this.#mem = mem;
    this.#path = path;
  }

  /** The library as the variable named it (it was loaded through the descriptor opened from that path). */
  get path(): string {
    return this.#path;
  }

  /**
   * The function in a slot, bound with `type`, or `null` when the tool left the slot empty (a no-op, as in C).
   * Allocates only when the slot's address changed since the last call.
   */
  fn<T extends FunctionType>(module: number, cbid: number, type: T): NativeFunction<T> | null {
    const offset = this.#mem.slotOffset(module, cbid);
    const lo = this.#mem.words[offset >>> 2]!;
    const hi = this.#mem.words[(offset >>> 2) + 1]!;
    let slot = this.#bound.get(offset);
    if (slot !== undefined && slot.lo === lo && slot.hi === hi) return slot.fn as NativeFunction<T> | null;
    const address = ffi.readPointer(this.#mem.view, offset);
    const fn = address === null ? null : (this.#library.bindAt(address, type) as unknown as (...args: never[]) => unknown);
    if (slot === undefined) {
      slot = { lo, hi, fn };
      this.#bound.set(offset, slot);
    } else {
      slot.lo = lo;
      slot.hi = hi;
      slot.fn = fn;
    }
    return fn as NativeFunction<T> | null;
  }

  /** Which slots the tool filled, by module name and callback id (for `nvtx.status()` and tests). */
  filledSlots(): Record<ModuleName, number[]> {
    const out = {} as Record<ModuleName, number[]>;
    for (const m of this.#mem.modules.values()) {
      const ids: number[] = [];
      for (let i = 1; i <= m.count; i++) if (ffi.readPointer(this.#mem.view, m.slotOffset + 8 * (i - 1)) !== null) ids.push(i);
      out[m.name] = ids;
    }
    return out;
  }

  /** What the tool asked of the export tables: the modules whose tables it took, the version it announced. */
  facts(): { readonly modulesAsked: readonly number[]; readonly injectionVersion: number | undefined } {
    return { modulesAsked: [...seen.modulesAsked].sort((a, b) => a - b), injectionVersion: seen.injectionVersion };
  }
}

/**
 * Opens and checks the injection library at `path` ({@link openCheckedLibrary}), loads that open file and runs its
 * `InitializeInjectionNvtx2` (steps 1–4 above). Throws {@link InjectionFailed}; on failure every slot is left NULL
 * (all calls are no-ops).
 */
export function attachInjectionLibrary(path: string): AttachedTool {
  const mem = slotMemory();
  mem.clearSlots();
  const checked = openCheckedLibrary(path);
  let library: NativeLibrary;
  try {
    library = loadChecked(checked);
  } catch (e) {
    if (e instanceof InjectionFailed) throw e;
    throw new InjectionFailed("load", `could not load it: ${e instanceof Error ? e.message : String(e)}`);
  } finally {
    closeDescriptor(checked.fd);
  }
  const init = library.symbol("InitializeInjectionNvtx2");
  if (init === null) {
    library.close();
    throw new InjectionFailed("entry-point", "it does not export InitializeInjectionNvtx2 (is it an NVTX injection library?)");
  }
  const initialize = library.bindAt(init, initializeType);
  const status = initialize(exportCallbacks![0]!.pointer);
  if (status === 0) {
    mem.clearSlots();
    library.close();
    throw new InjectionFailed("refused", "its InitializeInjectionNvtx2 returned 0 (the tool refused to attach)");
  }
  return new AttachedTool(library, mem, path);
}

/** For tests: the address of this process's `nvtxGetExportTable` callback, once the protocol's memory exists. */
export function exportTablePointer(): Pointer {
  return exportCallbacks?.[0]?.pointer ?? null;
}
