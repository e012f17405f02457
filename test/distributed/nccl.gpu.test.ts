/**
 * NCCL on a real GPU (one H200 is enough for everything but the last suite): communicators of one rank in one process
 * (`initAll([0])`, and `init` with a fresh id), every collective and every dtype giving the identity with one rank,
 * group calls, a non-blocking communicator, split, a communicator aborted mid-way and bad arguments giving typed
 * errors while the process keeps working. The multi-GPU suite skips, with the reason, on fewer than two GPUs.
 * Skips where there is no GPU.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  CollectiveArgumentError,
  CommunicatorStateError,
  Device,
  DeviceArray,
  DeviceMismatchError,
  DTYPE_NAMES,
  dtypes,
  encodeHalf,
  NCCLError,
  type DTypeName,
  type HostArray,
  type Stream,
} from "../../src/index.ts";
import { Communicator, group, NCCL_TYPES, type ReduceOp, UniqueId } from "../../src/distributed.ts";
import { toBFloat16Bits } from "../../src/core/launch/scalars.ts";
import { nccl, ncclDataType_t, ncclRedOp_t } from "../../src/bindings/nccl.ts";
import { ffi } from "../../src/ffi/index.ts";
import { gpu, skipNote } from "../support/gpu.ts";

const N = 1000;

/** Host values of a dtype that every reduction keeps with one rank (small, finite, exact). */
function hostValues(name: DTypeName, n: number, seed: number): HostArray {
  const dt = dtypes[name];
  const a = new dt.hostArray(n * dt.lanes);
  for (let i = 0; i < a.length; i++) {
    const v = ((i * 7 + seed) % 50) + 1;
    if (a instanceof BigInt64Array || a instanceof BigUint64Array) a[i] = BigInt(v);
    else if (name === "bool") a[i] = v % 2;
    else if (name === "float16") a[i] = encodeHalf(v);
    else if (name === "bfloat16") a[i] = toBFloat16Bits(v);
    else a[i] = v;
  }
  return a;
}

function array(name: DTypeName, n: number, seed: number, stream: Stream): { arr: DeviceArray; host: HostArray } {
  const host = hostValues(name, n, seed);
  return { arr: DeviceArray.from(host, { stream, dtype: name, shape: n }), host };
}

async function read(a: DeviceArray, stream: Stream): Promise<unknown[]> {
  return Array.from((await a.toTypedArray({ stream })) as ArrayLike<unknown>);
}

