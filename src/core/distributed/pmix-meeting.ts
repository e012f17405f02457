/**
 * The meeting of a job's ranks through PMIx, where the launcher serves it (Slurm's `srun --mpi=pmix`, Open MPI's
 * `mpirun`, PRRTE's `prterun`): no port of cuda-ts's own and no secret; the resource manager decides who belongs to
 * the job. Every rank initialises PMIx (`PMIx_Init`), publishes that it came (`PMIx_Put` + `PMIx_Commit`) and waits
 * for the others in a fence (`PMIx_Fence` with PMIx's own timeout, so no rank hangs past it); a value rank 0 shares
 * is put by rank 0 and read by all after a fence that collects the data (`PMIx_Get`); a barrier is a fence.
 *
 * The calls block the calling thread (PMIx's progress thread does the work), each at most the meeting's timeout. A
 * fence that times out or completes for part of the job only asks each rank for its mark (one second each) to name
 * the first that did not come. Under Slurm and Open MPI a rank that ends without finalising PMIx usually makes the
 * launcher stop the whole job at once, which it reports naming that rank.
 *
 * PMIx's binding (src/bindings/pmix.ts, with its tables) loads when a job first meets through PMIx.
 *
 * @module
 */
import type * as PmixModule from "../../bindings/pmix.ts";
import type { PmixBinding } from "../../bindings/pmix.ts";
import { ffi, type NativePointer } from "../../ffi/index.ts";
import { RankMissingError, RendezvousError } from "./errors.ts";
import { importLater } from "../../deferred.ts";
import { ownModuleUrl } from "../../module-url.ts";

type Pmix = typeof PmixModule;

let loaded: Promise<Pmix> | undefined;

/** PMIx's binding module, loaded on first use. */
export function loadPmix(): Promise<Pmix> {
  loaded ??= importLater<Pmix>(ownModuleUrl("src/bindings/pmix"), "pmix");
  return loaded;
}

/** The key under which each rank marks that it came. */
const JOINED_KEY = "cuda-ts.joined";
/** The prefix of shared values' keys. */
const VALUE_PREFIX = "cuda-ts.value.";
/** The longest user key (PMIx keys hold 511 bytes). */
export const PMIX_MAX_USER_KEY = 400;

function cBytes(s: string): Uint8Array {
  return ffi.cstring(s);
}

/** The job facts PMIx gives a rank. */
export interface PmixJobFacts {
  readonly namespace: string;
  readonly rank: number;
  readonly size: number;
  readonly localRank: number;
  readonly localSize: number;
  readonly nodeRank: number;
  readonly nodes: number;
}

/** One process's PMIx client, initialised once; {@link PmixSession.release} finalises it when its last user is done. */
export class PmixSession {
  static #current: PmixSession | undefined;
  readonly #m: Pmix;
  readonly #b: PmixBinding;
  readonly #proc: InstanceType<Pmix["pmix_proc"]>;
  #users = 0;
  #finalized = false;
  /** The job's namespace. */
  readonly namespace: string;
  /** This process's rank. */
  readonly rank: number;

  private constructor(m: Pmix, proc: InstanceType<Pmix["pmix_proc"]>) {
    this.#m = m;
    this.#b = m.pmix;
    this.#proc = proc;
    this.namespace = decodeFixed(proc.nspace);
    this.rank = proc.rank;
  }

