/**
 * A fresh metadata store per test file: PGlite in memory, or a throwaway database on the
 * PostgreSQL server (TEST_DATABASE_URL, default the local server's `test` database).
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
import type { Db } from "../../service/src/store/db.js";
import { PGlite } from "@electric-sql/pglite";
import { openStore } from "../../service/src/store/open.js";
import { migrate } from "../../service/src/store/migrate.js";
import { pgliteDb } from "../../service/src/store/pglite.js";

export const STORE_KINDS = ["pglite", "postgres"] as const;
export type StoreKind = (typeof STORE_KINDS)[number];

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

export interface TestStore {
  db: Db;
  /** Connection string of the throwaway database (postgres only). */
  url?: string;
  drop(): Promise<void>;
}

let pgliteTemplate: Promise<Blob> | undefined;

/**
 * A migrated PGlite data directory, made once per test process: a new instance loaded from it
 * skips initdb, which is most of PGlite's start-up time.
 */
function migratedPgliteDump(): Promise<Blob> {
  pgliteTemplate ??= (async () => {
    const pg = await PGlite.create();
    await migrate(pgliteDb(pg));
    const dump = await pg.dumpDataDir("none");
    await pg.close();
    return dump;
  })();
  return pgliteTemplate;
}

export async function openTestStore(kind: StoreKind): Promise<TestStore> {
  if (kind === "pglite") {
    const db = pgliteDb(await PGlite.create({ loadDataDir: await migratedPgliteDump() }));
    await migrate(db); // a no-op unless a migration was added after the template was made
    return { db, drop: () => db.close() };
  }
  const { url, drop } = await createTestDatabase();
  const db = await openStore({ databaseUrl: url });
  return {
    db,
    url,
    async drop() {
      await db.close();
      await drop();
    },
  };
}

/** An empty throwaway database on the PostgreSQL server (nothing migrated). */
export async function createTestDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = "agentport_t_" + randomBytes(6).toString("hex");
  const admin = async (sql: string) => {
    const c = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await c.connect();
    try {
      await c.query(sql);
    } finally {
      await c.end();
    }
  };
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = "/" + name;
  return { url: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}
