import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Value } from "typebox/value";
import { ChatCompletion, ChatCompletionChunk } from "../../../service/src/routes/v1/chat/completions/schema.js";
import { SseReader } from "../../../service/src/sse/sse-reader.js";
import { buildTestApp, type TestApp } from "../../helpers/app.js";

describe("the declared wire types are what the service sends", () => {
  let t: TestApp;
  let auth: Record<string, string>;
  beforeAll(async () => {
    t = await buildTestApp();
    auth = { authorization: `Bearer ${(await t.createKey()).secret}`, "content-type": "application/json" };
  });
  afterAll(() => t.close());

  const ask = (stream: boolean) =>
    t.app.inject({
      method: "POST",
      url: "/v1/chat/completions",
      headers: auth,
      payload: {
        model: "agentport/synthetic-20",
        messages: [{ role: "user", content: "hi" }],
        stream,
        stream_options: stream ? { include_usage: true } : undefined,
      },
    });

  it("a JSON answer is a ChatCompletion", async () => {
    const body = (await ask(false)).json();
    expect(Value.Errors(ChatCompletion, body)).toEqual([]);
  });

  it("every streamed event but [DONE] is a ChatCompletionChunk", async () => {
    const reader = new SseReader();
    const events = [...reader.push((await ask(true)).body), ...reader.end()].flatMap((e) =>
      e.kind === "data" ? [e.data] : [],
    );
    expect(events.at(-1)).toBe("[DONE]");
    const chunks = events.slice(0, -1).map((d) => JSON.parse(d));
    expect(chunks.length).toBeGreaterThan(3);
    for (const chunk of chunks) expect(Value.Errors(ChatCompletionChunk, chunk)).toEqual([]);
    expect(chunks.at(-1).usage.total_tokens).toBeGreaterThan(0);
  });
});
