/**
 * A run the client abandons after the model wrote tool calls is billed for them: without the
 * upstream's usage, the calls' names and arguments count as output like relayed text.
 */
import { describe, expect, it } from "vitest";
import type { KeyLimiter } from "../../../../service/src/domain/limits/key-limiter.js";
import { MeteredRun, type MeterSinks } from "../../../../service/src/domain/limits/metered-run.js";
import { tokensOfChars } from "../../../../service/src/domain/limits/estimate.js";
import type { UsageRecord } from "../../../../service/src/domain/usage/usage-meter.js";

function sinks(recorded: UsageRecord[]): MeterSinks {
  return {
    limiter: {} as KeyLimiter,
    usage: { record: (usage) => recorded.push(usage) },
    chat: { completed: () => {}, tokens: () => {} },
    spend: () => {},
  };
}

describe("metered run", () => {
  it("counts streamed tool calls as output when the run ends without the upstream's usage", () => {
    const recorded: UsageRecord[] = [];
    const run = new MeteredRun(
      sinks(recorded),
      { keyId: "k", projectId: "p" },
      "m",
      { prompt: 10, completion: 50, completionAsked: false },
      { reserved: undefined, cost: 0 },
    );
    const toolCalls = [
      { index: 0, id: "call_1", type: "function", function: { name: "lookup", arguments: '{"city":"Paris, France"}' } },
    ];
    run.saw({ type: "answering" });
    run.saw({ type: "tool_calls", toolCalls });
    run.end("client_closed", true);
    expect(recorded).toHaveLength(1);
    expect(recorded[0].outputTokens).toBe(tokensOfChars(JSON.stringify(toolCalls).length));
    expect(recorded[0].outputTokens).toBeGreaterThan(0);
  });
});
