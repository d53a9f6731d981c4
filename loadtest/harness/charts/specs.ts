/**
 * The report's charts as Vega-Lite specs: scales, axes and bins come from the data, every axis
 * titled with its unit, one colour per scenario across all charts. A chart without data is left
 * out rather than drawn empty.
 */
import type { TopLevelSpec } from "vega-lite";
import type { RunReport } from "../run-report.js";
import { itlTailSpec } from "./itl-tail.js";
import { capacitySpec } from "./capacity.js";
import { concurrencySpec, errorsOverTimeSpec, latencyOverTimeSpec } from "./over-time.js";
import { pointLabel } from "./timeline.js";
import { SIZE, scenarioColor } from "./style.js";

const STREAM_OP = "chat.stream";

const present = (rows: Array<{ scenario: string }>) => [...new Set(rows.map((row) => row.scenario))];

function histogram(
  r: RunReport,
  title: string,
  rows: Array<{ scenario: string; value: number }>,
  axis: string,
  count: string,
): TopLevelSpec | null {
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
      y: {
        field: "share",
        type: "quantitative",
        title: "share of streams",
        axis: { format: "%" },
        scale: { domain: [0, 1] },
      },
      color: scenarioColor(r, present(rows)),
    },
  };
}

export const e2eSpec = (r: RunReport) =>
  histogram(
    r,
    "End-to-end stream latency",
    streams(r).map((s) => ({ scenario: s.scenario, value: s.latencyMs })),
    "end-to-end latency (ms)",
    "streams",
  );

export const streamTpsSpec = (r: RunReport) =>
  histogram(
    r,
    "Output tokens per second, per stream",
    streams(r).flatMap((s) =>
      s.outputTokens === undefined || s.latencyMs <= 0
        ? []
        : [{ scenario: s.scenario, value: s.outputTokens / (s.latencyMs / 1000) }],
    ),
    "output tokens/s (stream tokens ÷ end-to-end time)",
    "streams",
  );

/** Valid streams completed per second over the run, stacked by scenario. */
export function throughputOverTimeSpec(r: RunReport): TopLevelSpec | null {
  if (!streams(r).length) return null;
  const step = Math.max(0.1, Math.ceil(r.durationMs / 60 / 100) / 10);
  const rows = streams(r).map((s) => ({ scenario: s.scenario, end: (s.at + s.latencyMs) / 1000 }));
  return {
    ...SIZE,
    title: `Streams completed over time (${step} s buckets)`,
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
      y: { field: "rate", type: "quantitative", stack: "zero", title: "valid streams completed/s" },
      color: scenarioColor(r, present(rows)),
    },
  };
}

/** Fewer samples than this make no box: quartiles of 2–4 values say nothing. */
export const MIN_BOX_SAMPLES = 8;

/**
 * Latency of every non-streaming operation: a box (min, quartiles, max) where there are enough
 * samples, each sample as a dot where there are not. The idle test's silent streams last as long
 * as they were told to be silent: not a latency.
 */
export function operationsSpec(r: RunReport): TopLevelSpec | null {
  const rows = r.samples
    .filter((s) => s.op !== STREAM_OP && s.op !== "chat.silent")
    .map((s) => ({ op: s.op, latency: s.latencyMs }));
  if (!rows.length) return null;
  const ops = [...new Set(rows.map((row) => row.op))];
  const counts = new Map(ops.map((op) => [op, rows.filter((row) => row.op === op).length]));
  const y = { field: "op", type: "nominal", title: null, sort: ops } as const;
  const x = { field: "latency", type: "quantitative", title: "latency (ms)" } as const;
  const box = rows.filter((row) => counts.get(row.op)! >= MIN_BOX_SAMPLES);
  const dots = rows.filter((row) => counts.get(row.op)! < MIN_BOX_SAMPLES);
  return {
    ...SIZE,
    height: 24 * ops.length,
    title: `Latency of the other operations (box: min, quartiles, max; dots: under ${MIN_BOX_SAMPLES} samples)`,
    layer: [
      ...(box.length
        ? [{ data: { values: box }, mark: { type: "boxplot", extent: "min-max" }, encoding: { y, x } } as const]
        : []),
      ...(dots.length
        ? [
            {
              data: { values: dots },
              mark: { type: "point", filled: true, size: 30, tooltip: false },
              encoding: { y, x },
            } as const,
          ]
        : []),
    ],
  };
}

