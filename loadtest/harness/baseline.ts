/**
 * `--baseline previous.json`: this run against an earlier one, metric by metric, on the samples
 * both JSON reports hold (each stream's TTFT and end-to-end time, each inter-token gap, each
 * stream's outcome). Per metric: a seeded bootstrap interval of the change (bootstrap.ts), then
 * the verdict rule (verdict-rule.ts): too few samples give no verdict, and a metric is worse only
 * when its whole interval lies beyond the tolerance. The streaming scenario is compared, and each
 * rate of a sweep both runs offered. Throughput over a run is one figure a run: shown, not judged.
 */
import { readFileSync } from "node:fs";
import { bootstrapClusteredChange, DEFAULT_CONFIDENCE, type Interval, type Statistic } from "./bootstrap.js";
import type { Sample } from "./recorder.js";
import type { Comparison, ComparisonRow, RunReport } from "./run-report.js";
import { percentile } from "./stats.js";
import { judge, MIN_SAMPLES, minSamples } from "./verdict-rule.js";

/** A share that rose by more than this (absolute: 1 percentage point) is worse; the tolerance is relative. */
export const ERROR_RATE_TOLERANCE = 0.01;

/** Where a metric's samples come from within one group of streams. */
export type Source = "ttft" | "e2e" | "itl" | "tokens_per_s" | "failed";

interface Metric {
  key: string;
  label: string;
  source: Source;
  statistic: Statistic;
  better: "lower" | "higher";
  /** Absolute changes below this are noise. */
  floor: number;
}

const QUANTILES = [
  ["p50", 0.5],
  ["p95", 0.95],
  ["p99", 0.99],
] as const;

const latency = (source: Source, name: string, label: string, quantiles = QUANTILES): Metric[] =>
  quantiles.map(([p, q]) => ({
    key: `${name}_${p}_ms`,
    label: `${label} ${p} (ms)`,
    source,
    statistic: { quantile: q },
    better: "lower",
    floor: 1,
  }));

export const METRICS: Metric[] = [
  ...latency("ttft", "ttft", "TTFT"),
  ...latency("itl", "itl", "inter-token"),
  ...latency("e2e", "e2e", "end-to-end"),
  {
    key: "stream_tokens_per_s_p50",
    label: "stream tokens/s p50",
    source: "tokens_per_s",
    statistic: { quantile: 0.5 },
    better: "higher",
    floor: 0,
  },
  { key: "error_rate", label: "error rate", source: "failed", statistic: "mean", better: "lower", floor: 0 },
];

/** The sweep compares each rate's p95s and errors (inter-token gaps are not kept per rate). */
const SWEEP_METRICS = METRICS.filter((m) => ["ttft_p95_ms", "e2e_p95_ms", "error_rate"].includes(m.key));

/** One figure a run, shown beside the judged metrics. */
const FIGURES = [
  { key: "output_tokens_per_s", label: "output tokens/s (one figure a run)" },
  { key: "requests_per_s", label: "requests/s (one figure a run)" },
];

export function readBaseline(file: string, flag = "--baseline"): RunReport {
  let report: RunReport;
  try {
    report = JSON.parse(readFileSync(file, "utf8")) as RunReport;
  } catch (err) {
    throw new Error(`${flag} ${file}: ${(err as Error).message}`, { cause: err });
  }
  if (!streamingFigures(report))
    throw new Error(`${flag} ${file} is not a --json report with the streaming scenario's figures`);
  return report;
}

function streamingFigures(r: RunReport): Record<string, unknown> | undefined {
  return r.scenarios?.find((s) => s.id === "streaming" && s.verdict !== "skip")?.figures;
}

/** The streams of one group (a scenario, or one rate of the sweep) and their inter-token gaps, stream by stream. */
interface Group {
  streams: Sample[];
  itl: number[][];
}

/**
 * Each valid stream's gaps: `interTokenMs[scenario]` holds them in the order of the valid streams'
 * samples, `interTokens` says how many each added. A report without the counts (schema 1) gives
 * each gap alone, as that schema's comparison did.
 */
function gapsByStream(gaps: readonly number[], valid: readonly Sample[]): number[][] {
  const counts = valid.map((s) => s.interTokens);
  if (counts.some((n) => n === undefined) || counts.reduce((a, n) => a! + n!, 0) !== gaps.length)
    return gaps.map((g) => [g]);
  let at = 0;
  return counts.map((n) => gaps.slice(at, (at += n!)));
}

function groupOf(r: RunReport, scenario: string, rate?: number): Group {
  const streams = (r.samples ?? []).filter(
    (s) => s.op === "chat.stream" && s.scenario === scenario && (rate === undefined || s.rate === rate),
  );
  const gaps = rate === undefined ? (r.interTokenMs?.[scenario] ?? []) : [];
  return {
    streams,
    itl: gapsByStream(
      gaps,
      streams.filter((s) => s.ok),
    ),
  };
}

