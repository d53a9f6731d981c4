/**
 * CORS for browser clients on other sites (@fastify/cors): only the origins in CORS_ORIGINS, none
 * by default. A preflight is answered before any key check (browsers send it without
 * credentials); the real request still needs its key. Exposed headers are those a client reads:
 * the request id, OpenAI's rate-limit headers, Retry-After and the MCP session id.
 */
import cors from "@fastify/cors";
import fp from "fastify-plugin";

export const CORS_EXPOSED_HEADERS = [
  "x-request-id",
  "x-ratelimit-limit-requests",
  "x-ratelimit-remaining-requests",
  "x-ratelimit-reset-requests",
  "x-ratelimit-limit-tokens",
  "x-ratelimit-remaining-tokens",
  "x-ratelimit-reset-tokens",
  "retry-after",
  "mcp-session-id",
];

export default fp(
  async (app) => {
    const allowed = app.config.corsOrigins;
    if (allowed.length === 0) return;
    await app.register(cors, {
      origin: allowed,
      methods: ["GET", "HEAD", "POST", "DELETE", "OPTIONS"],
      allowedHeaders: [
        "authorization",
        "content-type",
        "x-request-id",
        "mcp-session-id",
        "mcp-protocol-version",
        "last-event-id",
        "range",
        "if-range",
      ],
      exposedHeaders: CORS_EXPOSED_HEADERS,
      maxAge: 600,
      // Preflights are answered here, before the routes' key checks run.
      hook: "onRequest",
    });
  },
  { name: "cors" },
);
