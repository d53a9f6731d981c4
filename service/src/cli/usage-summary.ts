/** `keys usage`: completions usage summed per key and model over the days asked, as JSON rows or a table. */
import type { UsageResult } from "../domain/usage/usage-report.js";
import type { CostResult } from "../domain/spend/cost-report.js";
import { MICROS_PER_USD } from "../domain/spend/cost.js";
import { table } from "./table.js";

export interface KeyModelUsage {
  api_key_id: string;
  /** The key's name; null for a key deleted since. */
  name: string | null;
  model: string;
  num_model_requests: number;
  input_tokens: number;
  output_tokens: number;
  /** What these runs cost (tokens × the agent's price), USD. */
  cost_usd: number;
}

/** Sums daily results per key and model; rows ordered by key name, then model. */
export function summarize(
  results: UsageResult[],
  names: Map<string, string>,
  costs: CostResult[] = [],
): KeyModelUsage[] {
  const rows = new Map<string, KeyModelUsage>();
  // Summed in micro-dollars, so the total is exact; shown in USD.
  const micros = new Map<string, number>();
  for (const c of costs) {
    const id = `${c.api_key_id}\n${c.model}`;
    micros.set(id, (micros.get(id) ?? 0) + Math.round(c.amount.value * MICROS_PER_USD));
  }
  for (const r of results) {
    const id = `${r.api_key_id}\n${r.model}`;
    let row = rows.get(id);
    if (!row) {
      row = {
        api_key_id: r.api_key_id ?? "",
        name: names.get(r.api_key_id ?? "") ?? null,
        model: r.model ?? "",
        num_model_requests: 0,
        input_tokens: 0,
        output_tokens: 0,
        cost_usd: (micros.get(id) ?? 0) / MICROS_PER_USD,
      };
      rows.set(id, row);
    }
    row.num_model_requests += r.num_model_requests;
    row.input_tokens += r.input_tokens;
    row.output_tokens += r.output_tokens;
  }
  return [...rows.values()].sort(
    (a, b) =>
      (a.name ?? "").localeCompare(b.name ?? "") ||
      a.api_key_id.localeCompare(b.api_key_id) ||
      a.model.localeCompare(b.model),
  );
}

export function usageTable(rows: KeyModelUsage[]): string {
  return table(
    ["KEY", "NAME", "MODEL", "REQUESTS", "INPUT TOKENS", "OUTPUT TOKENS", "COST (USD)"],
    rows.map((r) => [
      r.api_key_id,
      r.name ?? "(deleted)",
      r.model,
      String(r.num_model_requests),
      String(r.input_tokens),
      String(r.output_tokens),
      r.cost_usd.toFixed(6),
    ]),
    3,
  );
}
