/** The ask_* tools against llm agents on a local upstream: answers, progress, failures, cancellation. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { agentsFileOf, buildTestApp, type TestApp } from "../../helpers/app.js";
import { bearer, firstText, listen, streamableClient } from "../../helpers/mcp.js";
import { startUpstreamStub, type UpstreamStub } from "../../helpers/upstream-stub.js";

let stub: UpstreamStub;
let t: TestApp;
let client: Client;
beforeAll(async () => {
  stub = await startUpstreamStub();
  const agentsFile = agentsFileOf([
    // "paced": the stub waits between deltas, so each is a progress notification of its own.
    { id: "support.v2:beta", kind: "llm", model: "paced", description: "Answers support questions" },
    { id: "failing", kind: "llm", model: "fail" },
    { id: "hanging", kind: "llm", model: "hang" },
  ]);
  t = await buildTestApp("pglite", {
    AGENTS_FILE: agentsFile,
    LLM_BASE_URL: stub.url,
    LLM_API_KEY: "sk-upstream-secret",
  });
  const base = await listen(t);
  ({ client } = await streamableClient(`${base}/mcp`, bearer((await t.createKey()).secret)));
});
afterAll(async () => {
  await client.close();
  await t.close();
  await stub.close();
});

describe("ask tools for llm agents", () => {
  it("names tools after agent ids in the characters clients accept, and describes them", async () => {
    const { tools } = await client.listTools();
    const tool = tools.find((tl) => tl.name === "ask_support_v2_beta");
    expect(tool?.description).toContain("Answers support questions");
    expect(tool?.annotations?.openWorldHint).toBe(true);
  });

  it("streams the upstream answer as progress notifications and returns it whole", async () => {
    const progress: Array<{ progress: number; message?: string }> = [];
    const result = await client.callTool(
      { name: "ask_support_v2_beta", arguments: { question: "where is my order" } },
      undefined,
      {
        onprogress: (p) => progress.push(p),
      },
    );
    expect(firstText(result)).toBe("echo: where is my order");
    expect(stub.requests.at(-1)!.body.stream).toBe(true);
    expect(progress.length).toBeGreaterThan(1);
    expect(progress.map((p) => p.message).join("")).toBe("echo: where is my order");
    expect(progress.map((p) => p.progress)).toEqual(progress.map((_, i) => i + 1));
  });

  it("asks the upstream for one reply when nobody watches progress, and passes a conversation on", async () => {
    const messages = [
      { role: "user", content: "first" },
      { role: "assistant", content: "echo: first" },
      { role: "user", content: "second" },
    ];
    const result = await client.callTool({ name: "ask_support_v2_beta", arguments: { messages } });
    expect(firstText(result)).toBe("echo: second");
    const sent = stub.requests.at(-1)!.body;
    expect(sent.stream).toBeFalsy();
    expect(sent.messages.slice(-3)).toEqual(messages);
  });

  it("returns an upstream failure as an isError result that leaks nothing", async () => {
    const result = await client.callTool({ name: "ask_failing", arguments: { question: "hi" } });
    expect(result.isError).toBe(true);
    expect(firstText(result)).toMatch(/^Asking "failing" failed: The agent.s upstream model failed/);
    expect(firstText(result)).not.toContain("sk-upstream-secret");
  });

  it("cancels the upstream call when the client cancels the tool call", async () => {
    const before = stub.requests.length;
    const controller = new AbortController();
    const call = client.callTool({ name: "ask_hanging", arguments: { question: "hi" } }, undefined, {
      signal: controller.signal,
      onprogress: () => {},
    });
    while (stub.requests.length === before) await new Promise((r) => setImmediate(r));
    controller.abort();
    await expect(call).rejects.toThrow();
    await stub.requests.at(-1)!.aborted;
  });
});
