/**
 * What needs neither NCCL nor a GPU: the unique id's bytes and base64, each dtype's NCCL type and the reductions it
 * allows, and the arguments Communicator refuses before it loads anything.
 */
import { describe, expect, it } from "vitest";
import { CollectiveArgumentError, DTYPE_NAMES, dtypes } from "../../src/index.ts";
import { Communicator, group, NCCL_TYPES, UniqueId } from "../../src/distributed.ts";
import { ncclTypeFor, resolveOperand } from "../../src/core/distributed/collectives.ts";
import { ncclDataType_t } from "../../src/bindings/nccl.ts";

const bytes = Uint8Array.from({ length: 128 }, (_, i) => (i * 31 + 7) & 0xff);

describe("UniqueId", () => {
  it("travels as bytes and as base64, copied both ways", () => {
    const id = UniqueId.fromBytes(bytes);
    const out = id.toBytes();
    expect([...out]).toEqual([...bytes]);
    out[0] = 99;
    expect(id.toBytes()[0]).toBe(bytes[0]);
    const text = id.toBase64();
    expect(text).toMatch(/^[A-Za-z0-9+/]{171}=$/);
    const back = UniqueId.fromBase64(text);
    expect(back.equals(id)).toBe(true);
    expect([...back.toBytes()]).toEqual([...bytes]);
    expect(String(id)).toBe("UniqueId(128 bytes)");
  });

  it("refuses what is not 128 bytes or not base64, saying so", () => {
    expect(() => UniqueId.fromBytes(new Uint8Array(64))).toThrow(CollectiveArgumentError);
    expect(() => UniqueId.fromBytes(new Uint8Array(64))).toThrow(/UniqueId\.fromBytes: bytes must be a Uint8Array of 128 bytes, but it is 64 bytes long/);
    expect(() => UniqueId.fromBytes([1, 2] as unknown as Uint8Array)).toThrow(CollectiveArgumentError);
    expect(() => UniqueId.fromBase64("not base64!")).toThrow(/text must be base64 text/);
    expect(() => UniqueId.fromBase64(btoa("short"))).toThrow(/128 bytes, but it is 5 bytes long/);
  });
});

describe("dtypes through NCCL", () => {
  it("every dtype has an NCCL type of its size", () => {
    const size: Record<number, number> = { 0: 1, 1: 1, 2: 4, 3: 4, 4: 8, 5: 8, 6: 2, 7: 4, 8: 8, 9: 2 };
    for (const name of DTYPE_NAMES) {
      const t = NCCL_TYPES[name];
      expect(size[t.type]! * t.per, name).toBe(dtypes[name].itemsize);
    }
    expect(NCCL_TYPES.bfloat16.type).toBe(ncclDataType_t.ncclBfloat16);
  });

  it("reductions: all for numbers, sum and avg for complex, none for bool and 16-bit integers", () => {
    expect(ncclTypeFor("allReduce", dtypes.float32, "avg").type).toBe(ncclDataType_t.ncclFloat32);
    expect(ncclTypeFor("allReduce", dtypes.complex128, "sum")).toMatchObject({ type: ncclDataType_t.ncclFloat64, per: 2 });
    expect(() => ncclTypeFor("allReduce", dtypes.complex64, "prod")).toThrow(/op must be one NCCL computes right for complex64 \(sum, avg\), but it is "prod"/);
    expect(() => ncclTypeFor("reduce", dtypes.bool, "max")).toThrow(/op must be a reduction NCCL computes for bool, and it computes none/);
    expect(() => ncclTypeFor("reduce", dtypes.int16, "sum")).toThrow(CollectiveArgumentError);
    expect(() => ncclTypeFor("allReduce", dtypes.int32, "mean" as never)).toThrow(/op must be one of sum, prod, min, max, avg/);
    expect(ncclTypeFor("broadcast", dtypes.bool, undefined).type).toBe(ncclDataType_t.ncclUint8);
  });

  it("an operand that is neither a DeviceArray nor { buffer, dtype } is refused", () => {
    expect(() => resolveOperand("allReduce", "send", new Float32Array(4))).toThrow(/allReduce: send must be a DeviceArray or \{ buffer, dtype \}, but it is/);
    expect(() => resolveOperand("allReduce", "recv", { buffer: {}, dtype: "float32" })).toThrow(CollectiveArgumentError);
  });
});

describe("Communicator's arguments, refused before NCCL or a GPU", () => {
  it("initAll, init and group", async () => {
    expect(() => Communicator.initAll([])).toThrow(/devices must be a non-empty array/);
    expect(() => Communicator.initAll(["0"] as never)).toThrow(/devices\[0\] must be a device ordinal or a Device/);
    await expect(Communicator.init({ rank: 0, size: 0, id: UniqueId.fromBytes(bytes) })).rejects.toThrow(/size must be an integer ≥ 1/);
    await expect(Communicator.init({ rank: 2, size: 2, id: UniqueId.fromBytes(bytes) })).rejects.toThrow(/rank must be an integer from 0 to 1, but it is 2/);
    await expect(Communicator.init({ rank: 0, size: 2, id: bytes as never })).rejects.toThrow(/id must be a UniqueId/);
    await expect(Communicator.init({ rank: 0, size: 2, id: UniqueId.fromBytes(bytes), device: -1 })).rejects.toThrow(/device must be a device ordinal or a Device/);
    expect(() => group(42 as never)).toThrow(/group: body must be a function, or nothing/);
    expect(() => Communicator.closeAll([{}] as never)).toThrow(/comms must be an array of Communicators/);
  });
});
