/** The plain-text summary printed at the end of a run. */
import { columns, formatBytes, formatMs, headline } from "./format.js";
import type { RunReport } from "./runner.js";
import { STREAM_HEADER, streamRows, SWEEP_HEADER, sweepRows, throughputText } from "./stream-table.js";

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

export function renderSummary(r: RunReport): string {
  const rows = r.scenarios.map((s) => [s.id, s.verdict.toUpperCase(), formatMs(s.durationMs), s.note ? `${headline(s.id, s.figures)} (${s.note})` : headline(s.id, s.figures)]);
  const out = [
    `agentport load test — ${r.target}${r.setupMs === null ? "" : ` (up in ${formatMs(r.setupMs)})`}`,
    `limits (${r.limitsSource}${r.timeScale !== 1 ? `, time scale ${r.timeScale}` : ""}): ${limitsLine(r)}`,
    ceilingLine(r),
    "",
    ...columns([["SCENARIO", "VERDICT", "TIME", "FIGURES"], ...rows]),
    "",
  ];
  const streaming = r.scenarios.find((s) => s.id === "streaming" && s.verdict !== "skip");
  if (streaming) out.push(`streams (streaming): ${throughputText(streaming.figures)}`, ...columns([STREAM_HEADER, ...streamRows(streaming.figures)]), "");
  if (r.sweep.length) out.push("rate sweep (latencies in ms):", ...columns([SWEEP_HEADER, ...sweepRows(r.sweep)]), "");
  for (const s of r.scenarios) {
    for (const c of s.checks) out.push(`  ${c.ok ? "ok  " : "FAIL"} ${s.id}: ${c.name} — ${c.detail}`);
  }
  out.push("", `${r.passed ? "PASS" : "FAIL"} in ${formatMs(r.durationMs)}`);
  return out.join("\n");
}
