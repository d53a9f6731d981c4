/** Command-line flags of `npm run loadtest`, parsed and checked into one options object. */
import { parseArgs } from "node:util";
import type { Limits } from "../gateway/limits.js";
import { bytes, int, num } from "./flag-values.js";
import { DEFAULT_MAX_BYTES } from "./plan.js";
import type { Arrivals } from "./pool.js";
import { PROFILES, type Profile } from "./profile.js";
import type { Slo } from "./slo.js";
import { parseWorkload, type Workload } from "./workload.js";

export const SCENARIO_IDS = ["streaming", "idle-timeout", "body-limits", "files-load", "revocation"] as const;
/** Runs only with --rates, after the others. */
const SWEEP_ID = "rate-sweep";

export interface HarnessOptions {
  mode: "local" | "target" | "k6-env" | "compare" | "help" | "version";
  /** --compare: a finished run's JSON report, judged against --baseline without sending anything. */
  compare?: string;
  target?: string;
  key?: string;
  stack?: string;
  stacksDir?: string;
  timeScale: number;
  /** Limits given as flags; they override the stack's. */
  overrides: Partial<Limits>;
  scenarios: string[];
  concurrency: number;
  requests: number;
  files: number;
  fileConcurrency: number;
  streamTokens: number;
  tokenIntervalMs: number;
  maxDurationSeconds: number;
  /** Offered rates of the sweep, requests per second. */
  rates: number[];
  rateSeconds: number;
  /** --profile (null: none, or --rates alone). */
  profile: Profile | null;
  /** A sweep's rates between its synchronous and throughput points. */
  sweepPoints: number;
  /** SLO thresholds given as flags; they override the stack's `slo:` block. */
  slo: Partial<Slo>;
  workload: Workload;
  arrivals: Arrivals;
  /** Unmeasured streams before the streaming scenario and before each rate of the sweep. */
  warmup: number;
  /** --local: the paced agent's wait before its first token (ms), as a model's prefill. */
  prefillMs: number;
  dryRun: boolean;
  /** Request bytes the run may send; more needs a loopback target or --exceed-cap. */
  maxBytes: number;
  exceedCap: boolean;
  /** An earlier run's JSON report to compare with. */
  baseline?: string;
  /** Relative change allowed before a metric counts as worse (0.1 = 10 %). */
  tolerance: number;
  /** `pulumi stack output --json` of the stack: the target's URL. */
  stackOutputs?: string;
  streamModel?: string;
  silentModel?: string;
  silenceMs?: number;
  memberToken?: string;
  project?: string;
  json?: string;
  html?: string;
  /** JUnit XML of the checks. */
  junit?: string;
  /** The per-request samples as CSV. */
  csv?: string;
  ceilingSeconds: number;
  nginx?: string;
}

const STRING_FLAGS = [
  "target",
  "key",
  "stack",
  "stacks-dir",
  "time-scale",
  "connect-timeout-ms",
  "read-timeout-ms",
  "write-timeout-ms",
  "heartbeat-seconds",
  "client-body-buffer-size",
  "max-body-size",
  "json-body-limit",
  "file-max-bytes",
  "scenarios",
  "concurrency",
  "requests",
  "files",
  "file-concurrency",
  "stream-tokens",
  "token-interval-ms",
  "max-duration",
  "ttft-p95-ms",
  "request-p95-ms",
  "stream-model",
  "silent-model",
  "silence-ms",
  "member-token",
  "project",
  "json",
  "html",
  "junit",
  "csv",
  "ceiling-seconds",
  "nginx",
  "rates",
  "rate-seconds",
  "max-bytes",
  "data",
  "arrivals",
  "warmup",
  "prefill-ms",
  "baseline",
  "tolerance",
  "stack-outputs",
  "itl-p95-ms",
  "e2e-p95-ms",
  "max-error-rate",
  "profile",
  "sweep-points",
  "compare",
] as const;
const BOOLEAN_FLAGS = ["local", "k6-env", "version", "dry-run", "exceed-cap"] as const;

