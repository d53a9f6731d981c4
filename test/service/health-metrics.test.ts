import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { buildTestApp, type TestApp } from "../helpers/app.js";

describe("health and metrics", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp("pglite");
  });
  afterAll(() => t.close());

  it("liveness and readiness answer without a key", async () => {
    expect((await t.app.inject("/health")).json()).toEqual({ status: "ok" });
    expect((await t.app.inject("/health/ready")).json()).toEqual({
      status: "ready",
      store: "pglite",
      notifications: "live",
      limits: "memory",
      // No llm agent, so no upstream whose circuit could open.
      upstreams: {},
    });
  });

  it("readiness fails with 503 in the envelope when the store does not answer", async () => {
    const broken = await buildTestApp("pglite");
    await broken.store.db.close();
    const res = await broken.app.inject("/health/ready");
    expect(res.statusCode).toBe(503);
    expect(res.json().error).toMatchObject({ type: "server_error", code: "service_unavailable" });
    await broken.app.close();
  });

  it("counts completions by model, mode and outcome, and streams' time to first token", async () => {
    const { secret } = await t.createKey();
    const headers = { authorization: `Bearer ${secret}` };
    const ask = (stream: boolean, model = "agentport/synthetic-20") =>
      t.app.inject({
        method: "POST",
        url: "/v1/chat/completions",
        headers,
        payload: { model, stream, messages: [{ role: "user", content: "hi" }] },
      });
    expect((await ask(false)).statusCode).toBe(200);
    expect((await ask(false)).statusCode).toBe(200);
    expect((await ask(true)).statusCode).toBe(200);
    expect((await ask(false, "agentport/not-an-agent")).statusCode).toBe(404);

    const text = (await t.app.inject("/metrics")).body;
    expect(text).toContain(
      'agentport_chat_completions_total{model="agentport/synthetic-20",mode="json",outcome="ok"} 2',
    );
    expect(text).toContain(
      'agentport_chat_completions_total{model="agentport/synthetic-20",mode="stream",outcome="ok"} 1',
    );
    expect(text).not.toContain("not-an-agent"); // unknown models never become series
    expect(text).toContain("agentport_chat_open_streams 0");
    expect(text).toContain(`agentport_chat_time_to_first_token_seconds_count{model="agentport/synthetic-20"} 1`);
    expect(text).toContain("process_resident_memory_bytes");
  });

  it("counts tokens in and out by model, as the answers' usage reports them, and revocation notifications", async () => {
    const { id, secret } = await t.createKey();
    const before = await t.app.inject("/metrics");
    const tokens = (text: string, direction: string) =>
      Number(
        new RegExp(
          `agentport_chat_tokens_total\\{model="agentport/synthetic-20",direction="${direction}"\\} (\\d+)`,
        ).exec(text)?.[1] ?? 0,
      );
    const res = await t.app.inject({
      method: "POST",
      url: "/v1/chat/completions",
      headers: { authorization: `Bearer ${secret}` },
      payload: { model: "agentport/synthetic-20", messages: [{ role: "user", content: "hi" }] },
    });
    const usage = res.json().usage;
    const after = (await t.app.inject("/metrics")).body;
    expect(tokens(after, "in") - tokens(before.body, "in")).toBe(usage.prompt_tokens);
    expect(tokens(after, "out") - tokens(before.body, "out")).toBe(usage.completion_tokens);
    expect(usage.completion_tokens).toBeGreaterThan(0);

    const revocations = (text: string) => Number(/agentport_revocation_notifications_total (\d+)/.exec(text)?.[1]);
    const heard = revocations(after);
    await t.app.apiKeys.delete("default", id);
    await vi.waitFor(async () => expect(revocations((await t.app.inject("/metrics")).body)).toBe(heard + 1), {
      timeout: 5_000,
      interval: 20,
    });
  });
});

describe("errors raised before routing", () => {
  it("a malformed URL escape answers 400 in the OpenAI envelope", async () => {
    const t = await buildTestApp("pglite");
    const { secret } = await t.createKey();
    const res = await t.app.inject({
      url: "/v1/models/agentport/nope%ZZ",
      headers: { authorization: `Bearer ${secret}` },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      error: {
        message: expect.stringContaining("malformed"),
        type: "invalid_request_error",
        param: "url",
        code: "invalid_url",
      },
    });
    // A long id is judged by its route; one past any id the API issues by the router, in the envelope too.
    const long = await t.app.inject({
      url: `/v1/files/file-${"a".repeat(150)}`,
      headers: { authorization: `Bearer ${secret}` },
    });
    expect(long.statusCode).toBe(404);
    expect(long.json().error.param).toBe("file_id");
    const huge = await t.app.inject({
      url: `/v1/files/${"a".repeat(300)}`,
      headers: { authorization: `Bearer ${secret}` },
    });
    expect(huge.statusCode).toBe(414);
    expect(Object.keys(huge.json().error).sort()).toEqual(["code", "message", "param", "type"]);
    await t.close();
  });
});
