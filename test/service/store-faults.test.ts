/**
 * The service in-process on a private PostgreSQL cluster, connected as an ordinary role (as a
 * deployment should be), with its logs captured: what a client reads and what the log says when
 * a statement fails, when the NOTIFY of a revocation cannot be sent, when the revocation listener
 * cannot come back for a while (open MCP sessions), and when the server is gone.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import type { FastifyInstance } from "fastify";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp, REDACTED_LOG_PATHS } from "../../service/src/app.js";
import { loadConfig, type ServiceConfig } from "../../service/src/config.js";
import { ApiKeys } from "../../service/src/domain/api-keys.js";
import type { Db } from "../../service/src/store/db.js";
import { openStore } from "../../service/src/store/open.js";
import { scopeOf, signMemberToken } from "../../service/src/domain/member-token.js";
import { ACCEPT_BOTH, bearer, initializeMessage, streamableClient } from "../helpers/mcp.js";
import { PgCluster } from "../helpers/pg-cluster.js";

interface LogLine {
  level: number;
  msg?: string;
  reqId?: string;
  [k: string]: unknown;
}

/** Polls until `check` holds, at most `ms`; returns whether it did. */
async function until(check: () => boolean | Promise<boolean>, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return check();
}

describe("store faults seen by clients and in the logs (private cluster, ordinary role)", () => {
  let cluster: PgCluster;
  let superuser: pg.Client;
  let db: Db;
  let app: FastifyInstance;
  let config: ServiceConfig;
  let base: string;
  const lines: LogLine[] = [];
  const raw: string[] = [];

  const sql = (text: string) => superuser.query(text);
  const adminToken = () =>
    signMemberToken({ userId: "user_admin", projectId: "default", role: "admin" }, config.jwtSecret, scopeOf(config));
  const linesOf = (reqId: string) => lines.filter((l) => l.reqId === reqId);

  beforeAll(async () => {
    cluster = await PgCluster.start();
    const bootstrap = new pg.Client({ connectionString: cluster.url() });
    await bootstrap.connect();
    await bootstrap.query("CREATE ROLE app LOGIN");
    await bootstrap.query("CREATE DATABASE agentport OWNER app");
    await bootstrap.end();
    superuser = new pg.Client({ connectionString: cluster.url("agentport") });
    superuser.on("error", () => {}); // the last test kills the server under it
    await superuser.connect();

    db = await openStore({
      databaseUrl: `postgres://app@127.0.0.1:${cluster.port}/agentport`,
      timeouts: { connectMs: 1000, queryMs: 2000, listenerTrustMs: 1000 },
    });
    config = loadConfig({
      DATA_DIR: mkdtempSync(join(tmpdir(), "agentport-storefault-")),
      JWT_SECRET: "f".repeat(64),
      LOG_LEVEL: "info",
    });
    const sink = new Writable({
      write(chunk, _enc, done) {
        for (const line of String(chunk).split("\n").filter(Boolean)) {
          raw.push(line);
          lines.push(JSON.parse(line) as LogLine);
        }
        done();
      },
    });
    app = await buildApp({
      config,
      db,
      logger: { level: "info", stream: sink, redact: { paths: REDACTED_LOG_PATHS, censor: "[redacted]" } },
    });
    base = await app.listen({ host: "127.0.0.1", port: 0 });
    config.publicUrl = base;
  }, 180_000);

  afterAll(async () => {
    await app?.close();
    await db?.close().catch(() => {});
    await superuser?.end().catch(() => {});
    await cluster?.remove();
  });

  it("a failed statement is logged by SQLSTATE and statement name, never with its SQL, parameters or failing row", async () => {
    // Every new row is refused: PostgreSQL's error then carries the statement's values in its detail.
    await sql("ALTER TABLE api_keys ADD CONSTRAINT refuse_all CHECK (false) NOT VALID");
    try {
      const res = await app.inject({
        method: "POST",
        url: "/v1/organization/projects/default/api_keys",
        headers: { authorization: `Bearer ${await adminToken()}` },
        payload: { name: "doomed" },
      });
      expect(res.statusCode).toBe(500);
      expect(res.json().error).toMatchObject({ type: "server_error", code: "internal_error" });
      expect(res.body).not.toContain("api_keys");
      const mine = linesOf(res.headers["x-request-id"] as string);
      const failure = mine.find((l) => l.msg === "store query failed");
      expect(failure).toMatchObject({ level: 50, code: "23514", statement: "INSERT api_keys" });
      const text = raw.filter((l) => l.includes(res.headers["x-request-id"] as string)).join("\n");
      for (const leak of ["INSERT INTO", "VALUES", "secret_hash", "Failing row", "refuse_all", "\\x", "ap-…"])
        expect(text).not.toContain(leak);
    } finally {
      await sql("ALTER TABLE api_keys DROP CONSTRAINT refuse_all");
    }
  });

  it("revocation is all or nothing: when its NOTIFY cannot be sent, the key is not deleted and still works", async () => {
    const { record, secret } = await app.apiKeys.create({ projectId: "default", name: "kept", createdBy: "test" });
    expect((await app.inject({ url: "/v1/models", headers: bearer(secret) })).statusCode).toBe(200);
    // The service's role may no longer send notifications: the DELETE's transaction must fail whole.
    await sql("REVOKE EXECUTE ON FUNCTION pg_notify(text, text) FROM PUBLIC");
    try {
      const res = await app.inject({
        method: "DELETE",
        url: `/v1/organization/projects/default/api_keys/${record.id}`,
        headers: { authorization: `Bearer ${await adminToken()}` },
      });
      expect(res.statusCode).toBe(500);
      expect(res.json().error.code).toBe("internal_error");
    } finally {
      await sql("GRANT EXECUTE ON FUNCTION pg_notify(text, text) TO PUBLIC");
    }
    expect((await sql(`SELECT 1 FROM api_keys WHERE id = '${record.id}'`)).rowCount).toBe(1);
    expect((await app.inject({ url: "/v1/models", headers: bearer(secret) })).statusCode).toBe(200);
  });

  it("an MCP session of a key revoked while the listener could not reconnect is closed once it does", async () => {
    const { record, secret } = await app.apiKeys.create({ projectId: "default", name: "mcp", createdBy: "test" });
    const headers = bearer(secret);
    const { client } = await streamableClient(`${base}/mcp`, headers);
    await client.listTools();
    // A second session whose server-message stream we watch on the wire.
    const init = await fetch(`${base}/mcp`, {
      method: "POST",
      headers: { ...headers, "content-type": "application/json", accept: ACCEPT_BOTH },
      body: JSON.stringify(initializeMessage()),
      signal: AbortSignal.timeout(10_000),
    });
    await init.text();
    const stream = await fetch(`${base}/mcp`, {
      headers: { ...headers, accept: "text/event-stream", "mcp-session-id": init.headers.get("mcp-session-id")! },
      signal: AbortSignal.timeout(30_000),
    });
    expect(stream.status).toBe(200);
    expect(app.mcpSessions.countForKey(record.id)).toBe(2);

    // Record the store checks the sessions' keys get, to know when the drop's own re-check is done.
    const checks: Promise<boolean>[] = [];
    const exists = app.apiKeys.exists.bind(app.apiKeys);
    app.apiKeys.exists = (id: string) => {
      const p = exists(id);
      checks.push(p);
      return p;
    };
    let elsewhereDb: Db | undefined;
    try {
      // The listener is cut and may not come back (no new connection for the service's role) ...
      await sql("ALTER ROLE app CONNECTION LIMIT 0");
      await sql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'agentport-listener'");
      expect(await until(() => !db.notificationsLive(), 10_000)).toBe(true);
      expect(await until(() => checks.length > 0, 10_000)).toBe(true);
      await Promise.allSettled(checks);
      // ... when the key is revoked elsewhere: its NOTIFY reaches no one here.
      elsewhereDb = await openStore({ databaseUrl: cluster.url("agentport") });
      expect(await new ApiKeys(elsewhereDb).delete("default", record.id)).toBe(true);
      expect(app.mcpSessions.countForKey(record.id)).toBe(2);

      await sql("ALTER ROLE app CONNECTION LIMIT -1");
      expect(await until(() => db.notificationsLive(), 20_000)).toBe(true);
      expect(await until(() => app.mcpSessions.countForKey(record.id) === 0, 10_000)).toBe(true);
      await stream.text(); // ends: the server closed it
    } finally {
      await sql("ALTER ROLE app CONNECTION LIMIT -1");
      app.apiKeys.exists = exists;
      await elsewhereDb?.close();
      await client.close().catch(() => {});
    }
  }, 60_000);

  it("while the server is down a request answers 503 service_unavailable in the envelope, with one warning and no stack", async () => {
    // Created and never used: not cached, so its check must reach the store.
    const { secret } = await app.apiKeys.create({ projectId: "default", name: "unused", createdBy: "test" });
    await cluster.kill();
    try {
      const res = await app.inject({ url: "/v1/models", headers: bearer(secret) });
      expect(res.statusCode).toBe(503);
      expect(res.json()).toEqual({
        error: {
          message: expect.stringContaining("metadata store"),
          type: "server_error",
          param: null,
          code: "service_unavailable",
        },
      });
      const mine = linesOf(res.headers["x-request-id"] as string);
      expect(mine.filter((l) => l.level >= 40)).toEqual([
        expect.objectContaining({ level: 40, msg: "metadata store unavailable", statement: "SELECT api_keys" }),
      ]);
      expect(JSON.stringify(mine)).not.toContain("stack");

      const ready = await app.inject({ url: "/health/ready" });
      expect(ready.statusCode).toBe(503);
      expect(ready.json().error.code).toBe("service_unavailable");
    } finally {
      await cluster.startServer();
    }
    expect(
      await until(
        async () => (await app.inject({ url: "/v1/models", headers: bearer(secret) })).statusCode === 200,
        20_000,
      ),
    ).toBe(true);
  }, 60_000);
});
