/**
 * The HTML report as a reader sees it: a recorded profile run's report (every chart, a baseline
 * comparison included) opened in headless chromium, each chart's layout read back with
 * getBoundingClientRect. The SVG geometry test reads Vega's coordinates; this one reads what the
 * browser laid out, text widths included, which no coordinate in the SVG tells. Screenshots of the
 * page and of each chart go to .tmp/report-browser/.
 */
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compareRuns } from "../../loadtest/harness/baseline.js";
import { boundaries, pointLabel } from "../../loadtest/harness/charts/timeline.js";
import { renderHtml } from "../../loadtest/harness/report-html.js";
import type { RunReport } from "../../loadtest/harness/run-report.js";
import { findChromium } from "../setup/chromium.js";
import { layoutOf, type ChartLayout, type Rect } from "./browser-layout.js";

const run = JSON.parse(readFileSync(join(import.meta.dirname, "fixtures/recorded-run.json"), "utf8")) as RunReport;
const SHOTS = join(import.meta.dirname, "../../.tmp/report-browser");
const VIEWPORT = { width: 1280, height: 900 };

let browser: Browser;
let page: Page;
let charts: ChartLayout[];
let pageWidth: number;
// The recorded run against a copy 20 % slower: intervals away from zero, so their place is tested.
const slower = structuredClone(run);
for (const s of slower.samples) if (s.scenario === "streaming") s.latencyMs *= 1.2;
const comparison = compareRuns(run, slower, 0.1);

beforeAll(async () => {
  const report = structuredClone(run);
  report.comparison = comparison;
  browser = await chromium.launch({ executablePath: findChromium() });
  page = await browser.newPage({ viewport: VIEWPORT });
  await page.setContent(await renderHtml(report));
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, "report.png"), fullPage: true });
  const figures = await page.$$("figure");
  for (const [i, f] of figures.entries()) await f.screenshot({ path: join(SHOTS, `chart-${i}.png`) });
  charts = await page.evaluate(layoutOf);
  pageWidth = await page.evaluate(() => document.documentElement.clientWidth);
}, 180_000);

afterAll(async () => {
  await browser?.close();
});

const chart = (title: string) => charts.find((c) => c.title.startsWith(title))!;
const inside = (r: Rect, box: Rect, slack = 1) =>
  r.left >= box.left - slack &&
  r.top >= box.top - slack &&
  r.right <= box.right + slack &&
  r.bottom <= box.bottom + slack;
const overlap = (a: Rect, b: Rect) =>
  Math.min(a.right, b.right) - Math.max(a.left, b.left) > 1 &&
  Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 1;

/** The x axis's scale as laid out: from its first and last ticks and their labels. */
function xScale(c: ChartLayout): (v: number) => number {
  const ticks = c.xTicks;
  const [a, b] = [ticks[0], ticks.at(-1)!];
  return (v) => a.x + ((v - a.value) / (b.value - a.value)) * (b.x - a.x);
}

