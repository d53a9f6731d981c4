/** The MCP endpoint over Streamable HTTP, driven by the official SDK client. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { buildTestApp, type TestApp } from "../../helpers/app.js";
import { ACCEPT_BOTH, bearer, firstText, initializeMessage, listen, streamableClient } from "../../helpers/mcp.js";

let t: TestApp;
let base: string;
beforeAll(async () => {
  t = await buildTestApp();
  base = await listen(t);
});
afterAll(() => t.close());

async function createKeyAsOwner(): Promise<{ id: string; mcp_json: any }> {
  const res = await t.app.inject({
    method: "POST",
    url: "/v1/organization/projects/default/api_keys",
    headers: { authorization: `Bearer ${await t.memberToken("owner")}` },
    payload: { name: "mcp client" },
  });
  expect(res.statusCode).toBe(201);
  return res.json();
}

async function revoke(keyId: string) {
  const res = await t.app.inject({
    method: "DELETE",
    url: `/v1/organization/projects/default/api_keys/${keyId}`,
    headers: { authorization: `Bearer ${await t.memberToken("admin")}` },
  });
  expect(res.statusCode).toBe(200);
}

describe("Streamable HTTP", () => {
  it("connects with the MCP JSON from key creation as it is", async () => {
    const { mcp_json } = await createKeyAsOwner();
    const server = mcp_json.mcpServers.agentport;
    expect(server.url).toBe(`${base}/mcp`);
    const { client } = await streamableClient(server.url, server.headers);
    expect(client.getServerVersion()?.name).toBe("agentport");
    const { tools } = await client.listTools();
    expect(tools.map((tl) => tl.name)).toContain("ask_chat_latest");
    await client.close();
  });

  it("lists one ask tool per agent and the file tools, each with a usable JSON schema", async () => {
    const { secret } = await t.createKey();
    const { client } = await streamableClient(`${base}/mcp`, bearer(secret));
    const { tools } = await client.listTools();
    const agents = t.app.agents.list("default");
    const askTools = tools.filter((tl) => tl.name.startsWith("ask_"));
    expect(askTools).toHaveLength(agents.length);
    expect(tools.map((tl) => tl.name)).toEqual(
      expect.arrayContaining(["list_files", "read_file", "search_files", "upload_text_file"]),
    );
    for (const tool of tools) {
      expect(tool.name).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
      expect(tool.description?.length).toBeGreaterThan(20);
      expect(tool.inputSchema.type).toBe("object");
    }
    const ask = tools.find((tl) => tl.name === "ask_chat_latest")!;
    expect(Object.keys(ask.inputSchema.properties ?? {})).toEqual(["question", "messages"]);
    await client.close();
  });

  it("asks an agent and streams its answer as progress notifications when asked to", async () => {
    const { secret } = await t.createKey();
    const { client } = await streamableClient(`${base}/mcp`, bearer(secret));
    const fragments: string[] = [];
    const result = await client.callTool({ name: "ask_synthetic-20", arguments: { question: "go" } }, undefined, {
      onprogress: (p) => fragments.push(p.message ?? ""),
    });
    expect(result.isError).toBeFalsy();
    const answer = firstText(result);
    expect(answer.split(" ").length).toBe(20);
    expect(fragments).toHaveLength(20);
    expect(fragments.join("")).toBe(answer);

    const plain = await client.callTool({
      name: "ask_chat_latest",
      arguments: { messages: [{ role: "user", content: "hello" }] },
    });
    expect(plain.isError).toBeFalsy();
    expect(firstText(plain)).toContain("files");
    await client.close();
  });

  it("returns tool failures as results with isError", async () => {
    const { secret } = await t.createKey();
    const { client } = await streamableClient(`${base}/mcp`, bearer(secret));
    const empty = await client.callTool({ name: "ask_chat_latest", arguments: {} });
    expect(empty.isError).toBe(true);
    expect(firstText(empty)).toMatch(/question.*messages/);
    const badType = await client.callTool({ name: "ask_chat_latest", arguments: { question: 42 } });
    expect(badType.isError).toBe(true);
    const unknown = await client.callTool({ name: "no_such_tool", arguments: {} });
    expect(unknown.isError).toBe(true);
    await client.close();
  });

  it("refuses a revoked key on the next message of an open session and closes its sessions", async () => {
    const { id, mcp_json } = await createKeyAsOwner();
    const { url, headers } = mcp_json.mcpServers.agentport;
    const { client } = await streamableClient(url, headers);
    await client.listTools();
    // A second session, opened by hand, whose server-message stream we watch on the wire.
    const init = await fetch(url, {
      method: "POST",
      headers: { ...headers, "content-type": "application/json", accept: ACCEPT_BOTH },
      body: JSON.stringify(initializeMessage()),
    });
    await init.text();
    const stream = await fetch(url, {
      headers: { ...headers, accept: "text/event-stream", "mcp-session-id": init.headers.get("mcp-session-id")! },
    });
    expect(stream.status).toBe(200);
    expect(t.app.mcpSessions.countForKey(id)).toBe(2);

    await revoke(id);
    expect(t.app.mcpSessions.countForKey(id)).toBe(0);
    await stream.text(); // ends: the server closed it
    const err = await client.listTools().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StreamableHTTPError);
    expect((err as StreamableHTTPError).code).toBe(401);
    await client.close();
  });

  it("ends a session with DELETE and lets the client initialize a new one", async () => {
    const { secret } = await t.createKey();
    const first = await streamableClient(`${base}/mcp`, bearer(secret));
    const oldId = first.transport.sessionId!;
    await first.transport.terminateSession();
    expect(t.app.mcpSessions.get(oldId)).toBeUndefined();

    const stale = await fetch(`${base}/mcp`, {
      method: "POST",
      headers: {
        ...bearer(secret),
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-session-id": oldId,
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(stale.status).toBe(404);
    expect((await stale.json()).error.code).toBe(-32001);
    await first.client.close();

    const second = await streamableClient(`${base}/mcp`, bearer(secret));
    expect(second.transport.sessionId).not.toBe(oldId);
    expect((await second.client.listTools()).tools.length).toBeGreaterThan(0);
    await second.client.close();
  });

  it("keeps a session to the key that opened it", async () => {
    const a = await t.createKey();
    const b = await t.createKey();
    const { client, transport } = await streamableClient(`${base}/mcp`, bearer(a.secret));
    const res = await fetch(`${base}/mcp`, {
      method: "POST",
      headers: {
        ...bearer(b.secret),
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-session-id": transport.sessionId!,
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(res.status).toBe(404);
    await client.close();
  });

  it("refuses a client without a valid key with 401 and WWW-Authenticate", async () => {
    const err = await streamableClient(`${base}/mcp`, bearer("ap-" + "x".repeat(43))).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StreamableHTTPError);
    expect((err as StreamableHTTPError).code).toBe(401);
  });
});
