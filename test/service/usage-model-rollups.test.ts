/**
 * Migration 014's per-model roll-ups (read by reports that neither group nor filter by key) hold,
 * in every tier, exactly the per-key tier summed over keys: after the backfill of rows written
 * before it (minute rows deleted since included), and after inserts and upserts on either side of it.
 * Reports read from them answer byte for byte what the per-key tiers answer.
 */
import { describe, expect, it } from "vitest";
import { PGlite } from "@electric-sql/pglite";
import { createTestDatabase, openTestStore, STORE_KINDS, type StoreKind } from "../helpers/store.js";
import type { Db } from "../../service/src/store/db.js";
import { migrate } from "../../service/src/store/migrate.js";
import { pgliteDb } from "../../service/src/store/pglite.js";
import { openPostgres } from "../../service/src/store/postgres.js";
import { UsageMeter } from "../../service/src/domain/usage/usage-meter.js";
import { DAY0, deterministicUses, KEYS, MODELS } from "../helpers/usage-uses.js";
import {
  BUCKET_WIDTHS,
  usageReport,
  type BucketWidth,
  type UsageQuery,
} from "../../service/src/domain/usage/usage-report.js";
import { costReport, type CostQuery } from "../../service/src/domain/spend/cost-report.js";
import { usd } from "../../service/src/domain/spend/cost.js";

const SUMS =
  "sum(requests)::text AS requests, sum(input_tokens)::text AS input_tokens, sum(output_tokens)::text AS output_tokens, " +
  "sum(input_cost_micro_usd)::text AS input_cost, sum(output_cost_micro_usd)::text AS output_cost";
const TIERS = [
  ["usage_minutes", "usage_model_minutes", "minute"],
  ["usage_hours", "usage_model_hours", "hour"],
  ["usage_days", "usage_model_days", "day"],
] as const;

/**
 * Each tier's rows as "project model time" → sums, per key summed and per model as stored; minutes
 * from usage_model_minutes' start on (the minutes before it are read from the minute rows).
 */
