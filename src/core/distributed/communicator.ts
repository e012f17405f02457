/**
 * `Communicator`: an NCCL communicator, the group of ranks (one GPU each) that run collectives together.
 *
 * - every GPU of this process, one rank each: `Communicator.initAll([0, 1])` (`ncclCommInitAll`);
 * - one rank of a job of many processes: `await Communicator.init({ rank, size, id, device })` with a
 *   {@link UniqueId} rank 0 made and handed out, or simply `await Communicator.fromWorld()` in a script started by
 *   `cuda-ts run -n N` (the launcher's rendezvous hands out the id, the local rank picks the GPU);
 * - a configuration (`{ blocking: false, cgaClusterSize: 4, ... }`, NCCL's `ncclConfig_t`, laid out as the table
 *   chosen for the loaded NCCL and initialised as `NCCL_CONFIG_INITIALIZER` does);
 * - `split`, `abort`, `finalize` (async) / `close` (`using` and `await using`), and a FinalizationRegistry that
 *   aborts a communicator nobody closed.
 *
 * Collectives queue on a Stream over DeviceArrays (or Buffers with a dtype): `allReduce`, `broadcast`, `reduce`,
 * `allGather`, `reduceScatter`, `send`/`recv`, `allToAll` (sends and receives in one group); {@link group} fuses
 * calls. Arguments are checked before NCCL sees them ({@link CollectiveArgumentError}); NCCL's failures are
 * {@link NCCLError}s, and the errors of queued work (`ncclCommGetAsyncError`) surface when the caller awaits
 * `comm.done(stream)` or calls `comm.checkAsyncError()`.
 *
 * @module
 */
import { ffi } from "../../ffi/index.ts";
import type { Pointer } from "../../ffi/types.ts";
import type { NcclBinding, ncclComm_t, NCCLError } from "../../bindings/nccl.ts";
import { ncclResult_t, NCCL_SPLIT_NOCOLOR } from "../../bindings/tables/nccl-values.ts";
import { NCCL_CONFIG_UNDEF_INT } from "../../../generated/nccl-2.28/nccl/constants.ts";
import { ncclModule } from "./nccl-module.ts";
import type { Device } from "../device.ts";
import { Stream } from "../stream.ts";
import { deviceOf, isDevice } from "../base/hub.ts";
import { describeValue } from "../../errors/describe.ts";
import { track, untrack } from "../base/lifetime.ts";
import { checkStatus, type LibraryStatus } from "../base/library-status.ts";
import { CollectiveArgumentError, CommunicatorStateError } from "./errors.ts";
import { type CollectiveOperand, ncclTypeFor, REDUCE_OPS, type ReduceOp, type ResolvedOperand, resolveOperand } from "./collectives.ts";
import { UniqueId, uniqueIdBytes } from "./unique-id.ts";
import { joinWorld, type World } from "./world.ts";
import type { RecordBase } from "../../tables-runtime/record.ts";
import { takeStream, type RefusedStream, type StreamSpec } from "../base/stream-arg.ts";
import { refuseWrongDevice } from "../base/wrong-device.ts";

/** A collective's `{ stream }` and `Communicator.done`'s stream: refused with a CollectiveArgumentError. */
function collectiveRefusal(r: RefusedStream): CollectiveArgumentError {
  return new CollectiveArgumentError(r.action, r.name, r.expected, r.got, r.advice);
}
const COLLECTIVE_STREAM: StreamSpec = Object.freeze({ name: "options.stream", advice: "Pass { stream } (device.createStream()).", refuse: collectiveRefusal });
const DONE_STREAM: StreamSpec & { readonly optional: true } = Object.freeze({ name: "stream", optional: true, advice: "Pass the stream the collectives were queued on.", refuse: collectiveRefusal });

/** The error for an NCCL status (the binding's `ncclError`; NCCL's module is loaded once a binding is in use). */
function ncclError(binding: NcclBinding, code: number, functionName: string, asynchronous = false): NCCLError {
  return ncclModule().ncclError(binding, code, functionName, asynchronous);
}

const statuses = new WeakMap<NcclBinding, LibraryStatus<ncclResult_t>>();

/** What a binding's NCCL statuses mean: ncclSuccess, ncclInProgress (a non-blocking call going on), its NCCLErrors. */
function ncclStatus(binding: NcclBinding): LibraryStatus<ncclResult_t> {
  let status = statuses.get(binding);
  if (status === undefined) {
    status = { success: ncclResult_t.ncclSuccess, inProgress: ncclResult_t.ncclInProgress, error: (code, fn, asynchronous) => ncclError(binding, code, fn, asynchronous) };
    statuses.set(binding, status);
  }
  return status;
}

/**
 * A communicator's configuration (NCCL's `ncclConfig_t`). Unset fields keep NCCL's defaults. A field the loaded
 * NCCL's `ncclConfig_t` lacks (trafficClass before 2.27, say) is a {@link CollectiveArgumentError}.
 */
