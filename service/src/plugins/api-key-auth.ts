/** `Authorization: Bearer <API key>` on every request of a context; 401 `invalid_api_key` otherwise. */
import type { FastifyReply, FastifyRequest } from "fastify";
import { invalidApiKey } from "../errors.js";
import { redact } from "../domain/api-keys.js";

export function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (!header) return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return m ? m[1] : "";
}

export async function requireApiKey(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const token = bearerToken(request);
  if (token === undefined) throw invalidApiKey();
  const principal = token ? await request.server.apiKeys.verify(token) : undefined;
  if (!principal) {
    reply.header("WWW-Authenticate", 'Bearer realm="agentport", error="invalid_token"');
    throw invalidApiKey(token ? redact(token) : "(empty)");
  }
  request.auth = principal;
  request.log = request.log.child({ keyId: principal.keyId, projectId: principal.projectId });
}
