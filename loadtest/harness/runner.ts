/**
 * Runs the chosen scenarios one after another against a target, bounded by the time budget,
 * and gathers everything the summary, the JSON and the HTML report show.
 */
import type { Limits } from "../gateway/limits.js";
import type { Ceiling } from "./ceiling.js";
import { runSummaries, SCHEMA_VERSION } from "./report-summaries.js";
import type { Http } from "./http.js";
import { Recorder } from "./recorder.js";
import type { RunReport } from "./run-report.js";
import { bodyLimitsScenario } from "./scenarios/body-limits.js";
import { filesLoadScenario } from "./scenarios/files-load.js";
import { idleTimeoutScenario } from "./scenarios/idle-timeout.js";
import { rateSweepScenario } from "./scenarios/rate-sweep.js";
import { revocationScenario } from "./scenarios/revocation.js";
import { streamingScenario } from "./scenarios/streaming.js";
import type { Budget, Scenario, ScenarioResult, Target } from "./types.js";

export const SCENARIOS: Scenario[] = [
  streamingScenario,
  idleTimeoutScenario,
  bodyLimitsScenario,
  filesLoadScenario,
  revocationScenario,
  rateSweepScenario,
];

export interface RunInput {
  target: Target;
  http: Http;
  limits: Limits;
  effectiveLimits: Limits;
  limitsSource: string;
  timeScale: number;
  scenarioIds: string[];
  budget: Omit<Budget, "deadline">;
  maxDurationSeconds: number;
  ceiling: Ceiling | null;
  setupMs: number | null;
  sloSource: string;
  progress: (text: string) => void;
}

export async function runScenarios(input: RunInput): Promise<RunReport> {
  const recorder = new Recorder();
  const started = new Date();
  const deadline = recorder.origin + input.maxDurationSeconds * 1000;
  const budget: Budget = { ...input.budget, deadline };
  const results: ScenarioResult[] = [];
  for (const scenario of SCENARIOS.filter((s) => input.scenarioIds.includes(s.id))) {
    const t0 = performance.now();
    const progress = (text: string) => input.progress(`[${scenario.id}] ${text}`);
    progress("starting");
    let outcome;
    try {
      outcome = await scenario.run({
        target: input.target,
        limits: input.effectiveLimits,
        timeScale: input.timeScale,
        budget,
        http: input.http,
        recorder,
        progress,
      });
    } catch (err) {
      outcome = {
        verdict: "fail" as const,
        note: `scenario crashed: ${(err as Error).message}`,
        checks: [],
        figures: {},
      };
    }
    results.push({
      id: scenario.id,
      title: scenario.title,
      durationMs: Math.round(performance.now() - t0),
      startMs: Math.round(recorder.since(t0)),
      ...outcome,
    });
  }
  const summaries = runSummaries({
    samples: recorder.samples,
    interTokenMs: recorder.interTokenMs,
    sweep: recorder.sweep,
  });
  return {
    schemaVersion: SCHEMA_VERSION,
    startedAt: started.toISOString(),
    durationMs: Math.round(performance.now() - recorder.origin),
    target: input.target.describe,
    limitsSource: input.limitsSource,
    timeScale: input.timeScale,
    limits: input.limits,
    effectiveLimits: input.effectiveLimits,
    budget: { ...input.budget, maxDurationSeconds: input.maxDurationSeconds },
    ceiling: input.ceiling,
    setupMs: input.setupMs,
    scenarios: results,
    samples: recorder.samples,
    interTokenMs: recorder.interTokenMs,
    sweep: recorder.sweep,
    capacity: recorder.capacity,
    summaries,
    bytesSent: input.http.bytesSent,
    sloSource: input.sloSource,
    passed: results.every((r) => r.verdict !== "fail"),
  };
}
