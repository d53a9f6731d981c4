/** What an agent gets besides the request: project, stop signal (made on first use), logger. */
import type { FastifyRequest } from "fastify";
import type { AgentContext } from "../../../../domain/agents/types.js";
import type { Stopper } from "./stop-signal.js";

export function agentContext(request: FastifyRequest, stop: Stopper): AgentContext {
  return {
    projectId: request.auth.projectId,
    get signal() {
      return stop.signal;
    },
    log: request.log,
  };
}
