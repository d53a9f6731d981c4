/**
 * The load profile against the SLO, the chart for capacity planning: TTFT p95 at each point's rate,
 * the SLO's TTFT objective as a line, the knee and the highest rate that met every SLO marked.
 */
import type { TopLevelSpec } from "vega-lite";
import type { RunReport } from "../run-report.js";
import { SIZE } from "./style.js";
import { pointLabel } from "./timeline.js";

export function capacitySpec(r: RunReport): TopLevelSpec | null {
  const rows = r.sweep.flatMap((p) => {
    const ms = p.figures.ttft_p95_ms;
    return ms === null || ms <= 0
      ? []
      : [{ rate: p.rate, ms, label: pointLabel(p), slo: p.slo?.met ? "met" : "missed" }];
  });
  if (rows.length < 2 || !r.sweep.some((p) => p.slo)) return null;
  const x = {
    field: "rate",
    type: "quantitative",
    title: "requests/s (offered, or achieved when closed-loop)",
    // Room at both ends for a point's label ("synchronous 5.2/s"), centred on it.
    scale: { padding: 40 },
  } as const;
  const y = {
    field: "ms",
    type: "quantitative",
    title: "TTFT p95 (ms, log scale)",
    scale: { type: "log", padding: 24 },
  } as const;
  const rounded = (rate: number) => `${Math.round(rate * 10) / 10}/s`;
  const marks = [
    ...(r.capacity?.kneeRate != null
      ? [{ rate: r.capacity.kneeRate, what: `knee ${rounded(r.capacity.kneeRate)}` }]
      : []),
    ...(r.capacity?.maxSloRate != null
      ? [{ rate: r.capacity.maxSloRate, what: `within SLO up to ${rounded(r.capacity.maxSloRate)}` }]
      : []),
  ];
  // The markers' labels right of their rule, or left of it when the rule is in the right half.
  const right = marks.length > 0 && marks[0].rate > (Math.max(...rows.map((row) => row.rate)) * 2) / 3;
  const objective = r.budget.ttftP95Ms;
  const inRange =
    objective >= Math.min(...rows.map((row) => row.ms)) && objective <= Math.max(...rows.map((row) => row.ms)) * 2;
  return {
    ...SIZE,
    title: "Capacity: TTFT p95 against rate, with the SLO",
    layer: [
      {
        data: { values: [...rows].sort((a, b) => a.rate - b.rate) },
        mark: { type: "line", color: "#9ca3af", tooltip: false },
        encoding: { x, y, order: { field: "rate", type: "quantitative" } },
      },
      {
        data: { values: rows },
        mark: { type: "point", filled: true, size: 50, tooltip: false },
        encoding: {
          x,
          y,
          color: {
            field: "slo",
            type: "nominal",
            title: "SLO",
            scale: { domain: ["met", "missed"], range: ["#16a34a", "#dc2626"] },
          },
        },
      },
      // A sweep's top rate is its throughput rate: two points at one x. The second's label goes
      // under its point, not over the first's.
      ...[false, true].map((under) => ({
        data: { values: rows.filter((row, i) => (rows.findIndex((o) => o.rate === row.rate) !== i) === under) },
        mark: { type: "text", dy: under ? 13 : -9, fontSize: 9, color: "#374151" },
        encoding: { x, y, text: { field: "label" } },
      })),
      ...(marks.length
        ? [
            {
              data: { values: marks },
              mark: { type: "rule", strokeDash: [4, 3], color: "#2563eb" },
              encoding: { x: { field: "rate", type: "quantitative" } },
            },
            {
              data: { values: marks },
              mark: {
                type: "text",
                align: right ? "right" : "left",
                baseline: "bottom",
                dx: right ? -3 : 3,
                fontSize: 9,
                color: "#2563eb",
              },
              encoding: {
                x: { field: "rate", type: "quantitative" },
                y: { value: SIZE.height },
                yOffset: { field: "row", type: "quantitative", scale: null },
                text: { field: "what" },
              },
              transform: [{ window: [{ op: "row_number", as: "n" }] }, { calculate: "(1 - datum.n) * 11", as: "row" }],
            },
          ]
        : []),
      ...(inRange
        ? [
            {
              data: { values: [{ ms: objective, what: `SLO ${objective} ms` }] },
              mark: { type: "rule", color: "#dc2626", strokeDash: [2, 2] },
              encoding: { y: { field: "ms", type: "quantitative" } },
            },
            // The line says what it is, under its left end (the slow synchronous point is above it).
            {
              data: { values: [{ ms: objective, what: `SLO ${objective} ms` }] },
              mark: { type: "text", align: "left", baseline: "top", dx: 3, dy: 2, fontSize: 9, color: "#dc2626" },
              encoding: { x: { value: 0 }, y: { field: "ms", type: "quantitative" }, text: { field: "what" } },
            },
          ]
        : []),
    ],
  } as TopLevelSpec;
}
