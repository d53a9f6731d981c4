/** Session bounds: a maximum per key, idle expiry, and shutdown with sessions open. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { buildTestApp, type TestApp } from "../../helpers/app.js";
import { ACCEPT_BOTH, bearer, initializeMessage, listen, sseClient, streamableClient } from "../../helpers/mcp.js";

let t: TestApp;
let base: string;
beforeAll(async () => {
  t = await buildTestApp("pglite", { MCP_MAX_SESSIONS_PER_KEY: "2", MCP_SESSION_IDLE_SECONDS: "60" });
  base = await listen(t);
});
afterAll(() => t.close());

describe("MCP session bounds", () => {
  it("refuses an initialize beyond the key's session limit with 429, and frees the slot on DELETE", async () => {
    const key = await t.createKey();
    const first = await streamableClient(`${base}/mcp`, bearer(key.secret));
    const second = await sseClient(`${base}/mcp/sse`, bearer(key.secret));

    const refused = await streamableClient(`${base}/mcp`, bearer(key.secret)).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(StreamableHTTPError);
    expect((refused as StreamableHTTPError).code).toBe(429);
    expect(String((refused as Error).message)).toMatch(/Too many open MCP sessions.*limit 2/);
    const refusedSse = await fetch(`${base}/mcp/sse`, {
      headers: { ...bearer(key.secret), accept: "text/event-stream" },
    });
    expect(refusedSse.status).toBe(429);

    // Another key has its own budget.
    const other = await t.createKey();
    const otherClient = await streamableClient(`${base}/mcp`, bearer(other.secret));
    await otherClient.client.close();

    await first.transport.terminateSession();
    await first.client.close();
    const third = await streamableClient(`${base}/mcp`, bearer(key.secret));
    expect((await third.client.listTools()).tools.length).toBeGreaterThan(0);
    await third.transport.terminateSession();
    await third.client.close();
    await second.client.close();
  });

  it("closes a session idle for longer than the limit; the client then gets 404", async () => {
    const key = await t.createKey();
    const { client, transport } = await streamableClient(`${base}/mcp`, bearer(key.secret));
    await client.listTools();
    const id = transport.sessionId!;

    await t.app.mcpSessions.sweep(Date.now() + 30_000);
    expect(t.app.mcpSessions.get(id)).toBeDefined();
    await t.app.mcpSessions.sweep(Date.now() + 61_000);
    expect(t.app.mcpSessions.get(id)).toBeUndefined();

    const err = await client.listTools().catch((e: unknown) => e);
    expect((err as StreamableHTTPError).code).toBe(404);
    await client.close();
  });

  it("expires idle sessions on its own timer", async () => {
    const quick = await buildTestApp("pglite", { MCP_SESSION_IDLE_SECONDS: "0.05" });
    try {
      const url = await listen(quick);
      const key = await quick.createKey();
      const closed = new Promise<string>((resolve) =>
        quick.app.mcpSessions.on("closed", (id, reason) => resolve(`${id}:${reason}`)),
      );
      const init = await fetch(`${url}/mcp`, {
        method: "POST",
        headers: { ...bearer(key.secret), "content-type": "application/json", accept: ACCEPT_BOTH },
        body: JSON.stringify(initializeMessage()),
      });
      expect(init.status).toBe(200);
      await init.text();
      expect(await closed).toBe(`${init.headers.get("mcp-session-id")}:idle`);
    } finally {
      await quick.close();
    }
  });

  it("closes open sessions and ends their streams when the app closes", async () => {
    const other = await buildTestApp();
    const url = await listen(other);
    const key = await other.createKey();
    const init = await fetch(`${url}/mcp`, {
      method: "POST",
      headers: { ...bearer(key.secret), "content-type": "application/json", accept: ACCEPT_BOTH },
      body: JSON.stringify(initializeMessage()),
    });
    const sessionId = init.headers.get("mcp-session-id")!;
    await init.text();
    // Watch the two long-lived streams on the wire: they must end when the app closes.
    const serverStream = await fetch(`${url}/mcp`, {
      headers: { ...bearer(key.secret), accept: "text/event-stream", "mcp-session-id": sessionId },
    });
    const legacyStream = await fetch(`${url}/mcp/sse`, {
      headers: { ...bearer(key.secret), accept: "text/event-stream" },
    });
    expect([serverStream.status, legacyStream.status]).toEqual([200, 200]);
    expect(other.app.mcpSessions.size).toBe(2);

    await other.close();
    expect(other.app.mcpSessions.size).toBe(0);
    await expect(serverStream.text()).resolves.toBeTypeOf("string");
    await expect(legacyStream.text()).resolves.toContain("event: endpoint");
  });
});
