/**
 * Rate sweep (`--rates 1,5,10`): streams arrive at each offered rate in turn (evenly spaced or
 * Poisson, `--arrivals`), after an unmeasured warm-up, for `--rate-seconds` each; what the
 * target achieved at each rate (requests and output tokens per second, TTFT, end-to-end and
 * inter-token percentiles) is the latency-vs-throughput curve. Achieved is counted over at least
 * the offered window, so it never exceeds what was offered.
 */
import { runAtRate } from "../pool.js";
import type { StreamOutcome } from "../stream-client.js";
import { streamFigures } from "../stream-figures.js";
import { warmUp, workloadStream } from "../stream-request.js";
import type { SweepPoint } from "../recorder.js";
import type { Check, Scenario, ScenarioOutcome } from "../types.js";

/** What the target made of `planned` streams offered at `rate`: counted over at least the offered window. */
export function sweepPoint(
  rate: number,
  planned: number,
  started: number,
  outcomes: readonly StreamOutcome[],
): SweepPoint {
  const valid = outcomes.filter((o) => o.report.ok).length;
  return { rate, requests: started, valid, figures: streamFigures(outcomes, (planned / rate) * 1000) };
}

export const rateSweepScenario: Scenario = {
  id: "rate-sweep",
  title: "Rate sweep: latency against throughput",
  async run(ctx): Promise<ScenarioOutcome> {
    const { budget } = ctx;
    const checks: Check[] = [];
    const figures: ScenarioOutcome["figures"] = {};
    for (const rate of budget.rates) {
      const planned = Math.max(1, Math.round(rate * budget.rateSeconds));
      const outcomes: StreamOutcome[] = [];
      await warmUp(ctx, budget.warmup);
      const { started } = await runAtRate(
        planned,
        rate,
        budget.deadline,
        async (i) => {
          const out = await workloadStream(ctx, `rate ${rate} request ${i}`);
          outcomes.push(out);
          ctx.recorder.addStream("rate-sweep", out);
          ctx.progress(`rate ${rate}/s: ${outcomes.length}/${planned} done`);
        },
        budget.arrivals,
      );
      const point = sweepPoint(rate, planned, started, outcomes);
      const valid = point.valid;
      ctx.recorder.sweep.push(point);
      checks.push({
        name: `${rate} req/s: every stream valid, all planned requests ran`,
        ok: valid === planned,
        detail: `${valid}/${planned} valid (${started} started)`,
      });
      for (const [k, v] of Object.entries({ requests: started, valid, ...point.figures }))
        figures[`rate_${rate}_${k}`] = v;
    }
    return {
      verdict: checks.every((c) => c.ok) ? "pass" : "fail",
      checks,
      figures: { arrivals: budget.arrivals, ...figures },
    };
  },
};
