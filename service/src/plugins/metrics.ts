/**
 * Prometheus metrics at GET /metrics (unauthenticated, for in-cluster scraping; the Ingress routes
 * only /v1 and /mcp, so it is not public). Requests by route and status come from the access log
 * (metrics/request-counts.ts), chat figures from `app.chatMetrics`, the rest from `app.metrics`.
 */
import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import { Counter, Gauge, Registry, collectDefaultMetrics } from "prom-client";
import { ChatMetrics } from "../metrics/chat-metrics.js";
import { SpendMetrics } from "../metrics/spend-metrics.js";
import type { RequestCounts } from "../metrics/request-counts.js";
import type { SweepCounts } from "../domain/responses/retention-sweep.js";
import type { GuardListener } from "../domain/agents/upstream-guard.js";
import type { BreakerState } from "../domain/agents/circuit-breaker.js";

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
  /** What the upstreams' circuit breakers and retry budgets did (domain/agents/upstream-guard.ts). */
  upstreamGuards: GuardListener;
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

/** The most projects the stored-bytes gauge lists (the largest first): a bounded set of series. */
const STORED_BYTES_PROJECTS = 1000;

/** Bytes of stored responses per project, read from the store at scrape time (the same on every replica). */
function storedBytesGauge(registry: Registry, app: FastifyInstance): void {
  new Gauge({
    name: "agentport_responses_stored_bytes",
    help: `Bytes of stored responses per project, against its cap (RESPONSES_PROJECT_MAX_BYTES); the ${STORED_BYTES_PROJECTS} largest projects`,
    labelNames: ["project"] as const,
    registers: [registry],
    async collect() {
      this.reset();
      try {
        for (const { projectId, bytes } of await app.responses.largestProjects(STORED_BYTES_PROJECTS))
          this.set({ project: projectId }, bytes);
      } catch (err) {
        // A store that does not answer must not fail the whole scrape: the gauge is left empty.
        app.log.warn({ err }, "stored response bytes not read for the metrics");
      }
    },
  });
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

const BREAKER_STATES: readonly BreakerState[] = ["closed", "half_open", "open"];

/**
 * The upstreams' circuit breakers (state read at scrape time from the registry, one series per
 * agent and state, 1 for the current one) and what they and the retry budgets refused.
 */
function guardMetrics(registry: Registry, states: () => Record<string, BreakerState>): GuardListener {
  new Gauge({
    name: "agentport_upstream_circuit_state",
    help: "Each llm agent's upstream circuit breaker: 1 for its current state (closed, half_open, open), 0 for the others",
    labelNames: ["agent", "state"] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const [agent, current] of Object.entries(states()))
        for (const state of BREAKER_STATES) this.set({ agent, state }, state === current ? 1 : 0);
    },
  });
  const transitions = new Counter({
    name: "agentport_upstream_circuit_transitions_total",
    help: "Moves of an upstream's circuit breaker, by agent and the state it moved to",
    labelNames: ["agent", "to"] as const,
    registers: [registry],
  });
  const skipped = new Counter({
    name: "agentport_upstream_skipped_total",
    help: "Calls of an upstream not made because its circuit breaker was open (the request went to the fallback)",
    labelNames: ["agent"] as const,
    registers: [registry],
  });
  const denied = new Counter({
    name: "agentport_upstream_retries_denied_total",
    help: "Retries of an upstream not made because its retry budget (UPSTREAM_RETRY_BUDGET_*) was spent",
    labelNames: ["agent"] as const,
    registers: [registry],
  });
  return {
    transition: (agent, _from, to) => transitions.inc({ agent, to }),
    skipped: (agent) => skipped.inc({ agent }),
    retryDenied: (agent) => denied.inc({ agent }),
  };
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
    storedBytesGauge(registry, app);
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
      // The registry is built after this plugin (it reports here): read at scrape time.
      upstreamGuards: guardMetrics(registry, () => app.agents.guards.states()),
    } satisfies ServiceMetrics);

    app.get("/metrics", async (_request, reply) => {
      void reply.type(registry.contentType);
      return registry.metrics();
    });
  },
  { name: "metrics", dependencies: ["api-keys"] },
);
