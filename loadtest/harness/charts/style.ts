/** What every chart shares: its size and one colour per scenario. */
import type { RunReport } from "../run-report.js";

export const SIZE = { width: 340, height: 200 };
/** The charts over time: a run's scenarios and points side by side need the page's width. */
export const WIDE = { width: 760, height: 200 };

/**
 * A dash legend drawn as strokes: the default (the line's point symbol) shows p50 and p95 alike.
 * The stroke colour is set on the symbols themselves: Vega-Lite leaves a legend of a channel other
 * than colour without one, and `symbolStrokeColor` did not reach the SVG.
 */
export const LINE_LEGEND = {
  symbolType: "stroke",
  symbolStrokeWidth: 2,
  symbolSize: 300,
  encode: { symbols: { update: { stroke: { value: "#374151" } } } },
} as const;

/** Vega's "tableau10" scheme, by index: each scenario keeps its colour when others are not drawn. */
const TABLEAU10 = [
  "#4c78a8",
  "#f58518",
  "#e45756",
  "#72b7b2",
  "#54a24b",
  "#eeca3b",
  "#b279a2",
  "#ff9da6",
  "#9d755d",
  "#bab0ac",
];

/**
 * The same colour for a scenario in every chart; the legend lists the scenarios drawn. The domain
 * is only those: a legend restricted by `values` still laid out room for every scenario, an
 * empty band as tall as the missing entries.
 */
export function scenarioColor(r: RunReport, shown: readonly string[]) {
  const ids = r.scenarios.map((s) => s.id);
  const drawn = ids.filter((id) => shown.includes(id));
  return {
    field: "scenario",
    type: "nominal",
    title: "scenario",
    scale: { domain: drawn, range: drawn.map((id) => TABLEAU10[ids.indexOf(id) % TABLEAU10.length]) },
  } as const;
}
