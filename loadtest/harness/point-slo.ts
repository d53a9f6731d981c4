/** The stack's SLO judged on one point of a load profile: every p95 under its objective, errors under the share. */
import type { PointSlo } from "./recorder.js";
import type { Slo } from "./slo.js";

export function judgePoint(figures: Record<string, number | null>, slo: Slo): PointSlo {
  const missed: string[] = [];
  const p95 = (label: string, value: number | null, objective: number | null) => {
    if (objective === null) return;
    if (value === null || value > objective) missed.push(`${label} p95 ${value ?? "–"} ms > ${objective} ms`);
  };
  p95("TTFT", figures.ttft_p95_ms, slo.ttftP95Ms);
  p95("inter-token", figures.itl_p95_ms, slo.itlP95Ms);
  p95("end-to-end", figures.e2e_p95_ms, slo.e2eP95Ms);
  const errors = figures.error_rate;
  if (errors === null || errors > slo.maxErrorRate) missed.push(`error rate ${errors ?? "–"} > ${slo.maxErrorRate}`);
  return { met: missed.length === 0, missed };
}
