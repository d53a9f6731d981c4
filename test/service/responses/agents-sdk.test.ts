/**
 * The OpenAI Agents SDK (`@openai/agents`) on its default Responses API, pointed at agentport:
 * an agent with a function tool runs against an `llm` agent whose upstream stub first calls the
 * tool, then answers with its result. JSON and streamed runs, and a run continued on the server
 * with `previousResponseId`. Tracing off: nothing leaves the machine.
 */
import { Agent, OpenAIProvider, Runner, tool } from "@openai/agents";
import { z } from "zod";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLlmTestApp, type LlmTestApp } from "../../helpers/llm-app.js";

let h: LlmTestApp;
let runner: Runner;
const cities: string[] = [];
const weather = tool({
  name: "get_weather",
  description: "The weather of a city.",
  parameters: z.object({ city: z.string() }),
  execute: async ({ city }) => {
    cities.push(city);
    return `sunny in ${city}`;
  },
});
const agent = new Agent({
  name: "Forecaster",
  instructions: "Use the tool.",
  model: "agentport/forecaster",
  tools: [weather],
});

beforeAll(async () => {
  h = await startLlmTestApp([{ id: "forecaster", kind: "llm", model: "agentic" }]);
  runner = new Runner({
    modelProvider: new OpenAIProvider({ apiKey: h.secret, baseURL: h.baseURL, useResponses: true }),
    tracingDisabled: true,
  });
});
afterAll(() => h.close());

describe("the OpenAI Agents SDK against /v1/responses", () => {
  it("runs an agent whose tool is called, then answers with the tool's result", async () => {
    cities.length = 0;
    const result = await runner.run(agent, "What is the weather in Paris?");
    expect(cities).toEqual(["Paris"]);
    expect(result.finalOutput).toBe("echo: the tool said sunny in Paris");
    // The SDK's second turn sent the function call (with id and status) and its output back.
    const second = h.stub.requests.at(-1)!.body;
    expect(second.messages.slice(1)).toEqual([
      { role: "user", content: "What is the weather in Paris?" },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
        ],
      },
      { role: "tool", tool_call_id: "call_1", content: "sunny in Paris" },
    ]);
    expect(second.messages[0]).toEqual({ role: "system", content: "Use the tool." });
    expect(second.tools).toEqual([
      {
        type: "function",
        function: {
          name: "get_weather",
          description: "The weather of a city.",
          parameters: expect.objectContaining({ type: "object" }),
          strict: true,
        },
      },
    ]);
  });

  it("runs the same agent streamed", async () => {
    cities.length = 0;
    // The stub's tool call always asks for Paris.
    const result = await runner.run(agent, "And in Paris tomorrow?", { stream: true });
    const kinds = new Set<string>();
    for await (const event of result) kinds.add(event.type);
    await result.completed;
    expect(cities).toEqual(["Paris"]);
    expect(result.finalOutput).toBe("echo: the tool said sunny in Paris");
    expect(kinds.has("raw_model_stream_event")).toBe(true);
  });

  it("continues on the server from the last response id", async () => {
    const first = await runner.run(agent, "Weather in Paris?");
    expect(first.lastResponseId).toMatch(/^resp_/);
    const second = await runner.run(agent, "Again?", { previousResponseId: first.lastResponseId });
    expect(second.finalOutput).toBe("echo: the tool said sunny in Paris");
    // The SDK sent only the new items each turn; the server rebuilt the rest from what it stored.
    const sent = h.stub.requests.at(-1)!.body;
    expect(sent.messages.map((m: { role: string }) => m.role)).toEqual([
      "system",
      "user",
      "assistant",
      "tool",
      "assistant",
      "user",
      "assistant",
      "tool",
    ]);
    expect(sent.messages.slice(4, 6)).toEqual([
      { role: "assistant", content: "echo: the tool said sunny in Paris" },
      { role: "user", content: "Again?" },
    ]);
  });
});
