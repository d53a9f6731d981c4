/**
 * The usage API reads whole days and hours from sums kept beside the minute rows (migration 010's
 * triggers): every width, grouping, filter and an end in the middle of an hour answer exactly what
 * the minute rows hold, after inserts and after upserts adding to existing rows.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestStore, STORE_KINDS, type TestStore } from "../helpers/store.js";
import { UsageMeter } from "../../service/src/domain/usage/usage-meter.js";
import { DAY0, deterministicUses } from "../helpers/usage-uses.js";
import {
  BUCKET_WIDTHS,
  usageReport,
  type BucketWidth,
  type GroupBy,
  type UsageQuery,
} from "../../service/src/domain/usage/usage-report.js";

const uses = () => deterministicUses(7);

/** What the report should say, summed from the uses themselves: "bucket group…" → [requests, in, out]. */
function expected(all: ReturnType<typeof uses>, q: UsageQuery): Map<string, number[]> {
  const width = BUCKET_WIDTHS[q.width];
  const first = q.startTime - (q.startTime % width);
  const until = Math.min(q.endTime, first + q.limit * width);
  const out = new Map<string, number[]>();
  for (const { at, record: r } of all) {
    const minute = at - (at % 60);
    if (r.projectId !== q.projectId || minute < first || minute >= until) continue;
    if (q.apiKeyIds && !q.apiKeyIds.includes(r.keyId)) continue;
    const group = q.groupBy.map((g) => (g === "api_key_id" ? r.keyId : g === "model" ? r.model : r.projectId));
    const k = [minute - (minute % width), ...group].join(" ");
    const s = out.get(k) ?? [0, 0, 0];
    out.set(k, [s[0] + 1, s[1] + r.inputTokens, s[2] + r.outputTokens]);
  }
  return out;
}

async function reported(db: TestStore["db"], q: UsageQuery): Promise<Map<string, number[]>> {
  const page = await usageReport(db, q);
  const out = new Map<string, number[]>();
  for (const b of page.data)
    for (const r of b.results) {
      const group = q.groupBy.map((g) => r[g]);
      out.set([b.start_time, ...group].join(" "), [r.num_model_requests, r.input_tokens, r.output_tokens]);
    }
  return out;
}

describe.each(STORE_KINDS)("usage roll-ups (%s)", (kind) => {
  let store: TestStore;
  // PGlite's first instance of a test process builds its template: slow on a busy machine.
  beforeAll(async () => {
    store = await openTestStore(kind);
  }, 120_000);
  afterAll(() => store?.drop());

  it("answers every width, grouping and filter as the minute rows do, ends mid-hour included", async () => {
    const all = uses();
    const meter = new UsageMeter(store.db);
    // Two flushes of overlapping minutes: the second adds to existing rows (the upsert's update).
    for (const half of [all.slice(0, 200), all.slice(200)]) {
      for (const u of half) meter.record(u.record, u.at * 1000);
      await meter.flush();
    }
    const queries: Array<[BucketWidth, number, number, number, GroupBy[], string[]?]> = [
      ["1d", DAY0, DAY0 + 3 * 86_400, 7, []],
      ["1d", DAY0 + 5000, DAY0 + 2 * 86_400 + 4321, 7, ["api_key_id", "model"]],
      ["1h", DAY0 + 3600 * 5, DAY0 + 86_400 + 1234, 168, ["model"], ["key_b"]],
      ["1m", DAY0 + 86_400 + 600, DAY0 + 86_400 + 3 * 3600 + 59, 1440, ["api_key_id"]],
      ["1d", DAY0, DAY0 + 3 * 86_400, 2, ["project_id"]],
    ];
    for (const [width, startTime, endTime, limit, groupBy, apiKeyIds] of queries) {
      const q: UsageQuery = { projectId: "p", startTime, endTime, width, limit, groupBy, apiKeyIds };
      const want = expected(all, q);
      expect(want.size).toBeGreaterThan(0);
      expect(await reported(store.db, q)).toEqual(want);
    }
  });

  it("answers whole days from the daily sums, not by reading each minute row", async () => {
    const q: UsageQuery = {
      projectId: "p",
      startTime: DAY0,
      endTime: DAY0 + 2 * 86_400,
      width: "1d",
      limit: 7,
      groupBy: [],
    };
    const before = await reported(store.db, q);
    // The minute rows of those two days gone, the days' answer stands.
    await store.db.query("DELETE FROM usage_minutes WHERE minute < to_timestamp($1)", [DAY0 + 2 * 86_400]);
    expect(await reported(store.db, q)).toEqual(before);
    expect(before.size).toBe(2);
  });
});
