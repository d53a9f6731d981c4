/**
 * One chat request's run of its agent, shared by the JSON reply (json.ts) and the SSE reply
 * (stream.ts): the stop signal (client gone or shutdown deadline), the agent's context, the
 * metered run (domain/limits/metered-run.ts).
 */
import type { FastifyRequest } from "fastify";
import { unavailable, type ApiError } from "../../../../errors.js";
import type { Agent, AgentEvent, ChatRequest } from "../../../../domain/agents/types.js";
import type { ChatOutcome } from "../../../../plugins/metrics.js";
import { agentContext } from "./agent-context.js";
import type { MeteredRun } from "../../../../domain/limits/metered-run.js";
import { Stopper } from "./stop-signal.js";

export class ChatRun {
  /** Stops the agent: call it when the client leaves. */
  readonly stop: Stopper;
  readonly events: AsyncIterable<AgentEvent>;
  readonly agent: Agent;
  /** The run's metering: the caller feeds it every event it relays. */
  readonly metered: MeteredRun;
  private readonly request: FastifyRequest;
  private readonly streamed: boolean;

  constructor(request: FastifyRequest, agent: Agent, chat: ChatRequest, metered: MeteredRun, streamed: boolean) {
    this.request = request;
    this.agent = agent;
    this.metered = metered;
    this.streamed = streamed;
    this.stop = new Stopper(request.server.drainDeadline);
    this.events = agent.run(chat, agentContext(request, this.stop));
  }

  /** The shutdown deadline has passed: what the client is told instead of a half answer. */
  shutdownError(): ApiError | undefined {
    if (!this.request.server.drainDeadline.aborted) return undefined;
    return unavailable(
      `The server is shutting down; ${this.streamed ? "the answer was cut short. " : ""}Retry the request.`,
    );
  }

  /** The request is over, by any cause: meter it (usage, metrics, token settlement); forget its stop signal. */
  end(outcome: ChatOutcome): void {
    this.metered.end(outcome, this.streamed);
    this.stop.release();
  }
}
