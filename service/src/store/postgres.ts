/**
 * A PostgreSQL server through node-postgres: a pool for queries, one dedicated client for LISTEN
 * (postgres-listener.ts).
 *
 * Faults are bounded: connecting, waiting for a pooled client and every query time out, TCP
 * keepalive finds dead peers, and the server cancels statements that run too long.
 */
import pg from "pg";
import type { Db, Queryable, QueryResult, TransactionOptions } from "./db.js";
import { PostgresListener } from "./postgres-listener.js";
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

/** Connection settings shared by the pool, the listener and the schema setup client. */
function clientConfigOf(connectionString: string, o: PostgresOptions): pg.ClientConfig {
  const options = [`-c statement_timeout=${statementTimeoutOf(o)}`, o.schema ? `-c search_path=${o.schema}` : ""]
    .filter(Boolean)
    .join(" ");
  return {
    connectionString,
    options,
    connectionTimeoutMillis: o.connectTimeoutMs,
    query_timeout: o.queryTimeoutMs,
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    application_name: "agentport",
  };
}

function statementTimeoutOf(o: PostgresOptions): number {
  return Math.max(1000, o.queryTimeoutMs - 1000);
}

async function ensureSchema(clientConfig: pg.ClientConfig, schema: string, statementTimeout: number): Promise<void> {
  const setup = new pg.Client({ ...clientConfig, options: `-c statement_timeout=${statementTimeout}` });
  await setup.connect();
  try {
    // Only when missing: CREATE SCHEMA checks the database's CREATE privilege even with IF NOT
    // EXISTS, and a least-privilege role (see cli/provision-db.ts) has its schema but no such right.
    const { rowCount } = await setup.query("SELECT 1 FROM pg_namespace WHERE nspname = $1", [schema]);
    if (!rowCount) await setup.query(`CREATE SCHEMA IF NOT EXISTS ${pg.escapeIdentifier(schema)}`);
  } finally {
    await setup.end();
  }
}

export async function openPostgres(connectionString: string, opts: Partial<PostgresOptions> = {}): Promise<Db> {
  const o = { ...POSTGRES_DEFAULTS, ...opts };
  const clientConfig = clientConfigOf(connectionString, o);
  if (o.schema) await ensureSchema(clientConfig, o.schema, statementTimeoutOf(o));
  const pool = new pg.Pool({ ...clientConfig, max: 10, idleTimeoutMillis: 30_000 });
  // An idle client's error (server restart) must not crash the process; the next query reconnects.
  pool.on("error", (err) => o.log?.(`postgres pool: ${err.message}`));
  await pool.query("SELECT 1");
  const listener = new PostgresListener(clientConfig, {
    checkMs: o.listenerCheckMs,
    trustMs: o.listenerTrustMs,
    log: o.log,
  });
  return new PostgresDb(pool, listener);
}

/** Queries and transactions on the pool; notifications through the listener. */
export class PostgresDb implements Db {
  readonly kind = "postgres" as const;
  private readonly pool: pg.Pool;
  private readonly listener: PostgresListener;

  constructor(pool: pg.Pool, listener: PostgresListener) {
    this.pool = pool;
    this.listener = listener;
  }

  async query<T>(sql: string, params: unknown[] = []): Promise<QueryResult<T>> {
    try {
      const r = await this.pool.query(sql, params);
      return { rows: r.rows as T[], rowCount: r.rowCount ?? r.rows.length };
    } catch (err) {
      throw storeError(err, sql);
    }
  }

  async transaction<T>(fn: (tx: Queryable) => Promise<T>, opts: TransactionOptions = {}): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (err) {
      throw storeError(err, "BEGIN");
    }
    const timeout = opts.statementTimeoutMs;
    // The client waits a second longer than the server's bound, as for every query (clientConfigOf).
    const wait = timeout === undefined ? {} : { query_timeout: timeout + 1000 };
    const run = async (sql: string, params?: unknown[]) => {
      try {
        return await client.query({ text: sql, values: params, ...wait });
      } catch (err) {
        throw storeError(err, sql);
      }
    };
    let broken = false;
    try {
      await run("BEGIN");
      if (timeout !== undefined) await run(`SET LOCAL statement_timeout = ${Math.round(timeout)}`);
      const result = await fn({
        async query<R>(sql: string, params: unknown[] = []) {
          const r = await run(sql, params);
          return { rows: r.rows as R[], rowCount: r.rowCount ?? r.rows.length };
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
  }

  listen(channel: string, onMessage: (payload: string) => void, onReset?: () => void): Promise<() => Promise<void>> {
    return this.listener.listen(channel, onMessage, onReset);
  }

  notificationsLive(): boolean {
    return this.listener.live();
  }

  async notify(channel: string, payload: string): Promise<void> {
    await this.query("SELECT pg_notify($1, $2)", [channel, payload]);
  }

  async close(): Promise<void> {
    await this.listener.close();
    await this.pool.end();
  }
}
