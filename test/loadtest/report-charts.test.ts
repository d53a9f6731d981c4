/**
 * The charts an SRE reads a run by: latency and failures per time window with the scenario and
 * point boundaries marked, operations in flight, the inter-token tail, and a sweep's capacity
 * (the SLO line, the knee, the highest rate within the SLO) — each read back from its SVG.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  errorWindows,
  inFlight,
  latencyWindows,
  pointLabel,
  windowSeconds,
} from "../../loadtest/harness/charts/timeline.js";
import { supported } from "../../loadtest/harness/charts/itl-tail.js";
import { renderHtml } from "../../loadtest/harness/report-html.js";
import type { Sample } from "../../loadtest/harness/recorder.js";
import type { RunReport } from "../../loadtest/harness/run-report.js";
import { outside, readChart } from "./svg-geometry.js";

const run = JSON.parse(readFileSync(join(import.meta.dirname, "fixtures/recorded-run.json"), "utf8")) as RunReport;

const chartsOf = async (r: RunReport) => ((await renderHtml(r)).match(/<svg[\s\S]*?<\/svg>/g) ?? []).map(readChart);
// The recorded run ends in a short `--profile sweep`: points of every kind, SLO verdicts, a knee.
const charts = await chartsOf(run);
const chart = (title: string) => charts.find((c) => c.title.startsWith(title))!;
const marks = (title: string, kind: string) => chart(title).items.filter((i) => i.mark.includes(`mark-${kind}`));

const sample = (at: number, latencyMs: number, ok = true, ttftMs?: number): Sample => ({
  scenario: "streaming",
  op: "chat.stream",
  at,
  latencyMs,
  ok,
  ttftMs,
});

describe("time series", () => {
  it("windows of about a fortieth of the run, in round lengths", () => {
    expect([windowSeconds(4000), windowSeconds(20_000), windowSeconds(600_000), windowSeconds(7_200_000)]).toEqual([
      0.1, 0.5, 15, 180,
    ]);
  });

  it("p50 and p95 per window of the valid streams started in it; failures per window", () => {
    const samples = [
      sample(0, 100, true, 10),
      sample(500, 300, true, 30),
      sample(1200, 50, true, 90),
      sample(1300, 9, false),
    ];
    const rows = latencyWindows(samples, 1);
    expect(rows.filter((r) => r.measure === "TTFT").map((r) => [r.t0, r.percentile, r.ms, r.count])).toEqual([
      [0, "p50", 10, 2],
      [0, "p95", 30, 2],
      [1, "p50", 90, 1],
      [1, "p95", 90, 1],
    ]);
    expect(errorWindows(samples, 1)).toEqual([{ t0: 1, t1: 2, scenario: "streaming", errors: 1 }]);
  });

  it("operations in flight: up at each start, down at each end, a freed slot taken at once not counted twice", () => {
    const steps = inFlight([sample(0, 100), sample(50, 50), sample(100, 100)]);
    expect(steps.map((s) => s.inFlight)).toEqual([0, 1, 2, 1, 0, 1, 0]);
    expect(Math.max(...steps.map((s) => s.inFlight))).toBe(2);
  });
});

describe("the charts of a sweep run", () => {
  it("every new chart is drawn with every mark inside its plot area", () => {
    for (const title of [
      "Stream latency over time",
      "Failed operations over time",
      "Operations in flight",
      "Inter-token latency by percentile",
      "Capacity",
    ]) {
      const c = chart(title);
      expect(c, title).toBeDefined();
      expect(c.items.length, title).toBeGreaterThan(0);
      expect(
        outside(c).map((i) => i.fields),
        title,
      ).toEqual([]);
    }
    expect(charts.map((c) => c.title)).not.toContain("Stream throughput per scenario");
  });

  it("latency over time: a line per measure and percentile, rules where each scenario and each rate began, labelled", () => {
    const lines = marks("Stream latency over time", "symbol");
    expect(new Set(lines.map((i) => `${i.fields.latency} ${i.fields.percentile}`))).toEqual(
      new Set(["TTFT p50", "TTFT p95", "end-to-end p50", "end-to-end p95"]),
    );
    const labels = marks("Stream latency over time", "text").map((i) => i.fields.text);
    expect(labels).toEqual(expect.arrayContaining([...run.scenarios.map((s) => s.id), ...run.sweep.map(pointLabel)]));
    const rules = marks("Stream latency over time", "rule");
    expect(rules).toHaveLength(labels.length);
    // A rule spans the plot's height at its instant.
    for (const r of rules) expect(r.box[3] - r.box[1]).toBe(chart("Stream latency over time").height);
  });

  it("failures per window add up to the run's failed operations; in flight peaks at the run's concurrency", () => {
    const bars = marks("Failed operations over time", "rect");
    expect(bars.reduce((a, i) => a + Number(i.fields["failed operations"]), 0)).toBe(
      run.samples.filter((s) => !s.ok).length,
    );
    // The step line reaches the run's peak: its top lies in the upper quarter of the plot.
    const peak = Math.max(...inFlight(run.samples).map((s) => s.inFlight));
    expect(peak).toBeGreaterThanOrEqual(run.budget.concurrency);
    const line = marks("Operations in flight", "line")[0];
    expect(line.box[1]).toBeLessThan(chart("Operations in flight").height / 4);
  });

  it("the inter-token tail: each scenario's gaps up to the percentile its sample supports, on a nines axis", () => {
    const points = marks("Inter-token latency by percentile", "symbol");
    for (const [scenario, gaps] of Object.entries(run.interTokenMs)) {
      const nines = points
        .filter((i) => i.fields.scenario === scenario)
        .map((i) => Number(i.fields["percentile of gaps between tokens"]));
      expect(nines.map((n) => Math.round(n * 100) / 100)).toEqual(
        supported(gaps.length).map((p) => Math.round(-Math.log10(1 - p / 100) * 100) / 100),
      );
      // Gaps from 2,000 tokens: the tail out to p99.9 is drawn, not lumped into a first bin.
      expect(nines.at(-1)).toBeGreaterThanOrEqual(3 - 1e-9);
    }
    expect(chart("Inter-token latency by percentile").labels).toEqual(
      expect.arrayContaining(["p50", "p90", "p99", "p99.9"]),
    );
  });

  it("capacity: each point labelled with its rate and coloured by the SLO, the knee and the SLO line marked", () => {
    const points = marks("Capacity", "symbol");
    expect(points.map((i) => [i.fields["requests/s (offered, or achieved when closed-loop)"], i.fields.SLO])).toEqual(
      run.sweep.map((p) => [String(p.rate), p.slo!.met ? "met" : "missed"]),
    );
    const rounded = (rate: number) => `${Math.round(rate * 10) / 10}/s`;
    expect(marks("Capacity", "text").map((i) => i.fields.text)).toEqual(
      expect.arrayContaining([
        ...run.sweep.map(pointLabel),
        `knee ${rounded(run.capacity!.kneeRate!)}`,
        `within SLO up to ${rounded(run.capacity!.maxSloRate!)}`,
        `SLO ${run.budget.ttftP95Ms} ms`,
      ]),
    );
    // The knee's rule and the SLO's: one vertical, one horizontal.
    const rules = marks("Capacity", "rule");
    expect(rules.some((r) => r.box[0] === r.box[2])).toBe(true);
    expect(rules.some((r) => r.box[1] === r.box[3])).toBe(true);
  });
});
