/**
 * The gateway and service limits a load test verifies. Same shape as the stack reader's
 * `loadStackLimits` output, so a stack file and command-line flags are interchangeable.
 */
export interface Limits {
  /** Ingress connect timeout to the upstream (ms). */
  connectTimeoutMs: number;
  /** Ingress read timeout: longest silence allowed between two reads from the upstream (ms). */
  readTimeoutMs: number;
  /** Ingress write timeout: longest pause between two writes to the upstream (ms). */
  writeTimeoutMs: number;
  /** Gateway `client_body_buffer_size` as written in the stack (e.g. "5120k"). */
  clientBodyBufferSize: string;
  /** The same buffer in bytes; larger bodies are spilled to disk, not refused. */
  clientBodyBufferBytes: number;
  /** Gateway `client_max_body_size` in bytes; 0 means unlimited. */
  maxBodyBytes: number;
  /** The service's largest JSON body (bytes). */
  jsonBodyLimitBytes: number;
  /** The service's largest uploaded file (bytes). */
  fileMaxBytes: number;
  /** Interval of `: keep-alive` comments on SSE streams (seconds). */
  heartbeatSeconds: number;
}

/** A time scale shrinks every timeout so a CI run takes seconds; never below 1 ms. */
export function scaleMs(ms: number, timeScale: number): number {
  return Math.max(1, Math.round(ms * timeScale));
}

/** The limits with every duration multiplied by `timeScale` (sizes are never scaled). */
export function scaleLimits(limits: Limits, timeScale: number): Limits {
  return {
    ...limits,
    connectTimeoutMs: scaleMs(limits.connectTimeoutMs, timeScale),
    readTimeoutMs: scaleMs(limits.readTimeoutMs, timeScale),
    writeTimeoutMs: scaleMs(limits.writeTimeoutMs, timeScale),
    heartbeatSeconds: scaleMs(limits.heartbeatSeconds * 1000, timeScale) / 1000,
  };
}
