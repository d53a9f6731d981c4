/**
 * Replicas starting together on one PostgreSQL: the migrations run once, under a lock that ends
 * with its transaction, and a replica queued behind another's migrations starts when they are
 * done, even after longer than Fastify's default plugin timeout (10 s), and longer than the query
 * timeout every request's query has: migrations (a backfill over a grown store, a wait for another
 * replica's) run under their own statement timeout.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { buildApp } from "../../service/src/app.js";
import { loadConfig } from "../../service/src/config.js";
import { MIGRATION_LOCK_ID, migrationFiles } from "../../service/src/store/migrate.js";
import { openPostgres } from "../../service/src/store/postgres.js";
import { openStore } from "../../service/src/store/open.js";
import { createTestDatabase } from "../helpers/store.js";

describe("the store at start-up on a PostgreSQL server", () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  afterAll(() => database?.drop());

  it("leaves no migration lock held once it has migrated", async () => {
    database = await createTestDatabase();
    const db = await openStore({ databaseUrl: database.url, databaseSchema: "agentport" });
    const other = new pg.Client({ connectionString: database.url });
    await other.connect();
    try {
      const { rows } = await other.query<{ got: boolean }>("SELECT pg_try_advisory_lock($1) AS got", [
        MIGRATION_LOCK_ID,
      ]);
      expect(rows[0].got).toBe(true);
      const applied = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM schema_migrations");
      expect(applied.rows[0].n).toBe(migrationFiles().length);
    } finally {
      await other.end();
      await db.close();
    }
  });

  it("a transaction's own statement timeout outlasts the query timeout, on the server and in the client", async () => {
    database ??= await createTestDatabase();
    const db = await openPostgres(database.url, { queryTimeoutMs: 1_500 });
    try {
      const sleep = (tx: { query(sql: string): Promise<unknown> }) => tx.query("SELECT pg_sleep(2.5)");
      // The store's bound (server 1 s, client 1.5 s) stops it; the transaction's own does not.
      await expect(db.transaction(sleep)).rejects.toThrow();
      await expect(db.transaction(sleep, { statementTimeoutMs: 5_000 })).resolves.toMatchObject({ rowCount: 1 });
      // Its bound ends with it: the pool's next query has the store's again.
      await expect(db.query("SELECT pg_sleep(2.5)")).rejects.toThrow();
      const { rows } = await db.query<{ t: string }>("SELECT current_setting('statement_timeout') AS t");
      expect(rows[0].t).toBe("1s");
    } finally {
      await db.close();
    }
  }, 30_000);

  it("starts a replica queued 11 s behind another's migrations, past its 5 s query timeout, once they are done", async () => {
    database ??= await createTestDatabase();
    // Another replica migrating: its transaction holds the lock.
    const migrating = new pg.Client({ connectionString: database.url });
    await migrating.connect();
    await migrating.query("BEGIN");
    await migrating.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK_ID]);
    let releasedAt = 0;
    const finishMigrating = () => migrating.query("COMMIT").finally(() => migrating.end());
    let finished: Promise<unknown> | undefined;
    const release = setTimeout(() => {
      releasedAt = Date.now();
      finished = finishMigrating();
    }, 11_000);

    const config = loadConfig({
      DATA_DIR: mkdtempSync(join(tmpdir(), "agentport-startup-")),
      DATABASE_URL: database.url,
      DATABASE_SCHEMA: "agentport",
      DATABASE_QUERY_TIMEOUT_SECONDS: "5",
      JWT_SECRET: "x".repeat(64),
      LOG_LEVEL: "silent",
    });
    let app: Awaited<ReturnType<typeof buildApp>> | undefined;
    try {
      app = await buildApp({ config, logger: false });
      await app.ready();
      const readyAt = Date.now();
      expect(releasedAt).toBeGreaterThan(0);
      expect(readyAt).toBeGreaterThanOrEqual(releasedAt);
      expect((await app.inject({ method: "GET", url: "/health/ready" })).statusCode).toBe(200);
    } finally {
      clearTimeout(release);
      // A start that failed before the release leaves the other transaction open: end it here.
      await (finished ?? finishMigrating()).catch(() => {});
      await app?.close();
    }
  }, 30_000);
});
