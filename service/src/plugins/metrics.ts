/**
 * Prometheus metrics at GET /metrics (unauthenticated, for in-cluster scraping; the Ingress routes
 * only /v1 and /mcp, so it is not public).
 *
 * Per-route request rate, status and latency come from the gateway in front of the service
 * (Kong / ingress-nginx export them); a per-response hook here would cost ~10 µs a request. The
 * service exports what only it knows — completions by model and outcome, tokens by model, open
 * streams, time to first token, revocation notifications heard — counted in plain maps on the hot path and read
 * by prom-client at scrape time.
 */
import fp from "fastify-plugin";
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";

export type ChatOutcome = "ok" | "error" | "client_closed";

export interface ChatMetrics {
  /** One completion finished (JSON or stream). */
  completed(model: string, stream: boolean, outcome: ChatOutcome): void;
  streamOpened(): void;
  streamClosed(): void;
  /** Seconds from the request to the first content token of a stream. */
  firstToken(seconds: number): void;
  /** A completion's usage: prompt (in) and completion (out) tokens. */
  tokens(model: string, prompt: number, completion: number): void;
}

declare module "fastify" {
  interface FastifyInstance {
    chatMetrics: ChatMetrics;
  }
}

const OUTCOMES: readonly ChatOutcome[] = ["ok", "error", "client_closed"];
const MODES = ["json", "stream"] as const;
/** Slot in a model's counts: mode-major, then outcome. */
const slot = (stream: boolean, outcome: ChatOutcome) => (stream ? OUTCOMES.length : 0) + OUTCOMES.indexOf(outcome);

export default fp(
  async (app) => {
    const registry = new Registry();
    collectDefaultMetrics({ register: registry });

    // model id → counts per (mode, outcome); ids come from resolved agents, so the set is bounded.
    const completions = new Map<string, Float64Array>();
    let openStreams = 0;
    // model id → [prompt, completion] tokens.
    const tokens = new Map<string, Float64Array>();
    new Counter({
      name: "agentport_chat_tokens_total",
      help: "Tokens of chat completions by model and direction (in: prompt, out: completion)",
      labelNames: ["model", "direction"] as const,
      registers: [registry],
      collect() {
        this.reset();
        for (const [model, [prompt, completion]] of tokens) {
          this.inc({ model, direction: "in" }, prompt);
          this.inc({ model, direction: "out" }, completion);
        }
      },
    });
    new Counter({
      name: "agentport_revocation_notifications_total",
      help: "API key revocation notifications this replica received from PostgreSQL (every replica's deletes)",
      registers: [registry],
      collect() {
        this.reset();
        this.inc(app.apiKeys.notificationsReceived);
      },
    });
    new Counter({
      name: "agentport_chat_completions_total",
      help: "Chat completions by model, mode (json|stream) and outcome (ok|error|client_closed)",
      labelNames: ["model", "mode", "outcome"] as const,
      registers: [registry],
      collect() {
        this.reset();
        for (const [model, counts] of completions) {
          counts.forEach((n, i) => {
            if (n > 0) this.inc({ model, mode: MODES[Math.floor(i / OUTCOMES.length)], outcome: OUTCOMES[i % OUTCOMES.length] }, n);
          });
        }
      },
    });
    new Gauge({
      name: "agentport_chat_open_streams",
      help: "Chat completion streams open now",
      registers: [registry],
      collect() {
        this.set(openStreams);
      },
    });
    const ttft = new Histogram({
      name: "agentport_chat_time_to_first_token_seconds",
      help: "Time from a streaming request to its first content token",
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers: [registry],
    });

    app.decorate("chatMetrics", {
      completed(model, stream, outcome) {
        let counts = completions.get(model);
        if (!counts) completions.set(model, (counts = new Float64Array(MODES.length * OUTCOMES.length)));
        counts[slot(stream, outcome)]++;
      },
      streamOpened: () => void openStreams++,
      streamClosed: () => void openStreams--,
      firstToken: (seconds) => ttft.observe(seconds),
      tokens(model, prompt, completion) {
        let counts = tokens.get(model);
        if (!counts) tokens.set(model, (counts = new Float64Array(2)));
        counts[0] += prompt;
        counts[1] += completion;
      },
    } satisfies ChatMetrics);

    app.get("/metrics", async (_request, reply) => {
      void reply.type(registry.contentType);
      return registry.metrics();
    });
  },
  { name: "metrics", dependencies: ["api-keys"] },
);
