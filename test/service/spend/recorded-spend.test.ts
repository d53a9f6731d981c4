/**
 * A budget check's spend reads the roll-ups for whole hours and days and the minute rows only for
 * the period's first partial hour: it answers, to the micro-dollar, what the minute rows alone
 * answer — for starts on and inside every bucket width, for a key or a whole project, for empty
 * periods, and at once for rows written after an earlier check (the triggers add them to the
 * roll-ups in the writing statement: there is no roll-up job to wait for).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestStore, STORE_KINDS, type TestStore } from "../../helpers/store.js";
import type { Queryable } from "../../../service/src/store/db.js";
import { UsageMeter } from "../../../service/src/domain/usage/usage-meter.js";
import { recordedSpend } from "../../../service/src/domain/spend/recorded-spend.js";
import { DAY0, deterministicUses } from "../../helpers/usage-uses.js";

type Scope = { projectId: string; keyId?: string };

/** The spend as the minute rows alone answer it (recordedSpend's query before the roll-ups). */
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

const S = 1000;
const DAY = 86_400;
/** The uses span DAY0 to DAY0 + 3 days; `late` ones the fourth day. */
const STARTS = {
  total: 0,
  "on a day": DAY0 * S,
  "inside a minute, hour and day": (DAY0 + 5_000) * S + 17,
  "on an hour inside a day": (DAY0 + DAY + 7 * 3600) * S,
  "on a minute inside an hour": (DAY0 + DAY + 7 * 3600 + 13 * 60) * S,
  "in the data's last minute": (DAY0 + 3 * DAY - 30) * S,
  "inside the fourth day": (DAY0 + 3 * DAY + 3600 + 90) * S + 1,
  "after every row": (DAY0 + 5 * DAY + 61) * S,
};
const SCOPES: Scope[] = [
  { projectId: "p" },
  { projectId: "p", keyId: "key_a" },
  { projectId: "other", keyId: "key_b" },
  { projectId: "no-usage" },
];

/** Every start and scope: [recordedSpend, minute sum], keyed by what was asked. */
async function bothAnswers(db: Queryable) {
  const got: Record<string, number> = {};
  const want: Record<string, number> = {};
  for (const scope of SCOPES)
    for (const [name, start] of Object.entries(STARTS)) {
      const k = `${scope.projectId}/${scope.keyId ?? "*"} from ${name}`;
      got[k] = await recordedSpend(db, scope, start);
      want[k] = await minuteSum(db, scope, start);
    }
  return { got, want };
}

async function write(db: TestStore["db"], uses: ReturnType<typeof deterministicUses>) {
  const meter = new UsageMeter(db);
  for (const u of uses) meter.record(u.record, u.at * S);
  await meter.flush();
}

describe.each(STORE_KINDS)("recorded spend from the roll-ups (%s)", (kind) => {
  let store: TestStore;
  // PGlite's first instance of a test process builds its template: slow on a busy machine.
  beforeAll(async () => {
    store = await openTestStore(kind);
  }, 120_000);
  afterAll(() => store?.drop());

  it("answers every period start and scope as the minute rows do, to the micro-dollar", async () => {
    const all = deterministicUses(11, true);
    // Two flushes of overlapping minutes: the second adds to existing rows (the upsert's update).
    await write(store.db, all.slice(0, 200));
    await write(store.db, all.slice(200));
    const { got, want } = await bothAnswers(store.db);
    expect(got).toEqual(want);
    // That start's minutes, hours and days each hold spend: all three parts were summed.
    const p = { projectId: "p" };
    const [fromHour, fromDay] = [
      await minuteSum(store.db, p, (DAY0 + 7200) * S),
      await minuteSum(store.db, p, (DAY0 + DAY) * S),
    ];
    expect(want["p/* from inside a minute, hour and day"]).toBeGreaterThan(fromHour);
    expect(fromHour).toBeGreaterThan(fromDay);
    expect(fromDay).toBeGreaterThan(0);
    expect(want["p/key_a from on a minute inside an hour"]).toBeGreaterThan(0);
    expect(want["other/key_b from on an hour inside a day"]).toBeGreaterThan(0);
    // Empty periods: past the last row, and a project without usage.
    expect(got["p/* from inside the fourth day"]).toBe(0);
    expect(got["no-usage/* from total"]).toBe(0);
  });

  it("counts rows written after a check at once: added to old minutes, and in a new day", async () => {
    const before = await bothAnswers(store.db);
    const more = deterministicUses(13, true);
    // In the fourth day: minutes whose hour and day rows are new.
    const late = deterministicUses(17, true).map((u) => ({ ...u, at: DAY0 + 3 * DAY + ((u.at - DAY0) % DAY) }));
    await write(store.db, [...more, ...late]);
    const { got, want } = await bothAnswers(store.db);
    expect(got).toEqual(want);
    expect(got["p/* from on a day"]).toBeGreaterThan(before.got["p/* from on a day"]);
    expect(got["p/* from inside the fourth day"]).toBeGreaterThan(0);
    expect(got["p/* from after every row"]).toBe(0);
  });

  it("sees a write in the writing transaction itself, before it commits", async () => {
    const start = STARTS["inside a minute, hour and day"];
    const before = await recordedSpend(store.db, { projectId: "p" }, start);
    const seen = await store.db.transaction(async (tx) => {
      await tx.query(
        `INSERT INTO usage_minutes (project_id, api_key_id, model, minute, requests, input_tokens, output_tokens,
                                    input_cost_micro_usd, output_cost_micro_usd)
         VALUES ('p', 'key_a', 'm1', to_timestamp($1), 1, 1, 1, 1000, 234)`,
        [DAY0 + 4 * DAY + 120],
      );
      return [await recordedSpend(tx, { projectId: "p" }, start), await minuteSum(tx, { projectId: "p" }, start)];
    });
    expect(seen).toEqual([before + 1234, before + 1234]);
  });

  it("reads whole days from the daily sums, not each minute row", async () => {
    const start = STARTS["on a day"];
    const before = await recordedSpend(store.db, { projectId: "p" }, start);
    // The minute rows of the first two days gone, their days' spend stands (as the costs API's does).
    await store.db.query("DELETE FROM usage_minutes WHERE minute < to_timestamp($1)", [DAY0 + 2 * DAY]);
    expect(await minuteSum(store.db, { projectId: "p" }, start)).toBeLessThan(before);
    expect(await recordedSpend(store.db, { projectId: "p" }, start)).toBe(before);
  });
});
