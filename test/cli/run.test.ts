/**
 * `cuda-ts run`, the launcher of multi-process jobs, on loopback with fake ranks (no GPU): ranks get their place in
 * the world and meet through the rendezvous store; a failing rank stops the job and nothing is left running; a rank
 * that never comes is named; a busy port and bad command lines are one clear line and status 2.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import * as net from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseRunArgs, RunUsageError } from "../../src/cli/run.ts";
import { joinWorld, world } from "../../src/core/distributed/world.ts";
import { isBun, runtimeExecutable } from "../support/runtime.ts";
import { otherUser, requireTwoUsers } from "../support/two-users.ts";

const root = resolve(import.meta.dirname ?? new URL(".", import.meta.url).pathname, "../..");
const cli = join(root, "src/cli/cuda-ts.ts");
const fixture = (name: string): string => join(root, "test/cli/fixtures", name);

/** `cuda-ts run ARGS` with the runtime the tests run on (Deno: with the launcher's documented permissions). */
function launcherCommand(args: string[]): string[] {
  const perms = ["--allow-read", "--allow-env", "--allow-run", "--allow-net", "--allow-ffi", "--allow-sys", "--allow-write"];
  return isBun ? [runtimeExecutable(), cli, "run", ...args] : [runtimeExecutable(), "run", ...perms, cli, "run", ...args];
}

function launch(args: string[], env: Record<string, string> = {}): { status: number | null; stdout: string; stderr: string } {
  const cmd = launcherCommand(args);
  const r = spawnSync(cmd[0]!, cmd.slice(1), { cwd: root, encoding: "utf8", timeout: 60_000, env: { ...process.env, ...env } });
  return { status: r.status, stdout: r.stdout ?? "", stderr: `${r.stderr ?? ""}${r.error ? String(r.error) : ""}` };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((ok) => s.listen(0, "127.0.0.1", ok));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise<void>((ok) => s.close(() => ok()));
  return port;
}

const scratch = mkdtempSync(join(tmpdir(), "cuda-ts-run-test-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("cuda-ts run: the command line", () => {
  it("reads ranks, nodes, the master address and the script with its own arguments", () => {
    const p = parseRunArgs(["-n", "4", "--nnodes=2", "--node-rank", "1", "--master", "10.0.0.1:29500", "train.ts", "--lr", "0.1"]);
    expect(p).toMatchObject({ perNode: 4, nodes: 2, nodeRank: 1, master: { host: "10.0.0.1", port: 29500 }, script: "train.ts", scriptArgs: ["--lr", "0.1"] });
    expect(parseRunArgs(["-n", "2", "x.ts"])).toMatchObject({ nodes: 1, nodeRank: 0, master: { host: "127.0.0.1", port: 0 }, prefix: true });
    expect(parseRunArgs(["-n", "1", "--master", "[::1]:4000", "x.ts"]).master).toEqual({ host: "::1", port: 4000 });
  });

  it.each([
    [["x.ts"], /-n N/],
    [["-n", "0", "x.ts"], /-n takes an integer ≥ 1, not "0"/],
    [["-n", "2"], /name the script/],
    [["-n", "2", "--nnodes", "2", "x.ts"], /needs --master HOST:PORT/],
    [["-n", "2", "--nnodes", "2", "--master", "h:1", "x.ts"], /needs --node-rank R \(0 to 1\)/],
    [["-n", "2", "--node-rank", "1", "x.ts"], /--node-rank 1 is not below --nnodes 1/],
    [["-n", "2", "--master", "host", "x.ts"], /HOST:PORT .* not "host"/],
    [["-n", "2", "--master", "h:70000", "x.ts"], /port from 1 to 65535/],
    [["-n", "2", "--timeout", "-1", "x.ts"], /positive number of seconds/],
    [["-n", "2", "--frobnicate", "x.ts"], /unknown option "--frobnicate"/],
  ])("refuses %j with a line that says what to write", (args, message) => {
    expect(() => parseRunArgs(args)).toThrow(RunUsageError);
    expect(() => parseRunArgs(args)).toThrow(message);
  });
});