/** Thresholds given as flags, for slo.ts to lay over the stack's. */
function sloFlags(s: Record<string, string | undefined>): Partial<Slo> {
  const slo: Partial<Slo> = {};
  const ms = (flag: string, key: "ttftP95Ms" | "requestP95Ms" | "itlP95Ms" | "e2eP95Ms") =>
    s[flag] !== undefined && (slo[key] = num(s[flag], flag, 0, 0.001));
  ms("ttft-p95-ms", "ttftP95Ms");
  ms("request-p95-ms", "requestP95Ms");
  ms("itl-p95-ms", "itlP95Ms");
  ms("e2e-p95-ms", "e2eP95Ms");
  if (s["max-error-rate"] !== undefined) {
    const rate = num(s["max-error-rate"], "max-error-rate", 0, 0);
    if (rate > 1) throw new Error(`--max-error-rate is a share between 0 and 1 (got '${s["max-error-rate"]}')`);
    slo.maxErrorRate = rate;
  }
  return slo;
}

/** Limits given as flags. */
function limitOverrides(s: Record<string, string | undefined>): Partial<Limits> {
  const overrides: Partial<Limits> = {};
  const set = <K extends keyof Limits>(k: K, value: Limits[K] | undefined) =>
    value !== undefined && (overrides[k] = value);
  set(
    "connectTimeoutMs",
    s["connect-timeout-ms"] === undefined ? undefined : int(s["connect-timeout-ms"], "connect-timeout-ms", 0),
  );
  set(
    "readTimeoutMs",
    s["read-timeout-ms"] === undefined ? undefined : int(s["read-timeout-ms"], "read-timeout-ms", 0),
  );
  set(
    "writeTimeoutMs",
    s["write-timeout-ms"] === undefined ? undefined : int(s["write-timeout-ms"], "write-timeout-ms", 0),
  );
  set(
    "heartbeatSeconds",
    s["heartbeat-seconds"] === undefined ? undefined : num(s["heartbeat-seconds"], "heartbeat-seconds", 0, 0.001),
  );
  const buffer = bytes(s["client-body-buffer-size"], "client-body-buffer-size");
  if (buffer !== undefined)
    Object.assign(overrides, { clientBodyBufferSize: s["client-body-buffer-size"], clientBodyBufferBytes: buffer });
  set("maxBodyBytes", bytes(s["max-body-size"], "max-body-size"));
  set("jsonBodyLimitBytes", bytes(s["json-body-limit"], "json-body-limit"));
  set("fileMaxBytes", bytes(s["file-max-bytes"], "file-max-bytes"));
  return overrides;
}

/** --profile checked against --rates: constant and poisson need rates, the others measure their own. */
function profileOf(raw: string | undefined, rates: number[]): Profile | null {
  if (raw === undefined) return null;
  const profile = PROFILES.find((p) => p === raw);
  if (!profile) throw new Error(`--profile is one of ${PROFILES.join(", ")} (got '${raw}')`);
  const withRates = profile === "constant" || profile === "poisson";
  if (withRates && rates.length === 0) throw new Error(`--profile ${profile} needs --rates LIST`);
  if (!withRates && rates.length)
    throw new Error(`--profile ${profile} finds its own rates: --rates is for constant and poisson`);
  return profile;
}

