/**
 * Liveness (`/health`: the process answers) and readiness (`/health/ready`: the store answers).
 * Readiness stays 200 while only the revocation listener is down ("degraded"): the replica still
 * answers correctly — every key check goes to the store — so taking it out of the Service's
 * endpoints would turn a listener problem on every replica into a full outage. Likewise while Redis,
 * the shared rate-limit counter, is away (`limits: "degraded"`): each replica counts the limits
 * alone meanwhile, and an outage of the counter must not become an outage of the API. An upstream
 * whose circuit breaker is open (`upstreams`, by agent) degrades it too: its requests go to the
 * fallbacks or get 503 at once, and the replica is as good as any other.
 */
import type { FastifyInstance } from "fastify";
import { unavailable } from "../errors.js";

export default async function healthRoutes(app: FastifyInstance) {
  app.get("/health", async () => ({ status: "ok" }));
  app.get("/health/ready", async () => {
    try {
      await app.db.query("SELECT 1");
    } catch {
      throw unavailable("The metadata store is not answering.");
    }
    const notifications = app.db.notificationsLive() ? "live" : "down";
    const limits = app.keyLimits.mode;
    const upstreams = app.agents.guards.states();
    const circuitsClosed = Object.values(upstreams).every((state) => state === "closed");
    return {
      status: notifications === "live" && limits !== "degraded" && circuitsClosed ? "ready" : "degraded",
      store: app.db.kind,
      notifications,
      limits,
      upstreams,
    };
  });
}
