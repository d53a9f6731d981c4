/**
 * Two popular clients, unchanged but for their base URL: the Vercel AI SDK (`ai` with
 * `@ai-sdk/openai`: its Chat Completions, Responses and legacy completion models) and LangChain's
 * `ChatOpenAI` (Chat Completions and, with `useResponsesApi`, Responses). Each runs a tool loop
 * against an `llm` agent whose upstream stub first calls the tool, then answers with its result,
 * JSON and streamed, and reads the usage the service metered.
 */
import { createOpenAI } from "@ai-sdk/openai";
import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { tool as langchainTool } from "@langchain/core/tools";
import { ChatOpenAI } from "@langchain/openai";
import { generateText, stepCountIs, streamText, tool } from "ai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { startLlmTestApp, type LlmTestApp } from "../../helpers/llm-app.js";

let h: LlmTestApp;
const cities: string[] = [];
const weather = tool({
  description: "The weather of a city.",
  inputSchema: z.object({ city: z.string() }),
  execute: ({ city }) => {
    cities.push(city);
    return Promise.resolve(`sunny in ${city}`);
  },
});

beforeAll(async () => {
  h = await startLlmTestApp([
    { id: "forecaster", kind: "llm", model: "agentic" },
    { id: "echo", kind: "llm", model: "echo" },
  ]);
});
afterAll(() => h.close());

const provider = () => createOpenAI({ apiKey: h.secret, baseURL: h.baseURL });
const chatOpenAI = (fields: { useResponsesApi?: boolean; streaming?: boolean } = {}) =>
  new ChatOpenAI({ model: "agentport/forecaster", apiKey: h.secret, configuration: { baseURL: h.baseURL }, ...fields });

describe("the Vercel AI SDK", () => {
  it("runs a tool loop on the Chat Completions model, JSON", async () => {
    cities.length = 0;
    const result = await generateText({
      model: provider().chat("agentport/forecaster"),
      prompt: "What is the weather in Paris?",
      tools: { get_weather: weather },
      stopWhen: stepCountIs(3),
    });
    expect(cities).toEqual(["Paris"]);
    expect(result.text).toBe("echo: the tool said sunny in Paris");
    expect(result.steps.map((s) => s.finishReason)).toEqual(["tool-calls", "stop"]);
    expect(result.totalUsage.inputTokens).toBeGreaterThan(0);
    expect(result.totalUsage.outputTokens).toBeGreaterThan(0);
  });

  it("runs the same loop streamed on the Responses model", async () => {
    cities.length = 0;
    const result = streamText({
      model: provider().responses("agentport/forecaster"),
      prompt: "And in Paris tomorrow?",
      tools: { get_weather: weather },
      stopWhen: stepCountIs(3),
    });
    let text = "";
    for await (const delta of result.textStream) text += delta;
    expect(cities).toEqual(["Paris"]);
    expect(text).toBe("echo: the tool said sunny in Paris");
    expect((await result.totalUsage).outputTokens).toBeGreaterThan(0);
  });

  it("streams the legacy completion model", async () => {
    const result = streamText({ model: provider().completion("agentport/echo"), prompt: "say hi" });
    let text = "";
    for await (const delta of result.textStream) text += delta;
    expect(text).toContain("say hi");
    expect(await result.finishReason).toBe("stop");
  });

  it("sees an unknown model as the API's 404, not a crash", async () => {
    await expect(
      generateText({ model: provider().chat("agentport/nope"), prompt: "hi", maxRetries: 0 }),
    ).rejects.toMatchObject({
      statusCode: 404,
      responseBody: expect.stringContaining("model_not_found"),
    });
  });
});

describe("LangChain ChatOpenAI", () => {
  const lcWeather = langchainTool(({ city }: { city: string }) => `sunny in ${city}`, {
    name: "get_weather",
    description: "The weather of a city.",
    schema: z.object({ city: z.string() }),
  });

  for (const api of ["Chat Completions", "Responses"] as const) {
    it(`binds a tool, sends its result back and reads the answer (${api})`, async () => {
      const model = chatOpenAI({ useResponsesApi: api === "Responses" }).bindTools([lcWeather]);
      const question = new HumanMessage("What is the weather in Paris?");
      const first = await model.invoke([question]);
      expect(first.tool_calls).toEqual([expect.objectContaining({ name: "get_weather", args: { city: "Paris" } })]);
      const call = first.tool_calls![0];
      const result = await lcWeather.invoke(call.args as { city: string });
      const second = await model.invoke([
        question,
        first,
        new ToolMessage({ content: result, tool_call_id: call.id! }),
      ]);
      expect(second.text).toBe("echo: the tool said sunny in Paris");
      expect(second.usage_metadata?.output_tokens).toBeGreaterThan(0);
    });
  }

  it("streams an answer chunk by chunk, with usage", async () => {
    const chunks = [];
    const answered = [
      new HumanMessage("q"),
      new AIMessage({ content: "", tool_calls: [{ id: "call_1", name: "get_weather", args: { city: "Rome" } }] }),
      new ToolMessage({ content: "rainy in Rome", tool_call_id: "call_1" }),
    ];
    for await (const chunk of await chatOpenAI().stream(answered)) chunks.push(chunk);
    expect(chunks.length).toBeGreaterThan(2);
    expect(chunks.map((c) => c.text).join("")).toBe("echo: the tool said rainy in Rome");
    expect(chunks.some((c) => (c.usage_metadata?.output_tokens ?? 0) > 0)).toBe(true);
  });
});
