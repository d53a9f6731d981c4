/**
 * The exporters' default protocol, http/protobuf, reaches an OTLP receiver that decodes it (a
 * file of its own: the tracer provider is registered once per process).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLlmTestApp, type LlmTestApp } from "../../helpers/llm-app.js";
import { startOtlpReceiver, type OtlpReceiver } from "./otlp-receiver.js";

describe("traces over OTLP/HTTP, protobuf (the default)", () => {
  let receiver: OtlpReceiver;
  let llm: LlmTestApp;
  let keyId: string;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    llm = await startLlmTestApp([{ id: "echo", kind: "llm", model: "echo" }], {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    });
    keyId = (await llm.t.app.apiKeys.list("default")).data[0].id;
    await llm.client.chat.completions
      .create({
        model: "agentport/echo",
        messages: [{ role: "user", content: "a quokka's confidential diary" }],
        stream: true,
      })
      .then(async (s) => {
        for await (const _ of s);
      });
    await llm.close();
  }, 60_000);
  afterAll(async () => {
    await receiver.close();
  });

  it("sends protobuf with the request span, its upstream child and the traceparent the upstream saw", () => {
    expect(receiver.contentTypes.every((t) => t === "application/x-protobuf")).toBe(true);
    const request = receiver.spans.find((s) => s.name === "POST /v1/chat/completions");
    expect(request?.attributes).toMatchObject({
      "agentport.key_id": keyId,
      "agentport.outcome": "ok",
      "gen_ai.request.model": "agentport/echo",
      "http.response.status_code": 200,
    });
    const upstream = receiver.spans.find((s) => s.name === "POST /chat/completions");
    expect(upstream?.parentSpanId).toBe(request!.spanId);
    expect(llm.stub.requests.at(-1)!.headers.traceparent).toBe(`00-${request!.traceId}-${upstream!.spanId}-01`);
    const all = receiver.bodies.join("\n");
    expect(all).not.toContain(llm.secret);
    expect(all).not.toContain("quokka");
  });
});
