/**
 * Streaming correctness under concurrency: every response is a valid chunk stream (role
 * first, one id, finish_reason stop last, [DONE]) with all of its tokens; requests and output
 * tokens per second, TTFT, inter-token and end-to-end percentiles.
 */
import { runPool } from "../pool.js";
import type { StreamOutcome } from "../stream-client.js";
import { streamFigures } from "../stream-figures.js";
import { warmUp, workloadStream } from "../stream-request.js";
import type { Check, Scenario, ScenarioOutcome } from "../types.js";

export const streamingScenario: Scenario = {
  id: "streaming",
  title: "Streaming correctness under concurrency",
  async run(ctx): Promise<ScenarioOutcome> {
    const { target, budget } = ctx;
    const outcomes: StreamOutcome[] = [];
    const failures: string[] = [];
    let heartbeats = 0;
    const ids = new Set<string>();
    await warmUp(ctx, budget.warmup);
    const { started } = await runPool(budget.requests, budget.concurrency, budget.deadline, async (i) => {
      const out = await workloadStream(ctx, `load test request ${i}`);
      outcomes.push(out);
      if (!out.report.ok && failures.length < 5) failures.push(`#${i}: ${out.report.errors.slice(0, 2).join("; ")}`);
      if (out.report.id) ids.add(out.report.id);
      heartbeats += out.report.heartbeats;
      ctx.recorder.addStream("streaming", out);
      ctx.progress(`streaming ${outcomes.filter((o) => o.report.ok).length}/${budget.requests} valid`);
    });

    const valid = outcomes.filter((o) => o.report.ok).length;
    const figures = streamFigures(outcomes);
    const errorRate = figures.error_rate ?? 1;
    const checks: Check[] = [
      {
        name:
          budget.maxErrorRate === 0
            ? "every stream valid and complete"
            : `failed streams <= ${budget.maxErrorRate * 100} %`,
        ok: started > 0 && errorRate <= budget.maxErrorRate,
        detail: `${valid}/${started} valid${failures.length ? `; ${failures.join(" | ")}` : ""}`,
      },
      {
        name: "one id per response, none shared",
        ok: ids.size === valid,
        detail: `${ids.size} distinct ids for ${valid} valid streams`,
      },
      {
        name: "all planned requests ran within the time budget",
        ok: started === budget.requests,
        detail: `${started}/${budget.requests}`,
      },
      {
        name: `TTFT p95 <= ${budget.ttftP95Ms} ms`,
        ok: figures.ttft_p95_ms !== null && figures.ttft_p95_ms <= budget.ttftP95Ms,
        detail: `p95 ${figures.ttft_p95_ms} ms`,
      },
      ...optionalP95("inter-token", budget.itlP95Ms, figures.itl_p95_ms),
      ...optionalP95("end-to-end", budget.e2eP95Ms, figures.e2e_p95_ms),
    ];
    return {
      verdict: checks.every((c) => c.ok) ? "pass" : "fail",
      checks,
      figures: {
        requests: started,
        valid,
        concurrency: budget.concurrency,
        tokens_per_stream: target.streamTokens ?? null,
        prompt_tokens: budget.promptTokens ?? null,
        warmup_streams: budget.warmup,
        heartbeats_seen: heartbeats,
        ...figures,
      },
    };
  },
};

/** A p95 threshold the SLO may leave unset. */
function optionalP95(what: string, budgetMs: number | null, p95: number | null): Check[] {
  if (budgetMs === null) return [];
  return [{ name: `${what} p95 <= ${budgetMs} ms`, ok: p95 !== null && p95 <= budgetMs, detail: `p95 ${p95} ms` }];
}
