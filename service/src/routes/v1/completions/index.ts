/**
 * POST /v1/completions: legacy text completions. The `model` selects the agent; an upstream with
 * the API gets the request as sent (text-request.ts), any other agent answers it through chat.
 * One metered run like a chat completion: its request unit and tokens reserved together once the
 * agent is known; a request refused before that still costs its request unit.
 */
import type { FastifyInstance } from "fastify";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { modelNotFound } from "../../../errors.js";
import { responses } from "../../responses.js";
import { jsonText } from "./json.js";
import { CompletionBody, TextCompletion } from "./schema.js";
import { streamText } from "./stream.js";
import { DEFAULT_MAX_TOKENS, textPlan, type TextPlan } from "./text-request.js";

export default async function completionsRoutes(instance: FastifyInstance) {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  app.removeContentTypeParser("text/plain");
  app.post(
    "/completions",
    {
      schema: { body: CompletionBody, response: responses({ 200: TextCompletion }) },
      attachValidation: true,
      config: { meteredRun: true },
    },
    async (request, reply) => {
      const body = request.body;
      let plan: TextPlan;
      try {
        if (request.validationError) throw request.validationError;
        const agent = app.agents.resolve(request.auth.projectId, body.model);
        if (!agent) throw modelNotFound(body.model);
        plan = textPlan(body, agent);
      } catch (err) {
        await app.keyLimits.countRequest(request, reply);
        throw err;
      }
      const { run, headers } = await app.keyLimits.startRun(request.auth, {
        model: plan.agent.modelId,
        messages: plan.chat.messages,
        maxTokens: body.max_tokens ?? (plan.relayed ? undefined : DEFAULT_MAX_TOKENS),
        agentCap: plan.agent.maxCompletionTokens,
      });
      void reply.headers(headers);
      if (body.stream === true)
        return streamText(request, reply, plan, run, body.model, body.stream_options?.include_usage === true);
      return jsonText(request, reply, plan, run, body.model);
    },
  );
}