export function parseHarnessArgs(argv: string[]): HarnessOptions {
  const options = Object.fromEntries(STRING_FLAGS.map((f) => [f, { type: "string" as const }]));
  const { values: v } = parseArgs({
    args: argv,
    options: {
      ...options,
      ...Object.fromEntries(BOOLEAN_FLAGS.map((f) => [f, { type: "boolean" as const }])),
      help: { type: "boolean", short: "h" },
    },
    strict: true,
    allowPositionals: false,
  });
  const s = v as Record<string, string | undefined>;
  const b = v as Record<string, boolean | undefined>;
  const mode = b.help
    ? "help"
    : b.version
      ? "version"
      : b["k6-env"]
        ? "k6-env"
        : s.compare
          ? "compare"
          : b.local
            ? "local"
            : s.target || (s.stack && s.key)
              ? "target"
              : undefined;
  if (!mode) throw new Error("choose --local, --target URL --key KEY, --stack NAME --key KEY, or --k6-env");
  if (b.local && s.target) throw new Error("--local and --target exclude each other");
  if (mode === "target" && !s.key) throw new Error("--target needs --key");
  if (mode === "compare" && !s.baseline) throw new Error("--compare needs --baseline FILE");
  if (s["time-scale"] !== undefined && mode === "target")
    throw new Error("--time-scale applies to --local only: a deployment's timeouts are what they are");
  if (s.target && !/^https?:\/\/[^/]+\/?$/.test(s.target))
    throw new Error(`--target must be an origin such as https://api.example.com (got '${s.target}')`);
  if (!!s["member-token"] !== !!s.project) throw new Error("--member-token and --project go together");

  const rates = s.rates === undefined ? [] : s.rates.split(",").map((r) => num(r, "rates", 0, 0.001));
  const profile = profileOf(s.profile, rates);
  const scenarios = s.scenarios
    ? s.scenarios
        .split(",")
        .map((x) => x.trim())
        .filter(Boolean)
    : profile
      ? []
      : [...SCENARIO_IDS];
  for (const id of scenarios) {
    if (![...SCENARIO_IDS, SWEEP_ID].includes(id))
      throw new Error(`unknown scenario '${id}' (known: ${[...SCENARIO_IDS, SWEEP_ID].join(", ")})`);
  }
  if (scenarios.includes(SWEEP_ID) && rates.length === 0 && !profile)
    throw new Error(`${SWEEP_ID} needs --profile KIND or --rates LIST`);
  if ((rates.length || profile) && !scenarios.includes(SWEEP_ID)) scenarios.push(SWEEP_ID);
  const arrivals = s.arrivals ?? (profile === "poisson" ? "poisson" : "constant");
  if (arrivals !== "constant" && arrivals !== "poisson")
    throw new Error(`--arrivals is constant or poisson (got '${arrivals}')`);
  const workload = s.data === undefined ? {} : parseWorkload(s.data);
  const overrides = limitOverrides(s);

  return {
    mode,
    target: s.target?.replace(/\/+$/, ""),
    key: s.key,
    stack: s.stack ?? (mode === "local" ? "local" : undefined),
    stacksDir: s["stacks-dir"],
    timeScale: num(s["time-scale"], "time-scale", 1, 0.0001),
    overrides,
    scenarios,
    concurrency: int(s.concurrency, "concurrency", 16),
    requests: int(s.requests, "requests", 64),
    files: int(s.files, "files", 24),
    fileConcurrency: int(s["file-concurrency"], "file-concurrency", 4),
    streamTokens:
      workload.outputTokens ??
      int(s["stream-tokens"], "stream-tokens", mode === "target" && !s["stream-model"] ? 20 : 32),
    tokenIntervalMs: num(s["token-interval-ms"], "token-interval-ms", 5),
    maxDurationSeconds: num(s["max-duration"], "max-duration", 300, 1),
    rates,
    rateSeconds: num(s["rate-seconds"], "rate-seconds", 10, 0.001),
    profile,
    sweepPoints: int(s["sweep-points"], "sweep-points", 5),
    slo: sloFlags(s),
    workload,
    arrivals,
    warmup: int(s.warmup, "warmup", 2, 0),
    prefillMs: num(s["prefill-ms"], "prefill-ms", 20, 0),
    dryRun: !!b["dry-run"],
    maxBytes: bytes(s["max-bytes"], "max-bytes") ?? DEFAULT_MAX_BYTES,
    exceedCap: !!b["exceed-cap"],
    baseline: s.baseline,
    compare: s.compare,
    tolerance: num(s.tolerance, "tolerance", 0.1, 0),
    stackOutputs: s["stack-outputs"],
    streamModel: s["stream-model"],
    silentModel: s["silent-model"],
    silenceMs: s["silence-ms"] === undefined ? undefined : int(s["silence-ms"], "silence-ms", 1),
    memberToken: s["member-token"],
    project: s.project,
    json: s.json,
    html: s.html,
    junit: s.junit,
    csv: s.csv,
    ceilingSeconds: num(s["ceiling-seconds"], "ceiling-seconds", 2, 0),
    nginx: s.nginx,
  };
}
