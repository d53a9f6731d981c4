import { describe, expect, it } from "vitest";
import { counterOf, EXACT_CHARS, SLICE_CHARS } from "../../../service/src/domain/agents/tokens.js";

const { countTokens } = await import("gpt-tokenizer/encoding/o200k_base");

/** Random CJK: no whitespace, so one pre-token, the encoder's most costly input per character. */
const randomCjk = (n: number) =>
  Array.from({ length: n }, () => String.fromCharCode(0x4e00 + Math.floor(Math.random() * 20000))).join("");

/**
 * The work of counting a hostile prompt is bounded per request: what reaches the encoder, in all,
 * between two turns of the event loop, and in one call — watched by wrapping the encoder.
 */
describe("token counting bounds its work per request", () => {
  function watched() {
    const calls: number[] = [];
    /** Characters encoded between two turns of the loop, per turn. */
    const turns: number[] = [0];
    let tick = true;
    const loop = () => {
      turns.push(0);
      if (tick) setImmediate(loop);
    };
    setImmediate(loop);
    const counter = counterOf((text) => {
      calls.push(text.length);
      turns[turns.length - 1] += text.length;
      return countTokens(text);
    });
    return { counter, calls, turns, stop: () => (tick = false) };
  }

  it("a prompt of many large messages is encoded up to one budget for the whole request, the rest estimated", async () => {
    const { counter, calls, turns, stop } = watched();
    const message = randomCjk(96 * 1024);
    const messages = Array.from({ length: 8 }, () => ({ role: "user" as const, content: message }));
    const n = await counter.prompt(messages).finally(stop);
    const encoded = calls.reduce((a, b) => a + b, 0) - calls.filter((c) => c <= 6).reduce((a, b) => a + b, 0); // roles aside
    expect(encoded).toBeLessThanOrEqual(EXACT_CHARS);
    expect(Math.max(...calls)).toBeLessThanOrEqual(SLICE_CHARS);
    expect(Math.max(...turns)).toBeLessThanOrEqual(SLICE_CHARS + 16);
    // The estimate is in the range an exact count gives: within a few percent of the encoded rate.
    const rate = (await counterOf(countTokens).large(message.slice(0, EXACT_CHARS))) / EXACT_CHARS;
    expect(n / (8 * message.length * rate)).toBeGreaterThan(0.95);
    expect(n / (8 * message.length * rate)).toBeLessThan(1.05);
  });

  it("many small messages still let the loop turn every slice's worth of characters", async () => {
    const { counter, turns, stop } = watched();
    const messages = Array.from({ length: 200 }, () => ({ role: "user" as const, content: randomCjk(300) }));
    await counter.prompt(messages).finally(stop);
    expect(Math.max(...turns)).toBeLessThanOrEqual(SLICE_CHARS + 16);
  });
});
