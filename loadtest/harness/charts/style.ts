/** What every chart shares: its size and one colour per scenario. */
import type { RunReport } from "../run-report.js";

export const SIZE = { width: 340, height: 200 };

/** The same colour for a scenario in every chart; the legend lists the scenarios drawn. */
export function scenarioColor(r: RunReport, shown: readonly string[]) {
  return {
    field: "scenario",
    type: "nominal",
    title: "scenario",
    scale: { domain: r.scenarios.map((s) => s.id), scheme: "tableau10" },
    legend: { values: shown },
  } as const;
}
