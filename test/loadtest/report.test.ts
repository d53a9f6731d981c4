/**
 * The text summary and the HTML report, the latter from a recorded run (`--local` with a rate
 * sweep): every chart's marks are read back from the SVG and must lie inside its plot area, the
 * histograms must hold every sample, and every scenario must appear.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { renderSvg } from "../../loadtest/harness/charts/render.js";
import { renderHtml } from "../../loadtest/harness/report-html.js";
import type { RunReport } from "../../loadtest/harness/runner.js";
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
    for (const id of scenarioIds) expect(text).toMatch(new RegExp(`^${id}\\s+PASS`, "m"));
    expect(text).toContain("ok   revocation: ");
    expect(text).toMatch(/harness ceiling: \d+ req\/s \(autocannon\)/);
    expect(text.trim()).toMatch(/PASS in \d+/);
  });

  it("shows requests and output tokens per second, and TTFT, end-to-end and inter-token p50/p90/p95/p99", () => {
    const f = run.scenarios.find((s) => s.id === "streaming")!.figures;
    expect(text).toContain(`streams (streaming): ${one(f.requests_per_s)} req/s · ${one(f.output_tokens_per_s)} output tokens/s`);
    expect(text).toMatch(/^METRIC\s+P50\s+P90\s+P95\s+P99$/m);
    for (const [label, prefix, unit] of [["TTFT (ms)", "ttft", "_ms"], ["end-to-end (ms)", "e2e", "_ms"], ["inter-token latency (ms)", "itl", "_ms"], ["output tokens/s per stream", "stream_tokens_per_s", ""]]) {
      const cells = ["p50", "p90", "p95", "p99"].map((p) => one(f[`${prefix}_${p}${unit}`]));
      expect(text).toMatch(new RegExp(`^${label.replace(/[()/]/g, "\\$&")}\\s+${cells.join("\\s+")}$`, "m"));
    }
  });

  it("shows one row per offered rate of the sweep", () => {
    expect(text).toMatch(/^OFFERED REQ\/S\s+ACHIEVED REQ\/S\s+OUTPUT TOK\/S/m);
    for (const p of run.sweep) expect(text).toMatch(new RegExp(`^${p.rate}\\s+${one(p.figures.requests_per_s)}\\s+.*${p.valid}/${p.requests}$`, "m"));
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
      "Time to first token (cumulative)",
      "End-to-end stream latency",
      "Inter-token latency (per token)",
      "Output tokens per second, per stream",
      "Latency against throughput (rate sweep)",
      "Throughput per scenario",
      "Throughput over time (0.1 s buckets)",
      "Latency of the other operations (min, quartiles, max)",
    ]);
    for (const c of charts) {
      expect(c.width, c.title).toBeGreaterThan(100);
      expect(c.items.length, c.title).toBeGreaterThan(0);
      expect(outside(c).map((i) => i.fields), c.title).toEqual([]);
    }
  });

  it("the histograms hold every sample: streams, tokens and gaps", () => {
    expect(validStreams.length).toBeGreaterThan(100);
    expect(sum(chart("End-to-end"), "streams")).toBe(validStreams.length);
    expect(sum(chart("Output tokens per second"), "streams")).toBe(validStreams.length);
    expect(sum(chart("Inter-token latency"), "tokens")).toBe(Object.values(run.interTokenMs).flat().length);
    const points = chart("Time to first token").items.filter((i) => /mark-symbol/.test(i.mark));
    expect(points.length).toBe(validStreams.length);
  });

  it("every scenario appears in the throughput charts, and every sweep rate in the curve", () => {
    expect(chart("Throughput per scenario").labels).toEqual(expect.arrayContaining(scenarioIds));
    expect(chart("Throughput per scenario").items.map((i) => i.fields.scenario)).toEqual(scenarioIds);
    expect(chart("Throughput over time").labels).toEqual(expect.arrayContaining(scenarioIds));
    expect(new Set(chart("Throughput over time").items.map((i) => i.fields.scenario))).toEqual(new Set(scenarioIds));
    const curve = chart("Latency against throughput").items.filter((i) => /mark-symbol/.test(i.mark));
    expect(curve.map((i) => Number(i.fields.rate)).sort((a, b) => a - b)).toEqual(run.sweep.flatMap((p) => [p.rate, p.rate, p.rate, p.rate]));
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