async function tiers(db: Db) {
  const out: Record<string, { perKey: unknown[]; perModel: unknown[] }> = {};
  for (const [perKey, perModel, column] of TIERS) {
    const since = column === "minute" ? "WHERE minute >= (SELECT minute FROM usage_model_minutes_start)" : "";
    const read = async (table: string) =>
      (
        await db.query(
          `SELECT project_id, model, ${column} AS t, ${SUMS} FROM ${table} ${since} GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
        )
      ).rows;
    out[column] = { perKey: await read(perKey), perModel: await read(perModel) };
  }
  return out;
}

async function expectPerModelMatchesPerKey(db: Db, withMinutes: boolean) {
  const t = await tiers(db);
  for (const [, , column] of TIERS) {
    if (column !== "minute" || withMinutes) expect(t[column].perModel.length).toBeGreaterThan(0);
    expect({ column, rows: t[column].perModel }).toEqual({ column, rows: t[column].perKey });
  }
}

/** A store migrated only as far as the release before migration 014 left it. */
async function storeBefore014(kind: StoreKind): Promise<{ db: Db; drop(): Promise<void> }> {
  if (kind === "pglite") {
    const db = pgliteDb(await PGlite.create());
    await migrate(db, "013-usage-rollup-costs.sql");
    return { db, drop: () => db.close() };
  }
  const scratch = await createTestDatabase();
  const db = await openPostgres(scratch.url);
  await migrate(db, "013-usage-rollup-costs.sql");
  return { db, drop: async () => (await db.close(), await scratch.drop()) };
}

describe.each(STORE_KINDS)("per-model usage roll-ups (%s)", (kind) => {
  it("backfills from the per-key tiers, then keeps every tier equal on inserts and upserts", async () => {
    const old = await storeBefore014(kind);
    try {
      const all = deterministicUses(13, true);
      const meter = new UsageMeter(old.db);
      for (const u of all.slice(0, 250)) meter.record(u.record, u.at * 1000);
      await meter.flush();
      // Minute rows gone before the migration: their hours and days stay in the per-key tiers, so in the per-model ones too.
      await old.db.query("DELETE FROM usage_minutes WHERE minute < to_timestamp($1)", [DAY0 + 3600]);
      expect(await migrate(old.db)).toContain("014-usage-model-rollups.sql");
      await expectPerModelMatchesPerKey(old.db, false);
      // Then a flush of new minutes and one adding to existing rows (the upsert's update), through the replaced trigger function.
      for (const half of [all.slice(250, 330), all.slice(330)]) {
        for (const u of half) meter.record(u.record, u.at * 1000);
        await meter.flush();
      }
      for (const u of all.slice(0, 100)) meter.record(u.record, u.at * 1000);
      await meter.flush();
      await expectPerModelMatchesPerKey(old.db, false);
    } finally {
      await old.drop();
    }
  }, 120_000);
});

/** The costs page's amounts as the minute rows alone sum them: "bucket line" → USD (line: input, output or null). */
async function costsFromMinutes(db: Db, q: CostQuery): Promise<Map<string, number>> {
  const width = BUCKET_WIDTHS[q.width];
  const first = q.startTime - (q.startTime % width);
  const until = Math.min(q.endTime, first + q.limit * width);
  const { rows } = await db.query<{ t: number; model: string; i: string; o: string }>(
    `SELECT extract(epoch FROM date_bin($4::interval, minute, TIMESTAMPTZ 'epoch'))::int AS t, model,
            sum(input_cost_micro_usd) AS i, sum(output_cost_micro_usd) AS o
       FROM usage_minutes WHERE project_id = $1 AND minute >= to_timestamp($2) AND minute < to_timestamp($3)
      GROUP BY 1, 2`,
    [q.projectId, first, until, `${width} seconds`],
  );
  const micros = new Map<string, number>();
  const add = (k: string, v: number) => v > 0 && micros.set(k, (micros.get(k) ?? 0) + v);
  for (const r of rows) {
    if (!q.groupBy.includes("line_item")) add(`${r.t} null`, Number(r.i) + Number(r.o));
    else {
      add(`${r.t} ${r.model}, input`, Number(r.i));
      add(`${r.t} ${r.model}, output`, Number(r.o));
    }
  }
  return new Map([...micros].map(([k, v]) => [k, usd(v)]));
}

describe.each(STORE_KINDS)("reports from the per-model roll-ups (%s)", (kind) => {
  it("answer as the per-key tiers do: widths, groupings, model filters, partial days, limits", async () => {
    const store = await openTestStore(kind);
    try {
      // Usage after the store's per-model minutes start (the hour it was migrated in): a day from now on.
      const day0 = Math.floor(Date.now() / 86_400_000) * 86_400 + 2 * 86_400;
      const meter = new UsageMeter(store.db);
      const all = deterministicUses(17, true);
      for (const half of [all.slice(0, 200), all.slice(200)]) {
        for (const u of half) meter.record(u.record, (u.at - DAY0 + day0) * 1000);
        await meter.flush();
      }
      await expectPerModelMatchesPerKey(store.db, true);
      const queries: Array<[BucketWidth, number, number, number]> = [
        ["1d", day0, day0 + 3 * 86_400, 7],
        ["1d", day0 + 5000, day0 + 2 * 86_400 + 4321, 7],
        ["1d", day0, day0 + 3 * 86_400, 2],
        ["1h", day0 + 3600 * 5, day0 + 86_400 + 1234, 168],
        ["1m", day0 + 86_400 + 600, day0 + 86_400 + 3 * 3600 + 59, 1440],
        ["1m", day0 + 86_400 + 600, day0 + 86_400 + 3 * 3600 + 59, 30],
      ];
      for (const [width, startTime, endTime, limit] of queries) {
        for (const groupBy of [[], ["model"], ["project_id"], ["project_id", "model"]] as const)
          for (const models of [undefined, [MODELS[1]]]) {
            const q: UsageQuery = { projectId: "p", startTime, endTime, width, limit, groupBy, models };
            // A filter naming every key reads the per-key tiers: the same page, byte for byte.
            expect(await usageReport(store.db, q)).toEqual(await usageReport(store.db, { ...q, apiKeyIds: KEYS }));
          }
        for (const groupBy of [[], ["line_item"]] as const) {
          const q: CostQuery = { projectId: "p", startTime, endTime, width, limit, groupBy };
          const got = new Map<string, number>();
          for (const b of (await costReport(store.db, q)).data)
            for (const r of b.results) got.set(`${b.start_time} ${r.line_item}`, r.amount.value);
          expect({ q, got }).toEqual({ q, got: await costsFromMinutes(store.db, q) });
        }
      }
    } finally {
      await store.drop();
    }
  }, 120_000);
});
