/**
 * The timeouts and body limits a stack configures, as the load test must verify them.
 * Reads `stacks/Pulumi.<stack>.yaml` directly (no Pulumi): the deployment and the load test
 * share one source of truth. The API service takes its heartbeat and body limits from
 * `deriveLimits` too, so the heartbeat is below the read timeout by construction.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import { parseBytes } from "./stack/bytes.js";
import { DEFAULT_HEARTBEAT_SECONDS } from "../service/src/sse/heartbeat.js";

export interface StackLimits {
  /** Gateway connect timeout (ingress.annotations.connect-timeout), ms. */
  connectTimeoutMs: number;
  /** Gateway idle read timeout, ms: a stream silent for longer is cut. */
  readTimeoutMs: number;
  /** Gateway idle write timeout, ms. */
  writeTimeoutMs: number;
  /** gateway.env.client_body_buffer_size as written ("5120k"); larger bodies spill to disk, not 413. */
  clientBodyBufferSize: string;
  /** The same, in bytes. */
  clientBodyBufferBytes: number;
  /** client_max_body_size / proxy-body-size in bytes: above it the gateway answers 413 (0 = unlimited). */
  maxBodyBytes: number;
  /** The service's JSON body limit (JSON_BODY_LIMIT), bytes. */
  jsonBodyLimitBytes: number;
  /** The service's largest upload (FILE_MAX_BYTES), bytes. */
  fileMaxBytes: number;
  /** SSE keep-alive interval (HEARTBEAT_SECONDS), always below the read timeout. */
  heartbeatSeconds: number;
}

export const DEFAULT_TIMEOUT_MS = 180_000;
export const DEFAULT_CLIENT_BODY_BUFFER_SIZE = "5120k";
export const DEFAULT_CLIENT_MAX_BODY_SIZE = "520m";
export const DEFAULT_FILE_MAX_BYTES = "512m";

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === "object" && !Array.isArray(v) ? (v as Obj) : {});

function bytesOf(value: unknown, fallback: string, path: string): number {
  const n = parseBytes((value ?? fallback) as string | number);
  if (n === undefined) throw new Error(`${path} must be a byte size such as 5120k or 512m (got '${String(value)}')`);
  return n;
}

function millisOf(value: unknown, path: string): number {
  const n = Number(value ?? DEFAULT_TIMEOUT_MS);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${path} must be milliseconds (got '${String(value)}')`);
  return n;
}

/** The heartbeat for a read timeout: at most the service default (15 s) and at most half the timeout. */
export function heartbeatFor(readTimeoutMs: number, configured?: number): number {
  const ceiling = Math.max(1, Math.floor(readTimeoutMs / 2000));
  return configured !== undefined ? configured : Math.min(DEFAULT_HEARTBEAT_SECONDS, ceiling);
}

/** Limits from the stack's config keys (`ingress`, `gateway`, `api`, namespace stripped). */
export function deriveLimits(config: Obj): StackLimits {
  const annotations = obj(obj(config.ingress).annotations);
  const env = obj(obj(config.gateway).env);
  const api = obj(config.api);
  const clientBodyBufferSize = String(env.client_body_buffer_size ?? DEFAULT_CLIENT_BODY_BUFFER_SIZE);
  const clientBodyBufferBytes = bytesOf(clientBodyBufferSize, DEFAULT_CLIENT_BODY_BUFFER_SIZE, "gateway.env.client_body_buffer_size");
  const readTimeoutMs = millisOf(annotations["read-timeout"], "ingress.annotations.read-timeout");
  const heartbeat = api.heartbeatSeconds === undefined ? undefined : Number(api.heartbeatSeconds);
  return {
    connectTimeoutMs: millisOf(annotations["connect-timeout"], "ingress.annotations.connect-timeout"),
    readTimeoutMs,
    writeTimeoutMs: millisOf(annotations["write-timeout"], "ingress.annotations.write-timeout"),
    clientBodyBufferSize,
    clientBodyBufferBytes,
    maxBodyBytes: bytesOf(env.client_max_body_size, DEFAULT_CLIENT_MAX_BODY_SIZE, "gateway.env.client_max_body_size"),
    jsonBodyLimitBytes: api.jsonBodyLimit === undefined ? clientBodyBufferBytes : bytesOf(api.jsonBodyLimit, "", "api.jsonBodyLimit"),
    fileMaxBytes: bytesOf(api.fileMaxBytes, DEFAULT_FILE_MAX_BYTES, "api.fileMaxBytes"),
    heartbeatSeconds: heartbeatFor(readTimeoutMs, heartbeat),
  };
}

/** The project's stack directory (stackConfigDir of Pulumi.yaml). */
export const STACKS_DIR = fileURLToPath(new URL("../stacks/", import.meta.url));

/** Reads `Pulumi.<stack>.yaml` and returns its `agentport:` keys without the namespace. */
export function readStackConfig(stackName: string, stacksDir: string = STACKS_DIR): Obj {
  const file = join(stacksDir, `Pulumi.${stackName}.yaml`);
  const doc = obj(parse(readFileSync(file, "utf8")));
  const out: Obj = {};
  for (const [key, value] of Object.entries(obj(doc.config))) {
    if (key.startsWith("agentport:")) out[key.slice("agentport:".length)] = value;
  }
  return out;
}

/** The limits the load test verifies for a stack. */
export function loadStackLimits(stackName: string, stacksDir: string = STACKS_DIR): StackLimits {
  return deriveLimits(readStackConfig(stackName, stacksDir));
}
