/**
 * DLPack and the CUDA Array Interface without a GPU: arrays over stand-in buffers of each memory kind (device,
 * pinned, managed) exported and read back with their kind kept; versioned and legacy DLPack structs; 0-d, size-0,
 * bool, bfloat16 and complex tensors; and our descriptors of arrays equivalent to what PyTorch and CuPy export,
 * compared field by field with the fixtures in test/fixtures/interop (written by capture.py: from the specs where no
 * GPU ran it, from the libraries themselves where one did).
 */
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { ArrayLayoutError, Buffer, DeviceArray, DTypeError, dtypes, type DTypeName, type ForeignMemoryType } from "../../../src/index.ts";
import {
  DLDeviceType,
  DLPACK_LAYOUT,
  describeDLPack,
  dlpackDevice,
  fromCudaArrayInterface,
  fromDLPack,
  toDLPack,
  type DLPackKind,
} from "../../../src/interop.ts";
import { ffi } from "../../../src/ffi/index.ts";

const BASE = 0x7f00_0000_0000n;
const root = resolve(import.meta.dirname ?? new URL(".", import.meta.url).pathname, "../../..");

function buffer(memoryType: ForeignMemoryType, size = 1 << 16, deviceId = 0): Buffer {
  return Buffer.fromHandle(BASE, size, { owner: {}, memoryType, ...(memoryType === "device" ? { deviceId } : {}) });
}

/** A DLPack struct laid out from plain fields, as a producer would hand it over; kept alive by the returned object. */
function layOut(
  kind: DLPackKind,
  f: { data: bigint; deviceType: number; deviceId: number; code: number; bits: number; shape: number[]; strides: number[] | null; byteOffset?: number; flags?: bigint; version?: [number, number] },
): { pointer: ReturnType<typeof ffi.pointerOf>; keep: unknown[] } {
  const L = DLPACK_LAYOUT;
  const bytes = new Uint8Array(kind === "managed-versioned" ? L.DLManagedTensorVersioned.size : kind === "managed" ? L.DLManagedTensor.size : L.DLTensor.size);
  const dv = new DataView(bytes.buffer);
  const nd = f.shape.length;
  const shape = BigInt64Array.from(f.shape.length > 0 ? f.shape : [0], BigInt);
  const strides = f.strides === null ? null : BigInt64Array.from(f.strides.length > 0 ? f.strides : [0], BigInt);
  const t = kind === "managed-versioned" ? L.DLManagedTensorVersioned.dlTensor : 0;
  if (kind === "managed-versioned") {
    dv.setUint32(0, f.version?.[0] ?? 1, true);
    dv.setUint32(4, f.version?.[1] ?? 0, true);
    dv.setBigUint64(L.DLManagedTensorVersioned.flags, f.flags ?? 0n, true);
  }
  dv.setBigUint64(t + L.DLTensor.data, f.data, true);
  dv.setInt32(t + L.DLTensor.deviceType, f.deviceType, true);
  dv.setInt32(t + L.DLTensor.deviceId, f.deviceId, true);
  dv.setInt32(t + L.DLTensor.ndim, nd, true);
  dv.setUint8(t + L.DLTensor.dtypeCode, f.code);
  dv.setUint8(t + L.DLTensor.dtypeBits, f.bits);
  dv.setUint16(t + L.DLTensor.dtypeLanes, 1, true);
  dv.setBigUint64(t + L.DLTensor.shape, ffi.bigAddressOf(ffi.pointerOf(shape)), true);
  dv.setBigUint64(t + L.DLTensor.strides, strides === null ? 0n : ffi.bigAddressOf(ffi.pointerOf(strides)), true);
  dv.setBigUint64(t + L.DLTensor.byteOffset, BigInt(f.byteOffset ?? 0), true);
  return { pointer: ffi.pointerOf(bytes), keep: [bytes, shape, strides] };
}

