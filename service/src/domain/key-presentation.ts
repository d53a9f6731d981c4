/** Wire shapes of API keys, shared by the HTTP routes and the CLI. */
import type { ApiKeyRecord } from "./api-keys.js";
import { mcpConfigs } from "./mcp-configs.js";
import { budgetView, type SpendView } from "./spend/budget-fields.js";

const unix = (d: Date) => Math.floor(d.getTime() / 1000);

/** The ready-to-use MCP client configuration shown at key creation. */
export function mcpJson(serverName: string, publicUrl: string, secret: string) {
  return { mcpServers: { [serverName]: { url: `${publicUrl}/mcp`, headers: { Authorization: `Bearer ${secret}` } } } };
}

/** A key as OpenAI's admin API shows a project API key (never the secret), with its budget and spend. */
export function projectApiKey(k: ApiKeyRecord, spend: SpendView = { spent_usd: 0, resets_at: null }) {
  return {
    object: "organization.project.api_key" as const,
    id: k.id,
    name: k.name,
    redacted_value: k.redacted,
    created_at: unix(k.createdAt),
    last_used_at: k.lastUsedAt ? unix(k.lastUsedAt) : null,
    /** Unix seconds after which the key is refused; null: it does not expire. */
    expires_at: k.expiresAt ? unix(k.expiresAt) : null,
    /** This key's own limits; null: the deployment's default (RATE_LIMIT_RPM, RATE_LIMIT_TPM). */
    rate_limits: { rpm: k.rateLimitRpm, tpm: k.rateLimitTpm },
    /** This key's own budget; null: none (its project's still applies). */
    budget: budgetView(k.budget),
    /** USD spent in the budget's current period (without a budget: ever). */
    spent_usd: spend.spent_usd,
    /** Unix seconds the budget's period ends; null: it never resets, or there is no budget. */
    resets_at: spend.resets_at,
    created_by: k.createdBy,
    /** OpenAI's field: the owner still reaches the project. Members are not tracked here; a listed key works. */
    owner_project_access: "active" as const,
    owner: { type: "user" as const, user: { id: k.createdBy } },
  };
}

/** The one-time view at creation: the key plus its secret, the API base URL and the MCP JSON. */
export function createdApiKey(
  k: ApiKeyRecord,
  secret: string,
  publicUrl: string,
  serverName: string,
  spend?: SpendView,
) {
  return {
    ...projectApiKey(k, spend),
    secret,
    base_url: `${publicUrl}/v1`,
    mcp_json: mcpJson(serverName, publicUrl, secret),
    /** The same server in the shapes common clients document, keyed by client. */
    mcp_configs: mcpConfigs(serverName, publicUrl, secret),
  };
}