export interface CommunicatorConfig {
  /** Whether NCCL calls block until done (default true). Non-blocking calls return at once; cuda-ts polls. */
  readonly blocking?: boolean;
  /** Thread block cluster size of NCCL's kernels (0 to 8; 4 by default on sm_90). */
  readonly cgaClusterSize?: number;
  /** The fewest CTAs (channels) NCCL uses. */
  readonly minCTAs?: number;
  /** The most CTAs (channels) NCCL uses. */
  readonly maxCTAs?: number;
  /** The network module to use ("IB", "Socket", a plug-in's name). */
  readonly netName?: string;
  /** Whether communicators split from this one share its resources. */
  readonly splitShare?: boolean;
  /** The traffic class of the network (NCCL 2.27+). */
  readonly trafficClass?: number;
  /** A name for this communicator in NCCL's logs (NCCL 2.27+). */
  readonly commName?: string;
  /** Whether CollNet (network-assisted collectives) is enabled (NCCL 2.27+). */
  readonly collnetEnable?: boolean;
  /** NCCL's CTA policy (NCCL_CTA_POLICY_DEFAULT, _EFFICIENCY, _ZERO; NCCL 2.27+). */
  readonly ctaPolicy?: number;
  /** Whether communicators shrunk from this one share its resources (NCCL 2.27+). */
  readonly shrinkShare?: boolean;
  /** CTAs for NVLink SHARP collectives (NCCL 2.27+). */
  readonly nvlsCTAs?: number;
  /** Channels per network peer (NCCL 2.28+). */
  readonly nChannelsPerNetPeer?: number;
  /** NVLink-centric scheduling (NCCL 2.28+). */
  readonly nvlinkCentricSched?: boolean;
}

/** Each configuration key: its ncclConfig_t field, and whether it is a flag (true → 1). */
const CONFIG_FIELDS: Readonly<Record<keyof CommunicatorConfig, { field: string; kind: "flag" | "int" | "string" }>> = {
  blocking: { field: "blocking", kind: "flag" },
  cgaClusterSize: { field: "cgaClusterSize", kind: "int" },
  minCTAs: { field: "minCTAs", kind: "int" },
  maxCTAs: { field: "maxCTAs", kind: "int" },
  netName: { field: "netName", kind: "string" },
  splitShare: { field: "splitShare", kind: "flag" },
  trafficClass: { field: "trafficClass", kind: "int" },
  commName: { field: "commName", kind: "string" },
  collnetEnable: { field: "collnetEnable", kind: "flag" },
  ctaPolicy: { field: "CTAPolicy", kind: "int" },
  shrinkShare: { field: "shrinkShare", kind: "flag" },
  nvlsCTAs: { field: "nvlsCTAs", kind: "int" },
  nChannelsPerNetPeer: { field: "nChannelsPerNetPeer", kind: "int" },
  nvlinkCentricSched: { field: "nvlinkCentricSched", kind: "flag" },
};

const CONFIG_MAGIC = 0xcafebeef;

/** An `ncclConfig_t` and the strings it points to (kept alive while NCCL may read them). */
export interface ConfigRecord {
  readonly record: RecordBase;
  readonly keep: readonly Uint8Array[];
}

/**
 * Lays out an `ncclConfig_t` for the NCCL the binding loaded: NCCL_CONFIG_INITIALIZER's values (the struct's size,
 * the magic 0xcafebeef, the header's NCCL_VERSION, every attribute NCCL_CONFIG_UNDEF_INT or NULL), then `config`'s.
 */
export function buildConfig(config: CommunicatorConfig, binding: NcclBinding = ncclModule().nccl): ConfigRecord {
  if (typeof config !== "object" || config === null) {
    throw new CollectiveArgumentError("Communicator config", "config", "an object ({ blocking, cgaClusterSize, ... })", describeValue(config), "Pass an object, or leave it out.");
  }
  const m = ncclModule().chosenNcclModule(binding);
  const rec = new m.ncclConfig_t() as unknown as RecordBase & Record<string, unknown>;
  const cls = m.ncclConfig_t as unknown as { $size: number; $fields: readonly { name: string; size: number }[] };
  const fields = new Map(cls.$fields.map((f) => [f.name, f]));
  for (const f of cls.$fields) {
    if (f.name === "size" || f.name === "magic" || f.name === "version") continue;
    rec[f.name] = f.size === 8 ? null : NCCL_CONFIG_UNDEF_INT;
  }
  rec.size = cls.$size;
  rec.magic = CONFIG_MAGIC;
  rec.version = m.NCCL_VERSION_CODE;
  const keep: Uint8Array[] = [];
  for (const [key, value] of Object.entries(config)) {
    if (value === undefined) continue;
    const spec = CONFIG_FIELDS[key as keyof CommunicatorConfig];
    if (spec === undefined) {
      throw new CollectiveArgumentError("Communicator config", key, `one of ${Object.keys(CONFIG_FIELDS).join(", ")}`, "an unknown key", "Check the key's spelling.");
    }
    if (!fields.has(spec.field)) {
      throw new CollectiveArgumentError(
        "Communicator config",
        key,
        "a field of the loaded NCCL's ncclConfig_t",
        `absent from NCCL ${binding.table().table.library.ctkVersion}'s`,
        "Load a newer NCCL (the wheels' nvidia-nccl) or leave the key out.",
      );
    }
    if (spec.kind === "flag") {
      if (typeof value !== "boolean") throw new CollectiveArgumentError("Communicator config", key, "true or false", describeValue(value), "Pass a boolean.");
      rec[spec.field] = value ? 1 : 0;
    } else if (spec.kind === "int") {
      if (!Number.isSafeInteger(value) || (value as number) < 0 || (value as number) > 0x7fffffff) {
        throw new CollectiveArgumentError("Communicator config", key, "an integer ≥ 0", describeValue(value), "Pass a non-negative integer, or leave it out for NCCL's default.");
      }
      rec[spec.field] = value;
    } else {
      if (typeof value !== "string" || value.includes("\0")) throw new CollectiveArgumentError("Communicator config", key, "a string without NUL", describeValue(value), "Pass a name.");
      const bytes = ffi.cstring(value);
      keep.push(bytes);
      rec[spec.field] = ffi.pointerOf(bytes);
    }
  }
  return { record: rec, keep };
}

