/**
 * The run over time, the charts that show a run degrading midway: TTFT and end-to-end p50/p95 per
 * window, failed operations per window, operations in flight; each with a rule where a scenario or
 * a point of a load profile began, labelled.
 */
import type { TopLevelSpec } from "vega-lite";
import type { RunReport } from "../run-report.js";
import { boundaries, errorWindows, inFlight, latencyWindows, windowSeconds } from "./timeline.js";
import { SIZE, scenarioColor } from "./style.js";

const TIME = { type: "quantitative", title: "time since start (s)", axis: { tickCount: 8 } } as const;

/** The boundaries as rules with their labels along the top, inside the plot. */
function boundaryLayers(r: RunReport, domainEnd: number) {
  const rows = boundaries(r).filter((b) => b.t <= domainEnd);
  if (!rows.length) return [];
  return [
    {
      data: { values: rows },
      mark: { type: "rule", strokeDash: [3, 3], color: "#6b7280" },
      encoding: { x: { field: "t", ...TIME } },
    },
    {
      data: { values: rows },
      mark: { type: "text", align: "left", baseline: "top", dx: 2, dy: 2, angle: 0, fontSize: 9, color: "#374151" },
      encoding: {
        x: { field: "t", ...TIME },
        // Alternate rows so neighbouring labels do not overwrite each other.
        y: { value: 0 },
        yOffset: { field: "row", type: "quantitative", scale: null },
        text: { field: "label" },
      },
      transform: [
        { window: [{ op: "row_number", as: "n" }], sort: [{ field: "t" }] },
        { calculate: "((datum.n - 1) % 3) * 11", as: "row" },
      ],
    },
  ];
}

const end = (r: RunReport) => Math.max(r.durationMs / 1000, ...r.samples.map((s) => (s.at + s.latencyMs) / 1000));

/** TTFT and end-to-end p50/p95 of the streams started in each window (log scale: both fit). */
export function latencyOverTimeSpec(r: RunReport): TopLevelSpec | null {
  const step = windowSeconds(r.durationMs);
  const rows = latencyWindows(r.samples, step).map((w) => ({ ...w, t: (w.t0 + w.t1) / 2 }));
  if (!rows.length) return null;
  const domainEnd = end(r);
  return {
    ...SIZE,
    title: `Stream latency over time (p50, p95 per ${step} s)`,
    layer: [
      {
        data: { values: rows },
        mark: { type: "line", point: { size: 14, filled: true }, tooltip: false },
        encoding: {
          x: { field: "t", ...TIME, scale: { domain: [0, domainEnd] } },
          y: { field: "ms", type: "quantitative", title: "latency (ms, log scale)", scale: { type: "log" } },
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
          detail: { field: "percentile" },
        },
      },
      ...boundaryLayers(r, domainEnd),
    ],
  } as TopLevelSpec;
}

/** Failed operations per window, by scenario; a run without failures draws an empty frame saying so. */
export function errorsOverTimeSpec(r: RunReport): TopLevelSpec | null {
  if (!r.samples.length) return null;
  const step = windowSeconds(r.durationMs);
  const rows = errorWindows(r.samples, step);
  const domainEnd = end(r);
  return {
    ...SIZE,
    height: 120,
    title: `Failed operations over time (per ${step} s)${rows.length ? "" : ": none"}`,
    layer: [
      {
        data: { values: rows },
        mark: { type: "bar", tooltip: false },
        encoding: {
          x: { field: "t0", bin: "binned", ...TIME, scale: { domain: [0, domainEnd] } },
          x2: { field: "t1" },
          y: {
            field: "errors",
            type: "quantitative",
            stack: "zero",
            title: "failed operations",
            axis: { tickMinStep: 1 },
          },
          color: scenarioColor(r, [...new Set(rows.map((row) => row.scenario))]),
        },
      },
      ...boundaryLayers(r, domainEnd),
    ],
  } as TopLevelSpec;
}

/** Operations in flight (streams and requests), as a step line. */
export function concurrencySpec(r: RunReport): TopLevelSpec | null {
  if (!r.samples.length) return null;
  const rows = inFlight(r.samples);
  const domainEnd = end(r);
  return {
    ...SIZE,
    title: "Operations in flight over time",
    layer: [
      {
        data: { values: rows },
        mark: { type: "line", interpolate: "step-after", tooltip: false },
        encoding: {
          x: { field: "t", ...TIME, scale: { domain: [0, domainEnd] } },
          y: { field: "inFlight", type: "quantitative", title: "in flight", axis: { tickMinStep: 1 } },
        },
      },
      ...boundaryLayers(r, domainEnd),
    ],
  } as TopLevelSpec;
}
