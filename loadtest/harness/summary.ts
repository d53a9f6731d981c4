/** The plain-text summary printed at the end of a run. */
import { COMPARISON_HEADER, comparisonRows, gateRule } from "./baseline.js";
import type { Comparison } from "./run-report.js";
import { columns, formatBytes, formatMs, headline } from "./format.js";
import { approxBytes } from "./plan.js";
import type { Slo } from "./slo.js";
import type { RunReport } from "./run-report.js";
import { capacityText, STREAM_HEADER, streamRows, SWEEP_HEADER, sweepRows, throughputText } from "./stream-table.js";

export function limitsLine(r: RunReport): string {
  const l = r.effectiveLimits;
  return [
    `read ${formatMs(l.readTimeoutMs)}`,
    `write ${formatMs(l.writeTimeoutMs)}`,
    `connect ${formatMs(l.connectTimeoutMs)}`,
    `heartbeat ${l.heartbeatSeconds} s`,
    `body buffer ${l.clientBodyBufferSize}`,
    `max body ${formatBytes(l.maxBodyBytes)}`,
    `JSON ${formatBytes(l.jsonBodyLimitBytes)}`,
    `file ${formatBytes(l.fileMaxBytes)}`,
  ].join(" · ");
}

export function ceilingLine(r: RunReport): string {
  const c = r.ceiling;
  if (!c) return "harness ceiling: not measured (--ceiling-seconds 0)";
  return `harness ceiling: ${c.autocannonRps} req/s (autocannon), ${c.undiciRps} req/s (undici, as the scenarios drive) — bare in-process route, ${c.connections} connections, ${c.seconds} s`;
}

/** A scenario's figures in one line; a skipped one measured nothing, so it says only why. */
export function scenarioLine(s: RunReport["scenarios"][number]): string {
  if (s.verdict === "skip") return `skipped: ${s.note ?? "nothing to run"}`;
  return s.note ? `${headline(s.id, s.figures)} (${s.note})` : headline(s.id, s.figures);
}

/** The thresholds a run is judged by, and where they came from. */
export function sloLine(s: Partial<Slo>, source: string): string {
  const ms = (v: number | null | undefined) => (v === null || v === undefined ? "–" : `${v} ms`);
  return `thresholds (${source}): TTFT p95 ${ms(s.ttftP95Ms)} · inter-token p95 ${ms(s.itlP95Ms)} · e2e p95 ${ms(s.e2eP95Ms)} · other requests p95 ${ms(s.requestP95Ms)} · failed streams ≤ ${(s.maxErrorRate ?? 0) * 100} %`;
}

/** Thresholds and traffic actually sent. */
export function runLine(r: RunReport): string {
  return `${sloLine(r.budget, r.sloSource ?? "defaults")} · sent ${approxBytes(r.bytesSent ?? 0)} of request bodies`;
}

export function comparisonText(c: Comparison): string {
  const verdict = c.regressions.length
    ? `WORSE than the baseline: ${c.regressions.join(", ")}`
    : "no metric worse than the baseline";
  return [
    `against the baseline of ${c.baselineStartedAt} (${c.baselineTarget}):`,
    gateRule(c),
    ...columns([COMPARISON_HEADER, ...comparisonRows(c)]),
    verdict,
  ].join("\n");
}

export function renderSummary(r: RunReport): string {
  const rows = r.scenarios.map((s) => [s.id, s.verdict.toUpperCase(), formatMs(s.durationMs), scenarioLine(s)]);
  const out = [
    `agentport load test — ${r.target}${r.setupMs === null ? "" : ` (up in ${formatMs(r.setupMs)})`}`,
    `limits (${r.limitsSource}${r.timeScale !== 1 ? `, time scale ${r.timeScale}` : ""}): ${limitsLine(r)}`,
    ceilingLine(r),
    runLine(r),
    "",
    ...columns([["SCENARIO", "VERDICT", "TIME", "FIGURES"], ...rows]),
    "",
  ];
  const streaming = r.scenarios.find((s) => s.id === "streaming" && s.verdict !== "skip");
  if (streaming)
    out.push(
      `streams (streaming): ${throughputText(streaming.figures)}`,
      ...columns([STREAM_HEADER, ...streamRows(streaming.figures)]),
      "",
    );
  if (r.sweep.length)
    out.push(
      "load profile (latencies in ms; rates offered, achieved for closed-loop points):",
      ...columns([SWEEP_HEADER, ...sweepRows(r.sweep)]),
      ...(r.capacity ? [capacityText(r.capacity)] : []),
      "",
    );
  for (const s of r.scenarios) {
    for (const c of s.checks) out.push(`  ${c.ok ? "ok  " : "FAIL"} ${s.id}: ${c.name} — ${c.detail}`);
  }
  if (r.comparison) out.push("", comparisonText(r.comparison));
  const regressed = !!r.comparison?.regressions.length;
  out.push(
    "",
    `${r.passed && !regressed ? "PASS" : "FAIL"} in ${formatMs(r.durationMs)}${regressed ? " (worse than the baseline)" : ""}`,
  );
  return out.join("\n");
}
