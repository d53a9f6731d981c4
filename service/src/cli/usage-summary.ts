/** `keys usage`: completions usage summed per key and model over the days asked, as JSON rows or a table. */
import type { UsageResult } from "../domain/usage/usage-report.js";
import { table } from "./table.js";

export interface KeyModelUsage {
  api_key_id: string;
  /** The key's name; null for a key deleted since. */
  name: string | null;
  model: string;
  num_model_requests: number;
  input_tokens: number;
  output_tokens: number;
}

/** Sums daily results per key and model; rows ordered by key name, then model. */
export function summarize(results: UsageResult[], names: Map<string, string>): KeyModelUsage[] {
  const rows = new Map<string, KeyModelUsage>();
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
    ["KEY", "NAME", "MODEL", "REQUESTS", "INPUT TOKENS", "OUTPUT TOKENS"],
    rows.map((r) => [
      r.api_key_id,
      r.name ?? "(deleted)",
      r.model,
      String(r.num_model_requests),
      String(r.input_tokens),
      String(r.output_tokens),
    ]),
    3,
  );
}
