/**
 * Bench section "budget-spend": what a budget check's spend query costs (recorded-spend.ts) as the
 * minute rows of a month grow, 10k → 100k → 1M, on a throwaway database of the local PostgreSQL
 * server (TEST_DATABASE_URL's server) filled by generate_series in the server, as the capacity
 * bench's usage dimension fills it. Beside it, the query it replaced (every minute row since the
 * period's start), on the same rows: both answers must be equal, and the ratio is printed.
 *
 * The period is a month starting inside a minute and an hour, as a budget set at any moment has;
 * the scopes are the project (a project budget) and one key (a key budget).
 * `BENCH_BUDGET_SIZES=10000,1000000` picks the sizes; `BENCH_BUDGET_SAMPLES` the queries timed a point.
 */
import { quantiles, sizeLabel, timeEach } from "./capacity/curve.js";
import { openTestStore } from "../../test/helpers/store.js";
import { recordedSpend } from "../src/domain/spend/recorded-spend.js";
import type { Queryable } from "../src/store/db.js";

const SIZES = process.env.BENCH_BUDGET_SIZES?.split(",").map(Number) ?? [10_000, 100_000, 1_000_000];
const SAMPLES = Number(process.env.BENCH_BUDGET_SAMPLES ?? 10);
const MINUTES = 30 * 24 * 60;

type Scope = { projectId: string; keyId?: string };

/** The spend as recordedSpend read it before the roll-ups: every minute row since the start. */
async function minuteSum(db: Queryable, scope: Scope, start: number): Promise<number> {
  const params: unknown[] = [scope.projectId, new Date(Math.ceil(start / 60_000) * 60_000).toISOString()];
  const byKey = scope.keyId === undefined ? "" : `AND api_key_id = $${params.push(scope.keyId)}`;
  const { rows } = await db.query<{ spent: string | null }>(
    `SELECT sum(input_cost_micro_usd + output_cost_micro_usd) AS spent FROM usage_minutes
      WHERE project_id = $1 AND minute >= $2::timestamptz ${byKey}`,
    params,
  );
  return Number(rows[0]?.spent ?? 0);
}

/** p50 ms of `SAMPLES` sequential calls, and the answer they gave. */
async function timed(fn: () => Promise<number>): Promise<{ ms: number; answer: number }> {
  let answer = NaN;
  const ms = quantiles(await timeEach(SAMPLES, async () => void (answer = await fn()), 2)).p50;
  return { ms, answer };
}

export async function run(): Promise<void> {
  const store = await openTestStore("postgres");
  const now = Date.now();
  // One anchor for every insert: rows of one group written by two statements must not meet on a minute.
  const anchor = new Date(now - (now % 60_000)).toISOString();
  // A month ago, inside a minute and an hour: the first partial hour is read from the minute rows.
  const start = now - 30 * 86_400_000 + 1_234_567;
  const scopes: Array<[string, Scope]> = [
    ["project", { projectId: "default" }],
    ["key", { projectId: "default", keyId: "key_0" }],
  ];
  console.log(`  p50 of ${SAMPLES} sequential queries; minute rows within the last 30 days, one project`);
  console.log("  rows    scope     minute rows (before)   roll-ups (after)   before / after");
  let stored = 0;
  try {
    for (const size of SIZES) {
      const filled = performance.now();
      // Row i: minute i mod 30 days back from the current one, group i div 30 days (a key and one of three models).
      await store.db.query(
        `INSERT INTO usage_minutes (project_id, api_key_id, model, minute, requests, input_tokens, output_tokens,
                                    input_cost_micro_usd, output_cost_micro_usd)
         SELECT 'default', 'key_' || (i / ${MINUTES}), 'model-' || (i / ${MINUTES}) % 3,
                $3::timestamptz - (i % ${MINUTES}) * interval '1 minute', 1, 100, 20, 250 + i % 77, 600 + i % 91
           FROM generate_series($1::int, $2::int - 1) AS i`,
        [stored, size, anchor],
      );
      stored = size;
      await store.db.query("ANALYZE usage_minutes, usage_hours, usage_days");
      const fillS = (performance.now() - filled) / 1000;
      for (const [name, scope] of scopes) {
        const before = await timed(() => minuteSum(store.db, scope, start));
        const after = await timed(() => recordedSpend(store.db, scope, start));
        if (before.answer !== after.answer)
          throw new Error(`${name} at ${size} rows: ${after.answer} from the roll-ups, ${before.answer} from minutes`);
        console.log(
          `  ${sizeLabel(size).padEnd(7)} ${name.padEnd(9)} ${before.ms.toFixed(2).padStart(10)} ms` +
            `${after.ms.toFixed(2).padStart(19)} ms${(before.ms / after.ms).toFixed(1).padStart(15)}×`,
        );
      }
      console.log(`          (filled in ${fillS.toFixed(1)} s; both answers equal)`);
    }
  } finally {
    await store.drop();
  }
}
