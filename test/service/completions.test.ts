/**
 * POST /v1/completions (legacy text completions) with the official openai client's
 * `client.completions.create`, JSON and streamed: relayed to an upstream that has the API
 * (`completions: true`), translated to chat for an llm agent whose upstream has only chat and for
 * the offline agents; every answer and chunk checked against OpenAI's published schema; metered
 * and limited through the same run as chat; what a translation cannot honour refused by name.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { APIError } from "openai";
import { startLlmTestApp, type LlmTestApp } from "../helpers/llm-app.js";
import { openaiClient } from "../helpers/openai-client.js";
import { schemaPointer, schemaProblems, type Deviation } from "../helpers/openai-schema.js";
import { validateAgents } from "../../service/src/domain/agents/agent-spec.js";

const AGENTS = [
  { id: "base", kind: "llm", model: "base-model", completions: true, system_prompt: "never sent" },
  { id: "chatty", kind: "llm", model: "echo" },
  { id: "synth", kind: "synthetic", tokens: 5 },
];

const TEXT_COMPLETION = schemaPointer({ method: "post", path: "/completions" });
/**
 * OpenAI's document gives a stream's chunks no schema of their own ("the same shape" as the
 * answer), and its finish_reason has no null; OpenAI's own stream, and every SDK, carry null until
 * the last chunk, as chat's stream does.
 */
const OPEN_CHUNK: Deviation = {
  where: /^\/choices\/\d+\/finish_reason$/,
  why: "a stream's chunks carry finish_reason null until the last, as OpenAI's own stream does",
};
const expectText = (body: unknown, deviations: Deviation[] = []) =>
  expect(schemaProblems(TEXT_COMPLETION, body, deviations), JSON.stringify(body)).toEqual([]);

let h: LlmTestApp;
beforeAll(async () => {
  h = await startLlmTestApp(AGENTS);
}, 240_000);
afterAll(() => h?.close());

const lastUpstream = () => h.stub.requests.at(-1)!;

async function streamed(model: string, prompt: string, extra: object = {}) {
  const stream = await h.client.completions.create({
    model,
    prompt,
    stream: true,
    stream_options: { include_usage: true },
    ...extra,
  });
  const chunks = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

describe("relayed to an upstream that has the completions API", () => {
  it("answers as the upstream did, under this server's id and model, with the upstream model sent", async () => {
    const answer = await h.client.completions.create({ model: "agentport/base", prompt: "Once upon", max_tokens: 5 });
    expectText(answer);
    expect(answer).toMatchObject({
      object: "text_completion",
      model: "agentport/base",
      choices: [{ text: 'text: "Once upon"', index: 0, finish_reason: "length" }],
      usage: { prompt_tokens: 4, completion_tokens: 6, total_tokens: 10 },
    });
    expect(answer.id).toMatch(/^cmpl-/);
    expect(answer.id).not.toBe("cmpl-upstream");
    const upstream = lastUpstream();
    expect(upstream.body).toEqual({ model: "base-model", prompt: "Once upon", max_tokens: 5, stream: false });
  });

  it("relays what only a completions API does: several prompts, echo, logprobs", async () => {
    const answer = await h.client.completions.create({
      model: "agentport/base",
      prompt: ["a", "b"],
      echo: true,
      logprobs: 2,
      n: 2,
    });
    expectText(answer);
    expect(answer.choices.map((c) => c.text)).toEqual(['atext: "a"', 'atext: "a"', 'btext: "b"', 'btext: "b"']);
    expect(lastUpstream().body).toMatchObject({ prompt: ["a", "b"], echo: true, logprobs: 2, n: 2 });
  });

  it("streams the upstream's chunks, the usage last when asked (and asks the upstream for it)", async () => {
    const chunks = await streamed("agentport/base", "Once upon");
    for (const chunk of chunks) expectText(chunk, [OPEN_CHUNK]);
    expect(chunks.map((c) => c.choices[0]?.text ?? "").join("")).toBe('text: "Once upon"');
    expect(chunks.at(-2)!.choices[0].finish_reason).toBe("length");
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 4, completion_tokens: 6 } });
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
    expect(lastUpstream().body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });
});

