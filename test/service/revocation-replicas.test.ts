import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import type { FastifyInstance } from "fastify";
import { buildApp } from "../../service/src/app.js";
import { loadConfig } from "../../service/src/config.js";
import { openStore } from "../../service/src/store/open.js";
import type { Db } from "../../service/src/store/db.js";
import { openTestStore, type TestStore } from "../helpers/store.js";

describe("revocation across replicas (PostgreSQL server)", () => {
  const opened: Array<FastifyInstance | Db | TestStore> = [];
  afterAll(async () => {
    for (const o of opened.reverse()) await ("drop" in o ? o.drop() : o.close());
  });

  it("a key deleted on one replica is refused by another that had it cached", async () => {
    const store = await openTestStore("postgres");
    opened.push(store);
    const config = loadConfig({
      DATA_DIR: mkdtempSync(join(tmpdir(), "agentport-replicas-")),
      JWT_SECRET: "j".repeat(64),
      LOG_LEVEL: "silent",
    });
    const replica = async () => {
      const db = await openStore({ databaseUrl: store.url });
      const app = await buildApp({ config, db, logger: false });
      opened.push(db, app);
      return app;
    };
    const a = await replica();
    const b = await replica();
    const { record, secret } = await a.apiKeys.create({ projectId: "default", name: "shared", createdBy: "u" });
    const auth = { authorization: `Bearer ${secret}` };
    expect((await b.inject({ url: "/v1/none", headers: auth })).statusCode).toBe(404); // b caches it now

    await a.apiKeys.delete("default", record.id);
    expect((await a.inject({ url: "/v1/none", headers: auth })).statusCode).toBe(401);
    // b learns through NOTIFY, delivered as soon as a's DELETE commits.
    await vi.waitFor(async () => expect((await b.inject({ url: "/v1/none", headers: auth })).statusCode).toBe(401), {
      timeout: 2000,
      interval: 5,
    });
  });
});
