/**
 * Every answer and every stream event of every route, checked against the operation's schema in
 * OpenAI's own OpenAPI document (vendored at a pinned commit: test/fixtures/openai-openapi/), on
 * the relay path (llm agents answered by the local upstream stubs) and on the offline agents.
 * Where agentport differs on purpose, the deviation is named below with its reason.
 */
import { validate as validateOpenApi } from "@readme/openapi-parser";
import { createParser } from "eventsource-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLlmTestApp, type LlmTestApp } from "../helpers/llm-app.js";
import {
  componentPointer,
  openapi,
  schemaPointer,
  schemaProblems,
  VENDORED_SHA256,
  vendoredSha256,
  type Deviation,
  type Operation,
} from "../helpers/openai-schema.js";

const AGENTS = [
  { id: "bot", kind: "llm", model: "echo" },
  { id: "caller", kind: "llm", model: "tools" },
  { id: "refuser", kind: "llm", model: "refuse" },
  { id: "breaker", kind: "llm", model: "break" },
  { id: "forwarder", kind: "llm", model: "echo", responses: true },
  { id: "embedder", kind: "llm", model: "embed-small", embeddings: true },
  { id: "synth", kind: "synthetic", tokens: 5 },
  { id: "library", kind: "files" },
];

const CHAT: Operation = { method: "post", path: "/chat/completions" };
const CHAT_CHUNK: Operation = { ...CHAT, media: "text/event-stream" };
const RESPONSES: Operation = { method: "post", path: "/responses" };
const RESPONSES_EVENT: Operation = { ...RESPONSES, media: "text/event-stream" };
const ERROR = componentPointer("ErrorResponse");

/*
 * Deviations, on purpose. Two more, with nothing to validate: DELETE /responses/{id} answers
 * `{id, object: "response", deleted: true}` like every other delete, where OpenAI's document gives
 * no body; GET /files/{id}/content answers the file's bytes with the file's own type, where the
 * document says `application/json` string (OpenAI itself sends the bytes, as the SDKs expect).
 */
const BASE64_EMBEDDING: Deviation = {
  where: /^\/data\/\d+\/embedding$/,
  keyword: "type",
  why: "OpenAI's document types `embedding` as numbers only; with encoding_format base64 OpenAI itself answers a base64 string, which the SDKs decode",
};
const KEY_OWNER_DETAILS: Deviation[] = ["name", "email", "role", "created_at"].map((property) => ({
  where: /^\/owner\/user$/,
  keyword: "required",
  property,
  why: "members are known by the user id their token carries; agentport keeps no name, email, role or join date for them",
}));

let h: LlmTestApp;
let origin: string;
beforeAll(async () => {
  h = await startLlmTestApp(AGENTS);
  origin = h.baseURL.replace(/\/v1$/, "");
}, 240_000);
afterAll(() => h?.close());

/** The body's problems against the operation's schema (or a component's pointer), after the named deviations. */
function problems(where: Operation | string, body: unknown, deviations: Deviation[] = []): string[] {
  return schemaProblems(typeof where === "string" ? where : schemaPointer(where), body, deviations);
}

function expectValid(where: Operation | string, body: unknown, deviations: Deviation[] = []): void {
  expect(problems(where, body, deviations), JSON.stringify(body).slice(0, 2000)).toEqual([]);
}

async function send(
  method: string,
  path: string,
  body?: object,
  key = h.secret,
): Promise<{ status: number; json: any; type: string }> {
  const res = await fetch(origin + path, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body && { "content-type": "application/json" }) },
    body: body && JSON.stringify(body),
  });
  const text = await res.text();
  const type = res.headers.get("content-type") ?? "";
  return { status: res.status, json: type.includes("json") ? JSON.parse(text) : text, type };
}

/** A streamed answer's events, parsed as an SSE client parses them ([DONE] left out). */
async function events(path: string, body: object): Promise<Array<{ event?: string; data: any }>> {
  const res = await fetch(origin + path, {
    method: "POST",
    headers: { authorization: `Bearer ${h.secret}`, "content-type": "application/json" },
    body: JSON.stringify({ ...body, stream: true }),
  });
  expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
  const out: Array<{ event?: string; data: any }> = [];
  const parser = createParser({
    onEvent: (e) => {
      if (e.data !== "[DONE]") out.push({ event: e.event, data: JSON.parse(e.data) });
    },
  });
  parser.feed(await res.text());
  return out;
}

