/** The gateway and service limits a load test verifies, and their time scaling. */
import type { StackLimits } from "../../infra/limits.js";

/** Same shape as the stack reader's output, so a stack file and flags are interchangeable. */
export type Limits = StackLimits;

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
