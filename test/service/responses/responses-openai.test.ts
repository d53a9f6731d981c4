/**
 * POST /v1/responses with the official openai client: `responses.create` (JSON) and
 * `responses.stream()` (events in OpenAI's order) on an `llm` agent translated to the upstream
 * stub's chat completions and on an offline agent; function tools and calls both ways; stored
 * responses read, listed and deleted; `store: false`; another project's id a 404.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLlmTestApp, type LlmTestApp } from "../../helpers/llm-app.js";
import { openaiClient } from "../../helpers/openai-client.js";

const AGENTS = [
  { id: "bot", kind: "llm", model: "echo", system_prompt: "Be brief." },
  { id: "caller", kind: "llm", model: "tools" },
  { id: "synth", kind: "synthetic", tokens: 5 },
  { id: "refuser", kind: "llm", model: "refuse" },
];

let h: LlmTestApp;
beforeAll(async () => {
  h = await startLlmTestApp(AGENTS);
});
afterAll(() => h.close());

const lastUpstream = () => h.stub.requests.at(-1)!.body as Record<string, any>;

describe("responses.create", () => {
  it("answers an llm agent through the upstream's chat completions, in the Responses shape", async () => {
    const response = await h.client.responses.create({
      model: "agentport/bot",
      instructions: "Answer in French.",
      input: "hello there",
      max_output_tokens: 50,
      temperature: 0.5,
      metadata: { ticket: "7" },
    });
    expect(response).toMatchObject({
      object: "response",
      status: "completed",
      model: "agentport/bot",
      instructions: "Answer in French.",
      max_output_tokens: 50,
      temperature: 0.5,
      store: true,
      metadata: { ticket: "7" },
      error: null,
      incomplete_details: null,
    });
    expect(response.id).toMatch(/^resp_/);
    expect(response.output).toHaveLength(1);
    expect(response.output[0]).toMatchObject({
      type: "message",
      role: "assistant",
      status: "completed",
      content: [{ type: "output_text", text: "echo: hello there", annotations: [] }],
    });
    expect(response.output_text).toBe("echo: hello there");
    expect(response.usage).toMatchObject({ input_tokens: 11, output_tokens: 7, total_tokens: 18 });
    const upstream = lastUpstream();
    expect(upstream).toMatchObject({ model: "echo", stream: false, max_completion_tokens: 50, temperature: 0.5 });
    expect(upstream.messages).toEqual([
      { role: "system", content: "Be brief." },
      { role: "system", content: "Answer in French." },
      { role: "user", content: "hello there" },
    ]);
    expect(upstream).not.toHaveProperty("metadata");
  });

  it("maps function tools to chat tools and the upstream's tool calls to function_call items", async () => {
    const tools = [
      {
        type: "function" as const,
        name: "get_weather",
        description: "Weather of a city",
        parameters: {
          type: "object",
          properties: { city: { type: "string" } },
          required: ["city"],
          additionalProperties: false,
        },
        strict: true,
      },
    ];
    const response = await h.client.responses.create({
      model: "agentport/caller",
      input: [{ role: "user", content: [{ type: "input_text", text: "weather in Paris?" }] }],
      tools,
      tool_choice: "auto",
      parallel_tool_calls: false,
    });
    expect(lastUpstream()).toMatchObject({
      tools: [
        {
          type: "function",
          function: {
            name: "get_weather",
            description: "Weather of a city",
            parameters: tools[0].parameters,
            strict: true,
          },
        },
      ],
      tool_choice: "auto",
      parallel_tool_calls: false,
      messages: [{ role: "user", content: [{ type: "text", text: "weather in Paris?" }] }],
    });
    expect(response.output).toEqual([
      {
        type: "function_call",
        id: expect.stringMatching(/^fc_/),
        call_id: "call_1",
        name: "get_weather",
        arguments: '{"city":"Paris"}',
        status: "completed",
      },
    ]);
    expect(response.tools).toEqual(tools);
    expect(response.parallel_tool_calls).toBe(false);
  });

  it("sends function_call and function_call_output items (with id and status) back as chat tool messages", async () => {
    await h.client.responses.create({
      model: "agentport/bot",
      input: [
        { type: "message", role: "user", content: "weather in Paris?" },
        {
          type: "function_call",
          id: "fc_1",
          call_id: "call_1",
          name: "get_weather",
          arguments: '{"city":"Paris"}',
          status: "completed",
        },
        { type: "function_call_output", id: "fco_1", call_id: "call_1", output: "sunny", status: "completed" },
      ],
    });
    expect(lastUpstream().messages).toEqual([
      { role: "system", content: "Be brief." },
      { role: "user", content: "weather in Paris?" },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
        ],
      },
      { role: "tool", tool_call_id: "call_1", content: "sunny" },
    ]);
  });

  it("answers an offline agent by translation", async () => {
    const response = await h.client.responses.create({ model: "agentport/synth", input: "go" });
    expect(response.status).toBe("completed");
    expect(response.output_text.length).toBeGreaterThan(0);
    expect(response.usage?.output_tokens).toBeGreaterThan(0);
  });
});

describe("offline agents", () => {
  it("end an answer cut at max_output_tokens as incomplete, as OpenAI does", async () => {
    const response = await h.client.responses.create({ model: "agentport/synth", input: "go", max_output_tokens: 2 });
    expect(response).toMatchObject({
      status: "incomplete",
      incomplete_details: { reason: "max_output_tokens" },
      usage: { output_tokens: 2 },
    });
    expect(response.output[0]).toMatchObject({ type: "message", status: "incomplete" });
  });

  it("stream their answer as the same events", async () => {
    const stream = h.client.responses.stream({ model: "agentport/synth", input: "go" });
    const types = new Set<string>();
    for await (const event of stream) types.add(event.type);
    const final = await stream.finalResponse();
    expect(final.status).toBe("completed");
    expect(final.output_text.length).toBeGreaterThan(0);
    expect([...types]).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.content_part.added",
      "response.output_text.delta",
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.completed",
    ]);
  });

  it("refuse images and JSON formats with a 400 naming the Responses param", async () => {
    await expect(
      h.client.responses.create({
        model: "agentport/synth",
        input: [
          {
            role: "user",
            content: [
              { type: "input_text", text: "see" },
              { type: "input_image", image_url: "data:image/png;base64,AA==", detail: "auto" },
            ],
          },
        ],
      }),
    ).rejects.toMatchObject({
      status: 400,
      error: { param: "input[0].content[1].type" },
    });
    // A reasoning item (dropped before the agent sees the input) still counts in the index.
    const reasoning = { type: "reasoning", id: "rs_1", summary: [] } as const;
    const image = {
      role: "user",
      content: [{ type: "input_image", image_url: "data:image/png;base64,AA==", detail: "auto" }],
    } as const;
    await expect(
      h.client.responses.create({ model: "agentport/synth", input: [reasoning, image] as never }),
    ).rejects.toMatchObject({ status: 400, error: { param: "input[1].content[0].type" } });
    await expect(
      h.client.responses.create({ model: "agentport/synth", input: "x", text: { format: { type: "json_object" } } }),
    ).rejects.toMatchObject({ status: 400, error: { param: "text.format" } });
  });

  it("refuse function tools with a 400 naming the param, rather than dropping them", async () => {
    await expect(
      h.client.responses.create({
        model: "agentport/synth",
        input: "go",
        tools: [{ type: "function", name: "f", parameters: {}, strict: false }],
      }),
    ).rejects.toMatchObject({
      status: 400,
      error: { param: "tools", code: "unsupported_parameter" },
    });
  });
});

describe("refusals", () => {
  it("come back as a refusal part, JSON and streamed", async () => {
    const refusal = [
      {
        type: "message",
        role: "assistant",
        status: "completed",
        content: [{ type: "refusal", refusal: "I can't help with that." }],
      },
    ];
    expect((await h.client.responses.create({ model: "agentport/refuser", input: "bad" })).output).toMatchObject(
      refusal,
    );
    const stream = h.client.responses.stream({ model: "agentport/refuser", input: "bad" });
    for await (const _ of stream);
    expect((await stream.finalResponse()).output).toMatchObject(refusal);
  });
});

describe("responses.stream()", () => {
  it("streams the standard events in order, numbered, and the final response", async () => {
    const stream = h.client.responses.stream({ model: "agentport/bot", input: "one two three" });
    const events: any[] = [];
    for await (const event of stream) events.push(event);
    const final = await stream.finalResponse();
    const types = events.map((e) => e.type);
    const deltas = types.filter((t) => t === "response.output_text.delta").length;
    expect(deltas).toBeGreaterThan(1);
    expect(types).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.content_part.added",
      ...Array(deltas).fill("response.output_text.delta"),
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.completed",
    ]);
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    expect(events.find((e) => e.type === "response.output_text.done").text).toBe("echo: one two three");
    expect(final.output_text).toBe("echo: one two three");
    expect(final.status).toBe("completed");
    expect(final.usage).toMatchObject({ input_tokens: 11, output_tokens: 7 });
    expect(lastUpstream()).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    // Stored before its last event: readable at once.
    expect((await h.client.responses.retrieve(final.id)).output_text).toBe("echo: one two three");
  });

  it("streams function call items with their argument deltas", async () => {
    const stream = h.client.responses.stream({
      model: "agentport/caller",
      input: "weather?",
      tools: [{ type: "function", name: "get_weather", parameters: { type: "object", properties: {} }, strict: false }],
    });
    const types: string[] = [];
    for await (const event of stream) types.push(event.type);
    expect(types).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.function_call_arguments.delta",
      "response.function_call_arguments.done",
      "response.output_item.done",
      "response.completed",
    ]);
    const final = await stream.finalResponse();
    expect(final.output).toMatchObject([
      {
        type: "function_call",
        id: expect.stringMatching(/^fc_/),
        call_id: "call_1",
        name: "get_weather",
        arguments: '{"city":"Paris"}',
        status: "completed",
      },
    ]);
  });
});

describe("stored responses", () => {
  it("continues a conversation with previous_response_id", async () => {
    const first = await h.client.responses.create({ model: "agentport/bot", input: "my name is Ada" });
    await h.client.responses.create({
      model: "agentport/bot",
      input: "what is my name?",
      previous_response_id: first.id,
    });
    expect(lastUpstream().messages).toEqual([
      { role: "system", content: "Be brief." },
      { role: "user", content: "my name is Ada" },
      { role: "assistant", content: "echo: my name is Ada" },
      { role: "user", content: "what is my name?" },
    ]);
  });

  it("GETs a stored response and lists its input items; DELETE removes it for good", async () => {
    const created = await h.client.responses.create({
      model: "agentport/bot",
      input: [
        { role: "user", content: "a" },
        { role: "user", content: "b" },
      ],
    });
    const got = await h.client.responses.retrieve(created.id);
    expect(got).toEqual(created);
    const items = await h.client.responses.inputItems.list(created.id, { order: "asc" });
    expect(items.data.map((i: any) => i.content)).toEqual([
      [{ type: "input_text", text: "a" }],
      [{ type: "input_text", text: "b" }],
    ]);
    expect(items.data.every((i: any) => i.type === "message" && i.role === "user" && /^msg_/.test(i.id))).toBe(true);
    const page = await h.client.responses.inputItems.list(created.id, { order: "desc", limit: 1 });
    expect(page.data.map((i: any) => i.content[0].text)).toEqual(["b"]);
    expect(page.has_more).toBe(true);
    await h.client.responses.delete(created.id);
    const deleted = await fetch(`${h.baseURL}/responses/${created.id}`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${h.secret}` },
    });
    expect(deleted.status).toBe(404);
    await expect(h.client.responses.retrieve(created.id)).rejects.toMatchObject({ status: 404 });
    await expect(
      h.client.responses.create({ model: "agentport/bot", input: "again", previous_response_id: created.id }),
    ).rejects.toMatchObject({ status: 404, error: { param: "previous_response_id" } });
  });

  it("answers DELETE with the deletion object", async () => {
    const created = await h.client.responses.create({ model: "agentport/bot", input: "x" });
    const res = await fetch(`${h.baseURL}/responses/${created.id}`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${h.secret}` },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ id: created.id, object: "response", deleted: true });
  });

  it("keeps nothing with store: false", async () => {
    const created = await h.client.responses.create({ model: "agentport/bot", input: "secret", store: false });
    expect((created as unknown as { store: boolean }).store).toBe(false);
    await expect(h.client.responses.retrieve(created.id)).rejects.toMatchObject({
      status: 404,
      error: { code: "response_not_found" },
    });
    await expect(
      h.client.responses.create({ model: "agentport/bot", input: "x", previous_response_id: created.id }),
    ).rejects.toMatchObject({ status: 404 });
  });

  it("is a 404 for another project's key", async () => {
    const created = await h.client.responses.create({ model: "agentport/bot", input: "mine" });
    const other = openaiClient(h.baseURL, (await h.t.createKey("other-project")).secret);
    await expect(other.responses.retrieve(created.id)).rejects.toMatchObject({ status: 404 });
    await expect(other.responses.delete(created.id)).rejects.toMatchObject({ status: 404 });
    await expect(other.responses.inputItems.list(created.id)).rejects.toMatchObject({ status: 404 });
    await expect(
      other.responses.create({ model: "agentport/bot", input: "x", previous_response_id: created.id }),
    ).rejects.toMatchObject({ status: 404 });
    expect((await h.client.responses.retrieve(created.id)).id).toBe(created.id);
  });
});
