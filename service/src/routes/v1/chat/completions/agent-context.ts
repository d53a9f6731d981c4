/** What an agent gets besides the request: project, stop signal (made on first use), logger. */
import type { FastifyBaseLogger, FastifyRequest } from "fastify";
import type { AgentContext } from "../../../../domain/agents/types.js";
import type { Stopper } from "./stop-signal.js";

/** A class, not an object literal with a getter: the getter is defined once, not per request. */
class RequestAgentContext implements AgentContext {
  readonly projectId: string;
  private readonly stop: Stopper;
  /** The stopper itself: undici takes an EventEmitter that emits "abort". */
  readonly upstreamSignal: Stopper;
  readonly log: FastifyBaseLogger;
  constructor(
    projectId: string,
    stop: Stopper,
    log: FastifyBaseLogger,
  ) {
    this.projectId = projectId;
    this.stop = stop;
    this.upstreamSignal = stop;
    this.log = log;
  }

  get signal(): AbortSignal {
    return this.stop.signal;
  }
}

export function agentContext(request: FastifyRequest, stop: Stopper): AgentContext {
  return new RequestAgentContext(request.auth.projectId, stop, request.log);
}
