/** The harness from arguments to exit code: 0 all verdicts pass, 1 a threshold failed, 2 usage or setup error. */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { SERVICE_VERSION } from "../../service/src/version.js";
import { scaleLimits } from "../gateway/limits.js";
import { parseHarnessArgs, USAGE, type HarnessOptions } from "./args.js";
import { measureCeiling } from "./ceiling.js";
import { createHttp, type Http } from "./http.js";
import { formatEnv, k6Env } from "./k6-env.js";
import { httpKeyAdmin } from "./key-admin.js";
import { resolveLimits } from "./limits-source.js";
import { startLocalTarget, type LocalTarget } from "./local-target.js";
import { junitXml, samplesCsv } from "./machine-outputs.js";
import { nginxProblem, targetProblem } from "./preflight.js";
import { createProgress } from "./progress.js";
import { renderHtml } from "./report-html.js";
import { runScenarios } from "./runner.js";
import { renderSummary } from "./summary.js";
import type { Target } from "./types.js";

function write(file: string, text: string) {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
}

function remoteTarget(opts: HarnessOptions, http: Http): Target {
  const baseUrl = opts.target!;
  return {
    baseUrl,
    key: opts.key!,
    keyAdmin: opts.memberToken ? httpKeyAdmin(http, baseUrl, opts.project!, async () => opts.memberToken!) : undefined,
    streamModel: opts.streamModel ?? "agentport/synthetic-20",
    streamTokens: opts.streamTokens,
    silentModel: opts.silentModel,
    silenceMs: opts.silenceMs,
    describe: `target ${baseUrl}`,
  };
}

export async function main(argv: string[]): Promise<number> {
  let opts: HarnessOptions;
  try {
    opts = parseHarnessArgs(argv);
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (opts.mode === "help") {
    process.stdout.write(USAGE);
    return 0;
  }
  if (opts.mode === "version") {
    process.stdout.write(`agentport ${SERVICE_VERSION}\n`);
    return 0;
  }
  let resolved;
  try {
    resolved = resolveLimits(opts.stack, opts.stacksDir, opts.overrides);
  } catch (err) {
    process.stderr.write(`cannot read the limits: ${(err as Error).message}\n`);
    return 2;
  }
  if (opts.mode === "k6-env") {
    const env = k6Env({ limits: resolved.limits, baseUrl: opts.target, streamModel: opts.streamModel, streamTokens: opts.streamModel ? opts.streamTokens : undefined, silentModel: opts.silentModel, silenceMs: opts.silenceMs });
    process.stdout.write(`${formatEnv(env)}\n`);
    return 0;
  }

  const effective = opts.mode === "local" ? scaleLimits(resolved.limits, opts.timeScale) : resolved.limits;
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
  const http = createHttp(Math.max(opts.concurrency, opts.fileConcurrency, Math.ceil(Math.max(0, ...opts.rates))) * 2 + 8);
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
        local = await startLocalTarget({ limits: effective, http, streamTokens: opts.streamTokens, tokenIntervalMs: opts.tokenIntervalMs, nginx: opts.nginx });
      } catch (err) {
        progress.done();
        process.stderr.write(`cannot start the local target: ${(err as Error).message}\n`);
        return 2;
      }
      target = local.target;
      setupMs = Math.round(performance.now() - t0);
    } else {
      target = remoteTarget(opts, http);
      const problem = await targetProblem(http, target.baseUrl, target.key, target.streamModel);
      if (problem) {
        progress.done();
        process.stderr.write(`preflight: ${problem}\n`);
        return 2;
      }
    }

    const report = await runScenarios({
      target,
      http,
      limits: resolved.limits,
      effectiveLimits: effective,
      limitsSource: resolved.source,
      timeScale: opts.mode === "local" ? opts.timeScale : 1,
      scenarioIds: opts.scenarios,
      budget: {
        concurrency: opts.concurrency,
        requests: opts.requests,
        files: opts.files,
        fileConcurrency: opts.fileConcurrency,
        ttftP95Ms: opts.ttftP95Ms,
        requestP95Ms: opts.requestP95Ms,
        rates: opts.rates,
        rateSeconds: opts.rateSeconds,
      },
      maxDurationSeconds: opts.maxDurationSeconds,
      ceiling,
      setupMs,
      progress: (t) => progress.update(t),
    });
    progress.done();
    process.stdout.write(`${renderSummary(report)}\n`);
    if (opts.json) write(opts.json, JSON.stringify(report, null, 2));
    if (opts.html) write(opts.html, await renderHtml(report));
    if (opts.junit) write(opts.junit, junitXml(report));
    if (opts.csv) write(opts.csv, samplesCsv(report));
    if (!report.passed && local) process.stderr.write(`gateway error log (last lines):\n${local.gateway.errorLog().split("\n").slice(-30).join("\n")}\n`);
    return report.passed ? 0 : 1;
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    await local?.stop();
    await http.close();
  }
}
