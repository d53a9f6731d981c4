/**
 * The agents of the deployment (`app.agents`): built from validated specs, some global, some
 * listed for specific projects. Model ids are `<prefix>/<agent id>`.
 */
import { Agent as UndiciAgent } from "undici";
import { AgentsFileError, priceOf, type AgentSpec, type LlmSpec } from "./agent-spec.js";
import { DEFAULT_AGENT_ID } from "./agents-file.js";
import { filesAgent } from "./files-agent.js";
import { fallbackProblems } from "./fallbacks.js";
import { llmAgent, TEXT_COMPLETIONS, upstreamCaller, type Upstream } from "./llm-agent.js";
import { embeddingsCall } from "./llm-embeddings.js";
import { RESPONSES_ENDPOINT, responsesForwarder } from "./llm-responses.js";
import { syntheticAgent } from "./synthetic-agent.js";
import type { Agent, AgentInfo, AgentRegistry, FileSearch } from "./types.js";
import { UpstreamGuards } from "./upstream-guard.js";
import type { RetryListener } from "./upstream-retry.js";
import type { UpstreamErrorListener } from "./upstream-wire.js";

export interface RegistryOptions {
  /** Model id prefix (MODEL_PREFIX). */
  prefix: string;
  specs: AgentSpec[];
  /** The default upstream (LLM_BASE_URL, LLM_API_KEY); `llm` agents may name their own. */
  llm: { baseUrl?: string; apiKey?: string };
  /** Upstream timeouts: until headers, and between body chunks (LLM_TIMEOUT_SECONDS, LLM_IDLE_TIMEOUT_SECONDS). */
  timeouts?: { headersMs: number; idleMs: number };
  /** Where `base_url_env` and `api_key_env` are looked up. */
  env: Record<string, string | undefined>;
  /** Ranked retrieval over a project's files, for `files` agents; without it they say none is available. */
  fileSearch?: FileSearch;
  /** Told of every failed upstream call of `llm` agents (the metrics). */
  onUpstreamError?: UpstreamErrorListener;
  /** Told of every try of an upstream and every move to a fallback (the metrics). */
  onRetry?: RetryListener;
  /** Each upstream's circuit breaker and retry budget (built with the configured settings). */
  guards?: UpstreamGuards;
}

const QUIET_RETRIES: RetryListener = { attempt() {}, fallback() {} };

const OFFLINE_PREFACE =
  "No upstream language model is configured on this server (LLM_BASE_URL is not set), so this answer comes from the project's files only.";

interface Entry {
  agent: Agent;
  /** Projects that see the agent; undefined means all. */
  projects?: Set<string>;
}

export class ConfiguredAgents implements AgentRegistry {
  private readonly byModel = new Map<string, Entry>();
  /** Aliases lead to the same entries; kept apart so that list() shows each agent once. */
  private readonly byAlias = new Map<string, Entry>();
  /** One keep-alive pool for every upstream call. */
  readonly dispatcher: UndiciAgent;
  /** Each llm agent's upstream breaker and retry budget. */
  readonly guards: UpstreamGuards;

  constructor(opts: RegistryOptions) {
    const t = opts.timeouts ?? { headersMs: 600_000, idleMs: 300_000 };
    this.dispatcher = new UndiciAgent({
      keepAliveTimeout: 30_000,
      keepAliveMaxTimeout: 600_000,
      headersTimeout: t.headersMs,
      bodyTimeout: t.idleMs,
    });
    this.guards = opts.guards ?? new UpstreamGuards();
    const created = Math.floor(Date.now() / 1000);
    const problems = fallbackProblems(opts.specs);
    const upstreams = this.upstreams(opts, problems);
    const llmSpecs = new Map(opts.specs.flatMap((s) => (s.kind === "llm" ? [[s.id, s] as const] : [])));
    const callers = new Map(
      [...upstreams].map(([id, upstream]) => [id, upstreamCaller(id, llmSpecs.get(id)!, upstream)]),
    );
    for (const spec of opts.specs) {
      const info: AgentInfo = {
        id: spec.id,
        modelId: `${opts.prefix}/${spec.id}`,
        kind: spec.kind,
        ...(spec.aliases && { aliases: spec.aliases }),
        ...(spec.kind === "llm" && spec.embeddings && { embeddings: true as const }),
        description: spec.description ?? defaultDescription(spec),
        created,
      };
      let agent: Agent | undefined;
      if (spec.kind === "synthetic") agent = syntheticAgent(info, spec);
      else if (spec.kind === "files") {
        const offline = spec.id === DEFAULT_AGENT_ID && !opts.llm.baseUrl;
        agent = filesAgent(info, spec, { fileSearch: opts.fileSearch, preface: offline ? OFFLINE_PREFACE : undefined });
      } else if (callers.has(spec.id)) {
        const chain = [spec.id, ...(spec.fallbacks ?? [])].map((id) => callers.get(id)).filter((c) => c !== undefined);
        agent = llmAgent(info, chain, t.headersMs, opts.onRetry);
        if (agent && spec.embeddings) agent.embed = embeddingsCall(info, spec, upstreams.get(spec.id)!);
        if (spec.responses) {
          agent.forwardResponses = this.forwarder(spec, llmSpecs, upstreams, t.headersMs, opts.onRetry);
          agent.builtinTools = new Set(spec.builtin_tools);
        }
        if (spec.completions)
          agent.runCompletion = this.textCompleter(info, spec, llmSpecs, upstreams, t.headersMs, opts.onRetry);
      }
      const price = priceOf(spec);
      if (agent && price) agent.price = price;
      if (agent) this.byModel.set(info.modelId, { agent, projects: spec.projects && new Set(spec.projects) });
    }
    this.indexAliases(problems);
    if (problems.length) throw new AgentsFileError("The agents configuration", problems);
  }

