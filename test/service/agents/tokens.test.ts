import { describe, expect, it } from "vitest";
import { EXACT_CHARS, tokenCounter } from "../../../service/src/domain/agents/tokens.js";

const { countTokens } = await import("gpt-tokenizer/encoding/o200k_base");

describe("token counts for offline usage", () => {
  it("counts prose exactly, whatever its length up to the exact part, with the chat framing", async () => {
    const tokens = await tokenCounter();
    const prose = Array.from(
      { length: 1000 },
      (_, i) => `Sentence ${i} says something about the platform's agents.`,
    ).join(" ");
    expect(prose.length).toBeLessThan(EXACT_CHARS);
    expect(await tokens.large(prose)).toBe(countTokens(prose));
    const messages = [
      { role: "system" as const, content: "Be brief." },
      { role: "user" as const, content: prose },
    ];
    expect(await tokens.prompt(messages)).toBe(
      3 + (3 + countTokens("system") + countTokens("Be brief.")) + (3 + countTokens("user") + countTokens(prose)),
    );
  });

  it(
    "counts a 5 MB run of one letter (hours for the encoder in one piece) while the event loop keeps turning",
    { timeout: 60_000 },
    async () => {
      const tokens = await tokenCounter();
      const hostile = "x".repeat(5 * 1024 * 1024);
      // Another task on the loop, re-queued at every turn: it runs only when the count yields.
      let turns = 0;
      let counting = true;
      const tick = () => {
        turns++;
        if (counting) setImmediate(tick);
      };
      setImmediate(tick);
      const n = await tokens.large(hostile).finally(() => (counting = false));
      // The exact part, then the same rate for the rest.
      const exactPart = await tokens.large(hostile.slice(0, EXACT_CHARS));
      expect(n).toBe(exactPart + Math.ceil(((hostile.length - EXACT_CHARS) * exactPart) / EXACT_CHARS));
      // Other work ran between the slices: the count did not hold the loop in one piece.
      expect(turns).toBeGreaterThan(EXACT_CHARS / 4096 / 4);
    },
  );
});
