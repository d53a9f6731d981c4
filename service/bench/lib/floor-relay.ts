/**
 * The spec floor's relay handler (chat-servers.ts): the request forwarded to the upstream as
 * parsed, and the answer passed back as it came, after the JSON check the service owes every
 * relayed answer (the JSON answer parsed whole; each SSE event's data parsed as it passes). The
 * relay ceiling (relay-ceiling.ts) runs the same handler behind the service's own pipeline.
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import { Agent, request, type Dispatcher } from "undici";
import { SseReader } from "../../src/sse/sse-reader.js";

/**
 * The upstream's SSE bytes relayed as they come, each event's data parsed first: the relay's JSON
 * check, done the cheapest way measured (a hijacked reply written from the body's data events;
 * a Transform piped into Fastify's send cost about 35 µs a stream more).
 */
function relayChecked(reply: FastifyReply, res: Dispatcher.ResponseData): void {
  const reader = new SseReader();
  reply.hijack();
  // The headers the reply holds (its type, the request id) go with the raw response.
  for (const [name, value] of Object.entries(reply.getHeaders()))
    if (value !== undefined) reply.raw.setHeader(name, value);
  reply.raw.writeHead(res.statusCode);
  res.body.on("data", (chunk: Buffer) => {
    try {
      for (const item of reader.push(chunk)) if (item.kind === "data" && item.data !== "[DONE]") JSON.parse(item.data);
    } catch {
      res.body.destroy();
      return void reply.raw.destroy();
    }
    reply.raw.write(chunk);
  });
  res.body.on("end", () => reply.raw.end());
}

export type RelayHandler = (req: FastifyRequest, reply: FastifyReply) => Promise<unknown>;

/** Forwards to `${upstream}/chat/completions` on a keep-alive pool; `checkAnswers` false passes the body through unread. */
export function floorRelay(upstream: string, checkAnswers = true): RelayHandler {
  const pool = new Agent({ keepAliveTimeout: 30_000 });
  return async (req, reply) => {
    const res = await request(`${upstream}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(req.body),
      dispatcher: pool,
    });
    const type = String(res.headers["content-type"]);
    reply.code(res.statusCode).type(type);
    if (!checkAnswers) return reply.send(res.body);
    if (type.startsWith("text/event-stream")) return relayChecked(reply, res);
    const answer = await res.body.text();
    JSON.parse(answer);
    return reply.send(answer);
  };
}
