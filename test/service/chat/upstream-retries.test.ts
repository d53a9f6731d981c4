import { Writable } from "node:stream";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startLlmTestApp, type LlmTestApp } from "../../helpers/llm-app.js";
import { scrape } from "../../helpers/metrics.js";
import type { UpstreamStub } from "../../helpers/upstream-stub.js";

const user = (content: string) => [{ role: "user" as const, content }];

/** Retries and fallbacks of llm agents, through the official client with its own retries off. */
describe("llm agent retries and fallbacks", () => {
  let llm: LlmTestApp;
  let stub: UpstreamStub;
  let client: OpenAI;
  let origin: string;
  const lines: Array<Record<string, unknown>> = [];
  const asked = (model: string) => stub.requests.filter((r) => r.body.model === model);

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk, _enc, done) {
        for (const l of String(chunk).split("\n").filter(Boolean)) lines.push(JSON.parse(l) as Record<string, unknown>);
        done();
      },
    });
    const fast = { attempts: 2, backoff_ms: 5, max_backoff_ms: 2_000 };
    llm = await startLlmTestApp(
      [
        { id: "flaky", kind: "llm", model: "once-503", retries: fast },
        { id: "limited", kind: "llm", model: "once-429" },
        {
          id: "busy",
          kind: "llm",
          model: "status-503",
          retries: fast,
          fallbacks: ["backup"],
          aliases: ["gpt-4o-mini"],
        },
        { id: "backup", kind: "llm", model: "echo" },
        { id: "breaking", kind: "llm", model: "break", fallbacks: ["backup"] },
        // Five tries of 600 ms each cannot fit in the 2 s budget: the deadline ends them.
        {
          id: "slow",
          kind: "llm",
          model: "slow-503",
          retries: { attempts: 5, backoff_ms: 1, max_backoff_ms: 1 },
          fallbacks: ["backup"],
        },
      ],
      { LLM_TIMEOUT_SECONDS: "2", LLM_API_KEY: "sk-upstream-secret" },
      { logger: { level: "info", stream: sink } },
    );
    ({ stub, client } = llm);
    origin = llm.baseURL.replace(/\/v1$/, "");
  });
  afterAll(() => llm.close());

  it("503 once, then 200: one answer, and two attempts counted", async () => {
    const c = await client.chat.completions.create({ model: "agentport/flaky", messages: user("retry me") });
    expect(c.choices[0].message.content).toBe("echo: retry me");
    expect(c.model).toBe("agentport/flaky");
    expect(asked("once-503").map((r) => r.answer.includes("upstream says 503"))).toEqual([true, false]);
    const m = await scrape(origin);
    expect(m.value("agentport_upstream_attempts_total", { agent: "flaky" })).toBe(2);
    expect(m.value("agentport_chat_completions_total", { model: "agentport/flaky", mode: "json", outcome: "ok" })).toBe(
      1,
    );
  });

  it("a stream whose upstream fails before its first chunk is retried and arrives whole", async () => {
    const stream = await client.chat.completions.create({
      model: "agentport/flaky",
      messages: user("stream me"),
      stream: true,
    });
    let text = "";
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
    expect(text).toBe("echo: stream me");
  });

  it("429 with Retry-After: 1 is waited out, then answered", async () => {
    const c = await client.chat.completions.create({ model: "agentport/limited", messages: user("wait for me") });
    expect(c.choices[0].message.content).toBe("echo: wait for me");
    const [first, second] = asked("once-429").filter((r) => lastUser(r) === "wait for me");
    expect(first.answer).toContain("upstream says 429");
    // Timers never fire early by more than a millisecond.
    expect(second.at - first.at).toBeGreaterThanOrEqual(999);
  });

  it("a client that leaves while a retry waits ends the retries: the upstream is not asked again", async () => {
    const stop = new AbortController();
    const body = JSON.stringify({ model: "agentport/limited", messages: user("leaving") });
    const sent = fetch(`${llm.baseURL}/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${llm.secret}`, "content-type": "application/json" },
      body,
      signal: stop.signal,
    });
    const mine = () => asked("once-429").filter((r) => lastUser(r) === "leaving");
    await vi.waitFor(() => expect(mine()).toHaveLength(1), { timeout: 5_000, interval: 10 });
    stop.abort();
    await expect(sent).rejects.toThrow();
    // The retry would have come 1 s after the first try.
    await vi.waitFor(
      () => expect(lines.some((l) => l.msg === "client closed the request" && l.agent === "limited")).toBe(true),
      { timeout: 5_000, interval: 20 },
    );
    await new Promise((r) => setTimeout(r, 1_200));
    expect(mine()).toHaveLength(1);
    // Two tries of the Retry-After test before, one of this request: no try was begun after the client left.
    expect((await scrape(origin)).value("agentport_upstream_attempts_total", { agent: "limited" })).toBe(3);
    expect(lines.filter((l) => (l.level as number) >= 50)).toEqual([]);
  });

  it("all attempts fail: the fallback answers, naming the model asked for, metered once, and the access line says who answered", async () => {
    const before = asked("status-503").length;
    const c = await client.chat.completions.create({ model: "gpt-4o-mini", messages: user("fall back") });
    expect(c.model).toBe("gpt-4o-mini");
    expect(c.choices[0].message.content).toBe("echo: fall back");
    expect(asked("status-503").length - before).toBe(2);
    const m = await scrape(origin);
    expect(m.value("agentport_upstream_fallbacks_total", { agent: "busy", fallback: "backup" })).toBe(1);
    expect(m.value("agentport_upstream_attempts_total", { agent: "busy" })).toBe(2);
    expect(m.value("agentport_upstream_attempts_total", { agent: "backup" })).toBe(1);
    // One run: the answering upstream's usage, once.
    expect(m.value("agentport_chat_completions_total", { model: "agentport/busy", mode: "json", outcome: "ok" })).toBe(
      1,
    );
    expect(m.value("agentport_chat_tokens_total", { model: "agentport/busy", direction: "in" })).toBe(11);
    const access = lines.filter(
      (l) => l.msg === "request completed" && (l.req as { url?: string })?.url === "/v1/chat/completions",
    );
    expect(access.at(-1)).toMatchObject({ upstream: "backup", res: { statusCode: 200 } });
    expect(JSON.stringify(lines)).not.toContain("sk-upstream-secret");
    expect(JSON.stringify(lines)).not.toContain(stub.url);
  });

  it("a stream that fails after its first chunk is not retried: the client gets the error event", async () => {
    const before = { broken: asked("break").length, backup: asked("echo").length };
    const stream = await client.chat.completions.create({
      model: "agentport/breaking",
      messages: user("one two"),
      stream: true,
    });
    const seen: string[] = [];
    const err = await (async () => {
      for await (const c of stream) seen.push(c.choices[0]?.delta.content ?? "");
    })().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect((err as InstanceType<typeof OpenAI.APIError>).error).toMatchObject({ code: "upstream_error" });
    expect(seen.join("")).toContain("echo:");
    expect(asked("break").length - before.broken).toBe(1);
    expect(asked("echo").length - before.backup).toBe(0);
  });

  it("the request's deadline (LLM_TIMEOUT_SECONDS) ends the retries, and no fallback starts after it", async () => {
    const before = { slow: asked("slow-503").length, backup: asked("echo").length };
    const err = (await client.chat.completions
      .create({ model: "agentport/slow", messages: user("too slow") })
      .catch((e: unknown) => e)) as InstanceType<typeof OpenAI.APIError>;
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect([502, 504]).toContain(err.status);
    const tries = asked("slow-503").length - before.slow;
    expect(tries).toBeGreaterThanOrEqual(1);
    expect(tries).toBeLessThanOrEqual(4);
    expect(asked("echo").length - before.backup).toBe(0);
  }, 20_000);
});

function lastUser(r: UpstreamStub["requests"][number]): string {
  return String(r.body.messages.at(-1)?.content);
}
