/** Stream checks that need no GPU: the `{ stream }` option of stream-ordered calls. */
import { describe, expect, it } from "vitest";
import { LEGACY_DEFAULT_STREAM, PER_THREAD_DEFAULT_STREAM, type Stream } from "../../src/index.ts";
import { streamOption } from "../../src/core/stream.ts";

describe("the { stream } option", () => {
  it("gives back the stream", () => {
    expect(streamOption({ stream: LEGACY_DEFAULT_STREAM }, "Buffer.copyTo")).toBe(LEGACY_DEFAULT_STREAM);
    expect(streamOption({ stream: PER_THREAD_DEFAULT_STREAM }, "allocate", {})).toBe(PER_THREAD_DEFAULT_STREAM);
  });

  it("says what is missing or wrong, naming the call", () => {
    expect(() => streamOption(undefined, "Buffer.copyTo")).toThrow(/^Buffer.copyTo needs a stream: pass \{ stream \} \(for example device.createStream\(\)\)$/);
    expect(() => streamOption({}, "Buffer.fill")).toThrow(/Buffer.fill needs a stream/);
    expect(() => streamOption({ stream: 5 as unknown as Stream }, "Buffer.fill")).toThrow(/Buffer.fill: options.stream is not a Stream but 5; pass \{ stream \} with a Stream/);
    expect(() => streamOption(LEGACY_DEFAULT_STREAM as unknown as { stream: Stream }, "Buffer.copyFrom")).toThrow(/pass \{ stream \}, not the Stream itself/);
    class DeviceMemoryResource {}
    expect(() => streamOption(undefined, "allocate", new DeviceMemoryResource())).toThrow(/^DeviceMemoryResource.allocate needs a stream/);
  });
});
