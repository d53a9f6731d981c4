/**
 * An llm agent's answer is its upstream's own: every field of every choice reaches the client as
 * the upstream wrote it, only id, object, created and model being ours; the usage is still metered.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type OpenAI from "openai";
import { startLlmTestApp, type LlmTestApp } from "../../helpers/llm-app.js";
import { scrape } from "../../helpers/metrics.js";
import { SseReader } from "../../../service/src/sse/sse-reader.js";
import { STUB_FINGERPRINT, type UpstreamStub } from "../../helpers/upstream-stub.js";

const user = (content: string) => [{ role: "user" as const, content }];

/** The `data:` payloads of an SSE body. */
function events(text: string): string[] {
  const reader = new SseReader();
  return [...reader.push(text), ...reader.end()].flatMap((e) => (e.kind === "data" ? [e.data] : []));
}

describe("an llm agent relays its upstream's answer", () => {
  let llm: LlmTestApp;
  let stub: UpstreamStub;
  let baseURL: string;
  let secret: string;
  let client: OpenAI;
  beforeAll(async () => {
    llm = await startLlmTestApp([
      { id: "support", kind: "llm", model: "echo" },
      { id: "tools-bot", kind: "llm", model: "tools" },
      { id: "careful", kind: "llm", model: "refuse" },
    ]);
    ({ stub, baseURL, secret, client } = llm);
  });
  afterAll(() => llm.close());

  /** What the last upstream call answered, as parsed objects (a JSON body, or its stream's chunks). */
  const upstreamAnswer = () => stub.requests.at(-1)!.answer;
  const upstreamChunks = () =>
    events(upstreamAnswer())
      .filter((d) => d !== "[DONE]")
      .map((d) => JSON.parse(d) as Record<string, unknown>);
  const ours = (model: string, object: string, id: string, created: number) => ({ id, object, created, model });

  it("JSON: all choices with their logprobs, the fingerprint and the service tier, under our id, model and created", async () => {
    const before = Math.floor(Date.now() / 1000);
    const c = await client.chat.completions.create({
      model: "agentport/support",
      messages: user("two ways"),
      n: 2,
      logprobs: true,
      top_logprobs: 2,
    });
    const upstream = JSON.parse(upstreamAnswer());
    expect(c).toEqual({ ...upstream, ...ours("agentport/support", "chat.completion", c.id, c.created) });
    expect(c.id).toMatch(/^chatcmpl-/);
    expect(c.id).not.toBe(upstream.id);
    expect(c.created).toBeGreaterThanOrEqual(before);
    expect(c.system_fingerprint).toBe(STUB_FINGERPRINT);
    expect(c.service_tier).toBe("default");
    expect(c.choices.map((x) => [x.index, x.message.content])).toEqual([
      [0, "echo: two ways"],
      [1, "echo 2: two ways"],
    ]);
    expect(c.choices[1].logprobs?.content?.map((l) => l.token)).toEqual(["echo", " 2:", " two", " ways"]);
    expect(c.choices[1].logprobs?.content?.[0].top_logprobs).toHaveLength(2);
  });

  it("JSON: a refusal and tool calls reach the client as the upstream sent them", async () => {
    const refused = await client.chat.completions.create({
      model: "agentport/careful",
      messages: user("something bad"),
    });
    expect(refused).toEqual({
      ...JSON.parse(upstreamAnswer()),
      ...ours("agentport/careful", "chat.completion", refused.id, refused.created),
    });
    expect(refused.choices[0].message).toEqual({
      role: "assistant",
      content: null,
      refusal: "I can't help with that.",
    });

    const called = await client.chat.completions.create({
      model: "agentport/tools-bot",
      messages: user("weather?"),
      tools: [{ type: "function", function: { name: "get_weather" } }],
    });
    expect(called).toEqual({
      ...JSON.parse(upstreamAnswer()),
      ...ours("agentport/tools-bot", "chat.completion", called.id, called.created),
    });
    expect(called.choices[0].finish_reason).toBe("tool_calls");
  });

  it("stream: every upstream chunk byte for byte after our head, one id for the whole answer, and the usage chunk when asked", async () => {
    const res = await fetch(`${baseURL}/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
      body: JSON.stringify({
        model: "agentport/support",
        messages: user("one two"),
        stream: true,
        stream_options: { include_usage: true },
        n: 2,
        logprobs: true,
        top_logprobs: 1,
      }),
    });
    const sent = events(await res.text());
    expect(sent.at(-1)).toBe("[DONE]");
    const first = JSON.parse(sent[0]) as { id: string; created: number };
    const ourHead = `{"id":"${first.id}","object":"chat.completion.chunk","created":${first.created},"model":"agentport/support",`;
    const upstreamHead = `{"id":"chatcmpl-upstream-id","object":"chat.completion.chunk","created":1,"model":"echo",`;
    const relayed = events(upstreamAnswer()).map((d) => d.replace(upstreamHead, ourHead));
    expect(sent).toEqual(relayed);
    expect(first.id).toMatch(/^chatcmpl-/);
    expect(first.id).not.toBe("chatcmpl-upstream-id");
  });

  it("stream: the SDK's stream helper assembles both choices with their logprobs; no usage chunk unless asked", async () => {
    const stream = client.chat.completions.stream({
      model: "agentport/support",
      messages: user("hello world"),
      n: 2,
      logprobs: true,
      top_logprobs: 2,
    });
    const chunks: OpenAI.Chat.ChatCompletionChunk[] = [];
    // The helper accumulates into the chunks it emits: keep each as it arrived.
    stream.on("chunk", (c) => chunks.push(structuredClone(c)));
    const final = await stream.finalChatCompletion();
    expect(final.choices.map((c) => [c.index, c.message.content, c.finish_reason])).toEqual([
      [0, "echo: hello world", "stop"],
      [1, "echo 2: hello world", "stop"],
    ]);
    expect(final.choices[0].logprobs?.content?.map((l) => l.token)).toEqual(["echo:", " hello", " world"]);
    expect(final.choices[0].logprobs?.content?.[0].top_logprobs).toHaveLength(2);
    expect(final.system_fingerprint).toBe(STUB_FINGERPRINT);
    // The upstream was asked for its usage; the client did not ask, so its chunk stayed here.
    expect(stub.requests.at(-1)!.body.stream_options).toEqual({ include_usage: true });
    const upstream = upstreamChunks();
    expect(upstream.some((c) => c.usage)).toBe(true);
    expect(chunks).toEqual(
      upstream
        .filter((c) => !c.usage)
        .map((c) => ({ ...c, ...ours("agentport/support", "chat.completion.chunk", chunks[0].id, chunks[0].created) })),
    );
  });

  it("stream: a refusal and tool calls reach the client as the upstream sent them", async () => {
    const refused = await client.chat.completions
      .stream({ model: "agentport/careful", messages: user("something bad") })
      .finalChatCompletion();
    expect(refused.choices[0].message).toMatchObject({
      role: "assistant",
      content: null,
      refusal: "I can't help with that.",
    });

    const stream = client.chat.completions.stream({
      model: "agentport/tools-bot",
      messages: user("weather?"),
      tools: [{ type: "function", function: { name: "get_weather" } }],
    });
    const chunks: OpenAI.Chat.ChatCompletionChunk[] = [];
    stream.on("chunk", (c) => chunks.push(structuredClone(c)));
    const final = await stream.finalChatCompletion();
    expect(final.choices[0].message.tool_calls).toMatchObject([
      { id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
    ]);
    const head = ours("agentport/tools-bot", "chat.completion.chunk", chunks[0].id, chunks[0].created);
    expect(chunks).toEqual(
      upstreamChunks()
        .filter((c) => !c.usage)
        .map((c) => ({ ...c, ...head })),
    );
  });

  it("meters the upstream's usage and times the stream's first token, relayed or not", async () => {
    const origin = baseURL.replace(/\/v1$/, "");
    const before = await scrape(origin);
    const tokensOut = (m: typeof before) =>
      m.value("agentport_chat_tokens_total", { model: "agentport/support", direction: "out" }) ?? 0;
    const ttft = (m: typeof before) =>
      m.histogram("agentport_chat_time_to_first_token_seconds", { model: "agentport/support" }).count ?? 0;
    const stream = await client.chat.completions.create({
      model: "agentport/support",
      messages: user("count me"),
      stream: true,
    });
    for await (const _ of stream);
    await client.chat.completions.create({ model: "agentport/support", messages: user("count me") });
    const after = await scrape(origin);
    // The stub reports 7 completion tokens for each answer.
    expect(tokensOut(after) - tokensOut(before)).toBe(14);
    expect(ttft(after) - ttft(before)).toBe(1);
  });
});
