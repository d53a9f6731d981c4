/**
 * Prometheus metrics at GET /metrics (unauthenticated, for in-cluster scraping; the Ingress routes
 * only /v1 and /mcp, so it is not public). Requests by route and status come from the access log
 * (metrics/request-counts.ts), chat figures from `app.chatMetrics`, the rest from `app.metrics`.
 */
import fp from "fastify-plugin";
import { Counter, Gauge, Registry, collectDefaultMetrics } from "prom-client";
import { ChatMetrics } from "../metrics/chat-metrics.js";
import { SpendMetrics } from "../metrics/spend-metrics.js";
import type { RequestCounts } from "../metrics/request-counts.js";
import type { SweepCounts } from "../domain/responses/retention-sweep.js";

export type { ChatOutcome } from "../metrics/chat-metrics.js";

/** Which per-key limit refused a request. */
export type LimitKind = "requests" | "tokens";

// Members the agents and the limiter take as callbacks are function-typed properties: their
// implementations are arrows, safe to pass without `this`.
export interface ServiceMetrics {
  /** A request refused with 429 by a key's requests- or tokens-per-minute limit. */
  rateLimited(limit: LimitKind): void;
  /** Whether the shared rate-limit counter (Redis) is away and limits are counted per replica. */
  limiterDegraded: (degraded: boolean) => void;
  /**
   * An `llm` agent's upstream call failed: its HTTP status, or `timeout`, `connection` (no
   * answer) or `bad_response` (an answer that broke off or could not be read).
   */
  upstreamError: (status: string) => void;
  /** An `llm` agent's call of an upstream (its own or a fallback's, by that agent's id), each try counted. */
  upstreamAttempt: (agent: string) => void;
  /** An `llm` agent moved on to a fallback's upstream, its own retries spent. */
  upstreamFallback: (agent: string, fallback: string) => void;
  /** The stored responses' retention sweep: expired rows removed, runs failed. */
  responsesSweep: SweepCounts;
}

declare module "fastify" {
  interface FastifyInstance {
    chatMetrics: ChatMetrics;
    spendMetrics: SpendMetrics;
    metrics: ServiceMetrics;
  }
}

export interface MetricsOptions {
  /** The access log's request counts (the app builds it with its log controller). */
  requests: RequestCounts;
}

/** The stored responses' retention sweep, counted. */
function sweepCounters(registry: Registry): SweepCounts {
  const removed = new Counter({
    name: "agentport_responses_expired_removed_total",
    help: "Stored responses past the retention (RESPONSES_RETENTION_DAYS) removed by this replica's sweep",
    registers: [registry],
  });
  const failed = new Counter({
    name: "agentport_responses_sweep_failures_total",
    help: "Runs of this replica's retention sweep that failed on the store (the next run retries)",
    registers: [registry],
  });
  return { removed: (rows) => removed.inc(rows), failed: () => failed.inc() };
}

export default fp<MetricsOptions>(
  async (app, opts) => {
    const registry = new Registry();
    collectDefaultMetrics({ register: registry });
    opts.requests.register(registry);
    app.decorate("chatMetrics", new ChatMetrics(registry));
    app.decorate("spendMetrics", new SpendMetrics(registry));

    new Counter({
      name: "agentport_revocation_notifications_total",
      help: "API key revocation notifications this replica received from PostgreSQL (every replica's deletes)",
      registers: [registry],
      collect() {
        this.reset();
        this.inc(app.apiKeys.notificationsReceived);
      },
    });
    const refusals = new Counter({
      name: "agentport_rate_limit_refusals_total",
      help: "Requests refused with 429 by a key's limit: requests or tokens per minute",
      labelNames: ["limit"] as const,
      registers: [registry],
    });
    // Both series exist from the start, so a rate over them reads 0 rather than nothing.
    for (const limit of ["requests", "tokens"] as const) refusals.inc({ limit }, 0);
    const upstreamErrors = new Counter({
      name: "agentport_upstream_errors_total",
      help: "Failed calls of llm agents to their upstream, by HTTP status (or timeout, connection, bad_response)",
      labelNames: ["status"] as const,
      registers: [registry],
    });
    // Counted in plain maps on every llm request and read at scrape time, as the chat metrics are;
    // labelled by agent ids of the agents file: a bounded set.
    const attempts = new Map<string, number>();
    const fallbacks = new Map<string, number>();
    new Counter({
      name: "agentport_upstream_attempts_total",
      help: "Calls of llm agents to an upstream, retries included, by the agent whose upstream was called",
      labelNames: ["agent"] as const,
      registers: [registry],
      collect() {
        this.reset();
        for (const [agent, n] of attempts) this.inc({ agent }, n);
      },
    });
    new Counter({
      name: "agentport_upstream_fallbacks_total",
      help: "Moves of an llm agent to a fallback agent's upstream once its own retries were spent",
      labelNames: ["agent", "fallback"] as const,
      registers: [registry],
      collect() {
        this.reset();
        for (const [pair, n] of fallbacks) {
          const [agent, fallback] = JSON.parse(pair) as [string, string];
          this.inc({ agent, fallback }, n);
        }
      },
    });
    const limiterDegraded = new Gauge({
      name: "agentport_rate_limit_degraded",
      help: "1 while Redis, the replicas' shared rate-limit counter, is away and each replica counts limits alone",
      registers: [registry],
    });
    limiterDegraded.set(0);
    app.decorate("metrics", {
      rateLimited: (limit) => refusals.inc({ limit }),
      limiterDegraded: (degraded) => limiterDegraded.set(degraded ? 1 : 0),
      upstreamError: (status) => upstreamErrors.inc({ status }),
      upstreamAttempt: (agent) => attempts.set(agent, (attempts.get(agent) ?? 0) + 1),
      upstreamFallback: (agent, fallback) => {
        const pair = JSON.stringify([agent, fallback]);
        fallbacks.set(pair, (fallbacks.get(pair) ?? 0) + 1);
      },
      responsesSweep: sweepCounters(registry),
    } satisfies ServiceMetrics);

    app.get("/metrics", async (_request, reply) => {
      void reply.type(registry.contentType);
      return registry.metrics();
    });
  },
  { name: "metrics", dependencies: ["api-keys"] },
);