describe("cuda-ts run: world() without a launcher", () => {
  it("is a world of one, and joining it needs no store", async () => {
    expect(world()).toMatchObject({ rank: 0, size: 1, localRank: 0, localSize: 1, nodeRank: 0, nodes: 1, launched: false, launcher: "none" });
    const m = await joinWorld();
    expect(await m.share("k", () => "v")).toBe("v");
    m.close();
  });
});

describe("cuda-ts run: jobs of fake ranks on loopback", () => {
  it("starts every rank with its place in the world, and they agree on rank 0's value", () => {
    const r = launch(["-n", "3", "--no-prefix", fixture("rank-report.ts"), "--flag", "value"]);
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    const lines = r.stdout.trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => l.rank).sort()).toEqual([0, 1, 2]);
    for (const l of lines) {
      expect(l).toMatchObject({ size: 3, localSize: 3, nodeRank: 0, nodes: 1, launched: true, args: ["--flag", "value"] });
      expect(l.localRank).toBe(l.rank);
    }
    expect(new Set(lines.map((l) => l.shared)).size).toBe(1);
    expect(String(lines[0]!.shared)).toMatch(/^made by rank 0 at \d+$/);
  });

  it("prefixes each rank's lines with its rank when there are several", () => {
    const r = launch(["-n", "2", fixture("rank-report.ts")]);
    expect(r.status).toBe(0);
    const lines = r.stdout.trim().split("\n").sort();
    expect(lines[0]).toMatch(/^\[rank 0\] \{/);
    expect(lines[1]).toMatch(/^\[rank 1\] \{/);
  });

  it("stops the other ranks when one fails, names it, exits with its status, and leaves nothing running", () => {
    const dir = mkdtempSync(join(scratch, "fail-"));
    const r = launch(["-n", "3", "--grace", "2", fixture("rank-fail.ts"), dir, "1"]);
    expect(r.status).toBe(3);
    expect(r.stderr).toContain("[rank 1] rank 1 fails on purpose");
    expect(r.stderr).toMatch(/rank 1 exited with status 3; stopping the 2 ranks still running \(0, 2\)/);
    expect(r.stderr).toContain("cuda-ts run: rank 1 exited with status 3; the job failed");
    const pids = readdirSync(dir).map((f) => Number(readFileSync(join(dir, f), "utf8")));
    expect(pids).toHaveLength(3);
    for (const pid of pids) expect(alive(pid)).toBe(false);
  });

  it("ends a job that runs past --timeout, stopping every rank", () => {
    const dir = mkdtempSync(join(scratch, "timeout-"));
    const r = launch(["-n", "2", "--timeout", "2", "--grace", "1", fixture("rank-fail.ts"), dir, "none"]);
    expect(r.status).toBe(124);
    expect(r.stderr).toMatch(/the job ran past --timeout 2 s; stopping the 2 ranks still running/);
    for (const f of readdirSync(dir)) expect(alive(Number(readFileSync(join(dir, f), "utf8")))).toBe(false);
  });

  it("names a rank that never comes (a node whose launcher was not started) instead of hanging", async () => {
    const secret = "ab".repeat(32);
    const r = launch(["-n", "1", "--nnodes", "2", "--node-rank", "0", "--master", "127.0.0.1:0", fixture("rank-join.ts")], { CUDA_TS_RENDEZVOUS_SECRET: secret });
    // --master with port 0 is refused: a multi-node job needs a port the other nodes know.
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/port from 1 to 65535/);
    const port = await freePort();
    const r2 = launch(["-n", "1", "--nnodes", "2", "--node-rank", "0", "--master", `127.0.0.1:${port}`, fixture("rank-join.ts")], { CUDA_TS_RENDEZVOUS_SECRET: secret });
    expect(r2.status).toBe(1);
    expect(r2.stderr).toMatch(/RankMissingError: rank 1 of 2 never joined the job within 1500 ms/);
    expect(r2.stderr).toMatch(/is the launcher running on node 1 \(`cuda-ts run --node-rank 1 \.\.\.`\)/);
  });

  it("refuses a job of several nodes without the shared secret", () => {
    const r = launch(["-n", "1", "--nnodes", "2", "--node-rank", "0", "--master", "127.0.0.1:29999", fixture("rank-join.ts")], { CUDA_TS_RENDEZVOUS_SECRET: "" });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/set CUDA_TS_RENDEZVOUS_SECRET to 64 hex digits/);
  });

  it("says so in one line when the master port is busy (a second launcher), starting no rank", async () => {
    const busy = net.createServer();
    await new Promise<void>((ok) => busy.listen(0, "127.0.0.1", ok));
    const port = (busy.address() as net.AddressInfo).port;
    try {
      const dir = mkdtempSync(join(scratch, "busy-"));
      const cmd = launcherCommand(["-n", "1", "--nnodes", "2", "--node-rank", "0", "--master", `127.0.0.1:${port}`, fixture("rank-fail.ts"), dir, "0"]);
      const child = spawn(cmd[0]!, cmd.slice(1), { cwd: root, env: { ...process.env, CUDA_TS_RENDEZVOUS_SECRET: "cd".repeat(32) } });
      let stderr = "";
      child.stderr.on("data", (d: Uint8Array) => (stderr += new TextDecoder().decode(d)));
      const status = await new Promise<number | null>((ok) => child.on("close", ok));
      expect(status).toBe(2);
      expect(stderr.trim().split("\n")).toHaveLength(1);
      expect(stderr).toMatch(new RegExp(`cannot listen on 127\\.0\\.0\\.1:${port}: port ${port} on 127\\.0\\.0\\.1 is in use`));
      expect(readdirSync(dir)).toEqual([]);
    } finally {
      busy.close();
    }
  });

  it("refuses a script that does not exist", () => {
    const r = launch(["-n", "2", join(scratch, "missing.ts")]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/the script ".*missing\.ts" is not a file/);
  });
});