describe("the vendored document", () => {
  it("is the pinned file, unchanged, and a valid OpenAPI 3.1 document", async () => {
    expect(vendoredSha256).toBe(VENDORED_SHA256);
    expect(openapi.openapi).toBe("3.1.0");
    expect(await validateOpenApi(structuredClone(openapi) as never)).toMatchObject({ valid: true });
  }, 120_000);

  it("catches a wrong shape (the check can fail)", () => {
    expect(problems(ERROR, { error: { message: "x", type: "t" } })).toHaveLength(2);
    expect(problems(CHAT, { id: "x", object: "chat.completion", created: 1, model: "m", choices: [{}] })).not.toEqual(
      [],
    );
  });
});

describe.each([
  ["relay path: an llm agent on the upstream stub", "agentport/bot"],
  ["offline: a synthetic agent", "agentport/synth"],
  ["offline: a files agent", "agentport/library"],
])("chat completions, %s", (_name, model) => {
  const messages = [{ role: "user", content: "hello there" }];

  it("the chat.completion", async () => {
    const res = await send("POST", "/v1/chat/completions", { model, messages });
    expect(res.status).toBe(200);
    expectValid(CHAT, res.json);
  });

  it("each chat.completion.chunk, the usage chunk included", async () => {
    const chunks = await events("/v1/chat/completions", { model, messages, stream_options: { include_usage: true } });
    expect(chunks.length).toBeGreaterThan(2);
    expect(chunks.at(-1)!.data.usage).toBeTruthy();
    for (const { data } of chunks) expectValid(CHAT_CHUNK, data);
  });
});

describe("chat completions, relay path: what an upstream adds", () => {
  const messages = [{ role: "user", content: "hello there" }];

  it("several choices with log probabilities, tool calls and a refusal, JSON and streamed", async () => {
    const bodies = [
      { model: "agentport/bot", messages, n: 2, logprobs: true, top_logprobs: 2 },
      { model: "agentport/caller", messages, tools: [{ type: "function", function: { name: "get_weather" } }] },
      { model: "agentport/refuser", messages },
    ];
    for (const body of bodies) {
      const res = await send("POST", "/v1/chat/completions", body);
      expect(res.status).toBe(200);
      expectValid(CHAT, res.json);
      for (const { data } of await events("/v1/chat/completions", body)) expectValid(CHAT_CHUNK, data);
    }
  });

  it("an upstream that breaks mid-stream: the error event is OpenAI's error object", async () => {
    const all = await events("/v1/chat/completions", { model: "agentport/breaker", messages });
    const last = all.at(-1)!.data;
    expect(last.error).toBeTruthy();
    expectValid(ERROR, last);
    for (const { data } of all.slice(0, -1)) expectValid(CHAT_CHUNK, data);
  });
});

describe.each([
  ["relay path: translated to the upstream's chat completions", "agentport/bot"],
  ["relay path: forwarded to the upstream's own Responses API", "agentport/forwarder"],
  ["offline: a synthetic agent", "agentport/synth"],
])("responses, %s", (_name, model) => {
  it("the Response, retrieved, its input items; every event of a stream", async () => {
    const created = await send("POST", "/v1/responses", { model, input: "hello there", instructions: "Be brief." });
    expect(created.status).toBe(200);
    expectValid(RESPONSES, created.json);
    const id = created.json.id as string;
    expectValid({ method: "get", path: "/responses/{response_id}" }, (await send("GET", `/v1/responses/${id}`)).json);
    const items = await send("GET", `/v1/responses/${id}/input_items`);
    expectValid({ method: "get", path: "/responses/{response_id}/input_items" }, items.json);

    const streamed = await events("/v1/responses", { model, input: "hello again", previous_response_id: id });
    expect(streamed.at(-1)!.data.type).toBe("response.completed");
    for (const { event, data } of streamed) {
      expect(event).toBe(data.type);
      expectValid(RESPONSES_EVENT, data);
    }
  });
});

describe("embeddings (relay path)", () => {
  it.each(["float", "base64"])("the embedding list, encoding_format %s", async (encoding_format) => {
    const res = await send("POST", "/v1/embeddings", {
      model: "agentport/embedder",
      input: ["a", "b"],
      encoding_format,
    });
    expect(res.status).toBe(200);
    expectValid({ method: "post", path: "/embeddings" }, res.json, [BASE64_EMBEDDING]);
  });
});

