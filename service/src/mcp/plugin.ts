/**
 * The MCP session registry on the instance (`app.mcpSessions`). A revoked key's sessions close
 * at once on every replica. On shutdown sessions close before the HTTP server does (an open SSE
 * stream would hold `app.close()` until the client hangs up), each once its running tool calls
 * finish or the drain deadline passes.
 */
import fp from "fastify-plugin";
import { SessionRegistry } from "./session-registry.js";

declare module "fastify" {
  interface FastifyInstance {
    mcpSessions: SessionRegistry;
  }
}

export default fp(
  async (app) => {
    const sessions = new SessionRegistry({
      idleMs: app.config.mcpSessionIdleSeconds * 1000,
      maxPerKey: app.config.mcpMaxSessionsPerKey,
    });
    sessions.on("closed", (sessionId, reason) => app.log.info({ sessionId, reason }, "mcp session closed"));
    sessions.start();
    app.decorate("mcpSessions", sessions);
    const unsubscribe = app.apiKeys.onRevoked((keyId) => void sessions.closeKey(keyId));
    app.addHook("preClose", async () => {
      unsubscribe();
      await sessions.drain(app.drainDeadline);
    });
  },
  { name: "mcp-sessions", dependencies: ["api-keys"] },
);
