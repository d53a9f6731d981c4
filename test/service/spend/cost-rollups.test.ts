/**
 * The costs API reads whole days and hours from the roll-ups (migration 013 adds spend to them):
 * every width and grouping answers, to the micro-dollar, what the minute rows alone answer —
 * after inserts and after upserts adding to existing rows (the write path's triggers), and after
 * migration 013 backfills the spend of rows written before it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PGlite } from "@electric-sql/pglite";
import { createTestDatabase, openTestStore, STORE_KINDS, type StoreKind, type TestStore } from "../../helpers/store.js";
import type { Db, Queryable } from "../../../service/src/store/db.js";
import { migrate } from "../../../service/src/store/migrate.js";
import { pgliteDb } from "../../../service/src/store/pglite.js";
import { openPostgres } from "../../../service/src/store/postgres.js";
import { UsageMeter } from "../../../service/src/domain/usage/usage-meter.js";
import { DAY0, deterministicUses } from "../../helpers/usage-uses.js";
import { BUCKET_WIDTHS, type BucketWidth } from "../../../service/src/domain/usage/usage-report.js";
import { costReport, type CostGroupBy, type CostQuery } from "../../../service/src/domain/spend/cost-report.js";
import { usd } from "../../../service/src/domain/spend/cost.js";

const uses = () => deterministicUses(11, true);

const QUERIES: Array<[BucketWidth, number, number, number, CostGroupBy[]]> = [
  ["1d", DAY0, DAY0 + 3 * 86_400, 7, []],
  ["1d", DAY0 + 5000, DAY0 + 2 * 86_400 + 4321, 7, ["line_item", "project_id"]],
  ["1d", DAY0, DAY0 + 3 * 86_400, 2, ["api_key_id", "model"]],
  ["1h", DAY0 + 3600 * 5, DAY0 + 86_400 + 1234, 168, ["model", "line_item"]],
  ["1m", DAY0 + 86_400 + 600, DAY0 + 86_400 + 3 * 3600 + 59, 1440, ["api_key_id"]],
];

/** The costs page as the minute rows alone answer it (the report's query before migration 013). */
async function fromMinutes(db: Queryable, q: CostQuery): Promise<Map<string, number>> {
  const width = BUCKET_WIDTHS[q.width];
  const first = q.startTime - (q.startTime % width);
  const until = Math.min(q.endTime, first + q.limit * width);
  const { rows } = await db.query<{
    t: number;
    project_id: string;
    api_key_id: string;
    model: string;
    i: string;
    o: string;
  }>(
    `SELECT extract(epoch FROM date_bin($4::interval, minute, TIMESTAMPTZ 'epoch'))::int AS t, project_id, api_key_id, model,
            sum(input_cost_micro_usd) AS i, sum(output_cost_micro_usd) AS o
       FROM usage_minutes WHERE project_id = $1 AND minute >= to_timestamp($2) AND minute < to_timestamp($3)
      GROUP BY 1, 2, 3, 4`,
    [q.projectId, first, until, `${width} seconds`],
  );
  const micros = new Map<string, number>();
  const add = (k: string, v: number) => v > 0 && micros.set(k, (micros.get(k) ?? 0) + v);
  for (const r of rows) {
    const group = (line: string | null) =>
      [
        r.t,
        q.groupBy.includes("project_id") ? r.project_id : null,
        q.groupBy.includes("api_key_id") ? r.api_key_id : null,
        q.groupBy.includes("model") || q.groupBy.includes("line_item") ? r.model : null,
        line,
      ].join(" ");
    if (q.groupBy.includes("line_item")) {
      add(group("input"), Number(r.i));
      add(group("output"), Number(r.o));
    } else add(group(null), Number(r.i) + Number(r.o));
  }
  return new Map([...micros].map(([k, v]) => [k, usd(v)]));
}

/** The costs report's page as the same map: "bucket project key model line" → USD. */
async function reported(db: Queryable, q: CostQuery): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const b of (await costReport(db, q)).data)
    for (const r of b.results) {
      const line = r.line_item === null ? null : r.line_item.endsWith(", input") ? "input" : "output";
      const model = r.model ?? (r.line_item === null ? null : r.line_item.replace(/, (input|output)$/, ""));
      out.set([b.start_time, r.project_id, r.api_key_id, model, line].join(" "), r.amount.value);
    }
  return out;
}

async function expectEveryQueryMatches(db: Queryable) {
  for (const [width, startTime, endTime, limit, groupBy] of QUERIES) {
    const q: CostQuery = { projectId: "p", startTime, endTime, width, limit, groupBy };
    const want = await fromMinutes(db, q);
    expect(want.size).toBeGreaterThan(0);
    expect({ q, got: await reported(db, q) }).toEqual({ q, got: want });
  }
}

/** A store migrated only as far as the release before migration 013 left it. */
async function storeBefore013(kind: StoreKind): Promise<{ db: Db; drop(): Promise<void> }> {
  if (kind === "pglite") {
    const db = pgliteDb(await PGlite.create());
    await migrate(db, "012-spend-and-budgets.sql");
    return { db, drop: () => db.close() };
  }
  const scratch = await createTestDatabase();
  const db = await openPostgres(scratch.url);
  await migrate(db, "012-spend-and-budgets.sql");
  return { db, drop: async () => (await db.close(), await scratch.drop()) };
}

describe.each(STORE_KINDS)("costs from the roll-ups (%s)", (kind) => {
  let store: TestStore;
  // PGlite's first instance of a test process builds its template: slow on a busy machine.
  beforeAll(async () => {
    store = await openTestStore(kind);
  }, 120_000);
  afterAll(() => store?.drop());

  it("answers every width and grouping as the minute rows do, to the micro-dollar", async () => {
    const all = uses();
    const meter = new UsageMeter(store.db);
    // Two flushes of overlapping minutes: the second adds to existing rows (the upsert's update).
    for (const half of [all.slice(0, 200), all.slice(200)]) {
      for (const u of half) meter.record(u.record, u.at * 1000);
      await meter.flush();
    }
    await expectEveryQueryMatches(store.db);
  });

  it("answers whole days from the daily sums, not by reading each minute row", async () => {
    const q: CostQuery = {
      projectId: "p",
      startTime: DAY0,
      endTime: DAY0 + 2 * 86_400,
      width: "1d",
      limit: 7,
      groupBy: [],
    };
    const before = await reported(store.db, q);
    expect(before.size).toBe(2);
    // The minute rows of those two days gone, the days' answer stands.
    await store.db.query("DELETE FROM usage_minutes WHERE minute < to_timestamp($1)", [DAY0 + 2 * 86_400]);
    expect(await reported(store.db, q)).toEqual(before);
  });

  it("backfills the spend of rows written before migration 013, and keeps it on writes after", async () => {
    const old = await storeBefore013(kind);
    try {
      const all = uses();
      const meter = new UsageMeter(old.db);
      for (const u of all.slice(0, 300)) meter.record(u.record, u.at * 1000);
      await meter.flush();
      expect(await migrate(old.db)).toContain("013-usage-rollup-costs.sql");
      for (const u of all.slice(300)) meter.record(u.record, u.at * 1000);
      await meter.flush();
      await expectEveryQueryMatches(old.db);
    } finally {
      await old.drop();
    }
  }, 120_000);
});
