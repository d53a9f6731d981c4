/**
 * The service's whole configuration, read once from the environment.
 * Defaults run everything embedded: PGlite in ./.data, blobs on local disk, built-in agents.
 */
import { resolve } from "node:path";
import pino from "pino";
import { z } from "zod";
import type { BlobStoreConfig } from "./blobs/blob-config.js";
import type { TracingConfig } from "./telemetry/tracing-config.js";
import { DEFAULT_HEARTBEAT_SECONDS } from "./sse/heartbeat.js";
import type { GuardSettings } from "./domain/agents/upstream-guard.js";
import type { BudgetSetting } from "./domain/spend/budget-setting.js";
import { DEFAULT_CHAIN_MAX_BYTES, MAX_CHAIN_BYTES } from "./domain/responses/response-store.js";
import { DEFAULT_JWT_AUDIENCE, DEFAULT_JWT_ISSUER } from "./domain/member-token.js";
import {
  bytes,
  choice,
  declaredVariables,
  int,
  optionalInt,
  optionalText,
  origins,
  positiveSeconds,
  read,
  readingProblems,
  text,
  url,
  type Env,
  type EnvVariable,
} from "./config/env-readers.js";
import { blobConfig } from "./config/blobs.js";
import { budgetSetting } from "./config/budgets.js";
import { jwtSecretFor } from "./config/jwt-secret.js";
import { tracingConfig } from "./config/tracing.js";
import { upstreamGuards } from "./config/upstream-guards.js";

/** How log lines look (http/log-format.ts): `auto` is readable on a terminal and JSON elsewhere. */
export const LOG_FORMATS = ["auto", "json", "pretty"] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

export interface BudgetDefaults {
  key?: BudgetSetting;
  project?: BudgetSetting;
  webhookUrl?: string;
}

export interface ServiceConfig {
  /** Address the server binds (HOST). */
  host: string;
  /** Port the server listens on (PORT); 0 picks a free one. */
  port: number;
  /** Externally visible origin (no trailing slash); API base URL is `${publicUrl}/v1`. */
  publicUrl: string;
  /** Browser origins allowed to call the API and MCP across sites (CORS_ORIGINS); none by default. */
  corsOrigins: string[];
  /** Requests per minute per API key (RATE_LIMIT_RPM): a key's own may only be lower; undefined: unlimited. */
  rateLimitRpm?: number;
  /** Tokens (prompt + completion) per minute per API key (RATE_LIMIT_TPM): a key's own may only be lower; undefined: unlimited. */
  rateLimitTpm?: number;
  /**
   * Budgets by default (BUDGET_KEY_USD/_PERIOD for each new key, BUDGET_PROJECT_USD/_PERIOD for a
   * project without its own) and where budget alerts are posted (BUDGET_WEBHOOK_URL).
   */
  budgets: BudgetDefaults;
  /** Redis shared by the replicas for rate limits (REDIS_URL, rediss:// for TLS); unset: per process. */
  redisUrl?: string;
  /** Bounds on every Redis call (REDIS_CONNECT_TIMEOUT_MS, REDIS_COMMAND_TIMEOUT_MS): past them a limit is counted per replica. */
  redisTimeouts: { connectMs: number; commandMs: number };
  /** Where the embedded store, local blobs and the running server's record live (DATA_DIR). */
  dataDir: string;
  /** PostgreSQL connection string; when absent, PGlite persists to `${dataDir}/pg`. */
  databaseUrl?: string;
  /** PostgreSQL schema for the service's tables on a shared database (e.g. the platform's sqldb). */
  databaseSchema?: string;
  /** Bounds towards the PostgreSQL server (DATABASE_URL only): connect, query, revocation listener. */
  databaseTimeouts: {
    connectMs: number;
    queryMs: number;
    /** How long cached key checks are trusted after the revocation listener last proved alive. */
    listenerTrustMs: number;
  };
  /** Secret that member tokens are signed with (JWT_SECRET, the deployment's jwt.secret). */
  jwtSecret: string;
  /** Member tokens' signing algorithm (JWT_ALGORITHM, default HS512). */
  jwtAlgorithm: string;
  /** Member tokens must carry this `iss` (JWT_ISSUER) and `aud` (JWT_AUDIENCE): another service's tokens are refused. */
  jwtIssuer: string;
  jwtAudience: string;
  /** Model ids are `<modelPrefix>/<agent id>` (MODEL_PREFIX). */
  modelPrefix: string;
  /** JSON file of agent specs (AGENTS_FILE); without it the built-in agents. */
  agentsFile?: string;
  /** The default upstream's OpenAI-compatible base URL (LLM_BASE_URL); unset means offline agents only. */
  llmBaseUrl?: string;
  /** Bearer key for the default upstream (LLM_API_KEY). */
  llmApiKey?: string;
  /** Upstream model of the default chat agent (`chat:latest`); "default" lets the upstream pick. */
  llmModel: string;
  /**
   * Bounds on upstream calls: until the response headers (a non-streamed answer sends them only
   * when the whole generation is done), and the longest silence inside a streamed body.
   */
  llmTimeouts: { headersMs: number; idleMs: number };
  /** A stream with nothing to send writes an SSE comment this often, so idle timeouts on the way never fire. */
  heartbeatSeconds: number;
  /** After SIGTERM, in-flight requests and streams may finish for this long. */
  shutdownGraceSeconds: number;
  /** Largest JSON body accepted, in bytes (default 5120 KiB, the gateway's buffer size; at most MAX_JSON_BODY_LIMIT). */
  jsonBodyLimit: number;
  /** Largest uploaded file, in bytes (default 512 MiB). */
  fileMaxBytes: number;
  /** Where file bytes live: local disk, S3 or Azure Blob (BLOB_STORE and its variables). */
  blob: BlobStoreConfig;
  /** pino level (LOG_LEVEL). */
  logLevel: string;
  /** JSON lines, or readable lines on a terminal (LOG_FORMAT: auto, json, pretty). */
  logFormat: LogFormat;
  /** Client-side bounds of the HTTP server (slow or idle clients cannot hold it). */
  http: {
    /** Whole request (headers and body) must arrive within this; a response's duration is not bounded. */
    requestTimeoutMs: number;
    /** Request headers must arrive within this. */
    headersTimeoutMs: number;
    /** Open connections at once; more are refused at accept. */
    maxConnections: number;
    /** Connections the kernel queues for accept (listen's backlog; the kernel caps it at net.core.somaxconn). */
    listenBacklog: number;
  };
  /** Idle MCP sessions are closed after this many seconds. */
  mcpSessionIdleSeconds: number;
  /** Open MCP sessions allowed per API key. */
  mcpMaxSessionsPerKey: number;
  /** Stored responses expire this many days after creation (RESPONSES_RETENTION_DAYS, default 30 as OpenAI); 0 keeps them forever. */
  responsesRetentionDays: number;
  /** Stored bytes a `previous_response_id` continuation may rebuild (RESPONSES_CHAIN_MAX_BYTES, default 1 MiB, at most 32 MiB). */
  responsesChainMaxBytes: number;
  /** Bytes of stored responses one project may keep (RESPONSES_PROJECT_MAX_BYTES, default 1 GiB); 0: no cap. */
  responsesProjectMaxBytes: number;
  /** Per-upstream circuit breakers and retry budgets (UPSTREAM_BREAKER_*, UPSTREAM_RETRY_BUDGET_*). */
  upstreamGuards: UpstreamGuardsConfig;
  /** Traces to an OTLP collector; undefined (off) unless an OTLP endpoint is set. */
  tracing?: TracingConfig;
}

