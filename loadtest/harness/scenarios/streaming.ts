/**
 * Streaming correctness under concurrency: every response is a valid chunk stream (role
 * first, one id, finish_reason stop last, [DONE]) with all of its tokens; TTFT, inter-chunk
 * and end-to-end percentiles.
 */
import { runPool } from "../pool.js";
import { streamChat } from "../stream-client.js";
import { summarize, summaryFigures } from "../stats.js";
import type { Check, Scenario, ScenarioOutcome } from "../types.js";

export const streamingScenario: Scenario = {
  id: "streaming",
  title: "Streaming correctness under concurrency",
  async run(ctx): Promise<ScenarioOutcome> {
    const { target, budget } = ctx;
    const ttft: number[] = [];
    const e2e: number[] = [];
    const inter: number[] = [];
    const failures: string[] = [];
    let valid = 0;
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
      const ok = out.report.ok;
      if (ok) valid++;
      else if (failures.length < 5) failures.push(`#${i}: ${out.report.errors.slice(0, 2).join("; ")}`);
      if (out.report.id) ids.add(out.report.id);
      heartbeats += out.report.heartbeats;
      if (out.ttftMs !== undefined) ttft.push(out.ttftMs);
      e2e.push(out.e2eMs);
      inter.push(...out.interChunkMs);
      ctx.recorder.interChunkMs.push(...out.interChunkMs);
      ctx.recorder.add({ scenario: "streaming", op: "chat.stream", startedAt: out.startedAt, latencyMs: out.e2eMs, ok, ttftMs: out.ttftMs });
      ctx.progress(`streaming ${valid}/${budget.requests} valid`);
    });

    const ttftS = summarize(ttft);
    const checks: Check[] = [
      { name: "every stream valid and complete", ok: valid === started && started > 0, detail: `${valid}/${started} valid${failures.length ? `; ${failures.join(" | ")}` : ""}` },
      { name: "one id per response, none shared", ok: ids.size === valid, detail: `${ids.size} distinct ids for ${valid} valid streams` },
      { name: "all planned requests ran within the time budget", ok: started === budget.requests, detail: `${started}/${budget.requests}` },
      {
        name: `TTFT p95 <= ${budget.ttftP95Ms} ms`,
        ok: ttftS.p95 !== null && ttftS.p95 <= budget.ttftP95Ms,
        detail: `p95 ${ttftS.p95} ms`,
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
        ...summaryFigures("ttft", ttftS),
        ...summaryFigures("inter_chunk", summarize(inter)),
        ...summaryFigures("e2e", summarize(e2e)),
      },
    };
  },
};
