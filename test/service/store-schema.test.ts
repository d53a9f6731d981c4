import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { openStore } from "../../service/src/store/open.js";
import { migrationFiles } from "../../service/src/store/migrate.js";
import { createTestDatabase } from "../helpers/store.js";

describe("store on a shared PostgreSQL database", () => {
  let shared: Awaited<ReturnType<typeof createTestDatabase>>;
  afterAll(() => shared?.drop());

  it("keeps every table in DATABASE_SCHEMA, none in public, and migrates once", async () => {
    shared = await createTestDatabase();
    // The platform's own tables live in public; ours must not collide with them.
    const platform = new pg.Client({ connectionString: shared.url });
    await platform.connect();
    await platform.query("CREATE TABLE public.platform_owned (x int)");
    await platform.end();
    const first = await openStore({ databaseUrl: shared.url, databaseSchema: "agentport" });
    await first.query(
      "INSERT INTO api_keys (id, project_id, name, secret_hash, redacted, created_by) VALUES ('k', 'p', 'n', '\\x00', 'r', 'u')",
    );
    await first.close();
    const again = await openStore({ databaseUrl: shared.url, databaseSchema: "agentport" });
    expect((await again.query("SELECT id FROM api_keys")).rows).toEqual([{ id: "k" }]);
    await again.close();

    const c = new pg.Client({ connectionString: shared.url });
    await c.connect();
    const { rows } = await c.query(
      "SELECT table_schema, table_name FROM information_schema.tables WHERE table_name IN ('api_keys', 'schema_migrations', 'platform_owned')",
    );
    await c.end();
    expect(
      rows
        .filter((r) => r.table_schema === "agentport")
        .map((r) => r.table_name)
        .sort(),
    ).toEqual(["api_keys", "schema_migrations"]);
    expect(rows.filter((r) => r.table_schema === "public").map((r) => r.table_name)).toEqual(["platform_owned"]);
    const applied = await (async () => {
      const db = await openStore({ databaseUrl: shared.url, databaseSchema: "agentport" });
      const r = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM schema_migrations");
      await db.close();
      return r.rows[0].n;
    })();
    expect(applied).toBe(migrationFiles().length);
  });
});
