import { describe, expect, it } from "vitest";
import fastJsonStringify from "fast-json-stringify";
import { Value } from "typebox/value";
import { ownCompletion, type OwnAnswer } from "../../../service/src/routes/v1/chat/completions/chunks.js";
import { ChatCompletion } from "../../../service/src/routes/v1/chat/completions/schema.js";

// What the route's response serializer wrote for the same answer before the text was written by hand.
const serialize = fastJsonStringify(ChatCompletion);
const asObject = (id: string, created: number, model: string, a: OwnAnswer) => ({
  id,
  object: "chat.completion",
  created,
  model,
  choices: [
    {
      index: 0,
      message: {
        role: "assistant",
        content: a.content,
        refusal: null,
        ...(a.toolCalls && { tool_calls: a.toolCalls }),
      },
      logprobs: null,
      finish_reason: a.finishReason,
    },
  ],
  usage: a.usage,
});

const usage = { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 };
const answers: Array<[string, OwnAnswer]> = [
  ["plain text", { content: "Lorem ipsum dolor", finishReason: "stop", usage }],
  [
    "text needing escapes",
    {
      content: 'a "quote", a \\ backslash,\nnew line, tab\t, NUL \u0000, é, 🎉, lone \ud800',
      finishReason: "length",
      usage,
    },
  ],
  ["an empty answer", { content: "", finishReason: "stop", usage }],
  [
    "tool calls and no text",
    {
      content: null,
      toolCalls: [{ id: "call_1", type: "function", function: { name: "search", arguments: '{"q":"x"}' } }],
      finishReason: "tool_calls",
      usage,
    },
  ],
];

describe("an offline agent's JSON answer written as text", () => {
  it.each(answers)("is byte for byte what the response serializer wrote: %s", (_name, answer) => {
    const text = ownCompletion("chatcmpl-abc", 1_700_000_000, "agentport/synthetic-20", answer);
    expect(text).toBe(serialize(asObject("chatcmpl-abc", 1_700_000_000, "agentport/synthetic-20", answer)));
    expect(Value.Errors(ChatCompletion, JSON.parse(text))).toEqual([]);
  });

  it("keeps a model id that needs escaping valid JSON", () => {
    const text = ownCompletion("chatcmpl-abc", 1, 'agentport/odd"name', answers[0][1]);
    expect(JSON.parse(text).model).toBe('agentport/odd"name');
  });
});
