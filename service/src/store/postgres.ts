/**
 * A PostgreSQL server through node-postgres: a pool for queries, one dedicated client for LISTEN.
 *
 * Faults are bounded: connecting, waiting for a pooled client and every query time out, TCP
 * keepalive finds dead peers, and the server cancels statements that run too long. The listener
 * reconnects with capped backoff for as long as the process lives, and proves itself alive with a
 * periodic round trip; `notificationsLive()` says whether state derived from notifications (the
 * key cache) may be trusted right now.
 */
import pg from "pg";
import type { Db, QueryResult } from "./db.js";
import { storeError, StoreUnavailableError } from "./store-error.js";

export interface PostgresOptions {
  /** Schema for the service's tables (created if missing) on a shared database. */
  schema?: string;
  log?: (msg: string) => void;
  /** Opening a connection, or waiting for a pooled one. */
  connectTimeoutMs: number;
  /** One query, client side (the server's statement_timeout is set a little shorter). */
  queryTimeoutMs: number;
  /** How often the listener proves its connection alive with a round trip. */
  listenerCheckMs: number;
  /** How long after its last proof of life the listener's notifications are trusted. */
  listenerTrustMs: number;
}

export const POSTGRES_DEFAULTS: Omit<PostgresOptions, "schema" | "log"> = {
  connectTimeoutMs: 5_000,
  queryTimeoutMs: 15_000,
  listenerCheckMs: 1_000,
  listenerTrustMs: 3_000,
};

const BACKOFF_FIRST_MS = 250;
const BACKOFF_MAX_MS = 5_000;

type Subscription = { onMessage: (p: string) => void; onReset?: () => void };

