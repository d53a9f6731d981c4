/**
 * The streaming reply: text_completion chunks as OpenAI streams them (the same shape as the whole
 * answer, `finish_reason` null until the last), the usage chunk (no choices) when asked, [DONE].
 * A relayed upstream's chunks go out as they came, under our head; a translated chat answer's
 * deltas become text chunks. A failure after the headers is an `error` event, as chat's.
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import { ApiError, internalError } from "../../../errors.js";
import type { AgentEvent } from "../../../domain/agents/types.js";
import type { MeteredRun } from "../../../domain/limits/metered-run.js";
import type { ChatOutcome } from "../../../plugins/metrics.js";
import { SseWriter } from "../../../sse/sse-writer.js";
import { ChatRun } from "../chat/completions/run.js";
import { usageOf, type Usage } from "../chat/completions/usage.js";
import { chatChoices, TextWriter, textFinishReason } from "./text-chunks.js";
import type { TextPlan } from "./text-request.js";

/** The SSE payloads one agent event becomes. */
function payloads(event: AgentEvent, plan: TextPlan, text: TextWriter): string[] {
  const chunk = (t: string, finish: string | null = null) =>
    text.choices([{ text: t, index: 0, finish_reason: finish }]);
  switch (event.type) {
    case "chunks":
      if (plan.relayed) return event.chunks.map((members) => text.relay(members));
      return event.chunks.flatMap((members) => {
        const { choices } = chatChoices(members, false);
        return choices.length ? [text.choices(choices)] : [];
      });
    case "content":
      return [chunk(event.text)];
    case "contents":
      return event.texts.map((t) => chunk(t));
    case "finish":
      return [chunk("", textFinishReason(event.reason))];
    case "answering":
    case "usage":
    case "completion":
    case "tool_calls":
      return [];
  }
}

export async function streamText(
  request: FastifyRequest,
  reply: FastifyReply,
  plan: TextPlan,
  metered: MeteredRun,
  model: string,
  includeUsage: boolean,
): Promise<void> {
  reply.hijack();
  const run = new ChatRun(request, plan.agent, plan.chat, metered, true);
  const sse = new SseWriter(reply.raw, {
    heartbeatMs: request.server.config.heartbeatSeconds * 1000,
    headers: reply.getHeaders(),
    onClientGone: run.stop,
  });
  const text = new TextWriter(model);
  const metrics = request.server.chatMetrics;
  metrics.streamOpened();
  let outcome: ChatOutcome = "ok";
  let usage: Usage | undefined;
  let usageChunk: string | undefined;
  try {
    for await (const event of run.events) {
      metered.saw(event);
      if (event.type === "answering") sse.open();
      if (event.type === "usage") {
        usage = usageOf(event);
        usageChunk = plan.relayed ? event.chunk : undefined;
      }
      let ok = true;
      for (const payload of payloads(event, plan, text)) ok = sse.data(payload);
      if (!ok) {
        if (sse.closed) break;
        await sse.drained();
      }
    }
    const shutdown = run.shutdownError();
    if (shutdown) throw shutdown;
    if (sse.closed) outcome = "client_closed";
    else {
      if (includeUsage && usage) sse.data(usageChunk === undefined ? text.choices([], usage) : text.relay(usageChunk));
      sse.data("[DONE]");
    }
  } catch (err) {
    outcome = sse.closed ? "client_closed" : "error";
    if (!sse.closed) {
      const apiError = run.shutdownError() ?? (err instanceof ApiError ? err : internalError(request.id));
      if (!(err instanceof ApiError)) request.log.error({ err }, "text completion stream failed");
      sse.data(JSON.stringify(apiError.toJSON()));
    }
  } finally {
    run.end(outcome);
    metrics.streamClosed();
    sse.end();
  }
}