describe.skipIf(!gpu.available)(`NCCL: communicators of one rank${skipNote}`, () => {
  let dev: Device;
  let stream: Stream;
  let comm: Communicator;

  beforeAll(() => {
    dev = new Device(0);
    dev.setCurrent();
    stream = dev.createStream();
    [comm] = Communicator.initAll([0]) as [Communicator];
  });
  afterAll(() => {
    comm?.close();
    stream?.close();
  });

  it("initAll([0]) is rank 0 of 1 on device 0, and NCCL's version picks a table", () => {
    expect([comm.rank, comm.size, comm.device.id, comm.blocking, comm.isClosed]).toEqual([0, 1, 0, true, false]);
    expect(String(comm)).toBe("Communicator(rank 0 of 1 on device 0)");
    const choice = nccl.table();
    expect(choice.reason).toMatch(/^ncclGetVersion \d+ \(NCCL 2\.\d+\.\d+\)$/);
    expect(nccl.tableVersions).toContain(choice.table.library.ctkVersion);
  });

  it("init with a fresh id (passed through base64, as another process would get it) makes a communicator of one", async () => {
    const id = UniqueId.fromBase64(UniqueId.create().toBase64());
    const c = await Communicator.init({ rank: 0, size: 1, id, device: 0 });
    try {
      expect([c.rank, c.size, c.device.id]).toEqual([0, 1, 0]);
      const { arr, host } = array("float32", N, 1, stream);
      c.allReduce(arr, arr, { stream });
      await c.done(stream);
      expect(await read(arr, stream)).toEqual([...host]);
      arr.close();
    } finally {
      await c.finalize();
    }
    expect(c.isClosed).toBe(true);
  });

  it("fromWorld() in a script run on its own is a communicator of one rank", async () => {
    const c = await Communicator.fromWorld();
    expect([c.rank, c.size, c.device.id]).toEqual([0, 1, 0]);
    c.close();
  });

  for (const name of DTYPE_NAMES) {
    it(`every collective on ${name} gives its input back with one rank`, async () => {
      const ops = NCCL_TYPES[name].reductions;
      const { arr: send, host } = array(name, N, 3, stream);
      const recv = DeviceArray.zeros(N, name, { stream });
      for (const op of ops as ReduceOp[]) {
        recv.fill(0, { stream });
        comm.allReduce(send, recv, { op, stream });
        await comm.done(stream);
        expect(await read(recv, stream), `allReduce ${op}`).toEqual([...host]);
        recv.fill(0, { stream });
        comm.reduce(send, recv, { op, root: 0, stream });
        comm.reduceScatter(send, recv, { op, stream });
        await comm.done(stream);
        expect(await read(recv, stream), `reduce/reduceScatter ${op}`).toEqual([...host]);
      }
      const moves: [string, () => void][] = [
        ["broadcast", () => comm.broadcast(send, recv, { root: 0, stream })],
        ["allGather", () => comm.allGather(send, recv, { stream })],
        ["allToAll", () => comm.allToAll(send, recv, { stream })],
        [
          "send/recv",
          () =>
            group(() => {
              comm.send(send, 0, { stream });
              comm.recv(recv, 0, { stream });
            }),
        ],
      ];
      for (const [what, run] of moves) {
        recv.fill(0, { stream });
        run();
        await comm.done(stream);
        expect(await read(recv, stream), what).toEqual([...host]);
      }
      send.close();
      recv.close();
    });
  }

  it("a Buffer with a dtype is an operand, in place, and a group fuses calls (scope and callback)", async () => {
    const buffer = dev.allocate(4 * N, { stream });
    const host = Float32Array.from({ length: N }, (_, i) => i);
    buffer.copyFrom(host, { stream });
    {
      using g = group();
      comm.allReduce({ buffer, dtype: "float32" }, { buffer, dtype: "float32" }, { op: "max", stream });
      comm.broadcast({ buffer, dtype: "float32", count: 10 }, { buffer, dtype: "float32", count: 10 }, { stream });
      expect(typeof g.end).toBe("function");
    }
    await comm.done(stream);
    const back = new Float32Array(N);
    buffer.copyTo(back, { stream });
    stream.sync();
    expect([...back]).toEqual([...host]);
    const g = group();
    g.end();
    expect(() => g.end()).toThrow(CommunicatorStateError);
    buffer.close(stream);
  });

  it("bad arguments are typed errors before NCCL, and the communicator keeps working", async () => {
    const a = DeviceArray.zeros(8, "float32", { stream });
    const b = DeviceArray.zeros(8, "float64", { stream });
    const c = DeviceArray.zeros(9, "float32", { stream });
    const flags = DeviceArray.zeros(8, "bool", { stream });
    const z = DeviceArray.zeros(8, "complex64", { stream });
    expect(() => comm.allReduce(a, b, { stream })).toThrow(CollectiveArgumentError);
    expect(() => comm.allReduce(a, b, { stream })).toThrow(/allReduce: recv must be of the send operand's dtype \(float32\), but it is float64/);
    expect(() => comm.allReduce(a, c, { stream })).toThrow(/recv must be 8 elements, but it is 9 elements/);
    expect(() => comm.allGather(a, c, { stream })).toThrow(/recv must be 8 elements/);
    expect(() => comm.allReduce(flags, flags, { stream })).toThrow(/op must be a reduction NCCL computes for bool/);
    expect(() => comm.allReduce(z, z, { op: "max", stream })).toThrow(/op must be one NCCL computes right for complex64 \(sum, avg\)/);
    expect(() => comm.allReduce(a, a, { op: "mean" as ReduceOp, stream })).toThrow(/op must be one of sum, prod, min, max, avg/);
    expect(() => comm.broadcast(a, a, { root: 1, stream })).toThrow(/root must be a rank from 0 to 0/);
    expect(() => comm.send(a, 2, { stream })).toThrow(/peer must be a rank from 0 to 0/);
    expect(() => comm.allReduce(a, a, {} as { stream: Stream })).toThrow(/options\.stream must be a Stream/);
    expect(() => comm.allReduce(a.reshape(2, 4).T, a.reshape(4, 2), { stream })).toThrow(/send must be a contiguous DeviceArray/);
    expect(() => comm.allReduce({ buffer: a.buffer, dtype: "float32", count: 100 }, a, { stream })).toThrow(/send\.count must be an integer from 0 to \d+ \(what the buffer holds\)/);
    expect(() => comm.allReduce(new Float32Array(8) as never, a, { stream })).toThrow(/send must be a DeviceArray or \{ buffer, dtype \}/);
    await expect(Communicator.init({ rank: 1, size: 1, id: UniqueId.create() })).rejects.toThrow(/rank must be an integer from 0 to 0/);
    expect(() => UniqueId.fromBytes(new Uint8Array(127))).toThrow(/bytes must be a Uint8Array of 128 bytes, but it is 127 bytes long/);
    // NCCL's own refusal (a datatype it does not have, through the checked binding) is an NCCLError.
    let caught: unknown;
    try {
      nccl.ncclAllReduce(ffi.pointerFromAddress(a.address), ffi.pointerFromAddress(a.address), 8, 99 as ncclDataType_t, ncclRedOp_t.ncclSum, comm.handle, stream.handle);
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(NCCLError);
    expect((caught as NCCLError).codeName).toBe("ncclInvalidArgument");
    // Still working.
    a.fill(2, { stream });
    comm.allReduce(a, a, { op: "prod", stream });
    await comm.done(stream);
    expect(await read(a, stream)).toEqual(new Array(8).fill(2));
    for (const x of [a, b, c, flags, z]) x.close();
  });

  it("a communicator aborted mid-way is refused afterwards with a typed error; a new one works", async () => {
    const c = await Communicator.init({ rank: 0, size: 1, id: UniqueId.create(), device: 0 });
    const { arr } = array("float32", 1 << 20, 5, stream);
    for (let i = 0; i < 8; i++) c.allReduce(arr, arr, { stream });
    c.abort();
    c.abort();
    expect(c.isClosed).toBe(true);
    expect(() => c.allReduce(arr, arr, { stream })).toThrow(CommunicatorStateError);
    await expect(c.done(stream)).rejects.toThrow(/closed or aborted: cannot wait/);
    stream.sync();
    await c.finalize(); // harmless once aborted
    const fresh = await Communicator.init({ rank: 0, size: 1, id: UniqueId.create(), device: 0 });
    const { arr: x, host } = array("int32", N, 9, stream);
    fresh.allReduce(x, x, { stream });
    await fresh.done(stream);
    expect(await read(x, stream)).toEqual([...host]);
    fresh.close();
    arr.close();
    x.close();
  });

  it("a non-blocking communicator: init, collectives and finalize complete by polling", async () => {
    const c = await Communicator.init({ rank: 0, size: 1, id: UniqueId.create(), device: 0, config: { blocking: false, cgaClusterSize: 2, commName: "cuda-ts test" } });
    expect(c.blocking).toBe(false);
    const { arr, host } = array("float64", N, 11, stream);
    c.allReduce(arr, arr, { op: "min", stream });
    await c.done(stream);
    expect(await read(arr, stream)).toEqual([...host]);
    await c.finalize();
    arr.close();
  });

  it("split: color 0 gives a communicator of one; no color gives none", async () => {
    const part = await comm.split(0, 0);
    expect(part?.size).toBe(1);
    const { arr, host } = array("uint8", N, 13, stream);
    part!.allReduce(arr, arr, { stream });
    await part!.done(stream);
    expect(await read(arr, stream)).toEqual([...host]);
    part!.close();
    expect(await comm.split(undefined, 0)).toBeUndefined();
    arr.close();
  });

  it("`using` closes a communicator at the end of its scope", async () => {
    let kept: Communicator | undefined;
    {
      await using c = await Communicator.init({ rank: 0, size: 1, id: UniqueId.create(), device: 0 });
      kept = c;
      expect(c.isClosed).toBe(false);
    }
    expect(kept.isClosed).toBe(true);
  });
});

const gpus = gpu.available ? Device.count : 0;
describe.skipIf(gpus < 2)(`NCCL across GPUs of one process${gpus < 2 ? ` [skipped: needs 2 GPUs, this machine has ${gpus}; run it on a machine with two (nvidia-h100-x2)]` : ""}`, () => {
  it("initAll over every GPU: allReduce, allGather and reduceScatter in groups give the sums", async () => {
    const devices = Device.all();
    const comms = Communicator.initAll(devices);
    const size = comms.length;
    try {
      const per = devices.map((d, r) => {
        d.setCurrent();
        const s = d.createStream();
        return { s, x: DeviceArray.from(Float32Array.from({ length: N * size }, (_, i) => r + i), { stream: s }), out: DeviceArray.zeros(N, "float32", { stream: s }) };
      });
      group(() => per.forEach((p, r) => comms[r]!.allReduce(p.x, p.x, { stream: p.s })));
      group(() => per.forEach((p, r) => comms[r]!.reduceScatter(p.x, p.out, { stream: p.s })));
      const ranksSum = (size * (size - 1)) / 2;
      for (const [r, p] of per.entries()) {
        await comms[r]!.done(p.s);
        const x = await read(p.x, p.s);
        expect(x[5]).toBe(ranksSum + size * 5);
        const out = await read(p.out, p.s);
        expect(out[0]).toBe(size * (ranksSum + size * (r * N)));
      }
      // A stream of another device is refused before NCCL.
      expect(() => comms[0]!.allReduce(per[0]!.x, per[0]!.x, { stream: per[1]!.s })).toThrow(DeviceMismatchError);
      expect(() => comms[0]!.allReduce(per[0]!.x, per[0]!.x, { stream: per[1]!.s })).toThrow(/allReduce: options\.stream is on device 1, but device 0 is needed here/);
      expect(() => comms[0]!.allReduce(per[1]!.x, per[1]!.x, { stream: per[0]!.s })).toThrow(/allReduce: send is on device 1, but device 0 is needed here/);
    } finally {
      Communicator.closeAll(comms);
    }
  });
});
