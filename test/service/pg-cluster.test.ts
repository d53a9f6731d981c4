import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { answers, PgCluster } from "../helpers/pg-cluster.js";

/** The fault-injection helper itself: what the fault tests rely on must hold. */
describe("private PostgreSQL cluster", () => {
  let cluster: PgCluster;
  beforeAll(async () => {
    cluster = await PgCluster.start();
  }, 120_000);
  afterAll(() => cluster?.remove());

  it("answers on its own loopback port", async () => {
    expect(await answers(cluster.url())).toBe(true);
    expect(cluster.pids().length).toBeGreaterThan(1);
  });

  it("stops answering while partitioned, and answers again after heal", async () => {
    cluster.partition();
    try {
      expect(await answers(cluster.url(), 1000)).toBe(false);
    } finally {
      cluster.heal();
    }
    expect(await answers(cluster.url())).toBe(true);
  });

  it("keeps committed data across a crash and restart", async () => {
    const c = new pg.Client({ connectionString: cluster.url() });
    await c.connect();
    await c.query("CREATE TABLE t (v int); INSERT INTO t VALUES (42)");
    await c.end();
    await cluster.kill();
    expect(await answers(cluster.url(), 1000)).toBe(false);
    await cluster.startServer();
    const d = new pg.Client({ connectionString: cluster.url() });
    await d.connect();
    expect((await d.query("SELECT v FROM t")).rows).toEqual([{ v: 42 }]);
    await d.end();
  }, 120_000);
});
