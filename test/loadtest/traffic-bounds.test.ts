/**
 * Traffic is bounded and announced: every run prints its plan first; --dry-run sends nothing;
 * a plan over the byte cap is refused for a non-loopback target unless --exceed-cap; the client
 * refuses a body past the cap and aborts everything at the hard stop.
 */
import { execFile } from "node:child_process";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultLimits } from "../../infra/limits.js";
import { createHttp } from "../../loadtest/harness/http.js";
import { capProblem, isLoopback, planTraffic } from "../../loadtest/harness/plan.js";

const ROOT = join(import.meta.dirname, "../..");
const CLI = join(ROOT, "loadtest/harness/cli.ts");
const MiB = 1024 * 1024;

function harness(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["--import", "tsx", CLI, ...args],
      { cwd: ROOT, timeout: 60_000 },
      (err, stdout, stderr) => {
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
      },
    );
  });
}

/** A TCP server that counts connections and bytes, and answers nothing. */
let server: Server;
let port: number;
const seen = { connections: 0, bytes: 0 };
beforeAll(async () => {
  server = createServer((socket) => {
    seen.connections++;
    socket.on("data", (d) => (seen.bytes += d.length));
    socket.on("error", () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as { port: number }).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const base = {
  scenarios: [] as string[],
  requests: 64,
  files: 24,
  rates: [] as number[],
  rateSeconds: 10,
  warmup: 2,
  promptTokens: 0,
  maxDurationSeconds: 300,
  limits: defaultLimits(),
};

describe("the plan", () => {
  it("counts the body-limits scenario's files at and over the file limit: a GiB with the defaults", () => {
    const plan = planTraffic({ ...base, scenarios: ["streaming", "body-limits"] });
    const body = plan.lines.find((l) => l.scenario === "body-limits")!;
    expect(body.bytes).toBeGreaterThan(2 * 512 * MiB);
    expect(plan.streams).toBe(64 + 2 + 2);
    expect(plan.hardStopSeconds).toBe(330);
  });

  it("counts the sweep's streams per rate, warm-up included, and prompt bytes per token", () => {
    const plan = planTraffic({ ...base, scenarios: ["rate-sweep"], rates: [1, 5], rateSeconds: 4, promptTokens: 1000 });
    expect(plan.streams).toBe(4 + 2 + 20 + 2);
    expect(plan.bytes).toBeGreaterThan(28 * 6000);
  });

  it("refuses a plan over the cap; a loopback target may raise it, another needs --exceed-cap", () => {
    const plan = planTraffic({ ...base, scenarios: ["body-limits"] });
    expect(capProblem(plan, 64 * MiB, false, false)).toMatch(
      /to a non-loopback target, over the 64 MiB cap \(most of it: body-limits, 10\d\d\.\d MiB\)\. Leave that scenario out \(--scenarios\), or pass --exceed-cap/,
    );
    expect(capProblem(plan, 64 * MiB, true, false)).toMatch(
      /to a loopback target, over the 64 MiB cap .*raise --max-bytes/,
    );
    expect(capProblem(plan, 2048 * MiB, true, false)).toBeNull();
    expect(capProblem(plan, 2048 * MiB, false, false)).toMatch(/over the 64 MiB cap/);
    expect(capProblem(plan, 64 * MiB, false, true)).toBeNull();
    expect(
      capProblem(planTraffic({ ...base, scenarios: ["streaming", "files-load"] }), 64 * MiB, false, false),
    ).toBeNull();
    expect([
      isLoopback("http://127.0.0.1:8080"),
      isLoopback("http://localhost"),
      isLoopback("http://[::1]:80"),
      isLoopback("https://api.example.com"),
    ]).toEqual([true, true, true, false]);
  });
});

describe("npm run loadtest", () => {
  it("--dry-run prints the plan and sends nothing", async () => {
    // A loopback target may raise the cap with --max-bytes alone.
    const r = await harness([
      "--target",
      `http://127.0.0.1:${port}`,
      "--key",
      "ap-x",
      "--dry-run",
      "--max-bytes",
      "2g",
      "--ceiling-seconds",
      "0",
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^plan for http://127\\.0\\.0\\.1:${port}:$`, "m"));
    expect(r.stdout).toMatch(/^ {2}streaming\s+66 streams/m);
    expect(r.stdout).toMatch(
      /^ {2}total: \d+ streams, up to [\d.]+ MiB of request bodies \(cap 2 GiB\), no new work after 300 s, everything stopped at 330 s$/m,
    );
    expect(r.stdout).toMatch(/^dry run: nothing sent$/m);
    expect(seen).toEqual({ connections: 0, bytes: 0 });
  });

  it("refuses, before any request, a run over the cap: the issue's quick try no longer sends a GiB", async () => {
    const quick = await harness([
      "--target",
      `http://127.0.0.1:${port}`,
      "--key",
      "ap-x",
      "--max-duration",
      "15",
      "--requests",
      "16",
      "--files",
      "8",
    ]);
    expect(quick.code).toBe(2);
    expect(quick.stderr).toMatch(
      /^refused: this run would send up to 10\d\d\.\d MiB to a loopback target, over the 64 MiB cap \(most of it: body-limits/m,
    );
    expect(seen).toEqual({ connections: 0, bytes: 0 });

    // 192.0.2.0/24 is TEST-NET-1: nothing answers there, and nothing is tried.
    const r = await harness([
      "--target",
      "http://192.0.2.10",
      "--key",
      "ap-x",
      "--max-bytes",
      "2g",
      "--ceiling-seconds",
      "0",
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^refused: this run would send up to [\d.]+ MiB to a non-loopback target, over the 64 MiB cap \(most of it: body-limits/m,
    );
    const allowed = await harness(["--target", "http://192.0.2.10", "--key", "ap-x", "--exceed-cap", "--dry-run"]);
    expect(allowed.code).toBe(0);
    const without = await harness([
      "--target",
      "http://192.0.2.10",
      "--key",
      "ap-x",
      "--scenarios",
      "streaming,files-load",
      "--dry-run",
    ]);
    expect(without.code).toBe(0);
  });
});

describe("the client's bounds", () => {
  it("refuses a body that would pass the byte cap, without connecting", async () => {
    const http = createHttp(2);
    http.bound({ maxBytes: 1000 });
    const before = { ...seen };
    await expect(
      http.send(`http://127.0.0.1:${port}/v1/files`, { method: "POST", body: "x".repeat(1001), timeoutMs: 2000 }),
    ).rejects.toMatchObject({ code: "BYTE_CAP" });
    expect(seen).toEqual(before);
    expect(http.bytesSent).toBe(0);
    await http.close();
  });

  it("aborts requests in flight at the hard stop", async () => {
    const http = createHttp(2);
    const stop = new AbortController();
    http.bound({ maxBytes: Infinity, stop: stop.signal });
    // The server never answers: only the hard stop ends this request (its own bound is 60 s).
    const pending = http.send(`http://127.0.0.1:${port}/v1/models`, { timeoutMs: 60_000 });
    setTimeout(() => stop.abort(new Error("hard stop")), 100);
    await expect(pending).rejects.toThrow(/hard stop/);
    await expect(http.send(`http://127.0.0.1:${port}/v1/models`)).rejects.toThrow(/hard stop/);
    await http.close();
  });
});

describe("the time budget", () => {
  it("the body-limits scenario starts no upload after --max-duration", async () => {
    const urls: string[] = [];
    const http = {
      bytesSent: 0,
      bound() {},
      send: async (url: string) => {
        urls.push(url);
        throw new Error("unreachable");
      },
      json: async (url: string) => {
        urls.push(url);
        throw new Error("unreachable");
      },
      close: async () => {},
    };
    const { bodyLimitsScenario } = await import("../../loadtest/harness/scenarios/body-limits.js");
    const { Recorder } = await import("../../loadtest/harness/recorder.js");
    const outcome = await bodyLimitsScenario.run({
      target: { baseUrl: "http://127.0.0.1:9", key: "k", streamModel: "m", describe: "fake" },
      limits: defaultLimits(),
      timeScale: 1,
      budget: { deadline: performance.now() - 1 } as never,
      http,
      recorder: new Recorder(),
      progress: () => {},
    });
    expect(urls.filter((u) => u.includes("/v1/files"))).toEqual([]);
    expect(outcome.checks.at(-1)).toEqual({
      name: "uploads ran within the time budget",
      ok: false,
      detail: "not started: --max-duration had passed",
    });
    expect(outcome.verdict).toBe("fail");
  });
});
