/**
 * A relayed stream holds its upstream back while its client reads nothing: the relay stops reading
 * the upstream's body when the client's socket is full, so a fast upstream and a stalled client
 * cost bounded memory, and every chunk still arrives, in order, once the client reads again.
 */
import { once } from "node:events";
import { createServer, request, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentsFileOf, buildTestApp, type TestApp } from "../../helpers/app.js";
import { listen } from "../../helpers/openai-client.js";
import { SseReader } from "../../../service/src/sse/sse-reader.js";

const CHUNKS = 48_000;
const TEXT = "x".repeat(1000);
const chunk = (i: number) =>
  `data: {"id":"up","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"${i} ${TEXT}"},"finish_reason":null}]}\n\n`;
const TOTAL_BYTES = CHUNKS * Buffer.byteLength(chunk(CHUNKS));

/** An upstream that writes its whole answer as fast as its socket takes it. */
function fastUpstream() {
  let written = 0;
  let finished = false;
  const server = createServer((req, res) => {
    req.resume();
    const answer = async () => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      for (let i = 0; i < CHUNKS; i++) {
        const text = chunk(i);
        written += text.length;
        if (!res.write(text)) await once(res, "drain");
      }
      res.end(
        `data: {"id":"up","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n`,
      );
      finished = true;
    };
    // A client gone midway ends the loop with the socket's error: nothing to answer then.
    req.on("end", () => void answer().catch(() => {}));
  });
  return {
    server,
    written: () => written,
    finished: () => finished,
  };
}

describe("a relayed stream and a client that stops reading", () => {
  let t: TestApp;
  let upstream: ReturnType<typeof fastUpstream>;
  let baseURL: string;
  let secret: string;
  beforeAll(async () => {
    upstream = fastUpstream();
    upstream.server.listen(0, "127.0.0.1");
    await once(upstream.server, "listening");
    const { port } = upstream.server.address() as AddressInfo;
    t = await buildTestApp("pglite", {
      AGENTS_FILE: agentsFileOf([{ id: "fast", kind: "llm", model: "m" }]),
      LLM_BASE_URL: `http://127.0.0.1:${port}/v1`,
    });
    baseURL = await listen(t.app);
    secret = (await t.createKey()).secret;
  });
  afterAll(async () => {
    await t.close();
    upstream.server.closeAllConnections();
    upstream.server.close();
  });

  it("holds the upstream back while the client reads nothing, then relays every chunk in order", async () => {
    const body = JSON.stringify({ model: "agentport/fast", messages: [{ role: "user", content: "go" }], stream: true });
    const req = request(`${baseURL}/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
    });
    req.end(body);
    const [res] = (await once(req, "response")) as [IncomingMessage];
    expect(res.statusCode).toBe(200);
    res.pause();
    // The upstream must come to a stop while the client reads nothing (what it wrote unchanged for
    // half a second), short of its whole answer: not relayed into memory. Bounded: 30 s at most.
    let before = -1;
    for (let waited = 0; upstream.written() !== before && !upstream.finished() && waited < 30_000; waited += 500) {
      before = upstream.written();
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    expect(upstream.finished()).toBe(false);
    expect(upstream.written()).toBe(before);
    expect(upstream.written()).toBeLessThan(TOTAL_BYTES / 2);

    const reader = new SseReader();
    const contents: string[] = [];
    let done = false;
    res.setEncoding("utf8");
    res.on("data", (text: string) => {
      for (const item of reader.push(text)) {
        if (item.kind !== "data") continue;
        if (item.data === "[DONE]") done = true;
        else {
          const content = (JSON.parse(item.data) as { choices: { delta: { content?: string } }[] }).choices[0]?.delta
            .content;
          if (content) contents.push(content.slice(0, content.indexOf(" ")));
        }
      }
    });
    res.resume();
    await once(res, "end");
    expect(done).toBe(true);
    expect(contents).toHaveLength(CHUNKS);
    expect(contents.every((n, i) => n === String(i))).toBe(true);
  }, 60_000);
});
