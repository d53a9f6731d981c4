/**
 * The JSON reply: one text_completion. A relayed upstream's answer goes out as it came, under our
 * head; a translated one is built from the chat answer's choices (an `llm` agent's upstream chat
 * completion) or the offline agent's text. The run is chat's (run.ts), metered the same way.
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import { ApiError } from "../../../errors.js";
import type { MeteredRun } from "../../../domain/limits/metered-run.js";
import { collect } from "../chat/completions/collect.js";
import { ChatRun } from "../chat/completions/run.js";
import { chatChoices, TextWriter, textFinishReason } from "./text-chunks.js";
import type { TextPlan } from "./text-request.js";

export async function jsonText(
  request: FastifyRequest,
  reply: FastifyReply,
  plan: TextPlan,
  metered: MeteredRun,
  model: string,
) {
  const run = new ChatRun(request, plan.agent, plan.chat, metered, false);
  const onClose = () => reply.raw.writableFinished || run.stop.stop();
  reply.raw.once("close", onClose);
  try {
    const result = await collect(run.events, metered);
    run.end("ok");
    const text = new TextWriter(model);
    let body: string;
    if (plan.relayed) body = text.relay(result.relayed ?? "");
    else if (result.relayed !== undefined) {
      const { choices, usage } = chatChoices(result.relayed, true);
      body = text.choices(choices, usage ?? result.usage);
    } else {
      const choice = { text: result.content, index: 0, finish_reason: textFinishReason(result.finishReason) };
      body = text.choices([choice], result.usage);
    }
    return reply.type("application/json").send(body);
  } catch (err) {
    run.end(run.stop.aborted ? "client_closed" : "error");
    const shutdown = run.shutdownError();
    if (shutdown) throw shutdown;
    if (run.stop.aborted && !(err instanceof ApiError)) {
      request.log.info({ agent: plan.agent.id }, "client closed the request");
      return reply.hijack();
    }
    throw err;
  } finally {
    reply.raw.off("close", onClose);
  }
}
