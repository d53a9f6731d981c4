import { afterAll, beforeAll, describe, expect, it } from "vitest";
import OpenAI from "openai";
import { buildTestApp, type TestApp } from "../helpers/app.js";
import { startLlmTestApp, type LlmTestApp } from "../helpers/llm-app.js";
import { scrape } from "../helpers/metrics.js";
import { listen, openaiClient } from "../helpers/openai-client.js";

const user = [{ role: "user" as const, content: "hi" }];

describe("/metrics after real requests through the official client", () => {
  let llm: LlmTestApp;
  let origin: string;
  let client: OpenAI;
  beforeAll(async () => {
    // A logger (silent) as the server has one: requests are counted where the access line is written.
    llm = await startLlmTestApp(
      [
        { id: "five", kind: "synthetic", tokens: 5 },
        { id: "busy", kind: "llm", model: "status-503" },
        { id: "gone", kind: "llm", model: "echo", base_url: "http://127.0.0.1:9/v1" },
      ],
      {},
      { logger: { level: "silent" } },
    );
    ({ client } = llm);
    origin = llm.baseURL.replace(/\/v1$/, "");
  });
  afterAll(() => llm.close());

  it("counts requests by method, route pattern and status, never by raw URL", async () => {
    await client.models.list();
    await client.models.list();
    await expect(client.models.retrieve("agentport/no-such-agent")).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    expect((await fetch(`${origin}/no/such/path`)).status).toBe(404);

    const m = await scrape(origin);
    const requests = (method: string, route: string, status: string) =>
      m.value("agentport_http_requests_total", { method, route, status });
    expect(requests("GET", "/v1/models", "200")).toBe(2);
    expect(requests("GET", "/v1/models/*", "404")).toBe(1);
    expect(requests("GET", "unmatched", "404")).toBe(1);
    const routes = m.all("agentport_http_requests_total").map((s) => s.labels!.route);
    expect(routes.some((r) => r.includes("no-such-agent") || r.includes("/no/such"))).toBe(false);
  });

  it("times a stream's first token and the gaps between its tokens by model, and counts open streams", async () => {
    const stream = await client.chat.completions.create({ model: "agentport/five", messages: user, stream: true });
    let contentChunks = 0;
    for await (const chunk of stream) if (chunk.choices[0]?.delta.content) contentChunks++;
    expect(contentChunks).toBe(5);

    const m = await scrape(origin);
    const ttft = m.histogram("agentport_chat_time_to_first_token_seconds", { model: "agentport/five" });
    const itl = m.histogram("agentport_chat_inter_token_latency_seconds", { model: "agentport/five" });
    expect(m.types.get("agentport_chat_inter_token_latency_seconds")).toBe("histogram");
    expect(ttft.count).toBe(1);
    expect(ttft.sum).toBeGreaterThan(0);
    expect(itl.count).toBe(contentChunks - 1);
    expect(itl.buckets["+Inf"]).toBe(contentChunks - 1);
    // Cumulative: each bound counts at least what the one below it does.
    // By bound, not by key order: an object lists integer-like keys ("1", "5") before the others.
    const counts = Object.entries(itl.buckets)
      .sort(([a], [b]) => Number(a) - Number(b))
      .map(([, n]) => n);
    expect(counts).toEqual([...counts].sort((a, b) => a - b));
    expect(m.value("agentport_chat_open_streams")).toBe(0);
    expect(
      m.value("agentport_chat_completions_total", { model: "agentport/five", mode: "stream", outcome: "ok" }),
    ).toBe(1);
    expect(
      m.value("agentport_http_requests_total", { method: "POST", route: "/v1/chat/completions", status: "200" }),
    ).toBe(1);
  });

  it("counts upstream errors by the upstream's status, or how the call failed", async () => {
    await expect(client.chat.completions.create({ model: "agentport/busy", messages: user })).rejects.toBeInstanceOf(
      OpenAI.InternalServerError,
    );
    // A stream's headers are out before the upstream answers: its refusal arrives as an error event.
    const stream = await client.chat.completions.create({ model: "agentport/busy", messages: user, stream: true });
    const read = async () => {
      for await (const chunk of stream) void chunk;
    };
    await expect(read()).rejects.toBeInstanceOf(OpenAI.APIError);
    await expect(client.chat.completions.create({ model: "agentport/gone", messages: user })).rejects.toBeInstanceOf(
      OpenAI.InternalServerError,
    );

    const m = await scrape(origin);
    // Each request tried its upstream twice (the default `retries.attempts`): every try that failed counts.
    expect(m.value("agentport_upstream_errors_total", { status: "503" })).toBe(4);
    expect(m.value("agentport_upstream_errors_total", { status: "connection" })).toBe(2);
  });
});

describe("rate-limit refusals in /metrics", () => {
  let t: TestApp;
  let origin: string;
  beforeAll(async () => {
    t = await buildTestApp("pglite", {});
    origin = (await listen(t.app)).replace(/\/v1$/, "");
  });
  afterAll(() => t.close());

  const keyWith = async (rateLimits: object) => {
    const owner = { authorization: `Bearer ${await t.memberToken("owner")}` };
    const res = await t.app.inject({
      method: "POST",
      url: "/v1/organization/projects/default/api_keys",
      headers: owner,
      payload: { name: "limited", rate_limits: rateLimits },
    });
    return openaiClient(`${origin}/v1`, res.json().secret);
  };

  it("counts 429s of the requests- and the tokens-per-minute limits apart", async () => {
    const before = await scrape(origin);
    expect(before.value("agentport_rate_limit_refusals_total", { limit: "requests" })).toBe(0);
    expect(before.value("agentport_rate_limit_refusals_total", { limit: "tokens" })).toBe(0);

    const rpm = await keyWith({ rpm: 1 });
    await rpm.models.list();
    await expect(rpm.models.list()).rejects.toBeInstanceOf(OpenAI.RateLimitError);
    await expect(rpm.models.list()).rejects.toBeInstanceOf(OpenAI.RateLimitError);

    const tpm = await keyWith({ tpm: 10 });
    await tpm.chat.completions.create({ model: "agentport/synthetic-20", messages: user }); // 28 tokens: the minute is spent
    await expect(
      tpm.chat.completions.create({ model: "agentport/synthetic-20", messages: user }),
    ).rejects.toBeInstanceOf(OpenAI.RateLimitError);

    const m = await scrape(origin);
    expect(m.value("agentport_rate_limit_refusals_total", { limit: "requests" })).toBe(2);
    expect(m.value("agentport_rate_limit_refusals_total", { limit: "tokens" })).toBe(1);
  });
});
