/** Stream checks that need no GPU: a stream argument, and the `{ stream }` option of stream-ordered calls. */
import { describe, expect, it } from "vitest";
import { ArgumentError, ClosedError, DeviceMismatchError, LEGACY_DEFAULT_STREAM, PER_THREAD_DEFAULT_STREAM, Stream } from "../../src/index.ts";
import { OPTIONAL_STREAM, takeStream, takeStreamOption } from "../../src/core/base/stream-arg.ts";

describe("the { stream } option", () => {
  it("gives back the stream", () => {
    expect(takeStreamOption({ stream: LEGACY_DEFAULT_STREAM }, "Buffer.copyTo")).toBe(LEGACY_DEFAULT_STREAM);
    expect(takeStreamOption({ stream: PER_THREAD_DEFAULT_STREAM }, "allocate", {})).toBe(PER_THREAD_DEFAULT_STREAM);
  });

  it("says what is missing or wrong, naming the call", () => {
    expect(() => takeStreamOption(undefined, "Buffer.copyTo")).toThrow(/^Buffer.copyTo needs a stream: pass \{ stream \} \(for example device.createStream\(\)\)$/);
    expect(() => takeStreamOption({}, "Buffer.fill")).toThrow(/Buffer.fill needs a stream/);
    expect(() => takeStreamOption({ stream: 5 as unknown as Stream }, "Buffer.fill")).toThrow(/^Buffer.fill: options.stream must be a Stream, not 5; pass \{ stream \} with a Stream/);
    expect(() => takeStreamOption(LEGACY_DEFAULT_STREAM as unknown as { stream: Stream }, "Buffer.copyFrom")).toThrow(/pass \{ stream \}, not the Stream itself/);
    class DeviceMemoryResource {}
    expect(() => takeStreamOption(undefined, "allocate", new DeviceMemoryResource())).toThrow(/^DeviceMemoryResource.allocate needs a stream/);
  });
});

/** A closed Stream object without a driver: a legacy default stream's twin, closed (closing a borrowed one frees nothing). */
function closedStream(): Stream {
  const s = Object.create(Stream.prototype) as Stream;
  Object.defineProperty(s, "isClosed", { value: true });
  return s;
}

describe("takeStream", () => {
  it("gives back a Stream, or a GraphBuilder's with `like`", () => {
    expect(takeStream(LEGACY_DEFAULT_STREAM, "Graph.launch")).toBe(LEGACY_DEFAULT_STREAM);
    expect(takeStream({ stream: PER_THREAD_DEFAULT_STREAM }, "Graph.launch", { like: true })).toBe(PER_THREAD_DEFAULT_STREAM);
  });

  it("takes undefined where the call allows none, giving the fallback", () => {
    expect(takeStream(undefined, "DeviceArray.cudaArrayInterface", OPTIONAL_STREAM)).toBeUndefined();
    expect(takeStream(undefined, "x", { optional: true, fallback: LEGACY_DEFAULT_STREAM })).toBe(LEGACY_DEFAULT_STREAM);
    expect(() => takeStream(undefined, "Blas.setStream")).toThrow(/^Blas.setStream needs a Stream, not undefined; pass a stream from device.createStream\(\)$/);
  });

  it("says what came, what was expected and what to do", () => {
    expect(() => takeStream(3, "GraphCompleteOptions", { like: true, name: "uploadStream" })).toThrow(
      /^GraphCompleteOptions: uploadStream must be a Stream \(or a GraphBuilder\), not 3; pass a stream from device.createStream\(\)$/,
    );
    expect(() => takeStream({ stream: 1 }, "Graph.launch")).toThrow(ArgumentError);
    expect(() => takeStream("s", "Buffer", { name: "deallocationStream", optional: true })).toThrow(/^Buffer: deallocationStream must be a Stream or undefined, not "s"/);
    class OwnError extends Error {}
    expect(() => takeStream(null, "allReduce", { refuse: (r) => new OwnError(`${r.action}/${r.name}/${r.expected}/${r.got}/${r.advice}`) })).toThrow(
      new OwnError("allReduce/the stream/a Stream/null/pass a stream from device.createStream()"),
    );
  });

  it("refuses a closed stream", () => {
    const s = closedStream();
    expect(() => takeStream(s, "Blas.setStream")).toThrow(ClosedError);
    expect(() => takeStream(s, "Blas.setStream")).toThrow(/^Blas.setStream: the stream is closed: cannot queue work on it/);
    expect(() => takeStreamOption({ stream: s }, "Buffer.fill")).toThrow(/^Buffer.fill: options.stream is closed/);
  });

  it("refuses a stream of another device with DeviceMismatchError", () => {
    const s = Object.create(Stream.prototype) as Stream;
    Object.defineProperty(s, "isClosed", { value: false });
    Object.defineProperty(s, "device", { value: { id: 1 } });
    expect(takeStream(s, "Rng.stream", { device: 1 })).toBe(s);
    const e = (() => {
      try {
        takeStream(s, "Rng.stream", { device: 0, deviceAdvice: "pass a stream of device 0" });
      } catch (error) {
        return error;
      }
    })() as DeviceMismatchError;
    expect(e).toBeInstanceOf(DeviceMismatchError);
    expect([e.expected, e.actual]).toEqual([0, 1]);
    expect(e.message).toBe("Rng.stream: the stream is on device 1, but device 0 is needed here; pass a stream of device 0");
  });
});
