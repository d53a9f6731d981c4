/**
 * Capacity dimension "usage rows": 10k → 1M → 10M minute rows of completions usage, all within the
 * last 30 days (the densest a month can be: more keys and models a minute, not a longer history),
 * bulk-inserted by generate_series in the server. Timed: the usage API over those 30 days, in
 * daily buckets, ungrouped and grouped by model, as an owner's dashboard asks it, and the costs
 * API over the same days by line item.
 *
 * Every size's answer has the same shape: each fill spreads its rows over all 30 days and the three
 * models, more keys as it grows, so only the rows behind the answer grow. (Laid end to end, the
 * 10k rows were a week of one model, and the 10M rows' answer 12× longer: that read as growth.)
 */
import { Caller } from "./http.js";
import { printCurve, type Point } from "./curve.js";
import { measurePoint, relationMb, settleTables, startOnScratchDatabase } from "./store-service.js";

const MINUTES = 30 * 24 * 60;
/** A key's slots: each minute of the 30 days for each of three models. */
const SLOTS = MINUTES * 3;

export async function run(sizes: number[], samples: number): Promise<boolean> {
  const s = await startOnScratchDatabase([{ id: "synthetic-20", kind: "synthetic", tokens: 20 }]);
  const caller = new Caller(s.service.url);
  const token = await s.memberToken();
  const curves = { total: [] as Point[], byModel: [] as Point[], costs: [] as Point[] };
  const now = Math.floor(Date.now() / 1000);
  const start = now - 30 * 86_400;
  // One anchor for every insert: rows of one group written by two statements must not meet on a minute.
  const anchor = new Date((now - (now % 60)) * 1000).toISOString();
  let stored = 0;
  try {
    for (const size of sizes) {
      // Row j of this fill: slot j (spread evenly when the fill has fewer rows than a key has slots),
      // minute slot / 3 back from the current one, model slot mod 3, a key of its own fill.
      const rows = size - stored;
      await s.sql.query(
        `INSERT INTO usage_minutes (project_id, api_key_id, model, minute, requests, input_tokens, output_tokens,
                                    input_cost_micro_usd, output_cost_micro_usd)
         SELECT 'default', 'key_' || $3::text || '_' || k, 'model-' || slot % 3,
                $2::timestamptz - (slot / 3) * interval '1 minute', 1 + j % 5, 100 + j % 50, 20 + j % 30,
                250 + j % 77, 600 + j % 91
           FROM generate_series(0, $1::int - 1) AS j,
                LATERAL (SELECT CASE WHEN $1::int <= ${SLOTS} THEN 0 ELSE j / ${SLOTS} END AS k,
                                CASE WHEN $1::int <= ${SLOTS} THEN (j::bigint * ${SLOTS} / $1::int)::int ELSE j % ${SLOTS} END AS slot) AS at`,
        [rows, anchor, size],
      );
      stored = size;
      await settleTables(s.sql);
      const path = (groups: string) =>
        `/v1/organization/usage/completions?start_time=${start}&bucket_width=1d&limit=31${groups}`;
      curves.total.push(await measurePoint(s, size, samples, () => caller.call(path(""), token)));
      curves.byModel.push(await measurePoint(s, size, samples, () => caller.call(path("&group_by=model"), token)));
      const costs = `/v1/organization/costs?start_time=${start}&bucket_width=1d&limit=31&group_by=line_item`;
      curves.costs.push(await measurePoint(s, size, samples, () => caller.call(costs, token)));
      console.log(`    (${size} rows: usage tables ${(await usageMb(s.sql)).toFixed(1)} MB with indexes)`);
    }
  } finally {
    await caller.close();
    await s.stop();
  }
  const a = printCurve("usage API, 30 days in daily buckets", "rows", curves.total, "the service's RSS");
  const b = printCurve("usage API, 30 days by model", "rows", curves.byModel, "the service's RSS");
  const c = printCurve("costs API, 30 days by line item", "rows", curves.costs, "the service's RSS");
  return a && b && c;
}

async function usageMb(sql: Parameters<typeof relationMb>[0]): Promise<number> {
  const { rows } = await sql.query<{ name: string }>(
    "SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' AND tablename LIKE 'usage_%'",
  );
  let mb = 0;
  for (const r of rows) mb += await relationMb(sql, r.name);
  return mb;
}