/**
 * Streams run side by side share the machine's moments: a GC pause, a noisy neighbour or a burst
 * of arrivals slows every stream in flight, so a run's slow samples come in runs of neighbours in
 * time. Resampling them one by one passes that correlation off as precision (on a quiet 2-core
 * machine, 3 of 20 A/A comparisons of identical runs came out WORSE on a tail). The gate resamples
 * blocks of streams adjacent in start time instead — the non-overlapping block bootstrap — of
 * ⌈n^⅓⌉ streams, the order of block length that minimises the error of a block bootstrap's
 * distribution estimate (Hall, Horowitz and Jing, Biometrika 82, 1995), and never fewer than the
 * streams one moment of the machine reaches (`inFlight`): a block shorter than that splits one
 * stall over several blocks and judges its tail as if they were independent (with blocks of ⌈n^⅓⌉
 * alone, 2 of 20 fresh A/A comparisons came out WORSE on the inter-token p99, 16 streams in flight;
 * with this floor, 0 of 20 on a batch recorded after it was written, 20 of 20 injected +30 % TTFT
 * regressions caught: docs/load-testing.md).
 */
export const blockLength = (streams: number, inFlight = 1) =>
  Math.max(1, Math.ceil(Math.cbrt(streams) - 1e-9), Math.ceil(inFlight - 1e-9));

/**
 * The part of a stream's life a metric measures: its wait for the first token, or all of it (its
 * gaps, its end-to-end time and rate, its outcome).
 */
const measuredMs = (s: Pick<Sample, "latencyMs" | "ttftMs">, source: Source) =>
  source === "ttft" ? (s.ttftMs ?? s.latencyMs) : s.latencyMs;

/**
 * How many streams' measured spans a typical moment of the run falls in: their summed length over
 * the time from the first start to the last end (Little's law). A closed loop of 16 has 16 streams
 * in flight for the inter-token gaps, but only the few that were waiting for a first token at once
 * for TTFT.
 */
export function inFlight(streams: readonly Pick<Sample, "at" | "latencyMs" | "ttftMs">[], source: Source): number {
  if (!streams.length) return 0;
  // A failure is an event of the service, not of the machine's timing: a healthy run has none, and
  // a burst of them in one moment is a regression, not noise. Failures are judged stream by stream.
  if (source === "failed") return 1;
  const spans = streams.map((s) => ({ start: s.at, length: measuredMs(s, source) }));
  const first = Math.min(...spans.map((s) => s.start));
  const last = Math.max(...spans.map((s) => s.start + s.length));
  const busy = spans.reduce((a, s) => a + s.length, 0);
  return last > first ? busy / (last - first) : streams.length;
}

/** Consecutive `size`-long blocks of items already in time order (the last may be shorter). */
function blocks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** One value of a stream for a metric (its gaps, for inter-token latency); none when it has none. */
function streamValues(s: Sample, gaps: readonly number[], source: Source): number[] {
  switch (source) {
    case "ttft":
      return s.ok && s.ttftMs !== undefined ? [s.ttftMs] : [];
    case "e2e":
      return s.ok ? [s.latencyMs] : [];
    case "itl":
      return s.ok ? [...gaps] : [];
    case "tokens_per_s":
      return s.ok && s.outputTokens && s.latencyMs > 0 ? [s.outputTokens / (s.latencyMs / 1000)] : [];
    case "failed":
      return [s.ok ? 0 : 1];
  }
}

/** A metric's values stream by stream, in start-time order (streams without a value left out). */
function valuesByStream(g: Group, source: Source): number[][] {
  const valid = g.streams.filter((s) => s.ok);
  // A schema-1 report does not say which stream gave which gap: its gaps stay alone.
  if (source === "itl" && g.itl.length !== valid.length) return g.itl;
  const gapsOf = new Map(valid.map((s, i) => [s, g.itl[i] ?? []]));
  return [...g.streams]
    .sort((a, b) => a.at - b.at)
    .map((s) => streamValues(s, gapsOf.get(s) ?? [], source))
    .filter((v) => v.length);
}

/** The clusters the bootstrap resamples whole: blocks of streams adjacent in start time (see blockLength). */
const timeBlocks = (byStream: number[][], streamsInFlight: number) =>
  blocks(byStream, blockLength(byStream.length, streamsInFlight)).map((block) => block.flat());

/**
 * The count judged against the minimum: values — but no more than the clusters allow, as 30
 * streams' 900 gaps are not 900 independent samples: under MIN_SAMPLES streams, the streams count.
 */
const judgedCount = (clusters: number[][]) => {
  const values = clusters.reduce((a, c) => a + c.length, 0);
  return clusters.length < MIN_SAMPLES ? clusters.length : values;
};

function observed(values: number[], stat: Statistic): number | null {
  if (!values.length) return null;
  if (stat === "mean") return values.reduce((a, b) => a + b, 0) / values.length;
  return percentile(
    [...values].sort((a, b) => a - b),
    stat.quantile * 100,
  );
}

