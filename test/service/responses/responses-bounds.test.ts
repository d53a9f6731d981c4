/**
 * What one project can make the shared database and the replica hold through stored responses,
 * with two replicas on one PostgreSQL server: a per-project cap on stored bytes
 * (RESPONSES_PROJECT_MAX_BYTES, a 400 naming it, counted in the shared store so every replica
 * agrees, freed by deletes and by the retention sweep, shown in /metrics), and a cap on what a
 * `previous_response_id` continuation rebuilds (RESPONSES_CHAIN_MAX_BYTES), refused before any work.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../../service/src/app.js";
import { loadConfig } from "../../../service/src/config.js";
import { newId } from "../../../service/src/domain/responses/ids.js";
import { ResponseStore } from "../../../service/src/domain/responses/response-store.js";
import type { ResponseObject } from "../../../service/src/domain/responses/types.js";
import type { Db } from "../../../service/src/store/db.js";
import { openStore } from "../../../service/src/store/open.js";
import { agentsFileOf } from "../../helpers/app.js";
import { scrape } from "../../helpers/metrics.js";
import { listen } from "../../helpers/openai-client.js";
import { openTestStore, type TestStore } from "../../helpers/store.js";
import { startUpstreamStub, type UpstreamStub } from "../../helpers/upstream-stub.js";

const CAP = 64 * 1024;

describe("stored responses: per-project cap and continuation cap, two replicas", () => {
  let stub: UpstreamStub;
  let store: TestStore;
  const opened: Array<FastifyInstance | Db> = [];
  let a: string;
  let b: string;
  let secret: string;
  let otherSecret: string;

  beforeAll(async () => {
    stub = await startUpstreamStub();
    store = await openTestStore("postgres");
    const config = loadConfig({
      DATA_DIR: mkdtempSync(join(tmpdir(), "agentport-bounds-")),
      JWT_SECRET: "j".repeat(64),
      LOG_LEVEL: "silent",
      AGENTS_FILE: agentsFileOf([{ id: "bot", kind: "llm", model: "echo" }]),
      LLM_BASE_URL: stub.url,
      RESPONSES_PROJECT_MAX_BYTES: String(CAP),
    });
    const replica = async () => {
      const db = await openStore({ databaseUrl: store.url });
      const app = await buildApp({ config, db, logger: false });
      opened.push(db, app);
      return { app, url: await listen(app) };
    };
    const first = await replica();
    a = first.url;
    b = (await replica()).url;
    secret = (await first.app.apiKeys.create({ projectId: "default", name: "k", createdBy: "u" })).secret;
    otherSecret = (await first.app.apiKeys.create({ projectId: "other", name: "k", createdBy: "u" })).secret;
  });
  afterAll(async () => {
    for (const o of opened.reverse()) await o.close();
    await store.drop();
    await stub.close();
  });

  const respond = async (base: string, body: object, key = secret) => {
    const res = await fetch(`${base}/responses`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "agentport/bot", ...body }),
      signal: AbortSignal.timeout(20_000),
    });
    return { status: res.status, json: await res.json() };
  };
  const storedInDb = async (project = "default") =>
    Number(
      (
        await store.db.query<{ sum: string | null }>(
          "SELECT sum(bytes)::text AS sum FROM responses WHERE project_id = $1",
          [project],
        )
      ).rows[0].sum ?? 0,
    );

  it("a project storing one request at a time is stopped at its cap, on every replica, with a 400 naming it", async () => {
    const ids: string[] = [];
    let refused: { status: number; json: any } | undefined;
    for (let i = 0; i < 20 && !refused; i++) {
      const res = await respond(i % 2 ? b : a, { input: `${i} ${"x".repeat(10_000)}` });
      if (res.status === 200) ids.push(res.json.id);
      else refused = res;
    }
    expect(refused?.status).toBe(400);
    expect(refused?.json.error).toMatchObject({ code: "storage_quota_exceeded", param: "store" });
    expect(refused?.json.error.message).toContain("RESPONSES_PROJECT_MAX_BYTES");
    const { rows } = await store.db.query<{ max: number }>("SELECT max(bytes) AS max FROM responses");
    expect(await storedInDb()).toBeLessThanOrEqual(CAP + Number(rows[0].max));
    // The other replica reads the same count; a run that stores nothing, and another project, still pass.
    const again = { input: `again ${"x".repeat(10_000)}` };
    expect((await respond(b, again)).status).toBe(400);
    expect((await respond(b, { ...again, store: false })).status).toBe(200);
    expect((await respond(a, { input: "mine" }, otherSecret)).status).toBe(200);
    // Deleting frees room, on whichever replica.
    for (const id of ids.slice(0, 2)) {
      const res = await fetch(`${a}/responses/${id}`, {
        method: "DELETE",
        headers: { authorization: `Bearer ${secret}` },
      });
      expect(res.status).toBe(200);
    }
    expect((await respond(b, again)).status).toBe(200);
    // The metric, on either replica, is what the database holds.
    const metric = (await scrape(b.replace(/\/v1$/, ""))).value("agentport_responses_stored_bytes", {
      project: "default",
    });
    expect(metric).toBe(await storedInDb());
  });

  it("the retention sweep frees the bytes it removes", async () => {
    await store.db.query("UPDATE responses SET created_at = now() - interval '40 days' WHERE project_id = 'other'");
    const sweeper = new ResponseStore(store.db, { retentionDays: 30 });
    expect(await sweeper.deleteExpired(100)).toBe(1);
    expect(await sweeper.storedBytes("other")).toBe(0);
    expect(await sweeper.storedBytes("default")).toBe(await storedInDb());
  });

  it("a continuation of a chain over RESPONSES_CHAIN_MAX_BYTES (1 MiB) is a 400 naming it, without an upstream call", async () => {
    // Stored straight into the shared store (this project's cap would stop it first): 3 turns of 400 KiB.
    const writer = new ResponseStore(store.db);
    let previous: string | null = null;
    for (let i = 0; i < 3; i++) {
      const id = newId("resp");
      const response = { id, created_at: Math.floor(Date.now() / 1000), previous_response_id: previous, output: [] };
      const input = [
        { type: "message" as const, role: "user" as const, content: "y".repeat(400 * 1024), id: newId("msg") },
      ];
      await writer.save("chains", response as unknown as ResponseObject, input);
      previous = id;
    }
    const chains = (
      await (opened[1] as FastifyInstance).apiKeys.create({ projectId: "chains", name: "k", createdBy: "u" })
    ).secret;
    // Within the cap, a continuation of the first two turns works.
    const { rows } = await store.db.query<{ previous_response_id: string }>(
      "SELECT previous_response_id FROM responses WHERE id = $1",
      [previous],
    );
    expect(
      (await respond(a, { input: "ok?", previous_response_id: rows[0].previous_response_id, store: false }, chains))
        .status,
    ).toBe(200);
    const calls = stub.requests.length;
    const res = await respond(b, { input: "and then?", previous_response_id: previous }, chains);
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ param: "previous_response_id" });
    expect(res.json.error.message).toContain("RESPONSES_CHAIN_MAX_BYTES");
    expect(stub.requests.length).toBe(calls);
  });
});
