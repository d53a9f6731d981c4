/** The agent registry on the instance (`app.agents`), built from AGENTS_FILE or the built-ins. */
import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import { loadAgentSpecs } from "../domain/agents/agents-file.js";
import { ConfiguredAgents } from "../domain/agents/registry.js";
import { UpstreamGuards, type GuardListener } from "../domain/agents/upstream-guard.js";

export interface AgentsPluginOptions {
  /** Environment for agents' `base_url_env`/`api_key_env` references; default process.env. */
  env?: Record<string, string | undefined>;
}

/** The guards' events counted in the metrics, and each breaker's move written to the log. */
function guardListener(app: FastifyInstance): GuardListener {
  const metrics = app.metrics.upstreamGuards;
  return {
    ...metrics,
    transition(agent, from, to) {
      metrics.transition(agent, from, to);
      const message =
        to === "open"
          ? "upstream circuit opened: calls skip it for the cooldown"
          : to === "half_open"
            ? "upstream circuit half-open: one probe call goes through"
            : "upstream circuit closed: the probe succeeded";
      app.log.warn({ agent, from, to }, message);
    },
  };
}

export default fp<AgentsPluginOptions>(
  async (app, opts) => {
    const { config } = app;
    const env = opts.env ?? process.env;
    // The default chat agent's upstream model; only meaningful with an upstream configured.
    const upstreamModel = config.llmBaseUrl ? config.llmModel : undefined;
    const specs = loadAgentSpecs(config.agentsFile, upstreamModel);
    // The tokenizer offline agents count usage with loads on their first request (tokens.ts): an
    // idle replica does not hold its ~45 MB.
    const registry = new ConfiguredAgents({
      prefix: config.modelPrefix,
      specs,
      llm: { baseUrl: config.llmBaseUrl, apiKey: config.llmApiKey },
      timeouts: config.llmTimeouts,
      env,
      // The files module is registered first: `files` agents search through it.
      fileSearch: app.files.search,
      onUpstreamError: app.metrics.upstreamError,
      onRetry: { attempt: app.metrics.upstreamAttempt, fallback: app.metrics.upstreamFallback },
      guards: new UpstreamGuards(config.upstreamGuards, guardListener(app)),
    });
    app.decorate("agents", registry);
    // Runs of an agent without a price cost 0: said once at start, so a missing price is not a surprise on the bill.
    const unpriced = specs.filter((s) => s.kind === "llm" && !s.pricing).map((s) => s.id);
    if (unpriced.length)
      app.log.info({ agents: unpriced }, "agents without `pricing`: their runs are metered in tokens and cost 0");
    app.addHook("onClose", () => registry.close());
  },
  { name: "agents", dependencies: ["files", "metrics"] },
);
