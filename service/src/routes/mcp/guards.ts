/**
 * Hooks run on every /mcp request: the Origin check, then the API key (re-verified on each
 * message, so a revoked key stops at once even inside an open session).
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import { invalidApiKey } from "../../errors.js";
import { bearerToken, refusedToken } from "../../plugins/api-key-auth.js";
import { originAllowed } from "../../mcp/origin.js";
import { RPC, rpcApiError, rpcError } from "./rpc-error.js";

export async function checkOrigin(request: FastifyRequest, reply: FastifyReply) {
  const origin = request.headers.origin;
  if (originAllowed(origin, request.headers.host, request.server.config.publicUrl, request.server.config.corsOrigins))
    return;
  request.log.info({ origin }, "mcp request from a foreign origin refused");
  return rpcError(reply, 403, RPC.serverError, `Forbidden: requests from origin '${origin}' are not allowed.`);
}

export async function requireMcpKey(request: FastifyRequest, reply: FastifyReply) {
  const token = bearerToken(request);
  const principal = token ? await request.server.apiKeys.verify(token) : undefined;
  if (principal) {
    request.auth = principal; // the access line names the key (http/access-log.ts)
    return;
  }
  // RFC 6750: no error attribute when no credentials were sent at all.
  reply.header(
    "WWW-Authenticate",
    token === undefined ? 'Bearer realm="agentport"' : 'Bearer realm="agentport", error="invalid_token"',
  );
  return rpcApiError(reply, token === undefined ? invalidApiKey() : refusedToken(token));
}