  /**
   * The process's PMIx client (initialised on the first call; later calls share it). A PMIx that does not start is a
   * {@link RendezvousError} saying what to check, with the {@link PMIxError} as its cause.
   */
  static async acquire(): Promise<PmixSession> {
    const m = await loadPmix();
    const current = PmixSession.#current;
    if (current !== undefined && !current.#finalized) {
      current.#users++;
      return current;
    }
    const proc = new m.pmix_proc();
    let status: number;
    try {
      status = m.pmix.raw.PMIx_Init(proc.$pointer(), null, 0);
    } catch (e) {
      throw new RendezvousError(
        `PMIx could not be loaded to meet the job's ranks (${e instanceof Error ? e.message : String(e)}): install libpmix (Debian: libpmix2), point CUDA_TS_PMIX_PATH at libpmix.so.2, ` +
          "or meet through the rendezvous store instead (joinWorld({ via: \"store\" }) with MASTER_ADDR, MASTER_PORT and CUDA_TS_RENDEZVOUS_SECRET set)",
        { cause: e },
      );
    }
    if (status !== m.PMIX_SUCCESS) {
      const cause = m.pmixError(m.pmix, status, "PMIx_Init");
      throw new RendezvousError(
        `PMIx did not start (${cause.message}): the PMIX_* variables say a launcher serves PMIx, but its server did not answer. Start the job with \`srun --mpi=pmix\` or \`mpirun\` ` +
          "(not by copying their variables), or meet through the rendezvous store instead (joinWorld({ via: \"store\" }) with MASTER_ADDR, MASTER_PORT and CUDA_TS_RENDEZVOUS_SECRET)",
        { cause },
      );
    }
    const s = new PmixSession(m, proc);
    s.#users = 1;
    PmixSession.#current = s;
    return s;
  }

