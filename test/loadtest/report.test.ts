import { describe, expect, it } from "vitest";
import type { RunReport } from "../../loadtest/harness/runner.js";
import { renderHtml, throughputSeries } from "../../loadtest/harness/report-html.js";
import { percentile, summarize } from "../../loadtest/harness/stats.js";
import { renderSummary } from "../../loadtest/harness/summary.js";
import { cdfSvg, histogramSvg } from "../../loadtest/harness/svg-plots.js";
import { defaultLimits } from "../../infra/limits.js";

const report: RunReport = {
  startedAt: "2026-01-01T00:00:00.000Z",
  durationMs: 2000,
  target: "target https://api.example.com",
  limitsSource: "package defaults",
  timeScale: 1,
  limits: defaultLimits(),
  effectiveLimits: defaultLimits(),
  budget: { concurrency: 2, requests: 3, files: 1, fileConcurrency: 1, ttftP95Ms: 1000, requestP95Ms: 1000, maxDurationSeconds: 60 },
  ceiling: { seconds: 1, connections: 32, autocannonRps: 9000, autocannonP99Ms: 4, undiciRps: 7000 },
  setupMs: null,
  scenarios: [
    { id: "streaming", title: "Streaming <x>", verdict: "pass", durationMs: 900, checks: [{ name: "valid", ok: true, detail: "3/3" }], figures: { valid: 3, requests: 3, ttft_p95_ms: 12 } },
    { id: "revocation", title: "Revocation", verdict: "fail", durationMs: 100, checks: [{ name: "refused", ok: false, detail: "1/2 refused" }], figures: {} },
  ],
  samples: [
    { scenario: "streaming", op: "chat.stream", at: 0, latencyMs: 100, ok: true, ttftMs: 10 },
    { scenario: "streaming", op: "chat.stream", at: 50, latencyMs: 150, ok: true, ttftMs: 12 },
    { scenario: "revocation", op: "models.list", at: 1500, latencyMs: 5, ok: true },
  ],
  interChunkMs: [1, 2, 3],
  passed: false,
};

describe("statistics", () => {
  it("nearest-rank percentiles", () => {
    const v = Array.from({ length: 100 }, (_, i) => i + 1);
    expect([percentile(v, 50), percentile(v, 95), percentile(v, 100)]).toEqual([50, 95, 100]);
    expect(summarize([])).toMatchObject({ count: 0, p95: null });
  });
});

describe("reports", () => {
  it("the summary shows each verdict, the failing check and the harness ceiling", () => {
    const text = renderSummary(report);
    expect(text).toMatch(/^streaming\s+PASS/m);
    expect(text).toMatch(/^revocation\s+FAIL/m);
    expect(text).toContain("FAIL revocation: refused — 1/2 refused");
    expect(text).toContain("harness ceiling: 9000 req/s (autocannon), 7000 req/s (undici");
    expect(text.trim().endsWith("FAIL in 2000 ms")).toBe(true);
  });

  it("throughput buckets count completions per second, per scenario", () => {
    const { series, bucketMs } = throughputSeries(report.samples, report.durationMs);
    expect(bucketMs).toBe(100);
    const streaming = series.find((s) => s.name === "streaming")!;
    expect(streaming.points.reduce((a, [, y]) => a + (y * bucketMs) / 1000, 0)).toBe(2);
  });

  it("the HTML report is self-contained, escapes text and embeds well-formed SVG plots", () => {
    const html = renderHtml(report);
    expect(html).toContain("Streaming &lt;x&gt;");
    expect(html).not.toMatch(/<script|<link|src=|url\(/);
    const svgs = html.match(/<svg [\s\S]*?<\/svg>/g) ?? [];
    expect(svgs.length).toBeGreaterThanOrEqual(4);
    for (const svg of svgs) expect(svg).not.toMatch(/NaN|undefined|Infinity/);
  });

  it("plots say so when there is no data instead of drawing nonsense", () => {
    expect(histogramSvg([], "Latency")).toContain("Latency: no data");
    expect(cdfSvg([5, 1, 3], "TTFT")).toMatch(/<polyline points="[^"]+"/);
  });
});
