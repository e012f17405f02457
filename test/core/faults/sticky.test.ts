/**
 * Which CUresult codes are sticky comes from cuda.h's documentation (generator/emit/sticky.ts), not from a list
 * written by hand: the generated set holds the context-ruining codes and none of the ordinary ones.
 */
import { describe, expect, it } from "vitest";
import { documentedAsSticky } from "../../../generator/emit/sticky.ts";
import { stickyStatuses as sticky13 } from "../../../generated/cuda-13.0/driver/sticky.ts";
import { stickyStatuses as sticky124 } from "../../../generated/cuda-12.4/driver/sticky.ts";
import { isStickyStatus } from "../../../src/bindings/driver-fault.ts";
import { CUresult } from "../../../src/bindings/driver-types.ts";

describe("sticky CUresult codes", () => {
  it("reads cuda.h's wording", () => {
    expect(documentedAsSticky("This leaves the process in an inconsistent state and any further CUDA work\n * will return the same error.")).toBe(true);
    expect(documentedAsSticky("To continue using CUDA, the process must be terminated\n and relaunched.")).toBe(true);
    expect(documentedAsSticky("A device-side assert triggered during kernel execution. The context cannot be used anymore, and must be destroyed.")).toBe(true);
    expect(documentedAsSticky("This indicates that an out of memory condition occurred.")).toBe(false);
    expect(documentedAsSticky(undefined)).toBe(false);
  });

  it("holds the faults a kernel can cause, in every generated table", () => {
    for (const table of [sticky13, sticky124]) {
      for (const name of ["CUDA_ERROR_ILLEGAL_ADDRESS", "CUDA_ERROR_LAUNCH_FAILED", "CUDA_ERROR_MISALIGNED_ADDRESS", "CUDA_ERROR_ILLEGAL_INSTRUCTION", "CUDA_ERROR_HARDWARE_STACK_ERROR", "CUDA_ERROR_ASSERT"]) {
        expect(table[name], name).toBe(CUresult[name as keyof typeof CUresult]);
      }
    }
    expect(isStickyStatus(CUresult.CUDA_ERROR_ILLEGAL_ADDRESS)).toBe(true);
  });

  it("leaves out the errors after which the context stays usable", () => {
    for (const code of [CUresult.CUDA_ERROR_OUT_OF_MEMORY, CUresult.CUDA_ERROR_INVALID_VALUE, CUresult.CUDA_ERROR_NOT_READY, CUresult.CUDA_ERROR_NOT_FOUND, CUresult.CUDA_ERROR_INVALID_IMAGE]) {
      expect(isStickyStatus(code), String(code)).toBe(false);
    }
  });
});
