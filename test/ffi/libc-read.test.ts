import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readSmallFile, readThroughLibc } from "../../src/ffi/libc-read.ts";

const dir = mkdtempSync(join(tmpdir(), "cuda-ts-libc-read-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("reading small system files without node:fs", () => {
  it("reads a /proc file, whose size the kernel reports as 0, to its end", () => {
    const bytes = readThroughLibc("/proc/self/maps");
    expect(bytes).toBeInstanceOf(Uint8Array);
    const text = new TextDecoder().decode(bytes);
    // Every process maps a stack, and the maps end with a newline.
    expect(text).toMatch(/\[stack\]/);
    expect(text.endsWith("\n")).toBe(true);
  });

  it("reads a file larger than its first buffer byte for byte", () => {
    const path = join(dir, "big.bin");
    const data = new Uint8Array(100_000).map((_, i) => (i * 31 + 7) & 0xff);
    writeFileSync(path, data);
    expect(readThroughLibc(path)).toEqual(new Uint8Array(readFileSync(path)));
    expect(readSmallFile(path)).toEqual(data);
  });

  it("reads an empty file as no bytes", () => {
    const path = join(dir, "empty");
    writeFileSync(path, "");
    expect(readThroughLibc(path)).toEqual(new Uint8Array(0));
  });

  it("answers undefined for a file that is missing, a directory, or one over the limit", () => {
    expect(readThroughLibc(join(dir, "no-such-file"))).toBeUndefined();
    expect(readSmallFile(join(dir, "no-such-file"))).toBeUndefined();
    expect(readThroughLibc(dir)).toBeUndefined(); // read(2) of a directory fails with EISDIR
    const path = join(dir, "limit.bin");
    writeFileSync(path, new Uint8Array(40_000));
    expect(readThroughLibc(path, 32_768)).toBeUndefined();
    expect(readThroughLibc(path, 40_000)).toHaveLength(40_000);
  });

  it("reads what the runtime's own file API reads", () => {
    expect(new TextDecoder().decode(readSmallFile("/proc/self/status"))).toMatch(/^Name:/);
  });
});
