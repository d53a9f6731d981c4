/**
 * The service's whole configuration, read once from the environment.
 * Defaults run everything embedded: PGlite in ./.data, blobs on local disk, built-in agents.
 */
import { mkdirSync, readFileSync, writeFileSync, existsSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { join, resolve } from "node:path";
import { parseBytes } from "./byte-size.js";
import { DEFAULT_HEARTBEAT_SECONDS } from "./sse/heartbeat.js";

export type BlobStoreConfig =
  | { kind: "local"; dir: string }
  | {
      kind: "s3";
      bucket: string;
      region: string;
      endpoint?: string;
      accessKeyId?: string;
      secretAccessKey?: string;
      forcePathStyle: boolean;
    }
  | { kind: "azure"; container: string; connectionString?: string; account?: string; accountKey?: string; endpoint?: string };

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
  /** Largest JSON body accepted, in bytes (default 5120 KiB, the gateway's buffer size). */
  jsonBodyLimit: number;
  /** Largest uploaded file, in bytes (default 512 MiB). */
  fileMaxBytes: number;
  /** Where file bytes live: local disk, S3 or Azure Blob (BLOB_STORE and its variables). */
  blob: BlobStoreConfig;
  /** pino level (LOG_LEVEL). */
  logLevel: string;
  /** Client-side bounds of the HTTP server (slow or idle clients cannot hold it). */
  http: {
    /** Whole request (headers and body) must arrive within this; a response's duration is not bounded. */
    requestTimeoutMs: number;
    /** Request headers must arrive within this. */
    headersTimeoutMs: number;
    /** Open connections at once; more are refused at accept. */
    maxConnections: number;
  };
  /** Idle MCP sessions are closed after this many seconds. */
  mcpSessionIdleSeconds: number;
  /** Open MCP sessions allowed per API key. */
  mcpMaxSessionsPerKey: number;
}

type Env = Record<string, string | undefined>;

/** A byte-size variable; a value that is not one stops the start with a clear message. */
function bytes(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const n = parseBytes(raw);
  if (n === undefined) throw new Error(`${name} must be a byte size such as 5242880, 5120k or 512m (got '${raw}')`);
  return n;
}

/** A comma-separated list of origins (`https://app.example.com`), each checked to be one. */
function origins(env: Env, name: string): string[] {
  const list = (env[name] ?? "").split(",").map((o) => o.trim()).filter(Boolean);
  for (const o of list) {
    let origin: string | undefined;
    try {
      origin = new URL(o).origin;
    } catch {}
    if (origin !== o) throw new Error(`${name} must list origins such as https://app.example.com, without a path or a trailing slash (got '${o}')`);
  }
  return list;
}

function int(env: Env, name: string, fallback: number, min = 0): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new Error(`${name} must be an integer >= ${min} (got '${raw}')`);
  return n;
}

