/**
 * Settings from __ENV (`k6 run -e KEY=VALUE`, or the environment). The limits come from the
 * stack: `npm run loadtest -- --k6-env --stack NAME` prints them.
 */

export function str(name: string, fallback?: string): string {
  const v = __ENV[name];
  if (v !== undefined && v !== "") return v;
  if (fallback !== undefined) return fallback;
  throw new Error(`set ${name} (k6 run -e ${name}=…)`);
}

export function num(name: string, fallback?: number): number {
  const raw = __ENV[name];
  if (raw === undefined || raw === "") {
    if (fallback !== undefined) return fallback;
    throw new Error(`set ${name} (k6 run -e ${name}=…)`);
  }
  const n = Number(raw);
  if (!Number.isFinite(n)) throw new Error(`${name} must be a number (got '${raw}')`);
  return n;
}

/** The API origin (no /v1) and the project API key. */
export const BASE_URL = str("BASE_URL", "http://127.0.0.1:8080").replace(/\/+$/, "");
export const API_KEY = str("API_KEY", "");

export const limits = {
  readTimeoutMs: num("READ_TIMEOUT_MS", 180_000),
  // The service default (service/src/sse/heartbeat.ts); k6 cannot import it.
  heartbeatSeconds: num("HEARTBEAT_SECONDS", 15),
  clientBodyBufferBytes: num("CLIENT_BODY_BUFFER_BYTES", 5120 * 1024),
  jsonBodyLimitBytes: num("JSON_BODY_LIMIT_BYTES", 5120 * 1024),
  fileMaxBytes: num("FILE_MAX_BYTES", 512 * 1024 * 1024),
};

export const url = (path: string) => `${BASE_URL}${path}`;

export function authHeaders(key: string = API_KEY, extra: Record<string, string> = {}): Record<string, string> {
  return { Authorization: `Bearer ${key}`, ...extra };
}
