/** The harness from arguments to exit code: 0 all verdicts pass, 1 a threshold failed or a metric regressed, 2 usage or setup error. */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { SERVICE_VERSION } from "../../service/src/version.js";
import { scaleLimits, type Limits } from "../gateway/limits.js";
import { parseHarnessArgs, type HarnessOptions } from "./args.js";
import { compareRuns, readBaseline } from "./baseline.js";
import { measureCeiling } from "./ceiling.js";
import { createHttp, type Http } from "./http.js";
import { formatEnv, k6Env } from "./k6-env.js";
import { httpKeyAdmin } from "./key-admin.js";
import { resolveLimits, type ResolvedLimits } from "./limits-source.js";
import { startLocalTarget, type LocalTarget } from "./local-target.js";
import { junitXml, samplesCsv } from "./machine-outputs.js";
import { capProblem, isLoopback, planTraffic, renderPlan, type TrafficPlan } from "./plan.js";
import { nginxProblem, targetProblem } from "./preflight.js";
import { createProgress } from "./progress.js";
import { renderHtml } from "./report-html.js";
import type { RunReport } from "./run-report.js";
import { runScenarios, type RunInput } from "./runner.js";
import { resolveSlo, type ResolvedSlo, type Slo } from "./slo.js";
import { stackTargetUrl } from "./stack-target.js";
import { comparisonText, renderSummary, sloLine } from "./summary.js";
import type { Target } from "./types.js";
import { USAGE } from "./usage.js";

function write(file: string, text: string) {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
}

function remoteTarget(opts: HarnessOptions, baseUrl: string, http: Http): Target {
  return {
    baseUrl,
    key: opts.key!,
    keyAdmin: opts.memberToken ? httpKeyAdmin(http, baseUrl, opts.project!, async () => opts.memberToken!) : undefined,
    streamModel: opts.streamModel ?? "agentport/synthetic-20",
    // An agent of unknown length asked for output_tokens may stop earlier: count only what we know.
    streamTokens: opts.workload.outputTokens && !opts.streamModel ? undefined : opts.streamTokens,
    silentModel: opts.silentModel,
    silenceMs: opts.silenceMs,
    describe: `target ${baseUrl}`,
  };
}

/** Everything decided before any traffic: limits, thresholds, the target's URL, the plan. */
interface Prepared {
  resolved: ResolvedLimits;
  effective: Limits;
  slo: ResolvedSlo;
  targetUrl?: string;
  plan: TrafficPlan;
  /** The byte cap the client enforces. */
  maxBytes: number;
}

function budgetOf(opts: HarnessOptions, slo: Slo): RunInput["budget"] {
  return {
    concurrency: opts.concurrency,
    requests: opts.requests,
    files: opts.files,
    fileConcurrency: opts.fileConcurrency,
    ...slo,
    rates: opts.rates,
    rateSeconds: opts.rateSeconds,
    profile: opts.profile,
    sweepPoints: opts.sweepPoints,
    warmup: opts.warmup,
    arrivals: opts.arrivals,
    promptTokens: opts.workload.promptTokens,
    maxTokens: opts.workload.outputTokens,
  };
}

function prepare(opts: HarnessOptions): Prepared {
  const resolved = resolveLimits(opts.stack, opts.stacksDir, opts.overrides);
  const effective = opts.mode === "local" ? scaleLimits(resolved.limits, opts.timeScale) : resolved.limits;
  const slo = resolveSlo(opts.stack, opts.stacksDir, opts.slo);
  const fromStack = opts.mode === "target" || (opts.mode === "k6-env" && opts.stack);
  const targetUrl =
    opts.target ?? (fromStack ? stackTargetUrl(opts.stack!, opts.stacksDir, opts.stackOutputs).url : undefined);
  const plan = planTraffic({ ...opts, promptTokens: opts.workload.promptTokens ?? 0, limits: effective });
  return { resolved, effective, slo, targetUrl, plan, maxBytes: Math.max(opts.maxBytes, plan.bytes) };
}

