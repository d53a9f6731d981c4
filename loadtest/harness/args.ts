/** Command-line flags of `npm run loadtest`, parsed and checked into one options object. */
import { parseArgs } from "node:util";
import { parseBytes } from "../../infra/stack/bytes.js";
import type { Limits } from "../gateway/limits.js";

export const SCENARIO_IDS = ["streaming", "idle-timeout", "body-limits", "files-load", "revocation"] as const;
/** Runs only with --rates, after the others. */
const SWEEP_ID = "rate-sweep";

export interface HarnessOptions {
  mode: "local" | "target" | "k6-env" | "help" | "version";
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
  ttftP95Ms: number;
  requestP95Ms: number;
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

export const USAGE = `usage: npm run loadtest -- (--local | --target URL --key KEY) [options]
       npm run loadtest -- --k6-env --stack NAME [--target URL]

target
      --local                   the service (synthetic agents) behind a real nginx on 127.0.0.1
      --target URL              a deployed API (origin without /v1), with --key KEY
      --key KEY                 the API key for --target
      --stack NAME              limits from stacks/Pulumi.NAME.yaml (default with --local: local)
      --stacks-dir DIR          where the stack files are
      --time-scale F            multiply every timeout by F (--local only; e.g. 0.02)
      --nginx PATH              nginx binary (default: nginx on PATH)
      --k6-env                  print the stack's limits as k6 -e settings, and exit
limits (override the stack's)
      --connect-timeout-ms N    the gateway's connect timeout
      --read-timeout-ms N       the gateway's read timeout (idle time between two reads)
      --write-timeout-ms N      the gateway's write timeout
      --heartbeat-seconds F     the service's heartbeat interval
      --client-body-buffer-size SIZE
                                the gateway's body buffer (a larger body spills to disk)
      --max-body-size SIZE      the gateway's body limit
      --json-body-limit SIZE    the service's JSON body limit
      --file-max-bytes SIZE     the service's file size limit
workload and thresholds
      --scenarios LIST          ${SCENARIO_IDS.join(",")} (default: all)
      --concurrency N           streams in flight (16)
      --requests N              streams of the streaming scenario (64)
      --files N                 files of the files scenario (24), --file-concurrency N (4)
      --stream-tokens N         tokens per stream (32), --token-interval-ms N between them (5)
      --max-duration S          no new work after S seconds (300)
      --ttft-p95-ms N           TTFT p95 budget (1000), --request-p95-ms N for the rest (1000)
      --ceiling-seconds S       measure the harness's own ceiling for S seconds (2; 0 skips)
      --rates LIST              a rate sweep after the scenarios: streams at each rate in req/s
                                (e.g. 1,5,10), evenly spaced → a latency-vs-throughput curve
      --rate-seconds S          how long each rate lasts: rate × S streams (10)
deployed targets
      --stream-model ID         the streaming agent (agentport/synthetic-20)
      --silent-model ID         an agent silent past the read timeout, --silence-ms N its silence
      --member-token JWT        key management for the revocation scenario, with --project ID
output
      --json FILE               the whole report as JSON
      --html FILE               the report as one HTML file (tables and charts, no scripts)
      --junit FILE              each check a JUnit test case (CI shows failed checks as failed tests)
      --csv FILE                the per-request samples (scenario, op, start, latency, TTFT, tokens, ok)
  -h, --help                    this text
      --version                 the agentport version
`;

function num(raw: string | undefined, name: string, fallback: number, min = 0): number {
  if (raw === undefined) return fallback;
  // Number("") and Number(" ") are 0: a blank value is not a number.
  const n = raw.trim() === "" ? NaN : Number(raw);
  if (!Number.isFinite(n) || n < min) throw new Error(`--${name} must be a number >= ${min} (got '${raw}')`);
  return n;
}

function int(raw: string | undefined, name: string, fallback: number, min = 1): number {
  const n = num(raw, name, fallback, min);
  if (!Number.isInteger(n)) throw new Error(`--${name} must be a whole number (got '${raw}')`);
  return n;
}

function bytes(raw: string | undefined, name: string): number | undefined {
  if (raw === undefined) return undefined;
  const n = parseBytes(raw);
  if (n === undefined) throw new Error(`--${name} must be a byte size such as 5242880, 5120k or 512m (got '${raw}')`);
  return n;
}

const STRING_FLAGS = [
  "target", "key", "stack", "stacks-dir", "time-scale", "connect-timeout-ms", "read-timeout-ms", "write-timeout-ms",
  "heartbeat-seconds", "client-body-buffer-size", "max-body-size", "json-body-limit", "file-max-bytes", "scenarios",
  "concurrency", "requests", "files", "file-concurrency", "stream-tokens", "token-interval-ms", "max-duration",
  "ttft-p95-ms", "request-p95-ms", "stream-model", "silent-model", "silence-ms", "member-token", "project", "json",
  "html", "junit", "csv", "ceiling-seconds", "nginx", "rates", "rate-seconds",
] as const;

export function parseHarnessArgs(argv: string[]): HarnessOptions {
  const options = Object.fromEntries(STRING_FLAGS.map((f) => [f, { type: "string" as const }]));
  const { values: v } = parseArgs({
    args: argv,
    options: { ...options, local: { type: "boolean" }, "k6-env": { type: "boolean" }, help: { type: "boolean", short: "h" }, version: { type: "boolean" } },
    strict: true,
    allowPositionals: false,
  });
  const s = v as Record<string, string | undefined>;
  const mode = v.help ? "help" : v.version ? "version" : v["k6-env"] ? "k6-env" : v.local ? "local" : s.target ? "target" : undefined;
  if (!mode) throw new Error("choose --local, --target URL --key KEY, or --k6-env");
  if (v.local && s.target) throw new Error("--local and --target exclude each other");
  if (mode === "target" && !s.key) throw new Error("--target needs --key");
  if (s["time-scale"] !== undefined && mode === "target") throw new Error("--time-scale applies to --local only: a deployment's timeouts are what they are");
  if (s.target && !/^https?:\/\/[^/]+\/?$/.test(s.target)) throw new Error(`--target must be an origin such as https://api.example.com (got '${s.target}')`);
  if (!!s["member-token"] !== !!s.project) throw new Error("--member-token and --project go together");

  const rates = s.rates === undefined ? [] : s.rates.split(",").map((r) => num(r, "rates", 0, 0.001));
  const scenarios = s.scenarios ? s.scenarios.split(",").map((x) => x.trim()).filter(Boolean) : [...SCENARIO_IDS];
  for (const id of scenarios) {
    if (![...SCENARIO_IDS, SWEEP_ID].includes(id)) throw new Error(`unknown scenario '${id}' (known: ${[...SCENARIO_IDS, SWEEP_ID].join(", ")})`);
  }
  if (scenarios.includes(SWEEP_ID) && rates.length === 0) throw new Error(`${SWEEP_ID} needs --rates LIST`);
  if (rates.length && !scenarios.includes(SWEEP_ID)) scenarios.push(SWEEP_ID);
  const overrides: Partial<Limits> = {};
  const set = <K extends keyof Limits>(k: K, value: Limits[K] | undefined) => value !== undefined && (overrides[k] = value);
  set("connectTimeoutMs", s["connect-timeout-ms"] === undefined ? undefined : int(s["connect-timeout-ms"], "connect-timeout-ms", 0));
  set("readTimeoutMs", s["read-timeout-ms"] === undefined ? undefined : int(s["read-timeout-ms"], "read-timeout-ms", 0));
  set("writeTimeoutMs", s["write-timeout-ms"] === undefined ? undefined : int(s["write-timeout-ms"], "write-timeout-ms", 0));
  set("heartbeatSeconds", s["heartbeat-seconds"] === undefined ? undefined : num(s["heartbeat-seconds"], "heartbeat-seconds", 0, 0.001));
  const buffer = bytes(s["client-body-buffer-size"], "client-body-buffer-size");
  if (buffer !== undefined) Object.assign(overrides, { clientBodyBufferSize: s["client-body-buffer-size"], clientBodyBufferBytes: buffer });
  set("maxBodyBytes", bytes(s["max-body-size"], "max-body-size"));
  set("jsonBodyLimitBytes", bytes(s["json-body-limit"], "json-body-limit"));
  set("fileMaxBytes", bytes(s["file-max-bytes"], "file-max-bytes"));

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
    streamTokens: int(s["stream-tokens"], "stream-tokens", mode === "target" && !s["stream-model"] ? 20 : 32),
    tokenIntervalMs: num(s["token-interval-ms"], "token-interval-ms", 5),
    maxDurationSeconds: num(s["max-duration"], "max-duration", 300, 1),
    rates,
    rateSeconds: num(s["rate-seconds"], "rate-seconds", 10, 0.001),
    ttftP95Ms: num(s["ttft-p95-ms"], "ttft-p95-ms", 1000, 1),
    requestP95Ms: num(s["request-p95-ms"], "request-p95-ms", 1000, 1),
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
