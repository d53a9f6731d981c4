/**
 * The token estimate (domain/limits/estimate.ts) against the tokenizer (o200k, gpt-tokenizer): in
 * every script, random text of its blocks (the worst case a client can choose) and ordinary text,
 * the estimate is never below the true count, so a key's window ends within its limit plus one
 * request's true size. English stays at OpenAI's four characters a token. (Random ASCII letters,
 * which no language writes, are the gap the estimate's comment states.)
 */
import { describe, expect, it } from "vitest";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { estimateRun, tokensOfText, tokensToReserve } from "../../../service/src/domain/limits/estimate.js";

/** A seeded generator: the same text on every run. */
function random(seed: number) {
  return () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
}
function randomText(lo: number, hi: number, n: number, seed = 7): string {
  const next = random(seed);
  return Array.from({ length: n }, () => String.fromCodePoint(lo + Math.floor(next() * (hi - lo)))).join("");
}

const SCRIPTS: Record<string, [number, number]> = {
  digits: [0x30, 0x3a],
  "Latin-1 and Latin extended": [0xc0, 0x250],
  Greek: [0x391, 0x3ca],
  Cyrillic: [0x410, 0x450],
  Hebrew: [0x5d0, 0x5eb],
  Arabic: [0x621, 0x64b],
  Devanagari: [0x900, 0x97f],
  Thai: [0xe01, 0xe5b],
  "Hangul jamo": [0x1100, 0x1200],
  "CJK symbols, kana": [0x3000, 0x3100],
  "CJK unified": [0x4e00, 0xa000],
  "Hangul syllables": [0xac00, 0xd7a4],
  "private use": [0xe000, 0xf900],
  fullwidth: [0xff00, 0xfff0],
  emoji: [0x1f300, 0x1f650],
  "CJK extension B": [0x20000, 0x2a6e0],
};

const ORDINARY = {
  English: "The quick brown fox jumps over the lazy dog. ".repeat(40),
  Chinese: "我们今天去公园散步，天气很好，阳光明媚。".repeat(40),
  Japanese: "今日はとても良い天気ですね。散歩に行きましょう。".repeat(40),
  Korean: "오늘은 날씨가 정말 좋네요. 산책하러 갈까요? ".repeat(40),
  Russian: "Сегодня прекрасная погода, давайте пойдём гулять. ".repeat(40),
  Arabic: "الطقس جميل اليوم، دعنا نذهب في نزهة. ".repeat(40),
  Hindi: "आज मौसम बहुत अच्छा है, चलो टहलने चलते हैं। ".repeat(40),
  Thai: "วันนี้อากาศดีมาก ไปเดินเล่นกันเถอะ ".repeat(40),
  code: "function f(a, b) { return a.map((x) => x * b[0]); } // ok\n".repeat(40),
};

describe("the token estimate against the tokenizer", () => {
  for (const [script, [lo, hi]] of Object.entries(SCRIPTS))
    it(`is never below the true count for random ${script} text`, () => {
      for (const seed of [1, 2, 3]) {
        const text = randomText(lo, hi, 2000, seed);
        expect(tokensOfText(text)).toBeGreaterThanOrEqual(countTokens(text));
      }
    });

  for (const [language, text] of Object.entries(ORDINARY))
    it(`is never below the true count for ordinary ${language} text, and at most 8× it`, () => {
      const truth = countTokens(text);
      expect(tokensOfText(text)).toBeGreaterThanOrEqual(truth);
      expect(tokensOfText(text)).toBeLessThanOrEqual(8 * truth);
    });

  it("keeps OpenAI's four characters a token for English prose", () => {
    const text = "the quick brown fox jumps over the lazy dog ".repeat(10);
    expect(tokensOfText(text)).toBe(Math.ceil(text.length / 4));
  });

  it("a prompt's estimate is the sum of its messages' text, string or parts, and their framing", () => {
    const e = estimateRun(
      [
        { role: "user", content: "abcd" },
        { role: "user", content: [{ type: "text", text: "我们" }] },
      ],
      undefined,
      undefined,
    );
    // The text's, plus the chat format's framing: 3, and 5 a message.
    expect(e.prompt).toBe(1 + 6 + 3 + 2 * 5);
    expect(e.completionAsked).toBe(false);
  });
});

describe("what a run reserves under a key's TPM", () => {
  it("a request larger than the whole limit, by its own size, is too large", () => {
    expect(tokensToReserve({ prompt: 1001, completion: 0, completionAsked: true }, 1000)).toBe("too large");
    expect(tokensToReserve({ prompt: 600, completion: 500, completionAsked: true }, 1000)).toBe("too large");
    expect(tokensToReserve({ prompt: 600, completion: 400, completionAsked: true }, 1000)).toBe(1000);
  });

  it("a default answer cap it did not ask for is reserved up to the limit, never refused for it", () => {
    expect(tokensToReserve({ prompt: 100, completion: 1024, completionAsked: false }, 1000)).toBe(1000);
    expect(tokensToReserve({ prompt: 100, completion: 1024, completionAsked: false }, 100_000)).toBe(1124);
    expect(tokensToReserve({ prompt: 1000, completion: 1024, completionAsked: false }, 1000)).toBe(1000);
    expect(tokensToReserve({ prompt: 1001, completion: 1024, completionAsked: false }, 1000)).toBe("too large");
  });
});