/** --compare FILE --baseline FILE: the gate alone, on two finished runs (exit 1 when a metric got worse). */
function compareFiles(opts: HarnessOptions): number {
  let current: RunReport, baseline: RunReport;
  try {
    [current, baseline] = [readBaseline(opts.compare!, "--compare"), readBaseline(opts.baseline!)];
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n`);
    return 2;
  }
  const comparison = compareRuns(current, baseline, opts.tolerance);
  process.stdout.write(`${comparisonText(comparison)}\n`);
  return comparison.regressions.length ? 1 : 0;
}

export async function main(argv: string[]): Promise<number> {
  let opts: HarnessOptions;
  try {
    opts = parseHarnessArgs(argv);
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (opts.mode === "help" || opts.mode === "version") {
    process.stdout.write(opts.mode === "help" ? USAGE : `agentport ${SERVICE_VERSION}\n`);
    return 0;
  }
  let prep: Prepared;
  try {
    prep = prepare(opts);
  } catch (err) {
    process.stderr.write(`cannot read the stack: ${(err as Error).message}\n`);
    return 2;
  }
  if (opts.mode === "compare") return compareFiles(opts);
  if (opts.mode === "k6-env") {
    const env = k6Env({
      limits: prep.resolved.limits,
      baseUrl: prep.targetUrl,
      streamModel: opts.streamModel,
      streamTokens: opts.streamModel ? opts.streamTokens : undefined,
      silentModel: opts.silentModel,
      silenceMs: opts.silenceMs,
    });
    process.stdout.write(`${formatEnv(env)}\n`);
    return 0;
  }
  const loopback = opts.mode === "local" || isLoopback(prep.targetUrl!);
  process.stdout.write(
    `${renderPlan(prep.plan, opts.mode === "local" ? "--local (loopback)" : prep.targetUrl!, opts.maxBytes)}\n${sloLine(prep.slo.slo, prep.slo.source)}\n`,
  );
  const problem = capProblem(prep.plan, opts.maxBytes, loopback, opts.exceedCap);
  if (problem) {
    process.stderr.write(`refused: ${problem}\n`);
    return 2;
  }
  let baseline: RunReport | undefined;
  try {
    baseline = opts.baseline ? readBaseline(opts.baseline) : undefined;
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n`);
    return 2;
  }
  if (opts.dryRun) {
    process.stdout.write("dry run: nothing sent\n");
    return 0;
  }
  return run(opts, prep, baseline);
}

async function run(opts: HarnessOptions, prep: Prepared, baseline: RunReport | undefined): Promise<number> {
  const { resolved, effective } = prep;
  if (opts.mode === "local") {
    const problem = await nginxProblem(opts.nginx);
    if (problem) {
      process.stderr.write(`preflight: ${problem}\n`);
      return 2;
    }
  }
  const progress = createProgress();
  const ceiling = opts.ceilingSeconds > 0 ? await measureCeiling(opts.ceilingSeconds) : null;
  // Room for a second of the sweep's fastest arrivals, so the client's pool does not queue them.
  const http = createHttp(
    Math.max(opts.concurrency, opts.fileConcurrency, Math.ceil(Math.max(0, ...opts.rates))) * 2 + 8,
  );
  let local: LocalTarget | undefined;
  const onSignal = () => void (local?.stop() ?? Promise.resolve()).finally(() => process.exit(130));
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  try {
    let target: Target;
    let setupMs: number | null = null;
    if (opts.mode === "local") {
      const t0 = performance.now();
      progress.update("starting the service and nginx");
      try {
        local = await startLocalTarget({
          limits: effective,
          http,
          streamTokens: opts.streamTokens,
          tokenIntervalMs: opts.tokenIntervalMs,
          prefillMs: opts.prefillMs,
          nginx: opts.nginx,
        });
      } catch (err) {
        progress.done();
        process.stderr.write(`cannot start the local target: ${(err as Error).message}\n`);
        return 2;
      }
      target = local.target;
      setupMs = Math.round(performance.now() - t0);
    } else {
      target = remoteTarget(opts, prep.targetUrl!, http);
      const problem = await targetProblem(http, target.baseUrl, target.key, target.streamModel);
      if (problem) {
        progress.done();
        process.stderr.write(`preflight: ${problem}\n`);
        return 2;
      }
    }
    // From here on the run is bounded: bytes by the cap, time by the hard stop.
    http.bound({ maxBytes: prep.maxBytes, stop: AbortSignal.timeout(prep.plan.hardStopSeconds * 1000) });
    const report = await runScenarios({
      target,
      http,
      limits: resolved.limits,
      effectiveLimits: effective,
      limitsSource: resolved.source,
      timeScale: opts.mode === "local" ? opts.timeScale : 1,
      scenarioIds: opts.scenarios,
      budget: budgetOf(opts, prep.slo.slo),
      maxDurationSeconds: opts.maxDurationSeconds,
      ceiling,
      setupMs,
      sloSource: prep.slo.source,
      progress: (t) => progress.update(t),
    });
    progress.done();
    if (baseline) report.comparison = compareRuns(report, baseline, opts.tolerance);
    process.stdout.write(`${renderSummary(report)}\n`);
    if (opts.json) write(opts.json, JSON.stringify(report, null, 2));
    if (opts.html) write(opts.html, await renderHtml(report));
    if (opts.junit) write(opts.junit, junitXml(report));
    if (opts.csv) write(opts.csv, samplesCsv(report));
    if (!report.passed && local)
      process.stderr.write(
        `gateway error log (last lines):\n${local.gateway.errorLog().split("\n").slice(-30).join("\n")}\n`,
      );
    return report.passed && !report.comparison?.regressions.length ? 0 : 1;
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    await local?.stop();
    await http.close();
  }
}
