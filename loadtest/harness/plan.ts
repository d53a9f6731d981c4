/**
 * What a run will send, worked out before it sends anything: streams, other requests, request
 * bytes (an upper bound) and the time bound. It is printed first, is all `--dry-run` does, and
 * decides whether the run fits the byte cap.
 */
import type { Limits } from "../gateway/limits.js";
import { formatBytes } from "./format.js";
import type { Profile } from "./profile.js";

const MiB = 1024 * 1024;
/** files-load uploads files of 1 KiB to 512 KiB. */
const FILES_LOAD_MAX_BYTES = 512 * 1024;
/** A stream's request body besides its prompt: model, options, framing. */
const CHAT_OVERHEAD_BYTES = 200;
/** Bytes of prompt text per prompt token (one short word a token, see workload.ts). */
export const BYTES_PER_PROMPT_TOKEN = 6;

export interface PlanInput {
  scenarios: string[];
  requests: number;
  files: number;
  rates: number[];
  rateSeconds: number;
  /** null or absent: --rates alone (a constant profile). */
  profile?: Profile | null;
  sweepPoints?: number;
  warmup: number;
  promptTokens: number;
  maxDurationSeconds: number;
  /** As enforced (the body-limits scenario sends bodies at and over each). */
  limits: Limits;
}

export interface PlanLine {
  scenario: string;
  streams: number;
  /** Other requests; null when bounded by time only (the revocation scenario's listings). */
  requests: number | null;
  bytes: number;
}

export interface TrafficPlan {
  lines: PlanLine[];
  streams: number;
  bytes: number;
  maxDurationSeconds: number;
  /** The hard stop: in-flight work is aborted this long after the time budget ends. */
  hardStopSeconds: number;
}

/** Grace after the time budget for work already started: 10 %, between 5 and 30 s. */
export const graceSeconds = (maxDurationSeconds: number) => Math.min(30, Math.max(5, maxDurationSeconds / 10));

function bodyLimitsBytes(l: Limits): { requests: number; bytes: number } {
  const json = l.jsonBodyLimitBytes * 2 + 1;
  const buffer = [Math.floor(l.clientBodyBufferBytes / 2), Math.floor(l.clientBodyBufferBytes * 1.25) + MiB / 2].filter(
    (s) => s <= l.fileMaxBytes,
  );
  const files = buffer.reduce((a, b) => a + b, 0) + l.fileMaxBytes * 2 + 1;
  return { requests: 4 + buffer.length, bytes: json + files };
}

function lineFor(id: string, input: PlanInput): PlanLine {
  const chat = CHAT_OVERHEAD_BYTES + input.promptTokens * BYTES_PER_PROMPT_TOKEN;
  switch (id) {
    case "streaming": {
      const streams = input.requests + input.warmup;
      return { scenario: id, streams, requests: 0, bytes: streams * chat };
    }
    case "idle-timeout":
      return { scenario: id, streams: 2, requests: 0, bytes: 2 * CHAT_OVERHEAD_BYTES };
    case "body-limits": {
      const b = bodyLimitsBytes(input.limits);
      return { scenario: id, streams: 2, requests: b.requests, bytes: b.bytes };
    }
    case "files-load":
      return { scenario: id, streams: 0, requests: input.files * 6, bytes: input.files * FILES_LOAD_MAX_BYTES };
    case "revocation":
      return { scenario: id, streams: 0, requests: null, bytes: 0 };
    case "rate-sweep": {
      const streams = profileStreams(input);
      return { scenario: id, streams, requests: 0, bytes: streams * chat };
    }
    default:
      return { scenario: id, streams: 0, requests: 0, bytes: 0 };
  }
}

/** A profile's streams, at most: a closed-loop point or a sweep's rate runs at most --requests. */
function profileStreams(input: PlanInput): number {
  const point = input.requests + input.warmup;
  switch (input.profile ?? null) {
    case "synchronous":
    case "throughput":
      return point;
    case "sweep":
      return (2 + (input.sweepPoints ?? 0)) * point;
    case "constant":
    case "poisson":
    case null:
      return input.rates.reduce((a, r) => a + Math.max(1, Math.round(r * input.rateSeconds)) + input.warmup, 0);
  }
}

export function planTraffic(input: PlanInput): TrafficPlan {
  const lines = input.scenarios.map((id) => lineFor(id, input));
  return {
    lines,
    streams: lines.reduce((a, l) => a + l.streams, 0),
    bytes: lines.reduce((a, l) => a + l.bytes, 0),
    maxDurationSeconds: input.maxDurationSeconds,
    hardStopSeconds: input.maxDurationSeconds + graceSeconds(input.maxDurationSeconds),
  };
}

/** Bytes as KiB or MiB with one decimal. */
export const approxBytes = (n: number) => (n >= MiB ? `${(n / MiB).toFixed(1)} MiB` : `${(n / 1024).toFixed(1)} KiB`);

export function renderPlan(plan: TrafficPlan, target: string, capBytes: number): string {
  const rows = plan.lines.map(
    (l) =>
      `  ${l.scenario.padEnd(13)} ${String(l.streams).padStart(5)} streams  ${(l.requests === null ? "bounded by time" : `${l.requests} requests`).padEnd(16)} up to ${approxBytes(l.bytes)}`,
  );
  return [
    `plan for ${target}:`,
    ...rows,
    `  total: ${plan.streams} streams, up to ${approxBytes(plan.bytes)} of request bodies (cap ${formatBytes(capBytes)}),` +
      ` no new work after ${plan.maxDurationSeconds} s, everything stopped at ${plan.hardStopSeconds} s`,
  ].join("\n");
}

/** Loopback hosts: traffic to them never leaves the machine. */
export function isLoopback(origin: string): boolean {
  const host = new URL(origin).hostname.replace(/^\[|\]$/g, "");
  return host === "localhost" || host === "::1" || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** The cap unless --max-bytes says otherwise; a target that is not loopback gets no more without --exceed-cap. */
export const DEFAULT_MAX_BYTES = 64 * MiB;

/**
 * Why the run may not start, or null: a plan over the cap (a loopback target may raise it with
 * --max-bytes), or over the default cap towards a target that is not loopback without --exceed-cap.
 */
export function capProblem(plan: TrafficPlan, capBytes: number, loopback: boolean, exceedCap: boolean): string | null {
  if (exceedCap) return null;
  const remoteOverDefault = !loopback && plan.bytes > DEFAULT_MAX_BYTES;
  if (plan.bytes <= capBytes && !remoteOverDefault) return null;
  const big = plan.lines.filter((l) => l.bytes > 0).sort((a, b) => b.bytes - a.bytes)[0];
  const cap = remoteOverDefault ? Math.min(capBytes, DEFAULT_MAX_BYTES) : capBytes;
  return (
    `this run would send up to ${approxBytes(plan.bytes)} to ${loopback ? "a loopback" : "a non-loopback"} target, over the ${formatBytes(cap)} cap ` +
    `(most of it: ${big.scenario}, ${approxBytes(big.bytes)}). Leave that scenario out (--scenarios)` +
    (loopback ? ", raise --max-bytes" : "") +
    `, or pass --exceed-cap to send it anyway`
  );
}
