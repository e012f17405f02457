/**
 * DeviceArray without a GPU: arrays over a stand-in buffer (an address nothing reads), their views and addresses,
 * launch's packing of arrays (dtype checks against declared and mangled pointee types), the CUDA Array Interface
 * description, the DLPack layout both ways, and every error that must come before anything reaches the GPU.
 */
import { describe, expect, it } from "vitest";
import {
  ArrayLayoutError,
  Buffer,
  ClosedError,
  DTypeError,
  DeviceArray,
  LaunchArgumentError,
  ShapeMismatchError,
  dtypes,
  type Kernel,
  type MemoryResource,
  type ParamType,
} from "../../../src/index.ts";
import { DLPACK_LAYOUT, fromCudaArrayInterface, fromDLPack, toDLPack } from "../../../src/interop.ts";
import { packArguments } from "../../../src/core/launch/launch.ts";
import { kArgumentPlan, type ArgumentPlan } from "../../../src/core/launch/kernel.ts";
import { parameterTypesFromMangledName } from "../../../src/core/launch/mangling.ts";
import { ffi } from "../../../src/ffi/index.ts";

const BASE = 0x7f00_0000_0000n;

/** A resource whose memory counts as host-accessible (so nothing asks the driver which device it is on). */
const hostResource: MemoryResource = {
  allocate: () => {
    throw new Error("not used");
  },
  deallocate: () => undefined,
  isDeviceAccessible: true,
  isHostAccessible: true,
  deviceId: -1,
};

function buffer(size = 4096, host = false): Buffer {
  return host ? Buffer.fromHandle(BASE, size, { memoryResource: hostResource }) : Buffer.fromHandle(BASE, size, { owner: {} });
}

