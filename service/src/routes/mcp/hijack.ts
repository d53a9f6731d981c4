/**
 * MCP transports write to the raw response. A hijacked reply never sends the headers our hooks
 * put on it (CORS for allowed origins, nosniff, the request id, rate-limit headers), so they are
 * copied onto the raw response first: browser MCP clients on allowed origins need them.
 */
import type { FastifyReply } from "fastify";

export function hijackKeepingHeaders(reply: FastifyReply): void {
  const headers = reply.getHeaders();
  reply.hijack();
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) reply.raw.setHeader(name, value);
}
