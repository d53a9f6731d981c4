/**
 * What the MCP tools need from the rest of the service, as narrow interfaces: the agent registry
 * (the agents contract) and a view of the files module (`files-adapter.ts`).
 */
import type { AgentEvent, AgentRegistry, ChatMessage, FileSearchHit } from "../domain/agents/types.js";
import type { ChatOutcome } from "../metrics/chat-metrics.js";
import type { ApiKeyPrincipal } from "../domain/api-keys.js";

export interface McpFileRecord {
  id: string;
  filename: string;
  bytes: number;
  /** Unix seconds. */
  createdAt: number;
  purpose: string;
}

export interface McpFiles {
  list(
    projectId: string,
    opts: { limit: number; after?: string },
  ): Promise<{ data: McpFileRecord[]; hasMore: boolean }>;
  get(projectId: string, fileId: string): Promise<McpFileRecord | undefined>;
  /** Bytes [offset, offset + length) of the file, fewer at its end. */
  read(projectId: string, fileId: string, offset: number, length: number): Promise<Buffer>;
  search(projectId: string, query: string, limit: number): Promise<FileSearchHit[]>;
  uploadText(
    projectId: string,
    input: { filename: string; text: string; purpose: string },
    signal: AbortSignal,
  ): Promise<McpFileRecord>;
}

export interface McpLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
}

/** One agent run's metering (plugins/key-limits.ts): fed every event, ended once. */
export interface McpMeteredRun {
  saw(event: AgentEvent): void;
  end(outcome: ChatOutcome, streamed: boolean): void;
}

/** Everything one session's server is built from. */
export interface McpServerDeps {
  principal: ApiKeyPrincipal;
  agents: AgentRegistry;
  /**
   * Reserves an agent run against the key's limits (one request unit and its token estimate);
   * rejects with the 429 ApiError when the key is over a limit.
   */
  startRun(ask: { model: string; messages: readonly ChatMessage[]; agentCap?: number }): Promise<McpMeteredRun>;
  files: McpFiles;
  /** Marks the session busy while a tool runs (idle sessions are closed, busy ones never). */
  busy(sessionId: string | undefined): () => void;
  /** Aborted at the shutdown deadline: running tools stop. */
  drainDeadline: AbortSignal;
  log: McpLogger;
  limits: { uploadMaxBytes: number };
}
