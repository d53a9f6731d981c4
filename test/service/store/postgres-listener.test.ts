/**
 * The PostgreSQL listener alone, on the local server: it delivers notifications, says it is live,
 * and when its connection is killed it tells subscribers to reset and comes back on its own.
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PostgresListener } from "../../../service/src/store/postgres-listener.js";
import { TEST_DATABASE_URL } from "../../helpers/store.js";

/** Polls until `check` holds, for at most `ms`. */
async function waitFor(check: () => boolean | Promise<boolean>, ms = 10_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return check();
}

describe("PostgresListener", () => {
  const channel = `listener_test_${randomBytes(4).toString("hex")}`;
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
  // A long check period keeps the listener's last statement its LISTEN, which finds its backend.
  const listener = new PostgresListener({ connectionString: TEST_DATABASE_URL }, { checkMs: 60_000, trustMs: 60_000 });
  const received: string[] = [];
  let resets = 0;

  beforeAll(async () => {
    await admin.connect();
    await listener.listen(
      channel,
      (payload) => received.push(payload),
      () => resets++,
    );
  });
  afterAll(async () => {
    await listener.close();
    await admin.end();
  });

  it("delivers a notification on its channel and says it is live", async () => {
    await admin.query("SELECT pg_notify($1, $2)", [channel, "first"]);
    expect(await waitFor(() => received.includes("first"))).toBe(true);
    expect(listener.live()).toBe(true);
  });

  it("a killed connection resets subscribers, reconnects and delivers again", async () => {
    const before = resets;
    const { rowCount } = await admin.query(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'agentport-listener' AND query = $1",
      [`LISTEN ${pg.escapeIdentifier(channel)}`],
    );
    expect(rowCount).toBe(1);
    // One reset for the loss, one for the reconnection (state cached while away is dropped too).
    expect(await waitFor(() => resets >= before + 2)).toBe(true);
    expect(listener.live()).toBe(true);
    await admin.query("SELECT pg_notify($1, $2)", [channel, "second"]);
    expect(await waitFor(() => received.includes("second"))).toBe(true);
  });
});
