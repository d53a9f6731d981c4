/**
 * Inter-token latency as a percentile plot: the gap at p50, p90, p99, p99.9 … on a "nines" axis
 * (−log10(1 − p)), latency on a log axis. A histogram put 99 % of the gaps in its first two bins
 * and hid the tail, which is what a reader of streams feels as a stall.
 */
import type { TopLevelSpec } from "vega-lite";
import type { RunReport } from "../run-report.js";
import { percentile } from "../stats.js";
import { SIZE, scenarioColor } from "./style.js";

const PERCENTILES = [50, 75, 90, 95, 99, 99.5, 99.9, 99.95, 99.99];

/** The percentiles a sample of `n` can tell apart: at least one value beyond each. */
export const supported = (n: number) => PERCENTILES.filter((p) => n * (1 - p / 100) >= 1);

const nines = (p: number) => -Math.log10(1 - p / 100);

export function itlTailSpec(r: RunReport): TopLevelSpec | null {
  const rows = Object.entries(r.interTokenMs).flatMap(([scenario, gaps]) => {
    const sorted = [...gaps].sort((a, b) => a - b);
    return supported(sorted.length).flatMap((p) => {
      const ms = percentile(sorted, p);
      return ms === null || ms <= 0 ? [] : [{ scenario, p: `p${p}`, nines: nines(p), ms }];
    });
  });
  if (!rows.length) return null;
  const ticks = [50, 90, 99, 99.9, 99.99].filter((p) => rows.some((row) => row.nines >= nines(p) - 1e-9));
  return {
    ...SIZE,
    title: "Inter-token latency by percentile (the tail)",
    data: { values: rows },
    mark: { type: "line", point: { size: 20, filled: true }, tooltip: false },
    encoding: {
      x: {
        field: "nines",
        type: "quantitative",
        title: "percentile of gaps between tokens",
        scale: { domain: [nines(50), Math.max(...rows.map((row) => row.nines))] },
        axis: {
          values: ticks.map(nines),
          labelExpr: `{${ticks.map((p) => `'${nines(p).toFixed(4)}': 'p${p}'`).join(", ")}}[format(datum.value, '.4f')]`,
        },
      },
      // A short title: Vega estimates text widths (no fonts at render time), and a rotated title it
      // thinks taller than the plot pushed the whole chart down under an empty band.
      y: { field: "ms", type: "quantitative", title: "gap (ms, log scale)", scale: { type: "log" } },
      color: scenarioColor(
        r,
        Object.keys(r.interTokenMs).filter((k) => r.interTokenMs[k].length),
      ),
    },
  };
}
