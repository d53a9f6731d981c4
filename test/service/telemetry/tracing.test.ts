/**
 * Traces reach a real OTLP/HTTP receiver: a server span per request with its route, key id, model
 * and outcome, and child spans for the store's queries, the limiter's Redis calls and the upstream
 * call, whose W3C traceparent the upstream receives. Never the key, never the prompt.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../../service/src/config.js";
import { startLlmTestApp, type LlmTestApp } from "../../helpers/llm-app.js";
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from "./otlp-receiver.js";

const SERVER = 2;
const CLIENT = 3;
const PROMPT = "tell me about the zanzibar marmalade ledger";
const CALLER_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const CALLER_SPAN = "00f067aa0ba902b7";

describe("traces over OTLP/HTTP", () => {
  let receiver: OtlpReceiver;
  let llm: LlmTestApp;
  let keyId: string;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    llm = await startLlmTestApp(
      [
        { id: "echo", kind: "llm", model: "echo" },
        { id: "down", kind: "llm", model: "fail" },
        { id: "hang", kind: "llm", model: "hang" },
      ],
      {
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/json",
        REDIS_URL: "redis://127.0.0.1:6379",
        RATE_LIMIT_RPM: "1000",
        RATE_LIMIT_TPM: "1000000",
      },
    );
    keyId = (await llm.t.app.apiKeys.list("default")).data[0].id;
    await llm.client.chat.completions.create({
      model: "agentport/echo",
      messages: [{ role: "user", content: PROMPT }],
    });
    await expect(
      llm.client.chat.completions.create(
        { model: "agentport/down", messages: [{ role: "user", content: PROMPT }] },
        { maxRetries: 0 },
      ),
    ).rejects.toMatchObject({ status: 502 });
    const callerHeaders = {
      traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01`,
      baggage: "user.email=someone%40example.com",
    };
    await llm.client.chat.completions.create(
      { model: "agentport/echo", messages: [{ role: "user", content: "again" }] },
      { headers: callerHeaders },
    );
    // A client that leaves a stream before its end.
    const leaving = new AbortController();
    const stream = await llm.client.chat.completions.create(
      { model: "agentport/hang", messages: [{ role: "user", content: "wait" }], stream: true },
      { signal: leaving.signal },
    );
    for await (const _ of stream) break;
    await llm.stub.requests.find((r) => r.body.model === "hang")!.aborted;
    // Closing the app flushes its spans to the receiver.
    await llm.close();
  }, 60_000);
  afterAll(async () => {
    await receiver.close();
  });

  const requestSpan = (): ReceivedSpan => {
    const span = receiver.spans.find(
      (s) =>
        s.kind === SERVER && s.attributes["gen_ai.request.model"] === "agentport/echo" && s.traceId !== CALLER_TRACE,
    );
    expect(span, "the request's span").toBeDefined();
    return span!;
  };

  it("sends a server span per request with the route, key id, model and outcome", () => {
    const span = requestSpan();
    expect(span.name).toBe("POST /v1/chat/completions");
    expect(span.attributes).toMatchObject({
      "http.request.method": "POST",
      "http.response.status_code": 200,
      "gen_ai.request.model": "agentport/echo",
      "agentport.outcome": "ok",
      "agentport.project_id": "default",
    });
    expect(span.attributes["agentport.key_id"]).toBe(keyId);
  });

  it("marks a failed request and its failed upstream call as errors", () => {
    const failed = receiver.spans.find(
      (s) => s.kind === SERVER && s.attributes["gen_ai.request.model"] === "agentport/down",
    );
    expect(failed?.attributes).toMatchObject({ "http.response.status_code": 502, "agentport.outcome": "server_error" });
    expect(failed?.status?.code).toBe(2);
    const upstream = receiver.spans.find(
      (s) => s.kind === CLIENT && s.traceId === failed!.traceId && s.name === "POST /chat/completions",
    );
    expect(upstream?.attributes["http.response.status_code"]).toBe(500);
    expect(upstream?.status?.code).toBe(2);
  });

  it("joins a caller's trace, and forwards its traceparent upstream but not its baggage", () => {
    const joined = receiver.spans.find((s) => s.kind === SERVER && s.traceId === CALLER_TRACE);
    expect(joined?.parentSpanId).toBe(CALLER_SPAN);
    const sent = llm.stub.requests.find((r) => String(r.headers.traceparent).includes(CALLER_TRACE));
    expect(sent, "the upstream request in the caller's trace").toBeDefined();
    expect(sent!.headers.baggage).toBeUndefined();
  });

  it("ends the span of a request whose client left, as aborted", () => {
    const left = receiver.spans.find(
      (s) => s.kind === SERVER && s.attributes["gen_ai.request.model"] === "agentport/hang",
    );
    expect(left?.attributes["agentport.outcome"]).toBe("aborted");
    expect(left?.status?.code).toBe(2);
  });

  it("never sends the key or the prompt", () => {
    const all = receiver.bodies.join("\n");
    expect(all.length).toBeGreaterThan(0);
    expect(all).not.toContain(llm.secret);
    expect(all).not.toContain("zanzibar");
  });

  it("has the upstream call as a child span, and the upstream received its traceparent", () => {
    const parent = requestSpan();
    const upstream = receiver.spans.find(
      (s) => s.kind === CLIENT && s.name === "POST /chat/completions" && s.traceId === parent.traceId,
    );
    expect(upstream).toBeDefined();
    expect(upstream!.traceId).toBe(parent.traceId);
    expect(upstream!.parentSpanId).toBe(parent.spanId);
    expect(upstream!.attributes["http.response.status_code"]).toBe(200);
    const sent = llm.stub.requests[0].headers.traceparent;
    expect(sent).toBe(`00-${parent.traceId}-${upstream!.spanId}-01`);
  });

  it("has a span per store query, named by its statement, and the limiter's Redis calls, under the request", () => {
    const parent = requestSpan();
    const children = receiver.spans.filter((s) => s.traceId === parent.traceId && s.parentSpanId === parent.spanId);
    const queries = children.filter((s) => s.attributes["db.system.name"] === "postgresql");
    expect(queries.length).toBeGreaterThan(0);
    for (const q of queries) expect(q.name).toMatch(/^[A-Z]+( [\w.]+)?$/);
    expect(children.map((s) => s.name)).toContain("redis limiter reserve");
    expect(receiver.spans.some((s) => s.name === "redis limiter settle" && s.traceId === parent.traceId)).toBe(true);
  });
});

describe("tracing configuration", () => {
  const base = { DATA_DIR: "/tmp/agentport-otel-config", JWT_SECRET: "s".repeat(64) };

  it("is off unless an OTLP endpoint is set", () => {
    expect(loadConfig(base).tracing).toBeUndefined();
    expect(
      loadConfig({ ...base, OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318", OTEL_SDK_DISABLED: "true" }).tracing,
    ).toBeUndefined();
    expect(loadConfig({ ...base, OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318/" }).tracing).toEqual({
      tracesUrl: "http://collector:4318/v1/traces",
      protocol: "http/protobuf",
    });
    expect(
      loadConfig({
        ...base,
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "https://otel.example.com/traces",
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      }).tracing,
    ).toEqual({
      tracesUrl: "https://otel.example.com/traces",
      protocol: "http/json",
    });
  });

  it("refuses invalid OTEL settings at start, each named", () => {
    const bad = {
      ...base,
      OTEL_EXPORTER_OTLP_ENDPOINT: "collector:4318",
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "grpc",
      OTEL_TRACES_SAMPLER: "sometimes",
      OTEL_TRACES_SAMPLER_ARG: "2",
      OTEL_EXPORTER_OTLP_HEADERS: "just-a-token",
    };
    let err: unknown;
    try {
      loadConfig(bad);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    const problems = (err as ConfigError).problems;
    for (const name of [
      "OTEL_EXPORTER_OTLP_ENDPOINT",
      "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL",
      "OTEL_TRACES_SAMPLER ",
      "OTEL_TRACES_SAMPLER_ARG",
      "OTEL_EXPORTER_OTLP_HEADERS",
    ]) {
      expect(
        problems.some((p) => p.startsWith(name)),
        name,
      ).toBe(true);
    }
    expect(problems.join("\n")).not.toContain("just-a-token");
  });
});
