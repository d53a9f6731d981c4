/** What a new session's server is built from: the key's principal and the instance's services. */
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { McpServerDeps } from "../../mcp/deps.js";
import { mcpFiles } from "../../mcp/files-adapter.js";

export function sessionDeps(app: FastifyInstance, request: FastifyRequest): McpServerDeps {
  return {
    principal: request.auth,
    agents: app.agents,
    startRun: async (ask) => (await app.keyLimits.startRun(request.auth, ask)).run,
    files: mcpFiles(app.files),
    busy: (sessionId) => (sessionId ? app.mcpSessions.begin(sessionId) : () => {}),
    drainDeadline: app.drainDeadline,
    log: request.log,
    limits: { uploadMaxBytes: Math.min(app.config.fileMaxBytes, app.config.jsonBodyLimit) },
  };
}
