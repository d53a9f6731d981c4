/**
 * POST /v1/embeddings on an `llm` agent declared with `embeddings: true`: LangChain's
 * OpenAIEmbeddings and the official openai client against the upstream stub; the body forwarded as
 * sent, the answer in OpenAI's shape under the model asked for, metered as one run, bad input and
 * offline agents refused with a clear 400, a broken upstream a 502.
 */
import { OpenAIEmbeddings } from "@langchain/openai";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLlmTestApp, type LlmTestApp } from "../../helpers/llm-app.js";
import { buildApp } from "../../../service/src/app.js";
import { loadConfig } from "../../../service/src/config.js";
import { agentsFileOf } from "../../helpers/app.js";
import { listen } from "../../helpers/openai-client.js";
import { openTestStore } from "../../helpers/store.js";
import { startUpstreamStub } from "../../helpers/upstream-stub.js";

const AGENTS = [
  { id: "embed", kind: "llm", model: "embed", embeddings: true, aliases: ["text-embedding-3-small"] },
  { id: "embed-short", kind: "llm", model: "embed-short", embeddings: true },
  { id: "embed-garble", kind: "llm", model: "embed-garble", embeddings: true },
  { id: "embed-busy", kind: "llm", model: "status-429", embeddings: true },
  { id: "embed-picky", kind: "llm", model: "status-400", embeddings: true },
  { id: "embed-hang", kind: "llm", model: "embed-hang", embeddings: true },
  { id: "docs", kind: "files" },
];
/** The stub's vector i: [i+1, i+1.5, …]. */
const vector = (i: number, dims = 4) => Array.from({ length: dims }, (_, d) => i + 1 + d / 2);

let h: LlmTestApp;
beforeAll(async () => {
  h = await startLlmTestApp(AGENTS);
});
afterAll(() => h.close());

/** The last request the stub received on /embeddings. */
const lastUpstream = () => h.stub.requests.at(-1)!.body as Record<string, unknown>;

async function post(body: unknown, secret = h.secret) {
  const res = await fetch(`${h.baseURL}/embeddings`, {
    method: "POST",
    headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(20_000),
  });
  return { status: res.status, headers: res.headers, json: await res.json() };
}

