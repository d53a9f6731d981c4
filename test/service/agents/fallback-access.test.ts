/**
 * An agent's `projects` hold however it is reached: as another agent's fallback (chat, alias,
 * Responses, MCP ask_*), a project the fallback does not admit never reaches its upstream, model
 * and key; a project it admits does. On the PostgreSQL server.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentsFileOf, buildTestApp, type TestApp } from "../../helpers/app.js";
import { bearer, firstText, listen, streamableClient } from "../../helpers/mcp.js";
import { startUpstreamStub, type UpstreamStub } from "../../helpers/upstream-stub.js";

describe("fallbacks apply the fallback agent's projects", () => {
  let t: TestApp;
  let shared: UpstreamStub;
  let vipOnly: UpstreamStub;
  let base: string;
  let outsider: string;
  let vip: string;

  beforeAll(async () => {
    shared = await startUpstreamStub();
    vipOnly = await startUpstreamStub();
    t = await buildTestApp("postgres", {
      AGENTS_FILE: agentsFileOf([
        {
          id: "open",
          kind: "llm",
          model: "status-503",
          retries: { attempts: 1 },
          fallbacks: ["secret"],
          aliases: ["gpt-open"],
        },
        { id: "secret", kind: "llm", model: "echo", base_url: vipOnly.url, projects: ["vip"] },
      ]),
      LLM_BASE_URL: shared.url,
      // Counted failures would open open's breaker midway; this test is about access alone.
      UPSTREAM_BREAKER_FAILURES: "0",
    });
    base = await listen(t);
    outsider = (await t.createKey("other")).secret;
    vip = (await t.createKey("vip")).secret;
  });
  afterAll(async () => {
    await t.close();
    await shared.close();
    await vipOnly.close();
  });

  const post = async (path: string, key: string, body: object) => {
    const res = await fetch(`${base}/v1${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(20_000),
    });
    return { status: res.status, json: await res.json() };
  };
  const chat = (key: string, model: string) =>
    post("/chat/completions", key, { model, messages: [{ role: "user", content: "hi" }] });

  it("the fallback itself is a 404 for a project it does not admit", async () => {
    expect((await chat(outsider, "agentport/secret")).status).toBe(404);
  });

  it("directly, by alias and through Responses: the open agent fails without reaching the fallback", async () => {
    expect((await chat(outsider, "agentport/open")).status).toBe(502);
    expect((await chat(outsider, "gpt-open")).status).toBe(502);
    expect((await post("/responses", outsider, { model: "agentport/open", input: "hi", store: false })).status).toBe(
      502,
    );
    expect(shared.requests).toHaveLength(3);
    expect(vipOnly.requests).toHaveLength(0);
  });

  it("through MCP ask_open: the tool fails without reaching the fallback", async () => {
    const { client } = await streamableClient(`${base}/mcp`, bearer(outsider));
    try {
      const tools = (await client.listTools()).tools.map((tool) => tool.name);
      expect(tools).toContain("ask_open");
      expect(tools).not.toContain("ask_secret");
      const result = await client.callTool({ name: "ask_open", arguments: { question: "hi" } });
      expect(result.isError).toBe(true);
    } finally {
      await client.close();
    }
    expect(vipOnly.requests).toHaveLength(0);
  });

  it("a project the fallback admits gets its answer, by every path", async () => {
    expect((await chat(vip, "agentport/open")).json.choices[0].message.content).toBe("echo: hi");
    expect((await chat(vip, "gpt-open")).json.choices[0].message.content).toBe("echo: hi");
    const { client } = await streamableClient(`${base}/mcp`, bearer(vip));
    try {
      expect(firstText(await client.callTool({ name: "ask_open", arguments: { question: "hi" } }))).toBe("echo: hi");
    } finally {
      await client.close();
    }
    expect(vipOnly.requests).toHaveLength(3);
  });
});
