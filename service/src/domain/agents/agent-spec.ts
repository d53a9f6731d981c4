/**
 * The agents file (AGENTS_FILE, YAML or JSON): its schema and a validator whose messages name
 * the agent and the field at fault, all problems at once.
 */
import { z } from "zod";
import { fallbackProblems } from "./fallbacks.js";
import { MAX_PRICE_USD, priceMicros, type Price } from "../spend/cost.js";

const id = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/,
    "must start with a letter or digit and use only letters, digits, '.', '_', ':' or '-'",
  );
const alias = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}$/,
    "must start with a letter or digit and use only letters, digits, '.', '_', ':', '/' or '-'",
  );
/**
 * The built-in tools of OpenAI's Responses API: run by the upstream itself (its file stores, its
 * sandbox, any MCP server URL, web access), billed there and invisible to this server's meter. A
 * `responses: true` agent forwards only those it lists in `builtin_tools`; `function` and `custom`
 * tools run on the client and always pass.
 */
export const BUILTIN_TOOL_TYPES = [
  "file_search",
  "web_search",
  "web_search_2025_08_26",
  "web_search_preview",
  "web_search_preview_2025_03_11",
  "code_interpreter",
  "mcp",
  "image_generation",
  "computer_use_preview",
  "local_shell",
  "shell",
  "apply_patch",
] as const;
/** Tools the client runs itself: never the upstream's to run. */
export const CLIENT_TOOL_TYPES: readonly string[] = ["function", "custom"];

const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "must be an environment variable name");
/** USD per million tokens, exact to the micro-dollar (cost.ts keeps money in integers). */
const usdPerMillion = z
  .number()
  .min(0)
  .max(MAX_PRICE_USD)
  .refine((n) => priceMicros(n) !== undefined, "must be exact to the micro-dollar (at most 6 decimals)");
/** What the agent's runs cost: USD per million tokens, as providers list prices. */
const pricing = z.strictObject({
  input: usdPerMillion,
  output: usdPerMillion,
  /** Prompt tokens the upstream reports as cached (`prompt_tokens_details.cached_tokens`); absent: `input`. */
  cached_input: usdPerMillion.optional(),
});

const common = {
  id,
  /** One line for humans and MCP tool descriptions. */
  description: z.string().min(1).optional(),
  /** Projects that see the agent; absent means every project. */
  projects: z.array(z.string().min(1)).min(1).optional(),
  /** Other model names that reach the agent as sent (`gpt-4o-mini`), for clients configured for another provider. */
  aliases: z.array(alias).min(1).optional(),
};

const llm = z.strictObject({
  ...common,
  kind: z.literal("llm"),
  /** The upstream model name sent to the upstream endpoint. */
  model: z.string().min(1),
  system_prompt: z.string().optional(),
  /** The agent's own upstream (otherwise LLM_BASE_URL): a URL, or the name of a variable holding one. */
  base_url: z.url({ protocol: /^https?$/ }).optional(),
  base_url_env: envName.optional(),
  /** Name of the variable holding the agent's own upstream key (otherwise LLM_API_KEY); never the key itself. */
  api_key_env: envName.optional(),
  /** Retries of the upstream on a connect error, 429 or 5xx, before the answer's first byte. */
  retries: z
    .strictObject({
      /** Tries of each upstream (this agent's, then each fallback's), the first included. */
      attempts: z.number().int().min(1).max(10).default(2),
      /** Backoff before the n-th retry: a random wait up to backoff_ms·2^(n-1) (full jitter), at most max_backoff_ms. */
      backoff_ms: z.number().int().min(0).max(60_000).default(250),
      /** Also the longest Retry-After waited: a longer one moves on to the next fallback at once. */
      max_backoff_ms: z.number().int().min(0).max(600_000).default(2_000),
    })
    .optional(),
  /** Agents (by id, kind llm) whose upstreams answer, in order, once this agent's retries are spent. */
  fallbacks: z.array(id).min(1).optional(),
  /** The upstream model is an embedding model: /v1/embeddings forwards to it. */
  embeddings: z.boolean().optional(),
  /** The upstream serves OpenAI's Responses API: /v1/responses forwards to its own `/responses` instead of translating to chat. */
  responses: z.boolean().optional(),
  /**
   * The upstream serves OpenAI's legacy text completions (vLLM, LiteLLM, llama.cpp do): /v1/completions
   * is relayed to its own `/completions` as sent, instead of translated to chat.
   */
  completions: z.boolean().optional(),
  /** Built-in tools (BUILTIN_TOOL_TYPES) a tenant may have the upstream run; none when absent. Needs `responses: true`. */
  builtin_tools: z.array(z.enum(BUILTIN_TOOL_TYPES)).min(1).optional(),
  /** Prices of its tokens (chat, Responses, embeddings, MCP `ask_*`); absent: its runs cost 0. */
  pricing: pricing.optional(),
});
const files = z.strictObject({
  ...common,
  kind: z.literal("files"),
  /** How many ranked passages an answer cites. */
  max_results: z.number().int().min(1).max(20).optional(),
});
const synthetic = z.strictObject({
  ...common,
  kind: z.literal("synthetic"),
  tokens: z.number().int().min(1).max(1_000_000),
  interval_ms: z.number().min(0).max(3_600_000).optional(),
  silence_ms: z.number().min(0).max(3_600_000).optional(),
});

/** An llm agent's retries when its `retries` is absent (the same defaults as each field's). */
export const DEFAULT_RETRIES = { attempts: 2, backoff_ms: 250, max_backoff_ms: 2_000 } as const;

