/** The transport rules of the spec, checked on the wire: headers, bodies, versions, auth, Origin. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, type TestApp } from "../../helpers/app.js";
import { ACCEPT_BOTH, bearer, initializeMessage, rpcBody } from "../../helpers/mcp.js";

let t: TestApp;
let base: string;
let secret: string;
beforeAll(async () => {
  t = await buildTestApp("pglite", { PUBLIC_URL: "https://mcp.example.com", JSON_BODY_LIMIT: "64k" });
  base = await t.app.listen({ host: "127.0.0.1", port: 0 });
  ({ secret } = await t.createKey());
});
afterAll(() => t.close());

function post(body: unknown, headers: Record<string, string> = {}) {
  return fetch(`${base}/mcp`, {
    method: "POST",
    headers: { ...bearer(secret), "content-type": "application/json", accept: ACCEPT_BOTH, ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

/** Initializes a session by hand; returns its id and the negotiated version. */
async function initialize(version = "2025-06-18") {
  const res = await post(initializeMessage(version));
  expect(res.status).toBe(200);
  const sessionId = res.headers.get("mcp-session-id")!;
  const body = await rpcBody(res);
  const ack = await post(
    { jsonrpc: "2.0", method: "notifications/initialized" },
    { "mcp-session-id": sessionId, "mcp-protocol-version": version },
  );
  expect(ack.status).toBe(202);
  return { sessionId, version: body.result.protocolVersion as string };
}

describe("MCP transport rules", () => {
  it("negotiates 2025-06-18 and still serves 2025-03-26 clients", async () => {
    for (const version of ["2025-06-18", "2025-03-26"]) {
      const { sessionId, version: negotiated } = await initialize(version);
      expect(sessionId).toMatch(/^[\x21-\x7e]+$/);
      expect(negotiated).toBe(version);
      const res = await post(
        { jsonrpc: "2.0", id: 2, method: "tools/list" },
        { "mcp-session-id": sessionId, "mcp-protocol-version": version },
      );
      expect(res.status).toBe(200);
      expect((await rpcBody(res)).result.tools.length).toBeGreaterThan(0);
    }
  });

  it("answers an unsupported MCP-Protocol-Version with 400, and a missing one with the negotiated default", async () => {
    const { sessionId } = await initialize();
    const bad = await post(
      { jsonrpc: "2.0", id: 2, method: "tools/list" },
      { "mcp-session-id": sessionId, "mcp-protocol-version": "1999-01-01" },
    );
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.message).toMatch(/Unsupported protocol version/);
    const none = await post({ jsonrpc: "2.0", id: 3, method: "tools/list" }, { "mcp-session-id": sessionId });
    expect(none.status).toBe(200);
  });

  it("answers a POST whose Accept lacks text/event-stream with 406", async () => {
    const res = await post(initializeMessage(), { accept: "application/json" });
    expect(res.status).toBe(406);
    const body = await res.json();
    expect(body).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32000 } });
  });

  it("answers a non-JSON content type with 415", async () => {
    const res = await post("hello", { "content-type": "text/plain" });
    expect(res.status).toBe(415);
  });

  it("answers malformed JSON with a JSON-RPC parse error (-32700)", async () => {
    const res = await post('{"jsonrpc":"2.0", "id": 1, "method": ');
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32700 } });
  });

  it("answers a body over the size limit with 413 and a JSON-RPC error", async () => {
    const { sessionId } = await initialize();
    const big = {
      jsonrpc: "2.0",
      id: 9,
      method: "tools/call",
      params: { name: "upload_text_file", arguments: { filename: "a", text: "x".repeat(70_000) } },
    };
    const res = await post(big, { "mcp-session-id": sessionId });
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32000 } });
  });

  it("answers JSON that is not a JSON-RPC message with a JSON-RPC error", async () => {
    const { sessionId } = await initialize();
    const res = await post({ hello: "world" }, { "mcp-session-id": sessionId });
    expect(res.status).toBe(400);
    expect((await res.json()).error.code).toBe(-32700);
  });

  it("answers an empty batch with a JSON-RPC invalid-request error (-32600)", async () => {
    const { sessionId } = await initialize();
    const res = await post([], { "mcp-session-id": sessionId });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32600 } });
  });

  it("refuses a batch of more than 16 messages with -32600, before running any of them", async () => {
    const { sessionId } = await initialize();
    const call = (id: number) => ({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name: "search_files", arguments: { query: "x" } },
    });
    const res = await post(
      Array.from({ length: 100 }, (_, i) => call(i + 1)),
      { "mcp-session-id": sessionId },
    );
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32600 } });
    expect(body.error.message).toContain("at most 16");
  });

  it("requires Mcp-Session-Id after initialization and answers an unknown one with 404", async () => {
    const missing = await post({ jsonrpc: "2.0", id: 1, method: "tools/list" });
    expect(missing.status).toBe(400);
    const unknown = await post(
      { jsonrpc: "2.0", id: 1, method: "tools/list" },
      { "mcp-session-id": "no-such-session" },
    );
    expect(unknown.status).toBe(404);
    expect((await unknown.json()).error.code).toBe(-32001);
  });

  it("opens the server-message stream on GET and refuses a second one", async () => {
    const { sessionId } = await initialize();
    const headers = { ...bearer(secret), accept: "text/event-stream", "mcp-session-id": sessionId };
    const controller = new AbortController();
    const stream = await fetch(`${base}/mcp`, { headers, signal: controller.signal });
    expect(stream.status).toBe(200);
    expect(stream.headers.get("content-type")).toContain("text/event-stream");
    const second = await fetch(`${base}/mcp`, { headers });
    expect(second.status).toBe(409);
    controller.abort();
    const notSse = await fetch(`${base}/mcp`, { headers: { ...headers, accept: "application/json" } });
    expect(notSse.status).toBe(406);
  });

  it("ends a session on DELETE", async () => {
    const { sessionId } = await initialize();
    const del = await fetch(`${base}/mcp`, {
      method: "DELETE",
      headers: { ...bearer(secret), "mcp-session-id": sessionId },
    });
    expect(del.status).toBe(200);
    const after = await post({ jsonrpc: "2.0", id: 1, method: "tools/list" }, { "mcp-session-id": sessionId });
    expect(after.status).toBe(404);
  });

  it("answers a missing or unknown key with 401 and WWW-Authenticate: Bearer", async () => {
    const none = await fetch(`${base}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: ACCEPT_BOTH },
      body: JSON.stringify(initializeMessage()),
    });
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toMatch(/^Bearer\b/);
    expect((await none.json()).error.data.code).toBe("invalid_api_key");

    const wrong = await post(initializeMessage(), bearer("ap-" + "y".repeat(43)));
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get("www-authenticate")).toMatch(/^Bearer .*error="invalid_token"/);
    const text = await wrong.text();
    expect(text).not.toContain("y".repeat(43));

    for (const path of ["/mcp", "/mcp/sse"]) {
      const get = await fetch(`${base}${path}`, { headers: { accept: "text/event-stream" } });
      expect(get.status).toBe(401);
      expect(get.headers.get("www-authenticate")).toMatch(/^Bearer\b/);
    }
  });

  it("refuses a foreign Origin with 403 and allows localhost and the public origin", async () => {
    const foreign = await post(initializeMessage(), { origin: "https://evil.example" });
    expect(foreign.status).toBe(403);
    for (const origin of ["http://localhost:6274", "https://mcp.example.com", base]) {
      const res = await post(initializeMessage(), { origin });
      expect(res.status, origin).toBe(200);
      await res.body?.cancel();
    }
  });
});