describe("POST /v1/embeddings", () => {
  it("serves LangChain's OpenAIEmbeddings: documents in a batch and a query, with dimensions", async () => {
    const embeddings = new OpenAIEmbeddings({
      model: "agentport/embed",
      apiKey: h.secret,
      configuration: { baseURL: h.baseURL },
      dimensions: 3,
    });
    expect(await embeddings.embedDocuments(["first text", "second text", "third text"])).toEqual([
      vector(0, 3),
      vector(1, 3),
      vector(2, 3),
    ]);
    expect(lastUpstream()).toMatchObject({
      model: "embed",
      input: ["first text", "second text", "third text"],
      dimensions: 3,
    });
    expect(await embeddings.embedQuery("a question")).toEqual(vector(0, 3));
  });

  it("forwards the official client's fields as sent and answers OpenAI's shape under the model asked for", async () => {
    const res = await h.client.embeddings.create({
      model: "text-embedding-3-small",
      input: ["x", "y"],
      encoding_format: "float",
      dimensions: 2,
      user: "user-1",
    });
    expect(lastUpstream()).toEqual({
      model: "embed",
      input: ["x", "y"],
      encoding_format: "float",
      dimensions: 2,
      user: "user-1",
    });
    expect(Object.keys(res).sort()).toEqual(["data", "model", "object", "usage"]);
    expect(res.object).toBe("list");
    expect(res.model).toBe("text-embedding-3-small");
    expect(res.data).toEqual([
      { object: "embedding", index: 0, embedding: vector(0, 2) },
      { object: "embedding", index: 1, embedding: vector(1, 2) },
    ]);
    expect(res.usage).toEqual({ prompt_tokens: 14, total_tokens: 14 });
  });

  it("relays base64 vectors (the client's default) and token-array input", async () => {
    const res = await h.client.embeddings.create({
      model: "agentport/embed",
      input: [
        [1, 2, 3],
        [4, 5],
      ],
    });
    expect(lastUpstream()).toMatchObject({
      input: [
        [1, 2, 3],
        [4, 5],
      ],
      encoding_format: "base64",
    });
    expect(res.data.map((d) => d.embedding)).toEqual([vector(0), vector(1)]);
  });

  it("is one metered run: the input's estimate reserved, no completion, settled to the upstream's usage", async () => {
    const { record, secret } = await h.t.app.apiKeys.create({
      projectId: "default",
      name: "limited",
      createdBy: "t",
      rateLimitTpm: 100_000,
      rateLimitRpm: 50,
    });
    const res = await post({ model: "agentport/embed", input: ["twelve chars", "sixteen chars!!!"] }, secret);
    expect(res.status).toBe(200);
    // "twelve chars" is 3 tokens by its letters; "sixteen chars!!!" 4 by its letters and 3 by its marks (a
    // token each): 10 reserved, nothing for a completion.
    expect(res.headers.get("x-ratelimit-remaining-tokens")).toBe(String(100_000 - 10));
    expect(res.headers.get("x-ratelimit-remaining-requests")).toBe("49");
    await h.t.app.usage.flush();
    const { rows } = await h.t.store.db.query<{
      requests: string;
      input_tokens: string;
      output_tokens: string;
      model: string;
    }>("SELECT requests, input_tokens, output_tokens, model FROM usage_minutes WHERE api_key_id = $1", [record.id]);
    expect(rows.map((r) => [Number(r.requests), Number(r.input_tokens), Number(r.output_tokens), r.model])).toEqual([
      [1, 14, 0, "agentport/embed"],
    ]);
  });

  it("refuses an offline agent with a 400 naming the models that embed", async () => {
    const err = await h.client.embeddings.create({ model: "agentport/docs", input: "x" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    const e = err as InstanceType<typeof OpenAI.BadRequestError>;
    expect(e.param).toBe("model");
    expect(e.message).toContain("it is a files agent");
    expect(e.message).toContain("'agentport/embed'");
    expect((await post({ model: "agentport/nope", input: "x" })).status).toBe(404);
  });

  it("refuses bad input with a 400 in the envelope", async () => {
    for (const body of [
      { model: "agentport/embed", input: [] },
      { model: "agentport/embed", input: "" },
      { model: "agentport/embed" },
      { model: "agentport/embed", input: "x", encoding_format: "int8" },
      { model: "agentport/embed", input: "x", temperature: 1 },
    ]) {
      const res = await post(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(Object.keys(res.json.error).sort()).toEqual(["code", "message", "param", "type"]);
    }
  });

  it("answers 502 for an upstream answer that is not OpenAI's shape, and keeps the upstream's 400 and 429", async () => {
    const short = await post({ model: "agentport/embed-short", input: ["a", "b"] });
    expect(short.status).toBe(502);
    expect(short.json.error.message).toContain("1 embeddings for 2 inputs");
    expect((await post({ model: "agentport/embed-garble", input: "a" })).json.error.code).toBe("upstream_error");
    const picky = await post({ model: "agentport/embed-picky", input: "a" });
    expect(picky.status).toBe(400);
    expect(picky.json.error.message).toContain("upstream says 400");
    const busy = await post({ model: "agentport/embed-busy", input: "a" });
    expect([busy.status, busy.headers.get("retry-after")]).toEqual([429, "7"]);
  });

  it("a client that leaves aborts the upstream call, and the run is still metered", async () => {
    const { record, secret } = await h.t.app.apiKeys.create({
      projectId: "default",
      name: "leaver",
      createdBy: "t",
      rateLimitTpm: 100_000,
    });
    const before = h.stub.requests.length;
    const abort = new AbortController();
    const pending = fetch(`${h.baseURL}/embeddings`, {
      method: "POST",
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "agentport/embed-hang", input: "eight ch" }),
      signal: abort.signal,
    }).catch(() => "aborted");
    for (let i = 0; i < 200 && h.stub.requests.length === before; i++) await new Promise((r) => setTimeout(r, 25));
    abort.abort();
    expect(await pending).toBe("aborted");
    await h.stub.requests[before].aborted; // bounded by the test's timeout
    let rows: { requests: string; input_tokens: string }[] = [];
    for (let i = 0; i < 200 && rows.length === 0; i++) {
      await h.t.app.usage.flush();
      ({ rows } = await h.t.store.db.query("SELECT requests, input_tokens FROM usage_minutes WHERE api_key_id = $1", [
        record.id,
      ]));
      if (rows.length === 0) await new Promise((r) => setTimeout(r, 25));
    }
    expect(rows.map((r) => [Number(r.requests), Number(r.input_tokens)])).toEqual([[1, 2]]);
  });

  it("lists the embedding agents among the models", async () => {
    const models = await h.client.models.list();
    expect(models.data.map((m) => m.id)).toContain("agentport/embed");
  });
});

describe("POST /v1/embeddings at shutdown", () => {
  it("answers 503 to retry when the shutdown deadline passes during the upstream call, and aborts it", async () => {
    const stub = await startUpstreamStub();
    const store = await openTestStore("pglite");
    const deadline = new AbortController();
    const config = loadConfig({
      DATA_DIR: mkdtempSync(join(tmpdir(), "agentport-embed-")),
      JWT_SECRET: "x".repeat(64),
      LLM_BASE_URL: stub.url,
      AGENTS_FILE: agentsFileOf(AGENTS),
      LOG_LEVEL: "silent",
    });
    const app = await buildApp({ config, db: store.db, logger: false, drainDeadline: deadline.signal });
    try {
      const baseURL = await listen(app);
      const { secret } = await app.apiKeys.create({ projectId: "default", name: "drain", createdBy: "t" });
      const pending = fetch(`${baseURL}/embeddings`, {
        method: "POST",
        headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "agentport/embed-hang", input: "x" }),
        signal: AbortSignal.timeout(20_000),
      });
      for (let i = 0; i < 200 && stub.requests.length === 0; i++) await new Promise((r) => setTimeout(r, 25));
      deadline.abort();
      const res = await pending;
      expect(res.status).toBe(503);
      expect((await res.json()).error).toMatchObject({
        code: "service_unavailable",
        message: expect.stringContaining("shutting down"),
      });
      await stub.requests[0].aborted; // bounded by the test's timeout
    } finally {
      await app.close();
      await store.drop();
      await stub.close();
    }
  });
});
