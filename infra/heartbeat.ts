/**
 * The heartbeat rule, written once: streams send a keep-alive comment more often than the
 * gateway's idle read timeout, or the gateway cuts a silent stream. The validator and the
 * limits (service env, load test, k6) both use it.
 */
import { MAX_HEARTBEAT_SECONDS } from "./constants.js";

/** The shortest read timeout a heartbeat can fit under (1 s of heartbeat, 1 s of slack). */
export const MIN_READ_TIMEOUT_MS = 2000;

/** The heartbeat for a read timeout: the configured one, or at most 15 s and at most half the timeout. */
export function heartbeatFor(readTimeoutMs: number, configured?: number): number {
  if (configured !== undefined) return configured;
  return Math.min(MAX_HEARTBEAT_SECONDS, Math.max(1, Math.floor(readTimeoutMs / 2000)));
}

/** Why a configured heartbeat breaks the rule, or undefined when it holds. */
export function heartbeatProblem(readTimeoutMs: number, configured?: number): string | undefined {
  if (configured !== undefined && configured * 1000 >= readTimeoutMs) {
    return `must be below the gateway read timeout (${readTimeoutMs / 1000} s) or idle streams are cut`;
  }
  return undefined;
}
