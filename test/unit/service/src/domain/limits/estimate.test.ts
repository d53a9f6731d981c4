/** A run's token estimate: the prompt from its characters, the answer from its cap. */
import { describe, expect, it } from "vitest";
import type { ChatMessage } from "../../../../../../service/src/domain/agents/types.js";
import {
  CHARS_PER_TOKEN,
  DEFAULT_COMPLETION_ESTIMATE,
  estimateRun,
  promptChars,
  tokensOfChars,
} from "../../../../../../service/src/domain/limits/estimate.js";

const user = (content: ChatMessage["content"]): ChatMessage => ({ role: "user", content });

describe("tokensOfChars", () => {
  it("is about four characters a token, rounded up", () => {
    expect(CHARS_PER_TOKEN).toBe(4);
    expect(tokensOfChars(0)).toBe(0);
    expect(tokensOfChars(1)).toBe(1);
    expect(tokensOfChars(4)).toBe(1);
    expect(tokensOfChars(5)).toBe(2);
    expect(tokensOfChars(400)).toBe(100);
  });
});

describe("promptChars", () => {
  it("adds up the characters of string contents across messages", () => {
    expect(promptChars([user("hello"), { role: "system", content: "be brief" }])).toBe(13);
  });

  it("counts list content by the characters of its text parts, not by the number of parts", () => {
    const parts = [
      { type: "text", text: "a".repeat(10) },
      { type: "text", text: "b".repeat(30) },
    ];
    expect(promptChars([user(parts)])).toBe(40);
  });

  it("counts nothing for parts without text (an image) and messages without content", () => {
    const parts = [{ type: "image_url" }, { type: "text", text: "abc" }];
    expect(promptChars([user(parts), { role: "assistant", content: null }])).toBe(3);
  });

  it("ignores a text field that is not a string", () => {
    const parts = [{ type: "text", text: 12345 as unknown as string }];
    expect(promptChars([user(parts)])).toBe(0);
  });

  it("is 0 for no messages", () => {
    expect(promptChars([])).toBe(0);
  });
});

describe("estimateRun", () => {
  const prompt = [user("x".repeat(41))]; // 41 characters: 11 tokens

  it("reserves the prompt's tokens and the request's max_tokens", () => {
    expect(estimateRun(prompt, 200, undefined)).toEqual({ prompt: 11, completion: 200 });
  });

  it("clamps max_tokens to the agent's cap", () => {
    expect(estimateRun(prompt, 5_000, 300)).toEqual({ prompt: 11, completion: 300 });
  });

  it("keeps a max_tokens below the agent's cap", () => {
    expect(estimateRun(prompt, 100, 300)).toEqual({ prompt: 11, completion: 100 });
  });

  it("uses the agent's cap when the request has none", () => {
    expect(estimateRun(prompt, undefined, 300)).toEqual({ prompt: 11, completion: 300 });
  });

  it("reserves the default answer when neither the request nor the agent caps it", () => {
    expect(DEFAULT_COMPLETION_ESTIMATE).toBe(1_024);
    expect(estimateRun(prompt, undefined, undefined)).toEqual({ prompt: 11, completion: 1_024 });
  });

  it("counts list-content prompts by their characters", () => {
    const parts = [
      { type: "text", text: "y".repeat(16) },
      { type: "text", text: "z".repeat(16) },
    ];
    expect(estimateRun([user(parts)], 10, undefined)).toEqual({ prompt: 8, completion: 10 });
  });
});
