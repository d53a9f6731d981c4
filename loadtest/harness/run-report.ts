/**
 * What a run reports: the JSON the harness writes, the summary and the HTML report read, and a later
 * run compares itself against (its own module, so the runner and the comparison need not import
 * each other).
 */
import type { Limits } from "../gateway/limits.js";
import type { Interval } from "./bootstrap.js";
import type { Ceiling } from "./ceiling.js";
import type { Capacity } from "./recorder.js";
import type { Summary } from "./stats.js";
import type { GateVerdict } from "./verdict-rule.js";
import type { Sample, SweepPoint } from "./recorder.js";
import type { Budget, ScenarioResult } from "./types.js";

export type RowVerdict = GateVerdict | "not judged";

export interface ComparisonRow {
  key: string;
  label: string;
  /** The statistic on each run's samples (or the figure, for one figure a run). */
  baseline: number | null;
  current: number | null;
  /** Change, current against baseline: relative (0.1 = +10 %) or, for the error rate, absolute. */
  change: number | null;
  /** The bootstrap interval of the change; null when not computed. */
  interval: Interval | null;
  samples: { baseline: number; current: number; needed: number } | null;
  verdict: RowVerdict;
  worse: boolean;
}

export interface Comparison {
  baselineStartedAt: string;
  baselineTarget: string;
  tolerance: number;
  confidence: number;
  rows: ComparisonRow[];
  /** Labels of the metrics that got worse. */
  regressions: string[];
}

export interface RunReport {
  /** report.schema.json's version (absent: 1). */
  schemaVersion?: number;
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
  /** The load profile's points, in the order run (empty without --profile or --rates). */
  sweep: SweepPoint[];
  /** A sweep's knee and highest rate within the SLO; null for any other run. */
  capacity: Capacity | null;
  /** Every summary, per group of streams and metric (report-summaries.ts); absent before schema 2. */
  summaries?: Record<string, Record<string, Summary>>;
  /** Request body bytes the run sent. */
  bytesSent: number;
  /** Where the thresholds came from (defaults, the stack's slo:, flags). */
  sloSource: string;
  /** This run against --baseline, when given. */
  comparison?: Comparison;
  passed: boolean;
}
