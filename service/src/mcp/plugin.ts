/**
 * The MCP session registry on the instance (`app.mcpSessions`). A revoked key's sessions close
 * at once on every replica, and after a listener outage once the store is back. On shutdown sessions close before the HTTP server does (an open SSE
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
    // Revocations may have been missed while the store's listener was away: ask the store about
    // every key with an open session (a failed check waits for the next resync, when it is back).
    const recheck = async () => {
      for (const keyId of sessions.keyIds()) {
        if (!(await app.apiKeys.exists(keyId).catch(() => true))) await sessions.closeKey(keyId);
      }
    };
    const unsubscribeResync = app.apiKeys.onResync(() => void recheck());
    app.addHook("preClose", async () => {
      unsubscribe();
      unsubscribeResync();
      await sessions.drain(app.drainDeadline);
    });
  },
  { name: "mcp-sessions", dependencies: ["api-keys"] },
);
