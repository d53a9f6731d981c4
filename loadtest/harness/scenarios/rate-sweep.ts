/**
 * The load profile (`--profile`, or `--rates` alone: constant): each point after an unmeasured
 * warm-up, for `--rate-seconds` — closed-loop points (synchronous, throughput) run at most
 * `--requests` streams, rate points rate × seconds streams (a sweep's at most `--requests`). What
 * the target achieved at each point (requests and output tokens per second, TTFT, end-to-end and
 * inter-token percentiles) is the latency-vs-throughput curve; each point is judged against the
 * SLO, and a sweep reports its knee and the highest rate that met every SLO. Achieved is counted
 * over at least the offered window, so it never exceeds what was offered.
 */
import { runAtRate, runPool } from "../pool.js";
import { judgePoint } from "../point-slo.js";
import { capacityOf, initialPoints, ratesBetween, type PlannedPoint } from "../profile.js";
import type { StreamOutcome } from "../stream-client.js";
import { streamFigures } from "../stream-figures.js";
import { warmUp, workloadStream } from "../stream-request.js";
import type { SweepPoint } from "../recorder.js";
import type { Check, RunContext, Scenario, ScenarioOutcome } from "../types.js";

const SCENARIO = "rate-sweep";

/** What the target made of `planned` streams offered at `rate`: counted over at least the offered window. */
export function sweepPoint(
  rate: number,
  planned: number,
  started: number,
  outcomes: readonly StreamOutcome[],
): SweepPoint {
  const valid = outcomes.filter((o) => o.report.ok).length;
  return { kind: "rate", rate, requests: started, valid, figures: streamFigures(outcomes, (planned / rate) * 1000) };
}

/** Runs one point; returns it with its planned count. */
async function runPoint(ctx: RunContext, point: PlannedPoint): Promise<{ point: SweepPoint; planned: number }> {
  const { budget } = ctx;
  const outcomes: StreamOutcome[] = [];
  const label = point.kind === "rate" ? `${point.rate}/s` : `${point.kind} (${point.concurrency} in flight)`;
  await warmUp(ctx, budget.warmup);
  const t0 = performance.now();
  // A closed-loop point's streams get its achieved rate once it is known; recorded after.
  const record = (out: StreamOutcome, rate?: number) => {
    outcomes.push(out);
    if (rate !== undefined) ctx.recorder.addStream(SCENARIO, out, rate);
    ctx.progress(`${label}: ${outcomes.length} done`);
  };
  if (point.kind === "rate") {
    const byRate = Math.max(1, Math.round(point.rate * budget.rateSeconds));
    const planned = budget.profile === "sweep" ? Math.min(byRate, budget.requests) : byRate;
    const { started } = await runAtRate(
      planned,
      point.rate,
      budget.deadline,
      async (i) => record(await workloadStream(ctx, `rate ${point.rate} request ${i}`), point.rate),
      budget.profile === "poisson" || budget.arrivals === "poisson" ? "poisson" : "constant",
    );
    const p = sweepPoint(point.rate, planned, started, outcomes);
    return { point: { ...p, startMs: ctx.recorder.since(t0), endMs: ctx.recorder.since(performance.now()) }, planned };
  }
  const until = Math.min(budget.deadline, t0 + budget.rateSeconds * 1000);
  const { started } = await runPool(budget.requests, point.concurrency, until, async (i) =>
    record(await workloadStream(ctx, `${point.kind} request ${i}`)),
  );
  const figures = streamFigures(outcomes);
  const rate = figures.requests_per_s ?? 0;
  for (const out of outcomes) ctx.recorder.addStream(SCENARIO, out, rate);
  const valid = outcomes.filter((o) => o.report.ok).length;
  const p: SweepPoint = { kind: point.kind, rate, requests: started, valid, figures };
  return {
    point: { ...p, startMs: ctx.recorder.since(t0), endMs: ctx.recorder.since(performance.now()) },
    planned: started,
  };
}

export const rateSweepScenario: Scenario = {
  id: SCENARIO,
  title: "Load profile: latency against throughput",
  async run(ctx): Promise<ScenarioOutcome> {
    const { budget } = ctx;
    const profile = budget.profile ?? (budget.arrivals === "poisson" ? "poisson" : "constant");
    const checks: Check[] = [];
    const figures: ScenarioOutcome["figures"] = { profile, arrivals: budget.arrivals };
    const queue = initialPoints(profile, budget.rates, budget.concurrency);
    const points: SweepPoint[] = [];
    for (let next = queue.shift(); next; next = queue.shift()) {
      const { point, planned } = await runPoint(ctx, next);
      point.slo = judgePoint(point.figures, budget);
      points.push(point);
      ctx.recorder.sweep.push(point);
      const name = point.kind === "rate" ? `${point.rate} req/s` : `${point.kind} (${point.rate} req/s achieved)`;
      checks.push({
        name: `${name}: every stream valid, all planned requests ran`,
        ok: point.valid === planned && planned > 0,
        detail: `${point.valid}/${planned} valid (${point.requests} started); SLO ${point.slo.met ? "met" : `missed: ${point.slo.missed.join(", ")}`}`,
      });
      for (const [k, v] of Object.entries({ requests: point.requests, valid: point.valid, ...point.figures }))
        figures[`${point.kind === "rate" ? `rate_${point.rate}` : point.kind}_${k}`] = v;
      // The sweep's rates: from the synchronous rate up to the throughput rate, once both are known.
      if (profile === "sweep" && point.kind === "throughput") {
        const sync = points.find((p) => p.kind === "synchronous")?.rate ?? 0;
        queue.push(
          ...ratesBetween(sync, point.rate, budget.sweepPoints).map((rate) => ({ kind: "rate" as const, rate })),
        );
      }
    }
    if (profile === "sweep") {
      const capacity = capacityOf(points);
      ctx.recorder.capacity = capacity;
      Object.assign(figures, {
        knee_rate: capacity.kneeRate,
        max_slo_rate: capacity.maxSloRate,
        throughput_rate: capacity.throughputRate,
      });
    }
    return {
      verdict: checks.every((c) => c.ok) ? "pass" : "fail",
      checks,
      figures,
    };
  },
};
