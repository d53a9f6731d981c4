/** The self-contained HTML report: verdicts, checks, every figure, and plots drawn as inline SVG. */
import { formatMs, headline } from "./format.js";
import type { Sample } from "./recorder.js";
import type { RunReport } from "./runner.js";
import { ceilingLine, limitsLine } from "./summary.js";
import { cdfSvg, histogramSvg, linesSvg, type Series } from "./svg-plots.js";

const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** Completions per second over the run, one series per scenario. */
export function throughputSeries(samples: Sample[], durationMs: number): { series: Series[]; bucketMs: number } {
  const bucketMs = Math.max(100, Math.ceil(durationMs / 60 / 100) * 100);
  const buckets = Math.max(1, Math.ceil(durationMs / bucketMs));
  const byScenario = new Map<string, number[]>();
  for (const s of samples) {
    const counts = byScenario.get(s.scenario) ?? new Array<number>(buckets).fill(0);
    counts[Math.min(buckets - 1, Math.floor((s.at + s.latencyMs) / bucketMs))]++;
    byScenario.set(s.scenario, counts);
  }
  const series = [...byScenario].map(([name, counts]) => ({
    name,
    points: counts.map((c, i): [number, number] => [((i + 1) * bucketMs) / 1000, (c * 1000) / bucketMs]),
  }));
  return { series, bucketMs };
}

function plots(r: RunReport): string[] {
  const out: string[] = [];
  const streams = r.samples.filter((s) => s.op === "chat.stream");
  const ttft = streams.flatMap((s) => (s.ttftMs === undefined ? [] : [s.ttftMs]));
  out.push(cdfSvg(ttft, "Time to first token (CDF), streaming scenario", "TTFT (ms)"));
  out.push(histogramSvg(streams.map((s) => s.latencyMs), "End-to-end stream latency"));
  out.push(histogramSvg(r.interChunkMs, "Inter-chunk latency", "gap between content chunks (ms)"));
  for (const op of ["files.upload", "files.download", "files.delete", "models.list"]) {
    const values = r.samples.filter((s) => s.op === op).map((s) => s.latencyMs);
    if (values.length) out.push(histogramSvg(values, `Latency: ${op}`));
  }
  const { series, bucketMs } = throughputSeries(r.samples, r.durationMs);
  out.push(linesSvg(series, `Throughput over time (completions/s, ${bucketMs} ms buckets)`, "time since start (s)", "completions/s"));
  return out;
}

function figuresTable(figures: Record<string, unknown>): string {
  const rows = Object.entries(figures).map(([k, v]) => `<tr><td>${esc(k)}</td><td>${esc(String(v))}</td></tr>`);
  return rows.length ? `<details><summary>All figures</summary><table class="figs">${rows.join("")}</table></details>` : "";
}

export function renderHtml(r: RunReport): string {
  const summaryRows = r.scenarios
    .map((s) => `<tr class="${s.verdict}"><td>${esc(s.title)}</td><td class="v">${s.verdict.toUpperCase()}</td><td>${formatMs(s.durationMs)}</td><td>${esc(headline(s.id, s.figures))}</td></tr>`)
    .join("");
  const sections = r.scenarios
    .map((s) => {
      const checks = s.checks.map((c) => `<li class="${c.ok ? "pass" : "fail"}"><b>${c.ok ? "✓" : "✗"}</b> ${esc(c.name)} — <span>${esc(c.detail)}</span></li>`).join("");
      return `<section><h3>${esc(s.title)} <span class="badge ${s.verdict}">${s.verdict.toUpperCase()}</span></h3>${s.note ? `<p>${esc(s.note)}</p>` : ""}<ul>${checks}</ul>${figuresTable(s.figures)}</section>`;
    })
    .join("");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>agentport load test — ${r.passed ? "PASS" : "FAIL"}</title>
<style>
body{font-family:system-ui,sans-serif;margin:2rem auto;max-width:1000px;color:#111;padding:0 1rem}
table{border-collapse:collapse;width:100%;margin:.5rem 0}td,th{border-bottom:1px solid #e5e7eb;padding:.35rem .5rem;text-align:left;font-size:.9rem}
tr.fail .v,.badge.fail,li.fail b{color:#dc2626}tr.pass .v,.badge.pass,li.pass b{color:#16a34a}tr.skip .v,.badge.skip{color:#6b7280}
.badge{font-size:.8rem;border:1px solid currentColor;border-radius:4px;padding:0 .3rem}ul{list-style:none;padding-left:.5rem}li{margin:.2rem 0}
li span{color:#4b5563}.plots{display:flex;flex-wrap:wrap;gap:1rem}.meta{color:#4b5563;font-size:.9rem}table.figs td{font-family:ui-monospace,monospace;font-size:.8rem}
</style></head><body>
<h1>agentport load test: ${r.passed ? '<span class="badge pass">PASS</span>' : '<span class="badge fail">FAIL</span>'}</h1>
<p class="meta">${esc(r.target)}<br>Started ${esc(r.startedAt)}, ran ${formatMs(r.durationMs)}<br>
Limits (${esc(r.limitsSource)}${r.timeScale !== 1 ? `, time scale ${r.timeScale}` : ""}): ${esc(limitsLine(r))}<br>${esc(ceilingLine(r))}</p>
<h2>Summary</h2><table><tr><th>Scenario</th><th>Verdict</th><th>Time</th><th>Figures</th></tr>${summaryRows}</table>
<h2>Plots</h2><div class="plots">${plots(r).join("")}</div>
<h2>Checks</h2>${sections}
</body></html>
`;
}
