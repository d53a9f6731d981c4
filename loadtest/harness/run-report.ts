/**
 * What a run reports: the JSON the harness writes, the summary and the HTML report read, and a later
 * run compares itself against (its own module, so the runner and the comparison need not import
 * each other).
 */
import type { Limits } from "../gateway/limits.js";
import type { Ceiling } from "./ceiling.js";
import type { Sample, SweepPoint } from "./recorder.js";
import type { Budget, ScenarioResult } from "./types.js";

export interface ComparisonRow {
  key: string;
  label: string;
  baseline: number | null;
  current: number | null;
  /** Relative change, current vs baseline (null when either is missing or the baseline is 0). */
  change: number | null;
  worse: boolean;
}

export interface Comparison {
  baselineStartedAt: string;
  baselineTarget: string;
  tolerance: number;
  rows: ComparisonRow[];
  /** Labels of the metrics that got worse. */
  regressions: string[];
}

export interface RunReport {
  startedAt: string;
  durationMs: number;
  target: string;
  limitsSource: string;
  timeScale: number;
  /** As configured (stack and flags). */
  limits: Limits;
  /** As enforced during the run (timeouts scaled). */
  effectiveLimits: Limits;
  budget: Omit<Budget, "deadline"> & { maxDurationSeconds: number };
  ceiling: Ceiling | null;
  /** Time to start the local target (service instances and gateway), ms; null for a deployed target. */
  setupMs: number | null;
  scenarios: ScenarioResult[];
  samples: Sample[];
  /** Inter-token latencies of valid streams (ms), by scenario. */
  interTokenMs: Record<string, number[]>;
  /** The rate sweep's points, in the order run (empty without --rates). */
  sweep: SweepPoint[];
  /** Request body bytes the run sent. */
  bytesSent: number;
  /** Where the thresholds came from (defaults, the stack's slo:, flags). */
  sloSource: string;
  /** This run against --baseline, when given. */
  comparison?: Comparison;
  passed: boolean;
}