/** Options of {@link Communicator.init}. */
export interface CommunicatorInitOptions {
  /** This process's rank, 0 to size-1. */
  readonly rank: number;
  /** The number of ranks. */
  readonly size: number;
  /** The job's unique id (the same on every rank; rank 0 makes it with `UniqueId.create()`). */
  readonly id: UniqueId;
  /** The GPU of this rank (default: device 0). */
  readonly device?: number | Device;
  /** NCCL's configuration. */
  readonly config?: CommunicatorConfig;
  /** The binding (default: the package's `nccl`). */
  readonly binding?: NcclBinding;
}

/** Options of {@link Communicator.fromWorld}. */
export interface FromWorldOptions {
  /** NCCL's configuration. */
  readonly config?: CommunicatorConfig;
  /** How long to wait for every rank at the rendezvous, in milliseconds (see joinWorld). */
  readonly timeoutMs?: number;
  /** The world (default: `world()`, from the launcher's environment). */
  readonly world?: World;
  /** The GPU (default: the world's local rank). */
  readonly device?: number | Device;
  /** The binding (default: the package's `nccl`). */
  readonly binding?: NcclBinding;
}

/** Options of the collectives: the stream they queue on. */
export interface CollectiveOptions {
  /** The stream (of the communicator's device). */
  readonly stream: Stream;
}

/** Options of the reducing collectives. */
export interface ReduceOptions extends CollectiveOptions {
  /** The reduction (default "sum"). */
  readonly op?: ReduceOp;
}

/** Options of the rooted collectives (broadcast). */
export interface RootOptions extends CollectiveOptions {
  /** The rank whose data goes out (default 0). */
  readonly root?: number;
}

/** Options of `reduce`. */
export interface RootReduceOptions extends ReduceOptions {
  /** The rank that receives the result (default 0). */
  readonly root?: number;
}


function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function pointerTo(address: bigint): Pointer {
  return ffi.pointerFromAddress(address);
}

/** An NCCL communicator: one rank of a group of ranks that run collectives together. */
export class Communicator {
  #handle: ncclComm_t | null;
  readonly #binding: NcclBinding;
  readonly #nccl: LibraryStatus<ncclResult_t>;
  readonly #keep: readonly Uint8Array[];
  #failed: Error | undefined;
  /** This communicator's rank, 0 to size-1. */
  readonly rank: number;
  /** The number of ranks. */
  readonly size: number;
  /** This rank's GPU. */
  readonly device: Device;
  /** Whether NCCL calls on it block (false: a non-blocking communicator, whose calls cuda-ts completes by polling). */
  readonly blocking: boolean;

  /** How the collectives take their stream (made at the first one: it names the communicator's device). */
  #streamSpec: StreamSpec | undefined;

  private constructor(handle: ncclComm_t, binding: NcclBinding, blocking: boolean, keep: readonly Uint8Array[]) {
    this.#handle = handle;
    this.#binding = binding;
    this.#nccl = ncclStatus(binding);
    this.#keep = keep;
    this.blocking = blocking;
    this.rank = binding.ncclCommUserRank(handle);
    this.size = binding.ncclCommCount(handle);
    this.device = deviceOf(binding.ncclCommCuDevice(handle));
    const abort = binding.resolve("ncclCommAbort");
    const nccl = this.#nccl;
    track(this, "Communicator", () => {
      checkStatus(nccl, abort(handle), "ncclCommAbort");
    });
  }

