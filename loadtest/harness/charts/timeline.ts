/**
 * A run as time series, for the charts: latency percentiles and errors per time window, streams in
 * flight over time, and where each scenario and each point of a load profile began. Computed here
 * rather than in Vega transforms, so the numbers are tested like any other statistic.
 */
import type { Sample } from "../recorder.js";
import type { RunReport } from "../run-report.js";
import { percentile } from "../stats.js";

/** About this many windows over a run: enough to see it degrade, few enough that each has samples. */
const WINDOWS = 40;
const NICE = [0.1, 0.2, 0.25, 0.5, 1, 2, 5, 10, 15, 30, 60];

/** A round window length (s) giving about WINDOWS windows over `durationMs`. */
export function windowSeconds(durationMs: number): number {
  const raw = durationMs / 1000 / WINDOWS;
  return NICE.find((s) => s >= raw) ?? Math.ceil(raw / 60) * 60;
}

export interface WindowRow {
  /** Window start and end, s since the run began. */
  t0: number;
  t1: number;
  measure: string;
  percentile: "p50" | "p95";
  ms: number;
  count: number;
}

/** TTFT and end-to-end p50/p95 of the valid streams that started in each window. */
export function latencyWindows(samples: readonly Sample[], step: number): WindowRow[] {
  const byWindow = new Map<number, Sample[]>();
  for (const s of samples) {
    if (s.op !== "chat.stream" || !s.ok) continue;
    const w = Math.floor(s.at / 1000 / step);
    byWindow.set(w, [...(byWindow.get(w) ?? []), s]);
  }
  const rows: WindowRow[] = [];
  for (const [w, streams] of [...byWindow].sort((a, b) => a[0] - b[0])) {
    const series = [
      ["TTFT", streams.flatMap((s) => (s.ttftMs === undefined ? [] : [s.ttftMs]))],
      ["end-to-end", streams.map((s) => s.latencyMs)],
    ] as const;
    for (const [measure, values] of series) {
      const sorted = [...values].sort((a, b) => a - b);
      for (const p of ["p50", "p95"] as const) {
        const ms = percentile(sorted, p === "p50" ? 50 : 95);
        // A log axis has no 0: a latency rounded to 0 has nothing to plot.
        if (ms !== null && ms > 0)
          rows.push({ t0: w * step, t1: (w + 1) * step, measure, percentile: p, ms, count: sorted.length });
      }
    }
  }
  return rows;
}

/** Failed operations (any op) per window by start time; windows without failures are left out. */
export function errorWindows(samples: readonly Sample[], step: number) {
  const counts = new Map<string, { t0: number; t1: number; scenario: string; errors: number }>();
  for (const s of samples) {
    if (s.ok) continue;
    const w = Math.floor(s.at / 1000 / step);
    const key = `${w} ${s.scenario}`;
    const row = counts.get(key) ?? { t0: w * step, t1: (w + 1) * step, scenario: s.scenario, errors: 0 };
    row.errors++;
    counts.set(key, row);
  }
  return [...counts.values()];
}

/** Operations in flight after each start and end (a step line), s since the run began. */
export function inFlight(samples: readonly Sample[]): Array<{ t: number; inFlight: number }> {
  const events = samples.flatMap((s) => [
    { t: s.at, d: 1 },
    { t: s.at + s.latencyMs, d: -1 },
  ]);
  // Ends before starts at the same instant: a slot freed and taken is not two in flight.
  events.sort((a, b) => a.t - b.t || a.d - b.d);
  let n = 0;
  const steps = [{ t: 0, inFlight: 0 }];
  for (const e of events) {
    n += e.d;
    steps.push({ t: Math.round(e.t) / 1000, inFlight: n });
  }
  return steps;
}

export interface Boundary {
  /** s since the run began. */
  t: number;
  label: string;
  kind: "scenario" | "point";
}

/** Where each scenario began (its first sample, or its recorded start) and each point of a profile. */
export function boundaries(r: RunReport): Boundary[] {
  const out: Boundary[] = [];
  for (const s of r.scenarios) {
    const first = r.samples.filter((x) => x.scenario === s.id).reduce((a, x) => Math.min(a, x.at), Infinity);
    const at = s.startMs ?? (Number.isFinite(first) ? first : undefined);
    if (at !== undefined) out.push({ t: Math.round(at) / 1000, label: s.id, kind: "scenario" });
  }
  for (const p of r.sweep)
    if (p.startMs !== undefined) out.push({ t: Math.round(p.startMs) / 1000, label: pointLabel(p), kind: "point" });
  return out.sort((a, b) => a.t - b.t);
}

/** A point as its rate reads on a chart: "12.5/s", or "throughput 40/s". */
export function pointLabel(p: RunReport["sweep"][number]): string {
  const rate = `${Math.round(p.rate * 10) / 10}/s`;
  return (p.kind ?? "rate") === "rate" ? rate : `${p.kind} ${rate}`;
}
