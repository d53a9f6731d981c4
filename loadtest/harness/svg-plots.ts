/** Small SVG charts drawn here, so the HTML report needs no external assets. */

export interface Series {
  name: string;
  points: Array<[number, number]>;
}

const W = 640;
const H = 260;
const M = { top: 28, right: 16, bottom: 40, left: 56 };
const PALETTE = ["#2563eb", "#dc2626", "#16a34a", "#9333ea", "#ea580c", "#0891b2", "#4b5563"];

const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
const num = (v: number) => (Math.abs(v) >= 100 ? Math.round(v).toString() : Number(v.toPrecision(3)).toString());

function ticks(max: number, count = 5): number[] {
  if (max <= 0) return [0];
  const raw = max / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? raw;
  const out: number[] = [];
  for (let v = 0; v <= max + 1e-9; v += step) out.push(v);
  return out;
}

/** Frame, axes, grid and labels; returns scale functions for the plot area. */
function frame(title: string, xLabel: string, yLabel: string, xMax: number, yMax: number) {
  const pw = W - M.left - M.right;
  const ph = H - M.top - M.bottom;
  const xs = ticks(xMax);
  const ys = ticks(yMax);
  const xTop = xs.at(-1) || 1;
  const yTop = ys.at(-1) || 1;
  const x = (v: number) => M.left + (v / xTop) * pw;
  const y = (v: number) => M.top + ph - (v / yTop) * ph;
  const parts = [
    `<text x="${W / 2}" y="16" text-anchor="middle" font-size="13" font-weight="600">${esc(title)}</text>`,
    ...ys.map((v) => `<line x1="${M.left}" x2="${W - M.right}" y1="${y(v)}" y2="${y(v)}" stroke="#e5e7eb"/><text x="${M.left - 6}" y="${y(v) + 4}" text-anchor="end" font-size="10">${num(v)}</text>`),
    ...xs.map((v) => `<text x="${x(v)}" y="${H - M.bottom + 14}" text-anchor="middle" font-size="10">${num(v)}</text>`),
    `<line x1="${M.left}" x2="${W - M.right}" y1="${y(0)}" y2="${y(0)}" stroke="#6b7280"/>`,
    `<line x1="${M.left}" x2="${M.left}" y1="${M.top}" y2="${y(0)}" stroke="#6b7280"/>`,
    `<text x="${M.left + pw / 2}" y="${H - 6}" text-anchor="middle" font-size="11">${esc(xLabel)}</text>`,
    `<text transform="translate(14 ${M.top + ph / 2}) rotate(-90)" text-anchor="middle" font-size="11">${esc(yLabel)}</text>`,
  ];
  return { x, y, parts, pw, ph };
}

const svg = (body: string[]) =>
  `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" font-family="system-ui, sans-serif" role="img">${body.join("")}</svg>`;

const empty = (title: string) => svg([`<text x="${W / 2}" y="${H / 2}" text-anchor="middle" font-size="13">${esc(title)}: no data</text>`]);

/** Latency histogram: how many samples fell in each of `bins` equal-width buckets. */
export function histogramSvg(values: number[], title: string, xLabel = "latency (ms)", bins = 30): string {
  if (values.length === 0) return empty(title);
  const max = Math.max(...values, 1e-6);
  const width = max / bins;
  const counts = new Array<number>(bins).fill(0);
  for (const v of values) counts[Math.min(bins - 1, Math.floor(v / width))]++;
  const f = frame(title, xLabel, "requests", max, Math.max(...counts));
  const bars = counts.map((c, i) => {
    const x0 = f.x(i * width);
    const x1 = f.x((i + 1) * width);
    return `<rect x="${x0}" y="${f.y(c)}" width="${Math.max(0.5, x1 - x0 - 1)}" height="${f.y(0) - f.y(c)}" fill="${PALETTE[0]}"><title>${num(i * width)}–${num((i + 1) * width)} ms: ${c}</title></rect>`;
  });
  return svg([...f.parts, ...bars]);
}

/** Empirical CDF: the share of samples at or below each value. */
export function cdfSvg(values: number[], title: string, xLabel = "ms"): string {
  if (values.length === 0) return empty(title);
  const sorted = [...values].sort((a, b) => a - b);
  const f = frame(title, xLabel, "share of requests", sorted.at(-1)!, 1);
  const pts = sorted.map((v, i) => `${f.x(v)},${f.y((i + 1) / sorted.length)}`);
  return svg([...f.parts, `<polyline points="${f.x(0)},${f.y(0)} ${pts.join(" ")}" fill="none" stroke="${PALETTE[0]}" stroke-width="2"/>`]);
}

/** One line per series (x ascending), with a legend. */
export function linesSvg(series: Series[], title: string, xLabel: string, yLabel: string): string {
  const all = series.flatMap((s) => s.points);
  if (all.length === 0) return empty(title);
  const f = frame(title, xLabel, yLabel, Math.max(...all.map((p) => p[0])), Math.max(...all.map((p) => p[1])));
  const body = series.map((s, i) => {
    const color = PALETTE[i % PALETTE.length];
    const pts = s.points.map(([px, py]) => `${f.x(px)},${f.y(py)}`).join(" ");
    const legend = `<rect x="${M.left + 8 + i * 120}" y="${M.top + 2}" width="10" height="10" fill="${color}"/><text x="${M.left + 22 + i * 120}" y="${M.top + 11}" font-size="10">${esc(s.name)}</text>`;
    return `<polyline points="${pts}" fill="none" stroke="${color}" stroke-width="1.5"/>${legend}`;
  });
  return svg([...f.parts, ...body]);
}
