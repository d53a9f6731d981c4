/** Percentiles and summaries of latency samples (ms). */

export interface Summary {
  count: number;
  min: number | null;
  p50: number | null;
  p90: number | null;
  p95: number | null;
  p99: number | null;
  max: number | null;
  mean: number | null;
}

/** Nearest-rank percentile of sorted values; null when there are none. */
export function percentile(sorted: ArrayLike<number>, p: number): number | null {
  if (sorted.length === 0) return null;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

const round = (v: number | null) => (v === null ? null : Math.round(v * 100) / 100);

export function summarize(values: readonly number[]): Summary {
  const sorted = [...values].sort((a, b) => a - b);
  const mean = sorted.length ? sorted.reduce((a, b) => a + b, 0) / sorted.length : null;
  return {
    count: sorted.length,
    min: round(sorted[0] ?? null),
    p50: round(percentile(sorted, 50)),
    p90: round(percentile(sorted, 90)),
    p95: round(percentile(sorted, 95)),
    p99: round(percentile(sorted, 99)),
    max: round(sorted.at(-1) ?? null),
    mean: round(mean),
  };
}

/** Flattens a summary into figures named `<prefix>_p95_ms` and so on (`unit` "" for rates). */
export function summaryFigures(prefix: string, s: Summary, unit = "_ms"): Record<string, number | null> {
  return {
    [`${prefix}_count`]: s.count,
    [`${prefix}_p50${unit}`]: s.p50,
    [`${prefix}_p90${unit}`]: s.p90,
    [`${prefix}_p95${unit}`]: s.p95,
    [`${prefix}_p99${unit}`]: s.p99,
    [`${prefix}_max${unit}`]: s.max,
  };
}