/** Bounds on how an upstream that fails is called again (domain/agents/upstream-guard.ts). */
export type UpstreamGuardsConfig = GuardSettings;

/** Thrown by loadConfig with every problem of the environment, one line each naming the variable. */
export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(problems.join("\n"));
    this.name = "ConfigError";
    this.problems = problems;
  }
}

/** pino's levels (LOG_LEVEL); any other name makes pino throw at start. */
export const LOG_LEVELS = [...Object.keys(pino.levels.values), "silent"];
/** Member tokens are signed with the shared secret, so only the HMAC algorithms apply. */
export const JWT_ALGORITHMS = ["HS256", "HS384", "HS512"];

/**
 * The largest JSON_BODY_LIMIT: a JSON body is parsed whole, in memory, on the event loop, and
 * nothing it carries may exceed what an upstream answer or a stored conversation may be
 * (MAX_ANSWER_BYTES, 32 MiB): a larger body could not be used whole anyway.
 */
export const MAX_JSON_BODY_LIMIT = 32 * 1024 * 1024;

function schemaName(env: Env): string | undefined {
  return read<string | undefined>(
    env,
    "DATABASE_SCHEMA",
    z.string().regex(/^[a-z_][a-z0-9_]{0,62}$/),
    undefined,
    "a lower-case SQL identifier",
  );
}

