/**
 * The legacy HTTP+SSE transport (protocol 2024-11-05) for older clients: GET /mcp/sse opens the
 * session's event stream and names the endpoint to POST messages to (/mcp/messages?sessionId=…).
 */
import type { FastifyInstance } from "fastify";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { Type } from "typebox";
import { mcpSdk } from "../../mcp/sdk.js";
import { RPC, rpcApiError, rpcError } from "./rpc-error.js";
import { tooManyMcpSessions } from "../../errors.js";
import { sessionDeps } from "./session-deps.js";
import { HEARTBEAT_COMMENT } from "../../sse/heartbeat.js";
import { hijackKeepingHeaders } from "./hijack.js";

/** The session a legacy client posts to; the transport refuses a missing one as not found. */
const MessagesQuery = Type.Object({ sessionId: Type.Optional(Type.String({ maxLength: 200 })) });

export default async function sseRoutes(instance: FastifyInstance) {
  // Handlers get their request types from the route schemas.
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  const sessions = app.mcpSessions;
  // An absolute path the client resolves against the stream's URL, under the public URL's path.
  const messagesPath = `${new URL(app.config.publicUrl).pathname.replace(/\/+$/, "")}/mcp/messages`;

  app.get("/sse", async (request, reply) => {
    const { SSEServerTransport, createMcpServer } = await mcpSdk();
    const { keyId, projectId } = request.auth;
    const reservation = sessions.reserve(keyId);
    if (!reservation) {
      return rpcApiError(reply, tooManyMcpSessions(app.config.mcpMaxSessionsPerKey));
    }
    hijackKeepingHeaders(reply);
    reply.raw.setHeader("x-accel-buffering", "no");
    const transport = new SSEServerTransport(messagesPath, reply.raw);
    const server = createMcpServer(sessionDeps(app, request));
    // Comment lines keep idle gateways from cutting a quiet stream; SSE readers skip them.
    const heartbeat = setInterval(() => reply.raw.write(HEARTBEAT_COMMENT), app.config.heartbeatSeconds * 1000);
    heartbeat.unref();
    transport.onclose = () => {
      clearInterval(heartbeat);
      sessions.remove(transport.sessionId, "closed");
    };
    reservation.commit({
      id: transport.sessionId,
      kind: "sse",
      transport,
      keyId,
      projectId,
      close: () => server.close(),
    });
    await server.connect(transport);
    request.log.info({ sessionId: transport.sessionId }, "mcp sse session opened");
  });

  app.post("/messages", { schema: { querystring: MessagesQuery } }, async (request, reply) => {
    const { sessionId } = request.query;
    const session = sessionId ? sessions.get(sessionId) : undefined;
    if (!session || session.kind !== "sse" || session.keyId !== request.auth.keyId) {
      return rpcError(reply, 404, RPC.sessionNotFound, "Session not found");
    }
    const done = sessions.begin(session.id);
    hijackKeepingHeaders(reply);
    reply.raw.on("close", done);
    // The body arrives as text; the transport parses it and answers 400 when it is not JSON-RPC.
    await session.transport.handlePostMessage(request.raw, reply.raw, request.body ?? "");
  });
}