describe("DeviceArray over a buffer", () => {
  it("has dtype, shape, strides, sizes and the address of its first element", () => {
    const a = DeviceArray.fromBuffer(buffer(), { dtype: "float32", shape: [4, 8], byteOffset: 64 });
    expect(a.dtype).toBe(dtypes.float32);
    expect(a.shape).toEqual([4, 8]);
    expect(a.strides).toEqual([8, 1]);
    expect(a.byteStrides).toEqual([32, 4]);
    expect([a.size, a.ndim, a.itemsize, a.nbytes, a.isContiguous]).toEqual([32, 2, 4, 128, true]);
    expect(a.address).toBe(BASE + 64n);
    expect(DeviceArray.fromBuffer(buffer(400), { dtype: "float64" }).shape).toEqual([50]);
    expect(String(a)).toBe("DeviceArray(float32, shape=[4, 8], strides=[8, 1])");
  });

  it("makes views that share memory and keep their parent", () => {
    const a = DeviceArray.fromBuffer(buffer(), { dtype: "int32", shape: [4, 6] });
    const col = a.slice(null, 2);
    expect(col.shape).toEqual([4]);
    expect(col.strides).toEqual([6]);
    expect(col.address).toBe(BASE + 8n);
    expect(col.base).toBe(a);
    expect(col.buffer).toBe(a.buffer);
    const rev = a.slice([null, null, -1]);
    expect(rev.address).toBe(BASE + 3n * 24n);
    expect(rev.strides).toEqual([-6, 1]);
    const sub = a.subarray(1, 3);
    expect(sub.shape).toEqual([2, 6]);
    expect(sub.address).toBe(BASE + 24n);
    expect(a.T.shape).toEqual([6, 4]);
    expect(a.T.strides).toEqual([1, 6]);
    expect(a.T.isContiguous).toBe(false);
    expect(a.transpose(1, 0).strides).toEqual([1, 6]);
    expect(a.reshape(3, 8).strides).toEqual([8, 1]);
    expect(a.reshape([2, -1]).shape).toEqual([2, 12]);
    const bytes = a.view("uint8");
    expect(bytes.shape).toEqual([4, 24]);
    const halves = a.slice(1).view("float16");
    expect(halves.shape).toEqual([12]);
    expect(halves.address).toBe(BASE + 24n);
    expect(() => a.T.reshape(24)).toThrow(ArrayLayoutError);
    expect(() => a.T.reshape(24)).toThrow(/cannot be seen as \[24\] without copying; call copy\(\{ stream \}\) first/);
    expect(() => a.T.view("float64")).toThrow(/last axis must be contiguous/);
  });

  it("refuses a layout outside its buffer, and bad shapes and strides", () => {
    expect(() => DeviceArray.fromBuffer(buffer(64), { dtype: "float32", shape: [17] })).toThrow(ArrayLayoutError);
    expect(() => DeviceArray.fromBuffer(buffer(64), { dtype: "float32", shape: [4], byteOffset: 52 })).toThrow(/reaches bytes 52 to 68 .* buffer holds 64 bytes/);
    expect(() => DeviceArray.fromBuffer(buffer(64), { dtype: "float32", shape: [4], strides: [-1] })).toThrow(ArrayLayoutError);
    expect(DeviceArray.fromBuffer(buffer(64), { dtype: "float32", shape: [4], strides: [-1], byteOffset: 12 }).address).toBe(BASE + 12n);
    expect(() => DeviceArray.fromBuffer(buffer(64), { dtype: "float32", shape: [4], strides: [1, 1] })).toThrow(/one stride per axis/);
    expect(() => DeviceArray.fromBuffer(buffer(64), { dtype: "float32", shape: [-4] })).toThrow(ShapeMismatchError);
    expect(() => DeviceArray.fromBuffer(buffer(64), { dtype: "float" as never })).toThrow(DTypeError);
    expect(() => DeviceArray.fromBuffer({} as Buffer, { dtype: "float32" })).toThrow(/takes a Buffer/);
  });

  it("stops working when closed, or when its buffer or parent is, with ClosedError", () => {
    const b = buffer();
    const a = DeviceArray.fromBuffer(b, { dtype: "float32", shape: [16] });
    const v = a.subarray(4);
    a.close();
    expect(a.isClosed).toBe(true);
    expect(v.isClosed).toBe(true);
    expect(b.isClosed).toBe(false); // an array over a caller's buffer leaves the buffer alone
    expect(() => a.address).toThrow(ClosedError);
    expect(() => v.slice(0)).toThrow(ClosedError);
    const c = DeviceArray.fromBuffer(b, { dtype: "float32" });
    b.close();
    expect(c.isClosed).toBe(true);
    expect(() => c.address).toThrow(ClosedError);
  });

  it("describes itself in the CUDA Array Interface (v3), and is wrapped back from one", () => {
    const a = DeviceArray.fromBuffer(buffer(), { dtype: "float32", shape: [4, 6] });
    expect(a.cudaArrayInterface()).toEqual({ shape: [4, 6], typestr: "<f4", data: [BASE, false], version: 3, strides: null, descr: [["", "<f4"]] });
    const t = a.T.cudaArrayInterface();
    expect(t.strides).toEqual([4, 24]);
    const owner = { producer: true };
    const back = fromCudaArrayInterface(t, { owner });
    expect(back.shape).toEqual([6, 4]);
    expect(back.strides).toEqual([1, 6]);
    expect(back.address).toBe(BASE);
    expect(back.buffer.owner).toBe(owner);
    const rev = fromCudaArrayInterface({ shape: [3], typestr: "<i8", data: [BASE + 16n, false], version: 3, strides: [-8] });
    expect(rev.address).toBe(BASE + 16n);
    expect(rev.buffer.handle).toBe(BASE);
    expect(rev.buffer.size).toBe(24);
    expect(() => fromCudaArrayInterface({ shape: [3], typestr: "<f4", data: [BASE, false], version: 3, strides: [6] })).toThrow(/stride 6 \(axis 0\) is not a whole number of 4-byte elements/);
    expect(() => fromCudaArrayInterface({ shape: [3], typestr: "<x4", data: [BASE, false], version: 3 })).toThrow(DTypeError);
  });

  it("lays out a DLManagedTensorVersioned (DLPack 1.0) and reads it back", () => {
    const a = DeviceArray.fromBuffer(buffer(4096, true), { dtype: "bfloat16", shape: [8, 16], byteOffset: 32 });
    const view = a.slice([1, 7, 2], [null, null, -1]);
    const t = toDLPack(view, { readOnly: true });
    const dv = new DataView(t.managed.buffer);
    const M = DLPACK_LAYOUT.DLManagedTensorVersioned;
    const T = M.dlTensor;
    const D = DLPACK_LAYOUT.DLTensor;
    expect([dv.getUint32(M.versionMajor, true), dv.getUint32(M.versionMinor, true)]).toEqual([1, 0]);
    expect(dv.getBigUint64(M.deleter, true)).toBe(0n);
    expect(dv.getBigUint64(M.flags, true)).toBe(1n);
    expect(dv.getBigUint64(T + D.data, true)).toBe(view.address); // element [0, 0], as PyTorch and CuPy point it
    expect(dv.getInt32(T + D.deviceType, true)).toBe(3); // kDLCUDAHost: host-accessible memory
    expect(dv.getInt32(T + D.ndim, true)).toBe(2);
    expect([dv.getUint8(T + D.dtypeCode), dv.getUint8(T + D.dtypeBits), dv.getUint16(T + D.dtypeLanes, true)]).toEqual([4, 16, 1]);
    expect(dv.getBigUint64(T + D.byteOffset, true)).toBe(0n);
    expect([...t.shapeAndStrides]).toEqual([3n, 16n, 32n, -1n]);
    expect(ffi.bigAddressOf(t.tensorPointer) - ffi.bigAddressOf(t.pointer)).toBe(32n);
    const back = fromDLPack(t);
    expect(back.dtype).toBe(dtypes.bfloat16);
    expect(back.shape).toEqual([3, 16]);
    expect(back.strides).toEqual([32, -1]);
    expect(back.address).toBe(view.address);
    // Through the native pointer, as a library would hand it over.
    const again = fromDLPack(t.pointer, { owner: t });
    expect(again.address).toBe(view.address);
    expect(again.strides).toEqual([32, -1]);
    const bare = fromDLPack(t.tensorPointer, { kind: "tensor", owner: t });
    expect(bare.shape).toEqual([3, 16]);
  });
});

