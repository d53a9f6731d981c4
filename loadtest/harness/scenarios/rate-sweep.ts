/**
 * Rate sweep (`--rates 1,5,10`): streams arrive at each offered rate in turn, evenly spaced, for
 * `--rate-seconds` each; what the target achieved at each rate (requests and output tokens per
 * second, TTFT, end-to-end and inter-token percentiles) is the latency-vs-throughput curve.
 */
import { runAtRate } from "../pool.js";
import { streamChat, type StreamOutcome } from "../stream-client.js";
import { streamFigures } from "../stream-figures.js";
import type { Check, Scenario, ScenarioOutcome } from "../types.js";

export const rateSweepScenario: Scenario = {
  id: "rate-sweep",
  title: "Rate sweep: latency against throughput",
  async run(ctx): Promise<ScenarioOutcome> {
    const { target, budget } = ctx;
    const checks: Check[] = [];
    const figures: ScenarioOutcome["figures"] = {};
    for (const rate of budget.rates) {
      const planned = Math.max(1, Math.round(rate * budget.rateSeconds));
      const outcomes: StreamOutcome[] = [];
      const { started } = await runAtRate(planned, rate, budget.deadline, async (i) => {
        const out = await streamChat(ctx.http, {
          baseUrl: target.baseUrl,
          key: target.key,
          model: target.streamModel,
          content: `rate ${rate} request ${i}`,
          timeoutMs: Math.max(30_000, ctx.limits.readTimeoutMs * 2),
          expect: { model: target.streamModel, contentChunks: target.streamTokens },
        });
        outcomes.push(out);
        ctx.recorder.addStream("rate-sweep", out);
        ctx.progress(`rate ${rate}/s: ${outcomes.length}/${planned} done`);
      });
      const valid = outcomes.filter((o) => o.report.ok).length;
      const point = { rate, requests: started, valid, figures: streamFigures(outcomes) };
      ctx.recorder.sweep.push(point);
      checks.push({ name: `${rate} req/s: every stream valid, all planned requests ran`, ok: valid === planned, detail: `${valid}/${planned} valid (${started} started)` });
      for (const [k, v] of Object.entries({ requests: started, valid, ...point.figures })) figures[`rate_${rate}_${k}`] = v;
    }
    return { verdict: checks.every((c) => c.ok) ? "pass" : "fail", checks, figures };
  },
};
