/** One run's metering: the usage it reports, and what it records and settles once it ends. */
import { describe, expect, it } from "vitest";
import type { KeyLimiter, Reserved } from "../../../../../../service/src/domain/limits/key-limiter.js";
import { MeteredRun, type MeterSinks } from "../../../../../../service/src/domain/limits/metered-run.js";
import { MemoryWindows } from "../../../../../../service/src/domain/limits/windows.js";
import type { UsageRecord } from "../../../../../../service/src/domain/usage/usage-meter.js";

function sinks() {
  const settled: Array<{ reserved: Reserved; key: string; delta: number; costDelta: number }> = [];
  const spent: Array<[string, string, number]> = [];
  const usage: UsageRecord[] = [];
  const completed: unknown[][] = [];
  const tokens: unknown[][] = [];
  const limiter = {
    settle: (reserved: Reserved, key: string, delta: number, costDelta = 0) =>
      settled.push({ reserved, key, delta, costDelta }),
  };
  const s: MeterSinks = {
    limiter: limiter as unknown as KeyLimiter,
    usage: { record: (u) => void usage.push(u) },
    chat: {
      completed: (...args) => void completed.push(args),
      tokens: (...args) => void tokens.push(args),
    },
    spend: (...args) => void spent.push(args),
  };
  return { s, settled, usage, completed, tokens, spent };
}

const owner = { keyId: "key_1", projectId: "proj_1" };
const reserved: Reserved = {
  allowed: true,
  requests: 1,
  tokens: 110,
  resetMs: 1_000,
  window: "w1",
  store: new MemoryWindows(),
};
/** 10 prompt tokens and 100 for the answer were reserved. */
const estimate = { prompt: 10, completion: 100, completionAsked: true };

describe("MeteredRun.usage", () => {
  it("is the agent's reported usage when it arrived", () => {
    const run = new MeteredRun(sinks().s, owner, "m", estimate, { reserved: reserved, cost: 0 });
    run.saw({ type: "content", text: "x".repeat(400) });
    run.saw({ type: "usage", promptTokens: 7, completionTokens: 3 });
    expect(run.usage).toEqual({ prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 });
  });

  it("otherwise the prompt's estimate plus the relayed text, four characters a token", () => {
    const run = new MeteredRun(sinks().s, owner, "m", estimate, { reserved: reserved, cost: 0 });
    run.saw({ type: "content", text: "abcd" });
    run.saw({ type: "contents", texts: ["abcd", "abcd"] });
    run.saw({ type: "chunks", chunks: ["{}"], text: "abcd" });
    run.saw({ type: "completion", members: "{}", text: "a" });
    run.saw({ type: "answering" });
    run.saw({ type: "finish", reason: "stop" });
    // 17 characters: 5 tokens.
    expect(run.usage).toEqual({ prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 });
  });

  it("counts tool calls the model wrote as output, by their JSON's characters", () => {
    const run = new MeteredRun(sinks().s, owner, "m", estimate, { reserved: reserved, cost: 0 });
    run.saw({ type: "tool_calls", toolCalls: [{ id: "call_1" }] }); // [{"id":"call_1"}]: 17 characters
    run.saw({ type: "content", text: "abc" });
    expect(run.usage).toEqual({ prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 });
  });

  it("counts every text of a contents event", () => {
    const run = new MeteredRun(sinks().s, owner, "m", estimate, { reserved: reserved, cost: 0 });
    run.saw({ type: "contents", texts: ["a".repeat(8), "b".repeat(8), "c".repeat(8)] });
    expect(run.usage.completion_tokens).toBe(6);
  });

  it("is the prompt's estimate alone before anything was relayed", () => {
    const run = new MeteredRun(sinks().s, owner, "m", estimate, { reserved: reserved, cost: 0 });
    expect(run.usage).toEqual({ prompt_tokens: 10, completion_tokens: 0, total_tokens: 10 });
  });
});