  /** Each llm agent's upstream (its URL and key resolved), by agent id; what is missing goes to `problems`. */
  private upstreams(opts: RegistryOptions, problems: string[]): Map<string, Upstream> {
    const upstreams = new Map<string, Upstream>();
    for (const spec of opts.specs) {
      if (spec.kind !== "llm") continue;
      const baseUrl = spec.base_url ?? (spec.base_url_env ? opts.env[spec.base_url_env] : opts.llm.baseUrl);
      const apiKey = spec.api_key_env
        ? opts.env[spec.api_key_env]
        : spec.base_url || spec.base_url_env
          ? undefined
          : opts.llm.apiKey;
      if (spec.base_url_env && !baseUrl)
        problems.push(`agent '${spec.id}': base_url_env names ${spec.base_url_env}, which is not set`);
      else if (!baseUrl)
        problems.push(
          `agent '${spec.id}': kind llm needs an upstream: set LLM_BASE_URL, or the agent's base_url or base_url_env`,
        );
      if (spec.api_key_env && !apiKey)
        problems.push(`agent '${spec.id}': api_key_env names ${spec.api_key_env}, which is not set`);
      if (baseUrl)
        upstreams.set(spec.id, {
          baseUrl: baseUrl.replace(/\/+$/, ""),
          apiKey,
          dispatcher: this.dispatcher,
          onError: opts.onUpstreamError,
          guard: this.guards.of(spec.id),
        });
    }
    return upstreams;
  }

  /** An agent's Responses forwarder: its own upstream, then those of its fallbacks that have a Responses API too. */
  private forwarder(
    spec: LlmSpec,
    specs: Map<string, LlmSpec>,
    upstreams: Map<string, Upstream>,
    budgetMs: number,
    listener: RetryListener = QUIET_RETRIES,
  ) {
    const chain = [spec.id, ...(spec.fallbacks ?? [])].filter((id) => specs.get(id)?.responses && upstreams.has(id));
    return responsesForwarder(
      chain.map((id) => upstreamCaller(id, specs.get(id)!, upstreams.get(id)!, RESPONSES_ENDPOINT)),
      budgetMs,
      listener,
    );
  }

  /** An agent's text completions: its own upstream's `/completions`, then those of its fallbacks that have it too. */
  private textCompleter(
    info: AgentInfo,
    spec: LlmSpec,
    specs: Map<string, LlmSpec>,
    upstreams: Map<string, Upstream>,
    budgetMs: number,
    listener: RetryListener = QUIET_RETRIES,
  ): NonNullable<Agent["runCompletion"]> {
    const chain = [spec.id, ...(spec.fallbacks ?? [])].filter((id) => specs.get(id)?.completions && upstreams.has(id));
    const callers = chain.map((id) => upstreamCaller(id, specs.get(id)!, upstreams.get(id)!, TEXT_COMPLETIONS));
    const completer = llmAgent(info, callers, budgetMs, listener);
    return (request, ctx) => completer.run(request, ctx);
  }

  /** Aliases are checked unique among themselves by the agents file; here, against the model ids too. */
  private indexAliases(problems: string[]): void {
    for (const entry of this.byModel.values()) {
      for (const alias of entry.agent.aliases ?? []) {
        if (this.byModel.has(alias))
          problems.push(
            `agent '${entry.agent.id}': alias '${alias}' is the model id of agent '${this.byModel.get(alias)!.agent.id}'`,
          );
        else this.byAlias.set(alias, entry);
      }
    }
  }

  list(projectId: string): AgentInfo[] {
    const out: AgentInfo[] = [];
    for (const { agent, projects } of this.byModel.values()) {
      if (!projects || projects.has(projectId)) out.push(info(agent));
    }
    return out;
  }

  resolve(projectId: string, modelId: string): Agent | undefined {
    const entry = this.byModel.get(modelId) ?? this.byAlias.get(modelId);
    return entry && (!entry.projects || entry.projects.has(projectId)) ? entry.agent : undefined;
  }

  async close(): Promise<void> {
    await this.dispatcher.close();
  }
}

function info({ id, modelId, aliases, embeddings, kind, description, created }: Agent): AgentInfo {
  return { id, modelId, ...(aliases && { aliases }), ...(embeddings && { embeddings }), kind, description, created };
}

function defaultDescription(spec: AgentSpec): string {
  if (spec.kind === "synthetic")
    return `Synthetic agent for load tests: streams ${spec.tokens} fixed tokens, not a model.`;
  if (spec.kind === "files") return "Answers from the project's uploaded files, citing file ids.";
  return spec.embeddings
    ? `Embeddings on upstream model ${spec.model}.`
    : `Chat agent on upstream model ${spec.model}.`;
}
