/**
 * The contract between agents and their callers (the chat completions route, the MCP tools).
 * An agent turns a chat request into a stream of events; callers shape them for their wire.
 */
import type { Price } from "../spend/cost.js";
import type { EventEmitter } from "node:events";

export type AgentKind = "llm" | "files" | "synthetic";

/** One message of a conversation, as OpenAI's chat API carries it. */
export interface ChatMessage {
  role: "system" | "developer" | "user" | "assistant" | "tool";
  /** Text, or content parts of which text parts are used. */
  content: string | Array<{ type: string; text?: string }> | null;
  name?: string;
  tool_calls?: unknown[];
  tool_call_id?: string;
}

/** What an agent is asked: the conversation plus the OpenAI fields it may honour. */
export interface ChatRequest {
  messages: ChatMessage[];
  /** Most tokens to generate (offline agents honour it; an `llm` agent's upstream gets the fields as sent). */
  max_tokens?: number;
  /**
   * The request's other fields, as the client sent them: an `llm` agent forwards every one to its
   * upstream (model, messages and stream are its own); other kinds never read them.
   */
  fields?: Record<string, unknown>;
  /**
   * `false` when the caller collects the whole answer before replying: an `llm` agent then asks its
   * upstream for one JSON response instead of a stream. Absent means streaming.
   */
  stream?: boolean;
}

/**
 * Offline agents yield content and tool_calls, then usage, then finish. An `llm` agent relays its
 * upstream's own answer instead: `chunks` (a stream) or one `completion` (a JSON reply), then usage;
 * the upstream's chunks already carry the role and the finish reason.
 */
export type AgentEvent =
  /**
   * An upstream accepted the request and its answer begins (a relay's stream may show its headers
   * now): sent before its first chunk, which may be a while.
   */
  | { type: "answering" }
  /** A fragment of the answer's text. */
  | { type: "content"; text: string }
  /**
   * Fragments of the answer's text ready at once, each its own delta on the wire: one hop to the
   * caller for many (an unpaced agent).
   */
  | { type: "contents"; texts: string[] }
  /** Tool-call deltas, as OpenAI sends them. */
  | { type: "tool_calls"; toolCalls: unknown[] }
  /**
   * Upstream chat.completion.chunk payloads that arrived together, each as its JSON members after
   * id, object, created and model (the caller writes its own head); `text` is the content they carry.
   */
  | { type: "chunks"; chunks: string[]; text: string }
  /** An upstream's whole chat.completion, as its members after the head; `text` is its content. */
  | { type: "completion"; members: string; text: string }
  /**
   * Token counts; sent once, before the stream ends. `chunk`: the upstream's own usage chunk (its
   * members after the head), for callers whose client asked for one.
   */
  | { type: "usage"; promptTokens: number; completionTokens: number; cachedTokens?: number; chunk?: string }
  /** The answer is complete. */
  | { type: "finish"; reason: "stop" | "length" | "tool_calls" | "content_filter" };

export type UsageEvent = Extract<AgentEvent, { type: "usage" }>;

/**
 * A stop in the form undici takes for a request: an AbortSignal, or an EventEmitter that emits
 * "abort" and tells whether it has. The chat routes give the emitter: an AbortSignal made per
 * request, with undici's listener on it, cost ~20 µs of an llm answer's CPU (Node 20).
 */
export type UpstreamSignal = AbortSignal | (EventEmitter & { readonly aborted: boolean });

export interface AgentContext {
  projectId: string;
  /** Aborted when the caller goes away (client disconnect, MCP cancel, shutdown deadline). */
  signal: AbortSignal;
  /** The same stop, for an upstream HTTP request (see UpstreamSignal). */
  upstreamSignal: UpstreamSignal;
  /** Request-scoped logger (pino child). */
  log: { info(obj: object, msg?: string): void; warn(obj: object, msg?: string): void };
  /** Told which agent's upstream answered an `llm` agent (its own, or a fallback's): the access line says it. */
  answeredBy?(agentId: string): void;
}

export interface AgentInfo {
  /** Agent id as declared, e.g. "chat:latest" or "support-bot". */
  id: string;
  /** Model id clients send: `<prefix>/<id>`. */
  modelId: string;
  /** Other model names that reach the agent (the agents file's `aliases`); answers name the one asked for. */
  aliases?: string[];
  kind: AgentKind;
  /** One line for humans and for MCP tool descriptions. */
  description: string;
  /** Only embeds (`embeddings: true`): offered to /v1/embeddings, never asked to chat. */
  embeddings?: true;
  /** Unix seconds. */
  created: number;
}

export interface Agent extends AgentInfo {
  /** The most tokens its answer can have, when the agent has such a cap (what a run reserves). */
  maxCompletionTokens?: number;
  /** Its prices (micro-dollars per million tokens); undefined: its runs cost 0. */
  price?: Price;
  /**
   * Runs the agent. Errors before the first event reject the first `next()`; an upstream
   * failure is an `ApiError` (502) so callers can map it to a status or a stream error event.
   */
  run(request: ChatRequest, ctx: AgentContext): AsyncIterable<AgentEvent>;
  /** Embeds the request's input on the agent's upstream embedding model (`llm` agents with `embeddings: true`). */
  embed?(request: EmbeddingsRequest, ctx: AgentContext): Promise<Embeddings>;
  /**
   * Sends a Responses request (its body in `fields`, the conversation in `fields.input`) to the
   * upstream's own `/responses` (`llm` agents with `responses: true`), with retries and fallbacks.
   */
  forwardResponses?(request: ChatRequest, ctx: AgentContext, stream: boolean): Promise<ForwardedResponse>;
  /**
   * Runs a legacy text completion (its body in `fields`) on the upstream's own `/completions`
   * (`llm` agents with `completions: true`), with retries and fallbacks: the same events as `run`,
   * the chunks and answer being text_completion members.
   */
  runCompletion?: (request: ChatRequest, ctx: AgentContext) => AsyncIterable<AgentEvent>;
  /** Built-in tools the upstream may be asked to run (`builtin_tools`), for agents with `forwardResponses`. */
  builtinTools?: ReadonlySet<string>;
}

/** An upstream's Responses answer, checked to be one: the response object, or its stream's events as parsed. */
export type ForwardedResponse = { json: Record<string, unknown> } | { events: AsyncIterable<Record<string, unknown>> };

/** A /v1/embeddings body as the client sent it (input, encoding_format, dimensions, user, …). */
export type EmbeddingsRequest = { input: string | string[] | number[] | number[][] } & Record<string, unknown>;

/** One vector of an embeddings answer. */
export interface Embedding {
  object: "embedding";
  /** Position of its input in the request. */
  index: number;
  /** The vector: numbers, or base64 of little-endian float32 when `encoding_format` was "base64". */
  embedding: number[] | string;
}

/** An upstream's embeddings answer, checked; the caller writes the model name the client asked for. */
export interface Embeddings {
  data: Embedding[];
  /** The upstream's count, when it gave one. */
  promptTokens?: number;
}

/** The registry on the instance (`app.agents`). */
export interface AgentRegistry {
  list(projectId: string): AgentInfo[];
  /** Resolves a model id (`<prefix>/chat:latest`, `<prefix>/<id>`) or an alias; undefined when unknown. */
  resolve(projectId: string, modelId: string): Agent | undefined;
}

/** Ranked retrieval over a project's uploaded text files (provided by the files module). */
export interface FileSearchHit {
  fileId: string;
  filename: string;
  score: number;
  /** A short passage around the best match. */
  snippet: string;
}
export type FileSearch = (projectId: string, query: string, limit?: number) => Promise<FileSearchHit[]>;
