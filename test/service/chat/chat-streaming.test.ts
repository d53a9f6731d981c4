import { writeFileSync, mkdtempSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FastifyInstance } from "fastify";
import { buildApp } from "../../../service/src/app.js";
import { loadConfig } from "../../../service/src/config.js";
import { openTestStore, type TestStore } from "../../helpers/store.js";
import { listen, openaiClient } from "../../helpers/openai-client.js";

// A slow synthetic agent: silent before its first token, paced after, with heartbeats far more frequent.
const AGENTS = `agents:
  - id: slow
    kind: synthetic
    tokens: 3
    silence_ms: 400
    interval_ms: 150
  - id: unpaced
    kind: synthetic
    tokens: 150
`;

describe("SSE streaming", () => {
  let app: FastifyInstance;
  let store: TestStore;
  let baseURL: string;
  let secret: string;
  const deadline = new AbortController();
  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), "agentport-sse-"));
    writeFileSync(join(dir, "agents.yaml"), AGENTS);
    const config = loadConfig({
      DATA_DIR: dir,
      JWT_SECRET: "x".repeat(64),
      AGENTS_FILE: join(dir, "agents.yaml"),
      HEARTBEAT_SECONDS: "0.05",
    });
    store = await openTestStore("pglite");
    app = await buildApp({ config, db: store.db, logger: false, drainDeadline: deadline.signal });
    baseURL = await listen(app);
    secret = (await app.apiKeys.create({ projectId: "default", name: "sse", createdBy: "test" })).secret;
  });
  afterAll(async () => {
    await app.close();
    await store.drop();
  });

  const open = (model: string) =>
    fetch(`${baseURL}/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
      body: JSON.stringify({ model, messages: [{ role: "user", content: "hi" }], stream: true }),
    });

  it("streams an unpaced agent's tokens one delta each, in order, the same text as its JSON answer", async () => {
    const client = openaiClient(baseURL, secret);
    const deltas: string[] = [];
    const stream = await client.chat.completions.create({
      model: "agentport/unpaced",
      messages: [{ role: "user", content: "hi" }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let completionTokens = 0;
    for await (const chunk of stream) {
      const content = chunk.choices[0]?.delta.content;
      if (content) deltas.push(content);
      if (chunk.usage) completionTokens = chunk.usage.completion_tokens;
    }
    const whole = await client.chat.completions.create({
      model: "agentport/unpaced",
      messages: [{ role: "user", content: "hi" }],
    });
    expect(deltas).toHaveLength(150);
    expect(completionTokens).toBe(150);
    expect(deltas.join("")).toBe(whole.choices[0].message.content);
    expect(deltas.slice(62, 65)).toEqual([" dolor", " sit", " amet,"]); // across the first hand-over of 64 (tokens 0–63)
  });

  it("sends the headers at once and heartbeats before the first token and between tokens", async () => {
    const res = await open("agentport/slow");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/event-stream");
    expect(res.headers.get("cache-control")).toBe("no-cache");
    expect(res.headers.get("x-accel-buffering")).toBe("no");
    expect(res.headers.get("x-request-id")).toMatch(/^req_/);
    const events = (await res.text()).split("\n\n").filter(Boolean);
    const firstContent = events.findIndex((e) => e.includes('"content":"Lorem"'));
    expect(events[0]).toContain('"delta":{"role":"assistant","content":""}');
    expect(events.slice(1, firstContent)).toContain(": keep-alive");
    expect(events.slice(firstContent + 1, -3)).toContain(": keep-alive");
    expect(events.at(-1)).toBe("data: [DONE]");
  });

  it("the openai client reads a stream with heartbeats unharmed", async () => {
    const client = openaiClient(baseURL, secret);
    const final = await client.chat.completions
      .stream({ model: "agentport/slow", messages: [{ role: "user", content: "hi" }] })
      .finalChatCompletion();
    expect(final.choices[0].message.content).toBe("Lorem ipsum dolor");
  });

  it("streams still open when the shutdown deadline passes end with an error event", async () => {
    const res = await open("agentport/slow");
    const reader = res.body!.getReader();
    await reader.read();
    deadline.abort();
    let text = "";
    for (let r = await reader.read(); !r.done; r = await reader.read()) text += new TextDecoder().decode(r.value);
    const last = text
      .split("\n\n")
      .filter((e) => e.startsWith("data: "))
      .at(-1)!;
    expect(JSON.parse(last.slice(6))).toEqual({
      error: {
        message: expect.stringContaining("shutting down"),
        type: "server_error",
        param: null,
        code: "service_unavailable",
      },
    });
  });
});
