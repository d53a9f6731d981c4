/**
 * A fresh metadata store per test file: PGlite in memory, or a throwaway database on the
 * PostgreSQL server (TEST_DATABASE_URL, default the local server's `test` database).
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
import type { Db } from "../../service/src/store/db.js";
import { openStore } from "../../service/src/store/open.js";

export const STORE_KINDS = ["pglite", "postgres"] as const;
export type StoreKind = (typeof STORE_KINDS)[number];

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

export interface TestStore {
  db: Db;
  /** Connection string of the throwaway database (postgres only). */
  url?: string;
  drop(): Promise<void>;
}

export async function openTestStore(kind: StoreKind): Promise<TestStore> {
  if (kind === "pglite") {
    const db = await openStore({});
    return { db, drop: () => db.close() };
  }
  const name = "agentport_t_" + randomBytes(6).toString("hex");
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = "/" + name;
  const db = await openStore({ databaseUrl: url.toString() });
  return {
    db,
    url: url.toString(),
    async drop() {
      await db.close();
      const c = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}
