/**
 * Every environment variable the service reads is checked at start: all problems at once, one
 * line each naming the variable and what it accepts; the server process exits 2 without a stack.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../service/src/config.js";

const base = () => ({ DATA_DIR: mkdtempSync(join(tmpdir(), "agentport-config-")), JWT_SECRET: "s".repeat(64) });

/** The problems loadConfig refuses `env` with (none: it was accepted). */
function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig({ ...base(), ...env });
    return [];
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
}

describe("configuration from the environment", () => {
  const refused: [string, string, string][] = [
    ["PORT", "abc", "PORT must be an integer from 0 to 65535 (got 'abc')"],
    ["PORT", "70000", "PORT must be an integer from 0 to 65535 (got '70000')"],
    ["LOG_LEVEL", "verbose", "LOG_LEVEL must be one of trace, debug, info, warn, error, fatal, silent (got 'verbose')"],
    ["LLM_BASE_URL", "not-a-url", "LLM_BASE_URL must be a URL starting with http:// or https:// (got 'not-a-url')"],
    [
      "LLM_BASE_URL",
      "ftp://llm.example.com",
      "LLM_BASE_URL must be a URL starting with http:// or https:// (got 'ftp://llm.example.com')",
    ],
    [
      "PUBLIC_URL",
      "api.example.com",
      "PUBLIC_URL must be a URL starting with http:// or https:// (got 'api.example.com')",
    ],
    ["JWT_ALGORITHM", "RS256", "JWT_ALGORITHM must be one of HS256, HS384, HS512 (got 'RS256')"],
    ["BLOB_STORE", "gcs", "BLOB_STORE must be one of local, s3, azure (got 'gcs')"],
    ["LLM_TIMEOUT_SECONDS", "10m", "LLM_TIMEOUT_SECONDS must be a positive number of seconds (got '10m')"],
    ["LLM_IDLE_TIMEOUT_SECONDS", "0", "LLM_IDLE_TIMEOUT_SECONDS must be a positive number of seconds (got '0')"],
    ["HEARTBEAT_SECONDS", "-1", "HEARTBEAT_SECONDS must be a positive number of seconds (got '-1')"],
    ["SHUTDOWN_GRACE_SECONDS", "soon", "SHUTDOWN_GRACE_SECONDS must be a positive number of seconds (got 'soon')"],
    [
      "DATABASE_CONNECT_TIMEOUT_SECONDS",
      "x",
      "DATABASE_CONNECT_TIMEOUT_SECONDS must be a positive number of seconds (got 'x')",
    ],
    [
      "DATABASE_QUERY_TIMEOUT_SECONDS",
      "Infinity",
      "DATABASE_QUERY_TIMEOUT_SECONDS must be a positive number of seconds (got 'Infinity')",
    ],
    ["KEY_CACHE_TRUST_SECONDS", "-3", "KEY_CACHE_TRUST_SECONDS must be a positive number of seconds (got '-3')"],
    ["REQUEST_TIMEOUT_SECONDS", "1e3", "REQUEST_TIMEOUT_SECONDS must be a positive number of seconds (got '1e3')"],
    ["HEADERS_TIMEOUT_SECONDS", "0x10", "HEADERS_TIMEOUT_SECONDS must be a positive number of seconds (got '0x10')"],
    ["MCP_SESSION_IDLE_SECONDS", "none", "MCP_SESSION_IDLE_SECONDS must be a positive number of seconds (got 'none')"],
    ["MAX_CONNECTIONS", "0", "MAX_CONNECTIONS must be an integer >= 1 (got '0')"],
    ["MCP_MAX_SESSIONS_PER_KEY", "2.5", "MCP_MAX_SESSIONS_PER_KEY must be an integer >= 1 (got '2.5')"],
    ["RATE_LIMIT_RPM", "0", "RATE_LIMIT_RPM must be an integer from 1 to 2147483647 (got '0')"],
    ["RATE_LIMIT_TPM", "lots", "RATE_LIMIT_TPM must be an integer from 1 to 2147483647 (got 'lots')"],
    ["RESPONSES_RETENTION_DAYS", "-1", "RESPONSES_RETENTION_DAYS must be an integer from 0 to 36500 (got '-1')"],
    ["RESPONSES_RETENTION_DAYS", "30d", "RESPONSES_RETENTION_DAYS must be an integer from 0 to 36500 (got '30d')"],
    [
      "JSON_BODY_LIMIT",
      "5 TB",
      "JSON_BODY_LIMIT must be a byte size such as 5242880, 5120k or 512m, at most 32m (got '5 TB')",
    ],
    ["FILE_MAX_BYTES", "big", "FILE_MAX_BYTES must be a byte size such as 5242880, 5120k or 512m (got 'big')"],
    ["DATABASE_SCHEMA", "Agent Port", "DATABASE_SCHEMA must be a lower-case SQL identifier (got 'Agent Port')"],
    [
      "CORS_ORIGINS",
      "https://app.example.com/",
      "CORS_ORIGINS must be a list of origins such as https://app.example.com, without a path or a trailing slash (got 'https://app.example.com/')",
    ],
  ];
  for (const [name, value, line] of refused) {
    it(`refuses ${name}=${value}`, () => expect(problemsOf({ [name]: value })).toEqual([line]));
  }

  it("leaves the value out where it may hold a password", () => {
    expect(problemsOf({ DATABASE_URL: "mysql://u:hunter2@db/x", REDIS_URL: "http://:hunter2@redis" })).toEqual([
      "REDIS_URL must be a URL starting with redis:// or rediss://",
      "DATABASE_URL must be a URL starting with postgres://, postgresql:// or socket://",
    ]);
  });

  it("says which part of a URL is wrong, first cause first, without repeating a secret URL", () => {
    expect(problemsOf({ REDIS_URL: "redis://nope:99999" })).toEqual([
      "REDIS_URL has port 99999: a port must be from 1 to 65535",
    ]);
    expect(problemsOf({ DATABASE_URL: "postgres://u:hunter2@db:0/x" })).toEqual([
      "DATABASE_URL has port 0: a port must be from 1 to 65535",
    ]);
    expect(problemsOf({ REDIS_URL: "rediss://" })).toEqual(["REDIS_URL must name a host after rediss://"]);
    expect(problemsOf({ DATABASE_URL: "postgres://u:p#ss@db/x" })).toEqual([
      "DATABASE_URL is not a valid URL: percent-encode any @, #, / or space in its user name or password",
    ]);
    expect(problemsOf({ LLM_BASE_URL: "http://llm.internal:80800/v1" })).toEqual([
      "LLM_BASE_URL has port 80800: a port must be from 1 to 65535 (got 'http://llm.internal:80800/v1')",
    ]);
    expect(problemsOf({ REDIS_URL: "redis://cache.internal:6379/0", LLM_BASE_URL: "http://[::1]:8000/v1" })).toEqual(
      [],
    );
  });

  it("names what each blob store needs", () => {
    expect(problemsOf({ BLOB_STORE: "s3", S3_ENDPOINT: "minio:9000", S3_FORCE_PATH_STYLE: "yes" })).toEqual([
      "S3_BUCKET must be set when BLOB_STORE=s3 (the bucket's name)",
      "S3_ENDPOINT must be a URL starting with http:// or https:// (got 'minio:9000')",
      "S3_FORCE_PATH_STYLE must be true or false (got 'yes')",
    ]);
    expect(problemsOf({ BLOB_STORE: "Azure" })).toEqual([
      "AZURE_CONTAINER must be set when BLOB_STORE=azure (the container's name)",
      "AZURE_STORAGE_CONNECTION_STRING, or AZURE_STORAGE_ACCOUNT and AZURE_STORAGE_KEY, must be set when BLOB_STORE=azure",
    ]);
  });

  it("says when the generated JWT secret cannot be kept in DATA_DIR", () => {
    const file = join(mkdtempSync(join(tmpdir(), "agentport-config-")), "not-a-dir");
    writeFileSync(file, "");
    expect(() => loadConfig({ DATA_DIR: file })).toThrow(
      /^DATA_DIR must be a writable directory, or JWT_SECRET set \(.*not-a-dir/,
    );
  });

  it("lists every problem at once", () => {
    expect(problemsOf({ PORT: "abc", LOG_LEVEL: "verbose", LLM_BASE_URL: "not-a-url" })).toHaveLength(3);
  });

  it("reads good values, and empty ones as unset", () => {
    const config = loadConfig({
      ...base(),
      PORT: "9000",
      LOG_LEVEL: "warn",
      LLM_BASE_URL: "https://llm.example.com/v1/",
      JWT_ALGORITHM: "HS256",
      BLOB_STORE: "S3",
      S3_BUCKET: "b",
      S3_FORCE_PATH_STYLE: "TRUE",
      LLM_TIMEOUT_SECONDS: "0.5",
      REDIS_URL: "rediss://:pw@redis:6380",
      DATABASE_URL: "postgresql://u@db/x",
      S3_ENDPOINT: "http://127.0.0.1:9000",
      MAX_CONNECTIONS: "",
      RESPONSES_RETENTION_DAYS: "0",
    });
    expect(config).toMatchObject({
      port: 9000,
      publicUrl: "http://127.0.0.1:9000",
      logLevel: "warn",
      llmBaseUrl: "https://llm.example.com/v1",
      jwtAlgorithm: "HS256",
      blob: { kind: "s3", bucket: "b", forcePathStyle: true, endpoint: "http://127.0.0.1:9000" },
      llmTimeouts: { headersMs: 500 },
      redisUrl: "rediss://:pw@redis:6380",
      databaseUrl: "postgresql://u@db/x",
      http: { maxConnections: 10_000 },
      responsesRetentionDays: 0,
    });
    expect(loadConfig(base()).responsesRetentionDays).toBe(30);
  });
});

/** Starts the real server with `env` and waits (at most 60 s) for it to exit. */
async function startAndExit(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, ["--import", "tsx", "service/src/server.ts"], {
    env: { ...process.env, ...base(), PORT: "0", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (d) => (stderr += d));
  const code = await new Promise<number | null>((resolve) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.on("exit", (c) => (clearTimeout(timer), resolve(c)));
  });
  return { code, stderr };
}

describe("the server process with a bad environment", () => {
  it("exits 2 listing every problem on its own line, without a stack trace", async () => {
    const { code, stderr } = await startAndExit({
      PORT: "abc",
      LOG_LEVEL: "verbose",
      LLM_BASE_URL: "not-a-url",
      JWT_ALGORITHM: "none",
    });
    expect(code).toBe(2);
    expect(stderr.trim().split("\n")).toEqual([
      "agentport cannot start: fix these environment variables",
      "PORT must be an integer from 0 to 65535 (got 'abc')",
      "JWT_ALGORITHM must be one of HS256, HS384, HS512 (got 'none')",
      "LLM_BASE_URL must be a URL starting with http:// or https:// (got 'not-a-url')",
      "LOG_LEVEL must be one of trace, debug, info, warn, error, fatal, silent (got 'verbose')",
    ]);
  }, 70_000);

  it("exits 2 on an invalid agents file, its problems on their own lines, without a stack trace", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agentport-agents-"));
    const file = join(dir, "agents.json");
    writeFileSync(
      file,
      JSON.stringify({
        agents: [
          { id: "a", kind: "synthetic", tokens: 1, aliases: ["gpt-4o"] },
          { id: "b", kind: "robot" },
          { id: "c", kind: "synthetic", tokens: 1, aliases: ["gpt-4o"] },
        ],
      }),
    );
    const { code, stderr } = await startAndExit({ AGENTS_FILE: file });
    expect(code).toBe(2);
    expect(stderr.trim().split("\n")).toEqual([
      `agentport cannot start: AGENTS_FILE ${file} is invalid:`,
      "  - agents[1] (id 'b'): field 'kind' must be one of llm, files, synthetic",
      "  - agents[2] (id 'c'): alias 'gpt-4o' is already used by agents[0]",
    ]);
  }, 70_000);
});
