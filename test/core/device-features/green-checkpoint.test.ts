/**
 * Green contexts and checkpoints without a GPU: an SM resource's split checked before the driver (more SMs than
 * exist, bad counts, the driver's rounding), GreenContext.create's refusal of what is not a resource, and the
 * checkpoint object's argument checks.
 */
import { describe, expect, it } from "vitest";
import { GreenContextError, type Device } from "../../../src/index.ts";
import { GreenContext, SMResource } from "../../../src/green.ts";
import { CheckpointProcess } from "../../../src/checkpoint.ts";
import { uuidBytes } from "../../../src/core/checkpoint.ts";
import { CUdevResource_st, CUdevResourceType } from "../../../src/bindings/driver.ts";
import { INTERNAL } from "../../../src/core/base/internal.ts";

/** An H200-like SM resource: 132 SMs, groups of at least 8 in multiples of 8. */
function h200(): SMResource {
  const r = new CUdevResource_st();
  r.type = CUdevResourceType.CU_DEV_RESOURCE_TYPE_SM;
  const sm = r.sm;
  sm.smCount = 132;
  sm.minSmPartitionSize = 8;
  sm.smCoscheduledAlignment = 8;
  return new SMResource(INTERNAL, r);
}

function refusal(fn: () => unknown): GreenContextError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(GreenContextError);
    return e as GreenContextError;
  }
  throw new Error("expected GreenContextError, nothing was thrown");
}

describe("SMResource.split checks before the driver", () => {
  it("reads the record and rounds like the driver", () => {
    const r = h200();
    expect([r.smCount, r.minPartitionSize, r.coscheduledAlignment]).toEqual([132, 8, 8]);
    expect(r.roundedCount(1)).toBe(8);
    expect(r.roundedCount(9)).toBe(16);
    expect(r.roundedCount(16)).toBe(16);
  });
  it("refuses more SMs than exist, in one group or in all", () => {
    expect(refusal(() => h200().split({ count: 200 })).message).toMatch(/a group of 200 SMs is more than this resource has \(132 SMs\)/);
    expect(refusal(() => h200().split({ count: 130 })).message).toMatch(/takes 136 after rounding.*more than this resource has \(132 SMs\)/);
    expect(refusal(() => h200().split({ count: 16, groups: 9 })).message).toMatch(/9 groups of 16 SMs \(16 each after rounding\) need 144 SMs; this resource has 132 \(at most 8 such groups\)/);
  });
  it("refuses counts and group numbers that are not positive integers", () => {
    expect(refusal(() => h200().split({ count: 0 })).message).toMatch(/count must be an integer ≥ 1/);
    expect(refusal(() => h200().split({ count: 8, groups: 1.5 })).message).toMatch(/groups must be an integer ≥ 1/);
    expect(refusal(() => h200().split(null as never)).message).toMatch(/split takes \{ count, groups\? \}/);
  });
  it("GreenContext.create refuses what is not an SM resource", () => {
    const dev = { id: 0 } as Device;
    expect(refusal(() => GreenContext.create(dev, [])).message).toMatch(/an SMResource or a non-empty array of them/);
    expect(refusal(() => GreenContext.create(dev, [{}] as never)).message).toMatch(/an SMResource or a non-empty array/);
  });
});

describe("CheckpointProcess", () => {
  it("takes a positive pid", () => {
    expect(new CheckpointProcess(1234).pid).toBe(1234);
    expect(() => new CheckpointProcess(0)).toThrow(/a process id \(a positive integer\), not 0/);
    expect(() => new CheckpointProcess(1.5)).toThrow(TypeError);
  });
  it("reads GPU UUIDs as device.uuid gives them, with or without GPU- and dashes", () => {
    const bytes = uuidBytes("GPU-00112233-4455-6677-8899-aabbccddeeff", "t");
    expect([...bytes]).toEqual([0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff]);
    expect([...uuidBytes("00112233445566778899aabbccddeeff", "t")]).toEqual([...bytes]);
    expect(() => uuidBytes("GPU-1234", "restore: gpuMapping[0].from")).toThrow(/restore: gpuMapping\[0\]\.from: a GPU UUID is 32 hex digits/);
  });
});
