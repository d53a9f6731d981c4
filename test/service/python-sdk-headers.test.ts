/**
 * Every route answers a request carrying the exact headers OpenAI's official Python SDK sends
 * (test/fixtures/openai-python-headers.ts): `Content-Type: application/json` on a DELETE or a POST
 * without a body is accepted as OpenAI accepts it. Sent from Node's fetch (undici), over HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLlmTestApp, type LlmTestApp } from "../helpers/llm-app.js";
import { PYTHON_SDK_VERSION, pythonSdkHeaders, type PythonSdkMethod } from "../fixtures/openai-python-headers.js";

const AGENTS = [
  { id: "bot", kind: "llm", model: "echo" },
  { id: "embedder", kind: "llm", model: "embed-small", embeddings: true },
  { id: "synth", kind: "synthetic", tokens: 3 },
];

let h: LlmTestApp;
let origin: string;
beforeAll(async () => {
  h = await startLlmTestApp(AGENTS);
  origin = h.baseURL.replace(/\/v1$/, "");
}, 240_000);
afterAll(() => h.close());

interface Sent {
  status: number;
  body: any;
}

/** One request as the Python SDK makes it: its headers, a JSON body only when the call has one. */
async function python(
  method: PythonSdkMethod,
  path: string,
  opts: { body?: object; key?: string; contentTypeOnGet?: boolean } = {},
): Promise<Sent> {
  const headers = pythonSdkHeaders(method, opts.key ?? h.secret, { contentTypeOnGet: opts.contentTypeOnGet });
  const res = await fetch(origin + path, {
    method,
    headers,
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
  });
  const text = await res.text();
  return { status: res.status, body: text.startsWith("{") ? JSON.parse(text) : text };
}

/** An upload as the SDK sends it: its headers without the JSON Content-Type, which httpx replaces with multipart's. */
async function upload(): Promise<string> {
  const { "Content-Type": _json, ...headers } = pythonSdkHeaders("POST", h.secret);
  const form = new FormData();
  form.append("file", new Blob(["hello from python\n"]), "hello.txt");
  form.append("purpose", "assistants");
  const res = await fetch(origin + "/v1/files", { method: "POST", headers, body: form });
  expect(res.status).toBe(200);
  return ((await res.json()) as { id: string }).id;
}

describe(`the headers of the official Python SDK ${PYTHON_SDK_VERSION}`, () => {
  it("delete a file: a DELETE with Content-Type: application/json and no body", async () => {
    const id = await upload();
    expect(await python("GET", `/v1/files/${id}`)).toMatchObject({ status: 200, body: { id, object: "file" } });
    expect(await python("DELETE", `/v1/files/${id}`)).toEqual({
      status: 200,
      body: { id, object: "file", deleted: true },
    });
    const again = await python("DELETE", `/v1/files/${id}`);
    expect(again.status).toBe(404);
    expect(again.body.error.code).toBe("file_not_found");
  });

  it("files list and content, models list and retrieve", async () => {
    const id = await upload();
    expect(await python("GET", "/v1/files")).toMatchObject({ status: 200, body: { object: "list" } });
    expect(await python("GET", `/v1/files/${id}/content`)).toEqual({ status: 200, body: "hello from python\n" });
    const models = await python("GET", "/v1/models");
    expect(models.status).toBe(200);
    expect(models.body.data.map((m: { id: string }) => m.id)).toContain("agentport/bot");
    expect(await python("GET", "/v1/models/agentport/bot")).toMatchObject({
      status: 200,
      body: { id: "agentport/bot" },
    });
  });

  it("chat and text completions, embeddings, responses create, retrieve, input items and delete", async () => {
    const chat = await python("POST", "/v1/chat/completions", {
      body: { model: "agentport/bot", messages: [{ role: "user", content: "hi" }] },
    });
    expect(chat).toMatchObject({ status: 200, body: { choices: [{ message: { content: "echo: hi" } }] } });
    const text = await python("POST", "/v1/completions", { body: { model: "agentport/bot", prompt: "hi" } });
    expect(text).toMatchObject({ status: 200, body: { object: "text_completion", choices: [{ text: "echo: hi" }] } });
    const embedding = await python("POST", "/v1/embeddings", { body: { model: "agentport/embedder", input: "hi" } });
    expect(embedding).toMatchObject({ status: 200, body: { object: "list" } });
    const created = await python("POST", "/v1/responses", { body: { model: "agentport/synth", input: "hi" } });
    expect(created).toMatchObject({ status: 200, body: { object: "response", status: "completed" } });
    const id = created.body.id as string;
    expect(await python("GET", `/v1/responses/${id}`)).toMatchObject({ status: 200, body: { id } });
    expect(await python("GET", `/v1/responses/${id}/input_items`)).toMatchObject({
      status: 200,
      body: { object: "list" },
    });
    expect(await python("DELETE", `/v1/responses/${id}`)).toEqual({
      status: 200,
      body: { id, object: "response", deleted: true },
    });
    expect((await python("GET", `/v1/responses/${id}`)).status).toBe(404);
  });

  it("project API keys (a member's token): list, retrieve, delete; and the usage report", async () => {
    const owner = await h.t.memberToken("owner");
    const base = "/v1/organization/projects/default/api_keys";
    const made = await python("POST", base, { key: owner, body: { name: "from python" } });
    expect(made.status).toBe(201);
    const keyId = made.body.id as string;
    expect(await python("GET", base, { key: owner })).toMatchObject({ status: 200, body: { object: "list" } });
    expect(await python("GET", `${base}/${keyId}`, { key: owner })).toMatchObject({ status: 200, body: { id: keyId } });
    expect(await python("DELETE", `${base}/${keyId}`, { key: owner })).toEqual({
      status: 200,
      body: { object: "organization.project.api_key.deleted", id: keyId, deleted: true },
    });
    const start = Math.floor(Date.now() / 1000) - 60;
    const usage = await python("GET", `/v1/organization/usage/completions?start_time=${start}`, { key: owner });
    expect(usage).toMatchObject({ status: 200, body: { object: "page" } });
  });

  it("SDKs up to 1.95.0 sent the JSON Content-Type on GET too: accepted", async () => {
    const id = await upload();
    for (const path of ["/v1/models", "/v1/files", `/v1/files/${id}`, `/v1/files/${id}/content`])
      expect((await python("GET", path, { contentTypeOnGet: true })).status).toBe(200);
  });

  it("a route that needs a body still says an empty one is empty", async () => {
    const empty = await python("POST", "/v1/chat/completions");
    expect(empty.status).toBe(400);
    expect(empty.body.error).toMatchObject({ type: "invalid_request_error", code: "invalid_json" });
    expect(empty.body.error.message).toMatch(/empty/i);
  });
});