/** A stand-in Kernel with the argument memory a real one has (no driver needed). */
function fakeKernel(params: readonly { size: number; type?: ParamType }[]): Kernel {
  let offset = 0;
  const info = params.map((p) => {
    offset = Math.ceil(offset / p.size) * p.size;
    const r = { offset, size: p.size };
    offset += p.size;
    return r;
  });
  const values = new ArrayBuffer(Math.max(8, Math.ceil(offset / 8) * 8));
  const table = new ArrayBuffer(Math.max(8, info.length * 8));
  const base = ffi.pointerOf(values);
  info.forEach((p, i) => ffi.writePointer(new DataView(table), i * 8, p.offset === 0 ? base : ffi.offsetPointer(base, p.offset)));
  const plan: ArgumentPlan = {
    params: info,
    types: params.map((p) => p.type),
    values: new DataView(values),
    pointers: ffi.pointerOf(table),
    offsets: Int32Array.from(info, (p) => p.offset),
    sizes: Int32Array.from(info, (p) => p.size),
    keep: [values, table],
    packed: undefined,
    packedEpoch: -1,
    spread: new Array<unknown>(info.length).fill(undefined),
  };
  return { name: "fake", [kArgumentPlan]: () => plan } as unknown as Kernel;
}

describe("arrays as kernel arguments", () => {
  it("pass the address of their first element", () => {
    const a = DeviceArray.fromBuffer(buffer(), { dtype: "float32", shape: [16] });
    const k = fakeKernel([{ size: 8 }, { size: 8, type: { kind: "pointer", pointee: "f32" } }]);
    const plan = packArguments(k, [a.subarray(2), a]);
    expect(plan.values.getBigUint64(0, true)).toBe(BASE + 8n);
    expect(plan.values.getBigUint64(8, true)).toBe(BASE);
  });

  it("are checked against the parameter's pointee type, size and kind before launching", () => {
    const i32s = DeviceArray.fromBuffer(buffer(), { dtype: "int32", shape: [4] });
    const k = fakeKernel([{ size: 8, type: { kind: "pointer", pointee: "f32" } }]);
    expect(() => packArguments(k, [i32s])).toThrow(LaunchArgumentError);
    expect(() => packArguments(k, [i32s])).toThrow(/the parameter points to f32 but a int32 DeviceArray of shape \[4\] holds i32; pass an array of that dtype/);
    expect(() => packArguments(k, [i32s.view("float32")])).not.toThrow();
    expect(() => packArguments(fakeKernel([{ size: 4 }]), [i32s])).toThrow(/is 8 bytes but the parameter is 4 bytes/);
    expect(() => packArguments(fakeKernel([{ size: 8, type: { kind: "scalar", scalar: "i64" } }]), [i32s])).toThrow(/the parameter is a i64 value, not a pointer/);
    const closed = DeviceArray.fromBuffer(buffer(), { dtype: "int32", shape: [4] });
    closed.close();
    expect(() => packArguments(fakeKernel([{ size: 8 }]), [closed])).toThrow(ClosedError);
  });

  it("get their pointee types from C++ kernels' mangled names", () => {
    expect(parameterTypesFromMangledName("_Z4axpyIfEvT_PKS0_PS0_j")).toEqual([
      { kind: "scalar", scalar: "f32" },
      { kind: "pointer", pointee: "f32" },
      { kind: "pointer", pointee: "f32" },
      { kind: "scalar", scalar: "u32" },
    ]);
    expect(parameterTypesFromMangledName("_Z3fooPiPv")).toEqual([{ kind: "pointer", pointee: "i32" }, { kind: "pointer" }]);
  });
});
