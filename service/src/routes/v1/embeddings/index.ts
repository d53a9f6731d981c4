/**
 * POST /v1/embeddings: the `model` selects an `llm` agent declared with `embeddings: true`; its
 * upstream embeds the input. One metered run (plugins/key-limits.ts): the input's estimate is
 * reserved as its prompt tokens, no completion, settled to the upstream's usage.
 */
import type { FastifyInstance } from "fastify";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { ApiError, modelNotFound, notAnEmbeddingModel, unavailable } from "../../../errors.js";
import { tokensOfText } from "../../../domain/limits/estimate.js";
import { tokenCounter } from "../../../domain/agents/tokens.js";
import { agentContext } from "../chat/completions/agent-context.js";
import { Stopper } from "../chat/completions/stop-signal.js";
import { responses } from "../../responses.js";
import { EmbeddingList, EmbeddingsBody } from "./schema.js";

/** The input's tokens: counted for token arrays, estimated from its text's scripts for text (estimate.ts). */
function inputTokens(input: EmbeddingsBody["input"]): number {
  const items: (string | number[] | number)[] = typeof input === "string" ? [input] : input;
  if (typeof items[0] === "number") return items.length;
  let tokens = 0;
  for (const item of items) tokens += typeof item === "string" ? tokensOfText(item) : (item as number[]).length;
  return tokens;
}

/** The input's tokens by the tokenizer (its text's first slice exact, tokens.ts), for a run the estimate finds too large. */
async function exactInputTokens(input: EmbeddingsBody["input"]): Promise<number> {
  const items: (string | number[] | number)[] = typeof input === "string" ? [input] : input;
  const texts = items.filter((item) => typeof item === "string");
  const arrays = items.length - texts.length;
  if (typeof items[0] === "number") return items.length;
  const counted = texts.length ? await (await tokenCounter()).large(texts.join(" ")) : 0;
  let tokens = 0;
  if (arrays) for (const item of items) if (typeof item !== "string") tokens += (item as number[]).length;
  return counted + tokens;
}

export default async function embeddingsRoutes(instance: FastifyInstance) {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  app.removeContentTypeParser("text/plain");
  app.post(
    "/embeddings",
    {
      schema: { body: EmbeddingsBody, response: responses({ 200: EmbeddingList }) },
      attachValidation: true,
      config: { meteredRun: true },
    },
    async (request, reply) => {
      const { projectId } = request.auth;
      const body = request.body;
      let agent;
      try {
        if (request.validationError) throw request.validationError;
        agent = app.agents.resolve(projectId, body.model);
        if (!agent) throw modelNotFound(body.model);
        if (!agent.embed) {
          const embedders = app.agents
            .list(projectId)
            .filter((a) => app.agents.resolve(projectId, a.modelId)?.embed !== undefined)
            .map((a) => a.modelId);
          throw notAnEmbeddingModel(body.model, agent.kind, embedders);
        }
      } catch (err) {
        await app.keyLimits.countRequest(request, reply);
        throw err;
      }
      const promptTokens = inputTokens(body.input);
      const { run, headers } = await app.keyLimits.startRun(request.auth, {
        model: agent.modelId,
        messages: [],
        maxTokens: 0,
        promptTokens,
        exactPrompt: () => exactInputTokens(body.input),
      });
      void reply.headers(headers);
      // A client that leaves, or the shutdown deadline, aborts the upstream call (as for chat).
      const stop = new Stopper(app.drainDeadline);
      const onClose = () => reply.raw.writableFinished || stop.stop();
      reply.raw.once("close", onClose);
      try {
        const answer = await agent.embed(body, agentContext(request, stop));
        const prompt = answer.promptTokens ?? promptTokens;
        run.saw({ type: "usage", promptTokens: prompt, completionTokens: 0 });
        run.end("ok", false);
        return {
          object: "list" as const,
          data: answer.data,
          model: body.model,
          usage: { prompt_tokens: prompt, total_tokens: prompt },
        };
      } catch (err) {
        run.end(stop.aborted ? "client_closed" : "error", false);
        if (app.drainDeadline.aborted) throw unavailable("The server is shutting down; retry the request.");
        if (stop.aborted && !(err instanceof ApiError)) {
          request.log.info({ agent: agent.id }, "client closed the request");
          return reply.hijack();
        }
        throw err;
      } finally {
        reply.raw.off("close", onClose);
        stop.release();
      }
    },
  );
}
