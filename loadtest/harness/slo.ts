/**
 * The thresholds a run is judged by: the harness's defaults, then the stack's `api.slo` block
 * (so CI gates a deploy on the stack's own objectives), then flags.
 */
import { loadStackSpec } from "../../infra/stack/load.js";

export interface Slo {
  /** p95 time to first token, ms. */
  ttftP95Ms: number;
  /** p95 gap between two tokens, ms; null: not judged. */
  itlP95Ms: number | null;
  /** p95 end-to-end time of a stream, ms; null: not judged. */
  e2eP95Ms: number | null;
  /** p95 of the other requests (files), ms. */
  requestP95Ms: number;
  /** Share of streams allowed to fail. */
  maxErrorRate: number;
}

export const DEFAULT_SLO: Slo = {
  ttftP95Ms: 1000,
  itlP95Ms: null,
  e2eP95Ms: null,
  requestP95Ms: 1000,
  maxErrorRate: 0,
};

export interface ResolvedSlo {
  slo: Slo;
  source: string;
}

export function resolveSlo(stack: string | undefined, stacksDir: string | undefined, flags: Partial<Slo>): ResolvedSlo {
  const fromStack = stack ? ((stacksDir ? loadStackSpec(stack, stacksDir) : loadStackSpec(stack)).api.slo ?? {}) : {};
  const parts = [
    Object.keys(fromStack).length ? `stack ${stack}` : "defaults",
    Object.keys(flags).length ? "flags" : "",
  ];
  return { slo: { ...DEFAULT_SLO, ...fromStack, ...flags }, source: parts.filter(Boolean).join(" + ") };
}
