/**
 * /v1/responses as a tenant-facing endpoint: continued on another replica sharing the PostgreSQL
 * server, metered in the usage API and limited per key like chat, hostile bodies refused with a
 * 400 in the OpenAI envelope, and a client that leaves a stream cancels the upstream call.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { buildApp } from "../../../service/src/app.js";
import { loadConfig } from "../../../service/src/config.js";
import { openStore } from "../../../service/src/store/open.js";
import type { Db } from "../../../service/src/store/db.js";
import { agentsFileOf } from "../../helpers/app.js";
import { startLlmTestApp, type LlmTestApp } from "../../helpers/llm-app.js";
import { listen, openaiClient } from "../../helpers/openai-client.js";
import { openTestStore, type TestStore } from "../../helpers/store.js";
import { startUpstreamStub, type UpstreamStub } from "../../helpers/upstream-stub.js";

const AGENTS = [
  { id: "bot", kind: "llm", model: "echo" },
  { id: "stuck", kind: "llm", model: "hang" },
  { id: "broken", kind: "llm", model: "status-500", retries: { attempts: 1 } },
];

describe("responses across replicas (PostgreSQL server)", () => {
  let stub: UpstreamStub;
  let store: TestStore;
  const opened: Array<FastifyInstance | Db> = [];
  beforeAll(async () => {
    stub = await startUpstreamStub();
    store = await openTestStore("postgres");
  });
  afterAll(async () => {
    for (const o of opened.reverse()) await o.close();
    await store.drop();
    await stub.close();
  });

  it("continues, reads and deletes on one replica what another stored", async () => {
    const config = loadConfig({
      DATA_DIR: mkdtempSync(join(tmpdir(), "agentport-replicas-")),
      JWT_SECRET: "j".repeat(64),
      LOG_LEVEL: "silent",
      AGENTS_FILE: agentsFileOf(AGENTS),
      LLM_BASE_URL: stub.url,
    });
    const replica = async () => {
      const db = await openStore({ databaseUrl: store.url });
      const app = await buildApp({ config, db, logger: false });
      opened.push(db, app);
      return listen(app);
    };
    const [a, b] = [await replica(), await replica()];
    const { secret } = await (opened[1] as FastifyInstance).apiKeys.create({
      projectId: "default",
      name: "shared",
      createdBy: "u",
    });
    const [clientA, clientB] = [openaiClient(a, secret), openaiClient(b, secret)];
    const first = await clientA.responses.create({ model: "agentport/bot", input: "remember 42" });
    const second = await clientB.responses.create({
      model: "agentport/bot",
      input: "what number?",
      previous_response_id: first.id,
    });
    expect(second.previous_response_id).toBe(first.id);
    expect(stub.requests.at(-1)!.body.messages).toEqual([
      { role: "user", content: "remember 42" },
      { role: "assistant", content: "echo: remember 42" },
      { role: "user", content: "what number?" },
    ]);
    expect((await clientB.responses.retrieve(first.id)).output_text).toBe("echo: remember 42");
    await clientB.responses.delete(first.id);
    await expect(clientA.responses.retrieve(first.id)).rejects.toMatchObject({ status: 404 });
    // Its continuation stays, and goes on from what is still stored.
    expect((await clientA.responses.retrieve(second.id)).id).toBe(second.id);
  });
});

describe("responses metered, limited and bounded like chat", () => {
  let h: LlmTestApp;
  beforeAll(async () => {
    h = await startLlmTestApp(AGENTS, { JSON_BODY_LIMIT: "262144" });
  });
  afterAll(() => h.close());

  const post = async (body: unknown, secret = h.secret) => {
    const res = await fetch(`${h.baseURL}/responses`, {
      method: "POST",
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
      body: typeof body === "string" ? body : JSON.stringify(body),
      signal: AbortSignal.timeout(20_000),
    });
    return { status: res.status, json: await res.json() };
  };

  it("records each run's usage in the usage API, JSON and streamed", async () => {
    const key = await h.t.createKey("metered", "m");
    const client = openaiClient(h.baseURL, key.secret);
    await client.responses.create({ model: "agentport/bot", input: "one" });
    const stream = client.responses.stream({ model: "agentport/bot", input: "two" });
    for await (const _ of stream);
    const member = await h.t.memberToken("member", "metered");
    const start = Math.floor(Date.now() / 1000) - 120;
    const res = await h.t.app.inject({
      url: `/v1/organization/usage/completions?start_time=${start}&bucket_width=1h&group_by=api_key_id,model`,
      headers: { authorization: `Bearer ${member}` },
    });
    const results = res.json().data.flatMap((b: any) => b.results);
    expect(results).toEqual([
      expect.objectContaining({
        api_key_id: key.id,
        model: "agentport/bot",
        num_model_requests: 2,
        input_tokens: 22,
        output_tokens: 14,
      }),
    ]);
  });

  it("ends a stream whose upstream fails with response.failed, and still meters the run", async () => {
    const key = await h.t.createKey("failing", "f");
    const res = await fetch(`${h.baseURL}/responses`, {
      method: "POST",
      headers: { authorization: `Bearer ${key.secret}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "agentport/broken", input: "x", stream: true }),
      signal: AbortSignal.timeout(20_000),
    });
    expect(res.status).toBe(200);
    const events = (await res.text())
      .split("\n")
      .filter((l) => l.startsWith("data: "))
      .map((l) => JSON.parse(l.slice(6)));
    expect(events.map((e) => e.type)).toEqual(["response.created", "response.in_progress", "response.failed"]);
    expect(events[2].response).toMatchObject({ status: "failed", error: { code: "upstream_error" } });
    const member = await h.t.memberToken("member", "failing");
    const usage = await h.t.app.inject({
      url: `/v1/organization/usage/completions?start_time=${Math.floor(Date.now() / 1000) - 120}&bucket_width=1h`,
      headers: { authorization: `Bearer ${member}` },
    });
    expect(usage.json().data.flatMap((b: any) => b.results)).toEqual([
      expect.objectContaining({ num_model_requests: 1 }),
    ]);
  });

  it("refuses a key over its requests-per-minute limit with 429, as for chat", async () => {
    const owner = `Bearer ${await h.t.memberToken("owner")}`;
    const created = await h.t.app.inject({
      method: "POST",
      url: "/v1/organization/projects/default/api_keys",
      headers: { authorization: owner },
      payload: { name: "tiny", rate_limits: { rpm: 1 } },
    });
    const client = openaiClient(h.baseURL, created.json().secret);
    await client.responses.create({ model: "agentport/bot", input: "first" });
    await expect(client.responses.create({ model: "agentport/bot", input: "second" })).rejects.toMatchObject({
      status: 429,
      error: { code: "rate_limit_exceeded" },
    });
    await expect(
      client.chat.completions.create({ model: "agentport/bot", messages: [{ role: "user", content: "x" }] }),
    ).rejects.toMatchObject({ status: 429 });
  });

  it("refuses hostile input with a 400 naming the param, never a 5xx", async () => {
    const model = "agentport/bot";
    const cases: Array<[unknown, string | null]> = [
      [{ model, input: Array.from({ length: 3000 }, () => ({ role: "user", content: "x" })) }, null],
      [{ model, input: [{ role: "user", content: "x" }, 42] }, "input[1]"],
      [{ model, input: [{ type: "function_call", call_id: "c" }] }, "input[0].name"],
      [{ model, input: [{ role: "wizard", content: "x" }] }, "input[0].role"],
      [
        { model, input: [{ role: "user", content: [{ type: "input_file", file_id: "f" }] }] },
        "input[0].content[0].type",
      ],
      [{ model, input: [{ type: "item_reference", id: "msg_1" }] }, "input[0].type"],
      [{ model, input: "x", tools: [{ type: "web_search" }] }, "tools[0].type"],
      [{ model, input: "x", tools: [{ type: "file_search", vector_store_ids: ["vs_1"] }] }, "tools[0].type"],
      [{ model, input: "x", tools: [{ type: "function" }] }, "tools[0].name"],
      [{ model, input: "x", text: { format: { type: "xml" } } }, "text.format.type"],
      [{ model, input: "x", conversation: "conv_1" }, "conversation"],
      [{ model, input: "x", previous_response_id: "not-an-id" }, "previous_response_id"],
      [{ model, input: "x", bogus: 1 }, null],
      [{ model, input: [] }, "input"],
    ];
    for (const [body, param] of cases) {
      const { status, json } = await post(body);
      expect(status, JSON.stringify(body).slice(0, 120)).toBeGreaterThanOrEqual(400);
      expect(status, JSON.stringify(body).slice(0, 120)).toBeLessThan(500);
      expect(json.error).toMatchObject({ type: "invalid_request_error" });
      if (param) expect(json.error.param, JSON.stringify(body).slice(0, 120)).toBe(param);
    }
    const huge = await post({ model, input: "x".repeat(300_000) });
    expect(huge.status).toBe(413);
    expect((await post("{not json")).status).toBe(400);
    expect((await post({ model: "agentport/nope", input: "x" })).json.error).toMatchObject({
      param: "model",
      code: "model_not_found",
    });
  });

  it("follows a previous_response_id chain 256 responses deep, and refuses a longer one", async () => {
    await h.t.store.db.query(
      `INSERT INTO responses (id, project_id, previous_response_id, created_at, input_items, response, bytes)
       SELECT 'resp_chain' || i, 'default', CASE WHEN i = 1 THEN NULL ELSE 'resp_chain' || (i - 1) END, now(), '[]', '{"output":[]}', 15
         FROM generate_series(1, 257) AS i`,
    );
    expect((await post({ model: "agentport/bot", input: "deep", previous_response_id: "resp_chain256" })).status).toBe(
      200,
    );
    const refused = await post({ model: "agentport/bot", input: "deeper", previous_response_id: "resp_chain257" });
    expect(refused.status).toBe(400);
    expect(refused.json.error).toMatchObject({ param: "previous_response_id", type: "invalid_request_error" });
    expect(refused.json.error.message).toContain("256");
  });

  it("cancels the upstream call when a streaming client leaves", async () => {
    const before = h.stub.requests.length;
    const controller = new AbortController();
    const stream = h.client.responses.stream(
      { model: "agentport/stuck", input: "wait" },
      { signal: controller.signal },
    );
    const types: string[] = [];
    await expect(
      (async () => {
        for await (const event of stream) {
          types.push(event.type);
          if (event.type !== "response.in_progress") continue;
          // The upstream has the call (its headers, nothing more): now the client leaves.
          await vi.waitFor(() => expect(h.stub.requests.length).toBeGreaterThan(before), {
            timeout: 5000,
            interval: 5,
          });
          controller.abort();
        }
      })(),
    ).rejects.toThrow();
    expect(types).toEqual(["response.created", "response.in_progress"]);
    const upstream = h.stub.requests[before];
    await upstream.aborted;
    expect(upstream.wasAborted).toBe(true);
  });
});
