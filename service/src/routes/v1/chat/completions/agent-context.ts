/** What an agent gets besides the request: project, stop signal (made on first use), logger, where to say who answered. */
import type { FastifyBaseLogger, FastifyRequest } from "fastify";
import type { AgentContext } from "../../../../domain/agents/types.js";
import type { Stopper } from "./stop-signal.js";

/** A class, not an object literal with a getter: the getter is defined once, not per request. */
class RequestAgentContext implements AgentContext {
  readonly projectId: string;
  /** The request's stopper itself: undici takes an EventEmitter that emits "abort". */
  readonly upstreamSignal: Stopper;
  readonly log: FastifyBaseLogger;
  private readonly request: FastifyRequest;
  constructor(request: FastifyRequest, stop: Stopper) {
    this.projectId = request.auth.projectId;
    this.upstreamSignal = stop;
    this.log = request.log;
    this.request = request;
  }

  /** The access line names the agent whose upstream answered. */
  answeredBy(agentId: string): void {
    this.request.upstreamAgent = agentId;
  }

  /** The same stop as an AbortSignal, made on first use (the synthetic agent's timers take one). */
  get signal(): AbortSignal {
    return this.upstreamSignal.signal;
  }
}

export function agentContext(request: FastifyRequest, stop: Stopper): AgentContext {
  return new RequestAgentContext(request, stop);
}
