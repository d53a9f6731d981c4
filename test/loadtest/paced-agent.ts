/**
 * A paced OpenAI-compatible agent on loopback whose capacity is set by a concurrency limit: at
 * most `limit` streams are served at once, each a prefill then `tokens` tokens one `intervalMs`
 * apart; the rest wait their turn before their first token. Its capacity is limit ÷ service time.
 */
import { createServer, type Server } from "node:http";
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";

export interface PacedAgent {
  url: string;
  model: string;
  /** Streams served per second at most. */
  capacity: number;
  close(): Promise<void>;
}

export async function startPacedAgent(opts: { limit: number; prefillMs: number; tokens: number; intervalMs: number }) {
  const model = "paced-limited";
  let active = 0;
  const waiting: Array<() => void> = [];
  const acquire = async () => {
    if (active < opts.limit) return void active++;
    await new Promise<void>((resolve) => waiting.push(resolve));
  };
  // A freed slot goes straight to the next in line.
  const release = () => (waiting.length ? waiting.shift()!() : void active--);
  let n = 0;
  const server: Server = createServer((req, res) => {
    if (req.url === "/v1/models") {
      res.writeHead(200, { "content-type": "application/json" });
      return res.end(JSON.stringify({ object: "list", data: [{ id: model, object: "model" }] }));
    }
    void (async () => {
      for await (const _ of req);
      await acquire();
      try {
        const id = `chatcmpl-${++n}`;
        const chunk = (delta: object, finish: string | null = null) =>
          `data: ${JSON.stringify({ id, object: "chat.completion.chunk", model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
        res.writeHead(200, { "content-type": "text/event-stream" });
        await sleep(opts.prefillMs);
        res.write(chunk({ role: "assistant", content: "" }));
        for (let i = 0; i < opts.tokens; i++) {
          if (i > 0) await sleep(opts.intervalMs);
          res.write(chunk({ content: " tok" }));
        }
        res.write(chunk({}, "stop"));
        res.write(
          `data: ${JSON.stringify({ id, object: "chat.completion.chunk", model, choices: [], usage: { prompt_tokens: 9, completion_tokens: opts.tokens, total_tokens: 9 + opts.tokens } })}\n\n`,
        );
        res.end("data: [DONE]\n\n");
      } finally {
        release();
      }
    })();
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const serviceMs = opts.prefillMs + (opts.tokens - 1) * opts.intervalMs;
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    model,
    capacity: (opts.limit * 1000) / serviceMs,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, "close");
    },
  } satisfies PacedAgent;
}
