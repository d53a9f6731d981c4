/**
 * Embedded PostgreSQL (PGlite, WASM, in-process). It holds its data directory exclusively.
 *
 * Its queries run on the event loop: one holds it for as long as it takes (a file search over a
 * few thousand passages, ~15 ms here). PGlite chains queued queries through promises, so a burst
 * of them ran back to back, every other request waiting for all of them (the models list's p99
 * was 122 ms while four clients searched, `npm run bench -- --only search`; 16 ms now). Queries
 * here take turns with the event loop instead: each starts only after pending I/O has had a turn,
 * so a request waits for at most the one query under way. Deployments run a PostgreSQL server,
 * where the query runs in the database and none of this applies.
 */
import { mkdirSync } from "node:fs";
import { setImmediate as nextTurn } from "node:timers/promises";
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
 * PostgreSQL's default 128 MB of shared buffers is sized for a server shared by many sessions; the
 * embedded store has one, and its buffers sit in this process's RSS. 8 MB holds the keys and usage
 * tables; a file search over 200 files re-reads pages from the OS page cache (~8% more CPU per
 * answer than at 16 MB, `npm run bench -- --only search`), and 2,000 open streams fit in 450 MB
 * (457 MB at 16 MB).
 */
const EMBEDDED_START_PARAMS = [...PGlite.defaultStartParams, "-c", "shared_buffers=8MB"];

/**
 * Opens PGlite persisted in `dataDir`, or in memory when `dataDir` is undefined. A new data dir
 * starts from the prebuilt template when there is one for this PGlite (see pglite-template.ts).
 */
export async function openPglite(
  dataDir?: string,
  opts: { templateDir?: string; log?: (msg: string) => void } = {},
): Promise<Db> {
  if (!dataDir) return pgliteDb(await PGlite.create({ startParams: EMBEDDED_START_PARAMS }));
  mkdirSync(dataDir, { recursive: true });
  const template = templateFor(dataDir, opts.templateDir);
  const db = pgliteDb(await PGlite.create(dataDir, { loadDataDir: template, startParams: EMBEDDED_START_PARAMS }));
  if (template) opts.log?.(`embedded store created in ${dataDir} from the prebuilt template`);
  return db;
}

/** Runs store operations one at a time, each after a turn of the event loop (see the module comment). */
function turnTaker(): <T>(operation: () => Promise<T>) => Promise<T> {
  let tail: Promise<unknown> = Promise.resolve();
  return (operation) => {
    const result = tail.then(() => nextTurn()).then(operation);
    tail = result.catch(() => {});
    return result;
  };
}

/**
 * The store interface over an open PGlite instance. A transaction takes one turn for all its
 * statements: they run on its own connection, which nothing else may use meanwhile anyway.
 */
export function pgliteDb(pg: PGlite): Db {
  const base = wrap(pg);
  const inTurn = turnTaker();
  return {
    kind: "pglite",
    query: (sql, params) => inTurn(() => base.query(sql, params)),
    transaction: (fn) => inTurn(() => pg.transaction((tx) => fn(wrap(tx)))),
    async listen(channel, onMessage) {
      const unlisten = await inTurn(() => pg.listen(channel, onMessage));
      return () => inTurn(() => unlisten());
    },
    notificationsLive: () => true,
    async notify(channel, payload) {
      await inTurn(() => pg.query("SELECT pg_notify($1, $2)", [channel, payload]));
    },
    close: () => pg.close(),
  };
}
