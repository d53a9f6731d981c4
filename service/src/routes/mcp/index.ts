/**
 * /mcp: the project's agents and files as MCP tools, with the same API key as /v1.
 * Bodies reach the transports as text so that malformed JSON is answered the JSON-RPC way,
 * and every refusal in this context is a JSON-RPC error body.
 */
import type { FastifyError, FastifyInstance } from "fastify";
import { invalidJson } from "../../errors.js";
import { sendAfterBody } from "../../http/discard-body.js";
import { jsonDepthExceeds, MAX_DEPTH } from "../../http/json-body.js";
import { toApiError } from "../../plugins/error-handler.js";
import { checkOrigin, requireMcpKey } from "./guards.js";
import { RPC, rpcError } from "./rpc-error.js";
import sseRoutes from "./sse.js";
import streamableRoutes from "./streamable.js";

export default async function mcpRoutes(app: FastifyInstance) {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "string" }, (_request, body, done) =>
    jsonDepthExceeds(body as string, MAX_DEPTH)
      ? done(invalidJson(`nesting deeper than ${MAX_DEPTH} levels`), undefined)
      : done(null, body),
  );
  app.addHook("onRequest", checkOrigin);
  app.addHook("onRequest", requireMcpKey);
  app.addHook("onRequest", app.limitKeyRequests);
  app.setErrorHandler((err: FastifyError, request, reply) => {
    const apiError = toApiError(err, request.id, app.config.jsonBodyLimit);
    if (apiError.statusCode >= 500) request.log.error({ err }, "mcp request failed");
    if (reply.sent || reply.raw.headersSent) return;
    if (apiError.headers) reply.headers(apiError.headers);
    sendAfterBody(request, reply, apiError.statusCode, () =>
      rpcError(
        reply,
        apiError.statusCode,
        apiError.statusCode === 400 ? RPC.parseError : RPC.serverError,
        apiError.message,
      ),
    );
    return reply;
  });

  await app.register(streamableRoutes);
  await app.register(sseRoutes);
}