describe("MeteredRun.end", () => {
  it("records the outcome, the tokens and the usage, and refunds what the estimate overshot", () => {
    const { s, settled, usage, completed, tokens } = sinks();
    const run = new MeteredRun(s, owner, "gpt-x", estimate, { reserved: reserved, cost: 0 });
    run.saw({ type: "usage", promptTokens: 12, completionTokens: 30 });
    run.end("ok", true);
    expect(completed).toEqual([["gpt-x", true, "ok"]]);
    expect(tokens).toEqual([["gpt-x", 12, 30]]);
    expect(usage).toEqual([
      {
        projectId: "proj_1",
        keyId: "key_1",
        model: "gpt-x",
        inputTokens: 12,
        outputTokens: 30,
        inputCost: 0,
        outputCost: 0,
      },
    ]);
    // 42 used of 110 reserved: 68 back, to the key's window the reservation was made in.
    expect(settled).toEqual([{ reserved, key: "key_1", delta: -68, costDelta: 0 }]);
  });

  it("charges the excess when the run used more than reserved", () => {
    const { s, settled } = sinks();
    const run = new MeteredRun(s, owner, "m", estimate, { reserved: reserved, cost: 0 });
    run.saw({ type: "usage", promptTokens: 10, completionTokens: 150 });
    run.end("ok", false);
    expect(settled.map((x) => x.delta)).toEqual([50]);
  });

  it("settles a run that ended early (client gone) from what was relayed", () => {
    const { s, settled, completed } = sinks();
    const run = new MeteredRun(s, owner, "m", estimate, { reserved: reserved, cost: 0 });
    run.saw({ type: "content", text: "x".repeat(20) });
    run.end("client_closed", true);
    expect(completed).toEqual([["m", true, "client_closed"]]);
    expect(settled.map((x) => x.delta)).toEqual([5 - 100]);
  });

  it("ends once however many times it is told", () => {
    const { s, settled, usage, completed, tokens } = sinks();
    const run = new MeteredRun(s, owner, "m", estimate, { reserved: reserved, cost: 0 });
    run.end("error", false);
    run.end("ok", false);
    expect([completed.length, tokens.length, usage.length, settled.length]).toEqual([1, 1, 1, 1]);
    expect(completed).toEqual([["m", false, "error"]]);
  });

  it("settles nothing for a key without a token limit (no reservation), but records the usage", () => {
    const { s, settled, usage } = sinks();
    const run = new MeteredRun(s, owner, "m", estimate, { reserved: undefined, cost: 0 });
    run.end("ok", false);
    expect(settled).toEqual([]);
    expect(usage).toHaveLength(1);
  });
});

describe("MeteredRun: the cached prompt tokens and the run's cost", () => {
  /** $2, $1 cached, $10 per million tokens: 2, 1 and 10 micro-dollars a token. */
  const price = { input: 2_000_000, cachedInput: 1_000_000, output: 10_000_000 };

  it("reports the cached prompt tokens only when the agent said how many", () => {
    const cached = new MeteredRun(sinks().s, owner, "m", estimate, { reserved, cost: 0 });
    cached.saw({ type: "usage", promptTokens: 12, completionTokens: 30, cachedTokens: 0 });
    expect(cached.usage).toStrictEqual({
      prompt_tokens: 12,
      completion_tokens: 30,
      total_tokens: 42,
      cached_tokens: 0,
    });
    const plain = new MeteredRun(sinks().s, owner, "m", estimate, { reserved, cost: 0 });
    plain.saw({ type: "usage", promptTokens: 12, completionTokens: 30 });
    expect(plain.usage).toStrictEqual({ prompt_tokens: 12, completion_tokens: 30, total_tokens: 42 });
  });

  it("costs its tokens at its agent's price, the cached ones at the cached price", () => {
    const run = new MeteredRun(sinks().s, owner, "m", estimate, { reserved, price, cost: 0 });
    run.saw({ type: "usage", promptTokens: 12, completionTokens: 30, cachedTokens: 4 });
    // 8 × 2 + 4 × 1 in, 30 × 10 out.
    expect(run.cost).toEqual({ input: 20, output: 300 });
  });

  it("costs nothing without a price", () => {
    const run = new MeteredRun(sinks().s, owner, "m", estimate, { reserved, cost: 0 });
    run.saw({ type: "usage", promptTokens: 12, completionTokens: 30 });
    expect(run.cost).toEqual({ input: 0, output: 0 });
  });

  it("at its end records the cost with the usage, counts it as spend, and settles the budgets to it", () => {
    const { s, usage, spent, settled } = sinks();
    const run = new MeteredRun(s, owner, "gpt-x", estimate, { reserved, price, cost: 500 });
    run.saw({ type: "usage", promptTokens: 12, completionTokens: 30, cachedTokens: 4 });
    run.end("ok", false);
    expect(usage).toMatchObject([{ inputTokens: 12, outputTokens: 30, inputCost: 20, outputCost: 300 }]);
    expect(spent).toEqual([["proj_1", "gpt-x", 320]]);
    // 320 used of 500 reserved: 180 back to the budgets; 42 of 110 tokens: 68 back to the window.
    expect(settled).toEqual([{ reserved, key: "key_1", delta: -68, costDelta: -180 }]);
  });

  it("charges the budgets the excess when the run cost more than reserved", () => {
    const { s, settled } = sinks();
    const run = new MeteredRun(s, owner, "m", estimate, { reserved, price, cost: 100 });
    run.saw({ type: "usage", promptTokens: 10, completionTokens: 100 });
    run.end("ok", false);
    // 10 × 2 + 100 × 10 = 1,020.
    expect(settled.map((x) => x.costDelta)).toEqual([920]);
  });

  it("counts no spend for a run that cost nothing", () => {
    const { s, spent, settled } = sinks();
    const run = new MeteredRun(s, owner, "m", estimate, { reserved, cost: 0 });
    run.end("ok", false);
    expect(spent).toEqual([]);
    expect(settled.map((x) => x.costDelta)).toEqual([0]);
  });

  it("a key with a budget but no token limit: the cost is settled, no tokens (none were reserved)", () => {
    const { s, settled } = sinks();
    const run = new MeteredRun(s, owner, "m", estimate, { reserved, price, cost: 1_000 }, false);
    run.saw({ type: "usage", promptTokens: 1, completionTokens: 1 });
    run.end("ok", false);
    expect(settled).toEqual([{ reserved, key: "key_1", delta: 0, costDelta: -988 }]);
  });
});