describe("cuda-ts run: another local user", () => {
  const other = otherUser();
  it("can neither join a running job's rendezvous nor read the value its ranks share", async (ctx) => {
    requireTwoUsers(ctx, other);
    const release = join(scratch, `release-${process.pid}`);
    const cmd = launcherCommand(["-n", "2", "--no-prefix", fixture("rank-hold.ts"), release]);
    const job = spawn(cmd[0]!, cmd.slice(1), { cwd: root, env: { ...process.env } });
    let stdout = "";
    let stderr = "";
    job.stdout!.on("data", (d: unknown) => (stdout += String(d)));
    job.stderr!.on("data", (d: unknown) => (stderr += String(d)));
    const exited = new Promise<number | null>((ok) => job.on("close", (code) => ok(code)));
    try {
      const t0 = Date.now();
      while (stdout.trim().split("\n").filter((l) => l.startsWith("{")).length < 2 && Date.now() - t0 < 30_000) await new Promise((r) => setTimeout(r, 20));
      const lines = stdout.trim().split("\n").filter((l) => l.startsWith("{")).map((l) => JSON.parse(l) as { rank: number; shared: string; addr: string });
      expect(lines, stderr).toHaveLength(2);
      const { shared, addr } = lines[0]!;
      const port = addr.slice(addr.lastIndexOf(":") + 1);
      expect(Number(port)).toBeGreaterThan(0);
      const r = await other.run(join(root, "test/distributed/rendezvous-other-user-child.ts"), [port], { timeoutMs: 30_000 });
      expect(r.code, r.stderr).toBe(0);
      const out = JSON.parse(r.stdout.trim().split("\n").at(-1)!) as { joined: boolean; error: string; received: string };
      expect(out.joined).toBe(false);
      expect(out.error).toMatch(/^RendezvousError: /);
      const seen = Buffer.from(out.received, "hex");
      expect(seen.includes(Buffer.from(shared))).toBe(false);
      expect(seen.includes(Buffer.from(shared, "hex"))).toBe(false);
    } finally {
      writeFileSync(release, "");
    }
    expect(await exited, stderr).toBe(0);
  });
});