describe("the report in a browser", () => {
  it("draws every chart, each laid out inside the page width", () => {
    expect(charts.map((c) => c.title)).toEqual(
      expect.arrayContaining([
        "This run against the baseline (streaming), with the change's interval",
        expect.stringMatching(/^Stream latency over time/),
        expect.stringMatching(/^Failed operations over time/),
        "Operations in flight over time",
        "Inter-token latency by percentile (the tail)",
        "Capacity: TTFT p95 against rate, with the SLO",
        "Latency against throughput (load profile)",
      ]),
    );
    for (const c of charts) {
      expect(c.svg.width, c.title).toBeGreaterThan(100);
      expect(c.svg.height, c.title).toBeGreaterThan(80);
      expect(c.svg.left, c.title).toBeGreaterThanOrEqual(0);
      expect(c.svg.right, c.title).toBeLessThanOrEqual(pageWidth);
    }
  });

  it("keeps every mark inside its plot area and every legend off it", () => {
    for (const c of charts) {
      // A point overhangs its centre by its radius.
      const out = c.marks.filter((m) => !inside(m.rect, c.plot, m.kind === "symbol" ? 6 : 1));
      expect(
        out.map((m) => `${m.kind} ${m.text ?? m.label}`),
        c.title,
      ).toEqual([]);
      for (const legend of c.legends) expect(overlap(legend, c.plot), c.title).toBe(false);
    }
  });

  it("renders the axis titles and all text inside the chart, none over another", () => {
    for (const c of charts) {
      expect(c.axisTitles.filter((t) => t.text && t.rect.width > 0).length, c.title).toBeGreaterThanOrEqual(1);
      const clipped = c.texts.filter((t) => !inside(t.rect, c.svg));
      expect(
        clipped.map((t) => t.text),
        c.title,
      ).toEqual([]);
      const clashes = c.texts.flatMap((a, i) =>
        c.texts.slice(i + 1).flatMap((b) => (overlap(a.rect, b.rect) ? [`${a.text} × ${b.text}`] : [])),
      );
      expect(clashes, c.title).toEqual([]);
    }
  });

  it("draws every legend symbol visibly (a dash legend as strokes, not as identical points)", () => {
    const paint = (c: string) => c !== "none" && c !== "transparent";
    // A filled shape needs an area; a line (a dash) needs a stroke.
    const shows = (s: ChartLayout["legendSymbols"][number]) =>
      paint(s.stroke) || (paint(s.fill) && s.rect.width > 1 && s.rect.height > 1);
    for (const c of charts)
      expect(
        c.legendSymbols.filter((s) => !shows(s)),
        c.title,
      ).toEqual([]);
    const dashes = chart("Stream latency over time").legendSymbols.filter((s) => s.rect.height <= 2);
    expect(dashes.length).toBe(2);
  });

  it("breaks a latency line where no stream started rather than drawing across the gap", () => {
    // The files and revocation scenarios start no stream: each line has a gap there.
    for (const line of chart("Stream latency over time").marks.filter((m) => m.kind === "line"))
      expect(line.d.match(/M/g)!.length, line.label).toBeGreaterThanOrEqual(2);
  });

  it("the title sits close above its plot: no empty band between them", () => {
    for (const c of charts) expect(c.plot.top - c.titleRect.bottom, c.title).toBeLessThan(40);
  });

  it("draws each boundary rule at the instant its scenario or point began", () => {
    const want = boundaries(run).map((b) => b.t);
    expect(want.length).toBeGreaterThan(run.scenarios.length);
    for (const title of ["Stream latency over time", "Failed operations over time", "Operations in flight"]) {
      const c = chart(title);
      const x = xScale(c);
      const rules = c.marks.filter((m) => m.kind === "rule").map((m) => m.rect.left);
      expect(rules, title).toHaveLength(want.length);
      rules.sort((a, b) => a - b).forEach((px, i) => expect(Math.abs(px - x(want[i])), title).toBeLessThan(1.5));
      const labels = c.marks.filter((m) => m.kind === "text").map((m) => m.text);
      expect(labels, title).toEqual(expect.arrayContaining(boundaries(run).map((b) => b.label)));
    }
  });

  it("capacity: a label per point, the knee and the highest rate within the SLO where their rates lie", () => {
    const c = chart("Capacity");
    const x = xScale(c);
    const labels = c.marks.filter((m) => m.kind === "text").map((m) => m.text);
    expect(labels).toEqual(expect.arrayContaining(run.sweep.map(pointLabel)));
    expect(labels.filter((t) => /^(knee|within SLO)/.test(t ?? ""))).toHaveLength(2);
    expect(labels).toContain(`SLO ${run.budget.ttftP95Ms} ms`);
    const knee = run.capacity!.kneeRate!;
    const vertical = c.marks.filter((m) => m.kind === "rule" && m.rect.width < 2 && m.rect.height > c.plot.height / 2);
    expect(vertical.some((r) => Math.abs(r.rect.left - x(knee)) < 1.5)).toBe(true);
    // Every point at its rate.
    const points = c.marks.filter((m) => m.kind === "symbol");
    expect(points).toHaveLength(run.sweep.length);
    for (const p of run.sweep)
      expect(points.some((m) => Math.abs((m.rect.left + m.rect.right) / 2 - x(p.rate)) < 1.5)).toBe(true);
  });

  it("baseline: each change's interval drawn on this run's bar, from the baseline moved by its bounds", () => {
    const c = chart("This run against the baseline");
    const x = xScale(c);
    const want = comparison.rows
      .filter((r) => r.key.endsWith("_ms") && !r.key.startsWith("rate_") && r.interval && r.baseline !== null)
      .map((r) => [r.baseline! * (1 + r.interval!.low), r.baseline! * (1 + r.interval!.high)]);
    expect(want.length).toBeGreaterThan(0);
    const rules = c.marks.filter((m) => m.kind === "rule" && m.rect.height < 3);
    expect(rules).toHaveLength(want.length);
    for (const [low, high] of want)
      expect(
        rules.some((m) => Math.abs(m.rect.left - x(low)) < 1.5 && Math.abs(m.rect.right - x(high)) < 1.5),
        `${low}–${high} ms`,
      ).toBe(true);
  });
});
