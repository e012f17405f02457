/**
 * The NCCL binding without NCCL or a GPU: a stand-in libnccl.so.2 (nccl-stub.c, compiled here with the C compiler
 * against the real nccl.h when .cache has it) reports a version and records what it receives. Checked: the table
 * chosen for each version (the newest not newer than ncclGetVersion), a function newer than the table, the typed
 * error with NCCL's texts, the 128-byte ncclUniqueId passed by value arriving byte for byte (Bun lowers it, Deno
 * passes it natively), and ncclConfig_t laid out and initialised as NCCL_CONFIG_INITIALIZER does.
 *
 * Needs a C compiler (cc, or $CC); skipped with the reason without one.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { spawnSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ffi, type NativeLibrary } from "../../src/ffi/index.ts";
import { createNcclBinding, type NcclBinding, NCCLError, ncclVersionFromCode } from "../../src/bindings/nccl.ts";
import { FunctionVersionError } from "../../src/bindings/errors.ts";
import { CollectiveArgumentError } from "../../src/index.ts";
import { buildConfig, UniqueId } from "../../src/distributed.ts";
import { findCc } from "../generator/helpers.ts";

const ROOT = path.resolve(import.meta.dirname ?? new URL(".", import.meta.url).pathname, "../..");
const CTK_INCLUDE = path.join(ROOT, ".cache/ctk/13.0/include");
const HEADERS: Record<string, string> = {
  "2.28": path.join(ROOT, ".cache/nccl-2.28/nccl/include"),
  "2.22": path.join(ROOT, ".cache/nccl-2.22/usr/include"),
};
// cuda_fp16.h (included by nccl.h) includes CCCL's <nv/target>: CUDA 13 keeps it in include/cccl.
const CCCL = [path.join(CTK_INCLUDE, "cccl"), "/usr/local/cuda/include/cccl"].find((d) => fs.existsSync(path.join(d, "nv", "target")));
const realHeaders = (v: string): boolean => fs.existsSync(path.join(HEADERS[v]!, "nccl.h")) && fs.existsSync(path.join(CTK_INCLUDE, "cuda_runtime.h")) && CCCL !== undefined;

const cc = findCc();
let dir = "";
/** Stub libraries by the version they report, with the header generation they were compiled against. */
const stubs = new Map<number, { file: string; header: "2.28" | "2.22"; real: boolean }>();
const bindings = new Map<number, NcclBinding>();
const natives: NativeLibrary[] = [];

