/**
 * An `llm` agent that declares `responses: true`: /v1/responses is forwarded to its upstream's own
 * /responses (the stub serves one) with the upstream model, the conversation rebuilt here and
 * nothing stored upstream; the answer comes back under this server's id and model, stored here,
 * metered from the upstream's usage. Built-in tools the upstream knows pass through.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLlmTestApp, type LlmTestApp } from "../../helpers/llm-app.js";

const AGENTS = [
  {
    id: "native",
    kind: "llm",
    model: "responder",
    responses: true,
    system_prompt: "Sys.",
    builtin_tools: ["web_search"],
  },
  { id: "native-garble", kind: "llm", model: "responses-garble", responses: true },
  { id: "native-cut", kind: "llm", model: "responses-cut", responses: true },
  { id: "native-busy", kind: "llm", model: "status-429", responses: true, retries: { attempts: 1 } },
];

let h: LlmTestApp;
beforeAll(async () => {
  h = await startLlmTestApp(AGENTS);
});
afterAll(() => h.close());

const last = () => h.stub.requests.at(-1)!;

describe("forwarding to an upstream's own Responses API", () => {
  it("forwards JSON with the upstream model and answers under this server's id", async () => {
    const response = await h.client.responses.create({
      model: "agentport/native",
      instructions: "Be kind.",
      input: "hi",
      tools: [{ type: "web_search" }],
      metadata: { a: "b" },
    });
    expect(response.output_text).toBe("upstream: hi");
    expect(response.id).toMatch(/^resp_/);
    expect(response.id).not.toBe("resp_upstream");
    expect(response).toMatchObject({
      model: "agentport/native",
      status: "completed",
      metadata: { a: "b" },
      usage: { input_tokens: 5, output_tokens: 3 },
    });
    const sent = last().body as Record<string, unknown>;
    expect(sent).toMatchObject({
      model: "responder",
      store: false,
      stream: false,
      instructions: "Be kind.",
      tools: [{ type: "web_search" }],
    });
    expect(sent.input).toEqual([
      { type: "message", role: "system", content: "Sys." },
      { type: "message", role: "user", content: "hi" },
    ]);
    expect(sent).not.toHaveProperty("previous_response_id");
    expect(sent).not.toHaveProperty("metadata");
    expect((await h.client.responses.retrieve(response.id)).output_text).toBe("upstream: hi");
  });

  it("relays the upstream's stream under this server's id, and continues the conversation from what is stored here", async () => {
    const stream = h.client.responses.stream({ model: "agentport/native", input: "first" });
    const events: any[] = [];
    for await (const event of stream) events.push(event);
    const final = await stream.finalResponse();
    expect(events.map((e) => e.type)).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.content_part.added",
      "response.output_text.delta",
      "response.output_text.delta",
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.completed",
    ]);
    expect(events[0].response.id).toBe(final.id);
    expect(final.output_text).toBe("upstream: first");
    await h.client.responses.create({ model: "agentport/native", input: "second", previous_response_id: final.id });
    expect((last().body as Record<string, unknown>).input).toEqual([
      { type: "message", role: "system", content: "Sys." },
      { type: "message", role: "user", content: "first" },
      { type: "message", role: "assistant", content: [{ type: "output_text", text: "upstream: first" }] },
      { type: "message", role: "user", content: "second" },
    ]);
  });

  it("meters a forwarded run from the upstream's usage", async () => {
    const key = await h.t.createKey("forwarded", "f");
    const res = await fetch(`${h.baseURL}/responses`, {
      method: "POST",
      headers: { authorization: `Bearer ${key.secret}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "agentport/native", input: "x", stream: true }),
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain("event: response.completed");
    const member = await h.t.memberToken("member", "forwarded");
    const usage = await h.t.app.inject({
      url: `/v1/organization/usage/completions?start_time=${Math.floor(Date.now() / 1000) - 120}&bucket_width=1h`,
      headers: { authorization: `Bearer ${member}` },
    });
    expect(usage.json().data.flatMap((b: any) => b.results)).toEqual([
      expect.objectContaining({ num_model_requests: 1, input_tokens: 5, output_tokens: 3 }),
    ]);
  });

  it("maps an upstream that is not a Responses API to 502, a cut stream to response.failed, a 429 to 429", async () => {
    await expect(h.client.responses.create({ model: "agentport/native-garble", input: "x" })).rejects.toMatchObject({
      status: 502,
      error: { code: "upstream_error" },
    });
    const res = await fetch(`${h.baseURL}/responses`, {
      method: "POST",
      headers: { authorization: `Bearer ${h.secret}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "agentport/native-cut", input: "x", stream: true }),
    });
    const text = await res.text();
    const lastEvent = JSON.parse(
      text
        .trim()
        .split("\n")
        .at(-1)!
        .replace(/^data: /, ""),
    );
    expect(lastEvent).toMatchObject({
      type: "response.failed",
      sequence_number: 6,
      response: { status: "failed", error: { code: "upstream_error" } },
    });
    await expect(h.client.responses.create({ model: "agentport/native-busy", input: "x" })).rejects.toMatchObject({
      status: 429,
    });
  });
});