function compareMetric(m: Metric, base: Group, cur: Group, tolerance: number, label = m.label, key = m.key) {
  const [b, c] = [valuesByStream(base, m.source), valuesByStream(cur, m.source)];
  const scale = m.statistic === "mean" ? ("absolute" as const) : ("relative" as const);
  const interval = bootstrapClusteredChange(
    timeBlocks(b, inFlight(base.streams, m.source)),
    timeBlocks(c, inFlight(cur.streams, m.source)),
    m.statistic,
    { scale },
  );
  const [bv, cv] = [observed(b.flat(), m.statistic), observed(c.flat(), m.statistic)];
  const [bn, cn] = [judgedCount(b), judgedCount(c)];
  const needed = m.statistic === "mean" ? minSamples(0) : minSamples(m.statistic.quantile);
  const verdict = judge({
    interval,
    baselineCount: bn,
    currentCount: cn,
    needed,
    better: m.better,
    tolerance: scale === "absolute" ? ERROR_RATE_TOLERANCE : tolerance,
    floor: m.floor,
    baselineValue: bv ?? 0,
  });
  return {
    key,
    label,
    baseline: bv,
    current: cv,
    change: interval?.estimate ?? null,
    interval,
    samples: { baseline: bn, current: cn, needed },
    verdict,
    worse: verdict === "worse",
  } satisfies ComparisonRow;
}

const numeric = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : null);

function figureRows(current: RunReport, baseline: RunReport): ComparisonRow[] {
  const [cur, base] = [streamingFigures(current) ?? {}, streamingFigures(baseline) ?? {}];
  return FIGURES.map(({ key, label }) => {
    const [b, c] = [numeric(base[key]), numeric(cur[key])];
    const change = b === null || c === null || b === 0 ? null : c / b - 1;
    return {
      key,
      label,
      baseline: b,
      current: c,
      change,
      interval: null,
      samples: null,
      verdict: "not judged",
      worse: false,
    };
  });
}

/** Each offered rate both runs' sweeps measured, compared on that rate's streams. */
function sweepRows(current: RunReport, baseline: RunReport, tolerance: number): ComparisonRow[] {
  const rates = (current.sweep ?? []).filter(
    (p) =>
      (p.kind ?? "rate") === "rate" &&
      (baseline.sweep ?? []).some((b) => (b.kind ?? "rate") === "rate" && b.rate === p.rate),
  );
  return rates.flatMap(({ rate }) =>
    SWEEP_METRICS.map((m) =>
      compareMetric(
        m,
        groupOf(baseline, "rate-sweep", rate),
        groupOf(current, "rate-sweep", rate),
        tolerance,
        `${rate} req/s: ${m.label}`,
        `rate_${rate}_${m.key}`,
      ),
    ),
  );
}

export function compareRuns(current: RunReport, baseline: RunReport, tolerance: number): Comparison {
  const [cur, base] = [groupOf(current, "streaming"), groupOf(baseline, "streaming")];
  const rows = [
    ...METRICS.map((m) => compareMetric(m, base, cur, tolerance)),
    ...figureRows(current, baseline),
    ...sweepRows(current, baseline, tolerance),
  ];
  return {
    baselineStartedAt: baseline.startedAt,
    baselineTarget: baseline.target,
    tolerance,
    confidence: DEFAULT_CONFIDENCE,
    rows,
    regressions: rows.filter((r) => r.worse).map((r) => r.label),
  };
}

const cell = (v: number | null) => (v === null ? "–" : String(Math.round(v * 100) / 100));
const signed = (v: number, digits: number) => `${v >= 0 ? "+" : ""}${v.toFixed(digits)}`;

/** A change as the interval shows it: "+2.1 %" (relative) or "+0.013" (a share's absolute change). */
function changeText(v: number | null, scale: Interval["scale"] = "relative"): string {
  if (v === null) return "–";
  return scale === "relative" ? `${signed(v * 100, 1)} %` : signed(v, 3);
}

function intervalText(r: ComparisonRow): string {
  const i = r.interval;
  if (!i) return "–";
  return `[${changeText(i.low, i.scale)}, ${changeText(i.high, i.scale)}]`;
}

/** The rule in one sentence, printed above the table. */
export function gateRule(c: Comparison): string {
  return (
    `Each change with its ${Math.round(c.confidence * 100)} % bootstrap interval (seeded); a metric is WORSE only when the ` +
    `whole interval lies beyond the tolerance of ${Math.round(c.tolerance * 1000) / 10} % (error rate: ${ERROR_RATE_TOLERANCE * 100} ` +
    `percentage point); too few samples give no verdict.`
  );
}

export const COMPARISON_HEADER = ["METRIC", "BASELINE", "THIS RUN", "CHANGE", "INTERVAL", "SAMPLES", "VERDICT"];

export function comparisonRows(c: Comparison): string[][] {
  return c.rows.map((r) => [
    r.label,
    cell(r.baseline),
    cell(r.current),
    changeText(r.change, r.interval?.scale),
    intervalText(r),
    r.samples ? `${r.samples.baseline}/${r.samples.current} (≥ ${r.samples.needed})` : "–",
    r.verdict === "worse" ? "WORSE" : r.verdict,
  ]);
}
