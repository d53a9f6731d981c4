/** `Authorization: Bearer <API key>` on every request of a context; 401 `invalid_api_key` otherwise. */
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from "fastify";
import { invalidApiKey, memberTokenNotApiKey, type ApiError } from "../errors.js";
import { KEY_PREFIX, redact, type ApiKeyPrincipal } from "../domain/api-keys.js";

export function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (!header) return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return m ? m[1] : "";
}

/** A JSON Web Token's shape (`eyJ…` header, three base64url parts): a member token, not a key. */
export function isJwtShaped(token: string): boolean {
  return /^eyJ[\w-]*\.[\w-]+\.[\w-]*$/.test(token);
}

/** How a refused token is named back: a key by its redacted hint, anything else as what it is. */
export function refusedToken(token: string): ApiError {
  if (!token) return invalidApiKey("(empty)");
  if (isJwtShaped(token)) return memberTokenNotApiKey();
  if (!token.startsWith(KEY_PREFIX))
    return invalidApiKey(`…${token.slice(-4)}, which does not start with '${KEY_PREFIX}'`);
  return invalidApiKey(redact(token));
}

function refuse(reply: FastifyReply, token: string): Error {
  reply.header("WWW-Authenticate", 'Bearer realm="agentport", error="invalid_token"');
  return refusedToken(token);
}

// The key and project go into the request's access line (http/access-log.ts), which every other
// line of the request joins by its reqId: a second child logger per request cost more than the
// key check itself.
function admit(request: FastifyRequest, principal: ApiKeyPrincipal): void {
  request.auth = principal;
}

/**
 * onRequest hook. Callback style on purpose: a cached key (the usual case) is admitted without
 * a promise or a store query; only an unknown secret waits for the store.
 */
export function requireApiKey(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
  const token = bearerToken(request);
  if (token === undefined) return done(invalidApiKey());
  const keys = request.server.apiKeys;
  const cached = token ? keys.verifyCached(token) : null;
  if (cached) {
    admit(request, cached);
    return done();
  }
  if (cached === null) return done(refuse(reply, token));
  keys.verify(token).then(
    (principal) => {
      if (!principal) return done(refuse(reply, token));
      admit(request, principal);
      done();
    },
    (err: Error) => done(err),
  );
}
