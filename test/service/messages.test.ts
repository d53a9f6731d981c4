/**
 * Refusals that say what is wrong: a member token is named as one (never shown as a mistyped
 * API key), a foreign token is not dressed as an `ap-` key, and an embeddings agent is neither
 * asked to chat nor offered as an MCP `ask_*` tool.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentsFileOf, buildTestApp, type TestApp } from "../helpers/app.js";
import { bearer, streamableClient } from "../helpers/mcp.js";
import { listen } from "../helpers/openai-client.js";
import { startUpstreamStub, type UpstreamStub } from "../helpers/upstream-stub.js";

let stub: UpstreamStub;
let t: TestApp;
const h = { baseURL: "", secret: "" };
let memberToken: string;
beforeAll(async () => {
  stub = await startUpstreamStub();
  const agents = agentsFileOf([
    { id: "helper", kind: "llm", model: "echo" },
    { id: "embed", kind: "llm", model: "embed", embeddings: true },
  ]);
  // The PostgreSQL server: no embedded initdb to wait for.
  t = await buildTestApp("postgres", { AGENTS_FILE: agents, LLM_BASE_URL: stub.url });
  h.baseURL = await listen(t.app);
  h.secret = (await t.createKey()).secret;
  memberToken = await t.memberToken("admin");
});
afterAll(async () => {
  await t?.close();
  await stub?.close();
});

async function call(method: string, path: string, token: string, body?: unknown) {
  const res = await fetch(`${h.baseURL}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body !== undefined && { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(20_000),
  });
  return { status: res.status, error: ((await res.json()) as { error: Record<string, unknown> }).error };
}

describe("a member token where it does not belong", () => {
  it("on an unknown route is a 404 naming the route, not a refused API key", async () => {
    const { status, error } = await call("GET", "/organization/projectz/default/api_keys", memberToken);
    expect(status).toBe(404);
    expect(error).toMatchObject({ code: "unknown_url", message: expect.stringContaining("/v1/organization/projectz") });
  });

  it("on a route that takes an API key is named as a member token, and no part of it is echoed", async () => {
    const { status, error } = await call("GET", "/models", memberToken);
    expect(status).toBe(401);
    expect(error.code).toBe("invalid_api_key");
    expect(error.message).toMatch(/member token \(a JWT\), not an API key/);
    expect(error.message).not.toContain(memberToken.slice(-4));
    expect(error.message).not.toMatch(/Incorrect API key/);
  });

  it("an invalid JWT on an unknown route is refused as a member token", async () => {
    const { status, error } = await call("GET", "/organization/nope", `${memberToken.slice(0, -4)}AAAA`);
    expect(status).toBe(401);
    expect(error).toMatchObject({ code: "invalid_token", message: expect.stringMatching(/^Invalid member token/) });
  });

  it("an API key of another kind is not shown as an agentport key", async () => {
    const { status, error } = await call("GET", "/models", "sk-proj-" + "x".repeat(40) + "WXYZ");
    expect(status).toBe(401);
    expect(error.message).toBe(
      "Incorrect API key provided: …WXYZ, which does not start with 'ap-'. Create a new key in the project's settings.",
    );
  });
});

describe("an embeddings agent", () => {
  it("is refused for chat completions and responses with a 400 naming the model and where it answers", async () => {
    const chat = await call("POST", "/chat/completions", h.secret, {
      model: "agentport/embed",
      messages: [{ role: "user", content: "hi" }],
    });
    expect(chat.status).toBe(400);
    expect(chat.error).toMatchObject({
      param: "model",
      code: "unsupported_value",
      message: expect.stringContaining("'agentport/embed' creates embeddings only: send it to POST /v1/embeddings"),
    });
    const responses = await call("POST", "/responses", h.secret, { model: "agentport/embed", input: "hi" });
    expect(responses.status).toBe(400);
    expect(responses.error).toMatchObject({ param: "model", code: "unsupported_value" });
    expect(stub.requests.filter((r) => r.body.model === "embed")).toEqual([]);
  });

  it("is not offered as an MCP ask_* tool; chat agents still are", async () => {
    const { client } = await streamableClient(h.baseURL.replace(/\/v1$/, "/mcp"), bearer(h.secret));
    const names = (await client.listTools()).tools.map((t) => t.name);
    await client.close();
    expect(names).toContain("ask_helper");
    expect(names.filter((n) => n.includes("embed"))).toEqual([]);
  });
});
