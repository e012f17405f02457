/**
 * NVTX's injection protocol against a gcc-built fake tool (test/fixtures/nvtx/fake-injection.c): the tool attaches
 * through InitializeInjectionNvtx2 and the export tables, and every range, mark, domain, category, colour, payload
 * and registered string arrives with the values given, field by field. Runs in-process (attachForTesting); the
 * environment-variable path (the first call reads NVTX_INJECTION64_PATH) runs in child processes of this runtime.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ffi, type NativeLibrary } from "../../src/ffi/index.ts";
import * as nvtx from "../../src/core/nvtx/nvtx.ts";
import { buildFakeTools, gccReason, root, type FakeTools } from "./fixture.ts";
import { runtimeCommand } from "../support/runtime.ts";

describe.skipIf(gccReason !== undefined)(`NVTX injection protocol with a fake tool${gccReason ? ` [skipped: ${gccReason}]` : ""}`, () => {
  let tools: FakeTools;
  let lib: NativeLibrary;
  let readLog: () => string;
  let clearLog: () => void;

  beforeAll(() => {
    tools = buildFakeTools();
    expect(nvtx.attachForTesting(tools.tool)).toBeUndefined();
    lib = ffi.openLibrary(tools.tool); // the same dlopen handle the protocol holds
    const logFn = lib.bind("fake_nvtx_log", { parameters: [], result: "pointer" })!;
    const clearFn = lib.bind("fake_nvtx_clear", { parameters: [], result: "void" })!;
    readLog = () => ffi.readCString(logFn()) ?? "";
    clearLog = () => clearFn();
  });
  afterAll(() => {
    nvtx.attachForTesting(undefined);
  });

  it("attaches: the tool took the export tables and every module's table, shaped [NULL, slots..., NULL]", () => {
    const log = readLog();
    expect(log).toContain("init callbacks.size=16 versioninfo.size=24 version=3 unknown=(nil)");
    for (const [m, size] of [[1, 16], [2, 9], [3, 15], [4, 7], [5, 16], [6, 7]]) expect(log).toContain(`module ${m} ok=1 size=${size} shape=1`);
    expect(log).toContain("module 0 ok=0");
    const st = nvtx.status();
    expect(st.state).toBe("attached");
    expect(st.slots).toEqual({ CORE: [1, 4, 7, 8, 11, 12], CUDA: [1, 5], OPENCL: [], CUDART: [], CORE2: [1, 2, 3, 4, 5, 8, 10, 12, 15], SYNC: [] });
  });

  it("range() pushes with colour, category and payload, and pops when disposed", () => {
    clearLog();
    {
      using _ = nvtx.range("step", { color: 0xff76b900, category: 7, payload: 2.5 });
      nvtx.mark("inside");
    }
    expect(readLog().split("\n")).toEqual([
      "pushEx d=- v=3 s=48 cat=7 ct=1 col=ff76b900 pt=3 p=2.5 mt=1 msg=step",
      "markEx d=- v=3 s=48 cat=0 ct=0 col=00000000 pt=0 p=- mt=1 msg=inside",
      "pop",
      "",
    ]);
  });

  it("push/pop return the tool's depth; ending a range twice pops once", () => {
    clearLog();
    expect(nvtx.push("a")).toBe(0);
    expect(nvtx.push("b", { color: "red" })).toBe(1);
    expect(nvtx.pop()).toBe(1);
    expect(nvtx.pop()).toBe(0);
    const r = nvtx.range("c");
    r.end();
    r.end();
    r[Symbol.dispose]();
    expect(readLog().match(/^pop/gm)).toHaveLength(3);
    expect(readLog()).toContain("pushEx d=- v=3 s=48 cat=0 ct=1 col=ffff0000 pt=0 p=- mt=1 msg=b");
  });

  it("payloads of every type arrive as their C type", () => {
    clearLog();
    nvtx.mark("i64", { payload: -42 });
    nvtx.mark("f64", { payload: 0.1 });
    nvtx.mark("big", { payload: 2n ** 63n });
    nvtx.mark("neg", { payload: -(2n ** 40n) });
    nvtx.mark("u32", { payload: 4000000000, payloadType: "u32" });
    nvtx.mark("i32", { payload: -7, payloadType: "i32" });
    nvtx.mark("f32", { payload: 1.5, payloadType: "f32" });
    nvtx.mark("u64", { payload: 12, payloadType: "u64" });
    nvtx.mark("rgb", { color: 0x123456 });
    const got = readLog().split("\n").filter(Boolean).map((l) => l.replace(/^markEx d=- v=3 s=48 cat=0 /, ""));
    expect(got).toEqual([
      "ct=0 col=00000000 pt=2 p=-42 mt=1 msg=i64",
      "ct=0 col=00000000 pt=3 p=0.10000000000000001 mt=1 msg=f64",
      "ct=0 col=00000000 pt=1 p=9223372036854775808 mt=1 msg=big",
      "ct=0 col=00000000 pt=2 p=-1099511627776 mt=1 msg=neg",
      "ct=0 col=00000000 pt=4 p=4000000000 mt=1 msg=u32",
      "ct=0 col=00000000 pt=5 p=-7 mt=1 msg=i32",
      "ct=0 col=00000000 pt=6 p=1.5 mt=1 msg=f32",
      "ct=0 col=00000000 pt=1 p=12 mt=1 msg=u64",
      "ct=1 col=ff123456 pt=0 p=- mt=1 msg=rgb",
    ]);
  });

  it("start/end ranges carry the tool's id to their end, in any order", () => {
    clearLog();
    const a = nvtx.startRange("load a", { category: 1 });
    const b = nvtx.startRange("load b");
    a.end();
    b[Symbol.dispose]();
    const log = readLog();
    const ids = [...log.matchAll(/-> id=(\d+)/g)].map((m) => m[1]);
    expect(ids).toHaveLength(2);
    expect(log).toContain(`end id=${ids[0]}\nend id=${ids[1]}`);
    expect(log).toContain("startEx d=- v=3 s=48 cat=1 ct=0 col=00000000 pt=0 p=- mt=1 msg=load a");
  });

  it("domains: created once on first use, with their own ranges, marks, categories and registered strings", () => {
    clearLog();
    const io = nvtx.domain("io");
    expect(nvtx.domain("io")).toBe(io);
    io.nameCategory(3, "reads");
    const read = io.registerString("read block");
    expect(read.handle).not.toBeNull();
    {
      using _ = io.range(read, { category: 3, payload: 4096n });
      io.mark("eof", { color: "blue" });
    }
    using s = io.startRange("async read");
    s.end();
    nvtx.nameCategory(9, "global");
    const lines = readLog().split("\n").filter(Boolean);
    expect(lines.filter((l) => l.startsWith("domainCreate"))).toEqual(["domainCreate io"]);
    expect(lines).toContain("nameCategory d=io cat=3 name=reads");
    expect(lines).toContain("registerString d=io read block");
    expect(lines).toContain("pushEx d=io v=3 s=48 cat=3 ct=0 col=00000000 pt=2 p=4096 mt=3 msg=reg:read block");
    expect(lines).toContain("markEx d=io v=3 s=48 cat=0 ct=1 col=ff0000ff pt=0 p=- mt=1 msg=eof");
    expect(lines).toContain("pop d=io");
    expect(lines.some((l) => /^startEx d=io .* msg=async read$/.test(l))).toBe(true);
    expect(lines.some((l) => /^end d=io id=\d+$/.test(l))).toBe(true);
    expect(lines).toContain("nameCategory d=- cat=9 name=global");
  });

  it("a string registered with one domain is refused in another, before the tool sees it", () => {
    const s = nvtx.domain("a").registerString("x");
    expect(() => nvtx.domain("b").mark(s)).toThrow(nvtx.NvtxArgumentError);
    expect(() => nvtx.mark(s)).toThrow(/registered with the domain it is used in/);
  });

  it("initialize() calls the tool's nvtxInitialize; CUDA objects are named", () => {
    clearLog();
    expect(nvtx.initialize()).toBe(true);
    nvtx.nameCudaObject("device", 0, "gpu0");
    nvtx.nameCudaObject("stream", { handle: ffi.pointerFromAddress(0x1000) }, "copies");
    expect(readLog()).toBe("initialize reserved=(nil)\nnameCuDevice 0 gpu0\nnameCuStream copies nonnull=1\n");
  });

  it("bad arguments are typed errors naming what was expected", () => {
    expect(() => nvtx.mark("x", { color: -1 })).toThrow(/color must be an integer from 0 to 0xFFFFFFFF/);
    expect(() => nvtx.mark("x", { color: "mauve" as "red" })).toThrow(nvtx.NvtxArgumentError);
    expect(() => nvtx.mark("x", { category: 1.5 })).toThrow(/category must be/);
    expect(() => nvtx.mark("x", { payload: 1.5, payloadType: "i32" })).toThrow(/i32 payload/);
    expect(() => nvtx.mark("x", { payload: -1n, payloadType: "u64" })).toThrow(/u64 payload/);
    expect(() => nvtx.mark("x", { payloadType: "u64" })).toThrow(/given with a payload/);
    expect(() => nvtx.mark(42 as unknown as string)).toThrow(/message must be a string or a RegisteredString/);
    expect(() => nvtx.domain("")).toThrow(/non-empty string/);
    expect(() => nvtx.nameCudaObject("stream", 3, "s")).toThrow(/stream object/);
  });

  it("a library that cannot be used is an NvtxInjectionError, and NVTX stays off", () => {
    const missing = nvtx.attachForTesting(join(tools.dir, "absent.so"));
    expect(missing).toBeInstanceOf(nvtx.NvtxInjectionError);
    expect(missing!.message).toMatch(/does not exist or cannot be read/);
    expect(nvtx.status().state).toBe("failed");
    expect(nvtx.range("x")).toBe(nvtx.range("y")); // the shared no-op
    expect(nvtx.attachForTesting(tools.noEntry)!.message).toMatch(/does not export InitializeInjectionNvtx2/);
    expect(nvtx.attachForTesting(tools.refusing)!.message).toMatch(/returned 0/);
    const notALibrary = join(tools.dir, "not-a-library.so");
    writeFileSync(notALibrary, "hello");
    chmodSync(notALibrary, 0o755);
    expect(nvtx.attachForTesting(notALibrary)!.message).toMatch(/could not load it/);
    const writable = join(tools.dir, "libwritable.so");
    copyFileSync(tools.tool, writable);
    chmodSync(writable, 0o775);
    expect(nvtx.attachForTesting(writable)!.message).toMatch(/mode is 0775, writable by group or others.*chmod go-w/);
    expect(nvtx.attachForTesting(tools.dir)!.message).toMatch(/not a regular file/);
    expect(() => nvtx.initialize()).toThrow(nvtx.NvtxInjectionError);
    expect(nvtx.attachForTesting(tools.tool)).toBeUndefined();
    expect(nvtx.status().state).toBe("attached");
  });
});

describe.skipIf(gccReason !== undefined)(`NVTX_INJECTION64_PATH, read by the first call${gccReason ? ` [skipped: ${gccReason}]` : ""}`, () => {
  let tools: FakeTools;
  let script: string;
  beforeAll(() => {
    tools = buildFakeTools();
    script = join(tools.dir, "child.ts");
    writeFileSync(
      script,
      [
        `import * as nvtx from ${JSON.stringify(join(root, "src/core/nvtx/nvtx.ts"))};`,
        `import { ffi } from ${JSON.stringify(join(root, "src/ffi/index.ts"))};`,
        `console.log("before", nvtx.status().state);`,
        `{ using _ = nvtx.range("from env", { payload: 3 }); }`,
        `console.log("after", nvtx.status().state);`,
        `const path = process.argv[2];`,
        `if (path) { const lib = ffi.openLibrary(path); console.log(ffi.readCString(lib.bind("fake_nvtx_log", { parameters: [], result: "pointer" })!())); }`,
      ].join("\n"),
    );
  });

  const run = (env: Record<string, string | undefined>, arg?: string) => {
    const cmd = runtimeCommand(script, ["--allow-ffi", "--allow-env", "--allow-read"], arg ? [arg] : []);
    const childEnv = { ...process.env, ...env };
    for (const k of Object.keys(childEnv)) if (childEnv[k] === undefined) delete childEnv[k];
    return spawnSync(cmd[0]!, cmd.slice(1), { encoding: "utf8", env: childEnv as NodeJS.ProcessEnv, timeout: 60_000, cwd: root });
  };

  it("attaches the tool the variable names, on the first call", () => {
    const r = run({ NVTX_INJECTION64_PATH: tools.tool }, tools.tool);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain("before unchecked\nafter attached");
    expect(r.stdout).toContain("pushEx d=- v=3 s=48 cat=0 ct=0 col=00000000 pt=2 p=3 mt=1 msg=from env\npop");
  });

  it("without the variable NVTX is off and says nothing", () => {
    const r = run({ NVTX_INJECTION64_PATH: undefined });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain("after off");
    expect(r.stderr).not.toMatch(/NVTX/);
  });

  it("a missing library is one warning, not a crash", () => {
    const r = run({ NVTX_INJECTION64_PATH: join(tools.dir, "missing.so") });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain("after failed");
    expect(r.stderr.match(/NVTX: the injection library NVTX_INJECTION64_PATH=.*missing\.so was not used: it does not exist/g)).toHaveLength(1);
  });
});
