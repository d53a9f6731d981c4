/**
 * The spend the usage rows recorded since a budget period's start, as a budget check asks it (the
 * limiter seeding a window, the budget APIs' `spent_usd`).
 *
 * Summing the minute rows of a month read ~43k rows per key and model. The roll-ups (migrations
 * 010 and 013) hold the same micro-dollars per UTC hour and day, so the sum reads the minutes of
 * the period's first partial hour, the hours of its first partial day, and whole days from there on
 * — at most 59 + 23 rows per key and model, plus one per day. There is no roll-up job to wait for:
 * the triggers on usage_minutes add to the roll-ups in the writer's own statement, and the three
 * reads are one statement, so they see one snapshot: a flush is in all three or in none.
 */
import type { Queryable } from "../../store/db.js";

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

const ceilTo = (ms: number, step: number) => Math.ceil(ms / step) * step;

/**
 * Where the spend since `start` (epoch ms) is read: minute rows in [minutes, hours), hourly sums in
 * [hours, days), daily sums from `days` on (UTC, as the roll-ups' date_bin from the epoch). Each
 * minute counts once: the edges are whole hours and days, so a minute's hour (its minute floored)
 * lies in [hours, days) exactly when the minute does, and its day is at or after `days` exactly
 * when the minute is.
 */
export function spendEdges(start: number): { minutes: number; hours: number; days: number } {
  // A window that starts inside a minute counts from the next whole minute (the rows are per minute).
  const minutes = ceilTo(start, MINUTE_MS);
  const hours = ceilTo(minutes, HOUR_MS);
  return { minutes, hours, days: ceilTo(hours, DAY_MS) };
}

/**
 * Micro-dollars the usage rows recorded for a key (or a whole project) since `start` (epoch ms).
 * A period shorter than a minute starts from 0, never from the last period's spend; a longer one
 * misses at most its first partial minute.
 */
export async function recordedSpend(
  db: Queryable,
  scope: { projectId: string; keyId?: string },
  start: number,
): Promise<number> {
  const { minutes, hours, days } = spendEdges(start);
  const at = (ms: number) => new Date(ms).toISOString();
  const params: unknown[] = [scope.projectId, at(minutes), at(hours), at(days)];
  const byKey = scope.keyId === undefined ? "" : `AND api_key_id = $${params.push(scope.keyId)}`;
  const cost = "input_cost_micro_usd + output_cost_micro_usd";
  const { rows } = await db.query<{ spent: string | number | null }>(
    `SELECT sum(c) AS spent FROM (
       SELECT ${cost} AS c FROM usage_minutes
        WHERE project_id = $1 AND minute >= $2::timestamptz AND minute < $3::timestamptz ${byKey}
       UNION ALL
       SELECT ${cost} FROM usage_hours WHERE project_id = $1 AND hour >= $3::timestamptz AND hour < $4::timestamptz ${byKey}
       UNION ALL
       SELECT ${cost} FROM usage_days WHERE project_id = $1 AND day >= $4::timestamptz ${byKey}
     ) AS parts`,
    params,
  );
  return Number(rows[0]?.spent ?? 0);
}
