/**
 * What each environment variable of the service means, for the generated configuration reference.
 * The names, what each accepts and the defaults come from the service's own readers
 * (`describeEnvironment` in service/src/config.ts); this file adds only the prose. The generator
 * refuses a variable without a description and a description of a variable nothing reads.
 */
export interface EnvDescription {
  /** The section of the reference it is listed under. */
  group: string;
  /** What it does (Markdown, relative links from docs/). */
  meaning: string;
  /** The default as a person reads it, where the reader's fallback value would mislead (a derived path, "off"). */
  shownDefault?: string;
}

const server = "Listening and HTTP";
const store = "Metadata store";
const auth = "Keys and member tokens";
const agents = "Agents and upstream";
const limits = "Limits";
const blobs = "File storage";
const logs = "Logs and traces";

/** The reference's sections, in this order. */
export const ENV_GROUPS = [server, store, auth, agents, limits, blobs, logs];

export const ENV_DESCRIPTIONS: Record<string, EnvDescription> = {
  DATA_DIR: { group: store, meaning: "embedded store, local blobs, generated JWT secret" },
  HOST: { group: server, meaning: "where the service listens" },
  PORT: { group: server, meaning: "where the service listens (`0` picks a free port)" },
  PUBLIC_URL: {
    group: server,
    meaning: "external origin; the API base URL is `<PUBLIC_URL>/v1`, MCP `<PUBLIC_URL>/mcp`",
    shownDefault: "`http://HOST:PORT`",
  },
  CORS_ORIGINS: {
    group: server,
    meaning: "browser origins allowed to call `/v1` and `/mcp` from another site; see [CORS](security.md#cors)",
    shownDefault: "— (none)",
  },
  RATE_LIMIT_RPM: {
    group: limits,
    meaning:
      "requests per minute per API key, and the ceiling of a key's own `rate_limits.rpm`; see [Rate limits](api.md#rate-limits)",
    shownDefault: "— (unlimited)",
  },
  RATE_LIMIT_TPM: {
    group: limits,
    meaning:
      "tokens (prompt and completion) per minute per API key, and the ceiling of a key's own `rate_limits.tpm`; see [Rate limits](api.md#rate-limits)",
    shownDefault: "— (unlimited)",
  },
  BUDGET_KEY_USD: {
    group: limits,
    meaning:
      "each new key's budget in USD per `BUDGET_KEY_PERIOD` (a key's own `budget` replaces it); see [Spend and budgets](api.md#spend-and-budgets)",
    shownDefault: "— (none)",
  },
  BUDGET_KEY_PERIOD: {
    group: limits,
    meaning: "the period of `BUDGET_KEY_USD`: `30s`, `15m`, `12h`, `7d`, `1mo` (calendar month, UTC) or `total`",
  },
  BUDGET_PROJECT_USD: {
    group: limits,
    meaning:
      "the budget in USD per `BUDGET_PROJECT_PERIOD` of each project without one of its own; see [Spend and budgets](api.md#spend-and-budgets)",
    shownDefault: "— (none)",
  },
  BUDGET_PROJECT_PERIOD: {
    group: limits,
    meaning: "the period of `BUDGET_PROJECT_USD`, as `BUDGET_KEY_PERIOD`",
  },
  BUDGET_WEBHOOK_URL: {
    group: limits,
    meaning:
      "where budget alerts (80% and 100% of a key's or project's budget) are POSTed; bounded, retried, never holding a request",
    shownDefault: "— (log line and metric only)",
  },
  REDIS_URL: {
    group: limits,
    meaning:
      "Redis the replicas share rate-limit counts through (`rediss://` for TLS); without it each process counts alone",
  },
  REDIS_CONNECT_TIMEOUT_MS: {
    group: limits,
    meaning:
      "bound on connecting to Redis; past it the limits are counted per replica ([Rate limits inside](architecture.md#rate-limits-inside))",
  },
  REDIS_COMMAND_TIMEOUT_MS: {
    group: limits,
    meaning:
      "bound on every Redis call; past it the limits are counted per replica ([Rate limits inside](architecture.md#rate-limits-inside))",
  },
  DATABASE_URL: { group: store, meaning: "PostgreSQL server instead of embedded PGlite" },
  DATABASE_SCHEMA: {
    group: store,
    meaning: "schema for the service's tables on a shared database (the deployment sets `agentport`)",
    shownDefault: "— (`public`)",
  },
  DATABASE_CONNECT_TIMEOUT_SECONDS: {
    group: store,
    meaning: "opening a PostgreSQL connection, or waiting for a pooled one",
  },
  DATABASE_QUERY_TIMEOUT_SECONDS: {
    group: store,
    meaning: "one query (the server's `statement_timeout` is a second shorter)",
  },
  KEY_CACHE_TRUST_SECONDS: {
    group: auth,
    meaning: "cached key checks are trusted only this long after the revocation listener last answered",
  },
  JWT_SECRET: {
    group: auth,
    meaning: "verifies project members' tokens (the deployment's `jwt.secret`)",
    shownDefault: "generated into `DATA_DIR`",
  },
  JWT_ALGORITHM: { group: auth, meaning: "the members' tokens' signing algorithm" },
  JWT_ISSUER: {
    group: auth,
    meaning:
      "the `iss` member tokens must carry; others are refused; see [Security](security.md#what-a-tenant-can-and-cannot-make-the-deployment-do)",
  },
  JWT_AUDIENCE: { group: auth, meaning: "the `aud` member tokens must carry; others are refused" },
  MODEL_PREFIX: { group: agents, meaning: "model ids are `<prefix>/chat:latest` and `<prefix>/<agent id>`" },
  AGENTS_FILE: {
    group: agents,
    meaning: "agents declared in YAML or JSON ([Agents and models](api.md#agents-and-models))",
    shownDefault: "— (the built-in agents)",
  },
  LLM_BASE_URL: {
    group: agents,
    meaning: "upstream OpenAI-compatible endpoint for `llm` agents (e.g. the platform's LLM proxy)",
    shownDefault: "— (offline agents only)",
  },
  LLM_API_KEY: { group: agents, meaning: "the bearer key sent to `LLM_BASE_URL`" },
  LLM_MODEL: { group: agents, meaning: "upstream model of the built-in `chat:latest` when an upstream is set" },
  LLM_TIMEOUT_SECONDS: {
    group: agents,
    meaning:
      "an upstream call must send its response headers within this (a non-streamed answer sends them only when the generation is done); all of an `llm` agent's retries and fallbacks fit within it",
  },
  LLM_IDLE_TIMEOUT_SECONDS: { group: agents, meaning: "longest silence inside an upstream's streamed answer" },
  HEARTBEAT_SECONDS: {
    group: server,
    meaning: "`: keep-alive` comment interval on streams; keep it below the gateway's read timeout",
  },
  SHUTDOWN_GRACE_SECONDS: { group: server, meaning: "on SIGTERM, time given to in-flight responses and streams" },
  JSON_BODY_LIMIT: { group: server, meaning: "largest JSON body; larger → 413" },
  FILE_MAX_BYTES: { group: blobs, meaning: "largest uploaded file; larger → 413" },
  BLOB_STORE: { group: blobs, meaning: "where file bytes live: local disk, S3 or Azure Blob" },
  BLOB_DIR: { group: blobs, meaning: "with `BLOB_STORE=local`: the directory", shownDefault: "`DATA_DIR/blobs`" },
  S3_BUCKET: { group: blobs, meaning: "with `BLOB_STORE=s3`: the bucket (required)" },
  S3_REGION: { group: blobs, meaning: "with `BLOB_STORE=s3`: the bucket's region" },
  S3_ENDPOINT: { group: blobs, meaning: "with `BLOB_STORE=s3`: another endpoint (MinIO, the in-cluster objstore)" },
  S3_ACCESS_KEY_ID: {
    group: blobs,
    meaning: "with `BLOB_STORE=s3`: a static key; unset, the AWS SDK's default chain (IRSA in the cluster)",
  },
  S3_SECRET_ACCESS_KEY: { group: blobs, meaning: "with `BLOB_STORE=s3`: the static key's secret" },
  S3_FORCE_PATH_STYLE: { group: blobs, meaning: "with `BLOB_STORE=s3`: path-style URLs, `true` for MinIO" },
  AZURE_CONTAINER: { group: blobs, meaning: "with `BLOB_STORE=azure`: the container (required)" },
  AZURE_STORAGE_CONNECTION_STRING: {
    group: blobs,
    meaning: "with `BLOB_STORE=azure`: a connection string, or `AZURE_STORAGE_ACCOUNT` and `AZURE_STORAGE_KEY`",
  },
  AZURE_STORAGE_ACCOUNT: { group: blobs, meaning: "with `BLOB_STORE=azure`: the account name (with its key)" },
  AZURE_STORAGE_KEY: { group: blobs, meaning: "with `BLOB_STORE=azure`: the account key" },
  AZURE_BLOB_ENDPOINT: {
    group: blobs,
    meaning: "with `BLOB_STORE=azure` and an account name: another blob endpoint (Azurite)",
  },
  LOG_LEVEL: { group: logs, meaning: "the lowest level of log line written" },
  LOG_FORMAT: {
    group: logs,
    meaning:
      "`auto`: readable lines when stdout is a terminal, JSON lines otherwise; `json`: always JSON (what log collectors read); `pretty`: always readable, uncoloured when not a terminal",
  },
  REQUEST_TIMEOUT_SECONDS: {
    group: server,
    meaning:
      "a whole request (headers and body) must arrive within this; answers and streams are not bounded by it (Node's `requestTimeout` stops counting once the request is received). 600 s lets a 512 MiB upload through at ~1 MiB/s: raise it with the upload limit or for slower clients",
  },
  HEADERS_TIMEOUT_SECONDS: { group: server, meaning: "request headers must arrive within this" },
  MAX_CONNECTIONS: { group: server, meaning: "open connections at once; more are refused at accept" },
  LISTEN_BACKLOG: {
    group: server,
    meaning: "connections the kernel queues before the service accepts them (capped by net.core.somaxconn)",
  },
  MCP_SESSION_IDLE_SECONDS: { group: server, meaning: "an MCP session without a message for this long ends" },
  MCP_MAX_SESSIONS_PER_KEY: { group: limits, meaning: "MCP sessions one key may hold at once (429 beyond)" },
  RESPONSES_CHAIN_MAX_BYTES: {
    group: store,
    meaning: "stored bytes a `previous_response_id` continuation may rebuild (at most 32m); larger → 400",
  },
  RESPONSES_PROJECT_MAX_BYTES: {
    group: store,
    meaning: "bytes of stored responses one project may keep; `0` no cap; past it → 400 `storage_quota_exceeded`",
  },
  UPSTREAM_BREAKER_FAILURES: {
    group: agents,
    meaning:
      "failed calls within the window that open an upstream's circuit breaker (skipped to the fallback for the cooldown); `0` no breaker; see [Security](security.md#bounds-and-the-variables-that-set-them)",
  },
  UPSTREAM_BREAKER_WINDOW_SECONDS: {
    group: agents,
    meaning: "the window failures (and the retry budget's calls) are counted in",
  },
  UPSTREAM_BREAKER_COOLDOWN_SECONDS: {
    group: agents,
    meaning: "how long an open breaker skips its upstream before one half-open probe",
  },
  UPSTREAM_RETRY_BUDGET_PERCENT: {
    group: agents,
    meaning: "retries of an upstream at most this percentage of its calls in the window (plus the minimum)",
  },
  UPSTREAM_RETRY_BUDGET_MIN: { group: agents, meaning: "retries of an upstream always allowed in the window" },
  RESPONSES_RETENTION_DAYS: {
    group: store,
    meaning:
      "stored responses (`/v1/responses` with `store`) expire this many days after creation, as OpenAI keeps them; `0` keeps them forever; see [Responses](api.md#responses)",
  },
  OTEL_EXPORTER_OTLP_ENDPOINT: {
    group: logs,
    meaning:
      "OTLP/HTTP collector (`/v1/traces` is appended); setting it turns tracing on, see [Traces](operations.md#traces)",
    shownDefault: "— (tracing off)",
  },
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: {
    group: logs,
    meaning: "the traces URL itself, used as given; setting it turns tracing on",
    shownDefault: "— (tracing off)",
  },
  OTEL_EXPORTER_OTLP_PROTOCOL: { group: logs, meaning: "OTLP encoding (gRPC is not offered)" },
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: {
    group: logs,
    meaning: "OTLP encoding of traces",
    shownDefault: "`OTEL_EXPORTER_OTLP_PROTOCOL`",
  },
  OTEL_TRACES_EXPORTER: { group: logs, meaning: "`none` turns tracing off" },
  OTEL_TRACES_SAMPLER: { group: logs, meaning: "as the OpenTelemetry SDK defines it" },
  OTEL_TRACES_SAMPLER_ARG: { group: logs, meaning: "the sampler's ratio" },
  OTEL_EXPORTER_OTLP_HEADERS: { group: logs, meaning: "headers sent to the collector" },
  OTEL_EXPORTER_OTLP_TRACES_HEADERS: { group: logs, meaning: "headers sent with traces" },
  OTEL_EXPORTER_OTLP_TIMEOUT: { group: logs, meaning: "milliseconds an export may take" },
  OTEL_SDK_DISABLED: { group: logs, meaning: "`true` turns tracing off" },
};

/** Read by the OpenTelemetry SDK itself, not checked at start: listed so the reference is whole. */
export const SDK_VARIABLES: Record<string, string> = {
  OTEL_SERVICE_NAME: "the service name on every span (default `agentport`)",
  OTEL_RESOURCE_ATTRIBUTES: "`key=value` pairs added to every span's resource",
};
