/**
 * The run over time, the charts that show a run degrading midway: TTFT and end-to-end p50/p95 per
 * window, failed operations per window, operations in flight; each with a rule where a scenario or
 * a point of a load profile began, labelled.
 */
import type { TopLevelSpec } from "vega-lite";
import type { RunReport } from "../run-report.js";
import { boundaries, errorWindows, inFlight, latencyWindows, windowSeconds, type WindowRow } from "./timeline.js";
import { LINE_LEGEND, WIDE, scenarioColor } from "./style.js";

const TIME = { type: "quantitative", title: "time since start (s)", axis: { tickCount: 8 } } as const;

/** A label's width at 9 px, estimated (no fonts at render time): wide enough for system-ui's digits and letters. */
const labelWidth = (text: string) => text.length * 5.4 + 4;

/**
 * Each boundary's label in the first row (11 px apart, from the top) where it overlaps no other:
 * right of its rule, or left of it near the plot's right edge. Placed here because Vega-Lite has
 * no label collision for text marks, and clustered boundaries (a short scenario, a profile's
 * points) wrote over each other.
 */
export function placeLabels(rows: Array<{ t: number; label: string }>, domainEnd: number, width: number) {
  const ends: number[] = [];
  return rows.map((b) => {
    const x = (b.t / domainEnd) * width;
    const w = labelWidth(b.label);
    const left = x + 2 + w > width;
    const [from, to] = left ? [x - 2 - w, x] : [x, x + 2 + w];
    let row = ends.findIndex((e) => e + 3 <= from);
    if (row === -1) row = ends.length;
    ends[row] = to;
    return { ...b, row: row * 11, align: left ? "right" : "left" };
  });
}

/** The boundaries as rules with their labels along the top, inside the plot. */
function boundaryLayers(r: RunReport, domainEnd: number) {
  const rows = placeLabels(
    boundaries(r).filter((b) => b.t <= domainEnd),
    domainEnd,
    WIDE.width,
  );
  if (!rows.length) return [];
  const labels = (align: "left" | "right") => ({
    data: { values: rows.filter((row) => row.align === align) },
    mark: { type: "text", align, baseline: "top", dx: align === "left" ? 2 : -2, dy: 2, fontSize: 9, color: "#374151" },
    encoding: {
      x: { field: "t", ...TIME },
      y: { value: 0 },
      yOffset: { field: "row", type: "quantitative", scale: null },
      text: { field: "label" },
    },
  });
  return [
    {
      data: { values: rows },
      mark: { type: "rule", strokeDash: [3, 3], color: "#6b7280" },
      encoding: { x: { field: "t", ...TIME } },
    },
    ...(["left", "right"] as const).filter((a) => rows.some((row) => row.align === a)).map(labels),
  ];
}

const end = (r: RunReport) => Math.max(r.durationMs / 1000, ...r.samples.map((s) => (s.at + s.latencyMs) / 1000));

/**
 * A row without latency between two windows that are not adjacent (no stream started in between,
 * e.g. during the files scenario): the line breaks there instead of drawing a steady latency.
 */
function gaps(windows: readonly WindowRow[]) {
  const out = [];
  for (const [i, w] of windows.entries()) {
    const next = windows.slice(i + 1).find((n) => n.measure === w.measure && n.percentile === w.percentile);
    if (next && next.t0 > w.t1 + 1e-9)
      out.push({ measure: w.measure, percentile: w.percentile, t: (w.t1 + next.t0) / 2, ms: null });
  }
  return out;
}

/** TTFT and end-to-end p50/p95 of the streams started in each window (log scale: both fit). */
export function latencyOverTimeSpec(r: RunReport): TopLevelSpec | null {
  const step = windowSeconds(r.durationMs);
  const windows = latencyWindows(r.samples, step);
  if (!windows.length) return null;
  const rows = [...windows.map((w) => ({ ...w, t: (w.t0 + w.t1) / 2 })), ...gaps(windows)];
  const domainEnd = end(r);
  return {
    ...WIDE,
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
            legend: LINE_LEGEND,
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
    ...WIDE,
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
    ...WIDE,
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