  /** Drops one user; the last finalises PMIx (a launcher treats a process that ends without it as failed). */
  release(): void {
    if (this.#finalized || --this.#users > 0) return;
    this.#finalized = true;
    if (PmixSession.#current === this) PmixSession.#current = undefined;
    this.#b.raw.PMIx_Finalize(null, 0);
  }

  #procOf(rank: number): InstanceType<Pmix["pmix_proc"]> {
    const p = new this.#m.pmix_proc();
    p.nspace.set(this.#proc.nspace);
    p.rank = rank;
    return p;
  }

  /** An info array: PMIX_TIMEOUT (whole seconds, at least 1) and optionally PMIX_COLLECT_DATA. */
  #infos(timeoutMs: number, collect: boolean | undefined): { readonly bytes: Uint8Array; readonly count: number } {
    const m = this.#m;
    const size = m.pmix_info.$size;
    const count = collect === undefined ? 1 : 2;
    const bytes = new Uint8Array(size * count);
    const put = (i: number, key: string, type: number, write: (v: InstanceType<Pmix["pmix_value"]>) => void): void => {
      const info = new m.pmix_info(bytes, i * size);
      info.key.set(new Int8Array(cBytes(key).buffer));
      const value = info.value;
      value.type = type as never;
      write(value);
    };
    put(0, m.PMIX_TIMEOUT, m.PMIX_INT, (v) => (v.data.integer = Math.max(1, Math.ceil(timeoutMs / 1000))));
    if (collect !== undefined) put(1, m.PMIX_COLLECT_DATA, m.PMIX_BOOL, (v) => (v.data.flag = collect));
    return { bytes, count };
  }

  /** Publishes `value` under `key` for every rank (PMIx_Put, global scope) and commits it. */
  put(key: string, value: string): void {
    const m = this.#m;
    const text = cBytes(value);
    const v = new m.pmix_value();
    v.type = m.PMIX_STRING as never;
    v.data.string = ffi.pointerOf(text);
    const k = cBytes(key);
    this.#check(m.pmix.raw.PMIx_Put(m.PMIX_GLOBAL as never, ffi.pointerOf(k), v.$pointer()), "PMIx_Put");
    this.#check(m.pmix.raw.PMIx_Commit(), "PMIx_Commit");
    void text; // kept alive through the calls
  }

  /**
   * The string `rank` put under `key`, or the status when PMIx has none (PMIX_ERR_NOT_FOUND, PMIX_ERR_TIMEOUT, ...).
   * Waits at most `timeoutMs`.
   */
  get(rank: number, key: string, timeoutMs: number): string | number {
    const m = this.#m;
    const proc = this.#procOf(rank);
    const k = cBytes(key);
    const infos = this.#infos(timeoutMs, undefined);
    const out = new BigUint64Array(1);
    const status = m.pmix.raw.PMIx_Get(proc.$pointer(), ffi.pointerOf(k), ffi.pointerOf(infos.bytes), infos.count, ffi.pointerOf(out));
    if (status !== m.PMIX_SUCCESS) return status;
    const p = ffi.pointerFromAddress(out[0]!);
    if (ffi.isNull(p)) return m.PMIX_ERR_NOT_FOUND;
    const value = m.pmix_value.at(p as NativePointer);
    try {
      if (value.type !== m.PMIX_STRING) return m.PMIX_ERR_BAD_PARAM;
      return ffi.readCString(value.data.string) ?? "";
    } finally {
      // The value's string is freed; its 32-byte record is PMIx's to free with libc (PMIX_VALUE_RELEASE), left.
      m.pmix.raw.PMIx_Value_destruct(p);
    }
  }

  /** A number PMIx holds about the job or this rank (PMIX_JOB_SIZE, PMIX_LOCAL_RANK, ...), or undefined. */
  jobNumber(key: string, ofJob: boolean): number | undefined {
    const m = this.#m;
    const proc = this.#procOf(ofJob ? m.PMIX_RANK_WILDCARD : this.rank);
    const k = cBytes(key);
    const infos = this.#infos(5000, undefined);
    const out = new BigUint64Array(1);
    const status = m.pmix.raw.PMIx_Get(proc.$pointer(), ffi.pointerOf(k), ffi.pointerOf(infos.bytes), infos.count, ffi.pointerOf(out));
    if (status !== m.PMIX_SUCCESS) return undefined;
    const p = ffi.pointerFromAddress(out[0]!);
    if (ffi.isNull(p)) return undefined;
    const v = m.pmix_value.at(p as NativePointer);
    const d = v.data;
    const t = v.type as number;
    const n =
      t === m.PMIX_UINT32 || t === m.PMIX_PROC_RANK
        ? d.uint32
        : t === m.PMIX_UINT16
          ? d.uint16
          : t === m.PMIX_UINT8
            ? d.uint8
            : t === m.PMIX_INT || t === m.PMIX_INT32
              ? d.int32
              : t === m.PMIX_UINT64 || t === m.PMIX_SIZE
                ? Number(d.uint64)
                : t === m.PMIX_UINT
                  ? d.uint
                  : undefined;
    m.pmix.raw.PMIx_Value_destruct(p);
    return n;
  }

  /** What PMIx says about the job: size, this rank's local rank and node, the local size and the number of nodes. */
  facts(): PmixJobFacts {
    const m = this.#m;
    const size = this.jobNumber(m.PMIX_JOB_SIZE, true);
    if (size === undefined || size < 1) throw new RendezvousError(`PMIx did not say the job's size (${m.PMIX_JOB_SIZE}): is the launcher's PMIx server complete? Start the job with srun --mpi=pmix or mpirun`);
    const localRank = this.jobNumber(m.PMIX_LOCAL_RANK, false) ?? 0;
    const localSize = this.jobNumber(m.PMIX_LOCAL_SIZE, true) ?? this.jobNumber(m.PMIX_LOCAL_SIZE, false) ?? 1;
    const nodeRank = this.jobNumber(m.PMIX_NODEID, false) ?? 0;
    const nodes = this.jobNumber(m.PMIX_NUM_NODES, true) ?? Math.max(nodeRank + 1, Math.ceil(size / localSize));
    return { namespace: this.namespace, rank: this.rank, size, localRank, localSize, nodeRank, nodes };
  }

  /** Waits for every rank of the job (PMIx_Fence over the namespace), collecting the data put so far when `collect`. */
  fence(collect: boolean, timeoutMs: number): number {
    const m = this.#m;
    const all = this.#procOf(m.PMIX_RANK_WILDCARD);
    const infos = this.#infos(timeoutMs, collect);
    return m.pmix.raw.PMIx_Fence(all.$pointer(), 1, ffi.pointerOf(infos.bytes), infos.count);
  }

  /** Whether `status` is PMIX_SUCCESS; a timeout or a partial fence otherwise (see {@link PmixMeeting}). */
  isSuccess(status: number): boolean {
    return status === this.#m.PMIX_SUCCESS;
  }

  /** PMIx's description of a status. */
  describe(status: number, fn: string): string {
    return this.#m.pmixError(this.#b, status, fn).message;
  }

  #check(status: number, fn: string): void {
    if (status !== this.#m.PMIX_SUCCESS) throw this.#m.pmixError(this.#b, status, fn, "the job's PMIx server refused the call: is the launcher still running?");
  }
}

function decodeFixed(bytes: Int8Array): string {
  const u = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const end = u.indexOf(0);
  return new TextDecoder().decode(u.subarray(0, end < 0 ? u.length : end));
}

/** The ranks of a job that met through PMIx. */
export class PmixMeeting {
  readonly #session: PmixSession;
  readonly #size: number;
  readonly #rank: number;
  #fences = 0;
  #closed = false;