function positiveSeconds(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number of seconds (got '${raw}')`);
  return n;
}

/** The JWT secret: from the environment, else generated once and kept in the data dir (mode 0600). */
function jwtSecretFor(env: Env, dataDir: string): string {
  if (env.JWT_SECRET) return env.JWT_SECRET;
  const file = join(dataDir, "jwt-secret");
  if (existsSync(file)) return readFileSync(file, "utf8").trim();
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(48).toString("base64url");
  writeFileSync(file, secret + "\n", { mode: 0o600, flag: "wx" });
  return secret;
}

function blobConfig(env: Env, dataDir: string): BlobStoreConfig {
  const kind = (env.BLOB_STORE ?? "local").toLowerCase();
  if (kind === "local") return { kind, dir: resolve(env.BLOB_DIR ?? join(dataDir, "blobs")) };
  if (kind === "s3") {
    if (!env.S3_BUCKET) throw new Error("BLOB_STORE=s3 needs S3_BUCKET");
    return {
      kind,
      bucket: env.S3_BUCKET,
      region: env.S3_REGION ?? "us-east-1",
      endpoint: env.S3_ENDPOINT || undefined,
      accessKeyId: env.S3_ACCESS_KEY_ID || undefined,
      secretAccessKey: env.S3_SECRET_ACCESS_KEY || undefined,
      forcePathStyle: (env.S3_FORCE_PATH_STYLE ?? "false").toLowerCase() === "true",
    };
  }
  if (kind === "azure") {
    if (!env.AZURE_CONTAINER) throw new Error("BLOB_STORE=azure needs AZURE_CONTAINER");
    if (!env.AZURE_STORAGE_CONNECTION_STRING && !(env.AZURE_STORAGE_ACCOUNT && env.AZURE_STORAGE_KEY)) {
      throw new Error("BLOB_STORE=azure needs AZURE_STORAGE_CONNECTION_STRING or AZURE_STORAGE_ACCOUNT and AZURE_STORAGE_KEY");
    }
    return {
      kind,
      container: env.AZURE_CONTAINER,
      connectionString: env.AZURE_STORAGE_CONNECTION_STRING || undefined,
      account: env.AZURE_STORAGE_ACCOUNT || undefined,
      accountKey: env.AZURE_STORAGE_KEY || undefined,
      endpoint: env.AZURE_BLOB_ENDPOINT || undefined,
    };
  }
  throw new Error(`BLOB_STORE must be local, s3 or azure (got '${kind}')`);
}

function schemaName(raw: string | undefined): string | undefined {
  if (!raw) return undefined;
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(raw)) throw new Error(`DATABASE_SCHEMA must be a lower-case SQL identifier (got '${raw}')`);
  return raw;
}

export function loadConfig(env: Env = process.env): ServiceConfig {
  const dataDir = resolve(env.DATA_DIR ?? ".data");
  const host = env.HOST ?? "127.0.0.1";
  const port = int(env, "PORT", 8080, 0);
  const shownHost = host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host;
  return {
    host,
    port,
    publicUrl: (env.PUBLIC_URL ?? `http://${shownHost}:${port}`).replace(/\/+$/, ""),
    corsOrigins: origins(env, "CORS_ORIGINS"),
    rateLimitRpm: env.RATE_LIMIT_RPM ? int(env, "RATE_LIMIT_RPM", 0, 1) : undefined,
    rateLimitTpm: env.RATE_LIMIT_TPM ? int(env, "RATE_LIMIT_TPM", 0, 1) : undefined,
    redisUrl: env.REDIS_URL || undefined,
    redisTimeouts: { connectMs: int(env, "REDIS_CONNECT_TIMEOUT_MS", 1000, 1), commandMs: int(env, "REDIS_COMMAND_TIMEOUT_MS", 250, 1) },
    dataDir,
    databaseUrl: env.DATABASE_URL || undefined,
    databaseSchema: schemaName(env.DATABASE_SCHEMA),
    databaseTimeouts: {
      connectMs: positiveSeconds(env, "DATABASE_CONNECT_TIMEOUT_SECONDS", 5) * 1000,
      queryMs: positiveSeconds(env, "DATABASE_QUERY_TIMEOUT_SECONDS", 15) * 1000,
      listenerTrustMs: positiveSeconds(env, "KEY_CACHE_TRUST_SECONDS", 3) * 1000,
    },
    jwtSecret: jwtSecretFor(env, dataDir),
    jwtAlgorithm: env.JWT_ALGORITHM ?? "HS512",
    modelPrefix: env.MODEL_PREFIX ?? "agentport",
    agentsFile: env.AGENTS_FILE || undefined,
    llmBaseUrl: env.LLM_BASE_URL?.replace(/\/+$/, "") || undefined,
    llmApiKey: env.LLM_API_KEY || undefined,
    llmModel: env.LLM_MODEL || "default",
    llmTimeouts: {
      headersMs: positiveSeconds(env, "LLM_TIMEOUT_SECONDS", 600) * 1000,
      idleMs: positiveSeconds(env, "LLM_IDLE_TIMEOUT_SECONDS", 300) * 1000,
    },
    heartbeatSeconds: positiveSeconds(env, "HEARTBEAT_SECONDS", DEFAULT_HEARTBEAT_SECONDS),
    shutdownGraceSeconds: positiveSeconds(env, "SHUTDOWN_GRACE_SECONDS", 30),
    jsonBodyLimit: bytes(env, "JSON_BODY_LIMIT", 5120 * 1024),
    fileMaxBytes: bytes(env, "FILE_MAX_BYTES", 512 * 1024 ** 2),
    blob: blobConfig(env, dataDir),
    logLevel: env.LOG_LEVEL ?? "info",
    http: {
      // 600 s: a 512 MiB upload at ~1 MiB/s. It bounds receiving a request, never a stream's answer.
      requestTimeoutMs: positiveSeconds(env, "REQUEST_TIMEOUT_SECONDS", 600) * 1000,
      headersTimeoutMs: positiveSeconds(env, "HEADERS_TIMEOUT_SECONDS", 30) * 1000,
      maxConnections: int(env, "MAX_CONNECTIONS", 10_000, 1),
    },
    mcpSessionIdleSeconds: positiveSeconds(env, "MCP_SESSION_IDLE_SECONDS", 600),
    mcpMaxSessionsPerKey: int(env, "MCP_MAX_SESSIONS_PER_KEY", 16, 1),
  };
}