export const AgentSpecSchema = z.discriminatedUnion("kind", [llm, files, synthetic]);
export type AgentSpec = z.infer<typeof AgentSpecSchema>;
export type LlmSpec = z.infer<typeof llm>;
export type RetrySpec = NonNullable<LlmSpec["retries"]>;
export type FilesSpec = z.infer<typeof files>;
export type SyntheticSpec = z.infer<typeof synthetic>;

const FileSchema = z.strictObject({ agents: z.array(z.unknown()) });

export class AgentsFileError extends Error {
  readonly problems: string[];
  constructor(source: string, problems: string[]) {
    super(`${source} is invalid:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.problems = problems;
    this.name = "AgentsFileError";
  }
}

function where(index: number, raw: unknown): string {
  const declared = raw && typeof raw === "object" ? (raw as { id?: unknown }).id : undefined;
  return typeof declared === "string" ? `agents[${index}] (id '${declared}')` : `agents[${index}]`;
}

/** "a boolean", "an array": zod's expected type as a phrase. */
function withArticle(expected: string): string {
  return `${/^[aeiou]/.test(expected) ? "an" : "a"} ${expected}`;
}

function describeIssue(issue: z.core.$ZodIssue): string {
  const field = issue.path.map(String).join(".");
  if (issue.code === "unrecognized_keys")
    return `unknown field${issue.keys.length > 1 ? "s" : ""} ${issue.keys.map((k) => `'${field ? `${field}.` : ""}${k}'`).join(", ")}`;
  if (issue.code === "invalid_union" && field === "kind") return `field 'kind' must be one of llm, files, synthetic`;
  // The input is reported (validateAgents asks for it): absent means missing, present means the wrong type.
  if (issue.code === "invalid_type")
    return issue.input === undefined
      ? `field '${field}' is required`
      : `${field ? `field '${field}'` : "the agent"} must be ${withArticle(issue.expected)}`;
  const message = issue.message.charAt(0).toLowerCase() + issue.message.slice(1);
  return field ? `field '${field}': ${message}` : message;
}

/**
 * A Responses fallback runs the same request: it must allow every built-in tool the agent it
 * stands in for allows, or a tool refused on the fallback's own terms would reach it that way.
 */
function builtinToolProblems(specs: readonly AgentSpec[]): string[] {
  const byId = new Map(specs.map((s) => [s.id, s]));
  const problems: string[] = [];
  for (const spec of specs) {
    if (spec.kind !== "llm" || !spec.responses || !spec.builtin_tools) continue;
    for (const id of spec.fallbacks ?? []) {
      const other = byId.get(id);
      if (other?.kind !== "llm" || !other.responses) continue;
      const missing = spec.builtin_tools.filter((tool) => !other.builtin_tools?.includes(tool));
      if (missing.length)
        problems.push(
          `agent '${spec.id}': fallback '${id}' does not allow the built-in tool(s) ${missing.join(", ")} that '${spec.id}' allows`,
        );
    }
  }
  return problems;
}

/** Validates a parsed agents document (`{agents: [...]}` or a bare list); throws AgentsFileError. */
export function validateAgents(doc: unknown, source: string): AgentSpec[] {
  const list = Array.isArray(doc) ? doc : FileSchema.safeParse(doc).data?.agents;
  if (!list) throw new AgentsFileError(source, ["expected a top-level 'agents' list (or a list of agents)"]);
  const problems: string[] = [];
  const specs: AgentSpec[] = [];
  const seen = new Map<string, number>();
  const aliasOwners = new Map<string, number>();
  list.forEach((raw, i) => {
    const declared = raw && typeof raw === "object" ? (raw as { id?: unknown }).id : undefined;
    if (typeof declared === "string") {
      const earlier = seen.get(declared);
      if (earlier !== undefined)
        problems.push(`${where(i, raw)}: id '${declared}' is already used by agents[${earlier}]`);
      else seen.set(declared, i);
    }
    const parsed = AgentSpecSchema.safeParse(raw, { reportInput: true });
    if (!parsed.success) {
      for (const issue of parsed.error.issues) problems.push(`${where(i, raw)}: ${describeIssue(issue)}`);
      return;
    }
    const spec = parsed.data;
    for (const name of spec.aliases ?? []) {
      const earlier = aliasOwners.get(name);
      if (earlier === undefined) aliasOwners.set(name, i);
      else
        problems.push(
          `${where(i, raw)}: alias '${name}' is already used by ${earlier === i ? "this agent" : `agents[${earlier}]`}`,
        );
    }
    if (spec.kind === "llm" && spec.base_url && spec.base_url_env) {
      problems.push(`${where(i, raw)}: set either 'base_url' or 'base_url_env', not both`);
    }
    if (spec.kind === "llm" && spec.builtin_tools && !spec.responses)
      problems.push(
        `${where(i, raw)}: 'builtin_tools' needs 'responses: true' (only an upstream's own Responses API runs them)`,
      );
    specs.push(spec);
  });
  // The built-in default agent may be named before it is added (agents-file.ts); the registry checks it then.
  if (!problems.length) problems.push(...fallbackProblems(specs, ["chat:latest"]), ...builtinToolProblems(specs));
  if (problems.length) throw new AgentsFileError(source, problems);
  return specs;
}

/** An llm agent's prices in micro-dollars per million tokens; undefined when it declares none. */
export function priceOf(spec: AgentSpec): Price | undefined {
  if (spec.kind !== "llm" || !spec.pricing) return undefined;
  const { input, output, cached_input } = spec.pricing;
  return {
    input: priceMicros(input)!,
    output: priceMicros(output)!,
    ...(cached_input !== undefined && { cachedInput: priceMicros(cached_input)! }),
  };
}
