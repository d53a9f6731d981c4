/**
 * Streamable HTTP (protocol 2025-06-18; 2025-03-26 and 2025-11-25 clients too) on one endpoint:
 * POST carries one JSON-RPC message or batch, GET opens the session's server-message stream,
 * DELETE ends the session. Each session has its own SDK transport and server; this file routes
 * requests to them by `Mcp-Session-Id` and bounds how many a key may open.
 */
import { randomUUID } from "node:crypto";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { mcpSdk, type McpSdk } from "../../mcp/sdk.js";
import type { McpSession } from "../../mcp/session-registry.js";
import { RPC, rpcApiError, rpcError } from "./rpc-error.js";
import { tooManyMcpSessions } from "../../errors.js";
import { sessionDeps } from "./session-deps.js";
import { cancelOnDisconnect } from "./cancel-on-disconnect.js";
import { hijackKeepingHeaders } from "./hijack.js";

type StreamableSession = Extract<McpSession, { kind: "streamable" }>;

const isJsonContentType = (ct: string | undefined) => /^application\/json\s*(;|$)/i.test(ct ?? "");

function parseJson(body: unknown): { ok: true; value: unknown } | { ok: false } {
  if (typeof body !== "string") return { ok: false };
  try {
    return { ok: true, value: JSON.parse(body) };
  } catch {
    return { ok: false };
  }
}

/** Largest JSON-RPC batch accepted (clients of protocol versions before 2025-06-18 may batch). */
export const MAX_BATCH = 16;

const isInitialize = ({ isInitializeRequest }: McpSdk, message: unknown) =>
  Array.isArray(message) ? message.some((m) => isInitializeRequest(m)) : isInitializeRequest(message);

/** The caller's session, or a refusal already sent. Another key's session is "not found" too. */
function sessionFor(
  sessions: FastifyInstance["mcpSessions"],
  request: FastifyRequest,
  reply: FastifyReply,
): StreamableSession | undefined {
  const id = request.headers["mcp-session-id"];
  if (typeof id !== "string" || !id) {
    void rpcError(reply, 400, RPC.serverError, "Bad Request: Mcp-Session-Id header is required");
    return undefined;
  }
  const session = sessions.get(id);
  if (!session || session.kind !== "streamable" || session.keyId !== request.auth.keyId) {
    void rpcError(reply, 404, RPC.sessionNotFound, "Session not found");
    return undefined;
  }
  return session;
}

/** Hands the raw request to the SDK transport; Fastify sends nothing more. */
async function forward(
  request: FastifyRequest,
  reply: FastifyReply,
  transport: StreamableHTTPServerTransport,
  body?: unknown,
) {
  hijackKeepingHeaders(reply);
  try {
    await transport.handleRequest(request.raw, reply.raw, body);
  } catch (err) {
    request.log.error({ err }, "mcp transport failed");
    if (!reply.raw.headersSent) {
      reply.raw.writeHead(500, { "content-type": "application/json" });
      reply.raw.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32603, message: "Internal error" }, id: null }));
    } else reply.raw.end();
  }
}

/** A POST's JSON-RPC message, after the checks the spec asks for in the SDK's order; or a refusal already sent. */
function postedMessage(request: FastifyRequest, reply: FastifyReply): { value: unknown } | undefined {
  const refuse = (status: number, code: number, message: string) => {
    void rpcError(reply, status, code, message);
    return undefined;
  };
  const accept = request.headers.accept ?? "";
  if (!accept.includes("application/json") || !accept.includes("text/event-stream")) {
    return refuse(
      406,
      RPC.serverError,
      "Not Acceptable: Client must accept both application/json and text/event-stream",
    );
  }
  if (!isJsonContentType(request.headers["content-type"])) {
    return refuse(415, RPC.serverError, "Unsupported Media Type: Content-Type must be application/json");
  }
  const parsed = parseJson(request.body);
  if (!parsed.ok) return refuse(400, RPC.parseError, "Parse error: Invalid JSON");
  // JSON-RPC 2.0: an empty batch is an invalid request (the transport would accept it with 202).
  if (Array.isArray(parsed.value) && parsed.value.length === 0)
    return refuse(400, RPC.invalidRequest, "Invalid Request: empty batch");
  // Batches left the protocol in 2025-06-18; older clients may still send small ones. A big
  // one would run its tool calls back to back on one request: bounded like any other input.
  if (Array.isArray(parsed.value) && parsed.value.length > MAX_BATCH) {
    return refuse(
      400,
      RPC.invalidRequest,
      `Invalid Request: a batch may hold at most ${MAX_BATCH} messages (got ${parsed.value.length})`,
    );
  }
  return { value: parsed.value };
}

/** An initialize without a session: a new session with its own transport and server, within the key's session limit. */
async function openSession(
  sdk: McpSdk,
  app: FastifyInstance,
  request: FastifyRequest,
  reply: FastifyReply,
  message: unknown,
) {
  const sessions = app.mcpSessions;
  const { keyId, projectId } = request.auth;
  const reservation = sessions.reserve(keyId);
  if (!reservation) {
    const max = app.config.mcpMaxSessionsPerKey;
    request.log.info({ max }, "mcp session refused: key at its session limit");
    return rpcApiError(reply, tooManyMcpSessions(max));
  }
  const server = sdk.createMcpServer(sessionDeps(app, request));
  const transport: StreamableHTTPServerTransport = new sdk.StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    keepAliveMs: app.config.heartbeatSeconds * 1000,
    onsessioninitialized: (id) => {
      reservation.commit({ id, kind: "streamable", transport, keyId, projectId, close: () => server.close() });
      request.log.info({ sessionId: id }, "mcp session opened");
    },
  });
  transport.onclose = () => {
    if (transport.sessionId) sessions.remove(transport.sessionId, "closed");
  };
  await server.connect(transport);
  await forward(request, reply, transport, message);
  if (!transport.sessionId) {
    // The transport refused the initialize: nothing was opened.
    reservation.release();
    await server.close();
  }
}

export default async function streamableRoutes(app: FastifyInstance) {
  const sessions = app.mcpSessions;

  app.post("/", async (request, reply) => {
    const message = postedMessage(request, reply);
    if (!message) return reply;
    if (request.headers["mcp-session-id"] !== undefined) {
      const session = sessionFor(sessions, request, reply);
      if (!session) return reply;
      const done = sessions.begin(session.id);
      reply.raw.on("close", done);
      cancelOnDisconnect(reply.raw, session.transport, message.value);
      return forward(request, reply, session.transport, message.value);
    }
    const sdk = await mcpSdk();
    if (!isInitialize(sdk, message.value)) {
      return rpcError(reply, 400, RPC.serverError, "Bad Request: Mcp-Session-Id header is required");
    }
    return openSession(sdk, app, request, reply, message.value);
  });

  app.get("/", async (request, reply) => {
    const session = sessionFor(sessions, request, reply);
    if (!session) return reply;
    sessions.touch(session.id);
    return forward(request, reply, session.transport);
  });

  app.delete("/", async (request, reply) => {
    const session = sessionFor(sessions, request, reply);
    if (!session) return reply;
    return forward(request, reply, session.transport);
  });
}
