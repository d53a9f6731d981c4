/**
 * Prometheus metrics at GET /metrics (unauthenticated, for in-cluster scraping; the Ingress
 * routes only /v1 and /mcp, so it is not public). Labels use the route pattern, never the URL,
 * so ids in paths cannot explode the series count.
 */
import fp from "fastify-plugin";
import { Counter, Histogram, Registry, collectDefaultMetrics } from "prom-client";

export default fp(
  async (app) => {
    const registry = new Registry();
    collectDefaultMetrics({ register: registry });
    const requests = new Counter({
      name: "agentport_http_requests_total",
      help: "HTTP requests by method, route pattern and status",
      labelNames: ["method", "route", "status"] as const,
      registers: [registry],
    });
    const duration = new Histogram({
      name: "agentport_http_request_duration_seconds",
      help: "Time to the end of the response (streams: to the last byte)",
      labelNames: ["method", "route"] as const,
      buckets: [0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30, 120, 600],
      registers: [registry],
    });

    app.addHook("onResponse", async (request, reply) => {
      const route = request.routeOptions.url ?? "unmatched";
      requests.inc({ method: request.method, route, status: String(reply.statusCode) });
      duration.observe({ method: request.method, route }, reply.elapsedTime / 1000);
    });

    app.get("/metrics", async (_request, reply) => {
      void reply.type(registry.contentType);
      return registry.metrics();
    });
  },
  { name: "metrics" },
);
