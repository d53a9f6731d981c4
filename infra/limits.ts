/**
 * The timeouts and body limits a stack configures, derived from the validated stack (schema
 * defaults applied): the API service's settings, the load test and the k6 env all take them
 * from `limitsOf`, so they never disagree with what is deployed.
 */
import { heartbeatFor } from "./heartbeat.js";
import { parseBytes } from "./stack/bytes.js";
import { loadStackSpec } from "./stack/load.js";
import { gateway } from "./stack/schema-data.js";
import { api } from "./stack/schema-deploy.js";
import { ingress } from "./stack/schema-web.js";
import type { StackSpec } from "./stack/schema.js";
import { STACKS_DIR } from "./stack/stack-names.js";

export { STACKS_DIR };

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

/** The parts of a validated stack the limits come from. */
export type LimitsSource = {
  ingress: Pick<StackSpec["ingress"], "annotations">;
  gateway: Pick<StackSpec["gateway"], "env">;
  api: StackSpec["api"];
};

/** Sizes are validated by the schema, so they parse. */
const bytesOf = (v: string | number) => parseBytes(v) as number;

export function limitsOf(spec: LimitsSource): StackLimits {
  const a = spec.ingress.annotations;
  const env = spec.gateway.env;
  const readTimeoutMs = Number(a["read-timeout"]);
  const clientBodyBufferBytes = bytesOf(env.client_body_buffer_size);
  return {
    connectTimeoutMs: Number(a["connect-timeout"]),
    readTimeoutMs,
    writeTimeoutMs: Number(a["write-timeout"]),
    clientBodyBufferSize: String(env.client_body_buffer_size),
    clientBodyBufferBytes,
    maxBodyBytes: bytesOf(env.client_max_body_size),
    jsonBodyLimitBytes: spec.api.jsonBodyLimit === undefined ? clientBodyBufferBytes : bytesOf(spec.api.jsonBodyLimit),
    fileMaxBytes: bytesOf(spec.api.fileMaxBytes),
    heartbeatSeconds: heartbeatFor(readTimeoutMs, spec.api.heartbeatSeconds),
  };
}

/** The limits of a stack that sets none: the schema's defaults (the deployment reference's). */
export function defaultLimits(): StackLimits {
  return limitsOf({
    ingress: { annotations: ingress.shape.annotations.parse(undefined) },
    gateway: gateway.parse(undefined),
    api: api.parse({}),
  });
}

/** The limits the load test verifies for a stack; a stack the deployment would refuse is refused. */
export function loadStackLimits(stackName: string, stacksDir: string = STACKS_DIR): StackLimits {
  return limitsOf(loadStackSpec(stackName, stacksDir));
}