describe("models and files", () => {
  it("the model list and a model", async () => {
    expectValid({ method: "get", path: "/models" }, (await send("GET", "/v1/models")).json);
    expectValid({ method: "get", path: "/models/{model}" }, (await send("GET", "/v1/models/agentport/bot")).json);
  });

  it("a file uploaded, listed, retrieved and deleted", async () => {
    const form = new FormData();
    form.append("file", new Blob(["some text\n"]), "notes.txt");
    form.append("purpose", "assistants");
    const res = await fetch(origin + "/v1/files", {
      method: "POST",
      headers: { authorization: `Bearer ${h.secret}` },
      body: form,
    });
    const file = (await res.json()) as { id: string };
    expectValid({ method: "post", path: "/files" }, file);
    expectValid({ method: "get", path: "/files" }, (await send("GET", "/v1/files")).json);
    expectValid({ method: "get", path: "/files/{file_id}" }, (await send("GET", `/v1/files/${file.id}`)).json);
    expectValid({ method: "delete", path: "/files/{file_id}" }, (await send("DELETE", `/v1/files/${file.id}`)).json);
  });
});

describe("errors", () => {
  it("every refusal is OpenAI's error object", async () => {
    const refusals = [
      await send("GET", "/v1/models", undefined, "sk-not-a-key"),
      await send("POST", "/v1/chat/completions", { model: "agentport/nobody", messages: [] }),
      await send("POST", "/v1/chat/completions", { model: "agentport/bot", messages: [{ role: "nobody" }] }),
      await send("GET", "/v1/nowhere"),
      await send("GET", "/v1/files/file-nothing"),
      await send("DELETE", "/v1/responses/resp_nothing"),
    ];
    for (const r of refusals) {
      expect(r.status).toBeGreaterThanOrEqual(400);
      expectValid(ERROR, r.json);
    }
  });

  it("a rate limit: the 429 response of the document", async () => {
    const { secret } = await h.t.app.apiKeys
      .create({ projectId: "default", name: "one a minute", createdBy: "user_test", rateLimitRpm: 1 })
      .then((k) => ({ secret: k.secret }));
    await send("GET", "/v1/models", undefined, secret);
    const limited = await send("GET", "/v1/models", undefined, secret);
    expect(limited.status).toBe(429);
    expectValid({ ...CHAT, status: "429" }, limited.json);
  });
});

describe("project API keys and usage (a member's token)", () => {
  const base = "/v1/organization/projects/default/api_keys";
  const KEY = "/organization/projects/{project_id}/api_keys/{api_key_id}";

  it("list, retrieve and delete; the usage report", async () => {
    const owner = await h.t.memberToken("owner");
    const made = await send("POST", base, { name: "schema" }, owner);
    expect(made.status).toBe(201);
    // No OpenAI operation creates a project key (its admin API only lists, reads and deletes them):
    // the one-time view is a ProjectApiKey plus the secret and the client configurations.
    expectValid({ method: "get", path: KEY }, made.json, KEY_OWNER_DETAILS);
    const list = (await send("GET", base, undefined, owner)).json;
    expectValid(
      { method: "get", path: "/organization/projects/{project_id}/api_keys" },
      list,
      KEY_OWNER_DETAILS.map((d) => ({ ...d, where: /^\/data\/\d+\/owner\/user$/ })),
    );
    expectValid(
      { method: "get", path: KEY },
      (await send("GET", `${base}/${made.json.id}`, undefined, owner)).json,
      KEY_OWNER_DETAILS,
    );
    expectValid(
      { method: "delete", path: KEY },
      (await send("DELETE", `${base}/${made.json.id}`, undefined, owner)).json,
    );

    await send("POST", "/v1/chat/completions", {
      model: "agentport/synth",
      messages: [{ role: "user", content: "x" }],
    });
    const start = Math.floor(Date.now() / 1000) - 3600;
    for (const query of [
      `start_time=${start}`,
      `start_time=${start}&group_by=model&group_by=api_key_id&bucket_width=1h`,
    ]) {
      const usage = await send("GET", `/v1/organization/usage/completions?${query}`, undefined, owner);
      expect(usage.status).toBe(200);
      expectValid({ method: "get", path: "/organization/usage/completions" }, usage.json);
    }
  });
});
