import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, type TestApp } from "../helpers/app.js";
import { loadConfig } from "../../service/src/config.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { listen as listenMcp } from "../helpers/mcp.js";

const APP = "https://app.example.com";

describe("CORS (CORS_ORIGINS)", () => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await buildTestApp("pglite", { CORS_ORIGINS: `${APP}, https://other.example.com` });
    key = (await t.createKey()).secret;
  });
  afterAll(() => t.close());
  // /mcp is served by the MCP SDK's Node adapter, which drains a request's socket after answering:
  // an injected request has no real socket, so MCP requests go over the network.
  let mcpUrl: string | undefined;
  const mcpOrigin = async () => (mcpUrl ??= await listenMcp(t));

  it("answers an allowed origin's preflight without a key, allowing Authorization", async () => {
    const res = await t.app.inject({
      method: "OPTIONS",
      url: "/v1/chat/completions",
      headers: {
        origin: APP,
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization, content-type",
      },
    });
    expect(res.statusCode).toBe(204);
    expect(res.headers["access-control-allow-origin"]).toBe(APP);
    expect(String(res.headers["access-control-allow-headers"])).toMatch(/authorization/);
    expect(String(res.headers["access-control-allow-methods"])).toMatch(/POST/);
  });

  it("lets an allowed origin read the answer and its request id; the key is still required", async () => {
    const ok = await t.app.inject({ url: "/v1/models", headers: { origin: APP, authorization: `Bearer ${key}` } });
    expect(ok.statusCode).toBe(200);
    expect(ok.headers["access-control-allow-origin"]).toBe(APP);
    expect(String(ok.headers["access-control-expose-headers"])).toMatch(/x-request-id/);
    expect(String(ok.headers["access-control-expose-headers"])).toMatch(/x-ratelimit-remaining-requests/);
    const noKey = await t.app.inject({ url: "/v1/models", headers: { origin: APP } });
    expect(noKey.statusCode).toBe(401);
  });

  it("gives another origin no CORS headers (the browser keeps the answer from it)", async () => {
    const res = await t.app.inject({
      url: "/v1/models",
      headers: { origin: "https://evil.example.net", authorization: `Bearer ${key}` },
    });
    expect(res.headers["access-control-allow-origin"]).toBeUndefined();
  });

  it("lets an allowed origin through the MCP origin check", async () => {
    const url = `${await mcpOrigin()}/mcp`;
    const initialize = {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
    };
    const res = await fetch(url, {
      method: "POST",
      headers: {
        origin: APP,
        authorization: `Bearer ${key}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify(initialize),
    });
    expect(res.status).toBe(200);
    await res.body?.cancel();
    const refused = await fetch(url, {
      method: "POST",
      headers: {
        origin: "https://evil.example.net",
        authorization: `Bearer ${key}`,
        "content-type": "application/json",
      },
      body: "{}",
    });
    expect(refused.status).toBe(403);
    await refused.body?.cancel();
  });

  it("keeps the CORS headers and nosniff on /mcp answers, through the official MCP client", async () => {
    const url = await mcpOrigin();
    const seen: Headers[] = [];
    const client = new Client({ name: "browser-like", version: "1.0.0" });
    const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${key}`, Origin: APP } },
      fetch: async (input, init) => {
        const res = await fetch(input, init);
        seen.push(res.headers);
        return res;
      },
    });
    await client.connect(transport);
    await client.listTools();
    await client.close();
    expect(seen.length).toBeGreaterThanOrEqual(2);
    for (const headers of seen) {
      expect(headers.get("access-control-allow-origin")).toBe(APP);
      expect(headers.get("access-control-expose-headers")).toMatch(/mcp-session-id/);
      expect(headers.get("x-content-type-options")).toBe("nosniff");
      expect(headers.get("x-request-id")).toBeTruthy();
    }
  });

  it("is off by default, and refuses a value that is not an origin", async () => {
    const plain = await buildTestApp();
    const res = await plain.app.inject({
      method: "OPTIONS",
      url: "/v1/models",
      headers: { origin: APP, "access-control-request-method": "GET" },
    });
    expect(res.headers["access-control-allow-origin"]).toBeUndefined();
    await plain.close();
    expect(() =>
      loadConfig({ DATA_DIR: "/tmp/x", JWT_SECRET: "s".repeat(64), CORS_ORIGINS: "https://app.example.com/" }),
    ).toThrow(/CORS_ORIGINS must be a list of origins/);
  });
});
