/** Liveness (`/health`: the process answers) and readiness (`/health/ready`: the store answers). */
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
    return { status: "ready", store: app.db.kind };
  });
}
