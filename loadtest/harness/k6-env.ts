/**
 * `--k6-env`: the environment the k6 scripts read (__ENV), derived from the same stack the
 * harness verifies, one KEY=VALUE per line (usable with `env $(…) k6 run …`). The API key is
 * never printed: set API_KEY yourself.
 */
import type { Limits } from "../gateway/limits.js";

export interface K6EnvInput {
  limits: Limits;
  baseUrl?: string;
  streamModel?: string;
  streamTokens?: number;
  silentModel?: string;
  silenceMs?: number;
}

export function k6Env(input: K6EnvInput): Record<string, string> {
  const { limits } = input;
  const env: Record<string, string> = {
    BASE_URL: input.baseUrl ?? "http://127.0.0.1:8080",
    STREAM_MODEL: input.streamModel ?? "agentport/synthetic-20",
    STREAM_TOKENS: String(input.streamTokens ?? 20),
    CONNECT_TIMEOUT_MS: String(limits.connectTimeoutMs),
    READ_TIMEOUT_MS: String(limits.readTimeoutMs),
    WRITE_TIMEOUT_MS: String(limits.writeTimeoutMs),
    HEARTBEAT_SECONDS: String(limits.heartbeatSeconds),
    CLIENT_BODY_BUFFER_BYTES: String(limits.clientBodyBufferBytes),
    MAX_BODY_BYTES: String(limits.maxBodyBytes),
    JSON_BODY_LIMIT_BYTES: String(limits.jsonBodyLimitBytes),
    FILE_MAX_BYTES: String(limits.fileMaxBytes),
  };
  if (input.silentModel) env.SILENT_MODEL = input.silentModel;
  if (input.silenceMs) env.SILENCE_MS = String(input.silenceMs);
  return env;
}

export const formatEnv = (env: Record<string, string>) =>
  Object.entries(env)
    .map(([k, v]) => `${k}=${v}`)
    .join("\n");
