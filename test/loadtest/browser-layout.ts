/**
 * What a browser laid out for each chart of the report: run inside the page by page.evaluate, so
 * it is one self-contained function over the DOM (typed here by the few calls it makes: the
 * project's types have no DOM library).
 */

export interface Rect {
  left: number;
  top: number;
  right: number;
  bottom: number;
  width: number;
  height: number;
}

export interface ChartLayout {
  title: string;
  titleRect: Rect;
  svg: Rect;
  /** The plot area: the root frame's background. */
  plot: Rect;
  /** Every mark item: kind from Vega's class (symbol, line, rect, rule, text), its text, its aria-label. */
  marks: Array<{ kind: string; rect: Rect; text?: string; label: string; d: string }>;
  /** Every visible text: titles, axis and legend labels, text marks. */
  texts: Array<{ text: string; rect: Rect }>;
  axisTitles: Array<{ text: string; rect: Rect }>;
  legends: Rect[];
  /** Each legend symbol's paint: a symbol with neither a fill nor a stroke shows nothing. */
  legendSymbols: Array<{ fill: string; stroke: string; rect: Rect }>;
  /** The x axis's ticks with the values their labels read. */
  xTicks: Array<{ x: number; value: number }>;
}

interface El {
  getBoundingClientRect(): Rect;
  querySelector(selector: string): El | null;
  querySelectorAll(selector: string): ArrayLike<El>;
  getAttribute(name: string): string | null;
  closest(selector: string): El | null;
  textContent: string | null;
  tagName: string;
}

export function layoutOf(): ChartLayout[] {
  const doc = (globalThis as unknown as { document: El }).document;
  const all = (root: El, selector: string) => Array.from(root.querySelectorAll(selector));
  const box = (e: El): Rect => {
    const r = e.getBoundingClientRect();
    return { left: r.left, top: r.top, right: r.right, bottom: r.bottom, width: r.width, height: r.height };
  };
  // Vega hides an axis label that would overlap its neighbour by making it transparent.
  const visible = (e: El) => e.closest("[opacity='0']") === null && (e.textContent ?? "").trim() !== "";
  return all(doc, "figure > svg").map((svg) => {
    const title = svg.querySelector(".role-title-text text");
    const frame = svg.querySelector(".role-frame.root path.background")!;
    const marks = all(svg, "g.role-mark > :not(g)").map((e) => {
      const cls = e.closest("g.role-mark")!.getAttribute("class") ?? "";
      const kind = /mark-(\w+)/.exec(cls)?.[1] ?? "";
      return {
        kind,
        rect: box(e),
        text: kind === "text" ? (e.textContent ?? "") : undefined,
        label: e.getAttribute("aria-label") ?? "",
        d: e.getAttribute("d") ?? "",
      };
    });
    const xAxis = all(svg, "g.role-axis").find((a) => (a.getAttribute("aria-label") ?? "").startsWith("X-axis"));
    const ticks = xAxis ? all(xAxis, ".role-axis-tick line") : [];
    const tickLabels = xAxis ? all(xAxis, ".role-axis-label text") : [];
    return {
      title: title?.textContent ?? "",
      titleRect: title ? box(title) : box(svg),
      svg: box(svg),
      plot: box(frame),
      marks,
      texts: all(svg, "text")
        .filter(visible)
        .map((e) => ({ text: e.textContent ?? "", rect: box(e) })),
      axisTitles: all(svg, ".role-axis-title text").map((e) => ({ text: e.textContent ?? "", rect: box(e) })),
      legends: all(svg, "g.role-legend").map(box),
      legendSymbols: all(svg, ".role-legend-symbol path").map((e) => ({
        fill: e.getAttribute("fill") ?? "none",
        stroke: e.getAttribute("stroke") ?? "none",
        rect: box(e),
      })),
      xTicks: ticks.flatMap((t, i) => {
        const value = Number((tickLabels[i]?.textContent ?? "").replace(/,/g, ""));
        return Number.isFinite(value) && tickLabels[i]?.textContent ? [{ x: box(t).left, value }] : [];
      }),
    };
  });
}
