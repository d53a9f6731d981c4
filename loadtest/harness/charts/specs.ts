/**
 * The report's charts as Vega-Lite specs: scales, axes and bins come from the data, every axis
 * titled with its unit, one colour per scenario across all charts. A chart without data is left
 * out rather than drawn empty.
 */
import type { TopLevelSpec } from "vega-lite";
import type { RunReport } from "../runner.js";

const SIZE = { width: 340, height: 200 };
const STREAM_OP = "chat.stream";

/** The same colour for a scenario in every chart; the legend lists the scenarios drawn. */
function scenarioColor(r: RunReport, shown: readonly string[]) {
  return {
    field: "scenario",
    type: "nominal",
    title: "scenario",
    scale: { domain: r.scenarios.map((s) => s.id), scheme: "tableau10" },
    legend: { values: shown },
  } as const;
}

const present = (rows: Array<{ scenario: string }>) => [...new Set(rows.map((row) => row.scenario))];

function histogram(r: RunReport, title: string, rows: Array<{ scenario: string; value: number }>, axis: string, count: string): TopLevelSpec | null {
  if (!rows.length) return null;
  return {
    ...SIZE,
    title,
    data: { values: rows },
    mark: { type: "bar", tooltip: false },
    encoding: {
      x: { field: "value", type: "quantitative", bin: { maxbins: 30 }, title: axis },
      y: { aggregate: "count", type: "quantitative", title: count },
      color: scenarioColor(r, present(rows)),
    },
  };
}

function streams(r: RunReport) {
  return r.samples.filter((s) => s.op === STREAM_OP && s.ok);
}

/** Share of streams whose first token came within x ms, per scenario. */
export function ttftSpec(r: RunReport): TopLevelSpec | null {
  const rows = streams(r).flatMap((s) => (s.ttftMs === undefined ? [] : [{ scenario: s.scenario, ttft: s.ttftMs }]));
  if (!rows.length) return null;
  return {
    ...SIZE,
    title: "Time to first token (cumulative)",
    data: { values: rows },
    transform: [{ window: [{ op: "cume_dist", as: "share" }], sort: [{ field: "ttft" }], groupby: ["scenario"] }],
    mark: { type: "line", interpolate: "step-after", point: { size: 12 } },
    encoding: {
      x: { field: "ttft", type: "quantitative", title: "time to first token (ms)" },
      y: { field: "share", type: "quantitative", title: "share of streams", axis: { format: "%" }, scale: { domain: [0, 1] } },
      color: scenarioColor(r, present(rows)),
    },
  };
}

export const e2eSpec = (r: RunReport) =>
  histogram(r, "End-to-end stream latency", streams(r).map((s) => ({ scenario: s.scenario, value: s.latencyMs })), "end-to-end latency (ms)", "streams");

export const itlSpec = (r: RunReport) =>
  histogram(r, "Inter-token latency (per token)", Object.entries(r.interTokenMs).flatMap(([scenario, v]) => v.map((value) => ({ scenario, value }))), "gap before a token (ms)", "tokens");

export const streamTpsSpec = (r: RunReport) =>
  histogram(
    r,
    "Output tokens per second, per stream",
    streams(r).flatMap((s) => (s.outputTokens === undefined || s.latencyMs <= 0 ? [] : [{ scenario: s.scenario, value: s.outputTokens / (s.latencyMs / 1000) }])),
    "output tokens/s (stream tokens ÷ end-to-end time)",
    "streams",
  );

/** Completed operations per second of each scenario's own run time; every scenario has a bar. */
export function scenarioThroughputSpec(r: RunReport): TopLevelSpec {
  const rows = r.scenarios.map((s) => {
    const done = r.samples.filter((x) => x.scenario === s.id).length;
    return { scenario: s.id, rate: s.durationMs > 0 ? done / (s.durationMs / 1000) : 0, done };
  });
  return {
    ...SIZE,
    height: 24 * rows.length,
    title: "Throughput per scenario",
    data: { values: rows },
    mark: { type: "bar", tooltip: false },
    encoding: {
      y: { field: "scenario", type: "nominal", title: null, sort: null },
      x: { field: "rate", type: "quantitative", title: "completed requests per second (over the scenario's run time)" },
      color: { ...scenarioColor(r, rows.map((row) => row.scenario)), legend: null },
    },
  };
}

