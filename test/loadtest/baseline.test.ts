/**
 * Runs compared: --baseline previous.json judges each metric against an earlier run with a
 * tolerance, exits 1 when one got worse, and the HTML report shows both runs side by side.
 * Thresholds come from the stack's `api.slo` block; --stack NAME finds the deployed API's URL.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseHarnessArgs } from "../../loadtest/harness/args.js";
import { blockLength, compareRuns, inFlight } from "../../loadtest/harness/baseline.js";
import type { RunReport } from "../../loadtest/harness/run-report.js";
import { resolveSlo } from "../../loadtest/harness/slo.js";
import { stackTargetUrl } from "../../loadtest/harness/stack-target.js";
import { validateStack } from "../../infra/stack/validate.js";
import { buildTestApp, type TestApp } from "../helpers/app.js";
import { rawStack } from "../infra/fixtures.js";
import { listen } from "../helpers/openai-client.js";

const ROOT = join(import.meta.dirname, "../..");
const CLI = join(ROOT, "loadtest/harness/cli.ts");
const recorded = JSON.parse(readFileSync(join(import.meta.dirname, "fixtures/recorded-run.json"), "utf8")) as RunReport;

function harness(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["--import", "tsx", CLI, ...args],
      { cwd: ROOT, timeout: 90_000 },
      (err, stdout, stderr) => {
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
      },
    );
  });
}

/**
 * A copy of a report whose streaming samples are scaled: each stream's TTFT and end-to-end time
 * and each inter-token gap by `latency` (so tokens per second by 1/latency), plus `addMs` to TTFT.
 */
function scaled(r: RunReport, latency: number, addMs = 0): RunReport {
  const copy = structuredClone(r);
  for (const s of copy.samples) {
    if (s.scenario !== "streaming" || s.op !== "chat.stream") continue;
    s.latencyMs *= latency;
    if (s.ttftMs !== undefined) s.ttftMs = s.ttftMs * latency + addMs;
  }
  copy.interTokenMs.streaming = copy.interTokenMs.streaming.map((v) => v * latency);
  return copy;
}

const verdicts = (c: ReturnType<typeof compareRuns>) => Object.fromEntries(c.rows.map((r) => [r.key, r.verdict]));

