import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, type TestApp } from "../../helpers/app.js";
import { STORE_KINDS } from "../../helpers/store.js";

const URL = "/v1/chat/completions";
const ok = { model: "agentport/synthetic-20", messages: [{ role: "user", content: "hi" }] };

describe.each(STORE_KINDS)("chat completion errors in the OpenAI envelope (%s)", (kind) => {
  let t: TestApp;
  let auth: Record<string, string>;
  beforeAll(async () => {
    t = await buildTestApp(kind, { JSON_BODY_LIMIT: "64k" });
    auth = { authorization: `Bearer ${(await t.createKey()).secret}` };
  });
  afterAll(() => t.close());

  const post = (payload: unknown, headers = auth) =>
    t.app.inject({
      method: "POST",
      url: URL,
      headers: { "content-type": "application/json", ...headers },
      payload: typeof payload === "string" ? payload : JSON.stringify(payload),
    });

  it("401 invalid_api_key without a key", async () => {
    const res = await post(ok, {});
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({
      error: {
        message: "You didn't provide an API key. Send it as 'Authorization: Bearer <API key>'.",
        type: "invalid_request_error",
        param: null,
        code: "invalid_api_key",
      },
    });
  });

  it("401 invalid_api_key with a wrong key, naming only its last characters", async () => {
    const wrong = "ap-" + "x".repeat(39) + "WXYZ";
    const res = await post(ok, { authorization: `Bearer ${wrong}` });
    expect(res.statusCode).toBe(401);
    const { error } = res.json();
    expect(error).toEqual({
      message: expect.stringContaining("ap-…WXYZ"),
      type: "invalid_request_error",
      param: null,
      code: "invalid_api_key",
    });
    expect(res.body).not.toContain(wrong);
  });

  it("400 invalid_json for a malformed body", async () => {
    const res = await post('{"model": "agentport/synthetic-20", "messages": [');
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toEqual({
      message: expect.stringContaining("could not parse the JSON body"),
      type: "invalid_request_error",
      param: null,
      code: "invalid_json",
    });
  });

  it("400 naming the field for schema violations", async () => {
    const cases: Array<[unknown, string, string]> = [
      [{ messages: ok.messages }, "model", "missing_required_parameter"],
      [{ ...ok, messages: [{ role: "robot", content: "hi" }] }, "messages[0].role", "invalid_value"],
      [{ ...ok, messages: [{ role: "user", content: 42 }] }, "messages[0].content", "invalid_value"],
      [{ ...ok, messages: [ok.messages[0], { role: "user" }] }, "messages[1].content", "missing_required_parameter"],
      [{ ...ok, messages: [] }, "messages", "invalid_value"],
      [{ ...ok, temperature: "hot" }, "temperature", "invalid_value"],
      [{ ...ok, temperature: 3 }, "temperature", "invalid_value"],
      [{ ...ok, stream: "yes" }, "stream", "invalid_value"],
      [{ ...ok, logit_bias: { "1": 500 } }, "logit_bias[1]", "invalid_value"],
      [{ ...ok, frobnicate: {} }, "frobnicate", "unknown_parameter"],
      [{ ...ok, stream_options: { include_usage: true, extra: 1 } }, "stream_options.extra", "unknown_parameter"],
    ];
    for (const [payload, param, code] of cases) {
      const res = await post(payload);
      expect(res.statusCode, param).toBe(400);
      expect(res.json().error, param).toEqual({
        message: expect.stringContaining(param),
        type: "invalid_request_error",
        param,
        code,
      });
    }
  });

  it("names the deepest field and the broken constraint when a field may take several shapes", async () => {
    const cases: Array<[unknown, string, string, string]> = [
      [
        { ...ok, stop: ["a", "b", "c", "d", "e"] },
        "stop",
        "invalid_value",
        "Invalid value for 'stop': must NOT have more than 4 items.",
      ],
      [
        { ...ok, messages: [{ role: "user", content: [{ type: "text", text: 5 }] }] },
        "messages[0].content[0].text",
        "invalid_value",
        "Invalid value for 'messages[0].content[0].text': must be string.",
      ],
      [
        { ...ok, messages: [{ role: "user", content: [{ text: "hi" }] }] },
        "messages[0].content[0].type",
        "missing_required_parameter",
        "Missing required parameter: 'messages[0].content[0].type'.",
      ],
    ];
    for (const [payload, param, code, message] of cases) {
      const res = await post(payload);
      expect(res.statusCode, param).toBe(400);
      expect(res.json().error, param).toEqual({ message, type: "invalid_request_error", param, code });
    }
  });

  it("415 unsupported_media_type naming a Content-Type that is not JSON; a charset suffix is fine", async () => {
    for (const type of ["text/plain", "application/vnd.api+json"]) {
      const res = await post(ok, { ...auth, "content-type": type });
      expect(res.statusCode, type).toBe(415);
      expect(res.json().error, type).toEqual({
        message: `Unsupported Content-Type '${type}'.`,
        type: "invalid_request_error",
        param: null,
        code: "unsupported_media_type",
      });
    }
    const res = await post(ok, { ...auth, "content-type": "application/json; charset=utf-8" });
    expect(res.statusCode).toBe(200);
  });

  it("400 on a non-text content part sent to an agent that is not an upstream LLM", async () => {
    const content = [
      { type: "text", text: "what is this?" },
      { type: "image_url", image_url: { url: "https://example.com/a.png" } },
    ];
    const res = await post({ ...ok, messages: [{ role: "user", content }] });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toEqual({
      message:
        "Invalid content type: 'image_url' parts are not supported by this model: it is a synthetic agent, which reads text parts only.",
      type: "invalid_request_error",
      param: "messages[0].content[1].type",
      code: "unsupported_value",
    });
    expect((await post({ ...ok, messages: [{ role: "user", content: [content[0]] }] })).statusCode).toBe(200);
  });

  it("400 on stream_options without stream; n: 1 and stream_options: null are accepted", async () => {
    for (const extra of [{}, { stream: false }]) {
      const res = await post({ ...ok, ...extra, stream_options: { include_usage: true } });
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toEqual({
        message: "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
        type: "invalid_request_error",
        param: "stream_options",
        code: "invalid_value",
      });
    }
    expect((await post({ ...ok, n: 1, stream_options: null })).statusCode).toBe(200);
  });

  it("400 on n other than 1: an offline agent answers once", async () => {
    const res = await post({ ...ok, n: 2 });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toEqual({
      message: "Invalid value for 'n': only 1 is supported by this model, a synthetic agent (got 2).",
      type: "invalid_request_error",
      param: "n",
      code: "unsupported_value",
    });
  });

  it("400 unsupported_parameter naming what an offline answer could not carry: log probabilities, audio", async () => {
    for (const [extra, param] of [
      [{ logprobs: true }, "logprobs"],
      [{ top_logprobs: 3 }, "top_logprobs"],
      [{ modalities: ["text", "audio"] }, "modalities"],
      [{ audio: { voice: "alloy", format: "wav" } }, "audio"],
    ] as const) {
      const res = await post({ ...ok, ...extra });
      expect(res.statusCode, param).toBe(400);
      expect(res.json().error).toMatchObject({ type: "invalid_request_error", param, code: "unsupported_parameter" });
    }
    expect((await post({ ...ok, logprobs: false, top_logprobs: 0 })).statusCode).toBe(200);
  });

  it("400 on tools sent to an agent that is not an upstream LLM", async () => {
    const tools = [{ type: "function", function: { name: "f", parameters: { type: "object" } } }];
    const res = await post({ ...ok, tools });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toEqual({
      message:
        "Unsupported parameter: 'tools' is not supported by this model: it is a synthetic agent, not an upstream LLM.",
      type: "invalid_request_error",
      param: "tools",
      code: "unsupported_parameter",
    });
  });

  it("404 model_not_found for an unknown model", async () => {
    const res = await post({ ...ok, model: "agentport/unknown" });
    expect(res.statusCode).toBe(404);
    expect(res.json().error).toEqual({
      message: "The model 'agentport/unknown' does not exist or you do not have access to it.",
      type: "invalid_request_error",
      param: "model",
      code: "model_not_found",
    });
  });

  it("an offline agent ignores sampling fields and refuses, naming it, what only an upstream LLM can do", async () => {
    const sampling = {
      seed: 1,
      logit_bias: { "1": 5 },
      store: true,
      service_tier: "auto",
      verbosity: "low",
      reasoning_effort: "low",
      presence_penalty: 1,
      prompt_cache_key: "k",
      safety_identifier: "s",
    };
    expect((await post({ ...ok, ...sampling })).statusCode).toBe(200);
    for (const [field, value] of [
      ["prediction", { type: "content", content: "x" }],
      ["web_search_options", {}],
      ["functions", [{ name: "f" }]],
      ["function_call", "auto"],
      ["response_format", { type: "json_object" }],
    ] as const) {
      const res = await post({ ...ok, [field]: value });
      expect(res.statusCode, field).toBe(400);
      expect(res.json().error).toMatchObject({ param: field, code: "unsupported_parameter" });
    }
  });

  it("404 unknown_url for an unknown route", async () => {
    const res = await t.app.inject({ method: "GET", url: "/v1/chat/nothing", headers: auth });
    expect(res.statusCode).toBe(404);
    expect(res.json().error).toEqual({
      message: "Invalid URL (GET /v1/chat/nothing)",
      type: "invalid_request_error",
      param: null,
      code: "unknown_url",
    });
  });

  it("413 request_too_large over JSON_BODY_LIMIT", async () => {
    const res = await post({ ...ok, messages: [{ role: "user", content: "x".repeat(70 * 1024) }] });
    expect(res.statusCode).toBe(413);
    expect(res.json().error).toEqual({
      message: "Request body is larger than the limit of 65536 bytes.",
      type: "invalid_request_error",
      param: null,
      code: "request_too_large",
    });
  });

  it("a 5xx names the request id and nothing of the failure", async () => {
    // A real query failure inside the files agent's search: its table is gone for a moment.
    await t.store.db.query("ALTER TABLE file_chunks RENAME TO file_chunks_away");
    try {
      const res = await post({ ...ok, model: "agentport/chat:latest" });
      expect(res.statusCode).toBe(500);
      const requestId = res.headers["x-request-id"];
      expect(res.json().error).toEqual({
        message: `The server had an error while processing your request (request id ${requestId}).`,
        type: "server_error",
        param: null,
        code: "internal_error",
      });
      expect(res.body).not.toMatch(/file_chunks|relation|at .*\.ts|stack/);
    } finally {
      await t.store.db.query("ALTER TABLE file_chunks_away RENAME TO file_chunks");
    }
  });
});
