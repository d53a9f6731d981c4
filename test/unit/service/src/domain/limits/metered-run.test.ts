/** One run's metering: the usage it reports, and what it records and settles once it ends. */
import { describe, expect, it } from "vitest";
import type { KeyLimiter, Reserved } from "../../../../../../service/src/domain/limits/key-limiter.js";
import { MeteredRun, type MeterSinks } from "../../../../../../service/src/domain/limits/metered-run.js";
import { MemoryWindows } from "../../../../../../service/src/domain/limits/windows.js";
import type { UsageRecord } from "../../../../../../service/src/domain/usage/usage-meter.js";

function sinks() {
  const settled: Array<{ reserved: Reserved; key: string; delta: number }> = [];
  const usage: UsageRecord[] = [];
  const completed: unknown[][] = [];
  const tokens: unknown[][] = [];
  const limiter = {
    settle: (reserved: Reserved, key: string, delta: number) => settled.push({ reserved, key, delta }),
  };
  const s: MeterSinks = {
    limiter: limiter as unknown as KeyLimiter,
    usage: { record: (u) => void usage.push(u) },
    chat: {
      completed: (...args) => void completed.push(args),
      tokens: (...args) => void tokens.push(args),
    },
    spend: () => {},
  };
  return { s, settled, usage, completed, tokens };
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
    expect(settled).toEqual([{ reserved, key: "key_1", delta: -68 }]);
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
