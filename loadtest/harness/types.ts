/** Shapes shared by the scenarios, the runner and the reports. */
import type { Limits } from "../gateway/limits.js";
import type { Http } from "./http.js";
import type { Arrivals } from "./pool.js";
import type { Profile } from "./profile.js";
import type { Recorder } from "./recorder.js";

export type Verdict = "pass" | "fail" | "skip";

/** One assertion of a scenario, with the figure that decided it. */
export interface Check {
  name: string;
  ok: boolean;
  detail: string;
}

export interface ScenarioResult {
  id: string;
  title: string;
  verdict: Verdict;
  /** Why the scenario was skipped, or a remark worth reading. */
  note?: string;
  durationMs: number;
  /** When it began, ms since the run began (absent in reports before schema 2). */
  startMs?: number;
  checks: Check[];
  /** Every figure the scenario measured (counts, percentiles in ms, bytes). */
  figures: Record<string, number | string | boolean | null>;
}

/** Creates and deletes API keys (a member token over HTTP, or the local instance). */
export interface KeyAdmin {
  create(name: string): Promise<{ id: string; secret: string }>;
  delete(id: string): Promise<void>;
}

/** What the scenarios talk to. */
export interface Target {
  /** Origin in front of the service (the gateway), without /v1. */
  baseUrl: string;
  key: string;
  /** The same service behind the same gateway with heartbeats off (local mode: the negative control). */
  noHeartbeat?: { baseUrl: string; key: string };
  keyAdmin?: KeyAdmin;
  /** Synthetic agent that streams `streamTokens` tokens. */
  streamModel: string;
  streamTokens?: number;
  /** Synthetic agent silent for longer than the read timeout before its first token. */
  silentModel?: string;
  silenceMs?: number;
  /** Local mode: the gateway's error log so far (nginx notes each body spilled to disk). */
  gatewayErrorLog?: () => string;
  /** Local mode: directory of the service's blobs, to prove nothing was left behind. */
  blobDir?: string;
  describe: string;
}

export interface Budget {
  concurrency: number;
  requests: number;
  files: number;
  fileConcurrency: number;
  /** The whole run stops starting new work after this instant (performance.now() ms). */
  deadline: number;
  /** p95 TTFT threshold (ms). */
  ttftP95Ms: number;
  /** p95 end-to-end threshold for non-streaming requests (ms). */
  requestP95Ms: number;
  /** p95 inter-token and stream end-to-end thresholds (ms); null: not judged. */
  itlP95Ms: number | null;
  e2eP95Ms: number | null;
  /** Share of streams allowed to fail. */
  maxErrorRate: number;
  /** Unmeasured streams before the streaming scenario and before each rate of the sweep. */
  warmup: number;
  /** The sweep's arrivals. */
  arrivals: Arrivals;
  /** Prompt size in tokens (none: a short prompt) and the answer's max_tokens (none: the agent's length). */
  promptTokens?: number;
  maxTokens?: number;
  /** Offered rates of the sweep, requests per second (none: no sweep). */
  rates: number[];
  /** The load profile (null: none, or --rates alone, a constant profile). */
  profile: Profile | null;
  /** A sweep's rates between its synchronous and throughput points. */
  sweepPoints: number;
  /** How long each rate of the sweep lasts, seconds. */
  rateSeconds: number;
}

export interface RunContext {
  target: Target;
  /** Limits as the target enforces them (already time-scaled). */
  limits: Limits;
  timeScale: number;
  budget: Budget;
  http: Http;
  recorder: Recorder;
  progress: (text: string) => void;
}

export type ScenarioOutcome = Omit<ScenarioResult, "id" | "title" | "durationMs" | "startMs">;

export interface Scenario {
  id: string;
  title: string;
  run(ctx: RunContext): Promise<ScenarioOutcome>;
}
