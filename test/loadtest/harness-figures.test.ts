/**
 * The figures users compare across tools, from a short --local run through nginx: requests and
 * output tokens per second, per-token inter-token latency, TTFT and end-to-end percentiles, and
 * a two-rate sweep. Bounded in count (16 streams, then 5 and 15 at two rates) and time.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunReport } from "../../loadtest/harness/run-report.js";

const ROOT = join(import.meta.dirname, "../..");
const TOKENS = 24;
const dir = mkdtempSync(join(tmpdir(), "agentport-loadtest-figures-"));
let stdout: string;
let report: RunReport;

beforeAll(async () => {
  const run = await promisify(execFile)(
    process.execPath,
    [
      "--import",
      "tsx",
      join(ROOT, "loadtest/harness/cli.ts"),
      "--local",
      "--time-scale",
      "0.02",
      "--scenarios",
      "streaming",
      "--requests",
      "16",
      "--concurrency",
      "4",
      "--stream-tokens",
      String(TOKENS),
      "--rates",
      "10,30",
      "--rate-seconds",
      "0.5",
      "--ceiling-seconds",
      "0",
      "--max-duration",
      "120",
      // Latency budgets judge a real run; a loaded CI machine must not decide these verdicts.
      "--ttft-p95-ms",
      "60000",
      "--json",
      join(dir, "report.json"),
      "--html",
      join(dir, "report.html"),
    ],
    { cwd: ROOT, timeout: 240_000, maxBuffer: 16 * 1024 * 1024 },
  );
  stdout = run.stdout;
  report = JSON.parse(readFileSync(join(dir, "report.json"), "utf8")) as RunReport;
}, 300_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ordered = (f: Record<string, unknown>, prefix: string, unit = "_ms") => {
  const v = ["p50", "p90", "p95", "p99"].map((p) => f[`${prefix}_${p}${unit}`] as number);
  expect(
    v.every((x) => typeof x === "number" && x >= 0),
    prefix,
  ).toBe(true);
  expect(
    [...v].sort((a, b) => a - b),
    prefix,
  ).toEqual(v);
};

describe("stream figures from a --local run", () => {
  it("counts output tokens from the usage chunk and one inter-token gap per token after the first", () => {
    const f = report.scenarios[0].figures;
    expect(f).toMatchObject({
      valid: 16,
      output_tokens: 16 * TOKENS,
      itl_count: 16 * (TOKENS - 1),
      ttft_count: 16,
      e2e_count: 16,
    });
    expect(report.interTokenMs.streaming).toHaveLength(16 * (TOKENS - 1));
    expect(report.samples.filter((s) => s.op === "chat.stream").every((s) => s.outputTokens === TOKENS)).toBe(true);
  });

  it("gives requests and output tokens per second over the streams' wall time, and p50 ≤ p90 ≤ p95 ≤ p99", () => {
    const f = report.scenarios[0].figures as Record<string, number>;
    // wall_ms is rounded to the millisecond: 1% of slack.
    expect(f.requests_per_s / (16 / (f.wall_ms / 1000))).toBeCloseTo(1, 2);
    expect(f.output_tokens_per_s / ((16 * TOKENS) / (f.wall_ms / 1000))).toBeCloseTo(1, 2);
    for (const prefix of ["ttft", "e2e", "itl"]) ordered(f, prefix);
    ordered(f, "stream_tokens_per_s", "");
  });

  it("sweeps each rate with rate × seconds streams and reports its figures", () => {
    expect(report.sweep.map((p) => [p.rate, p.requests, p.valid])).toEqual([
      [10, 5, 5],
      [30, 15, 15],
    ]);
    for (const p of report.sweep) {
      expect(p.figures.output_tokens).toBe(p.valid * TOKENS);
      ordered(p.figures, "ttft");
      ordered(p.figures, "e2e");
    }
    expect(report.scenarios.map((s) => [s.id, s.verdict])).toEqual([
      ["streaming", "pass"],
      ["rate-sweep", "pass"],
    ]);
  });

  it("prints the percentile table and the sweep, and draws the curve", () => {
    expect(stdout).toMatch(/^inter-token latency \(ms\)(\s+[\d.]+){4}$/m);
    expect(stdout).toMatch(/^10\s+[\d.]+\s+[\d.]+(\s+[\d.]+){6}\s+met\s+5\/5$/m);
    expect(stdout).toMatch(/^30\s+[\d.]+\s+[\d.]+(\s+[\d.]+){6}\s+met\s+15\/15$/m);
    expect(readFileSync(join(dir, "report.html"), "utf8")).toContain("Latency against throughput (load profile)");
  });
});