/** Completions per second over the run, stacked by scenario. */
export function throughputOverTimeSpec(r: RunReport): TopLevelSpec | null {
  if (!r.samples.length) return null;
  const step = Math.max(0.1, Math.ceil(r.durationMs / 60 / 100) / 10);
  const rows = r.samples.map((s) => ({ scenario: s.scenario, end: (s.at + s.latencyMs) / 1000 }));
  return {
    ...SIZE,
    title: `Throughput over time (${step} s buckets)`,
    data: { values: rows },
    transform: [
      { bin: { step }, field: "end", as: ["t0", "t1"] },
      { aggregate: [{ op: "count", as: "n" }], groupby: ["t0", "t1", "scenario"] },
      { calculate: `datum.n / ${step}`, as: "rate" },
    ],
    mark: { type: "bar", tooltip: false },
    encoding: {
      // Already binned: vertical bars from t0 to t1; ticks chosen as for any axis.
      x: { field: "t0", bin: "binned", type: "quantitative", title: "time since start (s)", axis: { tickCount: 8 } },
      x2: { field: "t1" },
      y: { field: "rate", type: "quantitative", stack: "zero", title: "completions/s" },
      color: scenarioColor(r, present(rows)),
    },
  };
}

/**
 * Latency of every non-streaming operation: the spread from min to max, per operation. The idle
 * test's silent streams last as long as they were told to be silent: not a latency.
 */
export function operationsSpec(r: RunReport): TopLevelSpec | null {
  const rows = r.samples.filter((s) => s.op !== STREAM_OP && s.op !== "chat.silent").map((s) => ({ op: s.op, latency: s.latencyMs }));
  if (!rows.length) return null;
  const ops = [...new Set(rows.map((row) => row.op))];
  return {
    ...SIZE,
    height: 24 * ops.length,
    title: "Latency of the other operations (min, quartiles, max)",
    data: { values: rows },
    mark: { type: "boxplot", extent: "min-max" },
    encoding: {
      y: { field: "op", type: "nominal", title: null, sort: ops },
      x: { field: "latency", type: "quantitative", title: "latency (ms)" },
    },
  };
}

/** One point per offered rate: what was achieved against how long it took. */
export function sweepSpec(r: RunReport): TopLevelSpec | null {
  if (!r.sweep.length) return null;
  const metrics = [["TTFT p50", "ttft_p50_ms"], ["TTFT p95", "ttft_p95_ms"], ["end-to-end p50", "e2e_p50_ms"], ["end-to-end p95", "e2e_p95_ms"]] as const;
  const rows = r.sweep.flatMap((p) =>
    metrics.flatMap(([metric, key]) => {
      const [x, y] = [p.figures.output_tokens_per_s, p.figures[key]];
      // A log scale has no 0: a latency rounded to 0 ms has nothing to plot.
      return x === null || y === null || y <= 0 ? [] : [{ rate: p.rate, throughput: x, metric, latency: y }];
    }),
  );
  if (!rows.length) return null;
  return {
    ...SIZE,
    title: "Latency against throughput (rate sweep)",
    data: { values: rows },
    mark: { type: "line", point: true, tooltip: false },
    encoding: {
      x: { field: "throughput", type: "quantitative", title: "achieved output tokens/s", scale: { zero: false } },
      // TTFT and end-to-end differ by orders of magnitude: a log scale shows both.
      y: { field: "latency", type: "quantitative", title: "latency (ms, log scale)", scale: { type: "log" } },
      color: { field: "metric", type: "nominal", title: "latency", sort: metrics.map(([m]) => m) },
      order: { field: "rate", type: "quantitative" },
    },
  };
}

export const CHARTS = [ttftSpec, e2eSpec, itlSpec, streamTpsSpec, sweepSpec, scenarioThroughputSpec, throughputOverTimeSpec, operationsSpec];
