/**
 * Streaming correctness under concurrency: every response is a valid chunk stream (role
 * first, one id, finish_reason stop last, [DONE]) with all of its tokens; requests and output
 * tokens per second, TTFT, inter-token and end-to-end percentiles.
 */
import { runPool } from "../pool.js";
import { streamChat, type StreamOutcome } from "../stream-client.js";
import { streamFigures } from "../stream-figures.js";
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
    const { started } = await runPool(budget.requests, budget.concurrency, budget.deadline, async (i) => {
      const out = await streamChat(ctx.http, {
        baseUrl: target.baseUrl,
        key: target.key,
        model: target.streamModel,
        content: `load test request ${i}`,
        timeoutMs: Math.max(30_000, ctx.limits.readTimeoutMs * 2),
        expect: { model: target.streamModel, contentChunks: target.streamTokens },
      });
      outcomes.push(out);
      if (!out.report.ok && failures.length < 5) failures.push(`#${i}: ${out.report.errors.slice(0, 2).join("; ")}`);
      if (out.report.id) ids.add(out.report.id);
      heartbeats += out.report.heartbeats;
      ctx.recorder.addStream("streaming", out);
      ctx.progress(`streaming ${outcomes.filter((o) => o.report.ok).length}/${budget.requests} valid`);
    });

    const valid = outcomes.filter((o) => o.report.ok).length;
    const figures = streamFigures(outcomes);
    const checks: Check[] = [
      { name: "every stream valid and complete", ok: valid === started && started > 0, detail: `${valid}/${started} valid${failures.length ? `; ${failures.join(" | ")}` : ""}` },
      { name: "one id per response, none shared", ok: ids.size === valid, detail: `${ids.size} distinct ids for ${valid} valid streams` },
      { name: "all planned requests ran within the time budget", ok: started === budget.requests, detail: `${started}/${budget.requests}` },
      {
        name: `TTFT p95 <= ${budget.ttftP95Ms} ms`,
        ok: figures.ttft_p95_ms !== null && figures.ttft_p95_ms <= budget.ttftP95Ms,
        detail: `p95 ${figures.ttft_p95_ms} ms`,
      },
    ];
    return {
      verdict: checks.every((c) => c.ok) ? "pass" : "fail",
      checks,
      figures: {
        requests: started,
        valid,
        concurrency: budget.concurrency,
        tokens_per_stream: target.streamTokens ?? null,
        heartbeats_seen: heartbeats,
        ...figures,
      },
    };
  },
};
