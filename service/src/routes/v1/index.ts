/** Everything under /v1 that an API key opens: one auth hook for the whole context. */
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from "fastify";
import { routeNotFound } from "../../errors.js";
import { sendApiError } from "../../plugins/error-handler.js";
import { bearerToken, isJwtShaped, requireApiKey } from "../../plugins/api-key-auth.js";
import { requireMember } from "../../plugins/member-auth.js";
import modelsRoutes from "./models/index.js";
import chatCompletionsRoutes from "./chat/completions/index.js";
import completionsRoutes from "./completions/index.js";
import filesRoutes from "./files/index.js";
import embeddingsRoutes from "./embeddings/index.js";
import responsesRoutes from "./responses/index.js";

export default async function v1Routes(app: FastifyInstance) {
  // A member token on an unknown path (a mistyped /v1/organization/… one) is checked as a member
  // token by the not-found handler below, so it gets the 404 rather than "not an API key".
  const memberOn404 = (request: FastifyRequest) => request.is404 && isJwtShaped(bearerToken(request) ?? "");
  app.addHook("onRequest", (request, reply, done) =>
    memberOn404(request) ? done() : requireApiKey(request, reply, done),
  );
  app.addHook("onRequest", (request, reply, done) =>
    memberOn404(request) ? done() : app.limitKeyRequests(request, reply, done),
  );
  // An unknown /v1 path still checks the credential first: a revoked key learns nothing but 401.
  // A member token (a mistyped /v1/organization/… path) is checked as one, so it gets the 404.
  const keyOrMember = (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
    const token = bearerToken(request);
    if (token && isJwtShaped(token)) return void requireMember(request).then(() => done(), done);
    requireApiKey(request, reply, done);
  };
  app.setNotFoundHandler({ preHandler: keyOrMember }, async (request, reply) => {
    void sendApiError(reply, routeNotFound(request.method, request.url));
  });
  // Route modules register here, one line each (models, chat completions, files).
  await app.register(modelsRoutes);
  await app.register(chatCompletionsRoutes);
  await app.register(completionsRoutes);
  await app.register(filesRoutes);
  await app.register(embeddingsRoutes);
  await app.register(responsesRoutes);
}
