import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { buildTestApp, type TestApp } from "../helpers/app.js";
import { STORE_KINDS, openTestStore } from "../helpers/store.js";
import { ApiKeys } from "../../service/src/domain/api-keys.js";
import type { Db } from "../../service/src/store/db.js";

describe.each(STORE_KINDS)("API keys and members (%s)", (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp(kind);
  });
  afterAll(() => t.close());

  const keysUrl = (project = "default") => `/v1/organization/projects/${project}/api_keys`;
  const asMember = async (role: "owner" | "admin" | "member", project = "default") => ({
    authorization: `Bearer ${await t.memberToken(role, project)}`,
  });

  it("an owner creates a key and sees its secret, base URL and MCP JSON once", async () => {
    const res = await t.app.inject({
      method: "POST",
      url: keysUrl(),
      headers: await asMember("owner"),
      payload: { name: "ci bot" },
    });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body.object).toBe("organization.project.api_key");
    expect(body.name).toBe("ci bot");
    expect(body.secret).toMatch(/^ap-[A-Za-z0-9_-]{43}$/);
    expect(body.redacted_value).toBe(`ap-…${body.secret.slice(-4)}`);
    expect(body.base_url).toBe(`${t.config.publicUrl}/v1`);
    expect(body.mcp_json).toEqual({
      mcpServers: {
        agentport: { url: `${t.config.publicUrl}/mcp`, headers: { Authorization: `Bearer ${body.secret}` } },
      },
    });
    expect(body.created_by).toBe("user_owner");

    const list = await t.app.inject({ method: "GET", url: keysUrl(), headers: await asMember("member") });
    expect(list.statusCode).toBe(200);
    expect(list.body).not.toContain(body.secret);
    const listed = list.json().data.find((k: { id: string }) => k.id === body.id);
    expect(listed).toMatchObject({ id: body.id, name: "ci bot", created_by: "user_owner", last_used_at: null });
    expect(listed.secret).toBeUndefined();
  });

  it("the key works, records last used, and is refused on the next request after deletion", async () => {
    const { id, secret } = await t.createKey();
    const auth = { authorization: `Bearer ${secret}` };
    // Any /v1 route behind the key hook: an unknown one proves auth passed by answering 404, not 401.
    const ok = await t.app.inject({ method: "GET", url: "/v1/nothing-here", headers: auth });
    expect(ok.statusCode).toBe(404);

    const one = await t.app.inject({ method: "GET", url: `${keysUrl()}/${id}`, headers: await asMember("member") });
    expect(one.json().last_used_at).toBeGreaterThan(Date.now() / 1000 - 60);

    const del = await t.app.inject({ method: "DELETE", url: `${keysUrl()}/${id}`, headers: await asMember("admin") });
    expect(del.json()).toEqual({ object: "organization.project.api_key.deleted", id, deleted: true });

    const refused = await t.app.inject({ method: "GET", url: "/v1/nothing-here", headers: auth });
    expect(refused.statusCode).toBe(401);
    expect(refused.json()).toEqual({
      error: {
        message: expect.stringContaining(`ap-…${secret.slice(-4)}`),
        type: "invalid_request_error",
        param: null,
        code: "invalid_api_key",
      },
    });
    expect(refused.body).not.toContain(secret);
  });

  it("last used reaches the store in a batch, not per request", async () => {
    const { id, secret } = await t.createKey();
    for (let i = 0; i < 3; i++)
      await t.app.inject({ method: "GET", url: "/v1/x", headers: { authorization: `Bearer ${secret}` } });
    const before = await t.store.db.query<{ last_used_at: unknown }>(
      "SELECT last_used_at FROM api_keys WHERE id = $1",
      [id],
    );
    expect(before.rows[0].last_used_at).toBeNull();
    await t.app.apiKeys.flushLastUsed();
    const after = await t.store.db.query<{ last_used_at: unknown }>("SELECT last_used_at FROM api_keys WHERE id = $1", [
      id,
    ]);
    expect(after.rows[0].last_used_at).not.toBeNull();
  });

  it("a member may list but not create or delete; another project's token gets 403", async () => {
    const create = await t.app.inject({
      method: "POST",
      url: keysUrl(),
      headers: await asMember("member"),
      payload: { name: "x" },
    });
    expect(create.statusCode).toBe(403);
    expect(create.json().error).toMatchObject({ type: "permission_error", code: "insufficient_permissions" });
    const { id } = await t.createKey();
    const del = await t.app.inject({ method: "DELETE", url: `${keysUrl()}/${id}`, headers: await asMember("member") });
    expect(del.statusCode).toBe(403);
    const other = await t.app.inject({
      method: "GET",
      url: keysUrl(),
      headers: await asMember("owner", "other-project"),
    });
    expect(other.statusCode).toBe(403);
  });

  it("a bad, missing or expired member token gets 401", async () => {
    const none = await t.app.inject({ method: "GET", url: keysUrl() });
    expect(none.statusCode).toBe(401);
    expect(none.json().error.code).toBe("invalid_token");
    const bad = await t.app.inject({ method: "GET", url: keysUrl(), headers: { authorization: "Bearer not.a.jwt" } });
    expect(bad.statusCode).toBe(401);
    const { signMemberToken } = await import("../../service/src/domain/member-token.js");
    const expired = await signMemberToken(
      { userId: "u", projectId: "default", role: "owner" },
      t.config.jwtSecret,
      undefined,
      -10,
    );
    const res = await t.app.inject({ method: "GET", url: keysUrl(), headers: { authorization: `Bearer ${expired}` } });
    expect(res.statusCode).toBe(401);
    expect(res.json().error.message).toContain("expired");
    const wrongSecret = await signMemberToken(
      { userId: "u", projectId: "default", role: "owner" },
      "another-secret".padEnd(64, "y"),
    );
    expect(
      (await t.app.inject({ method: "GET", url: keysUrl(), headers: { authorization: `Bearer ${wrongSecret}` } }))
        .statusCode,
    ).toBe(401);
  });

  it("a key needs a name; unknown fields and unknown keys are named", async () => {
    const headers = await asMember("owner");
    const noName = await t.app.inject({ method: "POST", url: keysUrl(), headers, payload: {} });
    expect(noName.statusCode).toBe(400);
    expect(noName.json().error).toMatchObject({ param: "name", code: "missing_required_parameter" });
    const blank = await t.app.inject({ method: "POST", url: keysUrl(), headers, payload: { name: "   " } });
    expect(blank.statusCode).toBe(400);
    expect(blank.json().error.param).toBe("name");
    const missing = await t.app.inject({ method: "GET", url: `${keysUrl()}/key_nope`, headers });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error).toMatchObject({ param: "key_id", code: "api_key_not_found" });
  });

  it("a key with expires_at works until then and is refused after, cached or not, for the API and MCP", async () => {
    const expiresAt = Math.floor(Date.now() / 1000) + 3600;
    const created = await t.app.inject({
      method: "POST",
      url: keysUrl(),
      headers: await asMember("owner"),
      payload: { name: "temp", expires_at: expiresAt },
    });
    expect(created.statusCode).toBe(201);
    expect(created.json().expires_at).toBe(expiresAt);
    const { id, secret } = created.json();
    const listed = (await t.app.inject({ url: keysUrl(), headers: await asMember("member") })).json().data;
    expect(listed.find((k: { id: string }) => k.id === id).expires_at).toBe(expiresAt);
    const models = () => t.app.inject({ url: "/v1/models", headers: { authorization: `Bearer ${secret}` } });
    const mcp = () =>
      t.app.inject({
        method: "POST",
        url: "/mcp",
        headers: {
          authorization: `Bearer ${secret}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        payload: {
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
        },
      });
    expect((await models()).statusCode).toBe(200); // now cached
    vi.useFakeTimers({ toFake: ["Date"], now: (expiresAt + 1) * 1000 });
    try {
      const refused = await models();
      expect(refused.statusCode).toBe(401);
      expect(refused.json().error.code).toBe("invalid_api_key");
      expect((await mcp()).statusCode).toBe(401);
      expect((await models()).statusCode).toBe(401);
    } finally {
      vi.useRealTimers();
    }
  });

  it("refuses an expires_at that is not a future Unix time in seconds, naming it", async () => {
    const now = Math.floor(Date.now() / 1000);
    for (const expires_at of [now - 10, 1.5, "tomorrow", -1]) {
      const res = await t.app.inject({
        method: "POST",
        url: keysUrl(),
        headers: await asMember("owner"),
        payload: { name: "x", expires_at },
      });
      expect(res.statusCode, String(expires_at)).toBe(400);
      expect(res.json().error.param).toBe("expires_at");
    }
  });

  it("a key of one project is never listed in another", async () => {
    await t.createKey("project-b", "b's key");
    const res = await t.app.inject({ method: "GET", url: keysUrl(), headers: await asMember("owner") });
    expect(res.json().data.map((k: { name: string }) => k.name)).not.toContain("b's key");
  });
});

describe("API key cache", () => {
  it("a lookup racing a revocation does not cache the revoked key", async () => {
    const store = await openTestStore("pglite");
    // Holds the verification lookup's answer until the revocation has fully happened.
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const gated: Db = {
      ...store.db,
      async query<T>(sql: string, params?: unknown[]) {
        const result = await store.db.query<T>(sql, params);
        if (sql.includes("WHERE secret_hash = $1")) await gate;
        return result;
      },
    };
    const keys = new ApiKeys(gated);
    await keys.start();
    const { record, secret } = await keys.create({ projectId: "p", name: "k", createdBy: "u" });
    const verifying = keys.verify(secret);
    await keys.delete("p", record.id);
    release();
    expect(await verifying).toMatchObject({ keyId: record.id }); // it began before the revocation
    expect(await keys.verify(secret)).toBeUndefined();
    await keys.stop();
    await store.drop();
  });

  it("a burst of requests with one uncached key makes one store query", async () => {
    const store = await openTestStore("pglite");
    let lookups = 0;
    const counting: Db = {
      ...store.db,
      query<T>(sql: string, params?: unknown[]) {
        if (sql.includes("WHERE secret_hash = $1")) lookups++;
        return store.db.query<T>(sql, params);
      },
    };
    const keys = new ApiKeys(counting);
    await keys.start();
    const { record, secret } = await keys.create({ projectId: "p", name: "k", createdBy: "u" });
    const principals = await Promise.all(Array.from({ length: 50 }, () => keys.verify(secret)));
    expect(principals.every((p) => p?.keyId === record.id)).toBe(true);
    expect(lookups).toBe(1);
    await keys.stop();
    await store.drop();
  });

  it("a request after a revocation never joins a lookup that began before it", async () => {
    const store = await openTestStore("pglite");
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let gateFirst = true;
    const gated: Db = {
      ...store.db,
      async query<T>(sql: string, params?: unknown[]) {
        const result = await store.db.query<T>(sql, params);
        if (sql.includes("WHERE secret_hash = $1") && gateFirst) {
          gateFirst = false;
          await gate;
        }
        return result;
      },
    };
    const keys = new ApiKeys(gated);
    await keys.start();
    const { record, secret } = await keys.create({ projectId: "p", name: "k", createdBy: "u" });
    const before = keys.verify(secret); // its read is held until after the revocation
    await keys.delete("p", record.id);
    const after = keys.verify(secret);
    release();
    expect(await before).toMatchObject({ keyId: record.id });
    expect(await after).toBeUndefined();
    await keys.stop();
    await store.drop();
  });
});
