/** A run's token estimate: the prompt from its characters, the answer from its cap. */
import { describe, expect, it } from "vitest";
import type { ChatMessage } from "../../../../../../service/src/domain/agents/types.js";
import {
  CHARS_PER_TOKEN,
  DEFAULT_COMPLETION_ESTIMATE,
  estimateRun,
  FRAMING_TOKENS,
  MESSAGE_FRAMING_TOKENS,
  promptTokens,
  tokensOfChars,
  tokensOfText,
  tokensToReserve,
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

/** A conversation's framing: 3 tokens priming the reply and 5 a message. */
const framing = (messages: number) => FRAMING_TOKENS + MESSAGE_FRAMING_TOKENS * messages;

describe("promptTokens", () => {
  it("adds up the text of string contents across messages, with the chat format's framing", () => {
    expect(promptTokens([user("hello"), { role: "system", content: "be brief" }])).toBe(
      framing(2) + tokensOfText("hello") + tokensOfText("be brief"),
    );
  });

  it("counts list content by the text of its parts, not by the number of parts", () => {
    const parts = [
      { type: "text", text: "a".repeat(10) },
      { type: "text", text: "b".repeat(30) },
    ];
    expect(promptTokens([user(parts)])).toBe(framing(1) + tokensOfText("a".repeat(10)) + tokensOfText("b".repeat(30)));
    expect(tokensOfText("b".repeat(30))).toBeGreaterThan(1);
  });

  it("counts nothing for parts without text (an image) and messages without content", () => {
    const parts = [{ type: "image_url" }, { type: "text", text: "abc" }];
    expect(promptTokens([user(parts), { role: "assistant", content: null }])).toBe(framing(2) + tokensOfText("abc"));
  });

  it("ignores a text field that is not a string", () => {
    const parts = [{ type: "text", text: 12345 as unknown as string }];
    expect(promptTokens([user(parts)])).toBe(framing(1));
  });

  it("is 0 for no messages", () => {
    expect(promptTokens([])).toBe(0);
  });
});

describe("estimateRun", () => {
  const prompt = [user("x".repeat(41))];
  const promptEstimate = promptTokens(prompt);

  it("reserves the prompt's tokens and the request's max_tokens", () => {
    expect(estimateRun(prompt, 200, undefined)).toEqual({
      prompt: promptEstimate,
      completion: 200,
      completionAsked: true,
    });
  });

  it("clamps max_tokens to the agent's cap", () => {
    expect(estimateRun(prompt, 5_000, 300)).toEqual({ prompt: promptEstimate, completion: 300, completionAsked: true });
  });

  it("keeps a max_tokens below the agent's cap", () => {
    expect(estimateRun(prompt, 100, 300)).toEqual({ prompt: promptEstimate, completion: 100, completionAsked: true });
  });

  it("uses the agent's cap when the request has none", () => {
    expect(estimateRun(prompt, undefined, 300)).toEqual({
      prompt: promptEstimate,
      completion: 300,
      completionAsked: false,
    });
  });

  it("reserves the default answer when neither the request nor the agent caps it", () => {
    expect(DEFAULT_COMPLETION_ESTIMATE).toBe(1_024);
    expect(estimateRun(prompt, undefined, undefined)).toEqual({
      prompt: promptEstimate,
      completion: 1_024,
      completionAsked: false,
    });
  });
});

describe("tokensOfText", () => {
  /** Twelfths of a token one character counts: twelve of it make that many tokens. */
  const rate = (code: number) => tokensOfText(String.fromCharCode(code).repeat(12));

  it("counts each class at its rate, on both sides of every class boundary", () => {
    const rates: Array<[number, number]> = [
      [0x00, 3],
      [0x20, 3], // space
      [0x21, 12], // !
      [0x2f, 12], // /
      [0x30, 4], // 0
      [0x39, 4], // 9
      [0x3a, 12], // :
      [0x40, 12], // @
      [0x41, 3], // A
      [0x5a, 3], // Z
      [0x5b, 12], // [
      [0x60, 12], // `
      [0x61, 3], // a
      [0x7a, 3], // z
      [0x7b, 12], // {
      [0x7f, 12],
      [0x80, 24],
      [0x24f, 24],
      [0x250, 15],
      [0x7ff, 15],
      [0x800, 36],
      [0xd7ff, 36],
      [0xd800, 24], // a surrogate, per UTF-16 unit
      [0xdfff, 24],
      [0xe000, 36],
      [0xffff, 36],
    ];
    for (const [code, twelfths] of rates) expect(rate(code), code.toString(16)).toBe(twelfths);
  });

  it("sums the twelfths of a mixed text, then rounds up to whole tokens", () => {
    expect(tokensOfText("")).toBe(0);
    expect(tokensOfText("a")).toBe(1);
    expect(tokensOfText("abcd")).toBe(1);
    expect(tokensOfText("abcde")).toBe(2);
    // 3 + 4 + 12 + 24 + 15 + 36 = 94 twelfths: 8 tokens.
    expect(tokensOfText("a0!é\u0430\u4e2d")).toBe(8);
    expect(tokensOfText("😀")).toBe(4);
  });
});

describe("tokensToReserve", () => {
  const run = (prompt: number, completion: number, completionAsked: boolean) => ({
    prompt,
    completion,
    completionAsked,
  });

  it("a cap the request asked for is its own size: reserved whole, and too large past the TPM", () => {
    expect(tokensToReserve(run(10, 20, true), 30)).toBe(30);
    expect(tokensToReserve(run(10, 20, true), 1_000)).toBe(30);
    expect(tokensToReserve(run(10, 20, true), 29)).toBe("too large");
  });

  it("a default cap is reserved up to the TPM only, and never makes a request too large", () => {
    expect(tokensToReserve(run(10, 1_024, false), 100)).toBe(100);
    expect(tokensToReserve(run(10, 1_024, false), 5_000)).toBe(1_034);
    expect(tokensToReserve(run(100, 1_024, false), 100)).toBe(100);
    expect(tokensToReserve(run(101, 1_024, false), 100)).toBe("too large");
  });
});
