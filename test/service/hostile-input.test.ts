import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, type TestApp } from "../helpers/app.js";
import { listen } from "../helpers/openai-client.js";
import { STORE_KINDS } from "../helpers/store.js";

/** Every hostile or clumsy input gets a 4xx in the OpenAI envelope: never a 5xx, a reset or a stall. */
describe.each(STORE_KINDS)("hostile input (%s)", (kind) => {
  let t: TestApp;
  let auth: Record<string, string>;
  let owner: Record<string, string>;
  beforeAll(async () => {
    t = await buildTestApp(kind);
    auth = { authorization: `Bearer ${(await t.createKey()).secret}` };
    owner = { authorization: `Bearer ${await t.memberToken("owner")}` };
  });
  afterAll(() => t.close());

  const envelope = (body: unknown) =>
    (body as { error: { type: string; code: string | null; param: string | null; message: string } }).error;

  it("a NUL byte in a path id or a query parameter is a 400, not a store error", async () => {
    for (const url of [
      "/v1/files/file-abc%00def",
      "/v1/files?after=file-x%00y",
      "/v1/organization/projects/default/api_keys/key_%00",
    ]) {
      const res = await t.app.inject({ url, headers: url.includes("organization") ? owner : auth });
      expect(res.statusCode, url).toBe(400);
      expect(envelope(res.json())).toMatchObject({
        type: "invalid_request_error",
        param: "url",
        code: "invalid_value",
      });
    }
  });

  it("a NUL character in a key name is a 400 (the store refuses it), not a 500", async () => {
    const res = await t.app.inject({
      method: "POST",
      url: "/v1/organization/projects/default/api_keys",
      headers: { ...owner, "content-type": "application/json" },
      payload: JSON.stringify({ name: "bad\u0000name" }),
    });
    expect(res.statusCode).toBe(400);
    expect(envelope(res.json()).code).toBe("invalid_value");
  });

  it("a NUL character in a chat message for the files agent is a 400, not a 500", async () => {
    const res = await t.app.inject({
      method: "POST",
      url: "/v1/chat/completions",
      headers: { ...auth, "content-type": "application/json" },
      payload: JSON.stringify({
        model: "agentport/chat:latest",
        messages: [{ role: "user", content: "find \u0000 this" }],
      }),
    });
    expect(res.statusCode).toBeLessThan(500);
  });

  it("a 1 MB model name comes back cut to a few hundred characters, not echoed whole", async () => {
    const model = "m".repeat(1024 * 1024);
    const res = await t.app.inject({
      method: "POST",
      url: "/v1/chat/completions",
      headers: { ...auth, "content-type": "application/json" },
      payload: JSON.stringify({ model, messages: [{ role: "user", content: "hi" }] }),
    });
    expect(res.statusCode).toBe(404);
    expect(envelope(res.json()).code).toBe("model_not_found");
    expect(res.body.length).toBeLessThan(1000);
  });

  it("an x-request-id is echoed only when it is a sane token; otherwise one is made", async () => {
    const good = await t.app.inject({ url: "/health", headers: { "x-request-id": "trace-123.abc:9" } });
    expect(good.headers["x-request-id"]).toBe("trace-123.abc:9");
    for (const bad of ["x".repeat(500), "evil\u00e9id", "a b"]) {
      const res = await t.app.inject({ url: "/health", headers: { "x-request-id": bad } });
      expect(res.headers["x-request-id"]).toMatch(/^req_[0-9a-f]{16}_/);
    }
  });

  it("numbers must be finite: max_tokens 1e400 is a 400 naming it", async () => {
    const res = await t.app.inject({
      method: "POST",
      url: "/v1/chat/completions",
      headers: { ...auth, "content-type": "application/json" },
      payload: '{"model":"agentport/synthetic-20","max_tokens":1e400,"messages":[{"role":"user","content":"hi"}]}',
    });
    expect(res.statusCode).toBe(400);
    expect(envelope(res.json()).param).toBe("max_tokens");
  });

  it("every response says nosniff", async () => {
    for (const url of ["/health", "/v1/models", "/v1/nowhere"]) {
      const res = await t.app.inject({ url, headers: auth });
      expect(res.headers["x-content-type-options"], url).toBe("nosniff");
    }
  });
});

describe("refusals by the HTTP parser answer in the envelope", () => {
  let t: TestApp;
  let port: number;
  beforeAll(async () => {
    t = await buildTestApp("pglite");
    port = Number(new URL(await listen(t.app)).port);
  });
  afterAll(() => t.close());

  /** Sends raw bytes and returns what came back before the server closed (bounded). */
  function raw(request: string): Promise<string> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, "127.0.0.1");
      let out = "";
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new Error(`no close within 10 s; got: ${out.slice(0, 200)}`));
      }, 10_000);
      socket.on("data", (d) => (out += d));
      socket.on("error", () => {});
      socket.on("close", () => {
        clearTimeout(timer);
        resolve(out);
      });
      socket.write(request);
    });
  }

  const bodyOf = (response: string) => JSON.parse(response.slice(response.indexOf("\r\n\r\n") + 4));

  it("headers too large → 431 in the envelope", async () => {
    const res = await raw(`GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(64 * 1024)}\r\n\r\n`);
    expect(res).toMatch(/^HTTP\/1\.1 431/);
    expect(bodyOf(res).error.code).toBe("headers_too_large");
  });

  it("a 64 KB URL is refused in the envelope (Node counts the URL against the header size: 431), not reset", async () => {
    const res = await raw(`GET /v1/files?after=${"a".repeat(64 * 1024)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(res).toMatch(/^HTTP\/1\.1 4(14|31)/);
    expect(res.toLowerCase()).toContain("x-content-type-options: nosniff");
    expect(bodyOf(res).error).toMatchObject({ type: "invalid_request_error" });
    expect(["headers_too_large", "url_too_long"]).toContain(bodyOf(res).error.code);
  });

  it("a malformed request line → 400 in the envelope", async () => {
    const res = await raw("G@T /health HTTP/1.1\r\nHost: x\r\n\r\n");
    expect(res).toMatch(/^HTTP\/1\.1 400/);
    expect(bodyOf(res).error).toMatchObject({ type: "invalid_request_error", code: "invalid_request" });
  });
});

describe("deeply nested JSON", () => {
  let t: TestApp;
  let auth: Record<string, string>;
  beforeAll(async () => {
    t = await buildTestApp("pglite");
    auth = { authorization: `Bearer ${(await t.createKey()).secret}` };
  });
  afterAll(() => t.close());

  it("a body nested far deeper than any request is a 400 before it is parsed", async () => {
    const depth = 2_000_000; // 4 MB, under the 5 MB limit
    const res = await t.app.inject({
      method: "POST",
      url: "/v1/chat/completions",
      headers: { ...auth, "content-type": "application/json" },
      payload: "[".repeat(depth) + "]".repeat(depth),
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({ code: "invalid_json" });
    expect(res.json().error.message).toContain("nesting deeper than");
  });

  it("strings that contain brackets do not count as nesting", async () => {
    const res = await t.app.inject({
      method: "POST",
      url: "/v1/chat/completions",
      headers: { ...auth, "content-type": "application/json" },
      payload: JSON.stringify({
        model: "agentport/synthetic-20",
        messages: [{ role: "user", content: "[".repeat(500) + '\\"{' }],
      }),
    });
    expect(res.statusCode).toBe(200);
  });
});
