/**
 * One chat request's run of its agent, shared by the JSON reply (json.ts) and the SSE reply
 * (stream.ts): the stop signal (client gone or shutdown deadline), the agent's context, the
 * outcome metric, and the usage the agent reports.
 */
import type { FastifyRequest } from "fastify";
import { unavailable, type ApiError } from "../../../../errors.js";
import type { Agent, AgentEvent, ChatRequest } from "../../../../domain/agents/types.js";
import type { ChatOutcome } from "../../../../plugins/metrics.js";
import { agentContext } from "./agent-context.js";
import type { Usage } from "./chunks.js";
import { Stopper } from "./stop-signal.js";

export class ChatRun {
  /** Stops the agent: call it when the client leaves. */
  readonly stop: Stopper;
  readonly events: AsyncIterable<AgentEvent>;
  readonly agent: Agent;
  private readonly request: FastifyRequest;
  private readonly streamed: boolean;

  constructor(request: FastifyRequest, agent: Agent, chat: ChatRequest, streamed: boolean) {
    this.request = request;
    this.agent = agent;
    this.streamed = streamed;
    this.stop = new Stopper(request.server.drainDeadline);
    this.events = agent.run(chat, agentContext(request, this.stop));
  }

  /** The shutdown deadline has passed: what the client is told instead of a half answer. */
  shutdownError(): ApiError | undefined {
    if (!this.request.server.drainDeadline.aborted) return undefined;
    return unavailable(`The server is shutting down; ${this.streamed ? "the answer was cut short. " : ""}Retry the request.`);
  }

  /**
   * The request is over: count its outcome; when the agent reported usage, add it to the key's
   * usage and token window; forget its stop signal.
   */
  end(outcome: ChatOutcome, usage?: Usage): void {
    const { server, auth } = this.request;
    const model = this.agent.modelId;
    server.chatMetrics.completed(model, this.streamed, outcome);
    if (usage) {
      server.chatMetrics.tokens(model, usage.prompt_tokens, usage.completion_tokens);
      server.usage.record({ projectId: auth.projectId, keyId: auth.keyId, model, inputTokens: usage.prompt_tokens, outputTokens: usage.completion_tokens });
      server.spendKeyTokens(this.request, usage.total_tokens);
    }
    this.stop.release();
  }
}

/** An agent's usage event in the wire's shape. */
export function usageOf(event: { promptTokens: number; completionTokens: number }): Usage {
  return { prompt_tokens: event.promptTokens, completion_tokens: event.completionTokens, total_tokens: event.promptTokens + event.completionTokens };
}
