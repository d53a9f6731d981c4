/** A PostgreSQL server through node-postgres: a pool for queries, one dedicated client for LISTEN. */
import pg from "pg";
import type { Db, QueryResult } from "./db.js";

const RELISTEN_DELAY_MS = 1000;

/**
 * With `schema`, every connection (pool and listener) works in that schema, created if missing:
 * the service's tables stay apart from others' on a shared database.
 */
export async function openPostgres(connectionString: string, log?: (msg: string) => void, schema?: string): Promise<Db> {
  if (schema) {
    const setup = new pg.Client({ connectionString });
    await setup.connect();
    try {
      await setup.query(`CREATE SCHEMA IF NOT EXISTS ${pg.escapeIdentifier(schema)}`);
    } finally {
      await setup.end();
    }
  }
  const options = schema ? `-c search_path=${schema}` : undefined;
  const pool = new pg.Pool({ connectionString, max: 10, options });
  // An idle client's error (server restart) must not crash the process; the next query reconnects.
  pool.on("error", (err) => log?.(`postgres pool: ${err.message}`));
  await pool.query("SELECT 1");

  const subscriptions = new Map<string, { onMessage: (p: string) => void; onReset?: () => void }>();
  let listener: pg.Client | undefined;
  let closed = false;

  async function connectListener(): Promise<void> {
    const client = new pg.Client({ connectionString, options });
    client.on("notification", (n) => subscriptions.get(n.channel)?.onMessage(n.payload ?? ""));
    client.on("error", (err) => {
      log?.(`postgres listener: ${err.message}`);
      if (listener === client) listener = undefined;
      client.end().catch(() => {});
      // Notifications sent while we were away are lost: every subscriber drops what it derived.
      for (const s of subscriptions.values()) s.onReset?.();
      if (!closed) setTimeout(() => void connectListener().catch(() => {}), RELISTEN_DELAY_MS).unref();
    });
    await client.connect();
    for (const channel of subscriptions.keys()) await client.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
    listener = client;
  }

  const query = async <T>(sql: string, params: unknown[] = []): Promise<QueryResult<T>> => {
    const r = await pool.query(sql, params);
    return { rows: r.rows as T[], rowCount: r.rowCount ?? r.rows.length };
  };

  return {
    kind: "postgres",
    query,
    async transaction(fn) {
      const client = await pool.connect();
      try {
        await client.query("BEGIN");
        const result = await fn({
          async query<T>(sql: string, params: unknown[] = []) {
            const r = await client.query(sql, params);
            return { rows: r.rows as T[], rowCount: r.rowCount ?? r.rows.length };
          },
        });
        await client.query("COMMIT");
        return result;
      } catch (err) {
        await client.query("ROLLBACK").catch(() => {});
        throw err;
      } finally {
        client.release();
      }
    },
    async listen(channel, onMessage, onReset) {
      subscriptions.set(channel, { onMessage, onReset });
      if (!listener) await connectListener();
      else await listener.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
      return async () => {
        subscriptions.delete(channel);
        await listener?.query(`UNLISTEN ${pg.escapeIdentifier(channel)}`).catch(() => {});
      };
    },
    async notify(channel, payload) {
      await pool.query("SELECT pg_notify($1, $2)", [channel, payload]);
    },
    async close() {
      closed = true;
      await listener?.end().catch(() => {});
      await pool.end();
    },
  };
}
