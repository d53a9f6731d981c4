/**
 * Transport-level refusals as MCP clients expect them: an HTTP status plus a JSON-RPC error body
 * with `id: null` (the same shape the SDK's transport uses for its own refusals).
 */
import type { FastifyReply } from "fastify";
import type { ApiError } from "../../errors.js";

/** JSON-RPC codes: the standard parse/invalid-request codes, -32000/-32001 as the SDK uses them. */
export const RPC = {
  parseError: -32700,
  invalidRequest: -32600,
  serverError: -32000,
  sessionNotFound: -32001,
} as const;

export function rpcError(
  reply: FastifyReply,
  status: number,
  code: number,
  message: string,
  data?: Record<string, unknown>,
) {
  return reply
    .code(status)
    .type("application/json")
    .send({ jsonrpc: "2.0", error: { code, message, ...(data ? { data } : {}) }, id: null });
}

/** An API error (the registry's message, status and code) as a transport-level refusal. */
export function rpcApiError(reply: FastifyReply, apiError: ApiError) {
  if (apiError.headers) reply.headers(apiError.headers);
  return rpcError(reply, apiError.statusCode, RPC.serverError, apiError.message, {
    code: apiError.code,
    type: apiError.type,
  });
}