describe.each([
  ["an llm agent whose upstream has only chat", "agentport/chatty", "echo: hello there"],
  ["an offline synthetic agent", "agentport/synth", "Lorem ipsum dolor sit amet,"],
])("translated to chat: %s", (_name, model, expected) => {
  it("answers one text_completion", async () => {
    const answer = await h.client.completions.create({ model, prompt: "hello there" });
    expectText(answer);
    expect(answer).toMatchObject({ object: "text_completion", model, choices: [{ text: expected, index: 0 }] });
    expect(answer.choices[0].finish_reason).toMatch(/^(stop|length)$/);
    expect(answer.usage!.total_tokens).toBeGreaterThan(0);
  });

  it("streams text chunks, then the usage", async () => {
    const chunks = await streamed(model, "hello there");
    for (const chunk of chunks) expectText(chunk, [OPEN_CHUNK]);
    expect(chunks.map((c) => c.choices[0]?.text ?? "").join("")).toBe(expected);
    expect(chunks.at(-1)!.usage!.total_tokens).toBeGreaterThan(0);
  });
});

describe("translated to chat: what the upstream's chat is sent", () => {
  it("the prompt as one user message, OpenAI's default of 16 tokens, the sampling fields as sent", async () => {
    await h.client.completions.create({
      model: "agentport/chatty",
      prompt: "hello there",
      temperature: 0.2,
      stop: ["\n"],
    });
    const upstream = lastUpstream();
    expect(upstream.body).toMatchObject({
      model: "echo",
      messages: [{ role: "user", content: "hello there" }],
      max_tokens: 16,
      temperature: 0.2,
      stop: ["\n"],
      stream: false,
    });
    expect(upstream.body).not.toHaveProperty("prompt");
  });
});

describe("refusals", () => {
  const refusal = async (body: object) => {
    const err = await h.client.completions.create(body as never).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(APIError);
    return err as APIError;
  };

  it.each([
    ["echo", { echo: true }],
    ["suffix", { suffix: "the end" }],
    ["logprobs", { logprobs: 1 }],
    ["best_of", { best_of: 3 }],
    ["prompt", { prompt: ["one", "two"] }],
    ["prompt", { prompt: [1, 2, 3] }],
  ])("a translated request refuses %s, naming it", async (param, extra) => {
    const err = await refusal({ model: "agentport/synth", prompt: "x", ...extra });
    expect(err.status).toBe(400);
    expect(err.error).toMatchObject({ param, code: "unsupported_parameter" });
    expect(err.message).toMatch(/completions: true/);
  });

  it("an unknown model is a 404, a prompt of the wrong type a 400", async () => {
    expect((await refusal({ model: "agentport/nobody", prompt: "x" })).status).toBe(404);
    const bad = await refusal({ model: "agentport/synth", prompt: { text: "x" } });
    expect(bad.status).toBe(400);
    expect(bad.error).toMatchObject({ type: "invalid_request_error" });
  });

  it("the agents file takes `completions` on llm agents only", () => {
    expect(() => validateAgents([{ id: "f", kind: "files", completions: true }], "agents.yaml")).toThrow(
      /unknown field 'completions'/,
    );
    expect(() => validateAgents([{ id: "l", kind: "llm", model: "m", completions: "yes" }], "agents.yaml")).toThrow(
      /'completions' must be a boolean/,
    );
  });
});

describe("metered and limited like chat", () => {
  it("the usage report counts each run; a key's request limit refuses the next", async () => {
    const key = await h.t.app.apiKeys.create({
      projectId: "default",
      name: "two a minute",
      createdBy: "user_test",
      rateLimitRpm: 2,
    });
    const client = openaiClient(h.baseURL, key.secret);
    await client.completions.create({ model: "agentport/base", prompt: "one" });
    const chunks = client.completions.create({ model: "agentport/synth", prompt: "two", stream: true });
    for await (const _ of await chunks);
    const limited = await client.completions.create({ model: "agentport/base", prompt: "three" }).catch((e) => e);
    expect(limited).toBeInstanceOf(APIError);
    expect((limited as APIError).status).toBe(429);

    const owner = await h.t.memberToken("owner");
    const start = Math.floor(Date.now() / 1000) - 3600;
    const res = await fetch(
      `${h.baseURL}/organization/usage/completions?start_time=${start}&group_by=model&api_key_ids=${key.record.id}`,
      { headers: { authorization: `Bearer ${owner}` } },
    );
    const results = ((await res.json()) as { data: Array<{ results: Array<Record<string, unknown>> }> }).data.flatMap(
      (b) => b.results,
    );
    expect(results).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ model: "agentport/base", num_model_requests: 1, input_tokens: 4, output_tokens: 6 }),
        expect.objectContaining({ model: "agentport/synth", num_model_requests: 1 }),
      ]),
    );
  });
});
