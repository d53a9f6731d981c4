import { describe, expect, it } from "vitest";
import { interTokenGaps, tokensPerChunk } from "../../loadtest/harness/stream-tokens.js";

describe("tokens per chunk", () => {
  it("one per chunk when the usage total matches the chunks, or when there is no usage chunk", () => {
    expect(tokensPerChunk([5, 6, 3], 3)).toEqual([1, 1, 1]);
    expect(tokensPerChunk([5, 6, 3])).toEqual([1, 1, 1]);
  });

  it("spreads a larger total by characters, every chunk keeping at least one, summing to the total", () => {
    expect(tokensPerChunk([1, 9, 10], 8)).toEqual([1, 3, 4]);
    const tokens = tokensPerChunk([3, 3, 3], 10);
    expect(tokens.reduce((a, b) => a + b, 0)).toBe(10);
    expect(Math.max(...tokens) - Math.min(...tokens)).toBe(1);
  });
});

describe("inter-token latency", () => {
  it("a chunk of k tokens is k gaps sharing its interval; the first chunk's extra tokens came with the first", () => {
    // Chunks at 100, 110 (2 tokens), 140 (3 tokens); the first carries 2 tokens.
    const gaps = interTokenGaps([100, 110, 140], [2, 2, 3]);
    expect(gaps).toEqual([0, 5, 5, 10, 10, 10]);
    // N tokens, N-1 gaps, summing to last minus first: the mean is GuideLLM's (last − first) / (N − 1).
    expect(gaps.length).toBe(2 + 2 + 3 - 1);
    expect(gaps.reduce((a, b) => a + b, 0)).toBe(140 - 100);
  });

  it("one token per chunk gives the gaps between chunks", () => {
    expect(interTokenGaps([0, 4, 9], [1, 1, 1])).toEqual([4, 5]);
    expect(interTokenGaps([], [])).toEqual([]);
  });
});
