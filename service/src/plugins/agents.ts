/** The agent registry on the instance (`app.agents`), built from AGENTS_FILE or the built-ins. */
import fp from "fastify-plugin";
import { loadAgentSpecs } from "../domain/agents/agents-file.js";
import { AgentsRegistry } from "../domain/agents/registry.js";
import type { FileSearch } from "../domain/agents/types.js";

export interface AgentsPluginOptions {
  /** Ranked retrieval over a project's files for `files` agents (also settable later: `app.agents.setFileSearch`). */
  fileSearch?: FileSearch;
  /** Environment for agents' `base_url_env`/`api_key_env` references; default process.env. */
  env?: Record<string, string | undefined>;
}

export default fp<AgentsPluginOptions>(
  async (app, opts) => {
    const { config } = app;
    const env = opts.env ?? process.env;
    // The default chat agent's upstream model; only meaningful with an upstream configured.
    const upstreamModel = config.llmBaseUrl ? config.llmModel : undefined;
    const registry = new AgentsRegistry({
      prefix: config.modelPrefix,
      specs: loadAgentSpecs(config.agentsFile, upstreamModel),
      llm: { baseUrl: config.llmBaseUrl, apiKey: config.llmApiKey },
      timeouts: config.llmTimeouts,
      env,
      fileSearch: opts.fileSearch,
    });
    app.decorate("agents", registry);
    app.addHook("onClose", () => registry.close());
  },
  { name: "agents" },
);
