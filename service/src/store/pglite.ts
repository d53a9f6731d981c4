/** Embedded PostgreSQL (PGlite, WASM, in-process). It holds its data directory exclusively. */
import { mkdirSync } from "node:fs";
import { PGlite } from "@electric-sql/pglite";
import type { Db, Queryable, QueryResult } from "./db.js";
import { templateFor } from "./pglite-template.js";
import { storeError } from "./store-error.js";

function wrap(q: { query: PGlite["query"] }): Queryable {
  return {
    async query<T>(sql: string, params: unknown[] = []): Promise<QueryResult<T>> {
      try {
        const r = await q.query<T>(sql, params);
        return { rows: r.rows, rowCount: r.affectedRows || r.rows.length };
      } catch (err) {
        throw storeError(err, sql);
      }
    },
  };
}

/**
 * Opens PGlite persisted in `dataDir`, or in memory when `dataDir` is undefined. A new data dir
 * starts from the prebuilt template when there is one for this PGlite (see pglite-template.ts).
 */
export async function openPglite(dataDir?: string, opts: { templateDir?: string; log?: (msg: string) => void } = {}): Promise<Db> {
  if (!dataDir) return pgliteDb(await PGlite.create());
  mkdirSync(dataDir, { recursive: true });
  const template = templateFor(dataDir, opts.templateDir);
  const db = pgliteDb(await PGlite.create(dataDir, { loadDataDir: template }));
  if (template) opts.log?.(`embedded store created in ${dataDir} from the prebuilt template`);
  return db;
}

/** The store interface over an open PGlite instance. */
export function pgliteDb(pg: PGlite): Db {
  const base = wrap(pg);
  return {
    kind: "pglite",
    query: base.query,
    transaction: (fn) => pg.transaction((tx) => fn(wrap(tx))),
    async listen(channel, onMessage) {
      const unlisten = await pg.listen(channel, onMessage);
      return () => unlisten();
    },
    notificationsLive: () => true,
    async notify(channel, payload) {
      await pg.query("SELECT pg_notify($1, $2)", [channel, payload]);
    },
    close: () => pg.close(),
  };
}
