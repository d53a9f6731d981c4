/** What a new session's server is built from: the key's principal and the instance's services. */
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { McpFiles, McpServerDeps } from "../../mcp/deps.js";

/** The files view for MCP tools; undefined while no file store is wired into the app. */
function filesOf(app: FastifyInstance): McpFiles | undefined {
  return app.hasDecorator("mcpFiles") ? (app as unknown as { mcpFiles: McpFiles }).mcpFiles : undefined;
}

export function sessionDeps(app: FastifyInstance, request: FastifyRequest): McpServerDeps {
  return {
    principal: request.auth,
    agents: app.hasDecorator("agents") ? app.agents : undefined,
    files: filesOf(app),
    busy: (sessionId) => (sessionId ? app.mcpSessions.begin(sessionId) : () => {}),
    drainDeadline: app.drainDeadline,
    log: request.log,
    limits: { uploadMaxBytes: Math.min(app.config.fileMaxBytes, app.config.jsonBodyLimit) },
  };
}
