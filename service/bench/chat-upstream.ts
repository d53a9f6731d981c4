/**
 * Child process: a fast local OpenAI-compatible upstream for the bench. JSON or SSE (20 content
 * deltas); a stream's first content delta goes out in its own write, the rest a tick later.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

const TOKENS = Array.from({ length: 20 }, (_, i) => (i === 0 ? "Lorem" : " ipsum"));
const base = { id: "chatcmpl-upstream", created: 1, model: "bench" };
const usage = { prompt_tokens: 12, completion_tokens: 20, total_tokens: 32 };
const sse = (obj: object) => `data: ${JSON.stringify({ ...base, object: "chat.completion.chunk", ...obj })}\n\n`;
const delta = (d: object, finish: string | null = null) =>
  sse({ choices: [{ index: 0, delta: d, finish_reason: finish }] });

const JSON_BODY = JSON.stringify({
  ...base,
  object: "chat.completion",
  choices: [{ index: 0, message: { role: "assistant", content: TOKENS.join("") }, finish_reason: "stop" }],
  usage,
});
const FIRST = delta({ role: "assistant", content: "" }) + delta({ content: TOKENS[0] });
const REST =
  TOKENS.slice(1)
    .map((t) => delta({ content: t }))
    .join("") +
  delta({}, "stop") +
  sse({ choices: [], usage }) +
  "data: [DONE]\n\n";

const server = createServer((req, res) => {
  const parts: Buffer[] = [];
  req.on("data", (p: Buffer) => parts.push(p));
  req.on("end", () => {
    const { stream } = JSON.parse(Buffer.concat(parts).toString("utf8")) as { stream?: boolean };
    if (!stream) {
      res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(JSON_BODY) });
      res.end(JSON_BODY);
      return;
    }
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    res.write(FIRST);
    setImmediate(() => res.end(REST));
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, "127.0.0.1", () => {
  process.send!({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1` });
});
process.on("SIGTERM", () => process.exit(0));