  /**
   * One communicator per device of this process, ranks in the order of `devices` (`ncclCommInitAll`). Each device's
   * primary context is made current once (so that its streams and arrays can be made); the first device's is
   * current afterwards.
   */
  static initAll(devices: readonly (number | Device)[], options: { readonly binding?: NcclBinding } = {}): Communicator[] {
    if (!Array.isArray(devices) || devices.length === 0) {
      throw new CollectiveArgumentError("Communicator.initAll", "devices", "a non-empty array of device ordinals or Devices", describeValue(devices), "Pass the devices, one rank each (Device.all()).");
    }
    const list = devices.map((d, i) => {
      if (!(isDevice(d) || (Number.isSafeInteger(d) && (d as number) >= 0))) {
        throw new CollectiveArgumentError("Communicator.initAll", `devices[${i}]`, "a device ordinal or a Device", describeValue(d), "Pass ordinals such as [0, 1].");
      }
      return deviceOf(d);
    });
    const ids = list.map((d) => d.id);
    if (new Set(ids).size !== ids.length) {
      throw new CollectiveArgumentError("Communicator.initAll", "devices", "distinct devices", `[${ids.join(", ")}]`, "Name each device once: NCCL gives each rank its own GPU.");
    }
    for (const d of [...list].reverse()) d.setCurrent();
    const binding = options.binding ?? ncclModule().nccl;
    const comms = new ArrayBuffer(8 * list.length);
    const devlist = new Int32Array(ids);
    checkStatus(ncclStatus(binding), binding.raw.ncclCommInitAll(ffi.pointerOf(comms), list.length, ffi.pointerOf(devlist)), "ncclCommInitAll");
    const dv = new DataView(comms);
    return list.map((_, i) => new Communicator(ffi.readPointer(dv, 8 * i) as ncclComm_t, binding, true, []));
  }

  /**
   * One rank of a communicator of `size` ranks (`ncclCommInitRankConfig`): every rank calls it with the same `id`
   * (and returns once all have). A non-blocking configuration returns at once from NCCL; the promise settles when
   * the communicator is ready.
   */
  static async init(options: CommunicatorInitOptions): Promise<Communicator> {
    const op = "Communicator.init";
    if (typeof options !== "object" || options === null) throw new CollectiveArgumentError(op, "options", "{ rank, size, id }", describeValue(options), "Pass the rank, the size and the unique id.");
    const { rank, size, id } = options;
    if (!Number.isSafeInteger(size) || size < 1) throw new CollectiveArgumentError(op, "size", "an integer ≥ 1", describeValue(size), "Pass the number of ranks.");
    if (!Number.isSafeInteger(rank) || rank < 0 || rank >= size) throw new CollectiveArgumentError(op, "rank", `an integer from 0 to ${size - 1}`, describeValue(rank), "Pass this process's rank (world().rank).");
    if (!(id instanceof UniqueId)) throw new CollectiveArgumentError(op, "id", "a UniqueId", describeValue(id), "Make one on rank 0 (UniqueId.create()) and hand it to every rank (toBase64/fromBase64).");
    const device = options.device === undefined ? undefined : options.device;
    if (device !== undefined && !(isDevice(device) || (Number.isSafeInteger(device) && (device as number) >= 0))) {
      throw new CollectiveArgumentError(op, "device", "a device ordinal or a Device", describeValue(device), "Pass the rank's GPU (world().localRank).");
    }
    const binding = options.binding ?? ncclModule().nccl;
    const config = buildConfig(options.config ?? {}, binding);
    deviceOf(device ?? 0).setCurrent();
    const out = new ArrayBuffer(8);
    const r = binding.raw.ncclCommInitRankConfig(ffi.pointerOf(out), size, uniqueIdBytes(id), rank, config.record.$pointer());
    const handle = ffi.readPointer(new DataView(out), 0) as ncclComm_t;
    const blocking = options.config?.blocking !== false;
    const pending = checkStatus(ncclStatus(binding), r, "ncclCommInitRankConfig");
    if (pending || !blocking) await settle(binding, handle, "ncclCommInitRankConfig");
    return new Communicator(handle, binding, blocking, config.keep);
  }

