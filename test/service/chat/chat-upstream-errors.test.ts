import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLlmTestApp, type LlmTestApp } from "../../helpers/llm-app.js";
import type { UpstreamStub } from "../../helpers/upstream-stub.js";

const user = [{ role: "user" as const, content: "hi" }];

/** Upstream failures keep their meaning for the caller, through the official client and its retries. */
describe("llm agent upstream errors", () => {
  let llm: LlmTestApp;
  let stub: UpstreamStub;
  let baseURL: string;
  let secret: string;
  beforeAll(async () => {
    const statuses = [400, 401, 404, 429, 503];
    llm = await startLlmTestApp(
      [
        ...statuses.map((s) => ({ id: `s${s}`, kind: "llm", model: `status-${s}` })),
        { id: "hanging", kind: "llm", model: "hang" },
      ],
      { LLM_API_KEY: "sk-upstream-secret", LLM_TIMEOUT_SECONDS: "1", LLM_IDLE_TIMEOUT_SECONDS: "1" },
    );
    ({ stub, baseURL, secret } = llm);
  });
  afterAll(() => llm.close());

  /** One create with the client's default retries (2, short backoff); the error and how often the upstream was asked. */
  async function call(model: string, stream = false) {
    const client = new OpenAI({ baseURL, apiKey: secret, timeout: 20_000 });
    const before = stub.requests.length;
    const err = (await client.chat.completions.create({ model: `agentport/${model}`, messages: user, stream }).then(
      () => undefined,
      (e: unknown) => e,
    )) as InstanceType<typeof OpenAI.APIError>;
    return { err, asked: stub.requests.length - before };
  }

  it("upstream 429 → 429 rate_limit_exceeded with the upstream's Retry-After", async () => {
    const client = new OpenAI({ baseURL, apiKey: secret, maxRetries: 0 });
    const err = (await client.chat.completions
      .create({ model: "agentport/s429", messages: user })
      .catch((e: unknown) => e)) as InstanceType<typeof OpenAI.APIError>;
    expect(err).toBeInstanceOf(OpenAI.RateLimitError);
    expect(err.code).toBe("rate_limit_exceeded");
    expect(err.headers?.get("retry-after")).toBe("7");
  });

  it("upstream 400 → 400 with the upstream's message and param, not retried", async () => {
    const { err, asked } = await call("s400");
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect(err.message).toContain("upstream says 400");
    expect(err.param).toBe("temperature");
    expect(asked).toBe(1);
  });

  it.each([401, 404])(
    "upstream %i → 502 naming a configuration problem, never the key, and the SDK does not retry it",
    async (status) => {
      const { err, asked } = await call(`s${status}`);
      expect(err.status).toBe(502);
      expect(err.code).toBe("upstream_configuration_error");
      expect(JSON.stringify(err.error)).not.toContain("sk-upstream-secret");
      expect(asked).toBe(1);
    },
  );

  it("upstream 503 → 502 upstream_error, which the SDK may retry", async () => {
    const { err, asked } = await call("s503");
    expect(err.status).toBe(502);
    expect(err.code).toBe("upstream_error");
    // Three tries of the SDK, each tried twice by the agent (its default `retries.attempts`), but the
    // upstream's circuit opens at its fifth failure (UPSTREAM_BREAKER_FAILURES): the sixth call is not made.
    expect(asked).toBe(5);
  }, 30_000);

  it("an upstream that does not answer within LLM_TIMEOUT_SECONDS → 504 upstream_timeout", async () => {
    const client = new OpenAI({ baseURL, apiKey: secret, maxRetries: 0, timeout: 20_000 });
    const err = (await client.chat.completions
      .create({ model: "agentport/hanging", messages: user })
      .catch((e: unknown) => e)) as InstanceType<typeof OpenAI.APIError>;
    expect(err.status).toBe(504);
    expect(err.code).toBe("upstream_timeout");
  }, 30_000);
});