export async function openPostgres(connectionString: string, opts: Partial<PostgresOptions> = {}): Promise<Db> {
  const o = { ...POSTGRES_DEFAULTS, ...opts };
  const log = o.log;
  const statementTimeout = Math.max(1000, o.queryTimeoutMs - 1000);
  const options = [`-c statement_timeout=${statementTimeout}`, o.schema ? `-c search_path=${o.schema}` : ""].filter(Boolean).join(" ");
  const clientConfig: pg.ClientConfig = {
    connectionString,
    options,
    connectionTimeoutMillis: o.connectTimeoutMs,
    query_timeout: o.queryTimeoutMs,
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    application_name: "agentport",
  };

  if (o.schema) {
    const setup = new pg.Client({ ...clientConfig, options: `-c statement_timeout=${statementTimeout}` });
    await setup.connect();
    try {
      // Only when missing: CREATE SCHEMA checks the database's CREATE privilege even with IF NOT
      // EXISTS, and a least-privilege role (see cli/provision-db.ts) has its schema but no such right.
      const { rowCount } = await setup.query("SELECT 1 FROM pg_namespace WHERE nspname = $1", [o.schema]);
      if (!rowCount) await setup.query(`CREATE SCHEMA IF NOT EXISTS ${pg.escapeIdentifier(o.schema)}`);
    } finally {
      await setup.end();
    }
  }
  const pool = new pg.Pool({ ...clientConfig, max: 10, idleTimeoutMillis: 30_000 });
  // An idle client's error (server restart) must not crash the process; the next query reconnects.
  pool.on("error", (err) => log?.(`postgres pool: ${err.message}`));
  await pool.query("SELECT 1");

  const subscriptions = new Map<string, Subscription>();
  let listener: pg.Client | undefined;
  let lastAlive = 0;
  let closed = false;
  let backoff = BACKOFF_FIRST_MS;
  let reconnectTimer: NodeJS.Timeout | undefined;
  let connecting: Promise<void> | undefined;

  const resetAll = () => {
    for (const s of subscriptions.values()) s.onReset?.();
  };

  /** The listening connection is gone (error, end, or no answer): forget it and try again. */
  function drop(client: pg.Client, why: string) {
    if (listener !== client) return;
    listener = undefined;
    lastAlive = 0;
    log?.(`postgres listener lost (${why}); reconnecting`);
    client.removeAllListeners("notification");
    client.end().catch(() => {});
    // Notifications sent while we are away are lost: every subscriber drops what it derived.
    resetAll();
    scheduleReconnect();
  }

  function scheduleReconnect() {
    if (closed || reconnectTimer || connecting) return;
    const delay = backoff / 2 + Math.random() * (backoff / 2);
    backoff = Math.min(backoff * 2, BACKOFF_MAX_MS);
    reconnectTimer = setTimeout(() => {
      reconnectTimer = undefined;
      connectListener().catch((err: Error) => {
        log?.(`postgres listener: reconnect failed (${err.message})`);
        scheduleReconnect();
      });
    }, delay);
    reconnectTimer.unref();
  }

  function connectListener(): Promise<void> {
    connecting ??= (async () => {
      // Named, so an operator can find it in pg_stat_activity.
      const client = new pg.Client({ ...clientConfig, application_name: "agentport-listener" });
      client.on("notification", (n) => subscriptions.get(n.channel)?.onMessage(n.payload ?? ""));
      client.on("error", (err) => drop(client, err.message));
      client.on("end", () => drop(client, "connection ended"));
      try {
        await client.connect();
        for (const channel of subscriptions.keys()) await client.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
      } catch (err) {
        client.removeAllListeners("end");
        client.end().catch(() => {});
        throw err;
      }
      if (closed) {
        await client.end().catch(() => {});
        return;
      }
      listener = client;
      lastAlive = Date.now();
      backoff = BACKOFF_FIRST_MS;
      // Anything cached while we were away was read without a listener: start clean.
      resetAll();
    })().finally(() => {
      connecting = undefined;
    });
    return connecting;
  }

  // Proof of life: a silent partition leaves the socket open and nothing arriving; only a
  // round trip tells. A check that does not answer within the trust window drops the listener.
  const checker = setInterval(() => {
    const client = listener;
    if (!client) return;
    const timeout = setTimeout(() => drop(client, "no answer to the liveness check"), o.listenerTrustMs);
    client.query("SELECT 1").then(
      () => {
        clearTimeout(timeout);
        if (listener === client) lastAlive = Date.now();
      },
      (err: Error) => {
        clearTimeout(timeout);
        drop(client, err.message);
      },
    );
  }, o.listenerCheckMs);
  checker.unref();

  const query = async <T>(sql: string, params: unknown[] = []): Promise<QueryResult<T>> => {
    try {
      const r = await pool.query(sql, params);
      return { rows: r.rows as T[], rowCount: r.rowCount ?? r.rows.length };
    } catch (err) {
      throw storeError(err, sql);
    }
  };

  return {
    kind: "postgres",
    query,
    async transaction(fn) {
      let client: pg.PoolClient;
      try {
        client = await pool.connect();
      } catch (err) {
        throw storeError(err, "BEGIN");
      }
      const run = async (sql: string, params?: unknown[]) => {
        try {
          return await client.query(sql, params);
        } catch (err) {
          throw storeError(err, sql);
        }
      };
      let broken = false;
      try {
        await run("BEGIN");
        const result = await fn({
          async query<T>(sql: string, params: unknown[] = []) {
            const r = await run(sql, params);
            return { rows: r.rows as T[], rowCount: r.rowCount ?? r.rows.length };
          },
        });
        await run("COMMIT");
        return result;
      } catch (err) {
        broken = err instanceof StoreUnavailableError;
        if (!broken) await client.query("ROLLBACK").catch(() => {});
        throw err;
      } finally {
        // A client whose connection failed must not go back to the pool: release(true) destroys it.
        client.release(broken);
      }
    },
    async listen(channel, onMessage, onReset) {
      subscriptions.set(channel, { onMessage, onReset });
      if (listener) await listener.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
      else await connectListener();
      return async () => {
        subscriptions.delete(channel);
        await listener?.query(`UNLISTEN ${pg.escapeIdentifier(channel)}`).catch(() => {});
      };
    },
    notificationsLive() {
      return listener !== undefined && Date.now() - lastAlive <= o.listenerTrustMs;
    },
    async notify(channel, payload) {
      await query("SELECT pg_notify($1, $2)", [channel, payload]);
    },
    async close() {
      closed = true;
      clearInterval(checker);
      clearTimeout(reconnectTimer);
      const client = listener;
      listener = undefined;
      client?.removeAllListeners("end");
      await client?.end().catch(() => {});
      await pool.end();
    },
  };
}