  /**
   * This process's communicator in a job started by `cuda-ts run -n N script.ts`, `srun`, `mpirun` or torchrun's
   * variables: joins the job's meeting (joinWorld), takes the unique id rank 0 makes, and initialises the rank on its
   * GPU (`world().device`: the local rank, among the devices `CUDA_VISIBLE_DEVICES` makes visible). A script run on
   * its own gets a communicator of one rank.
   */
  static async fromWorld(options: FromWorldOptions = {}): Promise<Communicator> {
    const binding = options.binding ?? ncclModule().nccl;
    const meeting = await joinWorld({ ...(options.world !== undefined ? { world: options.world } : {}), ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}) });
    const w = meeting.world;
    if (options.device === undefined && w.visibleDevices !== undefined && w.device >= w.visibleDevices) {
      meeting.close();
      throw new CollectiveArgumentError(
        "Communicator.fromWorld",
        "device",
        `a device CUDA_VISIBLE_DEVICES makes visible (it lists ${w.visibleDevices})`,
        `local rank ${w.localRank}'s device ${w.device}`,
        "Give each rank a GPU (srun --gpus-per-task=1), make as many devices visible as ranks run on a node, or pass device.",
      );
    }
    try {
      const text = await meeting.share("nccl-unique-id", () => UniqueId.create(binding).toBase64());
      // NCCL's init blocks this thread until every rank has joined it. Where rank 0 serves the rendezvous store in
      // this very process (via "store": torchrun's variables, Slurm without PMIx), a rank still waiting for the id
      // would then wait for ever: every rank first confirms it has the id, and the store's last replies get a moment
      // to leave rank 0. PMIx and cuda-ts's launcher serve from another process and need neither.
      if (meeting.via === "store") {
        await meeting.barrier();
        if (w.rank === 0) await new Promise<void>((resolve) => setTimeout(resolve, 100));
      }
      return await Communicator.init({
        rank: w.rank,
        size: w.size,
        id: UniqueId.fromBase64(text),
        device: options.device ?? w.device,
        binding,
        ...(options.config !== undefined ? { config: options.config } : {}),
      });
    } finally {
      meeting.close();
    }
  }

  /** The native handle (`ncclComm_t`); throws once closed or aborted. */
  get handle(): ncclComm_t {
    return this.#live("use");
  }

  /** Whether the communicator was closed, finalized or aborted. */
  get isClosed(): boolean {
    return this.#handle === null;
  }

  #live(action: string): ncclComm_t {
    if (this.#handle === null) throw new CommunicatorStateError(`the communicator (rank ${this.rank} of ${this.size}) is closed or aborted: cannot ${action}. Make a new one.`);
    if (this.#failed !== undefined) {
      throw new CommunicatorStateError(`the communicator (rank ${this.rank} of ${this.size}) failed (${this.#failed.message}): cannot ${action}. Abort it (comm.abort()) and make a new one.`);
    }
    return this.#handle;
  }

  /**
   * Throws the error NCCL reports for work already queued on this communicator (`ncclCommGetAsyncError`) as an
   * {@link NCCLError} with `asynchronous: true`; the communicator is then unusable but for `abort()`. Returns whether
   * an operation is still in progress (a non-blocking communicator).
   */
  checkAsyncError(): boolean {
    const h = this.#live("check for errors");
    try {
      return checkStatus(this.#nccl, this.#binding.ncclCommGetAsyncError(h), "ncclCommGetAsyncError", true);
    } catch (e) {
      this.#failed = e as Error;
      throw e;
    }
  }

  /**
   * Resolves when the work queued on `stream` has finished (without blocking the thread), checking NCCL's
   * asynchronous errors meanwhile: a failure of the communicator rejects with an {@link NCCLError} instead of
   * waiting forever. Without a stream, waits until a non-blocking communicator's pending call has completed.
   */
  async done(stream?: Stream): Promise<void> {
    this.#live("wait");
    takeStream(stream, "Communicator.done", DONE_STREAM);
    let finished = stream === undefined;
    let failure: unknown;
    const waiting = stream?.done().then(
      () => void (finished = true),
      (e: unknown) => {
        failure = e;
        finished = true;
      },
    );
    let delay = 1;
    for (;;) {
      const busy = this.checkAsyncError();
      if (finished && !busy) break;
      await (waiting === undefined || finished ? sleep(delay) : Promise.race([waiting, sleep(delay)]));
      delay = Math.min(delay * 2, 20);
    }
    if (failure !== undefined) throw failure;
  }

  #stream(operation: string, options: CollectiveOptions): Stream {
    const id = this.device.id;
    const spec = (this.#streamSpec ??= Object.freeze({ ...COLLECTIVE_STREAM, device: id, deviceAdvice: `make the stream on device ${id}, or use that device's communicator` }));
    return takeStream((options as CollectiveOptions | null | undefined)?.stream, operation, spec);
  }

  #operand(operation: string, argument: string, x: unknown): ResolvedOperand {
    const r = resolveOperand(operation, argument, x);
    const id = this.device.id;
    if (r.device.id !== id) refuseWrongDevice(`${operation}: ${argument}`, id, r.device.id, `allocate it on device ${id}, or use that device's communicator`);
    return r;
  }

  #root(operation: string, root: unknown): number {
    const r = root ?? 0;
    if (!Number.isSafeInteger(r) || (r as number) < 0 || (r as number) >= this.size) {
      throw new CollectiveArgumentError(operation, "root", `a rank from 0 to ${this.size - 1}`, describeValue(root), "Pass the rank of the root.");
    }
    return r as number;
  }

  #peer(operation: string, peer: unknown): number {
    if (!Number.isSafeInteger(peer) || (peer as number) < 0 || (peer as number) >= this.size) {
      throw new CollectiveArgumentError(operation, "peer", `a rank from 0 to ${this.size - 1}`, describeValue(peer), "Pass the rank to exchange with.");
    }
    return peer as number;
  }

  #sameType(operation: string, a: ResolvedOperand, b: ResolvedOperand): void {
    if (a.dtype.name !== b.dtype.name) {
      throw new CollectiveArgumentError(operation, "recv", `of the send operand's dtype (${a.dtype.name})`, `${b.dtype.name}`, "Receive into an array of the same dtype.");
    }
  }

  #counts(operation: string, what: string, expected: number, got: number, fix: string): void {
    if (expected !== got) throw new CollectiveArgumentError(operation, what, `${expected} elements`, `${got} elements`, fix);
  }

  #status(r: ncclResult_t, fn: string): void {
    if (!checkStatus(this.#nccl, r, fn)) return;
    // A non-blocking communicator's call still enqueuing: NCCL wants it complete before the next call on the
    // communicator, so wait here (a short spin: the work itself stays queued on the stream).
    try {
      while (checkStatus(this.#nccl, this.#binding.ncclCommGetAsyncError(this.#handle!), fn, true));
    } catch (e) {
      this.#failed = e as Error;
      throw e;
    }
  }

  /** Every rank's `send` reduced with `op` into every rank's `recv` (same dtype and count; `recv` may be `send`). */
  allReduce(send: CollectiveOperand, recv: CollectiveOperand, options: ReduceOptions): void {
    const op = "allReduce";
    const h = this.#live(op);
    const stream = this.#stream(op, options);
    const s = this.#operand(op, "send", send);
    const r = this.#operand(op, "recv", recv);
    this.#sameType(op, s, r);
    this.#counts(op, "recv", s.count, r.count, "Receive into an operand as long as the send operand.");
    const reduce = options.op ?? "sum";
    const t = ncclTypeFor(op, s.dtype, reduce);
    this.#status(
      this.#binding.raw.ncclAllReduce(pointerTo(s.address), pointerTo(r.address), s.count * t.per, t.type, REDUCE_OPS[reduce], h, stream.handle),
      "ncclAllReduce",
    );
  }

  /** The root's `send` into every rank's `recv` (same dtype and count; `send` is read on the root only). */
  broadcast(send: CollectiveOperand, recv: CollectiveOperand, options: RootOptions): void {
    const op = "broadcast";
    const h = this.#live(op);
    const stream = this.#stream(op, options);
    const root = this.#root(op, options.root);
    const s = this.#operand(op, "send", send);
    const r = this.#operand(op, "recv", recv);
    this.#sameType(op, s, r);
    this.#counts(op, "recv", s.count, r.count, "Receive into an operand as long as the send operand.");
    const t = ncclTypeFor(op, s.dtype, undefined);
    this.#status(this.#binding.raw.ncclBroadcast(pointerTo(s.address), pointerTo(r.address), s.count * t.per, t.type, root, h, stream.handle), "ncclBroadcast");
  }

  /** Every rank's `send` reduced with `op` into the root's `recv` (same dtype and count; `recv` is written on the root only). */
  reduce(send: CollectiveOperand, recv: CollectiveOperand, options: RootReduceOptions): void {
    const op = "reduce";
    const h = this.#live(op);
    const stream = this.#stream(op, options);
    const root = this.#root(op, options.root);
    const s = this.#operand(op, "send", send);
    const r = this.#operand(op, "recv", recv);
    this.#sameType(op, s, r);
    this.#counts(op, "recv", s.count, r.count, "Receive into an operand as long as the send operand.");
    const reduce = options.op ?? "sum";
    const t = ncclTypeFor(op, s.dtype, reduce);
    this.#status(
      this.#binding.raw.ncclReduce(pointerTo(s.address), pointerTo(r.address), s.count * t.per, t.type, REDUCE_OPS[reduce], root, h, stream.handle),
      "ncclReduce",
    );
  }

  /** Every rank's `send` gathered, in rank order, into every rank's `recv` (size × send's count elements). */
  allGather(send: CollectiveOperand, recv: CollectiveOperand, options: CollectiveOptions): void {
    const op = "allGather";
    const h = this.#live(op);
    const stream = this.#stream(op, options);
    const s = this.#operand(op, "send", send);
    const r = this.#operand(op, "recv", recv);
    this.#sameType(op, s, r);
    this.#counts(op, "recv", s.count * this.size, r.count, `Receive into ${this.size} × the send operand's elements (one block per rank).`);
    const t = ncclTypeFor(op, s.dtype, undefined);
    this.#status(this.#binding.raw.ncclAllGather(pointerTo(s.address), pointerTo(r.address), s.count * t.per, t.type, h, stream.handle), "ncclAllGather");
  }

  /** Every rank's `send` reduced with `op`, rank i receiving the i-th block into `recv` (send: size × recv's count). */
  reduceScatter(send: CollectiveOperand, recv: CollectiveOperand, options: ReduceOptions): void {
    const op = "reduceScatter";
    const h = this.#live(op);
    const stream = this.#stream(op, options);
    const s = this.#operand(op, "send", send);
    const r = this.#operand(op, "recv", recv);
    this.#sameType(op, s, r);
    this.#counts(op, "send", r.count * this.size, s.count, `Send ${this.size} × the receive operand's elements (one block per rank).`);
    const reduce = options.op ?? "sum";
    const t = ncclTypeFor(op, s.dtype, reduce);
    this.#status(
      this.#binding.raw.ncclReduceScatter(pointerTo(s.address), pointerTo(r.address), r.count * t.per, t.type, REDUCE_OPS[reduce], h, stream.handle),
      "ncclReduceScatter",
    );
  }

  /** Sends `data` to rank `peer`, which receives it with `recv` (point to point; pair them in a {@link group}). */
  send(data: CollectiveOperand, peer: number, options: CollectiveOptions): void {
    this.#pointToPoint("send", "ncclSend", data, peer, options);
  }

  /** Receives into `data` what rank `peer` sends (point to point; pair them in a {@link group}). */
  recv(data: CollectiveOperand, peer: number, options: CollectiveOptions): void {
    this.#pointToPoint("recv", "ncclRecv", data, peer, options);
  }

  /** `send` and `recv`: the same checks, then the one NCCL call. */
  #pointToPoint(op: "send" | "recv", fn: "ncclSend" | "ncclRecv", data: CollectiveOperand, peer: number, options: CollectiveOptions): void {
    const h = this.#live(op);
    const stream = this.#stream(op, options);
    const p = this.#peer(op, peer);
    const d = this.#operand(op, "data", data);
    const t = ncclTypeFor(op, d.dtype, undefined);
    this.#status(this.#binding.raw[fn](pointerTo(d.address), d.count * t.per, t.type, p, h, stream.handle), fn);
  }

  /**
   * All to all: block j of this rank's `send` goes to rank j, and block i of `recv` comes from rank i (both size ×
   * block elements). One group of sends and receives, so it works on every NCCL (ncclAlltoAll is 2.28 and newer).
   */
  allToAll(send: CollectiveOperand, recv: CollectiveOperand, options: CollectiveOptions): void {
    const op = "allToAll";
    const h = this.#live(op);
    const stream = this.#stream(op, options);
    const s = this.#operand(op, "send", send);
    const r = this.#operand(op, "recv", recv);
    this.#sameType(op, s, r);
    this.#counts(op, "recv", s.count, r.count, "Receive into an operand as long as the send operand.");
    if (s.count % this.size !== 0) {
      throw new CollectiveArgumentError(op, "send", `a multiple of ${this.size} elements (one block per rank)`, `${s.count} elements`, "Pad the operands to whole blocks.");
    }
    const t = ncclTypeFor(op, s.dtype, undefined);
    const block = s.count / this.size;
    const bytes = BigInt(block * s.dtype.itemsize);
    const raw = this.#binding.raw;
    const g = openGroup(this.#binding); // the sends and receives' own NCCL: a communicator may use another binding
    try {
      for (let peer = 0; peer < this.size; peer++) {
        this.#status(raw.ncclSend(pointerTo(s.address + BigInt(peer) * bytes), block * t.per, t.type, peer, h, stream.handle), "ncclSend");
        this.#status(raw.ncclRecv(pointerTo(r.address + BigInt(peer) * bytes), block * t.per, t.type, peer, h, stream.handle), "ncclRecv");
      }
    } finally {
      g.end();
    }
  }

  /**
   * Communicators of the ranks with the same `color`, ordered by `key` (`ncclCommSplit`; a collective call: every
   * rank of this communicator calls it). A rank with `color` undefined takes part but gets no communicator.
   */
  async split(color: number | undefined, key: number, config?: CommunicatorConfig): Promise<Communicator | undefined> {
    const op = "Communicator.split";
    const h = this.#live("split");
    if (color !== undefined && (!Number.isSafeInteger(color) || color < 0)) throw new CollectiveArgumentError(op, "color", "an integer ≥ 0, or undefined", describeValue(color), "Pass a color (ranks of one color form one communicator).");
    if (!Number.isSafeInteger(key)) throw new CollectiveArgumentError(op, "key", "an integer", describeValue(key), "Pass the rank's order in its new communicator.");
    // No configuration: NULL, so that the new communicator inherits this one's (NCCL's rule).
    const c = config === undefined ? undefined : buildConfig(config, this.#binding);
    const out = new ArrayBuffer(8);
    const r = this.#binding.raw.ncclCommSplit(h, color ?? NCCL_SPLIT_NOCOLOR, key, ffi.pointerOf(out), c === undefined ? null : c.record.$pointer());
    const pending = checkStatus(this.#nccl, r, "ncclCommSplit");
    const handle = ffi.readPointer(new DataView(out), 0) as ncclComm_t;
    const blocking = config?.blocking ?? this.blocking;
    if (handle !== null && (pending || !blocking)) await settle(this.#binding, handle, "ncclCommSplit");
    if (!this.blocking) await this.done();
    return handle === null ? undefined : new Communicator(handle, this.#binding, blocking, c?.keep ?? []);
  }

  /**
   * Stops everything in flight on this communicator and frees it (`ncclCommAbort`): what to do after an error, or to
   * leave a job that hangs. Safe to call twice, and after `close()`.
   */
  abort(): void {
    const h = this.#handle;
    if (h === null) return;
    this.#handle = null;
    untrack(this);
    checkStatus(this.#nccl, this.#binding.raw.ncclCommAbort(h), "ncclCommAbort");
  }

  /**
   * Finishes the work queued on the communicator and frees it (`ncclCommFinalize`, then `ncclCommDestroy`), without
   * blocking the thread while a non-blocking communicator finalizes. Errors of the queued work reject.
   */
  async finalize(): Promise<void> {
    const h = this.#handle;
    if (h === null) return;
    if (this.#failed !== undefined) {
      this.abort();
      return;
    }
    const pending = checkStatus(this.#nccl, this.#binding.raw.ncclCommFinalize(h), "ncclCommFinalize");
    if (pending || !this.blocking) await settle(this.#binding, h, "ncclCommFinalize");
    this.#destroy(h);
  }

  /** Finalizes and frees the communicator, blocking until its queued work is done. Closing twice is harmless. */
  close(): void {
    const h = this.#handle;
    if (h === null) return;
    if (this.#failed !== undefined) {
      this.abort();
      return;
    }
    checkStatus(this.#nccl, this.#binding.raw.ncclCommFinalize(h), "ncclCommFinalize");
    while (checkStatus(this.#nccl, this.#binding.ncclCommGetAsyncError(h), "ncclCommFinalize", true));
    this.#destroy(h);
  }

  /**
   * Closes the communicators of one process together (those of `initAll`): NCCL needs the finalization of several
   * communicators driven by one thread in one group (`ncclCommFinalize` each inside `ncclGroupStart`/`End`), then
   * destroys each. A failed one is aborted instead. Closed ones are skipped.
   */
  static closeAll(comms: readonly Communicator[]): void {
    if (!Array.isArray(comms) || comms.some((c) => !(c instanceof Communicator))) {
      throw new CollectiveArgumentError("Communicator.closeAll", "comms", "an array of Communicators", describeValue(comms), "Pass what Communicator.initAll returned.");
    }
    for (const c of comms) if (c.#handle !== null && c.#failed !== undefined) c.abort();
    const live = comms.filter((c) => c.#handle !== null);
    if (live.length === 0) return;
    const binding = live[0]!.#binding;
    const nccl = ncclStatus(binding);
    checkStatus(nccl, binding.raw.ncclGroupStart(), "ncclGroupStart");
    let failure: unknown;
    /** Runs a check, keeping the first failure instead of throwing it (every communicator is still destroyed). */
    const keep = (check: () => void): void => {
      try {
        check();
      } catch (e) {
        failure ??= e;
      }
    };
    for (const c of live) keep(() => checkStatus(nccl, binding.raw.ncclCommFinalize(c.#handle!), "ncclCommFinalize"));
    keep(() => checkStatus(nccl, binding.raw.ncclGroupEnd(), "ncclGroupEnd"));
    for (const c of live) {
      keep(() => {
        while (checkStatus(nccl, binding.ncclCommGetAsyncError(c.#handle!), "ncclCommFinalize", true));
      });
      c.#destroy(c.#handle!);
    }
    if (failure !== undefined) throw failure;
  }

  #destroy(h: ncclComm_t): void {
    this.#handle = null;
    untrack(this);
    checkStatus(this.#nccl, this.#binding.raw.ncclCommDestroy(h), "ncclCommDestroy");
  }

  [Symbol.dispose](): void {
    this.close();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.finalize();
  }

  toString(): string {
    return `Communicator(rank ${this.rank} of ${this.size} on device ${this.device.id}${this.#handle === null ? ", closed" : ""})`;
  }
}

/** Polls a communicator until its pending non-blocking call completes; throws its error. */
async function settle(binding: NcclBinding, handle: ncclComm_t, fn: string): Promise<void> {
  const nccl = ncclStatus(binding);
  let delay = 1;
  while (checkStatus(nccl, binding.ncclCommGetAsyncError(handle), fn, true)) {
    await sleep(delay);
    delay = Math.min(delay * 2, 20);
  }
}

/** A group scope: the NCCL calls made until {@link GroupScope.end} are fused and launched together. */
export interface GroupScope extends Disposable {
  /** Ends the group (`ncclGroupEnd`): launches what it holds. Ending twice is a {@link CommunicatorStateError}. */
  end(): void;
}

/**
 * Groups NCCL calls (`ncclGroupStart` … `ncclGroupEnd`): collectives on several communicators of this process (one
 * per device), or sends and receives that must pair up, launch together. Either a scope:
 * `{ using g = group(); comm0.allReduce(...); comm1.allReduce(...); }`, or a callback: `group(() => { ... })`.
 * Groups nest; the outermost end launches.
 */
export function group(): GroupScope;
export function group(body: () => void): void;
export function group(body?: () => void): GroupScope | void {
  if (body !== undefined && typeof body !== "function") throw new CollectiveArgumentError("group", "body", "a function, or nothing (a scope)", describeValue(body), "Pass a function that makes the calls.");
  const scope = openGroup(ncclModule().nccl);
  if (body === undefined) return scope;
  let result: unknown;
  try {
    result = body();
  } finally {
    scope.end();
  }
  if (result !== undefined && typeof (result as { then?: unknown }).then === "function") {
    throw new CollectiveArgumentError("group", "body", "a synchronous function (NCCL's groups are per thread and end before any await)", "an async function", "Make the calls without awaiting inside the group.");
  }
}

/** `ncclGroupStart` on `binding`, and the scope whose end is its `ncclGroupEnd`. */
function openGroup(binding: NcclBinding): GroupScope {
  const nccl = ncclStatus(binding);
  checkStatus(nccl, binding.raw.ncclGroupStart(), "ncclGroupStart");
  let ended = false;
  const scope: GroupScope = {
    end(): void {
      if (ended) throw new CommunicatorStateError("this group has ended already: end a group once (a `using` scope ends it by itself).");
      ended = true;
      // A non-blocking communicator's group may still be in progress (ncclInProgress): comm.done() waits for it.
      checkStatus(nccl, binding.raw.ncclGroupEnd(), "ncclGroupEnd");
    },
    [Symbol.dispose](): void {
      if (!ended) scope.end();
    },
  };
  return scope;
}
