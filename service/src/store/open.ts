/**
 * Opens the configured store and brings its schema up to date. Only the configured driver is
 * imported: a service on a PostgreSQL server never loads PGlite, nor the embedded one pg.
 */
import { join } from "node:path";
import type { Db } from "./db.js";
import { migrate } from "./migrate.js";

export interface StoreOptions {
  databaseUrl?: string;
  /** Schema for the tables on a shared PostgreSQL database. */
  databaseSchema?: string;
  /** PGlite data dir; `undefined` with no databaseUrl means in memory (tests). */
  pgliteDir?: string;
  log?: (msg: string) => void;
  /** Informational lines (how a new embedded store was made). */
  info?: (msg: string) => void;
  /** Where the embedded store's template is looked for (pglite-template.ts). */
  pgliteTemplateDir?: string;
  /** Bounds towards the PostgreSQL server (defaults in postgres.ts). */
  timeouts?: { connectMs: number; queryMs: number; listenerTrustMs: number };
}

export async function openStore(opts: StoreOptions): Promise<Db> {
  const t = opts.timeouts;
  const db = opts.databaseUrl
    ? await (
        await import("./postgres.js")
      ).openPostgres(opts.databaseUrl, {
        schema: opts.databaseSchema,
        log: opts.log,
        ...(t && {
          connectTimeoutMs: t.connectMs,
          queryTimeoutMs: t.queryMs,
          listenerTrustMs: t.listenerTrustMs,
          listenerCheckMs: Math.max(200, t.listenerTrustMs / 3),
        }),
      })
    : await (
        await import("./pglite.js")
      ).openPglite(opts.pgliteDir, { templateDir: opts.pgliteTemplateDir, log: opts.info });
  try {
    await migrate(db);
  } catch (err) {
    await db.close();
    throw err;
  }
  return db;
}

export const pgliteDirFor = (dataDir: string) => join(dataDir, "pg");