/** One point per point of the profile: what was achieved against how long it took, each labelled with its rate. */
export function sweepSpec(r: RunReport): TopLevelSpec | null {
  if (!r.sweep.length) return null;
  const metrics = [
    ["TTFT", "p50", "ttft_p50_ms"],
    ["TTFT", "p95", "ttft_p95_ms"],
    ["end-to-end", "p50", "e2e_p50_ms"],
    ["end-to-end", "p95", "e2e_p95_ms"],
  ] as const;
  const rows = r.sweep.flatMap((p) =>
    metrics.flatMap(([measure, percentile, key]) => {
      const [x, y] = [p.figures.output_tokens_per_s, p.figures[key]];
      // A log scale has no 0: a latency rounded to 0 ms has nothing to plot.
      return x === null || y === null || y <= 0
        ? []
        : [{ rate: p.rate, label: pointLabel(p), throughput: x, measure, percentile, latency: y }];
    }),
  );
  if (!rows.length) return null;
  const x = {
    field: "throughput",
    type: "quantitative",
    title: "achieved output tokens/s",
    // Room at both ends for a point's label ("throughput 40/s"), centred on it.
    scale: { zero: false, padding: 40 },
  } as const;
  // TTFT and end-to-end differ by orders of magnitude: a log scale shows both.
  const y = {
    field: "latency",
    type: "quantitative",
    title: "latency (ms, log scale)",
    scale: { type: "log", padding: 24 },
  } as const;
  return {
    ...SIZE,
    title: "Latency against throughput (load profile)",
    layer: [
      {
        data: { values: rows },
        mark: { type: "line", point: { size: 50, filled: true }, tooltip: false },
        encoding: {
          x,
          y,
          // p50 and p95 often lie close: colour tells the measure, dash and point shape the percentile,
          // so a p50 line under its p95 still shows.
          color: { field: "measure", type: "nominal", title: "latency", sort: ["TTFT", "end-to-end"] },
          strokeDash: {
            field: "percentile",
            type: "nominal",
            title: "percentile",
            sort: ["p50", "p95"],
            scale: {
              range: [
                [1, 0],
                [5, 3],
              ],
            },
          },
          shape: {
            field: "percentile",
            type: "nominal",
            title: "percentile",
            sort: ["p50", "p95"],
            scale: { range: ["circle", "triangle-up"] },
          },
          order: { field: "rate", type: "quantitative" },
        },
      },
      // Each point's rate, once, above the end-to-end p95 (the highest line).
      {
        data: { values: rows.filter((row) => row.measure === "end-to-end" && row.percentile === "p95") },
        mark: { type: "text", dy: -9, fontSize: 9, color: "#374151" },
        encoding: { x, y, text: { field: "label" } },
      },
    ],
  };
}

/**
 * This run next to the baseline: the streaming scenario's latency percentiles, bar by bar, with the
 * gate's interval drawn on this run's bar — the baseline's value moved by the interval's bounds, the
 * range this run's value could take given both runs' noise. A bar whose interval lies wholly past the
 * tolerance is the gate's WORSE.
 */
export function baselineSpec(r: RunReport): TopLevelSpec | null {
  // The streaming scenario's rows; the sweep's are in the table.
  const judged = (r.comparison?.rows ?? []).filter(
    (row) => row.key.endsWith("_ms") && !row.key.startsWith("rate_") && row.baseline !== null && row.current !== null,
  );
  if (!judged.length) return null;
  const rows = judged.flatMap((row) => {
    const i = row.interval?.scale === "relative" ? row.interval : null;
    return [
      { metric: row.label, run: "baseline", ms: row.baseline },
      {
        metric: row.label,
        run: "this run",
        ms: row.current,
        ...(i ? { low: row.baseline! * (1 + i.low), high: row.baseline! * (1 + i.high) } : {}),
      },
    ];
  });
  const metrics = judged.map((row) => row.label);
  const y = { field: "metric", type: "nominal", title: null, sort: metrics } as const;
  const yOffset = { field: "run", type: "nominal", sort: ["baseline", "this run"] } as const;
  return {
    width: SIZE.width,
    height: 30 * metrics.length,
    title: "This run against the baseline (streaming), with the change's interval",
    data: { values: rows },
    layer: [
      {
        mark: { type: "bar", tooltip: false },
        encoding: {
          y,
          yOffset,
          x: { field: "ms", type: "quantitative", title: "latency (ms)" },
          color: {
            field: "run",
            type: "nominal",
            title: "run",
            sort: ["baseline", "this run"],
            scale: { range: ["#9ca3af", "#2563eb"] },
          },
        },
      },
      {
        transform: [{ filter: "isValid(datum.low)" }],
        mark: { type: "rule", color: "#111827", strokeWidth: 1.5 },
        encoding: { y, yOffset, x: { field: "low", type: "quantitative" }, x2: { field: "high" } },
      },
    ],
  };
}

export const CHARTS = [
  baselineSpec,
  latencyOverTimeSpec,
  errorsOverTimeSpec,
  concurrencySpec,
  ttftSpec,
  e2eSpec,
  itlTailSpec,
  streamTpsSpec,
  capacitySpec,
  sweepSpec,
  throughputOverTimeSpec,
  operationsSpec,
];
