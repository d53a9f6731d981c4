/**
 * Reads a Vega SVG back: the plot area (the root frame's background) and every mark item's
 * position within it, with its aria-label fields (Vega writes each datum's encoded values there).
 */
import { XMLParser } from "fast-xml-parser";
import { svgPathBbox } from "svg-path-bbox";

type Node = Record<string, unknown> & { ":@"?: Record<string, string> };

export interface MarkItem {
  /** The mark container's class, e.g. "mark-rect role-mark …". */
  mark: string;
  /** Extent in plot coordinates: [minX, minY, maxX, maxY]. */
  box: [number, number, number, number];
  fields: Record<string, string>;
}

export interface Chart {
  title: string;
  width: number;
  height: number;
  items: MarkItem[];
  /** Legend and axis label texts. */
  labels: string[];
}

const parser = new XMLParser({ preserveOrder: true, ignoreAttributes: false, attributeNamePrefix: "" });
const tagOf = (n: Node) => Object.keys(n).find((k) => k !== ":@")!;
const translate = (t = "") => {
  const m = /^translate\(([-\d.e]+),([-\d.e]+)\)/.exec(t);
  return m ? [Number(m[1]), Number(m[2])] : [0, 0];
};
const fieldsOf = (label = "") =>
  Object.fromEntries(label.split("; ").map((kv) => [kv.slice(0, kv.indexOf(": ")), kv.slice(kv.indexOf(": ") + 2)]));
const textOf = (n: Node) => ((n[tagOf(n)] as Node[]).find((c) => "#text" in c)?.["#text"] as string | undefined) ?? "";

function itemBox(n: Node, dx: number, dy: number): MarkItem["box"] {
  const a = n[":@"] ?? {};
  const [tx, ty] = translate(a.transform);
  const [x, y] = [dx + tx, dy + ty];
  // A point is where its centre is; its symbol may overhang the axis by its radius.
  if (a["aria-roledescription"] === "point" || !a.d) {
    const [x2, y2] = [x + Number(a.x2 ?? 0), y + Number(a.y2 ?? 0)];
    return [Math.min(x, x2), Math.min(y, y2), Math.max(x, x2), Math.max(y, y2)];
  }
  const [x0, y0, x1, y1] = svgPathBbox(a.d);
  return [x + x0, y + y0, x + x1, y + y1];
}

export function readChart(svg: string): Chart {
  const chart: Chart = { title: "", width: NaN, height: NaN, items: [], labels: [] };
  let origin = [0, 0];
  /** `cls`: the class of the nearest group that has one (marks, axes, legends, titles). */
  const walk = (nodes: Node[], dx: number, dy: number, cls: string, inFrame: boolean) => {
    for (const n of nodes) {
      const tag = tagOf(n);
      const a = n[":@"] ?? {};
      const children = (n[tag] as Node[] | undefined) ?? [];
      if (tag === "g" || tag === "svg") {
        const [tx, ty] = translate(a.transform);
        walk(children, dx + tx, dy + ty, a.class ?? cls, inFrame || /role-frame root/.test(a.class ?? ""));
      } else if (tag === "text") {
        if (/role-title-text/.test(cls)) chart.title ||= textOf(n);
        else if (/role-(legend|axis)-label/.test(cls)) chart.labels.push(textOf(n));
        // A text mark (a point's label): where it is anchored, and what it says.
        else if (/role-mark/.test(cls))
          chart.items.push({
            mark: cls,
            box: itemBox(n, dx - origin[0], dy - origin[1]),
            fields: { ...fieldsOf(a["aria-label"]), text: textOf(n) },
          });
      } else if (inFrame && Number.isNaN(chart.width) && a.class === "background") {
        const [x0, y0, x1, y1] = svgPathBbox(a.d);
        [chart.width, chart.height, origin] = [x1 - x0, y1 - y0, [dx, dy]];
      } else if (/role-mark/.test(cls) && tag !== "#text") {
        chart.items.push({
          mark: cls,
          box: itemBox(n, dx - origin[0], dy - origin[1]),
          fields: fieldsOf(a["aria-label"]),
        });
      }
    }
  };
  walk(parser.parse(svg) as Node[], 0, 0, "", false);
  return chart;
}

/** Items whose extent leaves the plot area (1 px of slack for half-pixel offsets). */
export function outside(chart: Chart): MarkItem[] {
  const e = 1;
  return chart.items.filter(
    ({ box: [x0, y0, x1, y1] }) => x0 < -e || y0 < -e || x1 > chart.width + e || y1 > chart.height + e,
  );
}
