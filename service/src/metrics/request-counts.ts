/**
 * Requests by method, route and status, counted where the access line is written (AccessLog):
 * Fastify calls it once per response without a hook of ours, which would cost ~10 µs a request
 * even empty. The route is the route's pattern (`/v1/files/:file_id`), never the raw URL, so the
 * series stay bounded; requests no route matched count under `unmatched`.
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import { Counter, type Registry } from "prom-client";

/** Node accepts status codes 100–999. */
const STATUSES = 1000;

export class RequestCounts {
  /** route → method → requests per status; read at scrape time. Nested, not a joined key: ~15 ns, not ~100. */
  private readonly counts = new Map<string, Map<string, Float64Array>>();

  count(request: FastifyRequest, reply: FastifyReply): void {
    const route = request.routeOptions.url ?? "unmatched";
    let byMethod = this.counts.get(route);
    if (!byMethod) this.counts.set(route, (byMethod = new Map<string, Float64Array>()));
    let byStatus = byMethod.get(request.method);
    if (!byStatus) byMethod.set(request.method, (byStatus = new Float64Array(STATUSES)));
    byStatus[reply.statusCode]++;
  }

  register(registry: Registry): void {
    const counts = this.counts;
    new Counter({
      name: "agentport_http_requests_total",
      help: "HTTP requests answered, by method, route pattern and status",
      labelNames: ["method", "route", "status"] as const,
      registers: [registry],
      collect() {
        this.reset();
        for (const [route, byMethod] of counts) {
          for (const [method, byStatus] of byMethod) {
            byStatus.forEach((n, status) => {
              if (n > 0) this.inc({ method, route, status: String(status) }, n);
            });
          }
        }
      },
    });
  }
}
