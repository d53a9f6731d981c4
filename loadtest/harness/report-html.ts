/** The self-contained HTML report: verdicts, stream figures, charts as inline SVG, checks, every figure. */
import { CHARTS } from "./charts/specs.js";
import { renderSvg } from "./charts/render.js";
import { COMPARISON_HEADER, comparisonRows, gateRule } from "./baseline.js";
import { formatMs } from "./format.js";
import type { RunReport } from "./run-report.js";
import { capacityText, STREAM_HEADER, streamRows, SWEEP_HEADER, sweepRows, throughputText } from "./stream-table.js";
import { ceilingLine, limitsLine, runLine, scenarioLine } from "./summary.js";

const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

const table = (header: string[], rows: string[][]) =>
  `<table class="nums"><tr>${header.map((h) => `<th>${esc(h.toLowerCase())}</th>`).join("")}</tr>${rows.map((row) => `<tr>${row.map((c) => `<td>${esc(c)}</td>`).join("")}</tr>`).join("")}</table>`;

function streamSection(r: RunReport): string {
  const streaming = r.scenarios.find((s) => s.id === "streaming" && s.verdict !== "skip");
  const parts = [];
  if (streaming)
    parts.push(
      `<h2>Streams</h2><p>${esc(throughputText(streaming.figures))}</p>${table(STREAM_HEADER, streamRows(streaming.figures))}`,
    );
  const arrivals = r.budget.arrivals === "poisson" ? "as a Poisson process" : "evenly spaced";
  if (r.sweep.length) {
    parts.push(
      `<h2>Rate sweep</h2><p>Latencies in ms; streams arrive ${arrivals} at each offered rate (closed-loop points: their achieved rate), after an unmeasured warm-up; achieved is counted over at least the offered window.</p>${table(SWEEP_HEADER, sweepRows(r.sweep))}${r.capacity ? `<p><b>${esc(capacityText(r.capacity))}</b></p>` : ""}`,
    );
  }
  return parts.join("");
}

const VERDICT = COMPARISON_HEADER.indexOf("VERDICT");

/** Both runs side by side, metric by metric, with the interval of each change; a worse one in red. */
function baselineSection(r: RunReport): string {
  const c = r.comparison;
  if (!c) return "";
  const verdict = c.regressions.length
    ? `<span class="badge fail">WORSE</span> ${esc(c.regressions.join(", "))}`
    : '<span class="badge pass">NO REGRESSION</span>';
  const rows = comparisonRows(c)
    .map(
      (row) =>
        `<tr class="${row[VERDICT] === "WORSE" ? "fail" : "pass"}">${row.map((cell, i) => `<td${i === VERDICT ? ' class="v"' : ""}>${esc(cell)}</td>`).join("")}</tr>`,
    )
    .join("");
  return (
    `<h2>Against the baseline</h2><p>Baseline: ${esc(c.baselineTarget)}, started ${esc(c.baselineStartedAt)}. ${esc(gateRule(c))} ${verdict}</p>` +
    `<table class="nums"><tr>${COMPARISON_HEADER.map((h) => `<th>${esc(h.toLowerCase())}</th>`).join("")}</tr>${rows}</table>`
  );
}

function figuresTable(figures: Record<string, unknown>): string {
  const rows = Object.entries(figures).map(([k, v]) => `<tr><td>${esc(k)}</td><td>${esc(String(v))}</td></tr>`);
  return rows.length
    ? `<details><summary>All figures</summary><table class="figs">${rows.join("")}</table></details>`
    : "";
}

export async function renderHtml(r: RunReport): Promise<string> {
  const regressed = !!r.comparison?.regressions.length;
  const verdict =
    r.passed && !regressed
      ? '<span class="badge pass">PASS</span>'
      : `<span class="badge fail">FAIL</span>${regressed ? " worse than the baseline" : ""}`;
  const specs = CHARTS.map((chart) => chart(r)).filter((spec) => spec !== null);
  const charts = await Promise.all(specs.map((spec) => renderSvg(spec)));
  const summaryRows = r.scenarios
    .map(
      (s) =>
        `<tr class="${s.verdict}"><td>${esc(s.title)}</td><td class="v">${s.verdict.toUpperCase()}</td><td class="t">${formatMs(s.durationMs)}</td><td>${esc(scenarioLine(s))}</td></tr>`,
    )
    .join("");
  const sections = r.scenarios
    .map((s) => {
      const checks = s.checks
        .map(
          (c) =>
            `<li class="${c.ok ? "pass" : "fail"}"><b>${c.ok ? "✓" : "✗"}</b> ${esc(c.name)} — <span>${esc(c.detail)}</span></li>`,
        )
        .join("");
      return `<section><h3>${esc(s.title)} <span class="badge ${s.verdict}">${s.verdict.toUpperCase()}</span></h3>${s.note && s.verdict !== "skip" ? `<p>${esc(s.note)}</p>` : ""}${s.verdict === "skip" ? `<p>${esc(scenarioLine(s))}</p>` : ""}<ul>${checks}</ul>${figuresTable(s.figures)}</section>`;
    })
    .join("");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>agentport load test — ${r.passed && !regressed ? "PASS" : "FAIL"}</title>
<style>
body{font-family:system-ui,sans-serif;margin:2rem auto;max-width:1200px;color:#111;padding:0 1rem}
table{border-collapse:collapse;width:100%;margin:.5rem 0}td,th{border-bottom:1px solid #e5e7eb;padding:.35rem .5rem;text-align:left;font-size:.9rem}
tr.fail .v,.badge.fail,li.fail b{color:#dc2626}tr.pass .v,.badge.pass,li.pass b{color:#16a34a}tr.skip .v,.badge.skip{color:#6b7280}
.badge{font-size:.8rem;border:1px solid currentColor;border-radius:4px;padding:0 .3rem}ul{list-style:none;padding-left:.5rem}li{margin:.2rem 0}
li span{color:#4b5563}.plots{display:flex;flex-wrap:wrap;gap:1rem}figure svg{max-width:100%;height:auto}.meta{color:#4b5563;font-size:.9rem}figure{margin:0}
table.nums td:not(:first-child),table.nums th:not(:first-child){text-align:right;font-variant-numeric:tabular-nums}table.figs td{font-family:ui-monospace,monospace;font-size:.8rem}td.t{white-space:nowrap}
</style></head><body>
<h1>agentport load test: ${verdict}</h1>
<p class="meta">${esc(r.target)}<br>Started ${esc(r.startedAt)}, ran ${formatMs(r.durationMs)}<br>
Limits (${esc(r.limitsSource)}${r.timeScale !== 1 ? `, time scale ${r.timeScale}` : ""}): ${esc(limitsLine(r))}<br>${esc(ceilingLine(r))}<br>${esc(runLine(r))}</p>
<h2>Summary</h2><table><tr><th>Scenario</th><th>Verdict</th><th>Time</th><th>Figures</th></tr>${summaryRows}</table>
${baselineSection(r)}
${streamSection(r)}
<h2>Charts</h2><div class="plots">${charts.map((svg) => `<figure>${svg}</figure>`).join("")}</div>
<h2>Checks</h2>${sections}
</body></html>
`;
}
