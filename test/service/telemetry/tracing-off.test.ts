/** Without an OTLP endpoint nothing is traced: the store is not wrapped and no traceparent goes upstream. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLlmTestApp, type LlmTestApp } from "../../helpers/llm-app.js";

describe("tracing off", () => {
  let llm: LlmTestApp;
  beforeAll(async () => {
    llm = await startLlmTestApp([{ id: "echo", kind: "llm", model: "echo" }]);
  }, 60_000);
  afterAll(async () => {
    await llm.close();
  });

  it("leaves the store as it is and sends no traceparent upstream", async () => {
    expect(llm.t.config.tracing).toBeUndefined();
    expect(llm.t.app.db).toBe(llm.t.store.db);
    await llm.client.chat.completions.create({ model: "agentport/echo", messages: [{ role: "user", content: "hi" }] });
    expect(llm.stub.requests.at(-1)!.headers.traceparent).toBeUndefined();
  });
});
