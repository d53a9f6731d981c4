/**
 * The text summary and the HTML report, the latter from a recorded run (`--local` with a rate
 * sweep): every chart's marks are read back from the SVG and must lie inside its plot area, the
 * histograms must hold every sample, and every scenario must appear.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compareRuns } from "../../loadtest/harness/baseline.js";
import { renderSvg } from "../../loadtest/harness/charts/render.js";
import { pointLabel } from "../../loadtest/harness/charts/timeline.js";
import { renderHtml } from "../../loadtest/harness/report-html.js";
import type { RunReport } from "../../loadtest/harness/run-report.js";
import { percentile, summarize } from "../../loadtest/harness/stats.js";
import { renderSummary } from "../../loadtest/harness/summary.js";
import { outside, readChart, type Chart } from "./svg-geometry.js";

const run = JSON.parse(readFileSync(join(import.meta.dirname, "fixtures/recorded-run.json"), "utf8")) as RunReport;
const html = await renderHtml(run);
const charts = (html.match(/<svg[\s\S]*?<\/svg>/g) ?? []).map(readChart);
const chart = (title: string) => charts.find((c) => c.title.startsWith(title))!;
const sum = (c: Chart, field: string) => c.items.reduce((a, i) => a + Number(i.fields[field] ?? 0), 0);
const validStreams = run.samples.filter((s) => s.op === "chat.stream" && s.ok);
const scenarioIds = run.scenarios.map((s) => s.id);
/** Tables show one decimal. */
const one = (v: unknown) => String(Math.round((v as number) * 10) / 10);

describe("statistics", () => {
  it("nearest-rank percentiles", () => {
    const v = Array.from({ length: 100 }, (_, i) => i + 1);
    expect([percentile(v, 50), percentile(v, 95), percentile(v, 100)]).toEqual([50, 95, 100]);
    expect(summarize([])).toMatchObject({ count: 0, p95: null });
  });
});

describe("the text summary", () => {
  const text = renderSummary(run);

  it("shows each verdict, the checks and the harness ceiling", () => {
    for (const s of run.scenarios) expect(text).toMatch(new RegExp(`^${s.id}\\s+${s.verdict.toUpperCase()}`, "m"));
    expect(text).toContain("ok   revocation: ");
    expect(text).toMatch(/harness ceiling: \d+ req\/s \(autocannon\)/);
    // The recorded run missed its streaming TTFT budget: the summary says so, and fails.
    expect(text).toContain("FAIL streaming: TTFT p95");
    expect(text.trim()).toMatch(/FAIL in \d+/);
  });

  it("shows requests and output tokens per second, and TTFT, end-to-end and inter-token p50/p90/p95/p99", () => {
    const f = run.scenarios.find((s) => s.id === "streaming")!.figures;
    expect(text).toContain(
      `streams (streaming): ${one(f.requests_per_s)} req/s · ${one(f.output_tokens_per_s)} output tokens/s`,
    );
    expect(text).toMatch(/^METRIC\s+P50\s+P90\s+P95\s+P99$/m);
    for (const [label, prefix, unit] of [
      ["TTFT (ms)", "ttft", "_ms"],
      ["end-to-end (ms)", "e2e", "_ms"],
      ["inter-token latency (ms)", "itl", "_ms"],
      ["output tokens/s per stream", "stream_tokens_per_s", ""],
    ]) {
      const cells = ["p50", "p90", "p95", "p99"].map((p) => one(f[`${prefix}_${p}${unit}`]));
      expect(text).toMatch(new RegExp(`^${label.replace(/[()/]/g, "\\$&")}\\s+${cells.join("\\s+")}$`, "m"));
    }
  });

  it("a skipped scenario's line says why it was skipped, and nothing it did not measure", async () => {
    const skipped = structuredClone(run);
    Object.assign(
      skipped.scenarios.find((s) => s.id === "idle-timeout")!,
      { verdict: "skip", note: "no silent agent (pass --silent-model for a deployed target)", checks: [], figures: {} },
    );
    expect(renderSummary(skipped)).toMatch(
      /^idle-timeout\s+SKIP\s+\S+ \S+\s+skipped: no silent agent \(pass --silent-model for a deployed target\)$/m,
    );
    const page = await renderHtml(skipped);
    expect(page).toContain("<td>skipped: no silent agent (pass --silent-model for a deployed target)</td>");
    expect(page).not.toMatch(/read timeout –/);
  });

  it("shows one row per offered rate of the sweep", () => {
    expect(text).toMatch(/^OFFERED REQ\/S\s+ACHIEVED REQ\/S\s+OUTPUT TOK\/S/m);
    for (const p of run.sweep) {
      const offered = `${p.kind && p.kind !== "rate" ? `${p.kind} ` : ""}${one(p.rate)}`;
      expect(text).toMatch(
        new RegExp(`^${offered}\\s+${one(p.figures.requests_per_s)}\\s+.*${p.valid}/${p.requests}$`, "m"),
      );
    }
  });
});