  private constructor(session: PmixSession, rank: number, size: number) {
    this.#session = session;
    this.#rank = rank;
    this.#size = size;
  }

  /**
   * Meets the job's ranks: each marks that it came and all wait in a fence. A rank that does not come within the
   * timeout is a {@link RankMissingError} naming it.
   */
  static join(session: PmixSession, rank: number, size: number, timeoutMs: number): PmixMeeting {
    const m = new PmixMeeting(session, rank, size);
    try {
      session.put(JOINED_KEY, String(rank));
      m.#fence(true, timeoutMs, "joining the job");
    } catch (e) {
      session.release();
      throw e;
    }
    return m;
  }

  #fence(collect: boolean, timeoutMs: number, what: string): void {
    if (this.#closed) throw new RendezvousError("this meeting is closed: join the world again");
    this.#fences++;
    const s = this.#session;
    const status = s.fence(collect, timeoutMs);
    if (s.isSuccess(status)) return;
    // Name the first rank whose mark cannot be read (it never came, or ended).
    for (let r = 0; r < this.#size; r++) {
      if (r === this.#rank) continue;
      const got = s.get(r, JOINED_KEY, 1000);
      if (typeof got !== "string") {
        throw new RankMissingError(
          r,
          this.#size,
          `rank ${r} of ${this.#size} did not come to the PMIx fence while ${what} within ${timeoutMs} ms (rank ${this.#rank} waited; PMIx says ${s.describe(status, "PMIx_Fence")}): ` +
            "did it start, and did it exit early or fail? The launcher's log names the task; ranks after it were not checked",
        );
      }
    }
    throw new RendezvousError(
      `the PMIx fence while ${what} failed within ${timeoutMs} ms (rank ${this.#rank} of ${this.#size}; PMIx says ${s.describe(status, "PMIx_Fence")}), though every rank marked that it came: ` +
        "a rank ended or stopped calling the same meeting steps (every rank shares the same keys and meets the same barriers, in the same order)",
    );
  }

  /** Rank 0's `value` (given by rank 0, undefined elsewhere) under `key`, on every rank; a collective call. */
  exchange(key: string, value: string | undefined, timeoutMs: number): string {
    if (key.length > PMIX_MAX_USER_KEY) throw new RangeError(`Meeting.share: a key for PMIx holds at most ${PMIX_MAX_USER_KEY} characters, this one ${key.length}: use a shorter key`);
    const full = VALUE_PREFIX + key;
    if (this.#rank === 0) this.#session.put(full, value!);
    this.#fence(true, timeoutMs, `sharing ${JSON.stringify(key)}`);
    if (this.#rank === 0) return value!;
    const got = this.#session.get(0, full, timeoutMs);
    if (typeof got !== "string") {
      throw new RendezvousError(`rank 0 did not share ${JSON.stringify(key)} through PMIx (PMIx says ${this.#session.describe(got, "PMIx_Get")}): every rank calls share() with the same keys in the same order`);
    }
    return got;
  }

  /** Waits until every rank reaches the barrier. */
  barrier(timeoutMs: number): void {
    this.#fence(false, timeoutMs, "waiting at a barrier");
  }

  /** Finalises this process's PMIx (when no other meeting uses it). Closing twice is harmless. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#session.release();
  }
}

