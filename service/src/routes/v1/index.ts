/** Everything under /v1 that an API key opens: one auth hook for the whole context. */
import type { FastifyInstance } from "fastify";
import { routeNotFound } from "../../errors.js";
import { sendApiError } from "../../plugins/error-handler.js";
import { requireApiKey } from "../../plugins/api-key-auth.js";
import modelsRoutes from "./models/index.js";
import chatCompletionsRoutes from "./chat/completions/index.js";
import completionsRoutes from "./completions/index.js";
import filesRoutes from "./files/index.js";
import embeddingsRoutes from "./embeddings/index.js";
import responsesRoutes from "./responses/index.js";

export default async function v1Routes(app: FastifyInstance) {
  app.addHook("onRequest", requireApiKey);
  app.addHook("onRequest", app.limitKeyRequests);
  // An unknown /v1 path still checks the key first: a revoked key learns nothing but 401.
  app.setNotFoundHandler({ preHandler: requireApiKey }, async (request, reply) => {
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