describe("comparing two runs", () => {
  it("an identical run passes; every metric is compared, with its interval", () => {
    const c = compareRuns(recorded, recorded, 0.1);
    expect(c.regressions).toEqual([]);
    expect(c.rows.map((r) => r.key)).toEqual(
      expect.arrayContaining([
        "ttft_p50_ms",
        "ttft_p95_ms",
        "ttft_p99_ms",
        "itl_p95_ms",
        "e2e_p99_ms",
        "stream_tokens_per_s_p50",
        "output_tokens_per_s",
        "error_rate",
      ]),
    );
    expect(c.rows.every((r) => r.change === null || r.change === 0)).toBe(true);
    const ttft = c.rows.find((r) => r.key === "ttft_p50_ms")!;
    expect(ttft.interval!.low).toBeLessThanOrEqual(0);
    expect(ttft.interval!.high).toBeGreaterThanOrEqual(0);
    // 64 streams: the interval is too wide to call it the same, and nothing is worse.
    expect(["same", "unclear"]).toContain(ttft.verdict);
  });

  it("a large regression is worse, named; a change within the tolerance is not; better is never worse", () => {
    const slower = scaled(recorded, 2, 5);
    const c = compareRuns(slower, recorded, 0.1);
    expect(c.regressions).toEqual(
      expect.arrayContaining(["TTFT p50 (ms)", "end-to-end p50 (ms)", "inter-token p50 (ms)", "stream tokens/s p50"]),
    );
    // 64 streams: a p95 needs 100 samples, a p99 500 — no verdict, however large the change.
    expect(verdicts(c)).toMatchObject({ ttft_p95_ms: "too few samples", e2e_p99_ms: "too few samples" });
    expect(compareRuns(scaled(recorded, 1.02), recorded, 0.1).regressions).toEqual([]);
    expect(compareRuns(recorded, slower, 0.1).regressions).toEqual([]);
    expect(verdicts(compareRuns(recorded, slower, 0.1)).ttft_p50_ms).toBe("better");
  });

  it("a tail from one episode of neighbouring streams is not a regression; the same slow streams spread through the run are", () => {
    // 200 streams 10 ms apart, TTFT 20–30 ms; then 20 of them at 60 ms: one burst, or every tenth.
    const ttfts = Array.from({ length: 200 }, (_, i) => 20 + ((i * 37) % 100) / 10);
    const run = (ttft: (i: number) => number) =>
      ({
        startedAt: "2026-11-29T00:00:00.000Z",
        target: "synthetic",
        samples: ttfts.map((_, i) => ({
          scenario: "streaming",
          op: "chat.stream",
          at: i * 10,
          latencyMs: ttft(i) + 160,
          ttftMs: ttft(i),
          ok: true,
          outputTokens: 32,
          interTokens: 0,
        })),
        interTokenMs: { streaming: [] },
      }) as unknown as RunReport;
    const p95 = (current: RunReport) =>
      compareRuns(
        current,
        run((i) => ttfts[i]),
        0.1,
      ).rows.find((r) => r.key === "ttft_p95_ms")!;
    const episode = p95(run((i) => (i >= 100 && i < 120 ? 60 : ttfts[i])));
    const spread = p95(run((i) => (i % 10 === 0 ? 60 : ttfts[i])));
    // The same p95 either way; only the spread one is a regression beyond doubt.
    expect(episode.current).toBe(spread.current);
    expect(spread.verdict).toBe("worse");
    expect(episode.verdict).not.toBe("worse");
    expect(episode.interval!.low).toBeLessThan(0.1);
  });

  it("the blocks resampled for a metric hold every stream one moment of the machine reaches", () => {
    // 400 streams 10 ms apart, each 160 ms long, its first token after 20 ms: 16 streams in flight,
    // of which 2 are waiting for a first token at any moment.
    const streams = Array.from({ length: 400 }, (_, i) => ({
      scenario: "streaming",
      op: "chat.stream",
      at: i * 10,
      latencyMs: 160,
      ttftMs: 20,
      ok: i % 50 !== 7,
    }));
    const across = 400 * 10 - 10 + 160;
    expect(inFlight(streams, "itl")).toBeCloseTo((400 * 160) / across, 9);
    expect(inFlight(streams, "e2e")).toBeCloseTo((400 * 160) / across, 9);
    expect(inFlight(streams, "ttft")).toBeCloseTo((400 * 20) / (across - 140), 9);
    // A stall delays a gap of each of the 16: one block holds them; TTFT keeps the cube-root blocks.
    expect(blockLength(400, inFlight(streams, "itl"))).toBe(16);
    expect(blockLength(400, inFlight(streams, "ttft"))).toBe(8);
    // A failure is the service's, not the machine's timing: judged in the cube-root blocks.
    expect(inFlight(streams, "failed")).toBe(1);
    expect(inFlight([], "itl")).toBe(0);
  });

  it("blocks are never shorter than the streams in flight, nor than the cube root of the run", () => {
    expect(blockLength(200)).toBe(6);
    expect(blockLength(200, 16)).toBe(16);
    expect(blockLength(200, 15.2)).toBe(16);
    expect(blockLength(200, 0.4)).toBe(6);
    expect(blockLength(1000, 10)).toBe(10);
    expect(blockLength(0)).toBe(1);
  });

  it("the verdicts are reproducible: the same two runs give the same intervals", () => {
    const [a, b] = [
      compareRuns(scaled(recorded, 1.3), recorded, 0.1),
      compareRuns(scaled(recorded, 1.3), recorded, 0.1),
    ];
    expect(a.rows.map((r) => r.interval)).toEqual(b.rows.map((r) => r.interval));
  });

  it("failed streams: a rise of the error rate beyond one percentage point is worse", () => {
    const failing = structuredClone(recorded);
    const streams = failing.samples.filter((s) => s.scenario === "streaming" && s.op === "chat.stream");
    for (const s of streams.slice(0, 16)) s.ok = false;
    const row = compareRuns(failing, recorded, 0.1).rows.find((r) => r.key === "error_rate")!;
    expect(row.change).toBeCloseTo(16 / streams.length, 6);
    expect(row.verdict).toBe("worse");
  });

  it("each rate both runs' sweeps offered is compared on that rate's streams", () => {
    const withRates = structuredClone(recorded);
    // Sixty streams at the sweep's first offered rate in each run, the current one 50 % slower.
    const rate = recorded.sweep.find((p) => p.kind === "rate")!.rate;
    const template = withRates.samples.find((s) => s.scenario === "rate-sweep" && s.ok)!;
    const atRate = (factor: number) =>
      Array.from({ length: 60 }, (_, i) => ({
        ...template,
        rate,
        // Slower than the recorded streams at that rate, so these decide the p95s.
        ttftMs: (100 + (i % 7)) * factor,
        latencyMs: (400 + (i % 11)) * factor,
      }));
    const base = { ...withRates, samples: [...withRates.samples, ...atRate(1)] };
    const slower = { ...withRates, samples: [...withRates.samples, ...atRate(1.5)] };
    const rows = compareRuns(slower, base, 0.1).rows.filter((r) => r.key.startsWith("rate_"));
    // The offered rates only: a closed-loop point's rate is what it achieved, nothing to pair.
    expect(rows.length).toBe(recorded.sweep.filter((p) => p.kind === "rate").length * 3);
    expect(rows.find((r) => r.key === `rate_${rate}_e2e_p95_ms`)!.verdict).toBe("too few samples");
    expect(compareRuns(slower, base, 0.1).regressions).toEqual([]);
    // Enough samples: the p95 at that rate is judged.
    const many = (r: RunReport, factor: number) => ({
      ...r,
      samples: [...r.samples, ...atRate(factor), ...atRate(factor)],
    });
    expect(compareRuns(many(withRates, 1.5), many(withRates, 1), 0.1).regressions).toEqual([
      `${rate} req/s: TTFT p95 (ms)`,
      `${rate} req/s: end-to-end p95 (ms)`,
    ]);
    // A rate the baseline did not offer has nothing to be compared with.
    const other = structuredClone(recorded);
    other.sweep = other.sweep.map((p) => ({ ...p, rate: p.rate + 0.5 }));
    expect(compareRuns(recorded, other, 0.1).rows.filter((r) => r.key.startsWith("rate_"))).toEqual([]);
  });

  it("a sub-millisecond wobble is noise, not a regression", () => {
    const [base, wobble] = [structuredClone(recorded), structuredClone(recorded)];
    base.interTokenMs.streaming = base.interTokenMs.streaming.map(() => 0.4);
    wobble.interTokenMs.streaming = wobble.interTokenMs.streaming.map(() => 0.9);
    expect(verdicts(compareRuns(wobble, base, 0.1)).itl_p50_ms).toBe("same");
  });
});