/** The configuration from `env`; a ConfigError lists every variable that is not valid, one per line. */
export function loadConfig(env: Env = process.env): ServiceConfig {
  const { value: config, problems } = readingProblems(() => readConfig(env));
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

function readConfig(env: Env): ServiceConfig {
  const dataDir = resolve(text(env, "DATA_DIR", ".data", "a directory path", false, true));
  const host = text(env, "HOST", "127.0.0.1", "an address to bind (0.0.0.0 for every interface)", false, true);
  const port = int(env, "PORT", 8080, 0, 65535);
  const shownHost = host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host;
  return {
    host,
    port,
    publicUrl: (url(env, "PUBLIC_URL", ["http", "https"]) ?? `http://${shownHost}:${port}`).replace(/\/+$/, ""),
    corsOrigins: origins(env, "CORS_ORIGINS"),
    rateLimitRpm: optionalInt(env, "RATE_LIMIT_RPM", 1, 2 ** 31 - 1),
    rateLimitTpm: optionalInt(env, "RATE_LIMIT_TPM", 1, 2 ** 31 - 1),
    budgets: {
      key: budgetSetting(env, "BUDGET_KEY"),
      project: budgetSetting(env, "BUDGET_PROJECT"),
      webhookUrl: url(env, "BUDGET_WEBHOOK_URL", ["http", "https"], true),
    },
    redisUrl: url(env, "REDIS_URL", ["redis", "rediss"], true),
    redisTimeouts: {
      connectMs: int(env, "REDIS_CONNECT_TIMEOUT_MS", 1000, 1),
      commandMs: int(env, "REDIS_COMMAND_TIMEOUT_MS", 250, 1),
    },
    dataDir,
    databaseUrl: url(env, "DATABASE_URL", ["postgres", "postgresql", "socket"], true),
    databaseSchema: schemaName(env),
    databaseTimeouts: {
      connectMs: positiveSeconds(env, "DATABASE_CONNECT_TIMEOUT_SECONDS", 5) * 1000,
      queryMs: positiveSeconds(env, "DATABASE_QUERY_TIMEOUT_SECONDS", 15) * 1000,
      listenerTrustMs: positiveSeconds(env, "KEY_CACHE_TRUST_SECONDS", 3) * 1000,
    },
    jwtSecret: jwtSecretFor(env, dataDir),
    jwtAlgorithm: choice(env, "JWT_ALGORITHM", JWT_ALGORITHMS, "HS512"),
    jwtIssuer: text(env, "JWT_ISSUER", DEFAULT_JWT_ISSUER, "the issuer (iss) member tokens must carry"),
    jwtAudience: text(env, "JWT_AUDIENCE", DEFAULT_JWT_AUDIENCE, "the audience (aud) member tokens must carry"),
    modelPrefix: text(env, "MODEL_PREFIX", "agentport", "a model-id prefix", false, true),
    agentsFile: optionalText(env, "AGENTS_FILE", "a path to a YAML or JSON file"),
    llmBaseUrl: url(env, "LLM_BASE_URL", ["http", "https"])?.replace(/\/+$/, ""),
    llmApiKey: optionalText(env, "LLM_API_KEY", "the upstream's API key", true),
    llmModel: text(env, "LLM_MODEL", "default", "the upstream's model name"),
    llmTimeouts: {
      headersMs: positiveSeconds(env, "LLM_TIMEOUT_SECONDS", 600) * 1000,
      idleMs: positiveSeconds(env, "LLM_IDLE_TIMEOUT_SECONDS", 300) * 1000,
    },
    heartbeatSeconds: positiveSeconds(env, "HEARTBEAT_SECONDS", DEFAULT_HEARTBEAT_SECONDS),
    shutdownGraceSeconds: positiveSeconds(env, "SHUTDOWN_GRACE_SECONDS", 30),
    jsonBodyLimit: bytes(env, "JSON_BODY_LIMIT", 5120 * 1024, MAX_JSON_BODY_LIMIT),
    fileMaxBytes: bytes(env, "FILE_MAX_BYTES", 512 * 1024 ** 2),
    blob: blobConfig(env, dataDir),
    logLevel: choice(env, "LOG_LEVEL", LOG_LEVELS, "info"),
    logFormat: choice(env, "LOG_FORMAT", LOG_FORMATS, "auto", true) as LogFormat,
    http: {
      // 600 s: a 512 MiB upload at ~1 MiB/s. It bounds receiving a request, never a stream's answer.
      requestTimeoutMs: positiveSeconds(env, "REQUEST_TIMEOUT_SECONDS", 600) * 1000,
      headersTimeoutMs: positiveSeconds(env, "HEADERS_TIMEOUT_SECONDS", 30) * 1000,
      maxConnections: int(env, "MAX_CONNECTIONS", 10_000, 1),
      // Node's default of 511 overflowed when thousands of streams connected at once (the capacity
      // bench's 5,000: resets); 4096 is Linux's default somaxconn, the most it grants unasked.
      listenBacklog: int(env, "LISTEN_BACKLOG", 4096, 1),
    },
    mcpSessionIdleSeconds: positiveSeconds(env, "MCP_SESSION_IDLE_SECONDS", 600),
    mcpMaxSessionsPerKey: int(env, "MCP_MAX_SESSIONS_PER_KEY", 16, 1),
    responsesRetentionDays: int(env, "RESPONSES_RETENTION_DAYS", 30, 0, 36_500),
    responsesChainMaxBytes: bytes(env, "RESPONSES_CHAIN_MAX_BYTES", DEFAULT_CHAIN_MAX_BYTES, MAX_CHAIN_BYTES),
    responsesProjectMaxBytes: bytes(env, "RESPONSES_PROJECT_MAX_BYTES", 1024 ** 3),
    upstreamGuards: upstreamGuards(env),
    tracing: tracingConfig(env),
  };
}

/**
 * Every variable the service reads, in the order it reads them, with what each accepts and its
 * default: the readers run over environments that reach every branch (each blob store, the
 * optional limits), recording instead of reporting. Nothing is written (JWT_SECRET is given).
 */
export function describeEnvironment(): EnvVariable[] {
  return declaredVariables(() => {
    for (const extra of [{}, { BLOB_STORE: "s3" }, { BLOB_STORE: "azure" }])
      readingProblems(() => readConfig({ JWT_SECRET: "described", ...extra }));
  });
}
