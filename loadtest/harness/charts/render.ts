/**
 * Vega-Lite specs compiled to Vega and rendered to static SVG at report time (no canvas, no
 * browser): the report stays one self-contained HTML file without JavaScript.
 */
import { parse, View } from "vega";
import { compile, type TopLevelSpec } from "vega-lite";

/** One look for every chart; fonts as the page's. */
const CONFIG = {
  font: "system-ui, sans-serif",
  title: { fontSize: 13, anchor: "start", offset: 10 },
  axis: { labelFontSize: 10, titleFontSize: 11, titleFontWeight: "normal" },
  legend: { labelFontSize: 10, titleFontSize: 11, titleFontWeight: "normal" },
  view: { stroke: "#e5e7eb" },
} as const;

export async function renderSvg(spec: TopLevelSpec): Promise<string> {
  const { spec: vega } = compile({ ...spec, config: { ...CONFIG, ...spec.config } });
  const view = new View(parse(vega), { renderer: "none" });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}
