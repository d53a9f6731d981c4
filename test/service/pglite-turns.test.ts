/**
 * The embedded store's queries take turns with the event loop: a burst of slow queries no longer
 * runs back to back while every other request waits (store/pglite.ts). Observed by order, not by
 * time: a timer set when the burst starts fires after at most the query under way.
 */
import { PGlite } from "@electric-sql/pglite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pgliteDb } from "../../service/src/store/pglite.js";

// Tens of milliseconds of WebAssembly each: long enough that the timer is due before it ends.
const SLOW = "SELECT count(*) FROM generate_series(1, 300000)";
const BURST = 5;

/** How many of a burst of slow queries had finished when a timer set at its start fired. */
async function finishedBeforeTimer(store: { query(sql: string): Promise<unknown> }): Promise<number> {
  let finished = 0;
  const timer = new Promise<number>((resolve) => setTimeout(() => resolve(finished), 0));
  await Promise.all(Array.from({ length: BURST }, () => store.query(SLOW).then(() => finished++)));
  return timer;
}

describe("embedded store queries and the event loop", () => {
  let pg: PGlite;
  beforeAll(async () => {
    pg = await PGlite.create();
    await pg.query(SLOW); // compiled and warm
  });
  afterAll(async () => {
    await pg?.close();
  });

  it("PGlite alone runs a burst back to back: a timer waits for all of it", async () => {
    expect(await finishedBeforeTimer(pg)).toBe(BURST);
  });

  it("through the store, a timer waits for at most the query under way", async () => {
    expect(await finishedBeforeTimer(pgliteDb(pg))).toBeLessThanOrEqual(1);
  });

  it("a transaction takes one turn: its statements run together, a query sent meanwhile runs after it", async () => {
    const db = pgliteDb(pg);
    await db.query("CREATE TABLE turns (n int)");
    const order: string[] = [];
    const tx = db.transaction(async (t) => {
      await t.query("INSERT INTO turns VALUES (1)");
      order.push("tx first");
      await new Promise((resolve) => setTimeout(resolve, 5)); // other work gets the loop meanwhile
      await t.query("INSERT INTO turns VALUES (2)");
      order.push("tx second");
    });
    const read = db.query<{ count: number }>("SELECT count(*)::int AS count FROM turns").then((r) => {
      order.push("read");
      return r.rows[0].count;
    });
    await tx;
    expect(await read).toBe(2);
    expect(order).toEqual(["tx first", "tx second", "read"]);
  });

  it("a failed query does not stop the ones behind it", async () => {
    const db = pgliteDb(pg);
    const failed = db.query("SELECT * FROM no_such_table").then(
      () => "resolved",
      () => "rejected",
    );
    const next = db.query<{ one: number }>("SELECT 1 AS one");
    expect(await failed).toBe("rejected");
    expect((await next).rows).toEqual([{ one: 1 }]);
  });
});
