/** Decorations the plugins add to Fastify, typed once by module augmentation. */
import type { ServiceConfig } from "../config.js";
import type { ApiKeyPrincipal, ApiKeys } from "../domain/api-keys.js";
import type { ConfiguredAgents } from "../domain/agents/registry.js";
import type { Files } from "../domain/files/files.js";
import type { ResponseStore } from "../domain/responses/response-store.js";
import type { Db } from "../store/db.js";
import type { Member } from "../domain/member-token.js";

declare module "fastify" {
  interface FastifyInstance {
    config: ServiceConfig;
    db: Db;
    apiKeys: ApiKeys;
    /** The agents (an AgentRegistry); `files` agents search through `files.search`. */
    agents: ConfiguredAgents;
    /** Uploaded files: blob store, metadata, ranked retrieval (`files.search` is the agents' FileSearch). */
    files: Files;
    /** Stored responses (POST /v1/responses with `store`), within the retention. */
    responses: ResponseStore;
    /** Aborted when the shutdown grace period has run out: streams still open end with an error event. */
    drainDeadline: AbortSignal;
  }
  interface FastifyRequest {
    /** The API key's principal; set by the API-key hook on /v1 and /mcp routes. */
    auth: ApiKeyPrincipal;
    /** The project member; set by the member-token hook on key management routes. */
    member: Member;
    /** The agent whose upstream answered an `llm` agent's run (its own or a fallback's), for the access line. */
    upstreamAgent?: string;
  }
}
