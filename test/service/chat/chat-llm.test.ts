import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import OpenAI from "openai";
import { agentsFileOf, buildTestApp } from "../../helpers/app.js";
import { startLlmTestApp, type LlmTestApp } from "../../helpers/llm-app.js";
import { listen } from "../../helpers/openai-client.js";
import { startUpstreamStub, type UpstreamStub } from "../../helpers/upstream-stub.js";

const UPSTREAM_KEY = "sk-upstream-secret";
const user = (content: string) => [{ role: "user" as const, content }];
/** A raw POST to the chat route, for what the SDK hides: the status, headers and bytes, an abort. */
const postChat = (baseURL: string, secret: string, body: object, signal?: AbortSignal) =>
  fetch(`${baseURL}/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
    body: JSON.stringify(body),
    signal,
  });

describe("llm agents against an upstream", () => {
  let app: LlmTestApp;
  let stub: UpstreamStub;
  let baseURL: string;
  let secret: string;
  let client: OpenAI;
  beforeAll(async () => {
    const llm = (id: string, model: string, extra = {}) => ({ id, kind: "llm", model, ...extra });
    app = await startLlmTestApp(
      [
        llm("support", "echo", { system_prompt: "You are support." }),
        llm("tools-bot", "tools"),
        llm("failing", "fail"),
        llm("breaking", "break"),
        llm("garbling", "garble"),
        llm("overloaded", "overload"),
        llm("flooding", "flood"),
        llm("hanging", "hang"),
        llm("silent", "silent"),
        llm("unreachable", "echo", { base_url: "http://127.0.0.1:9/v1" }),
      ],
      { LLM_API_KEY: UPSTREAM_KEY },
    );
    ({ stub, baseURL, secret, client } = app);
  });
  afterAll(() => app.close());

  const lastRequest = () => stub.requests.at(-1)!;

  it("forwards with the system prompt first and the upstream model, and answers under our id and model", async () => {
    const c = await client.chat.completions.create({
      model: "agentport/support",
      messages: user("where is my order?"),
      temperature: 0.5,
      seed: 7,
    });
    const sent = lastRequest();
    expect(sent.headers.authorization).toBe(`Bearer ${UPSTREAM_KEY}`);
    expect(sent.body).toMatchObject({
      model: "echo",
      stream: false,
      temperature: 0.5,
      seed: 7,
      messages: [
        { role: "system", content: "You are support." },
        { role: "user", content: "where is my order?" },
      ],
    });
    expect(c.id).toMatch(/^chatcmpl-/);
    expect(c.id).not.toBe("chatcmpl-upstream-id");
    expect(c.model).toBe("agentport/support");
    expect(c.choices[0].message).toMatchObject({ role: "assistant", content: "echo: where is my order?" });
    expect(c.choices[0].finish_reason).toBe("stop");
    expect(c.usage).toEqual({ prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 });
  });

  it("forwards every field of the current request to the upstream as sent, through the official client", async () => {
    const fields = {
      response_format: {
        type: "json_schema" as const,
        json_schema: {
          name: "answer",
          schema: { type: "object", properties: { a: { type: "string" } } },
          strict: true,
        },
      },
      seed: 42,
      presence_penalty: 0.5,
      frequency_penalty: -0.5,
      logit_bias: { "50256": -100 },
      parallel_tool_calls: false,
      tools: [
        { type: "function" as const, function: { name: "lookup", parameters: { type: "object", properties: {} } } },
      ],
      tool_choice: "auto" as const,
      store: false,
      service_tier: "auto" as const,
      reasoning_effort: "low" as const,
      verbosity: "low" as const,
      prediction: { type: "content" as const, content: "Hello" },
      web_search_options: { search_context_size: "low" as const },
      prompt_cache_key: "cache-1",
      safety_identifier: "user-hash-1",
      max_completion_tokens: 64,
      stop: ["END"],
      top_p: 0.9,
      user: "u-1",
      metadata: { team: "a" },
      modalities: ["text" as const],
      n: 2,
      logprobs: true,
      top_logprobs: 2,
    };
    const c = await client.chat.completions.create({ model: "agentport/support", messages: user("hi"), ...fields });
    expect(lastRequest().body).toMatchObject({ model: "echo", ...fields });
    expect(c.choices.map((x) => x.message.content)).toEqual(["echo: hi", "echo 2: hi"]);
    // Audio output is the upstream's to give.
    const audio = {
      modalities: ["text" as const, "audio" as const],
      audio: { voice: "alloy" as const, format: "wav" as const },
    };
    await client.chat.completions.create({ model: "agentport/support", messages: user("hi"), ...audio });
    expect(lastRequest().body).toMatchObject(audio);
    // A stream asks the upstream for its usage whatever the client chose, and keeps the client's other options.
    const stream = await client.chat.completions.create({
      model: "agentport/support",
      messages: user("hi"),
      stream: true,
      stream_options: { include_usage: false, include_obfuscation: false },
      ...fields,
    });
    for await (const _ of stream);
    expect(lastRequest().body).toMatchObject({
      stream: true,
      stream_options: { include_usage: true, include_obfuscation: false },
      ...fields,
    });
    // Both token limits: the current name goes, as it wins here too.
    await client.chat.completions.create({
      model: "agentport/support",
      messages: user("hi"),
      max_tokens: 10,
      max_completion_tokens: 20,
    });
    expect(lastRequest().body).toMatchObject({ max_completion_tokens: 20 });
    expect(lastRequest().body).not.toHaveProperty("max_tokens");
    await client.chat.completions.create({ model: "agentport/support", messages: user("hi"), max_tokens: 10 });
    expect(lastRequest().body).toMatchObject({ max_tokens: 10 });
    // Legacy function calling goes through as well.
    await client.chat.completions.create({
      model: "agentport/support",
      messages: user("hi"),
      functions: [{ name: "f", parameters: { type: "object" } }],
      function_call: "auto",
    });
    expect(lastRequest().body).toMatchObject({
      functions: [{ name: "f", parameters: { type: "object" } }],
      function_call: "auto",
    });
  });

  it("streams the upstream's chunks under our id and model", async () => {
    const stream = await client.chat.completions.create({
      model: "agentport/support",
      messages: user("hello world again"),
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(lastRequest().body).toMatchObject({ model: "echo", stream: true });
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
    expect(chunks[0].id).not.toBe("chatcmpl-upstream-id");
    expect(chunks.every((c) => c.model === "agentport/support")).toBe(true);
    expect(chunks[0].choices[0].delta).toEqual({ role: "assistant", content: "", refusal: null });
    const text = chunks.map((c) => c.choices[0]?.delta.content ?? "").join("");
    expect(text).toBe("echo: hello world again");
    expect(chunks.at(-2)!.choices[0]).toMatchObject({ delta: {}, finish_reason: "stop" });
    expect(chunks.at(-1)!.usage).toEqual({ prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 });
  });

  it("passes tools through and returns tool calls, streamed and not", async () => {
    const tools: OpenAI.Chat.ChatCompletionTool[] = [
      {
        type: "function",
        function: { name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } } } },
      },
    ];
    const c = await client.chat.completions.create({
      model: "agentport/tools-bot",
      messages: user("weather?"),
      tools,
      tool_choice: "auto",
    });
    expect(lastRequest().body).toMatchObject({ tools, tool_choice: "auto" });
    expect(c.choices[0].finish_reason).toBe("tool_calls");
    expect(c.choices[0].message.content).toBeNull();
    expect(c.choices[0].message.tool_calls).toEqual([
      { id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
    ]);

    const final = await client.chat.completions
      .stream({ model: "agentport/tools-bot", messages: user("weather?"), tools })
      .finalChatCompletion();
    expect(final.choices[0].finish_reason).toBe("tool_calls");
    expect(final.choices[0].message.tool_calls?.[0]).toMatchObject({
      id: "call_1",
      function: { name: "get_weather", arguments: '{"city":"Paris"}' },
    });
  });

  it("the default chat agent is the upstream LLM when LLM_BASE_URL is set", async () => {
    const c = await client.chat.completions.create({ model: "agentport/chat:latest", messages: user("ping") });
    expect(c.choices[0].message.content).toBe("echo: ping");
  });

  it("502 upstream_error when the upstream fails, without its key or body", async () => {
    const res = await postChat(baseURL, secret, { model: "agentport/failing", messages: user("hi") });
    expect(res.status).toBe(502);
    const body = await res.text();
    expect(JSON.parse(body)).toEqual({
      error: {
        message: "The agent's upstream model failed: it answered HTTP 500",
        type: "server_error",
        param: null,
        code: "upstream_error",
      },
    });
    expect(body).not.toContain(UPSTREAM_KEY);
    await expect(
      client.chat.completions.create({ model: "agentport/failing", messages: user("hi") }),
    ).rejects.toBeInstanceOf(OpenAI.InternalServerError);
  });

  it("502 when the upstream cannot be reached", async () => {
    const err = (await client.chat.completions
      .create({ model: "agentport/unreachable", messages: user("hi") })
      .catch((e) => e)) as InstanceType<typeof OpenAI.APIError>;
    expect(err.status).toBe(502);
    expect(err.error).toMatchObject({
      type: "server_error",
      code: "upstream_error",
      message: expect.stringContaining("could not reach it"),
    });
  });

  it("a stream whose upstream fails midway ends with an error event and no [DONE]", async () => {
    const res = await postChat(baseURL, secret, {
      model: "agentport/breaking",
      messages: user("one two three"),
      stream: true,
    });
    expect(res.status).toBe(200);
    const events = (await res.text()).split("\n\n").filter((e) => e.startsWith("data: "));
    // What counts is the text that went out before the failure.
    expect(events.some((e) => e.includes('"content":"echo:'))).toBe(true);
    expect(JSON.parse(events.at(-1)!.slice(6))).toEqual({
      error: {
        message: expect.stringContaining("The agent's upstream model failed"),
        type: "server_error",
        param: null,
        code: "upstream_error",
      },
    });
    expect(events).not.toContain("data: [DONE]");

    const stream = await client.chat.completions.create({
      model: "agentport/breaking",
      messages: user("one two"),
      stream: true,
    });
    const seen: string[] = [];
    const err = await (async () => {
      for await (const c of stream) seen.push(c.choices[0]?.delta.content ?? "");
    })().catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect(err.error).toMatchObject({ code: "upstream_error" });
    expect(seen.join("")).toContain("echo:");
  });

  it("an upstream answer that is not JSON never reaches the client: a 502, or mid-stream an error event after the chunks before it", async () => {
    const err = await client.chat.completions
      .create({ model: "agentport/garbling", messages: user("one two") })
      .catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect(err.status).toBe(502);
    expect(err.error).toMatchObject({ type: "server_error", code: "upstream_error" });

    const res = await postChat(baseURL, secret, {
      model: "agentport/garbling",
      messages: user("one two"),
      stream: true,
    });
    expect(res.status).toBe(200);
    const body = await res.text();
    expect(body).not.toContain("never shown");
    const events = body.split("\n\n").filter((e) => e.startsWith("data: "));
    // Every event the client got parses, the deltas before the broken chunk among them, and the
    // last one is the error: no [DONE], no stop.
    const parsed = events.map(
      (e) =>
        JSON.parse(e.slice(6)) as { choices?: Array<{ delta: { content?: string }; finish_reason: string | null }> },
    );
    expect(parsed.map((c) => c.choices?.[0]?.delta.content ?? "").join("")).toBe("echo: one two");
    expect(parsed.at(-1)).toEqual({
      error: {
        message: expect.stringContaining("invalid JSON"),
        type: "server_error",
        param: null,
        code: "upstream_error",
      },
    });
    expect(parsed.some((c) => c.choices?.[0]?.finish_reason)).toBe(false);
  });

  it("an error chunk mid-stream ends the stream with our error event after the chunks before it, without the upstream's words", async () => {
    const res = await postChat(baseURL, secret, {
      model: "agentport/overloaded",
      messages: user("one two"),
      stream: true,
    });
    const body = await res.text();
    expect(body).not.toContain("sk-upstream-secret");
    const parsed = body
      .split("\n\n")
      .filter((e) => e.startsWith("data: "))
      .map((e) => JSON.parse(e.slice(6)) as { choices?: Array<{ delta: { content?: string } }> });
    expect(parsed.map((c) => c.choices?.[0]?.delta.content ?? "").join("")).toBe("echo: one two");
    expect(parsed.at(-1)).toEqual({
      error: {
        message: expect.stringContaining("reported an error"),
        type: "server_error",
        param: null,
        code: "upstream_error",
      },
    });
  });

  it("an upstream event that never ends is cut off at its limit: the deltas before it, an error event, the upstream request dropped", async () => {
    const before = stub.requests.length;
    const res = await postChat(baseURL, secret, {
      model: "agentport/flooding",
      messages: user("one two"),
      stream: true,
    });
    const body = await res.text();
    expect(body.length).toBeLessThan(64 * 1024); // none of the flood reached the client
    const parsed = body
      .split("\n\n")
      .filter((e) => e.startsWith("data: "))
      .map((e) => JSON.parse(e.slice(6)) as { choices?: Array<{ delta: { content?: string } }> });
    expect(parsed.map((c) => c.choices?.[0]?.delta.content ?? "").join("")).toBe("echo: one two");
    expect(parsed.at(-1)).toEqual({
      error: {
        message: expect.stringContaining("an event of over"),
        type: "server_error",
        param: null,
        code: "upstream_error",
      },
    });
    // Dropped well before the 64 MiB the stub would send (what sits in the socket buffers aside).
    await stub.requests[before].aborted;
    expect(stub.requests[before].answer.length).toBeLessThan(40 * 1024 * 1024);
  });

  it("a stream shows its headers as soon as the upstream has answered, before any chunk", async () => {
    const before = stub.requests.length;
    const abort = new AbortController();
    const res = await postChat(
      baseURL,
      secret,
      { model: "agentport/silent", messages: user("well?"), stream: true },
      AbortSignal.any([abort.signal, AbortSignal.timeout(10_000)]),
    );
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/event-stream");
    expect(stub.requests[before].answer).toBe(""); // the upstream has written no chunk, only its headers
    abort.abort();
    await stub.requests[before].aborted;
  });

  it("a client that disconnects cancels the running upstream request", async () => {
    const before = stub.requests.length;
    const abort = new AbortController();
    const res = await postChat(
      baseURL,
      secret,
      { model: "agentport/hanging", messages: user("take your time"), stream: true },
      abort.signal,
    );
    const reader = res.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toContain('"role":"assistant"');
    await vi.waitFor(() => expect(stub.requests.length).toBe(before + 1));
    const upstream = stub.requests[before];
    expect(upstream.body.model).toBe("hang");
    expect(upstream.wasAborted).toBe(false);
    abort.abort();
    await upstream.aborted;
    expect(upstream.wasAborted).toBe(true);
  });
});

describe("llm agents: a client leaving a non-streaming request", () => {
  it("cancels the upstream request", async () => {
    const stub = await startUpstreamStub();
    const agentsFile = agentsFileOf([{ id: "hanging", kind: "llm", model: "hang" }]);
    const t = await buildTestApp("pglite", { AGENTS_FILE: agentsFile, LLM_BASE_URL: stub.url });
    try {
      const baseURL = await listen(t.app);
      const { secret } = await t.createKey();
      const abort = new AbortController();
      const pending = postChat(
        baseURL,
        secret,
        { model: "agentport/hanging", messages: user("hello?") },
        abort.signal,
      ).catch((e: Error) => e);
      await vi.waitFor(() => expect(stub.requests.length).toBe(1));
      abort.abort();
      expect(await pending).toMatchObject({ name: "AbortError" });
      await stub.requests[0].aborted;
      expect(stub.requests[0].wasAborted).toBe(true);
    } finally {
      await t.close();
      await stub.close();
    }
  });
});
