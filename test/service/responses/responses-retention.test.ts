/**
 * Stored responses expire (RESPONSES_RETENTION_DAYS, 30 by default): an expired one is a 404 on
 * every route and as previous_response_id, like a deleted one, and the sweep removes expired rows
 * in bounded batches, several replicas at once, logging a store fault instead of crashing.
 * Rows are aged by writing an old created_at: no test waits for a clock.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { agentsFileOf, buildTestApp, type TestApp } from "../../helpers/app.js";
import { STORE_KINDS } from "../../helpers/store.js";
import { ResponseStore } from "../../../service/src/domain/responses/response-store.js";
import { RetentionSweep } from "../../../service/src/domain/responses/retention-sweep.js";

const AGENTS = [{ id: "s", kind: "synthetic", tokens: 2, interval_ms: 0 }];
const quiet = { info() {}, warn() {} };

describe.each(STORE_KINDS)("stored responses past the retention (%s)", (kind) => {
  let t: TestApp;
  let auth: { authorization: string };
  beforeAll(async () => {
    t = await buildTestApp(kind, { AGENTS_FILE: agentsFileOf(AGENTS) });
    auth = { authorization: `Bearer ${(await t.createKey()).secret}` };
  });
  afterAll(() => t?.close());

  const create = async (input: string, previous?: string): Promise<string> => {
    const res = await t.app.inject({
      method: "POST",
      url: "/v1/responses",
      headers: auth,
      payload: { model: "agentport/s", input, ...(previous ? { previous_response_id: previous } : {}) },
    });
    expect(res.statusCode).toBe(200);
    return res.json().id;
  };
  const age = (id: string, days: number) =>
    t.store.db.query("UPDATE responses SET created_at = now() - make_interval(days => $2) WHERE id = $1", [id, days]);
  const stored = async () =>
    (await t.store.db.query<{ id: string }>("SELECT id FROM responses ORDER BY id")).rows.map((r) => r.id).sort();
  /** Status and body of each route for `id`, its id written as ID so two ids compare. */
  const answers = async (id: string) => {
    const routes = [
      t.app.inject({ url: `/v1/responses/${id}`, headers: auth }),
      t.app.inject({ url: `/v1/responses/${id}/input_items`, headers: auth }),
      t.app.inject({
        method: "POST",
        url: "/v1/responses",
        headers: auth,
        payload: { model: "agentport/s", input: "more", previous_response_id: id },
      }),
      t.app.inject({ method: "DELETE", url: `/v1/responses/${id}`, headers: auth }),
    ];
    return (await Promise.all(routes)).map((res) => ({ status: res.statusCode, body: res.body.replaceAll(id, "ID") }));
  };

  it("answers an expired response with the same 404s as a deleted one, on every route", async () => {
    const expired = await create("old");
    const deleted = await create("gone");
    const fresh = await create("recent");
    await age(expired, 31);
    await age(fresh, 29);
    expect((await t.app.inject({ method: "DELETE", url: `/v1/responses/${deleted}`, headers: auth })).statusCode).toBe(
      200,
    );

    const seen = await answers(expired);
    expect(seen.map((a) => a.status)).toEqual([404, 404, 404, 404]);
    expect(JSON.parse(seen[2].body).error).toMatchObject({
      param: "previous_response_id",
      code: "previous_response_not_found",
    });
    expect(seen).toEqual(await answers(deleted));
    // Within the retention, all is as before.
    expect((await t.app.inject({ url: `/v1/responses/${fresh}`, headers: auth })).statusCode).toBe(200);
    expect((await t.app.inject({ url: `/v1/responses/${fresh}/input_items`, headers: auth })).statusCode).toBe(200);
    expect(await create("next", fresh)).toMatch(/^resp_/);
  });

  it("continues a conversation only as far back as the retention, as past a deleted response", async () => {
    const first = await create("first");
    const second = await create("second", first);
    const third = await create("third", second);
    await age(first, 40);
    const history = async () =>
      ((await t.app.responses.conversation("default", third)) ?? [])
        .filter((i) => i.type === "message" && i.role === "user")
        .map((i) => (i as { content: unknown }).content);
    expect(await history()).toEqual(["second", "third"]);
    await age(second, 35);
    expect(await history()).toEqual(["third"]);
  });

  it("sweeps expired rows in bounded batches and leaves the others", async () => {
    await t.store.db.query("DELETE FROM responses");
    const ids = await Promise.all(["a", "b", "c", "d", "e"].map((x) => create(x)));
    for (const id of ids.slice(0, 3)) await age(id, 31);
    await age(ids[3], 29);
    const sweep = new RetentionSweep(t.app.responses, quiet, { intervalMs: 60_000, batch: 1, maxBatches: 2 });
    expect(await sweep.run()).toBe(2); // the run's bound: two statements of one row
    expect(await sweep.run()).toBe(1);
    expect(await sweep.run()).toBe(0);
    expect(await stored()).toEqual(ids.slice(3).sort());
  });

  it("counts what the sweep removed and its failed runs in /metrics", async () => {
    const value = async (name: string) =>
      Number(new RegExp(`^${name} (\\S+)$`, "m").exec((await t.app.inject({ url: "/metrics" })).body)?.[1]);
    const before = await value("agentport_responses_expired_removed_total");
    expect(await value("agentport_responses_sweep_failures_total")).toBe(0);
    t.app.metrics.responsesSweep.removed(3);
    t.app.metrics.responsesSweep.failed();
    expect(await value("agentport_responses_expired_removed_total")).toBe(before + 3);
    expect(await value("agentport_responses_sweep_failures_total")).toBe(1);
  });

  it("lets several replicas sweep at once: each row removed once, no error", async () => {
    await t.store.db.query("DELETE FROM responses");
    const ids = await Promise.all(Array.from({ length: 12 }, (_, i) => create(`r${i}`)));
    for (const id of ids.slice(0, 10)) await age(id, 60);
    // Two replicas' stores on the same table.
    const replicas = [
      new ResponseStore(t.store.db, { retentionDays: 30 }),
      new ResponseStore(t.store.db, { retentionDays: 30 }),
    ];
    const runs = replicas.map((store) =>
      new RetentionSweep(store, quiet, { intervalMs: 60_000, batch: 3, maxBatches: 10 }).run(),
    );
    const removed = await Promise.all(runs);
    expect(removed[0] + removed[1]).toBe(10);
    expect(await stored()).toEqual(ids.slice(10).sort());
  });

  it("keeps every response with a retention of 0", async () => {
    const id = await create("forever");
    await age(id, 10_000);
    const forever = new ResponseStore(t.store.db, { retentionDays: 0 });
    expect((await forever.get("default", id))?.id).toBe(id);
    expect(await forever.deleteExpired(100)).toBe(0);
    expect(await stored()).toContain(id);
  });
});

