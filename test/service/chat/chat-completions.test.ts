import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type OpenAI from "openai";
import { buildTestApp, type TestApp } from "../../helpers/app.js";
import { STORE_KINDS } from "../../helpers/store.js";
import { listen, openaiClient } from "../../helpers/openai-client.js";

const SYNTHETIC = "agentport/synthetic-20";
const user = (content: string) => [{ role: "user" as const, content }];

describe.each(STORE_KINDS)("chat completions with the openai client (%s)", (kind) => {
  let t: TestApp;
  let client: OpenAI;
  beforeAll(async () => {
    t = await buildTestApp(kind);
    client = openaiClient(await listen(t.app), (await t.createKey()).secret);
  });
  afterAll(() => t.close());

  it("answers non-streaming with one chat.completion and its usage", async () => {
    const c = await client.chat.completions.create({ model: SYNTHETIC, messages: user("hello there") });
    expect(c.id).toMatch(/^chatcmpl-/);
    expect(c.object).toBe("chat.completion");
    expect(c.model).toBe(SYNTHETIC);
    expect(Number.isInteger(c.created)).toBe(true);
    expect(c.choices).toHaveLength(1);
    expect(c.choices[0].index).toBe(0);
    expect(c.choices[0].finish_reason).toBe("stop");
    expect(c.choices[0].message.role).toBe("assistant");
    expect(c.choices[0].message.content?.split(" ")).toHaveLength(20);
    expect(c.usage).toEqual({
      prompt_tokens: expect.any(Number),
      completion_tokens: 20,
      total_tokens: c.usage!.prompt_tokens + 20,
    });
  });

  it("streams with create({stream:true}): role first, 20 content deltas, stop, usage chunk, one id", async () => {
    const stream = await client.chat.completions.create({
      model: SYNTHETIC,
      messages: user("hi"),
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
    expect(chunks.every((c) => c.object === "chat.completion.chunk" && c.model === SYNTHETIC)).toBe(true);
    expect(chunks[0].choices[0].delta).toEqual({ role: "assistant", content: "" });
    const content = chunks.slice(1, 21);
    expect(
      content.every((c) => typeof c.choices[0].delta.content === "string" && c.choices[0].finish_reason === null),
    ).toBe(true);
    expect(chunks[21].choices[0]).toMatchObject({ index: 0, delta: {}, finish_reason: "stop" });
    expect(chunks[22].choices).toEqual([]);
    expect(chunks[22].usage).toMatchObject({ completion_tokens: 20 });
    expect(chunks).toHaveLength(23);
  });

  it("satisfies the stricter chat.completions.stream() helper", async () => {
    const runner = client.chat.completions.stream({
      model: SYNTHETIC,
      messages: user("hi"),
      stream_options: { include_usage: true },
    });
    const deltas: string[] = [];
    runner.on("content.delta", ({ delta }) => deltas.push(delta));
    const final = await runner.finalChatCompletion();
    expect(final.choices[0].message.content).toBe(deltas.join(""));
    expect(final.choices[0].finish_reason).toBe("stop");
    expect(final.model).toBe(SYNTHETIC);
    expect(final.usage?.completion_tokens).toBe(20);
  });

  it("max_tokens cuts the answer short with finish_reason length", async () => {
    const c = await client.chat.completions.create({
      model: SYNTHETIC,
      messages: user("hi"),
      max_completion_tokens: 3,
    });
    expect(c.choices[0].finish_reason).toBe("length");
    expect(c.usage?.completion_tokens).toBe(3);
  });

  it("the offline default agent says that no upstream is configured", async () => {
    const c = await client.chat.completions.create({
      model: "agentport/chat:latest",
      messages: user("what is our refund policy?"),
    });
    expect(c.choices[0].message.content).toContain("No upstream language model is configured");
    // With no files uploaded (or no file store wired), it says it found nothing to cite.
    expect(c.choices[0].message.content).toMatch(/found nothing in this project's files|no files to search/);
  });

  it("accepts the common optional fields", async () => {
    const c = await client.chat.completions.create({
      model: SYNTHETIC,
      messages: [
        { role: "system", content: "be brief" },
        { role: "user", content: [{ type: "text", text: "hi" }] },
      ],
      temperature: 0.2,
      top_p: 0.9,
      max_tokens: 50,
      stop: ["\n"],
      n: 1,
      user: "user-1",
      metadata: { purpose: "test" },
      stream: false,
    });
    expect(c.choices[0].finish_reason).toBe("stop");
  });
});
