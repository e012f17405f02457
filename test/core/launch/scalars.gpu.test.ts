/**
 * f16() and bf16() against the GPU's own conversions (__double2half, __double2bfloat16) on every tie of both formats
 * and the doubles around it: the bits a kernel receives are the bits the device itself would compute from the
 * double. Skips cleanly where there is no driver.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Device, LaunchConfig, Program, launch, u32, type Stream } from "../../../src/index.ts";
import { toBFloat16Bits, toHalfBits } from "../../../src/core/launch/scalars.ts";
import { findNvidiaHeaderDirectory } from "../../../src/pathfinder/index.ts";
import { BFLOAT16, BINARY16, tieCases } from "../../support/float-reference.ts";
import { gpu, skipNote } from "../../support/gpu.ts";

const SOURCE = `
#include <cuda_fp16.h>
#include <cuda_bf16.h>
__global__ void to_narrow(const double* in, unsigned short* half, unsigned short* bf, unsigned int n) {
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    half[i] = __half_as_ushort(__double2half(in[i]));
    bf[i] = __bfloat16_as_ushort(__double2bfloat16(in[i]));
  }
}
`;

describe.skipIf(!gpu.available)(`f16() and bf16() on a GPU${skipNote}`, () => {
  let dev: Device;
  let stream: Stream;

  beforeAll(() => {
    if (!gpu.available) return;
    dev = new Device(0);
    dev.setCurrent();
    stream = dev.createStream();
  });

  afterAll(() => {
    stream?.close();
  });

  it("gives the bits of __double2half and __double2bfloat16 on every tie and the doubles around it", async () => {
    const include = findNvidiaHeaderDirectory("cudart").path;
    const code = new Program(SOURCE, "c++", { arch: `sm_${dev.arch}`, includePath: [include] }).compile("cubin");
    const inputs = Float64Array.from([...tieCases(BINARY16), ...tieCases(BFLOAT16), 0, -0, 1, -1.5, 0.1, 65504, 65520, 1e300, -Infinity]);
    const n = inputs.length;
    using din = dev.allocate(n * 8, { stream });
    using dhalf = dev.allocate(n * 2, { stream });
    using dbf = dev.allocate(n * 2, { stream });
    din.copyFrom(inputs, { stream });
    launch(stream, new LaunchConfig({ grid: Math.ceil(n / 256), block: 256 }), code.getKernel("to_narrow"), din, dhalf, dbf, u32(n));
    const half = new Uint16Array(n);
    const bf = new Uint16Array(n);
    dhalf.copyTo(half, { stream });
    dbf.copyTo(bf, { stream });
    await stream.done();
    const wrong: string[] = [];
    for (let i = 0; i < n && wrong.length < 10; i++) {
      const x = inputs[i]!;
      if (toHalfBits(x) !== half[i]) wrong.push(`f16(${x}): 0x${toHalfBits(x).toString(16)}, the GPU 0x${half[i]!.toString(16)}`);
      if (toBFloat16Bits(x) !== bf[i]) wrong.push(`bf16(${x}): 0x${toBFloat16Bits(x).toString(16)}, the GPU 0x${bf[i]!.toString(16)}`);
    }
    expect(wrong).toEqual([]);
    code.close();
  }, 120_000);
});