describe("the HTML report of a recorded run", () => {
  it("is one self-contained file: no script, no external resource", () => {
    expect(html).not.toMatch(/<script|<link|src=|url\(/);
    expect(html).toContain("<h2>Streams</h2>");
    expect(html).toContain("<h2>Rate sweep</h2>");
  });

  it("draws every chart with every mark inside its plot area", () => {
    expect(charts.map((c) => c.title)).toEqual([
      "Stream latency over time (p50, p95 per 1 s)",
      "Failed operations over time (per 1 s)",
      "Operations in flight over time",
      "Time to first token (cumulative)",
      "End-to-end stream latency",
      "Inter-token latency by percentile (the tail)",
      "Output tokens per second, per stream",
      "Capacity: TTFT p95 against rate, with the SLO",
      "Latency against throughput (load profile)",
      "Streams completed over time (0.4 s buckets)",
      "Latency of the other operations (box: min, quartiles, max; dots: under 8 samples)",
    ]);
    for (const c of charts) {
      expect(c.width, c.title).toBeGreaterThan(100);
      expect(c.items.length, c.title).toBeGreaterThan(0);
      expect(
        outside(c).map((i) => i.fields),
        c.title,
      ).toEqual([]);
    }
  });

  it("the histograms hold every sample: streams and tokens", () => {
    expect(validStreams.length).toBeGreaterThan(100);
    expect(sum(chart("End-to-end"), "streams")).toBe(validStreams.length);
    expect(sum(chart("Output tokens per second"), "streams")).toBe(validStreams.length);
    const points = chart("Time to first token").items.filter((i) => /mark-symbol/.test(i.mark));
    expect(points.length).toBe(validStreams.length);
  });

  it("the throughput chart counts streams only, each streaming scenario once; every sweep rate is in the curve, labelled", () => {
    const streaming = scenarioIds.filter((id) => validStreams.some((s) => s.scenario === id));
    expect(streaming).toEqual(["streaming", "rate-sweep"]);
    expect(new Set(chart("Streams completed over time").items.map((i) => i.fields.scenario))).toEqual(
      new Set(streaming),
    );
    const overTime = chart("Streams completed over time").items.reduce(
      (a, i) => a + Number(i.fields["valid streams completed/s"]) * 0.4,
      0,
    );
    expect(Math.round(overTime)).toBe(validStreams.length);
    const curve = chart("Latency against throughput").items.filter((i) => /mark-symbol/.test(i.mark));
    expect(curve.map((i) => Number(i.fields.rate)).sort((a, b) => a - b)).toEqual(
      run.sweep.flatMap((p) => [p.rate, p.rate, p.rate, p.rate]).sort((a, b) => a - b),
    );
    // p50 and p95 differ in shape, so a p50 under its p95 still shows.
    expect(new Set(curve.map((i) => i.fields.percentile))).toEqual(new Set(["p50", "p95"]));
    const labels = chart("Latency against throughput").items.filter((i) => /mark-text/.test(i.mark));
    expect(labels.map((i) => i.fields.text)).toEqual(run.sweep.map(pointLabel));
  });

  it("an operation with few samples is drawn as dots, not a box", async () => {
    const few = [120, 180, 450].map((latencyMs, i) => ({
      scenario: "body-limits",
      op: "files.upload-size",
      at: i * 100,
      latencyMs,
      ok: true,
    }));
    const withFew = { ...run, samples: [...run.samples, ...few] };
    const svg = (await renderHtml(withFew))
      .match(/<svg[\s\S]*?<\/svg>/g)!
      .map(readChart)
      .find((c) => c.title.startsWith("Latency of the other operations"))!;
    const of = (op: string, mark: RegExp) => svg.items.filter((i) => mark.test(i.mark) && i.fields.op === op);
    expect(of("files.upload-size", /mark-symbol/).map((i) => Number(i.fields["latency (ms)"]))).toEqual([
      120, 180, 450,
    ]);
    expect(of("files.upload-size", /mark-rect/)).toEqual([]);
    // Twenty-four uploads make a box.
    expect(of("files.upload", /mark-rect/)).toHaveLength(1);
    expect(outside(svg)).toEqual([]);
  });

  it("with a baseline: both runs side by side, bar by bar, the intervals, and a regression turns the page's verdict", async () => {
    const worse = structuredClone(run);
    for (const s of worse.samples)
      if (s.scenario === "streaming" && s.ttftMs !== undefined) s.ttftMs = s.ttftMs * 3 + 5;
    worse.comparison = compareRuns(worse, run, 0.1);
    const page = await renderHtml(worse);
    expect(page).toMatch(
      /<h1>agentport load test: <span class="badge fail">FAIL<\/span> worse than the baseline<\/h1>/,
    );
    expect(page).toMatch(
      /<tr class="fail"><td>TTFT p50 \(ms\)<\/td>(<td>[^<]+<\/td>){3}<td>\[\+[\d.]+ %, \+[\d.]+ %\]<\/td>/,
    );
    expect(page).toMatch(/<tr class="pass"><td>TTFT p95 \(ms\)<\/td>.*too few samples/);
    const bars = page
      .match(/<svg[\s\S]*?<\/svg>/g)!
      .map(readChart)
      .find((c) => c.title === "This run against the baseline (streaming), with the change's interval")!;
    const ms = worse.comparison.rows.filter((r) => r.key.endsWith("_ms") && !r.key.startsWith("rate_"));
    expect(bars.items.filter((i) => /mark-rect/.test(i.mark))).toHaveLength(ms.length * 2);
    // One interval on each of this run's bars that has one (a p95 of 64 streams has none).
    const intervals = bars.items.filter((i) => /mark-rule/.test(i.mark));
    expect(intervals).toHaveLength(ms.filter((r) => r.interval).length);
    expect(intervals.length).toBeGreaterThan(0);
    expect(outside(bars)).toEqual([]);
    expect(bars.labels).toEqual(expect.arrayContaining(["baseline", "this run"]));
  });

  it("the geometry check sees a mark drawn past its axis", async () => {
    const svg = await renderSvg({
      width: 100,
      height: 50,
      data: { values: [{ x: 5 }, { x: 50 }] },
      mark: { type: "point", clip: false },
      encoding: { x: { field: "x", type: "quantitative", scale: { domain: [0, 10] } } },
    });
    expect(outside(readChart(svg)).map((i) => i.fields.x)).toEqual(["50"]);
  });
});