describe("DLPack keeps the memory kind", () => {
  const kinds: [ForeignMemoryType, number, boolean, boolean][] = [
    ["device", DLDeviceType.kDLCUDA, false, false],
    ["pinned", DLDeviceType.kDLCUDAHost, true, false],
    ["managed", DLDeviceType.kDLCUDAManaged, true, true],
  ];
  for (const [memoryType, deviceType, host, managed] of kinds) {
    it(`exports ${memoryType} memory as device type ${deviceType} and reads it back as ${memoryType} memory`, () => {
      const a = DeviceArray.fromBuffer(buffer(memoryType, 4096, 0), { dtype: "float32", shape: [4, 8] });
      expect(dlpackDevice(a)).toEqual({ deviceType, deviceId: 0 });
      for (const versioned of [true, false]) {
        const t = toDLPack(a.T, { versioned });
        const d = t.describe();
        expect(d.deviceType).toBe(deviceType);
        expect(d.deviceId).toBe(0);
        expect(d.version).toEqual(versioned ? { major: 1, minor: 0 } : undefined);
        expect(t.capsuleName).toBe(versioned ? "dltensor_versioned" : "dltensor");
        const back = fromDLPack(t.pointer, { kind: versioned ? "managed-versioned" : "managed", owner: t });
        expect(back.buffer.isHostAccessible).toBe(host);
        expect(back.buffer.isManaged).toBe(managed);
        expect(back.shape).toEqual([8, 4]);
        expect(back.strides).toEqual([1, 8]);
        expect(back.address).toBe(BASE);
        expect(toDLPack(back).describe().deviceType).toBe(deviceType);
        const bare = fromDLPack(t.tensorPointer, { kind: "tensor", owner: t });
        expect(bare.buffer.isHostAccessible).toBe(host);
      }
    });
  }

  it("gives a device tensor's ordinal to the buffer, and keeps it on re-export", () => {
    const m = layOut("managed-versioned", { data: BASE, deviceType: DLDeviceType.kDLCUDA, deviceId: 3, code: 2, bits: 32, shape: [4], strides: null });
    const a = fromDLPack(m.pointer);
    expect(a.buffer.deviceId).toBe(3);
    expect(toDLPack(a).describe().deviceId).toBe(3);
    expect(a.buffer.isHostAccessible).toBe(false);
  });

  it("reads byte_offset, NULL strides, 0-d and size-0 tensors, and flags", () => {
    const m = layOut("managed-versioned", {
      data: BASE,
      deviceType: DLDeviceType.kDLCUDAHost,
      deviceId: 0,
      code: 2,
      bits: 64,
      shape: [2, 3],
      strides: null,
      byteOffset: 256,
      flags: 3n,
    });
    const d = describeDLPack(m.pointer);
    expect([d.readOnly, d.isCopied, d.strides, d.byteOffset]).toEqual([true, true, null, 256n]);
    const a = fromDLPack(m.pointer);
    expect([a.address, a.strides, a.dtype.name, a.buffer.isHostAccessible]).toEqual([BASE + 256n, [3, 1], "float64", true]);
    const scalar = fromDLPack(layOut("managed", { data: BASE + 8n, deviceType: 2, deviceId: 0, code: 0, bits: 32, shape: [], strides: null }).pointer, { kind: "managed" });
    expect([scalar.shape, scalar.size, scalar.address]).toEqual([[], 1, BASE + 8n]);
    const empty = fromDLPack(layOut("managed-versioned", { data: 0n, deviceType: 2, deviceId: 0, code: 2, bits: 32, shape: [0, 3], strides: [3, 1] }).pointer);
    expect([empty.shape, empty.size, empty.buffer.size]).toEqual([[0, 3], 0, 0]);
    const et = toDLPack(empty).describe();
    expect([et.shape, et.strides, et.ndim]).toEqual([[0, 3], [3, 1], 2]);
    const s0 = toDLPack(scalar).describe();
    expect([s0.ndim, s0.shape, s0.strides]).toEqual([0, [], null]);
  });

  it("reads bool (kDLBool, and the legacy uint8 with { dtype }), bfloat16 and complex", () => {
    const cases: [number, number, DTypeName][] = [
      [6, 8, "bool"],
      [4, 16, "bfloat16"],
      [5, 64, "complex64"],
      [5, 128, "complex128"],
      [2, 16, "float16"],
      [1, 64, "uint64"],
    ];
    for (const [code, bits, name] of cases) {
      const a = fromDLPack(layOut("managed-versioned", { data: BASE, deviceType: 2, deviceId: 0, code, bits, shape: [3], strides: [1] }).pointer);
      expect(a.dtype).toBe(dtypes[name]);
      const d = toDLPack(a).describe();
      expect(d.dtype).toEqual({ code, bits, lanes: 1 });
    }
    const legacyBool = layOut("managed", { data: BASE, deviceType: 2, deviceId: 0, code: 1, bits: 8, shape: [3], strides: [1] });
    expect(fromDLPack(legacyBool.pointer, { kind: "managed" }).dtype.name).toBe("uint8");
    expect(fromDLPack(legacyBool.pointer, { kind: "managed", dtype: "bool" }).dtype.name).toBe("bool");
    expect(() => fromDLPack(legacyBool.pointer, { kind: "managed", dtype: "int32" })).toThrow(/4-byte elements but the tensor's uint8 has 1/);
  });

  it("refuses what it cannot read, with typed errors", () => {
    const wrongMajor = layOut("managed-versioned", { data: BASE, deviceType: 2, deviceId: 0, code: 2, bits: 32, shape: [3], strides: null, version: [2, 0] });
    expect(() => fromDLPack(wrongMajor.pointer)).toThrow(/major version 2; this reads version 1 \(a legacy DLManagedTensor is \{ kind: "managed" \}\)/);
    const opencl = layOut("managed-versioned", { data: BASE, deviceType: 4, deviceId: 0, code: 2, bits: 32, shape: [3], strides: null });
    expect(() => fromDLPack(opencl.pointer)).toThrow(ArrayLayoutError);
    const lanes = layOut("managed-versioned", { data: BASE, deviceType: 2, deviceId: 0, code: 2, bits: 32, shape: [3], strides: null });
    new DataView(ffi.view(lanes.pointer, 80)).setUint16(32 + 22, 4, true);
    expect(() => fromDLPack(lanes.pointer)).toThrow(DTypeError);
    expect(() => fromDLPack(0n)).toThrow(/the pointer is NULL/);
    expect(() => fromDLPack(opencl.pointer, { kind: "versioned" as DLPackKind })).toThrow(/kind is "managed-versioned"/);
    expect(() => toDLPack(DeviceArray.fromBuffer(buffer("device"), { dtype: "int8" }), { versioned: false, readOnly: true })).toThrow(/legacy DLManagedTensor has no flags/);
  });
});

describe("the CUDA Array Interface", () => {
  it("takes the memory kind it is told, and gives a size-0 array the address 0", () => {
    const desc = { shape: [4], typestr: "<f4", data: [BASE, false] as [bigint, boolean], version: 3, strides: null };
    for (const memoryType of ["pinned", "managed", "device"] as const) {
      const a = fromCudaArrayInterface(desc, { memoryType });
      expect(a.buffer.isHostAccessible).toBe(memoryType !== "device");
      expect(a.buffer.isManaged).toBe(memoryType === "managed");
    }
    expect(() => fromCudaArrayInterface(desc, { memoryType: "host" as ForeignMemoryType })).toThrow(/memoryType is "device", "pinned" or "managed"/);
    const empty = DeviceArray.fromBuffer(buffer("device"), { dtype: "float32", shape: [0, 3] });
    expect(empty.cudaArrayInterface().data).toEqual([0n, false]);
    expect(() => fromCudaArrayInterface({ ...desc, mask: {} })).toThrow(/masked arrays/);
    const back = fromCudaArrayInterface({ shape: [0, 3], typestr: "<f4", data: [0, false], version: 2, strides: null }, { memoryType: "device" });
    expect(back.size).toBe(0);
  });
});

// ---- against the descriptors PyTorch and CuPy produce ----------------------------------------------------------

interface FixtureDLPack {
  capsule: string;
  version: [number, number] | null;
  flags: number;
  device_type: number;
  device_id: number;
  ndim: number;
  dtype: { code: number; bits: number; lanes: number };
  shape: number[];
  strides: number[] | null;
  byte_offset: number;
  data_minus_element0: number | null;
}
interface FixtureCAI {
  shape: number[];
  typestr: string;
  strides: number[] | null;
  descr: [string, string][] | null;
  version: number;
  data_readonly: boolean;
  data_is_null: boolean;
  data_minus_element0: number | null;
}
interface FixtureCase {
  memory: ForeignMemoryType;
  dtype: DTypeName;
  layout: string;
  shape?: number[];
  strides?: number[];
  error?: string;
  cai?: FixtureCAI;
  cai_error?: string;
  dlpack?: FixtureDLPack;
  dlpack_legacy?: FixtureDLPack;
}
interface Fixture {
  producer: string;
  version: string | null;
  source: string;
  cases: Record<string, FixtureCase>;
}

/** Our array equivalent to a fixture's case: a (4, 6) base (or the case's own shape) and the same view. */
function equivalent(c: FixtureCase): DeviceArray {
  const b = buffer(c.memory, 1 << 12, 0);
  const make = (shape: number[]): DeviceArray => DeviceArray.fromBuffer(b, { dtype: c.dtype, shape });
  switch (c.layout) {
    case "contiguous":
      return make([4, 6]);
    case "transposed":
      return make([4, 6]).T;
    case "stepped":
      return make([4, 6]).slice([null, null, 2], [1, null, 2]);
    case "scalar":
      return make([]);
    case "empty":
      return make([0, 3]);
    case "vector":
      return make([5]);
  }
  throw new Error(`unknown layout ${c.layout}`);
}

const contiguousStrides = (shape: readonly number[]): number[] => {
  const s: number[] = [];
  let n = 1;
  for (let i = shape.length - 1; i >= 0; i--) {
    s[i] = n;
    n *= shape[i]!;
  }
  return s;
};

/** Strides as a consumer reads them: the written ones, or the compact ones for NULL; extent-1 axes say nothing. */
function effectiveStrides(shape: readonly number[], strides: readonly number[] | null): (number | null)[] {
  const s = strides ?? contiguousStrides(shape);
  const empty = shape.some((n) => n === 0);
  return shape.map((n, i) => (empty || n === 1 ? null : s[i]!));
}

for (const producer of ["torch", "cupy"]) {
  const fixture = JSON.parse(readFileSync(join(root, "test/fixtures/interop", `${producer}.json`), "utf8")) as Fixture;
  describe(`descriptors as ${producer} ${fixture.version ?? ""} writes them (${fixture.source})`, () => {
    const cases = Object.entries(fixture.cases).filter(([, c]) => c.error === undefined);
    it("has cases", () => expect(cases.length).toBeGreaterThan(20));
    for (const [name, c] of cases) {
      it(name, () => {
        const a = equivalent(c);
        if (c.shape !== undefined) expect(a.shape).toEqual(c.shape);
        if (c.strides !== undefined) expect(effectiveStrides(a.shape, a.strides)).toEqual(effectiveStrides(c.shape!, c.strides));
        for (const key of ["dlpack", "dlpack_legacy"] as const) {
          const fx = c[key];
          if (fx === undefined) continue;
          const t = toDLPack(a, { versioned: key === "dlpack" });
          const d = t.describe();
          expect(t.capsuleName).toBe(fx.capsule);
          // Deliberate differences: PyTorch's pinned tensors are CPU tensors (kDLCPU), and a producer may describe
          // pinned memory it wraps as device memory (kDLCUDA); cuda-ts describes pinned memory as dlpack.h's
          // kDLCUDAHost, and reads kDLCPU memory the driver knows as pinned.
          const pinnedElsewhere = c.memory === "pinned" && (fx.device_type === DLDeviceType.kDLCPU || fx.device_type === DLDeviceType.kDLCUDA);
          expect(d.deviceType).toBe(pinnedElsewhere ? DLDeviceType.kDLCUDAHost : fx.device_type);
          expect(d.deviceId).toBe(fx.device_id);
          expect(d.ndim).toBe(fx.ndim);
          expect(d.dtype).toEqual(fx.dtype);
          expect(d.shape).toEqual(fx.shape);
          expect(effectiveStrides(d.shape, d.strides)).toEqual(effectiveStrides(fx.shape, fx.strides));
          expect(Number(d.byteOffset)).toBe(fx.byte_offset);
          if (fx.data_minus_element0 !== null && a.size > 0) expect(Number(d.data + d.byteOffset - a.address)).toBe(fx.data_minus_element0);
          expect(Number(d.flags)).toBe(fx.flags);
          if (fx.version !== null) expect(d.version?.major).toBe(fx.version[0]);
          else expect(d.version).toBeUndefined();
          // And read back: what the producer's struct says gives an array of the same kind, dtype and layout.
          const laid = layOut(key === "dlpack" ? "managed-versioned" : "managed", {
            data: BASE,
            deviceType: fx.device_type,
            deviceId: fx.device_id,
            code: fx.dtype.code,
            bits: fx.dtype.bits,
            shape: fx.shape,
            strides: fx.strides,
            byteOffset: fx.byte_offset,
            flags: BigInt(fx.flags),
            ...(fx.version !== null ? { version: fx.version } : {}),
          });
          const kind = key === "dlpack" ? "managed-versioned" : "managed";
          if (fx.device_type === DLDeviceType.kDLCPU) {
            // Without a driver that knows the memory, CPU memory is refused.
            expect(() => fromDLPack(laid.pointer, { kind })).toThrow(/kDLCPU/);
            continue;
          }
          // What the struct says decides the kind read back.
          const back = fromDLPack(laid.pointer, { kind });
          expect(back.dtype.name).toBe(c.dtype);
          expect(back.shape).toEqual(fx.shape);
          expect(back.buffer.isHostAccessible).toBe(fx.device_type !== DLDeviceType.kDLCUDA);
          expect(back.buffer.isManaged).toBe(fx.device_type === DLDeviceType.kDLCUDAManaged);
          expect(toDLPack(back).describe().deviceType).toBe(fx.device_type);
        }
        const cai = c.cai;
        if (cai !== undefined) {
          const ours = a.cudaArrayInterface();
          expect(ours.shape).toEqual(cai.shape);
          expect(ours.typestr).toBe(cai.typestr);
          expect(ours.strides).toEqual(cai.strides);
          if (cai.descr !== null) expect(ours.descr).toEqual(cai.descr);
          expect(ours.data[1]).toBe(cai.data_readonly);
          expect(ours.data[0] === 0n).toBe(cai.data_is_null);
          if (cai.data_minus_element0 !== null && !cai.data_is_null) expect(Number(ours.data[0] - a.address)).toBe(cai.data_minus_element0);
          // Read back as the kind the case's memory is.
          const back = fromCudaArrayInterface({ ...cai, data: [cai.data_is_null ? 0n : BASE, cai.data_readonly] } as unknown as Record<string, unknown>, { memoryType: c.memory });
          expect(back.dtype.name).toBe(c.dtype);
          expect(back.shape).toEqual(cai.shape);
          expect(effectiveStrides(back.shape, back.strides)).toEqual(effectiveStrides(a.shape, a.strides));
        }
      });
    }
  });
}
