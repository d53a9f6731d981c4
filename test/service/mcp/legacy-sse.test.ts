/** The legacy HTTP+SSE transport at /mcp/sse, driven by the official SDK client. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, type TestApp } from "../../helpers/app.js";
import { bearer, firstText, listen, sseClient } from "../../helpers/mcp.js";

let t: TestApp;
let base: string;
beforeAll(async () => {
  t = await buildTestApp();
  base = await listen(t);
});
afterAll(() => t.close());

/** Opens a raw legacy stream and returns the messages endpoint it announces. */
async function openRawStream(secret: string) {
  const controller = new AbortController();
  const res = await fetch(`${base}/mcp/sse`, {
    headers: { ...bearer(secret), accept: "text/event-stream" },
    signal: controller.signal,
  });
  const reader = res.body!.getReader();
  let text = "";
  while (!/data: (\S+)\n\n/.test(text)) text += new TextDecoder().decode((await reader.read()).value);
  const endpoint = /event: endpoint\ndata: (\S+)/.exec(text)![1];
  const ended = async () => {
    while (!(await reader.read()).done);
  };
  return { endpoint, ended, close: () => controller.abort() };
}

describe("legacy HTTP+SSE", () => {
  it("initializes, lists the tools and calls them", async () => {
    const { secret } = await t.createKey();
    const { client } = await sseClient(`${base}/mcp/sse`, bearer(secret));
    const { tools } = await client.listTools();
    expect(tools.map((tl) => tl.name)).toContain("ask_chat_latest");
    // (No progress assertion here: the SDK's legacy client can drop progress that arrives in the
    // same network read as the result; Streamable HTTP tests cover progress.)
    const result = await client.callTool({ name: "ask_synthetic-20", arguments: { question: "go" } });
    expect(result.isError).toBeFalsy();
    expect(firstText(result).split(" ")).toHaveLength(20);
    const failed = await client.callTool({ name: "ask_chat_latest", arguments: {} });
    expect(failed.isError).toBe(true);
    await client.close();
  });

  it("refuses a revoked key mid-session and ends its stream", async () => {
    const key = await t.createKey();
    const { client } = await sseClient(`${base}/mcp/sse`, bearer(key.secret));
    await client.listTools();
    const raw = await openRawStream(key.secret);

    await t.app.apiKeys.delete("default", key.id);
    await raw.ended();
    expect(t.app.mcpSessions.countForKey(key.id)).toBe(0);
    await expect(client.listTools()).rejects.toThrow(/401/);
    await client.close();
  });

  it("answers messages for an unknown session, another key's session or a bad body per the transport", async () => {
    const a = await t.createKey();
    const b = await t.createKey();
    const stream = await openRawStream(a.secret);
    expect(stream.endpoint).toMatch(/^\/mcp\/messages\?sessionId=/);
    const post = (secret: string, body: string, path = stream.endpoint) =>
      fetch(`${base}${path}`, {
        method: "POST",
        headers: { ...bearer(secret), "content-type": "application/json" },
        body,
      });

    expect((await post(b.secret, "{}")).status).toBe(404);
    expect((await post(a.secret, "{}", "/mcp/messages?sessionId=nope")).status).toBe(404);
    expect((await post(a.secret, '{"jsonrpc":')).status).toBe(400);
    expect((await post(a.secret, JSON.stringify({ hello: 1 }))).status).toBe(400);
    const ok = await post(a.secret, JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }));
    expect(ok.status).toBe(202);
    const noKey = await fetch(`${base}${stream.endpoint}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    expect(noKey.status).toBe(401);
    expect(noKey.headers.get("www-authenticate")).toMatch(/^Bearer\b/);
    stream.close();
  });
});
