/**
 * Replicas starting together on one PostgreSQL: the migrations run once, under a lock that ends
 * with its transaction, and a replica queued behind another's migrations starts when they are
 * done, even after longer than Fastify's default plugin timeout (10 s).
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { buildApp } from "../../service/src/app.js";
import { loadConfig } from "../../service/src/config.js";
import { MIGRATION_LOCK_ID, migrationFiles } from "../../service/src/store/migrate.js";
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

  it("starts a replica queued 11 s behind another's migrations once they are done", async () => {
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