describe("the retention sweep's schedule", () => {
  afterEach(() => void vi.useRealTimers());

  it("logs a store fault and runs again at the next interval", async () => {
    vi.useFakeTimers();
    const deleteExpired = vi
      .fn()
      .mockRejectedValueOnce(new Error("connection refused"))
      .mockResolvedValueOnce(4)
      .mockResolvedValue(0);
    const log = { info: vi.fn(), warn: vi.fn() };
    const counts = { removed: vi.fn(), failed: vi.fn() };
    const sweep = new RetentionSweep(
      { deleteExpired },
      log,
      { intervalMs: 1000, batch: 10, maxBatches: 5, random: () => 0.5 },
      counts,
    );
    sweep.start();
    await vi.advanceTimersByTimeAsync(1000);
    expect(log.warn).toHaveBeenCalledWith({ err: "connection refused" }, expect.stringMatching(/sweep failed/));
    await vi.advanceTimersByTimeAsync(1000);
    expect(log.info).toHaveBeenCalledWith({ removed: 4 }, "expired stored responses removed");
    expect(counts.failed).toHaveBeenCalledTimes(1);
    expect(counts.removed.mock.calls).toEqual([[4]]);
    await sweep.stop();
    const calls = deleteExpired.mock.calls.length;
    await vi.advanceTimersByTimeAsync(10_000);
    expect(deleteExpired.mock.calls.length).toBe(calls); // stopped: no run after close
  });

  it("refuses a retention that is not a whole number of days", () => {
    expect(() => new ResponseStore({} as never, { retentionDays: 1.5 })).toThrow(RangeError);
  });
});