describe("SLOs and targets from the stack", () => {
  it("reads the thresholds from the stack's api.slo; flags override them", () => {
    expect(resolveSlo("prod-aws", undefined, {})).toEqual({
      slo: { ttftP95Ms: 800, itlP95Ms: 40, e2eP95Ms: 8000, requestP95Ms: 4000, maxErrorRate: 0.001 },
      source: "stack prod-aws",
    });
    expect(
      resolveSlo(
        "prod-aws",
        undefined,
        parseHarnessArgs(["--stack", "prod-aws", "--key", "k", "--ttft-p95-ms", "500"]).slo,
      ).slo.ttftP95Ms,
    ).toBe(500);
    expect(resolveSlo("local", undefined, {}).source).toBe("defaults");
  });

  it("the stack schema checks the slo: block like any other setting", () => {
    const raw = rawStack("prod-aws");
    raw.api.slo = { ttftP95Ms: 0, maxErrorRate: 2, p95: 1 };
    const v = validateStack(raw);
    expect(v.ok).toBe(false);
    expect(v.issues.map((i) => i.path).sort()).toEqual(["api.slo.maxErrorRate", "api.slo.p95", "api.slo.ttftP95Ms"]);
  });

  it("--stack NAME --key KEY targets the stack's API, from its config or its outputs", () => {
    expect(parseHarnessArgs(["--stack", "prod-aws", "--key", "k"]).mode).toBe("target");
    expect(stackTargetUrl("prod-aws", undefined, undefined)).toEqual({
      url: "https://api.agents.example.com",
      source: "stack prod-aws config",
    });
    const outputs = join(mkdtempSync(join(tmpdir(), "agentport-outputs-")), "outputs.json");
    writeFileSync(
      outputs,
      JSON.stringify({ apiBaseUrl: "https://api.prod.example.net/v1", chatUrl: "https://chat.example.net" }),
    );
    expect(stackTargetUrl("prod-aws", undefined, outputs).url).toBe("https://api.prod.example.net");
    writeFileSync(outputs, "{}");
    expect(() => stackTargetUrl("prod-aws", undefined, outputs)).toThrow(
      /has no apiBaseUrl \(write it with: pulumi stack output --json/,
    );
  });

  it("--k6-env --stack NAME gives the k6 scripts the stack's API URL", async () => {
    const r = await harness(["--k6-env", "--stack", "prod-aws"]);
    expect(r.stdout).toMatch(/^BASE_URL=https:\/\/api\.agents\.example\.com$/m);
  });

  it("a dry run against a stack announces the stack's URL and its thresholds' source", async () => {
    const r = await harness(["--stack", "prod-aws", "--key", "ap-x", "--scenarios", "streaming", "--dry-run"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^plan for https:\/\/api\.agents\.example\.com:$/m);
    expect(r.stdout).toMatch(
      /^thresholds \(stack prod-aws\): TTFT p95 800 ms · inter-token p95 40 ms · e2e p95 8000 ms · other requests p95 4000 ms · failed streams ≤ 0.1 %$/m,
    );
  });
});

describe("npm run loadtest -- --baseline", () => {
  let t: TestApp;
  let base: string;
  let key: string;
  const dir = mkdtempSync(join(tmpdir(), "agentport-baseline-"));
  let first: RunReport;
  beforeAll(async () => {
    const agents = join(dir, "agents.json");
    writeFileSync(
      agents,
      JSON.stringify({ agents: [{ id: "paced", kind: "synthetic", tokens: 12, interval_ms: 5, silence_ms: 30 }] }),
    );
    t = await buildTestApp("pglite", { AGENTS_FILE: agents });
    base = (await listen(t.app)).replace(/\/v1$/, "");
    key = (await t.createKey()).secret;
    const r = await run("--json", join(dir, "first.json"));
    expect(r.code, r.stderr).toBe(0);
    first = JSON.parse(readFileSync(join(dir, "first.json"), "utf8")) as RunReport;
  }, 120_000);
  afterAll(() => t.close());

  const run = (...args: string[]) =>
    harness([
      "--target",
      base,
      "--key",
      key,
      "--scenarios",
      "streaming",
      "--requests",
      "24",
      "--concurrency",
      "6",
      "--ceiling-seconds",
      "0",
      "--stream-model",
      "agentport/paced",
      "--stream-tokens",
      "12",
      "--ttft-p95-ms",
      "60000",
      ...args,
    ]);

  it("exits 1 and names the metrics that got worse than a (much better) baseline", async () => {
    writeFileSync(join(dir, "better.json"), JSON.stringify(scaled(first, 0.01)));
    const r = await run("--baseline", join(dir, "better.json"), "--html", join(dir, "report.html"));
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^streaming\s+PASS/m);
    expect(r.stdout).toMatch(/^WORSE than the baseline: TTFT p50 \(ms\), /m);
    // The change, its interval, the samples each run had and the fewest judged.
    expect(r.stdout).toMatch(
      /^TTFT p50 \(ms\)\s+[\d.]+\s+[\d.]+\s+\+[\d.]+ %\s+\[\+[\d.]+ %, \+[\d.]+ %\]\s+24\/24 \(≥ 20\)\s+WORSE$/m,
    );
    expect(r.stdout).toMatch(/^TTFT p95 \(ms\)\s+.*24\/24 \(≥ 100\)\s+too few samples$/m);
    const html = readFileSync(join(dir, "report.html"), "utf8");
    expect(html).toContain("<h2>Against the baseline</h2>");
    expect(html).toContain("This run against the baseline (streaming), with the change's interval");
  });

  it("exits 0 against a baseline it does not fall behind", async () => {
    writeFileSync(join(dir, "worse.json"), JSON.stringify(scaled(first, 100)));
    const r = await run("--baseline", join(dir, "worse.json"));
    expect(r.stdout).toMatch(/^no metric worse than the baseline$/m);
    expect(r.code).toBe(0);
  });

  it("a paced agent: inter-token latency is not 0 and TTFT is not end-to-end", () => {
    const f = first.scenarios[0].figures as Record<string, number>;
    expect(f.itl_p50_ms).toBeGreaterThanOrEqual(4);
    expect(f.ttft_p50_ms).toBeGreaterThanOrEqual(30);
    expect(f.e2e_p50_ms - f.ttft_p50_ms).toBeGreaterThanOrEqual(11 * 4);
    expect(f.warmup_streams).toBe(2);
    expect(first.samples).toHaveLength(24);
  });

  it("refuses a baseline that is not a report", async () => {
    writeFileSync(join(dir, "junk.json"), "{}");
    const r = await run("--baseline", join(dir, "junk.json"), "--dry-run");
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/is not a --json report with the streaming scenario's figures/);
  });
});
