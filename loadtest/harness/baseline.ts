/**
 * `--baseline previous.json`: this run against an earlier one, metric by metric (the streaming
 * scenario's TTFT, inter-token and end-to-end percentiles, throughput, error rate; and the p95s,
 * throughput and error rate of each sweep rate both runs offered). A metric is
 * worse when it moved the wrong way by more than the tolerance (relative) and more than its noise
 * floor (absolute: a 0.4 ms → 0.6 ms TTFT is not a regression).
 */
import { readFileSync } from "node:fs";
import type { Comparison, ComparisonRow, RunReport } from "./run-report.js";

interface Metric {
  key: string;
  label: string;
  /** "lower": a larger value is worse. */
  better: "lower" | "higher";
  /** Changes below this (absolute) are noise. */
  floor: number;
}

const PERCENTILES = ["p50", "p95", "p99"] as const;
export const METRICS: Metric[] = [
  ...PERCENTILES.map((p) => ({ key: `ttft_${p}_ms`, label: `TTFT ${p} (ms)`, better: "lower" as const, floor: 1 })),
  ...PERCENTILES.map((p) => ({
    key: `itl_${p}_ms`,
    label: `inter-token ${p} (ms)`,
    better: "lower" as const,
    floor: 1,
  })),
  ...PERCENTILES.map((p) => ({
    key: `e2e_${p}_ms`,
    label: `end-to-end ${p} (ms)`,
    better: "lower" as const,
    floor: 1,
  })),
  { key: "output_tokens_per_s", label: "output tokens/s", better: "higher", floor: 0 },
  { key: "requests_per_s", label: "requests/s", better: "higher", floor: 0 },
  { key: "error_rate", label: "error rate", better: "lower", floor: 0.001 },
];

export function readBaseline(file: string): RunReport {
  let report: RunReport;
  try {
    report = JSON.parse(readFileSync(file, "utf8")) as RunReport;
  } catch (err) {
    throw new Error(`--baseline ${file}: ${(err as Error).message}`, { cause: err });
  }
  if (!streamingFigures(report))
    throw new Error(`--baseline ${file} is not a --json report with the streaming scenario's figures`);
  return report;
}

function streamingFigures(r: RunReport): Record<string, unknown> | undefined {
  return r.scenarios?.find((s) => s.id === "streaming" && s.verdict !== "skip")?.figures;
}

const numeric = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : null);

function compareMetric(m: Metric, base: number | null, cur: number | null, tolerance: number): ComparisonRow {
  if (base === null || cur === null)
    return { key: m.key, label: m.label, baseline: base, current: cur, change: null, worse: false };
  const delta = m.better === "lower" ? cur - base : base - cur;
  const worse = delta > Math.max(tolerance * Math.abs(base), m.floor);
  return {
    key: m.key,
    label: m.label,
    baseline: base,
    current: cur,
    change: base === 0 ? null : (cur - base) / base,
    worse,
  };
}

const SWEEP_KEYS = ["ttft_p95_ms", "itl_p95_ms", "e2e_p95_ms", "output_tokens_per_s", "requests_per_s", "error_rate"];

/** The sweep's rates both runs offered, compared at each rate. */
function sweepRows(current: RunReport, baseline: RunReport, tolerance: number): ComparisonRow[] {
  return (current.sweep ?? []).flatMap((point) => {
    const before = (baseline.sweep ?? []).find((p) => p.rate === point.rate);
    if (!before) return [];
    return METRICS.filter((m) => SWEEP_KEYS.includes(m.key)).map((m) =>
      compareMetric(
        { ...m, key: `rate_${point.rate}_${m.key}`, label: `${point.rate} req/s: ${m.label}` },
        numeric(before.figures[m.key]),
        numeric(point.figures[m.key]),
        tolerance,
      ),
    );
  });
}

export function compareRuns(current: RunReport, baseline: RunReport, tolerance: number): Comparison {
  const cur = streamingFigures(current) ?? {};
  const base = streamingFigures(baseline) ?? {};
  const rows = [
    ...METRICS.map((m) => compareMetric(m, numeric(base[m.key]), numeric(cur[m.key]), tolerance)),
    ...sweepRows(current, baseline, tolerance),
  ];
  return {
    baselineStartedAt: baseline.startedAt,
    baselineTarget: baseline.target,
    tolerance,
    rows,
    regressions: rows.filter((r) => r.worse).map((r) => r.label),
  };
}

const cell = (v: number | null) => (v === null ? "–" : String(Math.round(v * 100) / 100));
const pct = (v: number | null) => (v === null ? "–" : `${v >= 0 ? "+" : ""}${Math.round(v * 1000) / 10} %`);

export const COMPARISON_HEADER = ["METRIC", "BASELINE", "THIS RUN", "CHANGE", "VERDICT"];

export function comparisonRows(c: Comparison): string[][] {
  return c.rows.map((r) => [r.label, cell(r.baseline), cell(r.current), pct(r.change), r.worse ? "WORSE" : "ok"]);
}
