import { describe, expect, it } from "vitest";
import { ffi, UnsupportedOnRuntimeError } from "../../src/ffi/index.ts";

const libc = ffi.openLibrary("libc.so.6");
const usleepType = { parameters: ["u32"], result: "i32" } as const;

describe("nonblocking calls", () => {
  it("supportsNonblocking says which runtime has them", () => {
    expect(ffi.supportsNonblocking).toBe(ffi.runtime === "deno");
  });

  it("usleep nonblocking: a Promise on Deno (the JS thread keeps running), a clear error on Bun", async () => {
    if (ffi.runtime === "bun") {
      expect(() => libc.bind("usleep", usleepType, { nonblocking: true })).toThrow(UnsupportedOnRuntimeError);
      expect(() => libc.bind("usleep", usleepType, { nonblocking: true })).toThrow(/Deno-only/);
      const address = libc.symbol("usleep")!;
      expect(() => libc.bindAt(address, usleepType, { nonblocking: true })).toThrow(/Deno-only/);
      return;
    }
    const usleep = libc.bind("usleep", usleepType, { nonblocking: true })!;
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    const started = performance.now();
    const pending = usleep(150_000);
    expect(pending).toBeInstanceOf(Promise);
    expect(await pending).toBe(0);
    clearInterval(timer);
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
    expect(ticks).toBeGreaterThan(3); // timers ran while usleep blocked a worker thread
  });

  it.runIf(ffi.runtime === "deno")("nonblocking through bindAt (Deno only: Bun has no nonblocking calls)", async () => {
    const address = libc.symbol("usleep")!;
    const usleep = libc.bindAt(address, usleepType, { nonblocking: true, nameHint: "usleep" });
    await expect(usleep(1000)).resolves.toBe(0);
  });

  it("missing symbols bind to null, nonblocking or not", () => {
    expect(libc.bind("cuda_ts_no_such_function", usleepType)).toBeNull();
    if (ffi.runtime === "deno") expect(libc.bind("cuda_ts_no_such_function", usleepType, { nonblocking: true })).toBeNull();
  });
});
