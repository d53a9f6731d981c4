/**
 * The key promise through PostgreSQL faults: two service processes on a private cluster that the
 * tests cut, freeze, kill and restart. A revoked key must never be served again by either, and
 * nothing may hang: every request answers within its bound (401, 503 or 200).
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiKeys } from "../../service/src/domain/api-keys.js";
import type { Db } from "../../service/src/store/db.js";
import { openStore } from "../../service/src/store/open.js";
import { PgCluster } from "../helpers/pg-cluster.js";
import { startServerProcess, type ServerProcess } from "../helpers/server-process.js";

const TRUST_SECONDS = 1;
/** Longest any single request may take while the store is gone (connect timeout 1 s + margin). */
const ANSWER_BOUND_MS = 8_000;

async function status(server: ServerProcess, path: string, secret?: string): Promise<number> {
  const res = await fetch(`${server.url}${path}`, {
    headers: secret ? { authorization: `Bearer ${secret}` } : {},
    signal: AbortSignal.timeout(ANSWER_BOUND_MS),
  });
  await res.arrayBuffer();
  return res.status;
}

/** Polls until `check` holds (bounded); returns the last value seen. */
async function waitFor<T>(read: () => Promise<T>, check: (v: T) => boolean, ms: number): Promise<T> {
  const end = Date.now() + ms;
  let last = await read();
  while (!check(last) && Date.now() < end) {
    await new Promise((r) => setTimeout(r, 50));
    last = await read();
  }
  return last;
}

describe("revocation through PostgreSQL faults (two service processes, a private cluster)", () => {
  let cluster: PgCluster;
  let admin: Db;
  let keys: ApiKeys;
  const replicas: ServerProcess[] = [];

  beforeAll(async () => {
    cluster = await PgCluster.start();
    const c = new pg.Client({ connectionString: cluster.url() });
    await c.connect();
    await c.query("CREATE DATABASE agentport");
    await c.end();
    const databaseUrl = cluster.url("agentport");
    admin = await openStore({ databaseUrl });
    keys = new ApiKeys(admin);
    for (const name of ["a", "b"]) {
      replicas.push(
        await startServerProcess({
          DATABASE_URL: databaseUrl,
          DATA_DIR: mkdtempSync(join(tmpdir(), `agentport-fault-${name}-`)),
          JWT_SECRET: "j".repeat(64),
          LOG_LEVEL: "info", // the helper waits for the "listening" line
          KEY_CACHE_TRUST_SECONDS: String(TRUST_SECONDS),
          DATABASE_CONNECT_TIMEOUT_SECONDS: "1",
          DATABASE_QUERY_TIMEOUT_SECONDS: "2",
        }),
      );
    }
  }, 180_000);

  afterAll(async () => {
    for (const r of replicas) {
      r.child.kill("SIGKILL");
      await Promise.race([r.exited, new Promise((resolve) => setTimeout(resolve, 5000))]);
    }
    await admin?.close().catch(() => {});
    await cluster?.remove();
  });

  /** A new key both replicas have verified (and cached). */
  async function cachedKey() {
    const { record, secret } = await keys.create({ projectId: "default", name: "k", createdBy: "test" });
    for (const r of replicas) expect(await status(r, "/v1/models", secret)).toBe(200);
    return { id: record.id, secret };
  }

  /** Deletes through the store and expects both replicas to refuse the key (bounded). */
  async function revokeAndExpectRefused(key: { id: string; secret: string }) {
    expect(await keys.delete("default", key.id)).toBe(true);
    for (const r of replicas) {
      expect(
        await waitFor(
          () => status(r, "/v1/models", key.secret),
          (s) => s === 401,
          5_000,
        ),
      ).toBe(401);
    }
  }

  it("steady state: a key deleted elsewhere is refused by both replicas", async () => {
    await revokeAndExpectRefused(await cachedKey());
  });

  it("listener cut: the listening connections are terminated, and a revocation right after still holds", async () => {
    const key = await cachedKey();
    const c = new pg.Client({ connectionString: cluster.url("agentport") });
    await c.connect();
    const { rowCount } = await c.query(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'agentport-listener'",
    );
    await c.end();
    expect(rowCount).toBe(2); // one listener per replica (the test's own store does not listen)
    await revokeAndExpectRefused(key);
    // And once the listeners are back, the cache works again: a fresh key is served.
    const fresh = await cachedKey();
    await revokeAndExpectRefused(fresh);
  });

  it("partition: while PostgreSQL is frozen a cached key is not trusted past the window, and nothing hangs", async () => {
    const key = await cachedKey();
    cluster.partition();
    try {
      // Past the trust window the replicas stop serving from cache: they ask the store, which
      // does not answer, so the answer is a prompt 503 — never a 200, never a stall.
      await new Promise((r) => setTimeout(r, (TRUST_SECONDS + 1) * 1000));
      for (const r of replicas) {
        // status() aborts past ANSWER_BOUND_MS: a stall fails the test without timing it.
        expect(await status(r, "/v1/models", key.secret)).toBe(503);
        expect(await status(r, "/health/ready")).toBe(503);
        expect(await status(r, "/health")).toBe(200);
      }
    } finally {
      cluster.heal();
    }
    // Back: the key works again, and a revocation propagates.
    for (const r of replicas)
      expect(
        await waitFor(
          () => status(r, "/v1/models", key.secret),
          (s) => s === 200,
          15_000,
        ),
      ).toBe(200);
    await revokeAndExpectRefused(key);
  }, 60_000);

  it("restart: after PostgreSQL crashes and comes back (longer than one retry), revocations still reach both replicas", async () => {
    const key = await cachedKey();
    await cluster.kill();
    // Down for several seconds: far longer than a single reconnect attempt.
    await new Promise((r) => setTimeout(r, 3000));
    for (const r of replicas) expect(await status(r, "/v1/models", key.secret)).toBe(503);
    await cluster.startServer();
    for (const r of replicas) {
      expect(
        await waitFor(
          () => status(r, "/health/ready"),
          (s) => s === 200,
          20_000,
        ),
      ).toBe(200);
      // Readiness reports whether the listener is back.
      const body = await waitFor(
        async () =>
          (await (await fetch(`${r.url}/health/ready`, { signal: AbortSignal.timeout(ANSWER_BOUND_MS) })).json()) as {
            notifications: string;
          },
        (b) => b.notifications === "live",
        20_000,
      );
      expect(body.notifications).toBe("live");
    }
    await revokeAndExpectRefused(key);
  }, 90_000);
});