function compile(version: number, header: "2.28" | "2.22"): void {
  const real = realHeaders(header);
  const file = path.join(dir, `libnccl-${version}.so.2`);
  const args = ["-shared", "-fPIC", "-O1", "-w", `-DSTUB_VERSION=${version}`, ...(real ? ["-DSTUB_REAL_HEADER", "-I", HEADERS[header]!, "-I", CTK_INCLUDE, "-I", CCCL!] : []), path.join(ROOT, "test/distributed/nccl-stub.c"), "-o", file];
  const r = spawnSync(cc!, args, { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`${cc} ${args.join(" ")} failed:\n${r.stderr}`);
  stubs.set(version, { file, header, real });
}

function binding(version: number): NcclBinding {
  let b = bindings.get(version);
  if (b === undefined) {
    const file = stubs.get(version)!.file;
    b = createNcclBinding({ open: () => ({ name: "nccl", path: file, foundVia: "test", native: ffi.openLibrary(file) }) });
    bindings.set(version, b);
  }
  return b;
}

/** A stub-only function of a stub library. */
function stubFunction(version: number, name: string, parameters: ("pointer")[], result: "i32" | "u64"): (...args: unknown[]) => number | bigint {
  const lib = ffi.openLibrary(stubs.get(version)!.file);
  natives.push(lib);
  return lib.bind(name, { parameters, result }) as (...args: unknown[]) => number | bigint;
}

beforeAll(() => {
  if (cc === undefined) return;
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "cuda-ts-nccl-stub-")));
  compile(22809, "2.28");
  compile(22203, "2.22");
  compile(22600, "2.22");
});
afterAll(() => {
  for (const l of natives) l.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe("ncclVersionFromCode", () => {
  it("splits both encodings (2.9 and newer: major·10000; before: major·1000)", () => {
    expect(ncclVersionFromCode(22809)).toEqual({ major: 2, minor: 28, patch: 9, code: 22809 });
    expect(ncclVersionFromCode(21003)).toEqual({ major: 2, minor: 10, patch: 3, code: 21003 });
    expect(ncclVersionFromCode(2804)).toEqual({ major: 2, minor: 8, patch: 4, code: 2804 });
    expect(() => ncclVersionFromCode(0)).toThrow(RangeError);
  });
});

describe.skipIf(cc === undefined)(`the NCCL binding on a stand-in libnccl${cc === undefined ? " (skipped: no C compiler; install one or set CC)" : ""}`, () => {
  it("chooses the newest table not newer than ncclGetVersion", () => {
    expect([22809, 22600, 22203].map((v) => [binding(v).table().table.library.ctkVersion, binding(v).table().libraryVersion])).toEqual([
      ["2.28", "2.28"],
      ["2.22", "2.26"],
      ["2.22", "2.22"],
    ]);
    expect(binding(22600).table().reason).toBe("ncclGetVersion 22600 (NCCL 2.26.0)");
    expect(binding(22809).tableVersions).toEqual(["2.28", "2.22"]);
  });

  it("a function newer than the chosen table is a FunctionVersionError naming NCCL versions", () => {
    const b = binding(22600);
    let caught: unknown;
    try {
      b.raw.ncclCommShrink(null, null, 0, null, null, 0);
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(FunctionVersionError);
    const e = caught as FunctionVersionError;
    expect([e.requiredVersion, e.tableVersion, e.loadedVersion]).toEqual(["2.28", "2.22", "2.26"]);
    expect(e.message).toMatch(/it needs NCCL 2\.28, but the loaded nccl \(.*libnccl-22600\.so\.2\) is NCCL 2\.26, so cuda-ts bound it with the NCCL 2\.22 table/);
  });

  it("the 128-byte ncclUniqueId arrives by value byte for byte, and the comm comes back", () => {
    for (const v of [22809, 22203]) {
      const b = binding(v);
      const id = UniqueId.create(b);
      expect([...id.toBytes()]).toEqual(Array.from({ length: 128 }, (_, i) => (i * 7 + 3) & 0xff));
      // A different id than the stub makes, so that what arrives is what was sent.
      const sent = UniqueId.fromBytes(Uint8Array.from({ length: 128 }, (_, i) => (255 - i) ^ 0x5a));
      const comm = b.ncclCommInitRank(4, sent.toBytes(), 3);
      expect(ffi.bigAddressOf(comm)).toBe(0x1003n);
      const seen = new Uint8Array(128);
      const last = stubFunction(v, "stubLastInit", ["pointer"], "i32");
      expect(last(ffi.pointerOf(seen))).toBe(3004);
      expect([...seen]).toEqual([...sent.toBytes()]);
    }
  });

  it("a failed call is an NCCLError with the status, NCCL's description and its last error", () => {
    const b = binding(22809);
    let caught: unknown;
    try {
      b.ncclCommInitRank(0, UniqueId.create(b).toBytes(), 0);
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(NCCLError);
    const e = caught as NCCLError;
    expect([e.code, e.codeName, e.functionName, e.lastError, e.asynchronous]).toEqual([4, "ncclInvalidArgument", "ncclCommInitRank", "stub: rank out of range", false]);
    expect(e.message).toBe("ncclInvalidArgument: invalid argument (stub); NCCL says: stub: rank out of range (ncclCommInitRank)");
  });

  it("ncclConfig_t: the initializer's values, then the options, as the chosen table lays it out", () => {
    for (const v of [22809, 22203]) {
      const b = binding(v);
      const stub = stubs.get(v)!;
      const { record, keep } = buildConfig({ blocking: false, cgaClusterSize: 2, netName: "Socket", splitShare: true }, b);
      const size = v === 22809 ? 80 : 48;
      expect(record.$view.byteLength).toBe(size);
      const comm = b.ncclCommInitRankConfig(1, UniqueId.create(b).toBytes(), 0, record);
      expect(ffi.bigAddressOf(comm)).toBe(0x1000n);
      const seen = new Uint8Array(512);
      const name = new Uint8Array(64);
      const n = Number(stubFunction(v, "stubLastConfig", ["pointer", "pointer"], "u64")(ffi.pointerOf(seen), ffi.pointerOf(name)));
      expect(n).toBe(size);
      const dv = new DataView(seen.buffer);
      expect([Number(dv.getBigUint64(0, true)), dv.getUint32(8, true), dv.getUint32(12, true)]).toEqual([size, 0xcafebeef, v === 22809 ? 22809 : 22203]);
      expect([dv.getInt32(16, true), dv.getInt32(20, true), dv.getInt32(24, true), dv.getInt32(28, true), dv.getInt32(40, true)]).toEqual([0, 2, -2147483648, -2147483648, 1]);
      expect(new TextDecoder().decode(name.subarray(0, name.indexOf(0)))).toBe("Socket");
      expect(keep.length).toBe(1);
      if (stub.real) {
        // The header's own NCCL_CONFIG_INITIALIZER against cuda-ts's, byte for byte.
        const c = new Uint8Array(512);
        const m = Number(stubFunction(v, "stubDefaultConfig", ["pointer"], "u64")(ffi.pointerOf(c)));
        const ours = buildConfig({}, b).record.$view;
        expect(m).toBe(ours.byteLength);
        // Every field's bytes (padding is whatever the C compiler's copy left there).
        const mine = new Uint8Array(ours.buffer, ours.byteOffset, ours.byteLength);
        const fields = (buildConfig({}, b).record.constructor as unknown as { $fields: readonly { name: string; offset: number; size: number }[] }).$fields;
        expect(fields.length).toBe(v === 22809 ? 17 : 9);
        for (const f of fields) expect([f.name, ...c.subarray(f.offset, f.offset + f.size)]).toEqual([f.name, ...mine.subarray(f.offset, f.offset + f.size)]);
      }
    }
  });

  it("a configuration field the loaded NCCL lacks, or a bad value, is refused before NCCL", () => {
    expect(() => buildConfig({ trafficClass: 1 }, binding(22203))).toThrow(CollectiveArgumentError);
    expect(() => buildConfig({ trafficClass: 1 }, binding(22203))).toThrow(/trafficClass must be a field of the loaded NCCL's ncclConfig_t, but it is absent from NCCL 2\.22's/);
    expect(buildConfig({ trafficClass: 1, nvlinkCentricSched: true }, binding(22809)).record.$view.getInt32(44, true)).toBe(1);
    expect(() => buildConfig({ cgaClusterSize: -1 }, binding(22809))).toThrow(/cgaClusterSize must be an integer ≥ 0/);
    expect(() => buildConfig({ blocking: 1 as unknown as boolean }, binding(22809))).toThrow(/blocking must be true or false/);
    expect(() => buildConfig({ bogus: 1 } as never, binding(22809))).toThrow(/bogus must be one of blocking, cgaClusterSize/);
  });
});
