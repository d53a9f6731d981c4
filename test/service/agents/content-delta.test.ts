import { describe, expect, it } from "vitest";
import { contentOnly } from "../../../service/src/domain/agents/content-delta.js";

const chunk = (delta: object, finish: string | null = null, extra = {}) =>
  JSON.stringify({ id: "x", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta, finish_reason: finish }], ...extra });

describe("reading a content-only upstream chunk without a full parse", () => {
  it("returns exactly what a full parse gives for content deltas", () => {
    for (const text of ["Hello", " world", "", 'say "hi"', "back\\slash", "line\nbreak", "unicode é ✓ \u2028", '"finish_reason":null', "}"]) {
      expect(contentOnly(chunk({ content: text })), text).toBe(text);
    }
  });

  it("leaves every other chunk to the full parse", () => {
    expect(contentOnly(chunk({ role: "assistant", content: "" }))).toBeUndefined();
    expect(contentOnly(chunk({ content: "a", refusal: null }))).toBeUndefined();
    expect(contentOnly(chunk({}, "stop"))).toBeUndefined();
    expect(contentOnly(chunk({ content: "a" }, "stop"))).toBeUndefined();
    expect(contentOnly(chunk({ content: "a" }, null, { usage: { prompt_tokens: 1 } }))).toBeUndefined();
    expect(contentOnly(chunk({ tool_calls: [{ index: 0, function: { arguments: "{}" } }] }))).toBeUndefined();
    expect(contentOnly(JSON.stringify({ error: { message: "boom" } }))).toBeUndefined();
    expect(contentOnly('{"choices":[{"delta": {"content": "spaced"}}]}')).toBeUndefined();
    expect(contentOnly('{"choices":[{"delta":{"content":"cut')).toBeUndefined();
  });
});
